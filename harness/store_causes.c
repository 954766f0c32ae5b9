// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_causes.c - the rows of a --causes run (store_causes.h): one
 * savepoint holds the run (il_store_save_run(), itself nested) and its
 * causes, so either both are in the file or neither is.
 *
 * cause_totals is computed here, once, from the samples: per CPU and
 * kind the time lost over every attributed sample, plus what stayed
 * unexplained; the reports read it rather than summing millions of rows.
 */
#include "err.h"
#include "store_causes.h"
#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct total {
	int cpu;
	char kind[IL_CAUSE_KIND_MAX];
	uint64_t ns, samples;
};

static int prep(struct il_store *s, const char *sql, sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL);

	return rc == SQLITE_OK ? 0 : store_sql_fail(s, rc, "preparing a causes statement");
}

static int step(struct il_store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : store_sql_fail(s, rc, what);
}

static void bind_opt_i64(sqlite3_stmt *st, int i, bool have, int64_t v)
{
	if (have)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

static int add_total(struct total **t, size_t *n, int cpu, const char *kind,
		     uint64_t ns)
{
	struct total *x;
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*t)[i].cpu == cpu && !strcmp((*t)[i].kind, kind))
			break;
	if (i == *n) {
		x = realloc(*t, (*n + 1) * sizeof(*x));
		if (!x)
			return -ENOMEM;
		*t = x;
		memset(&x[i], 0, sizeof(x[i]));
		x[i].cpu = cpu;
		snprintf(x[i].kind, sizeof(x[i].kind), "%s", kind);
		(*n)++;
	}
	(*t)[i].ns += ns;
	(*t)[i].samples++;
	return 0;
}

static int put_capture(struct il_store *s, const char *uuid,
		       const struct il_causes_run *c)
{
	const struct il_trace *t = c->trace;
	sqlite3_stmt *st = NULL;
	int ret, i;

	ret = prep(s, "INSERT INTO trace_captures (run_uuid, status, reason, clock, buffer_kb, threshold_ns, attribution_ns) VALUES (?,?,?,?,?,?,?)",
		   &st);
	if (ret)
		return ret;
	sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, c->status ? c->status : "unavailable", -1,
			  SQLITE_STATIC);
	if (c->reason[0])
		sqlite3_bind_text(st, 3, c->reason, -1, SQLITE_STATIC);
	else if (!c->status)
		sqlite3_bind_text(st, 3, "the run was not measured", -1,
				  SQLITE_STATIC);
	if (t) {
		sqlite3_bind_text(st, 4, il_trace_clock_name(t->clock), -1,
				  SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, (int64_t)t->buffer_kb);
		sqlite3_bind_int64(st, 7, (int64_t)c->attribution_ns);
	}
	bind_opt_i64(st, 6, c->threshold_ns != 0, (int64_t)c->threshold_ns);
	ret = step(s, st, "storing the trace capture");
	sqlite3_finalize(st);
	if (ret || !t)
		return ret;
	ret = prep(s, "INSERT INTO trace_cpus (run_uuid, cpu, events, lost_events) VALUES (?,?,?,?)",
		   &st);
	for (i = 0; !ret && i < t->ncpus; i++) {
		sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, t->cpu[i].cpu);
		sqlite3_bind_int64(st, 3, (int64_t)t->cpu[i].n);
		bind_opt_i64(st, 4, t->cpu[i].lost >= 0, t->cpu[i].lost);
		ret = step(s, st, "storing a trace CPU");
	}
	sqlite3_finalize(st);
	return ret;
}

