// SPDX-License-Identifier: GPL-2.0-only
/*
 * report.c - the results table (`idlelab report`, and the table printed
 * after `idlelab bench`), in the style of seed 002's wake-latency tables.
 *
 * Runs that measured the same thing (same machine, benchmark, parameters,
 * metric, CPU or pair, and target count) are merged into one row: counts,
 * min and max exactly; mean and stddev with Chan's formula; percentiles
 * from the exact merge of their histograms.  Only parameters that differ
 * between rows of one benchmark are shown, in the Config column, so the
 * table stays readable while no two rows look alike.
 */
#include "analysis.h"
#include "csv.h"
#include "drops.h"
#include "err.h"
#include "groups.h"
#include "html_page.h"
#include "machine_label.h"
#include "report_notes.h"
#include "report_rows.h"
#include "stats.h"
#include "store.h"
#include "store_sqlite.h"
#include "progress.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/*
 * A row's pooled statistic, as the table prints it: the percentiles
 * clamped to the exact Min and Max; a tail percentile only where at least
 * ten samples lie beyond it (il_tail_estimable()), a standard deviation
 * only from two samples.  Return: false where the table shows "-".
 */
enum pct_kind {
	PCT_NONE,	/* "-" */
	PCT_VALUE,	/* *v */
	PCT_ABOVE,	/* beyond the histogram: more than *v, its top */
};

/*
 * The same, ranked over every sample including those dropped for range
 * (past the histogram: a cyclictest overflow), whose values are unknown
 * but above every recorded one.  Ranked over the recorded ones only, an
 * import with 1.25 % of its cycles past 30 us gave a p99 of 27 us (issue
 * 22, item 7).  A rank that falls among them is PCT_ABOVE.
 */
static enum pct_kind row_pct_kind(const struct row *r, double p, uint64_t *v)
{
	uint64_t over = r->sum.drop_split ? r->sum.drop[IL_DROP_RANGE] : 0;
	uint64_t all = r->sum.count + over;

	if (!r->sum.count || (p > 50 && !il_tail_estimable(all, p)))
		return PCT_NONE;
	/* One run's raw samples: the exact order statistic it stored. */
	if (r->exact && !over && (p == 50 || p == 99 || p == 99.9)) {
		*v = p == 50 ? r->p50 : p == 99 ? r->p99 : r->p999;
		return PCT_VALUE;
	}
	if (!il_pct_over(r->sum.count, over, &p)) {
		*v = il_hist_max(r->hist);
		return PCT_ABOVE;
	}
	*v = il_hist_percentile_in(r->hist, p, r->sum.min, r->sum.max);
	return PCT_VALUE;
}

/* Percentile @p of @r as JSON: a number, ">TOP" or null. */
static json_t *json_pct(const struct row *r, double p)
{
	uint64_t v = 0;
	char buf[32];

	switch (row_pct_kind(r, p, &v)) {
	case PCT_VALUE:
		return json_integer((json_int_t)v);
	case PCT_ABOVE:
		snprintf(buf, sizeof(buf), ">%" PRIu64, v);
		return json_string(buf);
	default:
		return json_null();
	}
}

static bool row_stddev(const struct row *r, double *v)
{
	if (r->sum.count < 2)
		return false;
	*v = il_summary_stddev(&r->sum);
	return true;
}

/* Percentile @p of @r as text, or "-" where row_pct() gives none. */
static const char *pct_or_dash(const struct row *r, double p, char *buf,
			       size_t len)
{
	uint64_t v = 0;
	enum pct_kind k = row_pct_kind(r, p, &v);

	if (k == PCT_NONE)
		return "-";
	snprintf(buf, len, "%s%" PRIu64, k == PCT_ABOVE ? ">" : "", v);
	return buf;
}

/* The runs' medians as "lo-hi", one value for one run, else "-". */
static const char *run_medians(const struct row *r, char *buf, size_t len)
{
	if (!r->nmed)
		return "-";
	if (r->nmed == 1 || r->med_lo == r->med_hi)
		snprintf(buf, len, "%" PRIu64, r->med_lo);
	else
		snprintf(buf, len, "%" PRIu64 "-%" PRIu64, r->med_lo, r->med_hi);
	return buf;
}

