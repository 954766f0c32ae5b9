// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_publish.c - publish.h: the bundle's database, from a working copy.
 *
 * The copy is made by merge's own code (il_merge_one()) rather than by a
 * second list of tables and columns: a bundle must merge back into any
 * dataset, and sharing the copy keeps the two from drifting apart.  What
 * is then deleted or rewritten is found from the schema's foreign keys
 * (pragma_foreign_key_list), for the same reason: a table a later
 * migration adds under runs or machines is cut down and rewritten with
 * them without a change here.
 */
#include "publish.h"
#include "err.h"
#include "merge.h"
#include "redact.h"
#include "store.h"
#include "store_internal.h"
#include "store_sqlite.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int sql_err(sqlite3 *db, const char *what)
{
	return il_errorf(-EIO, "%s: %s", what, sqlite3_errmsg(db));
}

static int exec(sqlite3 *db, const char *sql, const char *what)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sql_err(db, what);
	return 0;
}

int il_publish_copy(const char *src_path, const char *work_path,
		    struct il_store **work, int *damaged)
{
	struct il_merge_stats st;
	int ret;

	*work = NULL;
	if (!access(work_path, F_OK))
		return il_errorf(-EEXIST, "%s exists", work_path);
	ret = il_store_open(work_path, IL_STORE_CREATE, work);
	if (ret)
		return ret;
	ret = il_merge_one(*work, src_path, &st, NULL, NULL);
	if (ret) {
		il_store_close(*work);
		*work = NULL;
		il_store_remove(work_path);
		return ret;
	}
	*damaged = st.runs_damaged;
	return 0;
}

/* The (table, column) pairs that reference @parent, one statement. */
static int referrers(sqlite3 *db, const char *parent, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(db,
			       "SELECT m.name, f.\"from\" FROM sqlite_master m,"
			       " pragma_foreign_key_list(m.name) f"
			       " WHERE m.type = 'table' AND f.\"table\" = ?1"
			       " AND m.name <> ?1 ORDER BY m.name", -1, st, NULL) != SQLITE_OK)
		return sql_err(db, "listing foreign keys");
	sqlite3_bind_text(*st, 1, parent, -1, SQLITE_STATIC);
	return 0;
}

/* Delete the rows of @parent whose key is not in @keep, after the rows of
 * every table that references them (whether or not it cascades). */
static int prune(sqlite3 *db, const char *parent, const char *keep)
{
	sqlite3_stmt *st;
	char *sql;
	int ret = referrers(db, parent, &st), rc;

	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		sql = sqlite3_mprintf("DELETE FROM main.\"%w\" WHERE \"%w\" NOT IN (%s)",
				      (const char *)sqlite3_column_text(st, 0),
				      (const char *)sqlite3_column_text(st, 1), keep);
		ret = sql ? exec(db, sql, "cutting the copy down") :
		      il_errorf(-ENOMEM, "out of memory");
		sqlite3_free(sql);
	}
	sqlite3_finalize(st);
	if (ret)
		return ret;
	sql = sqlite3_mprintf("DELETE FROM main.\"%w\" WHERE uuid NOT IN (%s)",
			      parent, keep);
	ret = sql ? exec(db, sql, "cutting the copy down") :
	      il_errorf(-ENOMEM, "out of memory");
	sqlite3_free(sql);
	return ret;
}

int il_publish_keep(struct il_store *work)
{
	sqlite3 *db = il_store_db(work);
	int ret = exec(db, "BEGIN IMMEDIATE", "cutting the copy down");

	if (ret)
		return ret;
	ret = prune(db, "runs", "SELECT uuid FROM temp.il_publish_runs") ?:
	      prune(db, "machines", "SELECT machine_uuid FROM main.runs");
	if (ret) {
		exec(db, "ROLLBACK", "rolling back");
		return ret;
	}
	return exec(db, "COMMIT", "cutting the copy down");
}

/* "a/b/c" -> "c" in every word of @s holding a '/': directories name
 * users and hosts, the file's own name is what a reader needs. */
static char *strip_dirs(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	const char *w = s, *e, *slash;

	if (!out)
		return NULL;
	while (*w) {
		if (*w == ' ') {
			*o++ = *w++;
			continue;
		}
		e = w + strcspn(w, " ");
		slash = NULL;
		for (const char *p = w; p < e; p++)
			if (*p == '/')
				slash = p;
		if (slash && slash + 1 < e)
			w = slash + 1;
		memcpy(o, w, (size_t)(e - w));
		o += e - w;
		w = e;
	}
	*o = '\0';
	return out;
}

