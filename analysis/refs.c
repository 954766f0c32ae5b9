// SPDX-License-Identifier: GPL-2.0-only
/*
 * refs.c - the published figures of reference machines that are not a
 * full table (run attributes "published:NAME", see harness/import.c): one
 * row per figure, with its machine, source and benchmark, so a measured
 * result can be read beside the claim it reproduces.  The figures stay
 * text ("65-69 us"): they are quoted, not parsed into numbers the posts
 * did not give.
 */
#include "analysis.h"
#include "err.h"
#include "machine_label.h"
#include "store.h"
#include "store_sqlite.h"

#include <sqlite3.h>
#include <string.h>

int il_report_refs(struct il_store *s, const struct il_analysis_opts *o,
		   struct il_table **out)
{
	static const char sql[] =
		"SELECT " IL_MACHINE_LABEL_M ", coalesce(m.source, ''), r.bench, r.params,"
		" substr(a.key, 11), a.value FROM run_attrs a"
		" JOIN runs r ON r.uuid = a.run_uuid JOIN machines m ON m.uuid = r.machine_uuid"
		" WHERE m.is_reference = 1 AND a.key LIKE 'published:%'"
		" AND (?1 IS NULL OR r.bench = ?1)"
		" ORDER BY m.source, r.uuid, a.rowid";
	static const char *const cols[] = { "Machine", "Source", "Benchmark",
		"Params", "Figure", "Published value" };
	sqlite3 *db = il_store_db(s);
	struct il_table *t;
	sqlite3_stmt *st;
	int rc, ret = 0, i;

	*out = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return il_errorf(-EIO, "report query failed: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, o->bench, -1, SQLITE_STATIC);
	t = il_table_new("Published figures (reference machines)", 6, cols);
	if (!t) {
		sqlite3_finalize(st);
		return il_errorf(-ENOMEM, "out of memory");
	}
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *cells[6];

		for (i = 0; i < 6; i++)
			cells[i] = (const char *)sqlite3_column_text(st, i);
		ret = il_table_add(t, cells);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = il_errorf(-EIO, "report query failed: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (!ret)
		ret = il_table_note(t, "Quoted from the posts named in Source (loaded by idlelab import reference); not measured by idlelab.");
	if (ret)
		il_table_free(t);
	else
		*out = t;
	return ret;
}
