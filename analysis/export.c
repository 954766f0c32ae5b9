// SPDX-License-Identifier: GPL-2.0-only
/*
 * export.c - `idlelab export`: the dataset's runs, summaries or histogram
 * buckets as csv or json, for tools that do not read SQLite.  Rows are
 * streamed (json: one array, one object per line), so exporting a large
 * dataset needs no more memory than one row.  Buckets are the histogram's
 * non-empty buckets, each with the lowest and highest value it stands for
 * (il_hist_foreach()), so a consumer can rebuild the distribution.
 * Summaries and buckets leave a damaged run out (il_store_run_damaged()),
 * as the reports do; runs and causes list it.
 */
#include "analysis.h"
#include "csv.h"
#include "drops.h"
#include "err.h"
#include "stats.h"
#include "store.h"
#include "store_sqlite.h"

#include <inttypes.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static const char runs_sql[] =
	"SELECT r.uuid AS run_uuid, r.machine_uuid, m.hostname, m.is_reference,"
	" m.source, r.bench, r.params, r.placement, r.campaign, r.plan_index,"
	" r.status, r.status_reason, r.start_ns, r.end_ns, r.tool_version,"
	" r.git_rev, r.tsc_khz FROM runs r JOIN machines m ON m.uuid = r.machine_uuid"
	" ORDER BY r.start_ns, r.uuid";
/* printf format: %s is the drop reasons (drops.h). */
static const char sums_sql[] =
	"SELECT s.run_uuid, m.hostname, r.bench, s.metric, s.unit, s.cpu, s.cpu2,"
	" s.grp, s.count, s.min, s.max, s.mean, s.stddev, s.p50, s.p90, s.p99,"
	" s.p999, s.p9999, s.dropped, s.early, %s FROM summaries s"
	" JOIN runs r ON r.uuid = s.run_uuid JOIN machines m ON m.uuid = r.machine_uuid"
	" ORDER BY r.start_ns, s.run_uuid, s.id";
static const char hist_sql[] =
	"SELECT s.run_uuid, s.metric, s.unit, s.cpu, s.cpu2, s.grp, h.blob"
	" FROM summaries s JOIN histograms h ON h.summary_id = s.id"
	" JOIN runs r ON r.uuid = s.run_uuid ORDER BY r.start_ns, s.run_uuid, s.id";

/* --causes runs: one row per cause of each attributed sample (a sample
 * no event explains has one row with no kind), schemas/005_causes.sql. */
static const char causes_sql[] =
	"SELECT s.run_uuid, r.bench, s.metric, s.cpu, s.sample, s.t_ns,"
	" s.value_ns, s.idle_state, s.unexplained_ns, c.kind, c.name, c.dur_ns,"
	" c.events, c.share FROM cause_samples s JOIN runs r ON r.uuid = s.run_uuid"
	" LEFT JOIN causes c ON c.run_uuid = s.run_uuid AND c.metric = s.metric"
	" AND c.cpu = s.cpu AND c.sample = s.sample"
	" ORDER BY r.start_ns, s.run_uuid, s.cpu, s.t_ns, c.dur_ns DESC";

struct out {
	enum il_format f;
	FILE *fp;
	long n;
};

static void emit(struct out *o, json_t *row, const char *const *cols, int ncols)
{
	int i;

	if (o->f == IL_FMT_JSON) {
		char *s = json_dumps(row, JSON_COMPACT | JSON_PRESERVE_ORDER);

		fprintf(o->fp, "%s%s", o->n ? ",\n" : "[\n", s ? s : "null");
		free(s);
	} else {
		if (!o->n) {
			for (i = 0; i < ncols; i++)
				fprintf(o->fp, "%s%s", i ? "," : "", cols[i]);
			fputc('\n', o->fp);
		}
		for (i = 0; i < ncols; i++) {
			json_t *v = json_object_get(row, cols[i]);

			if (i)
				fputc(',', o->fp);
			if (json_is_string(v))
				il_csv_field(o->fp, json_string_value(v), IL_CSV_AS_NEEDED);
			else if (json_is_integer(v))
				fprintf(o->fp, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
			else if (json_is_real(v))
				fprintf(o->fp, "%.17g", json_real_value(v));
		}
		fputc('\n', o->fp);
	}
	o->n++;
}

static json_t *col_json(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(st, i));
	case SQLITE_FLOAT:
		return json_real(sqlite3_column_double(st, i));
	case SQLITE_TEXT:
		return json_string((const char *)sqlite3_column_text(st, i));
	default:
		return json_null();
	}
}

