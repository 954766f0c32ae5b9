// SPDX-License-Identifier: GPL-2.0-only
/*
 * store.c - the SQLite dataset: opening (and refusing) a file, the schema
 * migrations compiled in from schemas/, one transaction per run, and the
 * consistency check behind `idlelab db check`.
 *
 * Everything a run measured goes through il_store_save_run(): its row in
 * runs, the environment snapshots, one summaries row per series with the
 * histogram (and, on request, the raw samples) as BLOBs, the counter
 * readings and the benchmark's attributes.  Reports never re-measure; they
 * read these tables through the views of schemas/002_views.sql.
 *
 * Design notes
 * ------------
 * Opening is a protocol, because "refused and left untouched" must hold
 * for files that are not ours, and SQLite writes early: switching to WAL
 * rewrites the header, and even a read-only handle on a WAL database
 * creates -wal and -shm files next to it.  So:
 *
 *   1. stat().  A missing path is created only with IL_STORE_CREATE (never
 *      with IL_STORE_READONLY); a zero-length file counts as new.
 *   2. read(2) the 100-byte header.  No "SQLite format 3" magic: -EPROTO.
 *      SQLite itself would open such a file and fail only at the first
 *      query, and we do not want a read-write handle on it even briefly.
 *   3. A read-only SQLite handle reads application_id, user_version and
 *      whether sqlite_master holds anything.  When the header says WAL and
 *      no non-empty -wal exists, the handle is opened with immutable=1,
 *      which reads the file alone and creates nothing; with a live -wal the
 *      file is in use and only the ordinary WAL reader sees it correctly.
 *   4. Classify: ours (application_id IL_APPLICATION_ID), empty (no id, no
 *      version, no objects, e.g. a file just created by sqlite3), or
 *      foreign.  Foreign is -EPROTO, ours but newer than this binary is
 *      -EPROTONOSUPPORT, ours but older with IL_STORE_NO_MIGRATE is
 *      -ESTALE.  Nothing has been written up to here.
 *   5. Only now the handle we keep.  IL_STORE_READONLY opens it with
 *      SQLITE_OPEN_READONLY and stops (the main file is never written,
 *      though SQLite's WAL reader may leave our database's -wal/-shm side
 *      files).  Otherwise it is read-write: journal_mode=WAL (the first
 *      write), synchronous=NORMAL, and the migrations if IL_STORE_CREATE.
 *
 * Every handle gets foreign_keys=ON (SQLite's default is off, per
 * connection) and a busy timeout, so two writers into one file queue up.
 *
 * Transactions: every write is BEGIN IMMEDIATE ... COMMIT, rolled back on
 * any error.  IMMEDIATE takes the write lock before the first statement, so
 * a second writer waits in busy_timeout instead of failing with
 * SQLITE_BUSY at COMMIT after all its inserts.
 *   - Migration N is one transaction: it re-reads user_version inside (a
 *     concurrent idlelab may have done it already), runs the SQL and sets
 *     user_version = N, so a crash leaves version N-1, never half of N.
 *   - A run is one transaction (il_store_save_run()): a failure anywhere,
 *     down to the last attribute, rolls back all of it, so a dataset holds
 *     complete runs only and a killed campaign keeps every finished one.
 *   - With WAL and synchronous=NORMAL a commit is not fsync()ed; it
 *     survives a process crash, and a power loss can lose only the most
 *     recent runs, never corrupt earlier ones.
 */
#include "store.h"
#include "err.h"
#include "schemas.h"
#include "stats.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Long enough for another process's run transaction (a big raw BLOB). */
#define BUSY_TIMEOUT_MS		30000
/* A badly damaged file should give a readable report, not a million lines. */
#define MAX_FINDINGS		100

enum {
	ST_MACHINE,
	ST_RUN,
	ST_ENV,
	ST_SUMMARY,
	ST_HIST,
	ST_RAW,
	ST_COUNTER,
	ST_ATTR,
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_COUNT
};

