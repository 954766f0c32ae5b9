// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ab_raw.c - the A/B table's values from raw samples (issue 22):
 * the Harrell-Davis deciles of a run that kept every sample raw are of its
 * samples, not of its histogram's bucket midpoints, and a run whose value
 * merges several series, all kept raw, gets the exact median and p99 of
 * the merged samples; a run with any series not kept raw falls back to
 * its histogram, and for the deciles the row says so.  --paired, which
 * always merges a run's CPUs, gets the same exact median.
 *
 * Every sample is a multiple of 64 between 65536 and 131071, where a
 * bucket is 64 wide: each sits at the bottom of its bucket, so a value
 * taken from bucket midpoints is half a bucket (31.5) too high, which is
 * what the old code printed.
 */
#include "ab.h"
#include "analysis.h"
#include "err.h"
#include "series.h"
#include "stats.h"
#include "store.h"
#include "store_sqlite.h"
#include "tap.h"

#include <sqlite3.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NS		1001
#define MACHINE		"33333333-0000-4000-8000-000000000000"
/* Columns of a two-sided table: S1 and S2 median of runs, S2 verdict. */
#define COL_S1		8
#define COL_S2		12
#define COL_VERDICT	19
#define NCOLS		20
/* Rows of one key and CPU: median, p99, mean, then HD p10 .. HD p90. */
#define ROW_MEDIAN	0
#define ROW_P99		1
#define ROW_HD(d)	(3 + (d) / 10 - 1)

/*
 * The HD deciles of sample(0, k), k < NS, by tests/helpers/hd_reference.py
 * (mpmath's regularized incomplete beta at 40 digits, every order
 * statistic weighted, nothing left out):
 *   python3 -c 'for k in range(1001): print(65536 + 64 * ((k * 7919) % 613))' |
 *   python3 tests/helpers/hd_reference.py 0.1 0.5 0.9
 */
#define REF_HD10	69408.776042143221773
#define REF_HD50	85182.180641689286199
#define REF_HD90	100812.15392725886351