int il_format_parse(const char *s, enum il_format *out)
{
	if (!strcmp(s, "md") || !strcmp(s, "markdown"))
		*out = IL_FMT_MD;
	else if (!strcmp(s, "csv"))
		*out = IL_FMT_CSV;
	else if (!strcmp(s, "json"))
		*out = IL_FMT_JSON;
	else if (!strcmp(s, "html"))
		*out = IL_FMT_HTML;
	else
		return il_errorf(-EINVAL, "unknown format '%s' (use md, csv, json or html)", s);
	return 0;
}

static void grp_label(const struct row *r, char *buf, size_t len)
{
	if (r->grp >= 0)
		snprintf(buf, len, "%" PRId64, r->grp);
	else
		snprintf(buf, len, "-");
}

static void print_md(const struct rows *rows, FILE *out)
{
	char cpu[32], grp[32], metric[80], med[24], meds[48], sd[32];
	char p99[24], p999[24];
	double d;
	int i;

	fprintf(out, "| Machine | Benchmark | Config | Metric | CPU | Targets | Runs | Nr samples | Min | Max | Median | Avg | Stddev | p99 | p99.9 | Run medians |\n");
	fprintf(out, "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < rows->n; i++) {
		const struct row *r = &rows->v[i];

		il_cpu_label(r->cpu, r->cpu2, cpu, sizeof(cpu));
		grp_label(r, grp, sizeof(grp));
		snprintf(metric, sizeof(metric), "%s (%s)", r->metric, r->unit);
		if (!r->sum.count) {
			fprintf(out, "| %s | %s | %s | %s | %s | %s | %d | 0 | - | - | - | - | - | - | - | - |\n",
				r->host, r->bench, r->config, metric, cpu, grp, r->runs);
			continue;
		}
		if (row_stddev(r, &d))
			snprintf(sd, sizeof(sd), "%.2f", d);
		else
			snprintf(sd, sizeof(sd), "-");
		fprintf(out, "| %s | %s | %s | %s | %s | %s | %d | %" PRIu64 " | %" PRIu64 " | %" PRIu64
			" | %s | %.1f | %s | %s | %s | %s |\n",
			r->host, r->bench, r->config, metric, cpu, grp, r->runs,
			r->sum.count, r->sum.min, r->sum.max,
			pct_or_dash(r, 50, med, sizeof(med)), r->sum.mean, sd,
			pct_or_dash(r, 99, p99, sizeof(p99)),
			pct_or_dash(r, 99.9, p999, sizeof(p999)),
			run_medians(r, meds, sizeof(meds)));
	}
	if (rows->n)
		fprintf(out, "\nEach row pools the samples of its runs (Runs): Median, p99 and p99.9 are of the pooled samples, each the midpoint of its histogram bucket (within 0.05 %%) clamped to Min and Max, or, for one run whose every sample was stored raw, the exact order statistic; Run medians is the range of the runs' own medians, the spread between runs.  A tail percentile is \"-\" where fewer than 10 samples lie beyond it (p99 needs 1000 samples, p99.9 10000), Stddev where there is one sample.  Samples past the histogram's range (dropped for range: a cyclictest overflow) are ranked too, above every recorded value, so a percentile whose rank falls among them reads \">N\", N the histogram's largest value (Max can lie beyond: a cyclictest import keeps cyclictest's max).\n");
}

/*
 * The samples left out of the statistics above, by reason, for the rows
 * that have any: a figure with many overruns or lost races is one to
 * question before publishing it.
 */
static void print_drops_md(const struct rows *rows, FILE *out)
{
	char cpu[32], grp[32], why[160];
	int i, n = 0;

	for (i = 0; i < rows->n; i++) {
		const struct row *r = &rows->v[i];

		if (!r->sum.dropped)
			continue;
		if (!n++)
			fprintf(out, "\nDropped samples (not in the figures above; range: beyond the histogram, overrun: missed periods, race: the measured condition was lost, lost: event or record lost, slept: a target slept through the call):\n\n"
				"| Machine | Benchmark | Config | Metric | CPU | Targets | Dropped | By reason |\n"
				"|---|---|---|---|---|---:|---:|---|\n");
		il_cpu_label(r->cpu, r->cpu2, cpu, sizeof(cpu));
		grp_label(r, grp, sizeof(grp));
		fprintf(out, "| %s | %s | %s | %s | %s | %s | %" PRIu64 " | %s |\n",
			r->host, r->bench, r->config, r->metric, cpu, grp,
			r->sum.dropped, il_drop_text(&r->sum, why, sizeof(why)));
	}
}

