// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_causes_merge.c - the causes tables (schemas/005_causes.sql) in
 * `idlelab merge` and `idlelab db check` (store_causes.h).
 *
 * merge copies the rows of exactly the runs it copies (temp.il_new_runs),
 * so merging twice adds nothing, as for every other table.  check adds
 * what foreign keys cannot say: a cause whose sample is missing, a share
 * outside [0, 1], a cause or an unexplained part longer than its sample,
 * a lost-event count below zero.
 */
#include "err.h"
#include "store_causes.h"

#include <sqlite3.h>
#include <stdio.h>

static const char merge_sql[] =
	"INSERT INTO main.trace_captures SELECT * FROM il_src.trace_captures"
	"  WHERE run_uuid IN (SELECT uuid FROM temp.il_new_runs);"
	"INSERT INTO main.trace_cpus SELECT * FROM il_src.trace_cpus"
	"  WHERE run_uuid IN (SELECT uuid FROM temp.il_new_runs);"
	"INSERT INTO main.cause_samples SELECT * FROM il_src.cause_samples"
	"  WHERE run_uuid IN (SELECT uuid FROM temp.il_new_runs);"
	"INSERT INTO main.causes SELECT * FROM il_src.causes"
	"  WHERE run_uuid IN (SELECT uuid FROM temp.il_new_runs);"
	"INSERT INTO main.cause_totals SELECT * FROM il_src.cause_totals"
	"  WHERE run_uuid IN (SELECT uuid FROM temp.il_new_runs);"
	"INSERT INTO main.cause_states SELECT * FROM il_src.cause_states"
	"  WHERE run_uuid IN (SELECT uuid FROM temp.il_new_runs);";

/* Whether schema @which ("main", "il_src") has the causes tables. */
static int have_tables(sqlite3 *db, const char *which)
{
	char sql[128];
	sqlite3_stmt *st;
	int have = 0;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s.sqlite_master"
		 " WHERE type = 'table' AND name = 'cause_states'", which);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		have = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return have;
}

int il_store_causes_merge(void *dbp, const char *in_path)
{
	sqlite3 *db = dbp;
	char *msg = NULL;

	if (!have_tables(db, "il_src"))
		return 0;	/* schema < 5: no run of it asked for causes */
	if (sqlite3_exec(db, merge_sql, NULL, NULL, &msg) != SQLITE_OK) {
		int ret = il_errorf(-EIO, "%s: merging the causes tables: %s",
				    in_path, msg ? msg : sqlite3_errmsg(db));

		sqlite3_free(msg);
		return ret;
	}
	return 0;
}

static const char *const check_sql[][2] = {
	{ "SELECT c.run_uuid, c.metric, c.cpu, c.sample FROM causes c"
	  " WHERE NOT EXISTS (SELECT 1 FROM cause_samples s WHERE"
	  " s.run_uuid = c.run_uuid AND s.metric = c.metric AND s.cpu = c.cpu"
	  " AND s.sample = c.sample)",
	  "a cause of a sample that is not stored" },
	{ "SELECT c.run_uuid, c.metric, c.cpu, c.sample FROM causes c"
	  " WHERE c.share < 0 OR c.share > 1.000001",
	  "a cause's share outside [0, 1]" },
	{ "SELECT c.run_uuid, c.metric, c.cpu, c.sample FROM causes c"
	  " JOIN cause_samples s ON s.run_uuid = c.run_uuid AND s.metric = c.metric"
	  " AND s.cpu = c.cpu AND s.sample = c.sample WHERE c.dur_ns > s.value_ns",
	  "a cause longer than its sample" },
	{ "SELECT run_uuid, metric, cpu, sample FROM cause_samples"
	  " WHERE unexplained_ns > value_ns OR unexplained_ns < 0",
	  "an unexplained part longer than its sample" },
	{ "SELECT run_uuid, 'lost_events', cpu, lost_events FROM trace_cpus"
	  " WHERE lost_events < 0",
	  "a negative lost-event count" },
};

int il_store_causes_check(void *dbp, void (*report)(void *ctx, const char *msg),
			  void *ctx)
{
	sqlite3 *db = dbp;
	sqlite3_stmt *st;
	char msg[512];
	size_t i;
	int n = 0, rc;

	if (!have_tables(db, "main"))
		return 0;	/* an older schema, opened read-only */
	for (i = 0; i < sizeof(check_sql) / sizeof(check_sql[0]); i++) {
		if (sqlite3_prepare_v2(db, check_sql[i][0], -1, &st, NULL) != SQLITE_OK)
			return il_errorf(-EIO, "checking the causes tables: %s",
					 sqlite3_errmsg(db));
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			snprintf(msg, sizeof(msg), "causes: run %s %s CPU %d sample %lld: %s",
				 (const char *)sqlite3_column_text(st, 0),
				 (const char *)sqlite3_column_text(st, 1),
				 sqlite3_column_int(st, 2),
				 (long long)sqlite3_column_int64(st, 3), check_sql[i][1]);
			report(ctx, msg);
			n++;
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return il_errorf(-EIO, "checking the causes tables: %s",
					 sqlite3_errmsg(db));
	}
	return n;
}