/* Sample @k of series pattern @which: ties, all at bucket bottoms. */
static uint64_t sample(int which, int k)
{
	return which ? 65536 + 64 * (uint64_t)((k * 104729) % 701) :
		       65536 + 64 * (uint64_t)((k * 7919) % 613);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* One series on @cpu of pattern @which, kept raw or not. */
static struct il_series *series(int cpu, int which, bool raw)
{
	struct il_series *se = il_series_new("wake_latency", "ns", cpu, -1, -1,
					     false, raw);
	int k;

	for (k = 0; k < NS; k++)
		il_series_add(se, sample(which, k));
	return se;
}

/* Store run @n, params {"mode": @mode}, with its @ns series. */
static void save_run(struct il_store *s, int n, const char *mode,
		     struct il_series **se, int ns)
{
	struct il_run_rec r = { 0 };
	char params[64];
	int i;

	snprintf(r.uuid, sizeof(r.uuid), "00000000-0000-4000-8000-%012d", n);
	snprintf(r.machine_uuid, sizeof(r.machine_uuid), "%s", MACHINE);
	snprintf(params, sizeof(params), "{\"mode\":\"%s\"}", mode);
	r.bench = "timer_wake";
	r.params_json = params;
	r.plan_index = -1;
	r.start_ns = 1000 + (uint64_t)n;
	r.end_ns = r.start_ns;
	r.status = "ok";
	r.tool_version = "t";
	r.nseries = ns;
	r.series = se;
	CHECK(il_store_save_run(s, &r) == 0);
	for (i = 0; i < ns; i++)
		il_series_free(se[i]);
}

/* Run @n (0 or 1) of block 1 of campaign "c", mode a or b. */
/* Run @n of campaign "c" (plan index @n), with @params. */
static void save_block_run_at(struct il_store *s, int n, const char *params,
			      struct il_series **se)
{
	struct il_run_rec r = { 0 };

	snprintf(r.uuid, sizeof(r.uuid), "00000000-0000-4000-8000-%012d", 50 + n);
	snprintf(r.machine_uuid, sizeof(r.machine_uuid), "%s", MACHINE);
	r.bench = "timer_wake";
	r.params_json = params;
	r.campaign = "c";
	r.plan_index = n;
	r.start_ns = 1000 + (uint64_t)n;
	r.end_ns = r.start_ns;
	r.status = "ok";
	r.tool_version = "t";
	r.nseries = 2;
	r.series = se;
	CHECK(il_store_save_run(s, &r) == 0);
	il_series_free(se[0]);
	il_series_free(se[1]);
}

static void save_block_run(struct il_store *s, int n, struct il_series **se)
{
	save_block_run_at(s, n, n ? "{\"mode\":\"b\"}" : "{\"mode\":\"a\"}", se);
}

/* @sql on @s's connection succeeds. */
static bool sqlite3_exec_ok(struct il_store *s, const char *sql)
{
	char *err = NULL;
	int rc = sqlite3_exec(il_store_db(s), sql, NULL, NULL, &err);

	if (rc != SQLITE_OK)
		printf("# %s: %s\n", sql, err ? err : "?");
	sqlite3_free(err);
	return rc == SQLITE_OK;
}

static struct il_table *compare(struct il_store *s, const char *a,
				const char *b, bool deciles)
{
	struct il_filter *f[2];
	const char *txt[2] = { a, b };
	struct il_analysis_opts o = { .ncompare = 2, .compare = f,
				      .compare_text = txt, .deciles = deciles };
	struct il_table *t = NULL;

	CHECK(il_filter_parse(a, &f[0]) == 0);
	CHECK(il_filter_parse(b, &f[1]) == 0);
	CHECKF(il_report_compare(s, &o, &t) == 0, "%s", il_errmsg());
	il_filter_free(f[0]);
	il_filter_free(f[1]);
	return t;
}

static const char *cell(const struct il_table *t, int row, int col)
{
	if (!t || t->ncols != NCOLS || row >= t->nrows)
		return "(none)";
	return t->cells[row * t->ncols + col];
}

/* The cell holds @want to the table's one decimal. */
static bool near(const char *cell, double want)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.1f", want);
	return !strcmp(cell, buf);
}

static struct il_store *open_db(char *path)
{
	struct il_store *s = NULL;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	CHECK(il_store_open(path, IL_STORE_CREATE, &s) == 0);
	CHECK(il_store_put_machine(s, MACHINE, "m", NULL, NULL) == 0);
	return s;
}

/* il_ab_hd_sorted() against the independent reference, and the old
 * midpoint sum against it: half a bucket off. */
TEST(hd_sorted_matches_reference)
{
	static const double ref[3] = { REF_HD10, REF_HD50, REF_HD90 };
	static const double p[3] = { 0.1, 0.5, 0.9 };
	uint64_t v[NS];
	struct il_hist *h = il_hist_new();
	int k;

	for (k = 0; k < NS; k++) {
		v[k] = sample(0, k);
		il_hist_record(h, v[k]);
	}
	qsort(v, NS, sizeof(v[0]), u64_cmp);
	for (k = 0; k < 3; k++) {
		double got = il_ab_hd_sorted(v, NS, p[k]);
		double mid = il_ab_hd_quantile(h, p[k]);

		CHECKF(fabs(got - ref[k]) < 1e-6, "HD p%.0f %.9f, reference %.9f",
		       p[k] * 100, got, ref[k]);
		CHECKF(fabs(mid - ref[k] - 31.5) < 1e-6, "midpoints: %.9f", mid);
	}
	CHECK(isnan(il_ab_hd_sorted(v, 0, 0.5)));
	/* One value: every weight on it. */
	CHECK(il_ab_hd_sorted(v, 1, 0.5) == (double)v[0]);
	il_hist_free(h);
}

