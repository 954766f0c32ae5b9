// SPDX-License-Identifier: GPL-2.0-only
/*
 * publish_select.c - which runs an `idlelab publish` bundle holds: the
 * report's own selection (--bench, --run and a --compare-style filter,
 * filter.c), evaluated on the working copy before anything is redacted,
 * so a filter names hosts and fingerprint fields as the user knows them.
 */
#include "analysis.h"
#include "err.h"
#include "filter.h"
#include "publish_bundle.h"
#include "store.h"
#include "store_sqlite.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int il_publish_select(struct il_store *work, const char *bench,
		      const char *run, const struct il_filter *where)
{
	sqlite3 *db = il_store_db(work);
	char cond[4096], *sql;
	sqlite3_stmt *st;
	int ret, idx, n = -1;

	ret = il_filter_sql(where, cond, sizeof(cond));
	if (ret)
		return ret;
	/* Parameters: 1 and 2 the bench, then the filter's (as many as
	 * il_filter_bind() binds), then two for the run.  The summaries
	 * join lets a metric= term select the runs that hold
	 * that metric; DISTINCT takes each run once. */
	if (asprintf(&sql, "INSERT INTO temp.il_publish_runs SELECT DISTINCT r.uuid"
		     " FROM runs r JOIN machines m ON m.uuid = r.machine_uuid"
		     " LEFT JOIN summaries s ON s.run_uuid = r.uuid"
		     " WHERE (?1 IS NULL OR r.bench = ?2)%s"
		     " AND (? IS NULL OR r.uuid = ?)", cond) < 0)
		return il_errorf(-ENOMEM, "out of memory");
	if (sqlite3_exec(db, "CREATE TEMP TABLE IF NOT EXISTS il_publish_runs"
			 " (uuid TEXT PRIMARY KEY)", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		free(sql);
		return il_errorf(-EIO, "selecting the runs: %s", sqlite3_errmsg(db));
	}
	free(sql);
	sqlite3_bind_text(st, 1, bench, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, bench, -1, SQLITE_STATIC);
	idx = il_filter_bind(where, st, 3);
	sqlite3_bind_text(st, idx, run, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, idx + 1, run, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		n = sqlite3_changes(db);
	sqlite3_finalize(st);
	if (n < 0)
		return il_errorf(-EIO, "selecting the runs: %s", sqlite3_errmsg(db));
	return n;
}