static const char *const stmt_sql[ST_COUNT] = {
	[ST_MACHINE] =
		"INSERT INTO machines (uuid, hostname, first_seen, last_seen,"
		" fingerprint, hwloc_xml, is_reference, source)"
		" VALUES (?1, ?2, ?3, ?3, ?4, ?5, 0, 'local')"
		" ON CONFLICT (uuid) DO UPDATE SET"
		" hostname = excluded.hostname,"
		" last_seen = max(last_seen, excluded.last_seen),"
		" fingerprint = coalesce(excluded.fingerprint, fingerprint),"
		" hwloc_xml = coalesce(excluded.hwloc_xml, hwloc_xml)",
	[ST_RUN] =
		"INSERT INTO runs (uuid, machine_uuid, bench, params, placement,"
		" cpus, campaign, plan_index, param_hash, start_ns, end_ns,"
		" status, status_reason, tool_version, git_rev, cmdline, tsc_khz)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
		" ?14, ?15, ?16, ?17)",
	[ST_ENV] =
		"INSERT INTO run_env (run_uuid, phase, json) VALUES (?1, ?2, ?3)",
	[ST_SUMMARY] =
		"INSERT INTO summaries (run_uuid, metric, unit, cpu, cpu2, grp,"
		" count, min, max, mean, stddev, p50, p90, p99, p999, p9999,"
		" dropped, early, dropped_raw)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
		" ?14, ?15, ?16, ?17, ?18, ?19)",
	[ST_HIST] =
		"INSERT INTO histograms (summary_id, layout, blob)"
		" VALUES (?1, ?2, ?3)",
	[ST_RAW] =
		"INSERT INTO raw_samples (summary_id, layout, count, blob)"
		" VALUES (?1, ?2, ?3, ?4)",
	[ST_COUNTER] =
		"INSERT INTO counters (run_uuid, event, cpu, value, unit, status,"
		" reason) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_ATTR] =
		"INSERT INTO run_attrs (run_uuid, cpu, key, value)"
		" VALUES (?1, ?2, ?3, ?4)",
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
};

struct il_store {
	sqlite3 *db;
	char *path;
	bool readonly;
	/* Prepared on first use, kept until close or a schema change. */
	sqlite3_stmt *st[ST_COUNT];
};

/* What steps 1-3 of the open protocol found out about a path. */
struct probe {
	bool exists;
	bool empty;		/* zero length, or SQLite with nothing in it */
	bool ours;
	uint32_t app_id;
	int version;
};

static int sql_errno(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
	case SQLITE_TOOBIG:
		return -EINVAL;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_NOTADB:
		return -EPROTO;
	default:
		return -EIO;
	}
}

/* Must run before anything else touches the handle: it reads errmsg. */
static int sql_fail(struct il_store *s, int rc, const char *what)
{
	return il_errorf(sql_errno(rc), "%s: %s: %s", s->path, what,
			 sqlite3_errmsg(s->db));
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int exec(struct il_store *s, const char *sql, const char *what)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sql_fail(s, rc, what);
}

/* One integer from a one-row query, e.g. a PRAGMA. */
static int query_i64(sqlite3 *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * A file: URI that opens @path with immutable=1.  Only '/' and RFC 3986
 * unreserved characters pass as they are; '?', '#' and '%' in particular
 * must be escaped or SQLite would read them as URI syntax.  An absolute
 * path gets an empty authority ("file:///..."), so "//x" stays a path.
 */
static char *immutable_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path);
	char *u = malloc(3 * n + 32), *p;

	if (!u)
		return NULL;
	p = u + sprintf(u, "file:%s", path[0] == '/' ? "//" : "");
	for (; *path; path++) {
		unsigned char c = (unsigned char)*path;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("/-._~", c)) {
			*p++ = (char)c;
		} else {
			*p++ = '%';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	strcpy(p, "?immutable=1");
	return u;
}

static bool nonempty_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_size > 0;
}