/*
 * --deciles on runs kept raw: the deciles are the reference's, and no
 * flag; a side not kept raw keeps the midpoint decile, and the verdict
 * says so.
 */
TEST(deciles_from_raw)
{
	char path[] = "/tmp/test_ab_raw.XXXXXX";
	struct il_store *s = open_db(path);
	struct il_series *se[1];
	struct il_table *t;
	uint64_t v[NS];
	int k;

	se[0] = series(0, 0, true);
	save_run(s, 1, "a", se, 1);
	se[0] = series(0, 0, true);
	save_run(s, 2, "b", se, 1);
	se[0] = series(0, 0, false);
	save_run(s, 3, "c", se, 1);
	for (k = 0; k < NS; k++)
		v[k] = sample(0, k);
	qsort(v, NS, sizeof(v[0]), u64_cmp);

	t = compare(s, "params.mode=a", "params.mode=b", true);
	CHECKF(t && t->nrows == 12, "rows %d", t ? t->nrows : -1);
	CHECKF(near(cell(t, ROW_HD(10), COL_S1), REF_HD10), "HD p10 %s",
	       cell(t, ROW_HD(10), COL_S1));
	CHECKF(near(cell(t, ROW_HD(50), COL_S1), REF_HD50), "HD p50 %s",
	       cell(t, ROW_HD(50), COL_S1));
	CHECKF(near(cell(t, ROW_HD(90), COL_S2), REF_HD90), "HD p90 %s",
	       cell(t, ROW_HD(90), COL_S2));
	/* The exact median, rank 501, lies within 0.05 % of HD p50. */
	CHECKF(near(cell(t, ROW_MEDIAN, COL_S1), (double)v[NS / 2]), "median %s",
	       cell(t, ROW_MEDIAN, COL_S1));
	CHECKF(!strstr(cell(t, ROW_HD(50), COL_VERDICT), "midpoints"), "%s",
	       cell(t, ROW_HD(50), COL_VERDICT));
	il_table_free(t);

	t = compare(s, "params.mode=a", "params.mode=c", true);
	CHECKF(near(cell(t, ROW_HD(50), COL_S2), REF_HD50 + 31.5), "midpoint HD p50 %s",
	       cell(t, ROW_HD(50), COL_S2));
	CHECKF(strstr(cell(t, ROW_HD(50), COL_VERDICT),
		      "HD of 1 of 2 runs from bucket midpoints") != NULL, "%s",
	       cell(t, ROW_HD(50), COL_VERDICT));
	CHECKF(!strstr(cell(t, ROW_MEDIAN, COL_VERDICT), "midpoints"), "%s",
	       cell(t, ROW_MEDIAN, COL_VERDICT));
	il_table_free(t);
	il_store_close(s);
	unlink(path);
}

/*
 * A run over two CPUs, each series kept raw, in a table whose sides
 * measured different CPUs (so each run's CPUs merge, CPU "all"): its
 * median and p99 are those of the merged samples.  With one series not
 * kept raw, the merged histogram's midpoint, clamped, as before.
 */