/* The reasons as CSV fields: empty where not recorded. */
static void print_drops_csv(const struct il_summary *sum, FILE *out)
{
	int i;

	for (i = 0; i < IL_DROP_NREASONS; i++)
		if (sum->drop_split)
			fprintf(out, ",%" PRIu64, sum->drop[i]);
		else
			fputc(',', out);
}

/* ",V", or "," alone where the table shows "-". */
static void csv_u64(FILE *out, bool ok, uint64_t v)
{
	if (ok)
		fprintf(out, ",%" PRIu64, v);
	else
		fputc(',', out);
}

/* Percentile @p of @r as a CSV field. */
static void csv_pct(FILE *out, const struct row *r, double p)
{
	uint64_t v = 0;
	enum pct_kind k = row_pct_kind(r, p, &v);

	if (k == PCT_ABOVE)
		fprintf(out, ",>%" PRIu64, v);
	else
		csv_u64(out, k == PCT_VALUE, v);
}

static void print_csv(const struct rows *rows, FILE *out)
{
	double d;
	int i;

	fprintf(out, "machine,benchmark,params,metric,unit,cpu,cpu2,targets,runs,nr_samples,min,max,median,avg,stddev,p99,p99_9,dropped,early,dropped_range,dropped_overrun,dropped_race,dropped_lost,dropped_slept,run_median_min,run_median_max\n");
	for (i = 0; i < rows->n; i++) {
		const struct row *r = &rows->v[i];

		il_csv_field(out, r->host, IL_CSV_ALWAYS);
		fputc(',', out);
		il_csv_field(out, r->bench, IL_CSV_ALWAYS);
		fputc(',', out);
		il_csv_field(out, r->params, IL_CSV_ALWAYS);
		fprintf(out, ",%s,%s,%d,%d,%" PRId64 ",%d,%" PRIu64, r->metric,
			r->unit, r->cpu, r->cpu2, r->grp, r->runs, r->sum.count);
		if (r->sum.count) {
			fprintf(out, ",%" PRIu64 ",%" PRIu64, r->sum.min, r->sum.max);
			csv_pct(out, r, 50);
			fprintf(out, ",%.3f", r->sum.mean);
			if (row_stddev(r, &d))
				fprintf(out, ",%.3f", d);
			else
				fputc(',', out);
			csv_pct(out, r, 99);
			csv_pct(out, r, 99.9);
		} else {
			fprintf(out, ",,,,,,,");
		}
		fprintf(out, ",%" PRIu64 ",%" PRIu64, r->sum.dropped, r->sum.early);
		print_drops_csv(&r->sum, out);
		csv_u64(out, r->nmed > 0, r->med_lo);
		csv_u64(out, r->nmed > 0, r->med_hi);
		fputc('\n', out);
	}
}

/* {"range": n, ...}, or null where the reasons were not recorded. */
static json_t *drops_json(const struct il_summary *sum)
{
	json_t *o;
	int i;

	if (!sum->drop_split)
		return json_null();
	o = json_object();
	for (i = 0; i < IL_DROP_NREASONS; i++)
		json_object_set_new(o, il_drop_reason_name(i),
				    json_integer((json_int_t)sum->drop[i]));
	return o;
}