/* Steps 1-3 of the open protocol (see the design notes); writes nothing. */
static int probe_file(const char *path, struct probe *p)
{
	static const char magic[16] = "SQLite format 3";
	static const char sql[] =
		"SELECT (SELECT application_id FROM pragma_application_id),"
		" (SELECT user_version FROM pragma_user_version),"
		" (SELECT count(*) FROM sqlite_master)";
	unsigned char hdr[100];
	char *walpath = NULL, *uri = NULL;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct stat sb;
	int64_t objects;
	ssize_t n;
	bool wal;
	int fd, rc, ret = 0;

	memset(p, 0, sizeof(*p));
	if (stat(path, &sb)) {
		if (errno == ENOENT)
			return 0;
		return il_errorf(-errno, "%s: %s", path, strerror(errno));
	}
	p->exists = true;
	if (!S_ISREG(sb.st_mode))
		return il_errorf(-EPROTO, "%s: not an SQLite database (not a regular file)",
				 path);
	if (sb.st_size == 0) {
		p->empty = true;
		return 0;
	}

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return il_errorf(-errno, "%s: %s", path, strerror(errno));
	n = pread(fd, hdr, sizeof(hdr), 0);
	close(fd);
	if (n < 0)
		return il_errorf(-EIO, "%s: %s", path, strerror(errno));
	if (n < (ssize_t)sizeof(hdr) || memcmp(hdr, magic, sizeof(magic)))
		return il_errorf(-EPROTO, "%s: not an SQLite database", path);

	/* Header bytes 18/19 are the write/read format: 2 means WAL. */
	wal = hdr[18] == 2 || hdr[19] == 2;
	if (asprintf(&walpath, "%s-wal", path) < 0)
		return il_errorf(-ENOMEM, "out of memory");
	if (wal && !nonempty_file(walpath)) {
		uri = immutable_uri(path);
		if (!uri) {
			ret = il_errorf(-ENOMEM, "out of memory");
			goto out;
		}
		rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY |
				     SQLITE_OPEN_URI, NULL);
	} else {
		rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	}
	if (rc != SQLITE_OK) {
		ret = il_errorf(sql_errno(rc), "%s: cannot open: %s", path,
				db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		goto out;
	}
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		if ((rc & 0xff) == SQLITE_NOTADB)
			ret = il_errorf(-EPROTO, "%s: not an SQLite database", path);
		else
			ret = il_errorf(sql_errno(rc), "%s: cannot read: %s",
					path, sqlite3_errmsg(db));
		goto out;
	}
	p->app_id = (uint32_t)sqlite3_column_int64(st, 0);
	p->version = sqlite3_column_int(st, 1);
	objects = sqlite3_column_int64(st, 2);
	p->ours = p->app_id == IL_APPLICATION_ID;
	p->empty = !p->app_id && !p->version && !objects;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(uri);
	free(walpath);
	return ret;
}

int il_store_latest_version(void)
{
	return il_nmigrations ? il_migrations[il_nmigrations - 1].version : 0;
}

static void finalize_all(struct il_store *s)
{
	int i;

	for (i = 0; i < ST_COUNT; i++) {
		sqlite3_finalize(s->st[i]);
		s->st[i] = NULL;
	}
}

void il_store_close(struct il_store *s)
{
	if (!s)
		return;
	finalize_all(s);
	/* The last WAL connection to close checkpoints and removes -wal. */
	sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}

