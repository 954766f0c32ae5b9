// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ab_raw.c - the A/B table's values from raw samples (issue 22): a
 * run whose value merges several series, all kept raw, gets the exact
 * median and p99 of the merged samples; a run with any series not kept
 * raw falls back to its histogram.
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
#include "tap.h"

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
/* Rows of one key and CPU: median, p99, mean. */
#define ROW_MEDIAN	0
#define ROW_P99		1

/* Sample @k of series pattern @which: ties, all at bucket bottoms. */
static uint64_t sample(int which, int k)
{
	return which ? 65536 + 64 * (uint64_t)((k * 104729) % 701) :
		       65536 + 64 * (uint64_t)((k * 7919) % 613);
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

int main(void)
{
	RUN(merged_series_exact);
	return tap_done();
}
