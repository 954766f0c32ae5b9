// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_campaign.c - the dataset queries a campaign needs (campaign.h):
 * what it has already run, forgetting an entry to run it again, and the
 * duration history behind the ETA.
 *
 * They sit beside store.c, not in it, and use only il_store_db()
 * (store_sqlite.h) and the runs table of schemas/001_init.sql, so the
 * store keeps one owner.
 * Forgetting deletes the rows below the run explicitly rather than
 * relying on ON DELETE CASCADE, which only acts when the connection has
 * foreign_keys enabled; both ways it is one transaction, so a kill -9 in
 * the middle leaves the run either whole or gone.
 */
#include "campaign.h"
#include "err.h"
#include "store.h"
#include "store_sqlite.h"

#include <sqlite3.h>
#include <string.h>

static int db_error(sqlite3 *db, const char *what)
{
	return il_errorf(-EIO, "%s: %s", what, sqlite3_errmsg(db));
}

int il_store_campaign_runs(struct il_store *s, const char *campaign,
			   const char *machine, il_campaign_run_cb cb, void *arg)
{
	sqlite3 *db = il_store_db(s);
	sqlite3_stmt *st;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(db,
		"SELECT plan_index, param_hash, status, end_ns - start_ns"
		" FROM runs WHERE campaign = ?1 AND plan_index IS NOT NULL"
		" AND (?2 IS NULL OR machine_uuid = ?2)"
		" ORDER BY plan_index", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_error(db, "reading the campaign's runs");
	sqlite3_bind_text(st, 1, campaign, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, machine, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *h = (const char *)sqlite3_column_text(st, 1);
		const char *status = (const char *)sqlite3_column_text(st, 2);

		ret = cb(sqlite3_column_int64(st, 0), h ? h : "",
			 status ? status : "", (uint64_t)sqlite3_column_int64(st, 3),
			 arg);
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = db_error(db, "reading the campaign's runs");
	sqlite3_finalize(st);
	return ret;
}

int il_store_campaign_forget(struct il_store *s, const char *campaign,
			     const char *machine, int64_t plan_index,
			     const char *param_hash)
{
	static const char *const sql[] = {
		"DELETE FROM histograms WHERE summary_id IN (SELECT id FROM summaries WHERE run_uuid IN (SELECT uuid FROM doomed))",
		"DELETE FROM raw_samples WHERE summary_id IN (SELECT id FROM summaries WHERE run_uuid IN (SELECT uuid FROM doomed))",
		"DELETE FROM summaries WHERE run_uuid IN (SELECT uuid FROM doomed)",
		"DELETE FROM counters WHERE run_uuid IN (SELECT uuid FROM doomed)",
		"DELETE FROM run_env WHERE run_uuid IN (SELECT uuid FROM doomed)",
		"DELETE FROM run_attrs WHERE run_uuid IN (SELECT uuid FROM doomed)",
		"DELETE FROM runs WHERE uuid IN (SELECT uuid FROM doomed)",
	};
	sqlite3 *db = il_store_db(s);
	sqlite3_stmt *st = NULL;
	int rc, ret = 0, n = 0;
	size_t i;

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_error(db, "forgetting a run");
	rc = sqlite3_exec(db, "CREATE TEMP TABLE IF NOT EXISTS doomed (uuid TEXT);"
			  "DELETE FROM temp.doomed;", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db,
			"INSERT INTO temp.doomed SELECT uuid FROM runs"
			" WHERE campaign = ?1 AND plan_index = ?2 AND param_hash = ?3"
			" AND (?4 IS NULL OR machine_uuid = ?4)",
			-1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, campaign, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, plan_index);
		sqlite3_bind_text(st, 3, param_hash, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, machine, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		n = sqlite3_changes(db);
		sqlite3_finalize(st);
	}
	for (i = 0; rc == SQLITE_OK && i < sizeof(sql) / sizeof(sql[0]); i++)
		rc = sqlite3_exec(db, sql[i], NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "DELETE FROM temp.doomed; COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		ret = db_error(db, "forgetting a run");
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return ret;
	}
	return n;
}

int il_store_mean_duration(struct il_store *s, const char *bench,
			   const char *param_hash, uint64_t *ns)
{
	sqlite3 *db = il_store_db(s);
	sqlite3_stmt *st;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(db,
		"SELECT avg(end_ns - start_ns), count(*) FROM runs"
		" WHERE bench = ?1 AND param_hash = ?2 AND status = 'ok'",
		-1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_error(db, "reading run durations");
	sqlite3_bind_text(st, 1, bench, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, param_hash, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int64(st, 1) > 0) {
		*ns = (uint64_t)sqlite3_column_double(st, 0);
		ret = 1;
	} else if (rc != SQLITE_ROW) {
		ret = db_error(db, "reading run durations");
	}
	sqlite3_finalize(st);
	return ret;
}
