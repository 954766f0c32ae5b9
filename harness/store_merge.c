// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_merge.c - `idlelab merge`'s library half (merge.h).  Plain SQL
 * over an attached input: the runs new to the output are listed once in a
 * temporary table, then every table below a run copies the rows of those
 * runs.  Summaries get new local ids in the output, so histograms and raw
 * samples find theirs through the summary's natural key (run, metric, cpu,
 * cpu2, grp), which the schema keeps unique.
 */
#include "store_causes.h"
#include "err.h"
#include "merge.h"
#include "store.h"
#include "store_sqlite.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int il_merge_check_input(const char *in_path, const char *out_path)
{
	struct stat a, b;
	struct il_store *s;
	int ret;

	if (!stat(in_path, &a) && !stat(out_path, &b) &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return il_errorf(-EINVAL, "%s is the output itself", in_path);
	ret = il_store_open(in_path, IL_STORE_READONLY, &s);
	if (ret)
		return ret;
	il_store_close(s);
	return 0;
}

static int exec(sqlite3 *db, const char *sql, const char *what)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		int ret = il_errorf(rc == SQLITE_CONSTRAINT || (rc & 0xff) == SQLITE_CONSTRAINT ?
				    -EEXIST : -EIO, "%s: %s", what,
				    msg ? msg : sqlite3_errstr(rc));

		sqlite3_free(msg);
		return ret;
	}
	return 0;
}

static int count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int n = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/*
 * The summaries' drop reasons, as the input has them: an input older than
 * schema 4 (migration 004_drop_reasons) has only the total, and its rows
 * keep their reasons unknown, as that migration leaves them; one of
 * schema 4 to 6 counted slept calls as race, split as 007 splits them.
 */
static const char drops_v7[] =
	"dropped_range, dropped_overrun, dropped_race, dropped_lost,"
	" dropped_slept";
static const char drops_old[] =
	"CASE WHEN dropped = 0 THEN 0 END, CASE WHEN dropped = 0 THEN 0 END,"
	" CASE WHEN dropped = 0 THEN 0 END, CASE WHEN dropped = 0 THEN 0 END,"
	" CASE WHEN dropped = 0 THEN 0 END";

/* The reasons of an input of schema @v, in @buf. */
static const char *drops_cols(int v, char *buf, size_t len)
{
	char slept[400];

	if (v >= IL_SCHEMA_SLEPT)
		return drops_v7;
	if (v < 4)
		return drops_old;
	snprintf(slept, sizeof(slept), IL_SLEPT_V4_FMT, "s.", "il_src.");
	snprintf(buf, len, "dropped_range, dropped_overrun, dropped_race - %s,"
		 " dropped_lost, %s", slept, slept);
	return buf;
}

/* The runs to copy; the damaged ones leave it before the copy. */
static const char new_runs_sql[] =
	"CREATE TEMP TABLE il_new_runs (uuid TEXT PRIMARY KEY);"
	"INSERT INTO il_new_runs SELECT uuid FROM il_src.runs"
	"  WHERE uuid NOT IN (SELECT uuid FROM main.runs);";

