// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_analysis.c - unit tests of analysis/: the --compare filter syntax,
 * the table renderer's escaping and JSON typing, and the bootstrap's
 * statistics on runs with a known shift (a 10 % shift must be found with
 * an interval around it that excludes 0; two draws of one distribution
 * must give an interval that contains 0), reproducibly from one seed; and
 * that the ipi, pairs and states kinds select rows by what benchmarks
 * declare (bench.h's report), never by name.
 */
#include "analysis.h"
#include "bench.h"
#include "bench_registry.h"
#include "err.h"
#include "series.h"
#include "store.h"
#include "tap.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TEST(filter_syntax)
{
	static const char *const good[] = {
		"host=a", "host=a,bench=timer_wake", "params.irq_mode=early",
		"attr.idle_state=C1", "fp.cpu.model=Xeon", "reference=1", "host=",
	};
	static const char *const bad[] = {
		"", "host", "=a", "colour=red", "params.=x", "host=a,,", "attr.=1",
	};
	struct il_filter *f;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		CHECKF(il_filter_parse(good[i], &f) == 0, "%s", good[i]);
		il_filter_free(f);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = il_filter_parse(bad[i], &f);

		/* "host=a,," is one term plus empty ones strtok skips. */
		if (!strcmp(bad[i], "host=a,,")) {
			CHECK(ret == 0);
			il_filter_free(f);
			continue;
		}
		CHECKF(ret == -EINVAL && f == NULL && *il_errmsg(), "%s", bad[i]);
	}
}

static char *render(const struct il_table *t, enum il_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	il_table_print(t, fmt, f);
	fclose(f);
	return buf;
}

TEST(table_formats)
{
	static const char *const cols[] = { "Name", "Value" };
	struct il_table *t = il_table_new("T", 2, cols);
	char *s;

	il_table_add(t, (const char *const[]){ "a,\"b\"", "12" });
	il_table_add(t, (const char *const[]){ "<x>", "-" });
	il_table_add(t, (const char *const[]){ "y", "1.5" });
	il_table_add(t, (const char *const[]){ "ci", "[-16.36, +135.77]" });
	il_table_add(t, (const char *const[]){ "text", "[-1, x]" });
	il_table_note(t, "note %d", 1);
	s = render(t, IL_FMT_CSV);
	CHECKF(strstr(s, "\"a,\"\"b\"\"\",12\n") != NULL, "%s", s);
	/* Issue 20: csv is the table alone, "-" an empty field. */
	CHECKF(!strncmp(s, "Name,Value\n", 11) && !strchr(s, '#') &&
	       strstr(s, "\n<x>,\n") != NULL, "%s", s);
	free(s);
	s = render(t, IL_FMT_JSON);
	CHECKF(strstr(s, "\"Value\": 12") && strstr(s, "\"Value\": null") &&
	       strstr(s, "\"Value\": 1.5"), "%s", s);
	/* Issue 20: an interval is an object of two numbers, not a string;
	 * a cell that only looks like one stays text. */
	{
		json_t *j = json_loads(s, 0, NULL);
		json_t *ci = json_object_get(json_array_get(json_object_get(j, "rows"), 3), "Value");

		CHECKF(json_is_object(ci) &&
		       fabs(json_real_value(json_object_get(ci, "lo")) + 16.36) < 1e-9 &&
		       fabs(json_real_value(json_object_get(ci, "hi")) - 135.77) < 1e-9,
		       "%s", s);
		json_decref(j);
	}
	CHECKF(strstr(s, "\"Value\": \"[-1, x]\"") != NULL, "%s", s);
	free(s);
	s = render(t, IL_FMT_HTML);
	CHECK(strstr(s, "&lt;x&gt;") != NULL && !strstr(s, "<x>"));
	free(s);
	s = render(t, IL_FMT_MD);
	CHECK(strstr(s, "| Name | Value |") != NULL);
	free(s);
	il_table_free(t);
}

static uint64_t lcg = 42;

static uint64_t draw(uint64_t base)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return base + (lcg >> 33) % (base / 2);
}

