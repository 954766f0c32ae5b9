// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_open.c - opening (and refusing) a dataset file, closing it, and
 * il_sqlite_uri(), the one place a path becomes a file: URI.
 *
 * The store is split by concern: this file opens, store_migrate.c applies
 * the schema migrations, store_run.c writes runs, store_check.c is
 * `idlelab db check`, and store_sql.c holds the SQLite helpers they all
 * share (store_internal.h).
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
 *      SQLITE_OPEN_READONLY, never migrates, and stops (the main file is
 *      never written, though SQLite's WAL reader may leave our database's
 *      -wal/-shm side files); an older schema is read as it is, and the
 *      reports read what it has.  Otherwise it is read-write:
 *      journal_mode=WAL (the first write), synchronous=NORMAL, and the
 *      migrations if IL_STORE_CREATE.
 *   6. Read-only, a WAL file may still be unreadable: SQLite's WAL reader
 *      needs a -shm it can create or map, and cannot make one in a
 *      directory the user may not write (a colleague's file), on a
 *      read-only mount or on a full disk.  So the read-only handle reads
 *      sqlite_master at once; when that fails for want of a -shm and no
 *      -wal holds pending transactions, the handle is reopened with
 *      immutable=1, which reads the main file alone.  That is right only
 *      while no writer is live, and it is: a live WAL writer has a -wal
 *      (and a -shm, through which the first try would have read).  One
 *      that starts during the read may checkpoint under it, which
 *      immutable=1 cannot see (idlelab-report(1) says so).  With pending
 *      transactions in a -wal the file is refused with what to do: its
 *      main file alone is not the database.
 *
 * Every handle gets foreign_keys=ON (SQLite's default is off, per
 * connection) and a busy timeout, so two writers into one file queue up.
 * Every handle, the probe's too, is opened by store_sqlite_open().
 */
#include "store.h"
#include "err.h"
#include "progress.h"
#include "store_internal.h"
#include "store_sqlite.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What steps 1-3 of the open protocol found out about a path. */
struct probe {
	bool exists;
	bool empty;		/* zero length, or SQLite with nothing in it */
	bool ours;
	bool wal;		/* the header says WAL */
	bool wal_pending;	/* and a non-empty -wal lies beside it */
	uint32_t app_id;
	int version;
};

/*
 * Only '/' and RFC 3986 unreserved characters pass as they are; '?', '#'
 * and '%' in particular must be escaped or SQLite would read them as URI
 * syntax.  An absolute path gets an empty authority ("file:///..."), so
 * "//x" stays a path.
 */
char *il_sqlite_uri(const char *path, const char *query)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path), qlen = query ? strlen(query) : 0;
	char *u = malloc(3 * n + qlen + 16), *p;

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
	if (query)
		sprintf(p, "?%s", query);
	else
		*p = '\0';
	return u;
}

/*
 * Every connection the store opens, the probe's included, is opened here.
 * Under ASan, SQLite's lookaside allocator is turned off on it: lookaside
 * serves small allocations from a per-connection arena and takes them
 * back without free(), so a pointer kept past sqlite3_finalize() (issue
 * 20: export's column names) reads a stale slot that ASan cannot see
 * instead of freed heap it reports.  Per connection rather than
 * sqlite3_config(SQLITE_CONFIG_LOOKASIDE): that is process-wide and works
 * only before sqlite3_initialize(), which a library cannot promise of its
 * caller.  Debian's libsqlite3 is built with SQLITE_OMIT_LOOKASIDE, where
 * this changes nothing; an SQLite with lookaside (the amalgamation, other
 * distributions) needs it.  A database ATTACHed to the connection shares
 * its allocator, so merge's inputs are covered too.
 */
#if defined(__SANITIZE_ADDRESS__)
#define IL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IL_ASAN 1
#endif
#endif

/* About a millisecond of SQLite's virtual machine between calls. */
#define STORE_PROGRESS_OPS	100000

static int store_progress(void *arg)
{
	(void)arg;
	il_progress_poll();
	return 0;	/* never interrupt */
}

static int store_sqlite_open(const char *name, int flags, sqlite3 **db)
{
	int rc = sqlite3_open_v2(name, db, flags, NULL);

	if (rc == SQLITE_OK) {
		store_sql_trace(*db);
		/* Keeps a command's progress line alive through long SQL
		 * (merge, publish's copy); a no-op when there is none. */
		sqlite3_progress_handler(*db, STORE_PROGRESS_OPS,
					 store_progress, NULL);
	}

#ifdef IL_ASAN
	if (rc == SQLITE_OK)
		rc = sqlite3_db_config(*db, SQLITE_DBCONFIG_LOOKASIDE, NULL, 0, 0);
#endif
	return rc;
}

static bool nonempty_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_size > 0;
}

