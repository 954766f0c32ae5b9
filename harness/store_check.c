// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_check.c - `idlelab db check` (il_store_check()): SQLite's own
 * integrity and foreign-key checks, the schema version, and what SQLite
 * cannot know: every summary has a histogram that decodes and agrees with
 * it, and every raw BLOB has the size and count its summary says.
 */
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

static void check_integrity(struct il_store *s, struct findings *fd)
{
	sqlite3_stmt *st;
	const char *t;
	int rc;

	rc = sqlite3_prepare_v2(s->db, "PRAGMA integrity_check", -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		t = (const char *)sqlite3_column_text(st, 0);
		if (t && strcmp(t, "ok"))
			finding(fd, "integrity: %s", t);
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE)
		finding(fd, "integrity: check failed: %s", sqlite3_errmsg(s->db));
	sqlite3_finalize(st);

	rc = sqlite3_prepare_v2(s->db, "PRAGMA foreign_key_check", -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		finding(fd, "foreign key: %s row %" PRId64 " refers to a missing %s row",
			sqlite3_column_text(st, 0), (int64_t)sqlite3_column_int64(st, 1),
			sqlite3_column_text(st, 2));
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE)
		finding(fd, "foreign keys: check failed: %s", sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
}

/* "run UUID metric cpu 3->5 grp 4", naming a summary in a finding. */
static void series_label(sqlite3_stmt *st, int col, char *buf, size_t len)
{
	int cpu2 = sqlite3_column_int(st, col + 3);
	int64_t grp = sqlite3_column_int64(st, col + 4);
	size_t n;

	n = (size_t)snprintf(buf, len, "run %s %s cpu %d",
			     sqlite3_column_text(st, col),
			     sqlite3_column_text(st, col + 1),
			     sqlite3_column_int(st, col + 2));
	if (cpu2 >= 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, "->%d", cpu2);
	if (grp >= 0 && n < len)
		snprintf(buf + n, len - n, " grp %" PRId64, grp);
}

static void check_histograms(struct il_store *s, struct findings *fd)
{
	static const char sql[] =
		"SELECT s.run_uuid, s.metric, s.cpu, s.cpu2, s.grp, s.count,"
		" s.min, s.max, h.summary_id IS NOT NULL, h.layout, h.blob"
		" FROM summaries s LEFT JOIN histograms h ON h.summary_id = s.id"
		" ORDER BY s.id";
	struct il_hist *h;
	sqlite3_stmt *st;
	char label[256];
	uint64_t count;
	int rc;

	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		series_label(st, 0, label, sizeof(label));
		count = (uint64_t)sqlite3_column_int64(st, 5);
		if (!sqlite3_column_int(st, 8)) {
			finding(fd, "%s: summary has no histogram", label);
			continue;
		}
		if (sqlite3_column_int64(st, 9) != IL_HIST_LAYOUT)
			finding(fd, "%s: histogram layout %" PRId64 ", expected %d",
				label, (int64_t)sqlite3_column_int64(st, 9),
				IL_HIST_LAYOUT);
		h = NULL;
		if (il_hist_decode(sqlite3_column_blob(st, 10),
				   (size_t)sqlite3_column_bytes(st, 10), &h)) {
			finding(fd, "%s: histogram does not decode: %s", label,
				il_errmsg());
			continue;
		}
		if (il_hist_count(h) != count) {
			finding(fd, "%s: histogram holds %" PRIu64 " samples, summary says %" PRIu64,
				label, il_hist_count(h), count);
		} else if (count) {
			/* The exact extremes lie in the histogram's end buckets. */
			uint64_t min = (uint64_t)sqlite3_column_int64(st, 6);
			uint64_t max = (uint64_t)sqlite3_column_int64(st, 7);

			if (min < il_hist_min(h) || max > il_hist_max(h) ||
			    min > max)
				finding(fd, "%s: min %" PRIu64 " / max %" PRIu64 " outside the histogram's range %" PRIu64 "..%" PRIu64,
					label, min, max, il_hist_min(h),
					il_hist_max(h));
		}
		il_hist_free(h);
	}
	if (rc != SQLITE_DONE)
		finding(fd, "histograms: check failed: %s", sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
}

static void check_raw(struct il_store *s, struct findings *fd)
{
	static const char sql[] =
		"SELECT s.run_uuid, s.metric, s.cpu, s.cpu2, s.grp, s.count,"
		" s.dropped_raw, r.layout, r.count, length(r.blob)"
		" FROM raw_samples r JOIN summaries s ON s.id = r.summary_id"
		" ORDER BY s.id";
	int64_t count, dropped, layout, n, bytes;
	sqlite3_stmt *st;
	char label[256];
	int rc;

	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		series_label(st, 0, label, sizeof(label));
		count = sqlite3_column_int64(st, 5);
		dropped = sqlite3_column_int64(st, 6);
		layout = sqlite3_column_int64(st, 7);
		n = sqlite3_column_int64(st, 8);
		bytes = sqlite3_column_int64(st, 9);
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
	if (rc != SQLITE_DONE)
		finding(fd, "raw samples: check failed: %s", sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
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
	check_integrity(s, &fd);
	check_histograms(s, &fd);
	check_raw(s, &fd);
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