/* Store @se as run number @n of @bench on @machine, params {"mode": @mode}. */
static void save_run(struct il_store *s, int n, const char *machine,
		     const char *bench, const char *mode, struct il_series *se)
{
	struct il_run_rec r = { 0 };
	char params[64];

	snprintf(r.uuid, sizeof(r.uuid), "00000000-0000-4000-8000-%012d", n);
	snprintf(r.machine_uuid, sizeof(r.machine_uuid), "%s", machine);
	snprintf(params, sizeof(params), "{\"mode\":\"%s\"}", mode);
	r.bench = bench;
	r.params_json = params;
	r.plan_index = -1;
	r.start_ns = 1000 + (uint64_t)n;
	r.end_ns = r.start_ns;
	r.status = "ok";
	r.tool_version = "t";
	r.nseries = 1;
	r.series = &se;
	CHECK(il_store_save_run(s, &r) == 0);
	il_series_free(se);
}

static void save(struct il_store *s, int n, const char *mode, uint64_t base)
{
	struct il_series *se = il_series_new("wake_latency", "ns", 0, -1, -1, false, false);
	int i;

	for (i = 0; i < 4000; i++)
		il_series_add(se, draw(base));
	save_run(s, n, "11111111-0000-4000-8000-000000000000", "timer_wake",
		 mode, se);
}

static struct il_table *compare(struct il_store *s, const char *a, const char *b)
{
	struct il_filter *f[2];
	const char *txt[2] = { a, b };
	struct il_analysis_opts o = { .ncompare = 2, .compare = f,
				      .compare_text = txt };
	struct il_table *t = NULL;

	CHECK(il_filter_parse(a, &f[0]) == 0);
	CHECK(il_filter_parse(b, &f[1]) == 0);
	CHECK(il_report_compare(s, &o, &t) == 0);
	il_filter_free(f[0]);
	il_filter_free(f[1]);
	return t;
}

/*
 * The A/B table takes the run as its unit (issue 12): 8 runs a side, each
 * with its own offset of up to +-3 %, b 10 % above a, c like a.  Columns:
 * 6 keys, 3 per side (runs, samples, median of runs), then shift, CI, p,
 * p (Holm), verdict.  One run a side is too few for any interval.
 */
TEST(run_level)
{
	char path[] = "/tmp/test_analysis.XXXXXX";
	struct il_table *t;
	struct il_store *s;
	double lo, hi, dm;
	int fd = mkstemp(path), i;

	CHECK(fd >= 0);
	close(fd);
	CHECK(il_store_open(path, IL_STORE_CREATE, &s) == 0);
	CHECK(il_store_put_machine(s, "11111111-0000-4000-8000-000000000000", "m", NULL, NULL) == 0);
	for (i = 0; i < 8; i++) {
		uint64_t off = 9700 + (uint64_t)(i * 5 % 8) * 75;

		save(s, 1 + 3 * i, "a", off);
		save(s, 2 + 3 * i, "b", off * 11 / 10);	/* +10 % */
		save(s, 3 + 3 * i, "c", 9700 + (uint64_t)(i * 3 % 8) * 75);
	}
	save(s, 100, "d", 10000);
	save(s, 101, "e", 10000);
	t = compare(s, "params.mode=a", "params.mode=b");
	CHECK(t && t->nrows == 3 && t->ncols == 20);
	if (t && t->nrows == 3 && t->ncols == 20) {
		CHECKF(!strcmp(t->cells[4], "median"), "%s", t->cells[4]);
		CHECKF(!strcmp(t->cells[6], "8") && !strcmp(t->cells[10], "8"),
		       "runs %s %s", t->cells[6], t->cells[10]);
		dm = atof(t->cells[14]);
		CHECKF(dm > 8 && dm < 12, "median shift %s", t->cells[14]);
		CHECK(sscanf(t->cells[15], "[%lf, %lf]", &lo, &hi) == 2);
		CHECKF(lo > 0 && lo < dm && hi > dm, "%s", t->cells[15]);
		CHECKF(!strcmp(t->cells[19], "higher than S1 (Holm p < 0.05)"), "%s", t->cells[19]);
	}
	il_table_free(t);
	t = compare(s, "params.mode=a", "params.mode=c");
	if (t && t->nrows == 3 && t->ncols == 20) {
		CHECK(sscanf(t->cells[15], "[%lf, %lf]", &lo, &hi) == 2);
		CHECKF(lo < 0 && hi > 0, "%s", t->cells[15]);
		CHECKF(!strcmp(t->cells[19], "no evidence of a change (CI contains 0)"),
		       "%s", t->cells[19]);
	}
	il_table_free(t);
	t = compare(s, "params.mode=d", "params.mode=e");
	if (t && t->nrows == 3 && t->ncols == 20) {
		CHECKF(!strcmp(t->cells[15], "not possible with 1 vs 1 runs"), "%s", t->cells[15]);
		CHECKF(strstr(t->cells[19], "too few runs (1 vs 1)") != NULL, "%s", t->cells[19]);
	}
	il_table_free(t);
	il_store_close(s);
	unlink(path);
}