/*
 * The result's column names, copied: SQLite's own are valid only until
 * the statement is finalized or re-prepared (which a step may do), and an
 * empty export prints them after the finalize (issue 20).
 */
#define MAX_COLS 32

struct names {
	char *v[MAX_COLS];
	int n;
};

static void names_free(struct names *nm)
{
	while (nm->n > 0)
		free(nm->v[--nm->n]);
}

static int names_copy(sqlite3_stmt *st, int ncols, struct names *nm)
{
	if (ncols > MAX_COLS)
		return il_errorf(-EINVAL, "export query has %d columns, at most %d",
				 ncols, MAX_COLS);
	for (nm->n = 0; nm->n < ncols; nm->n++) {
		nm->v[nm->n] = strdup(sqlite3_column_name(st, nm->n));
		if (!nm->v[nm->n]) {
			names_free(nm);
			return il_errorf(-ENOMEM, "out of memory");
		}
	}
	return 0;
}

struct bucket_ctx {
	struct out *o;
	json_t *base;
};

static int bucket(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
{
	static const char *const cols[] = { "run_uuid", "metric", "unit", "cpu",
		"cpu2", "grp", "lo", "hi", "count" };
	struct bucket_ctx *c = arg;
	json_t *row = json_deep_copy(c->base);

	json_object_set_new(row, "lo", json_integer((json_int_t)lo));
	json_object_set_new(row, "hi", json_integer((json_int_t)hi));
	json_object_set_new(row, "count", json_integer((json_int_t)count));
	emit(c->o, row, cols, 9);
	json_decref(row);
	return 0;
}

int il_export(struct il_store *s, const char *what, enum il_format f, FILE *fp)
{
	sqlite3 *db = il_store_db(s);
	struct out o = { .f = f, .fp = fp };
	struct names cols = { .n = 0 };
	char dcols[IL_DROP_COLS_LEN], *sums = NULL;
	int buckets = 0, figures = 1, i, rc, ret;
	const char *sql;
	sqlite3_stmt *st;

	if (f != IL_FMT_CSV && f != IL_FMT_JSON)
		return il_errorf(-EINVAL, "export writes csv or json");
	if (!strcmp(what, "runs")) {
		sql = runs_sql;
		figures = 0;
	} else if (!strcmp(what, "summaries")) {
		if (asprintf(&sums, sums_sql,
			     il_drop_cols(s, "s.", dcols, sizeof(dcols))) < 0)
			return il_errorf(-ENOMEM, "out of memory");
		sql = sums;
	} else if (!strcmp(what, "causes")) {
		sql = causes_sql;
		figures = 0;
	} else if (!strcmp(what, "buckets")) {
		sql = hist_sql;
		buckets = 1;
	} else {
		return il_errorf(-EINVAL, "unknown --what '%s' (use runs, summaries, buckets or causes)", what);
	}
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	free(sums);
	if (rc != SQLITE_OK)
		return il_errorf(-EIO, "export query failed: %s", sqlite3_errmsg(db));
	ret = names_copy(st, sqlite3_column_count(st) - buckets, &cols);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *row;

		/* A damaged run's figures are left out (store_damaged.c). */
		if (figures) {
			ret = il_store_run_damaged(s, (const char *)sqlite3_column_text(st, 0));
			if (ret) {
				ret = ret < 0 ? ret : 0;
				continue;
			}
		}
		row = json_object();

		for (i = 0; i < cols.n; i++)
			json_object_set_new(row, cols.v[i], col_json(st, i));
		if (buckets) {
			struct bucket_ctx c = { &o, row };
			struct il_hist *h;

			ret = il_hist_decode(sqlite3_column_blob(st, 6),
					     (size_t)sqlite3_column_bytes(st, 6), &h);
			if (!ret) {
				il_hist_foreach(h, bucket, &c);
				il_hist_free(h);
			}
		} else {
			emit(&o, row, (const char *const *)cols.v, cols.n);
		}
		json_decref(row);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = il_errorf(-EIO, "export query failed: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (f == IL_FMT_JSON)
		fputs(o.n ? "\n]\n" : "[]\n", fp);
	else if (!o.n) {
		/* An empty export still names its columns. */
		if (buckets)
			fputs("run_uuid,metric,unit,cpu,cpu2,grp,lo,hi,count\n", fp);
		else
			for (i = 0; i < cols.n; i++)
				fprintf(fp, "%s%s", cols.v[i], i == cols.n - 1 ? "\n" : ",");
	}
	names_free(&cols);
	return ret;
}
