/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_internal.h - what the store's files (store_open.c, store_migrate.c,
 * store_run.c, store_series.c, store_check.c, store_damaged.c) share and
 * nothing outside them sees: the handle's layout, its prepared-statement
 * slots and the SQLite helpers (store_sql.c).
 */
#ifndef IDLELAB_STORE_INTERNAL_H
#define IDLELAB_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct il_store;

/* Long enough for another process's run transaction (a big raw BLOB). */
#define BUSY_TIMEOUT_MS		30000
/* $IDLELAB_BUSY_TIMEOUT_MS (0 to 3600000), else BUSY_TIMEOUT_MS. */
int store_busy_timeout_ms(void);
/* IDLELAB_SQL_TRACE: log each statement @db runs (developers only). */
void store_sql_trace(sqlite3 *db);

enum {
	ST_MACHINE,
	ST_RUN,
	ST_ENV,
	ST_SUMMARY,
	ST_HIST,
	ST_RAW,
	ST_COUNTER,
	ST_ATTR,
	ST_REF_MACHINE,
	ST_MACHINE_SOURCE,
	ST_HAS_RUN,
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_SAVEPOINT,
	ST_RELEASE,
	ST_COUNT
};

struct il_store {
	sqlite3 *db;
	char *path;
	bool readonly;
	bool immutable;		/* read-only through immutable=1 (store_open.c) */
	/* Prepared on first use, kept until close or a schema change. */
	sqlite3_stmt *st[ST_COUNT];
	/* The damaged runs, sorted by UUID, once scanned (store_damaged.c). */
	struct il_damaged_run *damaged;
	size_t ndamaged;
	size_t damaged_cap;
	bool damaged_scanned;
	/* The last machine row il_store_put_machine() stored, so a run this
	 * database refuses can be kept with it (store_pending.c). */
	char *machine_uuid, *machine_host, *machine_fp, *machine_xml;
};

/* The SQL of each cached statement, by its ST_ slot (store_stmts.c). */
extern const char *const store_stmt_sql[ST_COUNT];

/* An SQLite result code as -errno. */
int store_sql_errno(int rc);
/* il_errorf() with SQLite's message; before anything else uses the handle. */
int store_sql_fail(struct il_store *s, int rc, const char *what);
/* sqlite3_exec() of statements that return no rows. */
int store_exec(struct il_store *s, const char *sql, const char *what);
/* One integer from a one-row query; an SQLite result code. */
int store_query_i64(sqlite3 *db, const char *sql, int64_t *out);
/* Drop the cached statements, e.g. before a migration changes tables. */
void store_finalize_all(struct il_store *s);

/* The cached statement of slot @id in *@out, prepared on first use. */
int store_stmt(struct il_store *s, int id, sqlite3_stmt **out);
/* Step a bound INSERT (or BEGIN/COMMIT) to completion and reset it. */
int store_run_stmt(struct il_store *s, sqlite3_stmt *st, const char *what);
/* Bind failures are rare (NOMEM, TOOBIG) but would store NULL silently:
 * fail with @what, and reset. */
int store_bind_fail(struct il_store *s, sqlite3_stmt *st, int rc,
		    const char *what);
/* A statement whose binding returned @rc: refuse it, or step it. */
int store_step_bound(struct il_store *s, sqlite3_stmt *st, int rc,
		     const char *what);

/* Binding one value; NULL text stores NULL. */
static inline int store_bind_text(sqlite3_stmt *st, int i, const char *v)
{
	return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC) :
		   sqlite3_bind_null(st, i);
}

/* Empty strings mean "none" in the fixed-size fields of counters.h. */
static inline int store_bind_text_nz(sqlite3_stmt *st, int i, const char *v)
{
	return store_bind_text(st, i, v && v[0] ? v : NULL);
}

static inline int store_bind_i64(sqlite3_stmt *st, int i, int64_t v)
{
	return sqlite3_bind_int64(st, i, v);
}

static inline int store_bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	/* Counts and ns timestamps stay far below 2^63. */
	return sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

/*
 * The series of a run (store_series.c): one summaries row each, with its
 * histogram and, when kept, its raw samples; or a published summary.
 * Inside the run's transaction (store_run.c).
 */
struct il_series;
struct il_published_series;
int store_put_series(struct il_store *s, const char *run,
		     const struct il_series *se);
int store_put_published(struct il_store *s, const char *run,
			const struct il_published_series *p);

/*
 * A summary named in a finding, and every summary with its histogram:
 * columns 0-4 are SERIES_COLS, 5-7 the summary's count, min and max, 8
 * whether a histograms row exists, 9 its layout, 10 its BLOB, 11 the
 * samples dropped (those past the histogram among them, so Max may be
 * too; the total, as a file older than schema 4 has no reasons).
 */
#define SERIES_COLS	"s.run_uuid, s.metric, s.cpu, s.cpu2, s.grp"
#define STORE_HIST_SELECT						\
	"SELECT " SERIES_COLS ", s.count, s.min, s.max,"		\
	" h.summary_id IS NOT NULL, h.layout, h.blob,"			\
	" s.dropped"							\
	" FROM summaries s LEFT JOIN histograms h ON h.summary_id = s.id"
/* "metric cpu 3->5 grp 4" from SERIES_COLS at column @col of @st. */
void store_series_label(sqlite3_stmt *st, int col, char *buf, size_t len);
/*
 * db check's histogram checks of one STORE_HIST_SELECT row, from its
 * column @col (the count): each finding, in db check's words, goes to @fn.
 * Return: the number of findings, 0 for a sound histogram.
 */
int store_hist_check(sqlite3_stmt *st, int col,
		     void (*fn)(void *ctx, const char *msg), void *ctx);
/* Forget the damaged runs found (store_damaged.c); at close. */
void store_damaged_free(struct il_store *s);

#endif