static json_t *rows_json(const struct rows *rows)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < rows->n; i++) {
		const struct row *r = &rows->v[i];
		json_t *o = json_pack("{s:s,s:s,s:o,s:s,s:s,s:i,s:i,s:I,s:i,s:I,s:I,s:I}",
				      "machine", r->host, "benchmark", r->bench,
				      "params", json_loads(r->params, 0, NULL) ?: json_null(),
				      "metric", r->metric, "unit", r->unit,
				      "cpu", r->cpu, "cpu2", r->cpu2,
				      "targets", (json_int_t)r->grp, "runs", r->runs,
				      "nr_samples", (json_int_t)r->sum.count,
				      "dropped", (json_int_t)r->sum.dropped,
				      "early", (json_int_t)r->sum.early);

		json_object_set_new(o, "dropped_by_reason", drops_json(&r->sum));
		if (r->sum.count) {
			double d;

			json_object_set_new(o, "min", json_integer((json_int_t)r->sum.min));
			json_object_set_new(o, "max", json_integer((json_int_t)r->sum.max));
			json_object_set_new(o, "median", json_pct(r, 50));
			json_object_set_new(o, "avg", json_real(r->sum.mean));
			json_object_set_new(o, "stddev", row_stddev(r, &d) ?
					    json_real(d) : json_null());
			json_object_set_new(o, "p99", json_pct(r, 99));
			json_object_set_new(o, "p99_9", json_pct(r, 99.9));
		}
		json_object_set_new(o, "run_medians", r->nmed ?
				    json_pack("{s:I,s:I}", "lo", (json_int_t)r->med_lo,
					      "hi", (json_int_t)r->med_hi) :
				    json_null());
		json_array_append_new(a, o);
	}
	return a;
}

/* The md tables and notes as HTML tables (html_page.h). */
static int print_html(const struct rows *rows, const struct report_notes *notes,
		      FILE *out)
{
	char *md = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&md, &len);
	int ret;

	if (!m)
		return il_errorf(-ENOMEM, "out of memory");
	print_md(rows, m);
	print_drops_md(rows, m);
	report_notes_md(notes, m);
	if (fclose(m)) {
		free(md);
		return il_errorf(-ENOMEM, "out of memory");
	}
	ret = il_html_md(out, "Results", md);
	free(md);
	return ret;
}

int il_report(struct il_store *s, const struct il_report_opts *o, FILE *out)
{
	static const char sql_fmt[] =
		"SELECT " IL_MACHINE_LABEL_SQL("hostname", "machine_uuid") ", bench, params, metric, unit, cpu, cpu2, grp, "
		"count, min, max, mean, stddev, dropped, early, hist, run_uuid, %s, "
		"p50, p99, p999, EXISTS (SELECT 1 FROM raw_samples x "
		"WHERE x.summary_id = v_report_hist.summary_id AND x.count = v_report_hist.count) "
		"FROM v_report_hist WHERE status = 'ok' "
		"AND (?1 IS NULL OR run_uuid = ?1) AND (?2 IS NULL OR bench = ?2) "
		"ORDER BY hostname, machine_uuid, bench, params, metric, unit, grp, cpu, cpu2";
	sqlite3 *db = il_store_db(s);
	struct report_notes notes = { 0 };
	json_t *doc;
	struct rows rows = { 0 };
	sqlite3_stmt *st;
	char cols[IL_DROP_COLS_LEN], *sql;
	uint64_t nread = 0;
	int rc, ret = 0;

	if (asprintf(&sql, sql_fmt, il_drop_cols(s, "v_report_hist.", cols, sizeof(cols))) < 0)
		return il_errorf(-ENOMEM, "out of memory");
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return il_errorf(-EIO, "report query failed: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, o->run_uuid, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, o->bench, -1, SQLITE_STATIC);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		ret = report_rows_add(s, &rows, st);
		il_progress_count(++nread, "rows read");
	}
	sqlite3_finalize(st);
	if (!ret)
		ret = report_notes_read(db, o, &notes);
	if (ret)
		goto out;
	report_rows_configs(&rows);
	switch (o->format) {
	case IL_FMT_MD:
		print_md(&rows, out);
		print_drops_md(&rows, out);
		report_notes_md(&notes, out);
		break;
	case IL_FMT_HTML:
		/* The Markdown is the one source of the page's tables too. */
		ret = print_html(&rows, &notes, out);
		break;
	case IL_FMT_CSV:
		print_csv(&rows, out);
		break;
	case IL_FMT_JSON:
		doc = json_pack("{s:s,s:s,s:o,s:O,s:O,s:O,s:O}", "tool",
				"idlelab", "version", IL_VERSION,
				"rows", rows_json(&rows),
				"not_measured", notes.runs,
				"counters_not_counted", notes.counters,
				"flagged", notes.flagged,
				"under_hypervisor", notes.hypervisor);
		json_dumpf(doc, out, JSON_INDENT(2));
		fputc('\n', out);
		json_decref(doc);
		break;
	}
out:
	report_notes_free(&notes);
	report_rows_free(&rows);
	return ret;
}