TEST(merged_series_exact)
{
	char path[] = "/tmp/test_ab_raw_merge.XXXXXX";
	struct il_store *s = open_db(path);
	struct il_series *se[2];
	struct il_table *t;
	struct il_hist *h = il_hist_new();
	uint64_t v[2 * NS], p50, p99, h50;
	int k;

	se[0] = series(0, 0, true);
	se[1] = series(1, 1, true);
	save_run(s, 1, "a", se, 2);
	se[0] = series(0, 0, true);
	se[1] = series(2, 1, true);
	save_run(s, 2, "b", se, 2);
	se[0] = series(0, 0, true);
	se[1] = series(2, 1, false);
	save_run(s, 3, "c", se, 2);
	for (k = 0; k < NS; k++) {
		v[k] = sample(0, k);
		v[NS + k] = sample(1, k);
		il_hist_record(h, v[k]);
		il_hist_record(h, v[NS + k]);
	}
	p50 = il_percentile_exact(v, 2 * NS, 50);
	p99 = il_percentile_exact(v, 2 * NS, 99);
	/* Ranks 1001 and 1982 of 2002 (ceil(p n)). */
	CHECK(p50 == v[1000] && p99 == v[1981]);
	h50 = il_hist_percentile_in(h, 50, v[0], v[2 * NS - 1]);
	CHECKF(h50 == p50 + 31, "the midpoint %llu, exact %llu",
	       (unsigned long long)h50, (unsigned long long)p50);

	t = compare(s, "params.mode=a", "params.mode=b", false);
	CHECKF(t && t->nrows == 3, "rows %d", t ? t->nrows : -1);
	CHECKF(!strcmp(cell(t, ROW_MEDIAN, 3), "all"), "CPU %s", cell(t, ROW_MEDIAN, 3));
	CHECKF(near(cell(t, ROW_MEDIAN, COL_S1), (double)p50), "median %s, exact %llu",
	       cell(t, ROW_MEDIAN, COL_S1), (unsigned long long)p50);
	CHECKF(near(cell(t, ROW_MEDIAN, COL_S2), (double)p50), "median %s",
	       cell(t, ROW_MEDIAN, COL_S2));
	CHECKF(near(cell(t, ROW_P99, COL_S1), (double)p99), "p99 %s, exact %llu",
	       cell(t, ROW_P99, COL_S1), (unsigned long long)p99);
	il_table_free(t);

	t = compare(s, "params.mode=a", "params.mode=c", false);
	CHECKF(near(cell(t, ROW_MEDIAN, COL_S2), (double)h50), "fallback %s, midpoint %llu",
	       cell(t, ROW_MEDIAN, COL_S2), (unsigned long long)h50);
	il_table_free(t);
	il_hist_free(h);
	il_store_close(s);
	unlink(path);
}

/* --paired's table of params.mode=a against params.mode=b in @s. */
static struct il_table *paired_table(struct il_store *s)
{
	const char *txt[2] = { "params.mode=a", "params.mode=b" };
	struct il_filter *f[2] = { NULL, NULL };
	struct il_analysis_opts o = { .ncompare = 2, .compare = f,
				      .compare_text = txt };
	struct il_table *t = NULL;

	CHECK(il_filter_parse(txt[0], &f[0]) == 0);
	CHECK(il_filter_parse(txt[1], &f[1]) == 0);
	CHECKF(il_report_paired(s, &o, &t) == 0, "%s", il_errmsg());
	il_filter_free(f[0]);
	il_filter_free(f[1]);
	return t;
}

/*
 * --paired merges each run's CPUs: with every series kept raw, a run's
 * median is the merged samples' exact one.  One block, S2's samples
 * those of S1 each 63 higher, at the top of their buckets: the exact
 * medians differ by 63 (+0.07 %), their bucket midpoints not at all.
 */