static int put_samples(struct il_store *s, const char *uuid,
		       const struct il_causes_run *c)
{
	sqlite3_stmt *ss = NULL, *sc = NULL, *stt = NULL;
	struct total *tot = NULL;
	size_t ntot = 0, k;
	int ret, j;

	ret = prep(s, "INSERT INTO cause_samples (run_uuid, metric, cpu, sample, t_ns, value_ns, idle_state, unexplained_ns) VALUES (?,?,?,?,?,?,?,?)",
		   &ss);
	if (!ret)
		ret = prep(s, "INSERT INTO causes (run_uuid, metric, cpu, sample, kind, name, dur_ns, events, share) VALUES (?,?,?,?,?,?,?,?,?)",
			   &sc);
	for (k = 0; !ret && k < c->nsamples; k++) {
		const struct il_cause_sample *w = &c->samples[k];

		sqlite3_bind_text(ss, 1, uuid, -1, SQLITE_STATIC);
		sqlite3_bind_text(ss, 2, w->series->metric, -1, SQLITE_STATIC);
		sqlite3_bind_int(ss, 3, w->cpu);
		sqlite3_bind_int64(ss, 4, (int64_t)w->index);
		sqlite3_bind_int64(ss, 5, w->t_ns);
		sqlite3_bind_int64(ss, 6, (int64_t)w->value_ns);
		bind_opt_i64(ss, 7, w->idle_state >= 0, w->idle_state);
		sqlite3_bind_int64(ss, 8, (int64_t)w->unexplained_ns);
		ret = step(s, ss, "storing a cause sample");
		for (j = 0; !ret && j < w->ncauses; j++) {
			const struct il_cause *x = &w->causes[j];

			sqlite3_bind_text(sc, 1, uuid, -1, SQLITE_STATIC);
			sqlite3_bind_text(sc, 2, w->series->metric, -1, SQLITE_STATIC);
			sqlite3_bind_int(sc, 3, w->cpu);
			sqlite3_bind_int64(sc, 4, (int64_t)w->index);
			sqlite3_bind_text(sc, 5, x->kind, -1, SQLITE_STATIC);
			sqlite3_bind_text(sc, 6, x->name, -1, SQLITE_STATIC);
			sqlite3_bind_int64(sc, 7, (int64_t)x->ns);
			sqlite3_bind_int64(sc, 8, (int64_t)x->count);
			sqlite3_bind_double(sc, 9, w->value_ns ?
					    (double)x->ns / (double)w->value_ns : 0);
			ret = step(s, sc, "storing a cause");
			if (!ret)
				ret = add_total(&tot, &ntot, w->cpu, x->kind, x->ns);
		}
		if (!ret)
			ret = add_total(&tot, &ntot, w->cpu, "unexplained",
					w->unexplained_ns);
	}
	if (!ret)
		ret = prep(s, "INSERT INTO cause_totals (run_uuid, cpu, kind, lost_ns, samples) VALUES (?,?,?,?,?)",
			   &stt);
	for (k = 0; !ret && k < ntot; k++) {
		sqlite3_bind_text(stt, 1, uuid, -1, SQLITE_STATIC);
		sqlite3_bind_int(stt, 2, tot[k].cpu);
		sqlite3_bind_text(stt, 3, tot[k].kind, -1, SQLITE_STATIC);
		sqlite3_bind_int64(stt, 4, (int64_t)tot[k].ns);
		sqlite3_bind_int64(stt, 5, (int64_t)tot[k].samples);
		ret = step(s, stt, "storing a cause total");
	}
	if (ret == -ENOMEM)
		ret = il_errorf(ret, "out of memory storing causes");
	sqlite3_finalize(ss);
	sqlite3_finalize(sc);
	sqlite3_finalize(stt);
	free(tot);
	return ret;
}

static int put_states(struct il_store *s, const char *uuid,
		      const struct il_causes_run *c)
{
	sqlite3_stmt *st = NULL;
	uint8_t *blob;
	size_t len;
	int ret, i;

	if (!c->nstates)
		return 0;
	ret = prep(s, "INSERT INTO cause_states (run_uuid, metric, unit, cpu, state, state_name, count, min, max, mean, stddev, hist) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
		   &st);
	for (i = 0; !ret && i < c->nstates; i++) {
		const struct il_cause_state *x = &c->states[i];

		ret = il_hist_encode(x->hist, &blob, &len);
		if (ret) {
			ret = il_errorf(ret, "out of memory storing idle states");
			break;
		}
		sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, x->series->metric, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, x->series->unit, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 4, x->cpu);
		bind_opt_i64(st, 5, x->state >= 0, x->state);
		sqlite3_bind_text(st, 6, x->name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 7, (int64_t)x->sum.count);
		sqlite3_bind_int64(st, 8, (int64_t)x->sum.min);
		sqlite3_bind_int64(st, 9, (int64_t)x->sum.max);
		sqlite3_bind_double(st, 10, x->sum.mean);
		sqlite3_bind_double(st, 11, il_summary_stddev(&x->sum));
		sqlite3_bind_blob(st, 12, blob, (int)len, free);
		ret = step(s, st, "storing an idle-state histogram");
	}
	sqlite3_finalize(st);
	return ret;
}

int il_store_save_run_causes(struct il_store *s, const struct il_run_rec *r,
			     const struct il_causes_run *c)
{
	int ret;

	if (!c)
		return il_store_save_run(s, r);
	if (s->readonly)
		return il_errorf(-EROFS, "%s: opened read-only", s->path);
	ret = store_exec(s, "SAVEPOINT il_causes", "starting the run's transaction");
	if (ret)
		return ret;
	ret = il_store_save_run(s, r);
	if (!ret)
		ret = put_capture(s, r->uuid, c);
	if (!ret)
		ret = put_samples(s, r->uuid, c);
	if (!ret)
		ret = put_states(s, r->uuid, c);
	if (ret) {
		sqlite3_exec(s->db, "ROLLBACK TO il_causes; RELEASE il_causes",
			     NULL, NULL, NULL);
		return ret;
	}
	return store_exec(s, "RELEASE il_causes", "committing the run");
}
