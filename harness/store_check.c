// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_check.c - `idlelab db check` (il_store_check()): SQLite's own
 * integrity and foreign-key checks, the schema version, and what SQLite
 * cannot know: every summary has a histogram that decodes and agrees with
 * it, and every raw BLOB has the size and count its summary says.
 */
#include "store_causes.h"
#include "store.h"
#include "err.h"
#include "store_internal.h"
#include "stats.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A badly damaged file should give a readable report, not a million lines. */
#define MAX_FINDINGS		100

/* The findings of il_store_check(), capped, one a line. */
struct findings {
	FILE *f;
	int n;
};

static void __attribute__((format(printf, 2, 3)))
finding(struct findings *fd, const char *fmt, ...)
{
	va_list ap;

	if (fd->n++ >= MAX_FINDINGS)
		return;
	va_start(ap, fmt);
	vfprintf(fd->f, fmt, ap);
	va_end(ap);
	fputc('\n', fd->f);
}

static void check_version(struct il_store *s, struct findings *fd)
{
	int latest = il_store_latest_version();
	int64_t app, ver;

	if (store_query_i64(s->db, "PRAGMA application_id", &app) != SQLITE_OK ||
	    store_query_i64(s->db, "PRAGMA user_version", &ver) != SQLITE_OK) {
		finding(fd, "cannot read the schema version: %s",
			sqlite3_errmsg(s->db));
		return;
	}
	if (app != IL_APPLICATION_ID)
		finding(fd, "application_id 0x%08" PRIx64 " is not idlelab's (0x%08x)",
			(uint64_t)app, IL_APPLICATION_ID);
	if (ver < latest)
		finding(fd, "schema version %" PRId64 " is older than this idlelab (%d): run idlelab db migrate",
			ver, latest);
	else if (ver > latest)
		finding(fd, "schema version %" PRId64 " is newer than this idlelab (%d)",
			ver, latest);
}

/* A check's work on one row of its query; findings go to @fd. */
typedef void (*check_row_fn)(sqlite3_stmt *st, struct findings *fd);

/*
 * The frame of every check below: run @sql, hand each row to @row, and
 * report a query that fails as "@what: check failed".
 */
static void check_rows(struct il_store *s, struct findings *fd,
		       const char *sql, const char *what, check_row_fn row)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		row(st, fd);
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE)
		finding(fd, "%s: check failed: %s", what, sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
}

static void integrity_row(sqlite3_stmt *st, struct findings *fd)
{
	const char *t = (const char *)sqlite3_column_text(st, 0);

	if (t && strcmp(t, "ok"))
		finding(fd, "integrity: %s", t);
}

static void foreign_key_row(sqlite3_stmt *st, struct findings *fd)
{
	finding(fd, "foreign key: %s row %" PRId64 " refers to a missing %s row",
		sqlite3_column_text(st, 0), (int64_t)sqlite3_column_int64(st, 1),
		sqlite3_column_text(st, 2));
}

/* "run UUID metric cpu 3->5 grp 4", naming a summary in a finding. */
static void series_label(sqlite3_stmt *st, int col, char *buf, size_t len)
{
	char rest[200];

	store_series_label(st, col, rest, sizeof(rest));
	snprintf(buf, len, "run %s %s", sqlite3_column_text(st, col), rest);
}

/* A histogram finding, with the summary it is about. */
struct hist_ctx {
	struct findings *fd;
	const char *label;
};

static void hist_finding(void *ctx, const char *msg)
{
	struct hist_ctx *h = ctx;

	finding(h->fd, "%s: %s", h->label, msg);
}

/* The checks themselves are store_hist_check(), which reports share. */
static void histogram_row(sqlite3_stmt *st, struct findings *fd)
{
	char label[256];
	struct hist_ctx h = { fd, label };

	series_label(st, 0, label, sizeof(label));
	store_hist_check(st, 5, hist_finding, &h);
}

static const char raw_sql[] =
	"SELECT " SERIES_COLS ", s.count, s.dropped_raw,"
	" r.layout, r.count, length(r.blob)"
	" FROM raw_samples r JOIN summaries s ON s.id = r.summary_id"
	" ORDER BY s.id";

static void raw_row(sqlite3_stmt *st, struct findings *fd)
{
	int64_t count = sqlite3_column_int64(st, 5);
	int64_t dropped = sqlite3_column_int64(st, 6);
	int64_t layout = sqlite3_column_int64(st, 7);
	int64_t n = sqlite3_column_int64(st, 8);
	int64_t bytes = sqlite3_column_int64(st, 9);
	char label[256];

	series_label(st, 0, label, sizeof(label));
	if (layout != IL_RAW_VALUES && layout != IL_RAW_TIMED)
		finding(fd, "%s: raw layout %" PRId64 " unknown", label,
			layout);
	else if (bytes != n * 8 * layout)
		finding(fd, "%s: raw BLOB of %" PRId64 " bytes for %" PRId64 " samples",
			label, bytes, n);
	if (n + dropped != count)
		finding(fd, "%s: %" PRId64 " raw + %" PRId64 " dropped samples, summary says %" PRId64,
			label, n, dropped, count);
}