/* Apply strip_dirs() to @table.@col in every row; the count to @n. */
static int strip_column(sqlite3 *db, const char *table, const char *col,
			int *n)
{
	sqlite3_stmt *sel, *upd;
	char *q = sqlite3_mprintf("SELECT rowid, \"%w\" FROM main.\"%w\" WHERE \"%w\" LIKE '%%/%%'",
				  col, table, col);
	char *u = sqlite3_mprintf("UPDATE main.\"%w\" SET \"%w\" = ?2 WHERE rowid = ?1",
				  table, col);
	int ret = 0, rc;

	*n = 0;
	if (!q || !u || sqlite3_prepare_v2(db, q, -1, &sel, NULL) != SQLITE_OK) {
		ret = q && u ? sql_err(db, table) : il_errorf(-ENOMEM, "out of memory");
		sqlite3_free(q);
		sqlite3_free(u);
		return ret;
	}
	if (sqlite3_prepare_v2(db, u, -1, &upd, NULL) != SQLITE_OK)
		ret = sql_err(db, table);
	while (!ret && (rc = sqlite3_step(sel)) == SQLITE_ROW) {
		char *v = strip_dirs((const char *)sqlite3_column_text(sel, 1));

		if (!v) {
			ret = il_errorf(-ENOMEM, "out of memory");
			break;
		}
		sqlite3_bind_int64(upd, 1, sqlite3_column_int64(sel, 0));
		sqlite3_bind_text(upd, 2, v, -1, free);
		if (sqlite3_step(upd) != SQLITE_DONE)
			ret = sql_err(db, table);
		sqlite3_reset(upd);
		(*n)++;
	}
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	sqlite3_free(q);
	sqlite3_free(u);
	return ret;
}

/* Every reference to machine @from becomes @to. */
static int rekey(sqlite3 *db, const char *from, const char *to)
{
	sqlite3_stmt *st, *upd;
	int ret = referrers(db, "machines", &st), rc;

	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *sql = sqlite3_mprintf("UPDATE main.\"%w\" SET \"%w\" = ?1 WHERE \"%w\" = ?2",
					    (const char *)sqlite3_column_text(st, 0),
					    (const char *)sqlite3_column_text(st, 1),
					    (const char *)sqlite3_column_text(st, 1));

		if (!sql || sqlite3_prepare_v2(db, sql, -1, &upd, NULL) != SQLITE_OK) {
			ret = sql ? sql_err(db, "renaming a machine") :
			      il_errorf(-ENOMEM, "out of memory");
			sqlite3_free(sql);
			break;
		}
		sqlite3_bind_text(upd, 1, to, -1, SQLITE_STATIC);
		sqlite3_bind_text(upd, 2, from, -1, SQLITE_STATIC);
		if (sqlite3_step(upd) != SQLITE_DONE)
			ret = sql_err(db, "renaming a machine");
		sqlite3_finalize(upd);
		sqlite3_free(sql);
	}
	sqlite3_finalize(st);
	return ret;
}

/* One machine row: its pseudonyms, its documents redacted, its
 * references renamed; what went is listed in @list. */
static int redact_machine(sqlite3 *db, sqlite3_stmt *sel,
			  const struct il_redact_key *key, json_t *list)
{
	const char *uuid = (const char *)sqlite3_column_text(sel, 0);
	const char *fp = (const char *)sqlite3_column_text(sel, 2);
	const char *xml = (const char *)sqlite3_column_text(sel, 3);
	char nuuid[37], nhost[IL_REDACT_HOST_LEN], *nfp = NULL, *nxml = NULL;
	json_t *removed = json_array(), *m;
	sqlite3_stmt *upd;
	int ret = 0;

	il_redact_uuid(key, uuid, nuuid);
	il_redact_host(key, uuid, nhost);
	if (fp)
		ret = il_redact_fingerprint(fp, nhost, removed, &nfp);
	if (!ret && xml)
		ret = il_redact_hwloc_xml(xml, nhost, removed, &nxml);
	if (!ret && sqlite3_prepare_v2(db, "UPDATE main.machines SET uuid = ?1,"
				       " hostname = ?2, fingerprint = ?3, hwloc_xml = ?4"
				       " WHERE uuid = ?5", -1, &upd, NULL) != SQLITE_OK)
		ret = sql_err(db, "redacting a machine");
	if (!ret) {
		sqlite3_bind_text(upd, 1, nuuid, -1, SQLITE_STATIC);
		sqlite3_bind_text(upd, 2, nhost, -1, SQLITE_STATIC);
		sqlite3_bind_text(upd, 3, nfp, -1, SQLITE_STATIC);
		sqlite3_bind_text(upd, 4, nxml, -1, SQLITE_STATIC);
		sqlite3_bind_text(upd, 5, uuid, -1, SQLITE_STATIC);
		if (sqlite3_step(upd) != SQLITE_DONE)
			ret = sql_err(db, "redacting a machine");
		sqlite3_finalize(upd);
	}
	ret = ret ?: rekey(db, uuid, nuuid);
	if (!ret) {
		m = json_pack("{s:s, s:s, s:[s, s], s:o}", "uuid", nuuid,
			      "hostname", nhost, "replaced", "machine UUID",
			      "hostname", "removed", removed);
		removed = NULL;
		ret = json_array_append_new(list, m) ?
		      il_errorf(-ENOMEM, "out of memory") : 0;
	}
	json_decref(removed);
	free(nfp);
	free(nxml);
	return ret;
}

