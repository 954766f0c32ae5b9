// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_migrate.c - the schema migrations compiled in from schemas/
 * (schemas.h), applied in order by il_store_migrate(), and the newest
 * version they reach, il_store_latest_version().
 *
 * Migration N is one transaction: it re-reads user_version inside (a
 * concurrent idlelab may have done it already), runs the SQL and sets
 * user_version = N, so a crash leaves version N-1, never half of N.
 *
 * The migrations run with foreign_keys off, as SQLite's procedure for a
 * table rebuild asks (lang_altertable.html, "Making Other Kinds Of Table
 * Schema Changes", steps 1, 10 and 12): with them on, dropping the old
 * summaries table (007) would delete every histogram by cascade.  The
 * pragma is a no-op inside a transaction, so it is set around the loop,
 * and each migration proves with foreign_key_check, before its COMMIT,
 * that it left every reference whole.
 */
#include "store.h"
#include "err.h"
#include "store_internal.h"
#include "schemas.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>

int il_store_latest_version(void)
{
	return il_nmigrations ? il_migrations[il_nmigrations - 1].version : 0;
}

/* Inside the migration's transaction: what the file is now. */
static int migration_guard(struct il_store *s, int64_t cur)
{
	int64_t app = 0, objects = 0;
	int latest = il_store_latest_version();
	int rc;

	if (cur > latest)
		return il_errorf(-EPROTONOSUPPORT, "%s: schema version %" PRId64 " is newer than this idlelab (%d); upgrade idlelab",
				 s->path, cur, latest);
	rc = store_query_i64(s->db, "PRAGMA application_id", &app);
	if (rc == SQLITE_OK)
		rc = store_query_i64(s->db, "SELECT count(*) FROM sqlite_master",
			       &objects);
	if (rc != SQLITE_OK)
		return store_sql_fail(s, rc, "reading the schema");
	/*
	 * The open-time probe already said so, but another process may have
	 * filled a new file since: never lay our tables next to foreign ones.
	 */
	if (cur == 0 ? app != 0 || objects != 0 : app != IL_APPLICATION_ID)
		return il_errorf(-EPROTO, "%s is not an idlelab database (application_id 0x%08" PRIx64 ")",
				 s->path, (uint64_t)app);
	return 0;
}

static int migrate_all(struct il_store *s);

int il_store_migrate(struct il_store *s)
{
	int latest = il_store_latest_version();
	int64_t cur;
	int rc, ret, on;

	if (s->readonly)
		return il_errorf(-EROFS, "%s: opened read-only, cannot migrate",
				 s->path);
	/* The common case takes no lock at all. */
	rc = store_query_i64(s->db, "PRAGMA user_version", &cur);
	if (rc != SQLITE_OK)
		return store_sql_fail(s, rc, "reading the schema version");
	if (cur == latest)
		return 0;
	/* Cached statements may name tables a migration changes. */
	store_finalize_all(s);
	ret = store_exec(s, "PRAGMA foreign_keys = OFF", "disabling foreign keys");
	if (ret)
		return ret;
	ret = migrate_all(s);
	/* Back on whatever happened: the handle lives on after a failure. */
	on = store_exec(s, "PRAGMA foreign_keys = ON", "enabling foreign keys");
	return ret ?: on;
}

/*
 * The rows of foreign_key_check: references to no row.  A migration must
 * not add one; a file damaged before it (store_check.c reports those) may
 * already have some, and is still migrated.
 */
static int fk_dangling(struct il_store *s, int64_t *n)
{
	int rc = store_query_i64(s->db, "SELECT count(*) FROM pragma_foreign_key_check",
				 n);

	return rc == SQLITE_OK ? 0 : store_sql_fail(s, rc, "checking foreign keys");
}

static int migrate_all(struct il_store *s)
{
	int latest = il_store_latest_version();
	char sql[64];
	int64_t cur, before = 0, after = 0;
	int i, rc, ret;

	for (i = 0; i < il_nmigrations; i++) {
		const struct il_migration *m = &il_migrations[i];

		ret = store_exec(s, "BEGIN IMMEDIATE", "starting a migration");
		if (ret)
			return ret;
		rc = store_query_i64(s->db, "PRAGMA user_version", &cur);
		if (rc != SQLITE_OK) {
			ret = store_sql_fail(s, rc, "reading the schema version");
			goto rollback;
		}
		if (cur >= m->version && cur <= latest) {
			ret = store_exec(s, "COMMIT", "ending a migration");
			if (ret)
				goto rollback;
			continue;
		}
		ret = migration_guard(s, cur) ?: fk_dangling(s, &before);
		if (ret)
			goto rollback;
		rc = sqlite3_exec(s->db, m->sql, NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			ret = il_errorf(store_sql_errno(rc), "%s: migration %s failed: %s",
					s->path, m->name, sqlite3_errmsg(s->db));
			goto rollback;
		}
		ret = fk_dangling(s, &after);
		if (!ret && after > before)
			ret = il_errorf(-EPROTO, "%s: migration %s left %" PRId64 " rows pointing at no row",
					s->path, m->name, after - before);
		if (ret)
			goto rollback;
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", m->version);
		ret = store_exec(s, sql, "setting the schema version");
		if (!ret)
			ret = store_exec(s, "COMMIT", "committing a migration");
		if (ret)
			goto rollback;
	}
	return 0;
rollback:
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}