static void causes_finding(void *ctx, const char *msg)
{
	finding(ctx, "%s", msg);
}

/*
 * The drop reasons (schema 4, slept from 7) add up to the total.  The
 * table's CHECK says so too, but a file written with
 * ignore_check_constraints, or mended by hand, is what a check is for.
 * NULL reasons are a row stored before schema 4, which knew only the
 * total: not a finding.  Check opens a file read-only and unmigrated, so
 * a file of schema 4 to 6 has no dropped_slept: drops_sql_v4 is that.
 */
static const char drops_sql[] =
	"SELECT " SERIES_COLS ", s.dropped, s.dropped_range, s.dropped_overrun,"
	" s.dropped_race, s.dropped_lost, s.dropped_slept FROM summaries s"
	" WHERE coalesce(s.dropped_range, s.dropped_overrun, s.dropped_race,"
	"  s.dropped_lost, s.dropped_slept) IS NOT NULL AND (s.dropped_range IS NULL"
	"  OR s.dropped_overrun IS NULL OR s.dropped_race IS NULL"
	"  OR s.dropped_lost IS NULL OR s.dropped_slept IS NULL"
	"  OR s.dropped <> s.dropped_range + s.dropped_overrun + s.dropped_race"
	"  + s.dropped_lost + s.dropped_slept)"
	" ORDER BY s.id";
static const char drops_sql_v4[] =
	"SELECT " SERIES_COLS ", s.dropped, s.dropped_range, s.dropped_overrun,"
	" s.dropped_race, s.dropped_lost, 0 FROM summaries s"
	" WHERE coalesce(s.dropped_range, s.dropped_overrun, s.dropped_race,"
	"  s.dropped_lost) IS NOT NULL AND (s.dropped_range IS NULL"
	"  OR s.dropped_overrun IS NULL OR s.dropped_race IS NULL"
	"  OR s.dropped_lost IS NULL OR s.dropped <> s.dropped_range"
	"  + s.dropped_overrun + s.dropped_race + s.dropped_lost)"
	" ORDER BY s.id";

static void drops_row(sqlite3_stmt *st, struct findings *fd)
{
	char label[256];

	series_label(st, 0, label, sizeof(label));
	finding(fd, "%s: dropped %" PRId64 ", but by reason range %s, overrun %s, race %s, lost %s, slept %s",
		label, (int64_t)sqlite3_column_int64(st, 5),
		sqlite3_column_text(st, 6) ?: (const unsigned char *)"NULL",
		sqlite3_column_text(st, 7) ?: (const unsigned char *)"NULL",
		sqlite3_column_text(st, 8) ?: (const unsigned char *)"NULL",
		sqlite3_column_text(st, 9) ?: (const unsigned char *)"NULL",
		sqlite3_column_text(st, 10) ?: (const unsigned char *)"NULL");
}

int il_store_check(struct il_store *s, char **report)
{
	struct findings fd = { 0 };
	char *buf = NULL;
	size_t len = 0;

	if (report)
		*report = NULL;
	fd.f = open_memstream(&buf, &len);
	if (!fd.f)
		return il_errorf(-ENOMEM, "out of memory");
	check_version(s, &fd);
	check_rows(s, &fd, "PRAGMA integrity_check", "integrity",
		   integrity_row);
	check_rows(s, &fd, "PRAGMA foreign_key_check", "foreign keys",
		   foreign_key_row);
	check_rows(s, &fd, STORE_HIST_SELECT " ORDER BY s.id", "histograms",
		   histogram_row);
	check_rows(s, &fd, raw_sql, "raw samples", raw_row);
	if (il_store_causes_check(s->db, causes_finding, &fd) < 0)
		finding(&fd, "causes: %s", il_errmsg());
	if (il_store_schema_version(s) >= 4)
		check_rows(s, &fd, il_store_schema_version(s) >= 7 ? drops_sql :
			   drops_sql_v4, "drop reasons", drops_row);
	if (fd.n > MAX_FINDINGS)
		fprintf(fd.f, "... and %d more findings\n", fd.n - MAX_FINDINGS);
	if (!fd.n)
		fputs("ok\n", fd.f);
	if (fclose(fd.f)) {
		free(buf);
		return il_errorf(-ENOMEM, "out of memory");
	}
	if (report)
		*report = buf;
	else
		free(buf);
	if (fd.n)
		return il_errorf(-EIO, "%s: %d finding%s", s->path, fd.n,
				 fd.n == 1 ? "" : "s");
	return 0;
}
