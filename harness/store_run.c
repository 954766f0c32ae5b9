// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_run.c - the run writer: everything a run measured goes through
 * il_store_save_run(): its row in runs, the environment snapshots, one
 * summaries row per series with the histogram (and, on request, the raw
 * samples) as BLOBs (written by store_series.c), the counter readings and
 * the benchmark's attributes.
 * Reports never re-measure; they read these tables through the views of
 * schemas/002_views.sql.  The machine rows (il_store_put_machine() and
 * its imported and reference variants) are written here too, with the
 * same prepared-statement cache.  Imports write through the same path:
 * a reference run's figures are published series, and a whole file is
 * one il_store_begin() transaction with a savepoint per run.
 *
 * Design notes
 * ------------
 * Transactions: every write is BEGIN IMMEDIATE ... COMMIT, rolled back on
 * any error.  IMMEDIATE takes the write lock before the first statement, so
 * a second writer waits in busy_timeout instead of failing with
 * SQLITE_BUSY at COMMIT after all its inserts.
 *   - Each migration is one such transaction too (store_migrate.c).
 *   - A run is one transaction (il_store_save_run()): a failure anywhere,
 *     down to the last attribute, rolls back all of it, so a dataset holds
 *     complete runs only and a killed campaign keeps every finished one.
 *   - With WAL and synchronous=NORMAL a commit is not fsync()ed; it
 *     survives a process crash, and a power loss can lose only the most
 *     recent runs, never corrupt earlier ones.
 */
#include "store.h"
#include "err.h"
#include "stats.h"
#include "store_internal.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One machine row by statement @id (see store_stmts.c for the slots). */
static int put_machine_row(struct il_store *s, int id, const char *uuid,
			   const char *hostname, const char *fingerprint_json,
			   const char *hwloc_xml, const char *source)
{
	sqlite3_stmt *st;
	int rc, ret;

	if (s->readonly)
		return il_errorf(-EROFS, "%s: opened read-only", s->path);
	if (!uuid)
		return il_errorf(-EINVAL, "machine without a UUID");
	ret = store_stmt(s, id, &st);
	if (ret)
		return ret;
	rc = store_bind_text(st, 1, uuid) ?:
	     store_bind_text(st, 2, hostname ? hostname : "unknown") ?:
	     store_bind_u64(st, 3, realtime_ns()) ?:
	     store_bind_text(st, 4, fingerprint_json) ?:
	     store_bind_text(st, 5, hwloc_xml) ?:
	     store_bind_text(st, 6, source);
	return store_step_bound(s, st, rc, "storing the machine");
}

int il_store_put_machine(struct il_store *s, const char *uuid,
			 const char *hostname, const char *fingerprint_json,
			 const char *hwloc_xml)
{
	int ret = put_machine_row(s, ST_MACHINE, uuid, hostname,
				  fingerprint_json, hwloc_xml, "local");

	if (ret)
		return ret;
	/* Best effort: without the copy a kept run has a bare machine row. */
	free(s->machine_uuid);
	free(s->machine_host);
	free(s->machine_fp);
	free(s->machine_xml);
	s->machine_uuid = strdup(uuid);
	s->machine_host = hostname ? strdup(hostname) : NULL;
	s->machine_fp = fingerprint_json ? strdup(fingerprint_json) : NULL;
	s->machine_xml = hwloc_xml ? strdup(hwloc_xml) : NULL;
	return 0;
}

int il_store_put_machine_source(struct il_store *s, const char *uuid,
				const char *hostname,
				const char *fingerprint_json,
				const char *hwloc_xml, const char *source)
{
	return put_machine_row(s, ST_MACHINE_SOURCE, uuid, hostname,
			       fingerprint_json, hwloc_xml, source);
}

int il_store_put_reference_machine(struct il_store *s, const char *uuid,
				   const char *hostname,
				   const char *fingerprint_json,
				   const char *source)
{
	return put_machine_row(s, ST_REF_MACHINE, uuid, hostname,
			       fingerprint_json, NULL, source);
}

int il_store_has_run(struct il_store *s, const char *uuid)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = store_stmt(s, ST_HAS_RUN, &st);
	if (ret)
		return ret;
	rc = store_bind_text(st, 1, uuid);
	if (rc)
		return store_bind_fail(s, st, rc, "looking up a run");
	rc = sqlite3_step(st);
	ret = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 :
	      store_sql_fail(s, rc, "looking up a run");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

static int put_run(struct il_store *s, const struct il_run_rec *r)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = store_stmt(s, ST_RUN, &st);
	if (ret)
		return ret;
	rc = store_bind_text(st, 1, r->uuid) ?:
	     store_bind_text(st, 2, r->machine_uuid) ?:
	     store_bind_text(st, 3, r->bench) ?:
	     store_bind_text(st, 4, r->params_json ? r->params_json : "{}") ?:
	     store_bind_text(st, 5, r->placement) ?:
	     store_bind_text(st, 6, r->cpus_json) ?:
	     store_bind_text(st, 7, r->campaign) ?:
	     (r->campaign && r->plan_index >= 0 ?
		store_bind_i64(st, 8, r->plan_index) : sqlite3_bind_null(st, 8)) ?:
	     store_bind_text(st, 9, r->param_hash) ?:
	     store_bind_u64(st, 10, r->start_ns) ?:
	     store_bind_u64(st, 11, r->end_ns) ?:
	     store_bind_text(st, 12, r->status) ?:
	     store_bind_text(st, 13, r->status_reason) ?:
	     store_bind_text(st, 14, r->tool_version ? r->tool_version : "unknown") ?:
	     store_bind_text(st, 15, r->git_rev) ?:
	     store_bind_text(st, 16, r->cmdline) ?:
	     (r->tsc_khz ? store_bind_u64(st, 17, r->tsc_khz) : sqlite3_bind_null(st, 17));
	return store_step_bound(s, st, rc, "storing the run");
}