#define UNDECLARED "not_a_benchmark"

/* One run of @bench with one series of @metric at (cpu, cpu2, grp). */
static void save_decl(struct il_store *s, int n, const char *bench,
		      const char *mode, const char *metric, int cpu, int cpu2,
		      int64_t grp)
{
	struct il_series *se = il_series_new(metric, "ns", cpu, cpu2, grp,
					     false, false);
	int i;

	for (i = 0; i < 100; i++)
		il_series_add(se, 1000 + (uint64_t)i);
	save_run(s, n, "22222222-0000-4000-8000-000000000000", bench, mode, se);
}

static bool table_names(const struct il_table *t, const char *what)
{
	int i;

	if (strstr(t->title, what))
		return true;
	for (i = 0; i < t->ncols; i++)
		if (strstr(t->cols[i], what))
			return true;
	for (i = 0; i < t->nrows * t->ncols; i++)
		if (strstr(t->cells[i], what))
			return true;
	return false;
}

/*
 * Every registered benchmark gets rows of the metrics it declares, plus a
 * wake_latency row; a benchmark no registry holds gets every one of those
 * metrics.  Each kind must show exactly the declared ones.  No benchmark is
 * named, so a new one is covered without an edit here.
 */
TEST(reports_select_by_declaration)
{
	char path[] = "/tmp/test_analysis_decl.XXXXXX";
	struct il_analysis_opts o = { 0 };
	struct il_table *t = NULL, **pv = NULL;
	int fd = mkstemp(path), i, n = 0, nipi = 0, npairs = 0, nwake = 0, np = 0;
	struct il_store *s;

	CHECK(fd >= 0);
	close(fd);
	CHECK(il_store_open(path, IL_STORE_CREATE, &s) == 0);
	CHECK(il_store_put_machine(s, "22222222-0000-4000-8000-000000000000", "m", NULL, NULL) == 0);
	for (i = 0; il_benches[i]; i++) {
		const struct il_bench_ops *b = il_benches[i];
		const struct il_bench_report *d = &b->report;

		if (d->ipi_metric) {
			save_decl(s, ++n, b->name, "m1", d->ipi_metric, 0, -1, 2);
			nipi++;
		}
		if (d->pairs_metric) {
			save_decl(s, ++n, b->name, "", d->pairs_metric, 0, 1, -1);
			npairs++;
		}
		save_decl(s, ++n, b->name, "", "wake_latency", 0, -1, -1);
		nwake += d->wake_source != NULL;
	}
	CHECKF(nipi > 0 && npairs > 0 && nwake > 0, "declared: ipi %d pairs %d states %d",
	       nipi, npairs, nwake);
	save_decl(s, ++n, UNDECLARED, "m1", "round_time", 0, -1, 2);
	save_decl(s, ++n, UNDECLARED, "m1", "call_latency", 0, -1, 2);
	save_decl(s, ++n, UNDECLARED, "", "wake_latency", 0, 1, -1);
	save_decl(s, ++n, UNDECLARED, "", "wake_latency", 0, -1, -1);

	CHECK(il_report_ipi(s, &o, &t) == 0);
	/* One row per declared benchmark: each has one configuration
	 * (mode=m1) and one target count; never the undeclared one. */
	if (t) {
		CHECKF(t->ncols == 8, "ipi: %d columns", t->ncols);
		CHECKF(t->nrows == nipi, "ipi: %d rows, %d declared", t->nrows, nipi);
		CHECK(!table_names(t, UNDECLARED));
	}
	il_table_free(t);
	t = NULL;

	CHECK(il_report_pairs(s, &o, &pv, &np) == 0);
	CHECKF(np == npairs, "pairs: %d matrices, %d declared", np, npairs);
	for (i = 0; i < np; i++) {
		CHECK(!table_names(pv[i], UNDECLARED));
		il_table_free(pv[i]);
	}
	free(pv);

	CHECK(il_report_states(s, &o, &t) == 0);
	if (t) {
		CHECKF(t->nrows == nwake, "states: %d rows, %d declared", t->nrows,
		       nwake);
		CHECK(!table_names(t, UNDECLARED));
	}
	il_table_free(t);
	il_store_close(s);
	unlink(path);
}

int main(void)
{
	RUN(filter_syntax);
	RUN(table_formats);
	RUN(run_level);
	RUN(reports_select_by_declaration);
	return tap_done();
}