int il_store_open(const char *path, int flags, struct il_store **out)
{
	bool ro = flags & IL_STORE_READONLY;
	bool create = !ro && (flags & IL_STORE_CREATE);
	int latest = il_store_latest_version();
	struct il_store *s;
	struct probe p;
	int oflags, rc, ret;

	*out = NULL;
	ret = probe_file(path, &p);
	if (ret)
		return ret;
	if (!p.exists && !create)
		return il_errorf(-ENOENT, "%s: no such database", path);
	if (p.exists && !p.empty && !p.ours)
		return il_errorf(-EPROTO, "%s is not an idlelab database (application_id 0x%08" PRIx32 ", expected 0x%08x)",
				 path, p.app_id, IL_APPLICATION_ID);
	if (p.version > latest)
		return il_errorf(-EPROTONOSUPPORT, "%s: schema version %d is newer than this idlelab (%d); upgrade idlelab",
				 path, p.version, latest);
	/* A new file is created at the latest version, never "older". */
	if ((flags & IL_STORE_NO_MIGRATE) && p.version < latest &&
	    !(create && (!p.exists || p.empty)))
		return il_errorf(-ESTALE, "%s: schema version %d is older than this idlelab (%d); run idlelab db migrate",
				 path, p.version, latest);

	s = calloc(1, sizeof(*s));
	if (!s)
		return il_errorf(-ENOMEM, "out of memory");
	s->path = strdup(path);
	s->readonly = ro;
	if (!s->path) {
		free(s);
		return il_errorf(-ENOMEM, "out of memory");
	}
	if (ro)
		oflags = SQLITE_OPEN_READONLY;
	else
		oflags = SQLITE_OPEN_READWRITE |
			 (p.exists ? 0 : SQLITE_OPEN_CREATE);
	rc = sqlite3_open_v2(path, &s->db, oflags, NULL);
	if (rc != SQLITE_OK) {
		ret = il_errorf(sql_errno(rc), "%s: cannot open: %s", path,
				s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	ret = exec(s, "PRAGMA foreign_keys = ON", "enabling foreign keys");
	if (ret)
		goto fail;
	if (!ro) {
		ret = exec(s, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL",
			   "switching to WAL");
		if (ret)
			goto fail;
	}
	if (create && p.version < latest) {
		ret = il_store_migrate(s);
		if (ret)
			goto fail;
	}
	*out = s;
	return 0;
fail:
	il_store_close(s);
	return ret;
}

int il_store_schema_version(struct il_store *s)
{
	int64_t v;
	int rc = query_i64(s->db, "PRAGMA user_version", &v);

	if (rc != SQLITE_OK)
		return sql_fail(s, rc, "reading the schema version");
	return (int)v;
}

void *il_store_db(struct il_store *s)
{
	return s->db;
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
	rc = query_i64(s->db, "PRAGMA application_id", &app);
	if (rc == SQLITE_OK)
		rc = query_i64(s->db, "SELECT count(*) FROM sqlite_master",
			       &objects);
	if (rc != SQLITE_OK)
		return sql_fail(s, rc, "reading the schema");
	/*
	 * The open-time probe already said so, but another process may have
	 * filled a new file since: never lay our tables next to foreign ones.
	 */
	if (cur == 0 ? app != 0 || objects != 0 : app != IL_APPLICATION_ID)
		return il_errorf(-EPROTO, "%s is not an idlelab database (application_id 0x%08" PRIx64 ")",
				 s->path, (uint64_t)app);
	return 0;
}

int il_store_migrate(struct il_store *s)
{
	int latest = il_store_latest_version();
	char sql[64];
	int64_t cur;
	int i, rc, ret;

	if (s->readonly)
		return il_errorf(-EROFS, "%s: opened read-only, cannot migrate",
				 s->path);
	/* The common case takes no lock at all. */
	rc = query_i64(s->db, "PRAGMA user_version", &cur);
	if (rc != SQLITE_OK)
		return sql_fail(s, rc, "reading the schema version");
	if (cur == latest)
		return 0;
	/* Cached statements may name tables a migration changes. */
	finalize_all(s);
	for (i = 0; i < il_nmigrations; i++) {
		const struct il_migration *m = &il_migrations[i];

		ret = exec(s, "BEGIN IMMEDIATE", "starting a migration");
		if (ret)
			return ret;
		rc = query_i64(s->db, "PRAGMA user_version", &cur);
		if (rc != SQLITE_OK) {
			ret = sql_fail(s, rc, "reading the schema version");
			goto rollback;
		}
		if (cur >= m->version && cur <= latest) {
			ret = exec(s, "COMMIT", "ending a migration");
			if (ret)
				goto rollback;
			continue;
		}
		ret = migration_guard(s, cur);
		if (ret)
			goto rollback;
		rc = sqlite3_exec(s->db, m->sql, NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			ret = il_errorf(sql_errno(rc), "%s: migration %s failed: %s",
					s->path, m->name, sqlite3_errmsg(s->db));
			goto rollback;
		}
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", m->version);
		ret = exec(s, sql, "setting the schema version");
		if (!ret)
			ret = exec(s, "COMMIT", "committing a migration");
		if (ret)
			goto rollback;
	}
	return 0;
rollback:
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}

static int stmt(struct il_store *s, int id, sqlite3_stmt **out)
{
	int rc;

	if (!s->st[id]) {
		rc = sqlite3_prepare_v3(s->db, stmt_sql[id], -1,
					SQLITE_PREPARE_PERSISTENT, &s->st[id],
					NULL);
		if (rc != SQLITE_OK)
			return sql_fail(s, rc, "preparing a statement");
	}
	*out = s->st[id];
	return 0;
}

/*
 * Step a bound INSERT (or BEGIN/COMMIT) to completion and make it ready
 * for the next use.  Resetting at once matters: a statement left mid-step
 * would keep the transaction's locks.
 */
static int run_stmt(struct il_store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	int ret = rc == SQLITE_DONE ? 0 : sql_fail(s, rc, what);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

/* Bind failures are rare (NOMEM, TOOBIG) but would store NULL silently. */
static int bind_fail(struct il_store *s, sqlite3_stmt *st, int rc,
		     const char *what)
{
	int ret = sql_fail(s, rc, what);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

static int b_text(sqlite3_stmt *st, int i, const char *v)
{
	return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC) :
		   sqlite3_bind_null(st, i);
}

/* Empty strings mean "none" in the fixed-size fields of counters.h. */
static int b_text_nz(sqlite3_stmt *st, int i, const char *v)
{
	return b_text(st, i, v && v[0] ? v : NULL);
}

static int b_i64(sqlite3_stmt *st, int i, int64_t v)
{
	return sqlite3_bind_int64(st, i, v);
}

static int b_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	/* Counts and ns timestamps stay far below 2^63. */
	return sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

int il_store_put_machine(struct il_store *s, const char *uuid,
			 const char *hostname, const char *fingerprint_json,
			 const char *hwloc_xml)
{
	sqlite3_stmt *st;
	int rc, ret;

	if (s->readonly)
		return il_errorf(-EROFS, "%s: opened read-only", s->path);
	if (!uuid)
		return il_errorf(-EINVAL, "machine without a UUID");
	ret = stmt(s, ST_MACHINE, &st);
	if (ret)
		return ret;
	rc = b_text(st, 1, uuid) ?:
	     b_text(st, 2, hostname ? hostname : "unknown") ?:
	     b_u64(st, 3, realtime_ns()) ?:
	     b_text(st, 4, fingerprint_json) ?:
	     b_text(st, 5, hwloc_xml);
	if (rc)
		return bind_fail(s, st, rc, "storing the machine");
	return run_stmt(s, st, "storing the machine");
}

static const char *counter_status(enum il_counter_status st)
{
	/* Kept here, not counters.c's name table, so the store links alone. */
	switch (st) {
	case IL_CNT_OK:
		return "ok";
	case IL_CNT_UNSUPPORTED:
		return "unsupported";
	case IL_CNT_UNAVAILABLE:
		return "unavailable";
	}
	return NULL;
}

static int put_run(struct il_store *s, const struct il_run_rec *r)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = stmt(s, ST_RUN, &st);
	if (ret)
		return ret;
	rc = b_text(st, 1, r->uuid) ?:
	     b_text(st, 2, r->machine_uuid) ?:
	     b_text(st, 3, r->bench) ?:
	     b_text(st, 4, r->params_json ? r->params_json : "{}") ?:
	     b_text(st, 5, r->placement) ?:
	     b_text(st, 6, r->cpus_json) ?:
	     b_text(st, 7, r->campaign) ?:
	     (r->campaign && r->plan_index >= 0 ?
		b_i64(st, 8, r->plan_index) : sqlite3_bind_null(st, 8)) ?:
	     b_text(st, 9, r->param_hash) ?:
	     b_u64(st, 10, r->start_ns) ?:
	     b_u64(st, 11, r->end_ns) ?:
	     b_text(st, 12, r->status) ?:
	     b_text(st, 13, r->status_reason) ?:
	     b_text(st, 14, r->tool_version ? r->tool_version : "unknown") ?:
	     b_text(st, 15, r->git_rev) ?:
	     b_text(st, 16, r->cmdline) ?:
	     (r->tsc_khz ? b_u64(st, 17, r->tsc_khz) : sqlite3_bind_null(st, 17));
	if (rc)
		return bind_fail(s, st, rc, "storing the run");
	return run_stmt(s, st, "storing the run");
}

static int put_env(struct il_store *s, const char *run, const char *phase,
		   const char *json)
{
	sqlite3_stmt *st;
	int rc, ret;

	if (!json)
		return 0;
	ret = stmt(s, ST_ENV, &st);
	if (ret)
		return ret;
	rc = b_text(st, 1, run) ?: b_text(st, 2, phase) ?: b_text(st, 3, json);
	if (rc)
		return bind_fail(s, st, rc, "storing the environment");
	return run_stmt(s, st, "storing the environment");
}

static int put_summary(struct il_store *s, const char *run,
		       const struct il_series *se, uint64_t dropped_raw,
		       int64_t *id)
{
	static const double pct[] = { 50, 90, 99, 99.9, 99.99 };
	const struct il_summary *sum = &se->sum;
	sqlite3_stmt *st;
	unsigned int i;
	int rc, ret;

	ret = stmt(s, ST_SUMMARY, &st);
	if (ret)
		return ret;
	rc = b_text(st, 1, run) ?:
	     b_text(st, 2, se->metric) ?:
	     b_text(st, 3, se->unit) ?:
	     b_i64(st, 4, se->cpu) ?:
	     b_i64(st, 5, se->cpu2) ?:
	     b_i64(st, 6, se->group) ?:
	     b_u64(st, 7, sum->count) ?:
	     b_u64(st, 17, sum->dropped) ?:
	     b_u64(st, 18, sum->early) ?:
	     b_u64(st, 19, dropped_raw);
	/* Unbound parameters are NULL: statistics of no samples stay NULL. */
	if (!rc && sum->count) {
		rc = b_u64(st, 8, sum->min) ?:
		     b_u64(st, 9, sum->max) ?:
		     sqlite3_bind_double(st, 10, sum->mean);
		/* One sample has no sample standard deviation. */
		if (!rc && sum->count > 1)
			rc = sqlite3_bind_double(st, 11, il_summary_stddev(sum));
		for (i = 0; !rc && i < sizeof(pct) / sizeof(pct[0]); i++)
			rc = b_u64(st, 12 + (int)i,
				   il_hist_percentile(se->hist, pct[i]));
	}
	if (rc)
		return bind_fail(s, st, rc, "storing a summary");
	ret = run_stmt(s, st, "storing a summary");
	if (!ret)
		*id = sqlite3_last_insert_rowid(s->db);
	return ret;
}

static int put_hist(struct il_store *s, int64_t id, const struct il_hist *h)
{
	sqlite3_stmt *st;
	uint8_t *buf;
	size_t len;
	int rc, ret;

	ret = il_hist_encode(h, &buf, &len);
	if (ret)
		return ret;
	ret = stmt(s, ST_HIST, &st);
	if (ret)
		goto out;
	rc = b_i64(st, 1, id) ?:
	     b_i64(st, 2, IL_HIST_LAYOUT) ?:
	     sqlite3_bind_blob64(st, 3, buf, len, SQLITE_STATIC);
	if (rc)
		ret = bind_fail(s, st, rc, "storing a histogram");
	else
		ret = run_stmt(s, st, "storing a histogram");
out:
	free(buf);
	return ret;
}

/*
 * How many raw samples fit in one BLOB: SQLite refuses a row longer than
 * SQLITE_LIMIT_LENGTH (10^9 bytes by default), which 64 M timed samples
 * exceed.  What does not fit is counted in dropped_raw like any other
 * sample that was not kept, rather than failing the whole run.
 */
static size_t raw_fit(struct il_store *s, size_t nsamples, size_t words)
{
	int64_t limit = sqlite3_limit(s->db, SQLITE_LIMIT_LENGTH, -1);
	size_t max = (size_t)(limit - 64) / (8 * words);

	return nsamples < max ? nsamples : max;
}

static int put_raw(struct il_store *s, int64_t id, const struct il_series *se,
		   size_t nsamples)
{
	size_t words = se->raw_layout == IL_RAW_TIMED ? 2 : 1;
	size_t nwords = nsamples * words, i;
	const void *blob = se->raw;
	uint64_t *le = NULL;
	sqlite3_stmt *st;
	int rc, ret;

	/*
	 * The BLOB is little-endian by definition, whatever the host.  Where
	 * the host is little-endian the samples already are that byte string
	 * and are bound in place: copying hundreds of MB would cost more than
	 * the rest of the ingest.  Elsewhere they are converted into a copy.
	 */
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) {
		le = malloc(nwords * sizeof(*le));
		if (!le)
			return il_errorf(-ENOMEM, "out of memory for %zu raw samples",
					 nsamples);
		for (i = 0; i < nwords; i++)
			le[i] = htole64(se->raw[i]);
		blob = le;
	}
	ret = stmt(s, ST_RAW, &st);
	if (ret)
		goto out;
	rc = b_i64(st, 1, id) ?:
	     b_i64(st, 2, se->raw_layout) ?:
	     b_u64(st, 3, nsamples) ?:
	     sqlite3_bind_blob64(st, 4, blob, nwords * sizeof(uint64_t),
				 SQLITE_STATIC);
	if (rc)
		ret = bind_fail(s, st, rc, "storing raw samples");
	else
		ret = run_stmt(s, st, "storing raw samples");
out:
	free(le);
	return ret;
}

static int put_series(struct il_store *s, const char *run,
		      const struct il_series *se)
{
	size_t words = se->raw_layout == IL_RAW_TIMED ? 2 : 1;
	size_t nraw = 0, keep = 0;
	int64_t id = 0;
	int ret;

	if (!se || !se->hist)
		return il_errorf(-EINVAL, "run %s: a series without a histogram",
				 run);
	if (se->keep_raw && se->raw_len) {
		nraw = se->raw_len / words;
		keep = raw_fit(s, nraw, words);
	}
	ret = put_summary(s, run, se, se->dropped_raw + (nraw - keep), &id);
	if (!ret)
		ret = put_hist(s, id, se->hist);
	if (!ret && keep)
		ret = put_raw(s, id, se, keep);
	return ret;
}

static int put_counter(struct il_store *s, const char *run,
		       const struct il_counter_result *c)
{
	const char *status = counter_status(c->status);
	sqlite3_stmt *st;
	int rc, ret;

	if (!status)
		return il_errorf(-EINVAL, "run %s: counter %s has status %d",
				 run, c->event, (int)c->status);
	ret = stmt(s, ST_COUNTER, &st);
	if (ret)
		return ret;
	rc = b_text(st, 1, run) ?:
	     b_text(st, 2, c->event) ?:
	     b_i64(st, 3, c->cpu) ?:
	     /* Not counted is not zero: no value unless ok. */
	     (c->status == IL_CNT_OK ? sqlite3_bind_double(st, 4, c->value) :
				       sqlite3_bind_null(st, 4)) ?:
	     b_text_nz(st, 5, c->unit) ?:
	     b_text(st, 6, status) ?:
	     b_text_nz(st, 7, c->reason);
	if (rc)
		return bind_fail(s, st, rc, "storing a counter");
	return run_stmt(s, st, "storing a counter");
}

static int put_attr(struct il_store *s, const char *run,
		    const struct il_run_attr *a)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = stmt(s, ST_ATTR, &st);
	if (ret)
		return ret;
	rc = b_text(st, 1, run) ?:
	     b_i64(st, 2, a->cpu) ?:
	     b_text(st, 3, a->key) ?:
	     b_text(st, 4, a->value);
	if (rc)
		return bind_fail(s, st, rc, "storing an attribute");
	return run_stmt(s, st, "storing an attribute");
}

