// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_sql.c - the SQLite helpers the store's files share
 * (store_internal.h): the busy timeout every handle gets, SQLite result
 * codes as -errno and as il_errorf() messages, statements run once, the
 * cache of prepared statements that the writers (store_run.c,
 * store_series.c) bind and step, and dropping it.  They live apart from
 * store_open.c so that opening (which migrates) and store_migrate.c (which
 * runs SQL) both call down into this file instead of into each other.
 */
#include "err.h"
#include "store_internal.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * How long a statement waits for another writer's lock.  The variable is
 * for a lab whose shared database sees long writers, and for tests that
 * must see a refusal without waiting 30 s; a value that is not a whole
 * number of ms in range is ignored with a warning, once.
 */
int store_busy_timeout_ms(void)
{
	static int warned;
	const char *v = getenv("IDLELAB_BUSY_TIMEOUT_MS");
	char *end;
	long ms;

	if (!v || !*v)
		return BUSY_TIMEOUT_MS;
	errno = 0;
	ms = strtol(v, &end, 10);
	if (!errno && !*end && ms >= 0 && ms <= 3600000)
		return (int)ms;
	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		fprintf(stderr, "idlelab: warning: IDLELAB_BUSY_TIMEOUT_MS '%s' is not a number of ms from 0 to 3600000; using %d\n",
			v, BUSY_TIMEOUT_MS);
	return BUSY_TIMEOUT_MS;
}

/*
 * IDLELAB_SQL_TRACE=FILE appends every statement a handle runs to FILE,
 * one JSON string a line, as prepared (parameters unexpanded).  It is for
 * developers checking query plans (tools/query-plans.sh runs each
 * statement a report made under EXPLAIN QUERY PLAN); nothing reads it in
 * normal use.  One file for the process, opened on first use.
 */
static FILE *sql_trace_file;
static pthread_once_t sql_trace_once = PTHREAD_ONCE_INIT;

/*
 * Only a new file, or one that already holds a trace (its first byte the
 * '"' of a JSON string), is appended to: a trace path that names a
 * database or any other file must never write into it.
 */
static void sql_trace_open(void)
{
	const char *path = getenv("IDLELAB_SQL_TRACE");
	FILE *f;
	int c;

	if (!path || !*path)
		return;
	f = fopen(path, "re");
	if (f) {
		c = fgetc(f);
		fclose(f);
		if (c != EOF && c != '"') {
			fprintf(stderr, "idlelab: warning: IDLELAB_SQL_TRACE '%s' is not a trace; not writing to it\n",
				path);
			return;
		}
	}
	sql_trace_file = fopen(path, "ae");
	if (!sql_trace_file)
		fprintf(stderr, "idlelab: warning: IDLELAB_SQL_TRACE '%s': %s\n",
			path, strerror(errno));
}

static int sql_trace_stmt(unsigned int what, void *ctx, void *p, void *x)
{
	const char *sql = sqlite3_sql(p);
	json_t *j;
	char *line;

	(void)what;
	(void)ctx;
	(void)x;
	if (!sql)
		return 0;
	j = json_string(sql);
	line = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	if (line) {
		flockfile(sql_trace_file);
		fprintf(sql_trace_file, "%s\n", line);
		fflush(sql_trace_file);
		funlockfile(sql_trace_file);
	}
	free(line);
	json_decref(j);
	return 0;
}

void store_sql_trace(sqlite3 *db)
{
	pthread_once(&sql_trace_once, sql_trace_open);
	if (sql_trace_file)
		sqlite3_trace_v2(db, SQLITE_TRACE_STMT, sql_trace_stmt, NULL);
}

int store_sql_errno(int rc)
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
int store_sql_fail(struct il_store *s, int rc, const char *what)
{
	return il_errorf(store_sql_errno(rc), "%s: %s: %s", s->path, what,
			 sqlite3_errmsg(s->db));
}

int store_exec(struct il_store *s, const char *sql, const char *what)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : store_sql_fail(s, rc, what);
}

/* One integer from a one-row query, e.g. a PRAGMA. */
int store_query_i64(sqlite3 *db, const char *sql, int64_t *out)
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

void store_finalize_all(struct il_store *s)
{
	int i;

	for (i = 0; i < ST_COUNT; i++) {
		sqlite3_finalize(s->st[i]);
		s->st[i] = NULL;
	}
}

int store_stmt(struct il_store *s, int id, sqlite3_stmt **out)
{
	int rc;

	/* The caller may not look at the return: never leave *out unset. */
	*out = NULL;
	if (!s->st[id]) {
		rc = sqlite3_prepare_v3(s->db, store_stmt_sql[id], -1,
					SQLITE_PREPARE_PERSISTENT, &s->st[id],
					NULL);
		if (rc != SQLITE_OK)
			return store_sql_fail(s, rc, "preparing a statement");
	}
	*out = s->st[id];
	return 0;
}

/* Resetting at once matters: a statement left mid-step would keep the
 * transaction's locks. */
int store_run_stmt(struct il_store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	int ret = rc == SQLITE_DONE ? 0 : store_sql_fail(s, rc, what);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

int store_bind_fail(struct il_store *s, sqlite3_stmt *st, int rc,
		    const char *what)
{
	int ret = store_sql_fail(s, rc, what);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

int store_step_bound(struct il_store *s, sqlite3_stmt *st, int rc,
		     const char *what)
{
	return rc ? store_bind_fail(s, st, rc, what) :
		    store_run_stmt(s, st, what);
}