/* printf format: %s is the input's drop-reason columns. */
static const char copy_sql[] =
	"INSERT INTO main.machines (uuid, hostname, first_seen, last_seen,"
	"  fingerprint, hwloc_xml, is_reference, source)"
	"  SELECT uuid, hostname, first_seen, last_seen, fingerprint, hwloc_xml,"
	"  is_reference, source FROM il_src.machines WHERE true"
	"  ON CONFLICT (uuid) DO UPDATE SET"
	"  first_seen = min(first_seen, excluded.first_seen),"
	"  last_seen = max(last_seen, excluded.last_seen),"
	"  fingerprint = coalesce(fingerprint, excluded.fingerprint),"
	"  hwloc_xml = coalesce(hwloc_xml, excluded.hwloc_xml);"
	"INSERT INTO main.runs (uuid, machine_uuid, bench, params, placement, cpus,"
	"  campaign, plan_index, param_hash, start_ns, end_ns, status,"
	"  status_reason, tool_version, git_rev, cmdline, tsc_khz)"
	"  SELECT uuid, machine_uuid, bench, params, placement, cpus, campaign,"
	"  plan_index, param_hash, start_ns, end_ns, status, status_reason,"
	"  tool_version, git_rev, cmdline, tsc_khz FROM il_src.runs"
	"  WHERE uuid IN (SELECT uuid FROM il_new_runs) ORDER BY start_ns, uuid;"
	"INSERT INTO main.run_env (run_uuid, phase, json)"
	"  SELECT run_uuid, phase, json FROM il_src.run_env"
	"  WHERE run_uuid IN (SELECT uuid FROM il_new_runs);"
	"INSERT INTO main.run_attrs (run_uuid, cpu, key, value)"
	"  SELECT run_uuid, cpu, key, value FROM il_src.run_attrs"
	"  WHERE run_uuid IN (SELECT uuid FROM il_new_runs) ORDER BY rowid;"
	"INSERT INTO main.counters (run_uuid, event, cpu, value, unit, status, reason)"
	"  SELECT run_uuid, event, cpu, value, unit, status, reason"
	"  FROM il_src.counters WHERE run_uuid IN (SELECT uuid FROM il_new_runs)"
	"  ORDER BY id;"
	"INSERT INTO main.summaries (run_uuid, metric, unit, cpu, cpu2, grp, count,"
	"  min, max, mean, stddev, p50, p90, p99, p999, p9999, dropped, early,"
	"  dropped_raw, dropped_range, dropped_overrun, dropped_race, dropped_lost,"
	"  dropped_slept)"
	"  SELECT run_uuid, metric, unit, cpu, cpu2, grp, count, min, max, mean,"
	"  stddev, p50, p90, p99, p999, p9999, dropped, early, dropped_raw, %s"
	"  FROM il_src.summaries s"
	"  WHERE run_uuid IN (SELECT uuid FROM il_new_runs) ORDER BY id;"
	"INSERT INTO main.histograms (summary_id, layout, blob)"
	"  SELECT ms.id, h.layout, h.blob FROM il_src.histograms h"
	"  JOIN il_src.summaries ss ON ss.id = h.summary_id"
	"  JOIN main.summaries ms ON ms.run_uuid = ss.run_uuid"
	"  AND ms.metric = ss.metric AND ms.cpu = ss.cpu AND ms.cpu2 = ss.cpu2"
	"  AND ms.grp = ss.grp"
	"  WHERE ss.run_uuid IN (SELECT uuid FROM il_new_runs);"
	"INSERT INTO main.raw_samples (summary_id, layout, count, blob)"
	"  SELECT ms.id, r.layout, r.count, r.blob FROM il_src.raw_samples r"
	"  JOIN il_src.summaries ss ON ss.id = r.summary_id"
	"  JOIN main.summaries ms ON ms.run_uuid = ss.run_uuid"
	"  AND ms.metric = ss.metric AND ms.cpu = ss.cpu AND ms.cpu2 = ss.cpu2"
	"  AND ms.grp = ss.grp"
	"  WHERE ss.run_uuid IN (SELECT uuid FROM il_new_runs);";