/* How SQLite's WAL reader fails when it cannot create or map a -shm. */
static bool shm_refused(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
	case SQLITE_FULL:
		return true;
	}
	return rc == SQLITE_IOERR_SHMOPEN || rc == SQLITE_IOERR_SHMSIZE ||
	       rc == SQLITE_IOERR_SHMMAP;
}

/* Step 6's refusal: transactions in a -wal we cannot read here. */
static int wal_unreadable(const char *path, const char *why)
{
	return il_errorf(-EROFS, "%s: cannot read it here (%s): its -wal holds transactions not yet in the file, and SQLite reads them only through a -shm it can create, which it cannot here; read it where its directory is writable, or copy the file and its -wal together into a directory you can write",
			 path, why);
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
	p->wal = wal;
	p->wal_pending = wal && nonempty_file(walpath);
	if (wal && !p->wal_pending) {
		uri = il_sqlite_uri(path, "immutable=1");
		if (!uri) {
			ret = il_errorf(-ENOMEM, "out of memory");
			goto out;
		}
		rc = store_sqlite_open(uri, SQLITE_OPEN_READONLY |
				       SQLITE_OPEN_URI, &db);
	} else {
		rc = store_sqlite_open(path, SQLITE_OPEN_READONLY, &db);
	}
	if (rc != SQLITE_OK) {
		ret = il_errorf(store_sql_errno(rc), "%s: cannot open: %s", path,
				db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		goto out;
	}
	sqlite3_busy_timeout(db, store_busy_timeout_ms());
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		if ((rc & 0xff) == SQLITE_NOTADB)
			ret = il_errorf(-EPROTO, "%s: not an SQLite database", path);
		else if (p->wal_pending && shm_refused(sqlite3_extended_errcode(db)))
			ret = wal_unreadable(path, sqlite3_errmsg(db));
		else
			ret = il_errorf(store_sql_errno(rc), "%s: cannot read: %s",
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

void il_store_remove(const char *path)
{
	char side[4200];

	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}

void il_store_close(struct il_store *s)
{
	if (!s)
		return;
	store_finalize_all(s);
	store_damaged_free(s);
	free(s->machine_uuid);
	free(s->machine_host);
	free(s->machine_fp);
	free(s->machine_xml);
	/* The last WAL connection to close checkpoints and removes -wal. */
	sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}

/* The first read of a read-only handle: an (extended) SQLite code. */
static int first_read(sqlite3 *db)
{
	int64_t n;

	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_timeout(db, store_busy_timeout_ms());
	return store_query_i64(db, "SELECT count(*) FROM sqlite_master", &n);
}

/* Steps 5 and 6 of the open protocol for IL_STORE_READONLY. */
static int open_reader(struct il_store *s, const struct probe *p)
{
	char *uri;
	int rc;

	rc = store_sqlite_open(s->path, SQLITE_OPEN_READONLY, &s->db);
	if (rc == SQLITE_OK)
		rc = first_read(s->db);
	if (rc == SQLITE_OK)
		return 0;
	if (!p->wal || !shm_refused(rc) || !s->db)
		return il_errorf(store_sql_errno(rc), "%s: cannot read: %s", s->path,
				 s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
	if (p->wal_pending)
		return wal_unreadable(s->path, sqlite3_errmsg(s->db));
	sqlite3_close_v2(s->db);
	s->db = NULL;
	uri = il_sqlite_uri(s->path, "immutable=1");
	if (!uri)
		return il_errorf(-ENOMEM, "out of memory");
	rc = store_sqlite_open(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, &s->db);
	free(uri);
	if (rc == SQLITE_OK)
		rc = first_read(s->db);
	if (rc != SQLITE_OK)
		return il_errorf(store_sql_errno(rc), "%s: cannot read: %s", s->path,
				 s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
	s->immutable = true;
	return 0;
}

char *il_store_uri(struct il_store *s)
{
	return il_sqlite_uri(s->path, s->immutable ? "immutable=1" : "mode=ro");
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
	if (ro) {
		ret = open_reader(s, &p);
		if (ret)
			goto fail;
	} else {
		oflags = SQLITE_OPEN_READWRITE |
			 (p.exists ? 0 : SQLITE_OPEN_CREATE);
		rc = store_sqlite_open(path, oflags, &s->db);
		if (rc != SQLITE_OK) {
			ret = il_errorf(store_sql_errno(rc), "%s: cannot open: %s", path,
					s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
			goto fail;
		}
		sqlite3_extended_result_codes(s->db, 1);
		sqlite3_busy_timeout(s->db, store_busy_timeout_ms());
	}
	ret = store_exec(s, "PRAGMA foreign_keys = ON", "enabling foreign keys");
	if (ret)
		goto fail;
	if (!ro) {
		ret = store_exec(s, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL",
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
	int rc = store_query_i64(s->db, "PRAGMA user_version", &v);

	if (rc != SQLITE_OK)
		return store_sql_fail(s, rc, "reading the schema version");
	return (int)v;
}

sqlite3 *il_store_db(struct il_store *s)
{
	return s->db;
}