static int save_run_body(struct il_store *s, const struct il_run_rec *r)
{
	const char *run = r->uuid;
	int i, ret;

	ret = put_run(s, r);
	if (!ret)
		ret = put_env(s, run, "before", r->env_before_json);
	if (!ret)
		ret = put_env(s, run, "after", r->env_after_json);
	if (!ret)
		ret = put_env(s, run, "delta", r->env_delta_json);
	for (i = 0; !ret && i < r->nseries; i++)
		ret = put_series(s, run, r->series[i]);
	for (i = 0; !ret && i < r->ncounters; i++)
		ret = put_counter(s, run, &r->counters[i]);
	for (i = 0; !ret && i < r->nattrs; i++)
		ret = put_attr(s, run, &r->attrs[i]);
	return ret;
}

int il_store_save_run(struct il_store *s, const struct il_run_rec *r)
{
	sqlite3_stmt *st;
	int ret;

	if (s->readonly)
		return il_errorf(-EROFS, "%s: opened read-only", s->path);
	if ((r->nseries && !r->series) || (r->ncounters && !r->counters) ||
	    (r->nattrs && !r->attrs) || r->nseries < 0 || r->ncounters < 0 ||
	    r->nattrs < 0)
		return il_errorf(-EINVAL, "run %s: inconsistent record", r->uuid);
	ret = stmt(s, ST_BEGIN, &st);
	if (!ret)
		ret = run_stmt(s, st, "starting the run's transaction");
	if (ret)
		return ret;
	ret = save_run_body(s, r);
	if (!ret)
		ret = stmt(s, ST_COMMIT, &st);
	if (!ret)
		ret = run_stmt(s, st, "committing the run");
	if (ret && !sqlite3_get_autocommit(s->db)) {
		/* The message of the first failure is kept: it is the cause. */
		if (!stmt(s, ST_ROLLBACK, &st)) {
			sqlite3_step(st);
			sqlite3_reset(st);
		}
		if (!sqlite3_get_autocommit(s->db))
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	}
	return ret;
}

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

	if (query_i64(s->db, "PRAGMA application_id", &app) != SQLITE_OK ||
	    query_i64(s->db, "PRAGMA user_version", &ver) != SQLITE_OK) {
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