/* ATTACH @in as il_src, read the way its store reads it (il_store_uri()). */
static int attach(sqlite3 *db, struct il_store *in, const char *in_path)
{
	char *uri = il_store_uri(in);
	sqlite3_stmt *at;
	int rc;

	if (!uri)
		return il_errorf(-ENOMEM, "out of memory");
	rc = sqlite3_prepare_v2(db, "ATTACH DATABASE ?1 AS il_src", -1, &at, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(at, 1, uri, -1, SQLITE_STATIC);
		rc = sqlite3_step(at);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	sqlite3_finalize(at);
	free(uri);
	if (rc != SQLITE_OK)
		return il_errorf(-EIO, "%s: cannot attach: %s", in_path, sqlite3_errmsg(db));
	return 0;
}

/*
 * The input's damaged runs (what db check finds in their histograms) leave
 * temp.il_new_runs, so nothing of them is copied; each one that was new to
 * the output is marked left_out (il_store_run_damaged()) and counted.
 */
static int leave_out_damaged(sqlite3 *db, struct il_store *in,
			     struct il_merge_stats *st)
{
	const struct il_damaged_run *v;
	sqlite3_stmt *del;
	size_t n, i;
	int rc, ret;

	ret = il_store_damaged_runs(in, &v, &n);
	if (ret || !n)
		return ret;
	rc = sqlite3_prepare_v2(db, "DELETE FROM temp.il_new_runs WHERE uuid = ?1",
				-1, &del, NULL);
	for (i = 0; rc == SQLITE_OK && i < n; i++) {
		sqlite3_bind_text(del, 1, v[i].uuid, -1, SQLITE_STATIC);
		rc = sqlite3_step(del);
		if (rc != SQLITE_DONE)
			break;
		rc = SQLITE_OK;
		if (sqlite3_changes(db) > 0) {
			il_store_run_damaged(in, v[i].uuid);
			st->runs_damaged++;
		}
		sqlite3_reset(del);
	}
	sqlite3_finalize(del);
	if (rc != SQLITE_OK)
		return il_errorf(-EIO, "leaving out the damaged runs: %s",
				 sqlite3_errmsg(db));
	return 0;
}

/* Everything below the runs left in temp.il_new_runs, in the transaction. */
static int copy(sqlite3 *db, const char *in_path)
{
	char *sql, drops[1024];
	int ret;

	if (asprintf(&sql, copy_sql,
		     drops_cols(count(db, "PRAGMA il_src.user_version"), drops,
				sizeof(drops))) < 0)
		return il_errorf(-ENOMEM, "out of memory");
	ret = exec(db, sql, in_path);
	free(sql);
	if (!ret)
		ret = il_store_causes_merge(db, in_path);
	/* Stored plans (schema 6): a campaign's row is its start, never
	 * rewritten, so the output keeps the one it has. */
	if (!ret && count(db, "PRAGMA il_src.user_version") >= 6)
		ret = exec(db, "INSERT OR IGNORE INTO main.campaigns (machine_uuid,"
			   " name, file, file_sha256, scale, nplan, plan,"
			   " idlelab_version, created_ns) SELECT machine_uuid, name,"
			   " file, file_sha256, scale, nplan, plan, idlelab_version,"
			   " created_ns FROM il_src.campaigns", in_path);
	return ret;
}

int il_merge_one(struct il_store *out, const char *in_path,
		 struct il_merge_stats *st, il_merge_left_out_fn left_out,
		 void *arg)
{
	sqlite3 *db = il_store_db(out);
	const struct il_damaged_run *v;
	struct il_store *in;
	size_t n, i;
	int ret, m0;

	memset(st, 0, sizeof(*st));
	ret = il_store_open(in_path, IL_STORE_READONLY, &in);
	if (ret)
		return ret;
	ret = attach(db, in, in_path);
	if (ret) {
		il_store_close(in);
		return ret;
	}
	m0 = count(db, "SELECT count(*) FROM main.machines");
	ret = exec(db, "BEGIN IMMEDIATE", "starting the merge");
	if (ret)
		goto detach;
	st->runs_present = count(db, "SELECT count(*) FROM il_src.runs"
				      " WHERE uuid IN (SELECT uuid FROM main.runs)");
	/* The schema keeps one run per campaign key: say which one clashes. */
	if (count(db, "SELECT count(*) FROM il_src.runs s JOIN main.runs m"
		      " ON s.machine_uuid = m.machine_uuid"
		      " AND s.campaign = m.campaign AND s.plan_index = m.plan_index"
		      " AND s.param_hash = m.param_hash AND s.uuid <> m.uuid") > 0) {
		ret = il_errorf(-EEXIST, "%s: a campaign run has the same campaign name, plan index and parameters as another run already in the output (on the same machine); nothing merged from it",
				in_path);
		goto rollback;
	}
	ret = exec(db, new_runs_sql, in_path);
	if (!ret)
		ret = leave_out_damaged(db, in, st);
	if (!ret)
		ret = copy(db, in_path);
	if (ret)
		goto rollback;
	st->runs_new = count(db, "SELECT count(*) FROM temp.il_new_runs");
	ret = exec(db, "DROP TABLE temp.il_new_runs; COMMIT", "committing the merge");
	if (ret)
		goto rollback;
	st->machines_new = count(db, "SELECT count(*) FROM main.machines") - m0;
	/* Named only once the merge holds: a rollback leaves nothing out. */
	if (left_out && !il_store_damaged_runs(in, &v, &n))
		for (i = 0; i < n; i++)
			if (v[i].left_out)
				left_out(v[i].uuid, v[i].why, arg);
	goto detach;
rollback:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_exec(db, "DROP TABLE IF EXISTS temp.il_new_runs", NULL, NULL, NULL);
detach:
	if (sqlite3_exec(db, "DETACH DATABASE il_src", NULL, NULL, NULL) != SQLITE_OK && !ret)
		ret = il_errorf(-EIO, "%s: cannot detach: %s", in_path, sqlite3_errmsg(db));
	il_store_close(in);
	return ret;
}
