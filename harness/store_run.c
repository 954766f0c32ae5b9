// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_run.c - the run writer: everything a run measured goes through
 * il_store_save_run(): its row in runs, the environment snapshots, one
 * summaries row per series with the histogram (and, on request, the raw
 * samples) as BLOBs, the counter readings and the benchmark's attributes.
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

#include <endian.h>
#include <errno.h>
#include <math.h>
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

static int stmt(struct il_store *s, int id, sqlite3_stmt **out)
{
	int rc;

	/* store_sql_fail() is out of sight here: never leave *out unset. */
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

/*
 * Step a bound INSERT (or BEGIN/COMMIT) to completion and make it ready
 * for the next use.  Resetting at once matters: a statement left mid-step
 * would keep the transaction's locks.
 */
static int run_stmt(struct il_store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	int ret = rc == SQLITE_DONE ? 0 : store_sql_fail(s, rc, what);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

/* Bind failures are rare (NOMEM, TOOBIG) but would store NULL silently. */
static int bind_fail(struct il_store *s, sqlite3_stmt *st, int rc,
		     const char *what)
{
	int ret = store_sql_fail(s, rc, what);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

/* A statement whose binding returned @rc: refuse it, or step it. */
static int step_bound(struct il_store *s, sqlite3_stmt *st, int rc,
		      const char *what)
{
	return rc ? bind_fail(s, st, rc, what) : run_stmt(s, st, what);
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
	ret = stmt(s, id, &st);
	if (ret)
		return ret;
	rc = b_text(st, 1, uuid) ?:
	     b_text(st, 2, hostname ? hostname : "unknown") ?:
	     b_u64(st, 3, realtime_ns()) ?:
	     b_text(st, 4, fingerprint_json) ?:
	     b_text(st, 5, hwloc_xml) ?:
	     b_text(st, 6, source);
	return step_bound(s, st, rc, "storing the machine");
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

	ret = stmt(s, ST_HAS_RUN, &st);
	if (ret)
		return ret;
	rc = b_text(st, 1, uuid);
	if (rc)
		return bind_fail(s, st, rc, "looking up a run");
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
	return step_bound(s, st, rc, "storing the run");
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
	return step_bound(s, st, rc, "storing the environment");
}

/*
 * One summaries row, whichever way its figures were obtained: measured
 * (put_series) or published (put_published).  Statistics not known are
 * left unbound, which stores NULL rather than a fake 0.
 */
struct summary_row {
	const char *metric, *unit;
	int cpu, cpu2;
	int64_t grp;
	uint64_t count, dropped, early, dropped_raw;
	const uint64_t *drop;		/* by reason, IL_DROP_NREASONS;
					 * NULL: not known, stored as NULL */
	bool has_stats;			/* min, max and mean */
	uint64_t min, max;
	double mean;
	bool has_stddev;
	double stddev;
	int npct;			/* p50, p90, p99, p99.9, p99.99 known */
	uint64_t pct[5];
};

static int put_summary_row(struct il_store *s, const char *run,
			   const struct summary_row *row, int64_t *id)
{
	sqlite3_stmt *st;
	int i, rc, ret;

	ret = stmt(s, ST_SUMMARY, &st);
	if (ret)
		return ret;
	rc = b_text(st, 1, run) ?:
	     b_text(st, 2, row->metric) ?:
	     b_text(st, 3, row->unit) ?:
	     b_i64(st, 4, row->cpu) ?:
	     b_i64(st, 5, row->cpu2) ?:
	     b_i64(st, 6, row->grp) ?:
	     b_u64(st, 7, row->count) ?:
	     b_u64(st, 17, row->dropped) ?:
	     b_u64(st, 18, row->early) ?:
	     b_u64(st, 19, row->dropped_raw);
	for (i = 0; !rc && row->drop && i < IL_DROP_NREASONS; i++)
		rc = b_u64(st, 20 + i, row->drop[i]);
	if (!rc && row->has_stats)
		rc = b_u64(st, 8, row->min) ?:
		     b_u64(st, 9, row->max) ?:
		     sqlite3_bind_double(st, 10, row->mean);
	if (!rc && row->has_stddev)
		rc = sqlite3_bind_double(st, 11, row->stddev);
	for (i = 0; !rc && i < row->npct; i++)
		rc = b_u64(st, 12 + i, row->pct[i]);
	ret = step_bound(s, st, rc, "storing a summary");
	if (!ret)
		*id = sqlite3_last_insert_rowid(s->db);
	return ret;
}

static int percentiles_of(const struct il_series *se, const double *pct,
			  int n, uint64_t *out);

/*
 * The stored percentiles of one run's series: exact order statistics
 * where every sample was kept raw (issue 22: the bucket's top had stood
 * for them), else the bucket midpoint clamped to the exact Min and Max.
 * Samples dropped for range (a cyclictest import's overflow) rank above
 * every recorded one (il_pct_over()): a percentile whose rank falls among
 * them is not known, only "above the histogram", and is left out: the
 * return is how many of @pct (ascending) are known, the rest stay NULL.
 */
static int exact_percentiles(const struct il_series *se, const double *pct,
			     int n, uint64_t *out)
{
	uint64_t over = se->sum.drop_split ? se->sum.drop[IL_DROP_RANGE] : 0;
	double p[8];
	int known;

	for (known = 0; known < n && known < 8; known++) {
		p[known] = pct[known];
		if (!il_pct_over(se->sum.count, over, &p[known]))
			break;
	}
	return percentiles_of(se, p, known, out);
}

/* Percentiles @pct of @se: from its raw samples if all kept, else its
 * histogram. */
static int percentiles_of(const struct il_series *se, const double *pct,
			  int n, uint64_t *out)
{
	size_t k, nv = se->raw_layout == IL_RAW_TIMED ? se->raw_len / 2 : se->raw_len;
	uint64_t *v = NULL;
	int i;

	/* Only when the raw samples are the histogram's samples, all of them. */
	if (se->raw && nv && nv == se->sum.count && !se->dropped_raw)
		v = malloc(nv * sizeof(*v));
	for (k = 0; v && k < nv; k++)
		v[k] = se->raw_layout == IL_RAW_TIMED ? se->raw[2 * k + 1] : se->raw[k];
	for (i = 0; i < n; i++)
		out[i] = v ? il_percentile_exact(v, nv, pct[i]) :
		     il_hist_percentile_in(se->hist, pct[i], se->sum.min,
					   se->sum.max);
	free(v);
	return n;
}

static int put_summary(struct il_store *s, const char *run,
		       const struct il_series *se, uint64_t dropped_raw,
		       int64_t *id)
{
	static const double pct[] = { 50, 90, 99, 99.9, 99.99 };
	const struct il_summary *sum = &se->sum;
	struct summary_row row = {
		.metric = se->metric, .unit = se->unit,
		.cpu = se->cpu, .cpu2 = se->cpu2, .grp = se->group,
		.count = sum->count, .dropped = sum->dropped,
		.early = sum->early, .dropped_raw = dropped_raw,
	};
	uint64_t split = 0;
	int i;

	/* The split is stored only where it accounts for the total: a
	 * caller that counted sum.dropped by hand left it unknown. */
	for (i = 0; i < IL_DROP_NREASONS; i++)
		split += sum->drop[i];
	if (sum->drop_split && split == sum->dropped)
		row.drop = sum->drop;

	/* Statistics of no samples stay NULL. */
	if (sum->count) {
		row.has_stats = true;
		row.min = sum->min;
		row.max = sum->max;
		row.mean = sum->mean;
		/* One sample has no sample standard deviation. */
		row.has_stddev = sum->count > 1;
		row.stddev = row.has_stddev ? il_summary_stddev(sum) : 0;
		row.npct = exact_percentiles(se, pct,
					     (int)(sizeof(pct) / sizeof(pct[0])),
					     row.pct);
	}
	return put_summary_row(s, run, &row, id);
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
	ret = step_bound(s, st, rc, "storing a histogram");
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
	ret = step_bound(s, st, rc, "storing raw samples");
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
	const char *status = il_counter_status_name(c->status);
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
	return step_bound(s, st, rc, "storing a counter");
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
	return step_bound(s, st, rc, "storing an attribute");
}

/*
 * A summary known only from its published figures: the percentiles past
 * the median stay NULL, and its histogram is the caller's placeholder.
 */
static int put_published(struct il_store *s, const char *run,
			 const struct il_published_series *p)
{
	static const uint64_t none[IL_DROP_NREASONS];
	struct summary_row row = {
		.metric = p->metric, .unit = p->unit,
		.cpu = -1, .cpu2 = -1, .grp = -1, .count = p->count,
		.has_stats = true, .min = p->min, .max = p->max,
		.mean = p->mean,
		.has_stddev = !isnan(p->stddev), .stddev = p->stddev,
		.npct = 1, .pct = { p->median },
		.drop = none,		/* dropped is 0 */
	};
	int64_t id;
	int ret;

	if (!p->metric || !p->unit || !p->hist)
		return il_errorf(-EINVAL, "run %s: a published series needs metric, unit and histogram",
				 run);
	ret = put_summary_row(s, run, &row, &id);
	return ret ? ret : put_hist(s, id, p->hist);
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
	for (i = 0; !ret && i < r->npublished; i++)
		ret = put_published(s, run, &r->published[i]);
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
	int ret = stmt(s, id, &st);

	return ret ? ret : run_stmt(s, st, what);
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

		if (!stmt(s, ST_ROLLBACK, &st)) {
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