TEST(paired_merged_exact)
{
	char path[] = "/tmp/test_ab_raw_paired.XXXXXX";
	struct il_store *s = open_db(path);
	struct il_series *se[2];
	struct il_table *t = NULL;
	uint64_t v[2 * NS], p50;
	char want[32];
	int k, run;

	CHECK(sqlite3_exec_ok(s, "INSERT INTO campaigns VALUES ('" MACHINE "', 'c', 'c.yaml', 'x', 1, 2,"
			      " '[{\"order\":\"blocks\",\"repetition\":1},"
			      "{\"order\":\"blocks\",\"repetition\":1}]', 't', 0)"));
	for (run = 0; run < 2; run++) {
		se[0] = il_series_new("wake_latency", "ns", 0, -1, -1, false, true);
		se[1] = il_series_new("wake_latency", "ns", 1, -1, -1, false, true);
		for (k = 0; k < NS; k++) {
			il_series_add(se[0], sample(0, k) + 63 * (uint64_t)run);
			il_series_add(se[1], sample(1, k) + 63 * (uint64_t)run);
		}
		save_block_run(s, run, se);
	}
	for (k = 0; k < NS; k++) {
		v[k] = sample(0, k);
		v[NS + k] = sample(1, k);
	}
	p50 = il_percentile_exact(v, 2 * NS, 50);
	snprintf(want, sizeof(want), "%+.2f", ((double)(p50 + 63) / (double)p50 - 1) * 100);

	t = paired_table(s);
	CHECKF(t && t->nrows == 2 && t->ncols == 12, "rows %d", t ? t->nrows : -1);
	if (t && t->nrows == 2 && t->ncols == 12) {
		CHECKF(!strcmp(t->cells[3], "median") && !strcmp(t->cells[5], "1"),
		       "%s, %s pairs", t->cells[3], t->cells[5]);
		CHECKF(!strcmp(t->cells[7], want), "paired shift %s, exact %s",
		       t->cells[7], want);
	}
	il_table_free(t);
	il_store_close(s);
	unlink(path);
}

/*
 * A paired p from the normal approximation (ties in |d|: every block is
 * the same two runs, S2's samples S1's plus 1000 ns) is still a bare number in its
 * column, for csv readers (issue 20); the verdict says how it was made.
 */
TEST(paired_normal_p_is_a_number)
{
	char path[] = "/tmp/test_ab_raw_normal.XXXXXX";
	struct il_store *s = open_db(path);
	struct il_series *se[2];
	struct il_table *t = NULL;
	char sql[1024], *end;
	size_t n = 0;
	int b, k;

	/* Eight blocks, each one run of either arm. */
	n += (size_t)snprintf(sql + n, sizeof(sql) - n,
			      "INSERT INTO campaigns VALUES ('" MACHINE "', 'c', 'c.yaml', 'x', 1, 16, '[");
	for (b = 0; b < 16; b++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n,
				      "%s{\"order\":\"blocks\",\"repetition\":%d}",
				      b ? "," : "", b / 2 + 1);
	snprintf(sql + n, sizeof(sql) - n, "]', 't', 0)");
	CHECK(sqlite3_exec_ok(s, sql));
	for (b = 0; b < 16; b++) {
		se[0] = il_series_new("wake_latency", "ns", 0, -1, -1, false, false);
		se[1] = il_series_new("wake_latency", "ns", 1, -1, -1, false, false);
		for (k = 0; k < 50; k++) {
			il_series_add(se[0], 50000 + 1000 * (uint64_t)(b % 2) +
					     (uint64_t)k);
			il_series_add(se[1], 50000 + 1000 * (uint64_t)(b % 2) +
					     (uint64_t)k);
		}
		save_block_run_at(s, b, b % 2 ? "{\"mode\":\"b\"}" : "{\"mode\":\"a\"}",
				  se);
	}
	t = paired_table(s);
	CHECKF(t && t->nrows == 2 && t->ncols == 12, "rows %d", t ? t->nrows : -1);
	if (t && t->nrows == 2 && t->ncols == 12) {
		CHECKF(!strcmp(t->cells[5], "8"), "%s pairs", t->cells[5]);
		/* Columns: 9 p, 11 the verdict. */
		strtod(t->cells[9], &end);
		CHECKF(end != t->cells[9] && !*end, "p cell '%s'", t->cells[9]);
		CHECKF(strstr(t->cells[11], "; p from the normal approximation") != NULL,
		       "verdict '%s'", t->cells[11]);
	}
	il_table_free(t);
	il_store_close(s);
	unlink(path);
}

int main(void)
{
	RUN(hd_sorted_matches_reference);
	RUN(deciles_from_raw);
	RUN(merged_series_exact);
	RUN(paired_merged_exact);
	RUN(paired_normal_p_is_a_number);
	return tap_done();
}