static int put_env(struct il_store *s, const char *run, const char *phase,
		   const char *json)
{
	sqlite3_stmt *st;
	int rc, ret;

	if (!json)
		return 0;
	ret = store_stmt(s, ST_ENV, &st);
	if (ret)
		return ret;
	rc = store_bind_text(st, 1, run) ?: store_bind_text(st, 2, phase) ?: store_bind_text(st, 3, json);
	return store_step_bound(s, st, rc, "storing the environment");
}

static int put_counter(struct il_store *s, const char *run,
		       const struct il_counter_result *c)
{
	const char *status = il_counter_status_name(c->status);
	sqlite3_stmt *st;
	int rc, ret;

	if (!status)
		return il_errorf(-EINVAL, "run %s: counter %s has status %d",
				 run, c->event, (int)c->status);
	ret = store_stmt(s, ST_COUNTER, &st);
	if (ret)
		return ret;
	rc = store_bind_text(st, 1, run) ?:
	     store_bind_text(st, 2, c->event) ?:
	     store_bind_i64(st, 3, c->cpu) ?:
	     /* Not counted is not zero: no value unless ok. */
	     (c->status == IL_CNT_OK ? sqlite3_bind_double(st, 4, c->value) :
				       sqlite3_bind_null(st, 4)) ?:
	     store_bind_text_nz(st, 5, c->unit) ?:
	     store_bind_text(st, 6, status) ?:
	     store_bind_text_nz(st, 7, c->reason);
	return store_step_bound(s, st, rc, "storing a counter");
}

static int put_attr(struct il_store *s, const char *run,
		    const struct il_run_attr *a)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = store_stmt(s, ST_ATTR, &st);
	if (ret)
		return ret;
	rc = store_bind_text(st, 1, run) ?:
	     store_bind_i64(st, 2, a->cpu) ?:
	     store_bind_text(st, 3, a->key) ?:
	     store_bind_text(st, 4, a->value);
	return store_step_bound(s, st, rc, "storing an attribute");
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
		ret = store_put_series(s, run, r->series[i]);
	for (i = 0; !ret && i < r->npublished; i++)
		ret = store_put_published(s, run, &r->published[i]);
	for (i = 0; !ret && i < r->ncounters; i++)
		ret = put_counter(s, run, &r->counters[i]);
	for (i = 0; !ret && i < r->nattrs; i++)
		ret = put_attr(s, run, &r->attrs[i]);
	return ret;
}

/* Step a cached BEGIN/COMMIT-like statement with no bindings. */
static int exec_stmt(struct il_store *s, int id, const char *what)
{
	sqlite3_stmt *st;
	int ret = store_stmt(s, id, &st);

	return ret ? ret : store_run_stmt(s, st, what);
}

int il_store_save_run(struct il_store *s, const struct il_run_rec *r)
{
	bool nested;
	int ret;

	if (s->readonly)
		return il_errorf(-EROFS, "%s: opened read-only", s->path);
	if ((r->nseries && !r->series) || (r->ncounters && !r->counters) ||
	    (r->nattrs && !r->attrs) || (r->npublished && !r->published) ||
	    r->nseries < 0 || r->ncounters < 0 || r->nattrs < 0 ||
	    r->npublished < 0)
		return il_errorf(-EINVAL, "run %s: inconsistent record", r->uuid);
	/* Inside il_store_begin(): a savepoint keeps this run whole. */
	nested = !sqlite3_get_autocommit(s->db);
	ret = exec_stmt(s, nested ? ST_SAVEPOINT : ST_BEGIN,
			"starting the run's transaction");
	if (ret)
		return ret;
	ret = save_run_body(s, r);
	if (!ret)
		ret = exec_stmt(s, nested ? ST_RELEASE : ST_COMMIT,
				"committing the run");
	if (ret && nested) {
		/* Undo this run only; the caller's transaction goes on. */
		sqlite3_exec(s->db, "ROLLBACK TO il_run; RELEASE il_run",
			     NULL, NULL, NULL);
	} else if (ret && !sqlite3_get_autocommit(s->db)) {
		/* The message of the first failure is kept: it is the cause. */
		sqlite3_stmt *st;

		if (!store_stmt(s, ST_ROLLBACK, &st)) {
			sqlite3_step(st);
			sqlite3_reset(st);
		}
		if (!sqlite3_get_autocommit(s->db))
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	}
	return ret;
}

int il_store_begin(struct il_store *s)
{
	if (s->readonly)
		return il_errorf(-EROFS, "%s: opened read-only", s->path);
	return exec_stmt(s, ST_BEGIN, "starting a transaction");
}

int il_store_end(struct il_store *s, bool commit)
{
	int ret = 0;

	if (commit)
		ret = exec_stmt(s, ST_COMMIT, "committing");
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}