static int redact_all(sqlite3 *db, const struct il_redact_key *key,
		      json_t *report)
{
	json_t *list = json_array();
	sqlite3_stmt *sel;
	int ret = 0, rc, nrun, ncamp;
	int64_t nref = 0;

	/* The machine list is read whole first: rows are rewritten, keys
	 * included, while it is walked.  Reference machines are left as
	 * they are: their names and figures come from public sources, and
	 * their fixed UUIDs are what lets `import reference` and a merge
	 * of this bundle meet on one row instead of two. */
	if (!list || json_object_set_new(report, "machines", list))
		return il_errorf(-ENOMEM, "out of memory");
	if (exec(db, "CREATE TEMP TABLE il_pub_m AS SELECT uuid, hostname,"
		 " fingerprint, hwloc_xml FROM main.machines WHERE is_reference = 0",
		 "listing machines") ||
	    sqlite3_prepare_v2(db, "SELECT uuid, hostname, fingerprint, hwloc_xml"
			       " FROM temp.il_pub_m ORDER BY uuid", -1, &sel, NULL) != SQLITE_OK)
		return sql_err(db, "listing machines");
	while (!ret && (rc = sqlite3_step(sel)) == SQLITE_ROW)
		ret = redact_machine(db, sel, key, list);
	sqlite3_finalize(sel);
	ret = ret ?: strip_column(db, "runs", "cmdline", &nrun) ?:
	      strip_column(db, "campaigns", "file", &ncamp);
	if (!ret && store_query_i64(db, "SELECT count(*) FROM main.machines WHERE is_reference = 1",
				    &nref))
		ret = il_errorf(-EIO, "cannot count the reference machines: %s",
				sqlite3_errmsg(db));
	if (!ret && json_object_set_new(report, "reference_machines_kept",
					json_integer(nref)))
		ret = il_errorf(-ENOMEM, "out of memory");
	if (!ret && json_object_set_new(report, "paths",
					json_pack("{s:s, s:i, s:i}", "removed",
						  "the directories of every path in runs.cmdline and campaigns.file (their file names stay)",
						  "runs", nrun, "campaigns", ncamp)))
		ret = il_errorf(-ENOMEM, "out of memory");
	return ret ?: exec(db, "DROP TABLE temp.il_pub_m", "listing machines");
}

int il_publish_redact(struct il_store *work, const struct il_redact_key *key,
		      json_t *report)
{
	sqlite3 *db = il_store_db(work);
	int ret, bad = 0;
	sqlite3_stmt *st;

	/* A machine's key changes under the rows that name it; the checks
	 * are off for the rename and the whole is checked before COMMIT. */
	ret = exec(db, "PRAGMA foreign_keys = OFF", "redacting") ?:
	      exec(db, "BEGIN IMMEDIATE", "redacting");
	if (ret)
		return ret;
	ret = redact_all(db, key, report);
	if (!ret && sqlite3_prepare_v2(db, "PRAGMA main.foreign_key_check", -1, &st,
				       NULL) == SQLITE_OK) {
		bad = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
		if (bad)
			ret = il_errorf(-EIO, "redacting left a row naming a machine that is not there");
	}
	ret = ret ?: exec(db, "COMMIT", "redacting");
	if (ret)
		exec(db, "ROLLBACK", "rolling back");
	exec(db, "PRAGMA foreign_keys = ON", "redacting");
	return ret;
}

int il_publish_vacuum(struct il_store *work, const char *tmp_path,
		      const char *path)
{
	sqlite3 *db = il_store_db(work), *out = NULL;
	sqlite3_stmt *st;
	int ret = 0;

	unlink(tmp_path);
	if (sqlite3_prepare_v2(db, "VACUUM main INTO ?1", -1, &st, NULL) != SQLITE_OK)
		return sql_err(db, "VACUUM INTO");
	sqlite3_bind_text(st, 1, tmp_path, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = sql_err(db, "VACUUM INTO");
	sqlite3_finalize(st);
	if (!ret && sqlite3_open_v2(tmp_path, &out, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
		if (sqlite3_exec(out, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL) != SQLITE_OK)
			ret = sql_err(out, tmp_path);
	} else if (!ret) {
		ret = il_errorf(-EIO, "%s: cannot open the vacuumed copy", tmp_path);
	}
	sqlite3_close(out);
	if (!ret && rename(tmp_path, path))
		ret = il_errorf(-errno, "%s: %s", path, strerror(errno));
	if (ret)
		il_store_remove(tmp_path);
	return ret;
}
