// SPDX-License-Identifier: GPL-2.0-only
/*
 * causes.c - `idlelab report --kind causes`: what the outliers of --causes
 * runs were made of, read from the tables of schemas/005_causes.sql.
 *
 * Two tables, rendered like every other kind (table.c: md, csv, json,
 * html): per run and CPU the time lost per cause kind, split as osnoise
 * splits its noise (IRQ, softirq, NMI, SMI, thread, idle; and what no
 * event explains), with the events kept and the events the ring buffer
 * lost; then per run the top outliers, each with its causes in words.
 * A capture that could not be made, and a buffer that overran, are notes
 * under the first table: never silent, never a zero.
 */
#include "analysis.h"
#include "causes.h"
#include "err.h"
#include "store.h"
#include "store_sqlite.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_N	10

/* The kinds, in column order; the plot (plot.c) stacks them so too. */
const char *const il_cause_kinds[] = {
	IL_CAUSE_IRQ, IL_CAUSE_SOFTIRQ, IL_CAUSE_NMI, IL_CAUSE_SMI,
	IL_CAUSE_THREAD, IL_CAUSE_IDLE, "unexplained", NULL,
};

static int query_fail(sqlite3 *db)
{
	return il_errorf(-EIO, "causes report query failed: %s", sqlite3_errmsg(db));
}

static const char *col(sqlite3_stmt *st, int i)
{
	const char *v = (const char *)sqlite3_column_text(st, i);

	return v ? v : "-";
}

static int totals(sqlite3 *db, const struct il_analysis_opts *o,
		  struct il_table **out)
{
	static const char sql[] =
		"SELECT substr(r.uuid, 1, 8), r.bench, tc.cpu, t.clock,"
		" (SELECT count(*) FROM cause_samples s WHERE s.run_uuid = tc.run_uuid"
		"  AND s.cpu = tc.cpu), tc.events, tc.lost_events, r.uuid"
		" FROM trace_cpus tc JOIN runs r ON r.uuid = tc.run_uuid"
		" JOIN trace_captures t ON t.run_uuid = tc.run_uuid"
		" WHERE (?1 IS NULL OR r.bench = ?1)"
		" ORDER BY r.start_ns, r.uuid, tc.cpu";
	static const char kind_sql[] =
		"SELECT lost_ns FROM cause_totals WHERE run_uuid = ?1 AND cpu = ?2"
		" AND kind = ?3";
	static const char *const cols[] = { "Run", "Benchmark", "CPU", "Clock",
		"Samples", "Events", "Lost events", "irq (µs)", "softirq (µs)",
		"nmi (µs)", "smi (µs)", "thread (µs)", "idle (µs)",
		"unexplained (µs)" };
	char cells_buf[14][32];
	const char *cells[14];
	sqlite3_stmt *st = NULL, *sk = NULL;
	struct il_table *t;
	int rc, ret = 0, i, k;

	*out = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, kind_sql, -1, &sk, NULL) != SQLITE_OK) {
		ret = query_fail(db);
		sqlite3_finalize(st);
		return ret;
	}
	sqlite3_bind_text(st, 1, o->bench, -1, SQLITE_STATIC);
	t = il_table_new("Time lost per cause (--causes runs; per run and CPU, over the attributed samples)",
			 14, cols);
	if (!t)
		ret = il_errorf(-ENOMEM, "out of memory");
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < 7; i++)
			cells[i] = col(st, i);
		if (sqlite3_column_type(st, 6) == SQLITE_NULL)
			cells[6] = "unavailable";
		for (k = 0; il_cause_kinds[k]; k++) {
			sqlite3_bind_text(sk, 1, (const char *)sqlite3_column_text(st, 7),
					  -1, SQLITE_TRANSIENT);
			sqlite3_bind_int(sk, 2, sqlite3_column_int(st, 2));
			sqlite3_bind_text(sk, 3, il_cause_kinds[k], -1, SQLITE_STATIC);
			if (sqlite3_step(sk) == SQLITE_ROW)
				snprintf(cells_buf[k], sizeof(cells_buf[k]), "%.1f",
					 (double)sqlite3_column_int64(sk, 0) / 1e3);
			else
				snprintf(cells_buf[k], sizeof(cells_buf[k]), "0");
			sqlite3_reset(sk);
			cells[7 + k] = cells_buf[k];
		}
		ret = il_table_add(t, cells);
		if (!ret && sqlite3_column_int64(st, 6) > 0)
			ret = il_table_note(t, "run %s CPU %d: lost events: %" PRId64 " (the ring buffer overran: causes may be missing; rerun with a larger --causes-buffer-kb)",
					    col(st, 0), sqlite3_column_int(st, 2),
					    (int64_t)sqlite3_column_int64(st, 6));
	}
	if (!ret && rc != SQLITE_DONE)
		ret = query_fail(db);
	sqlite3_finalize(st);
	sqlite3_finalize(sk);
	if (!ret) {
		/* The captures that could not be made, with why. */
		ret = sqlite3_prepare_v2(db, "SELECT substr(r.uuid, 1, 8), r.bench,"
					 " coalesce(t.reason, 'no reason stored')"
					 " FROM trace_captures t JOIN runs r ON r.uuid = t.run_uuid"
					 " WHERE t.status <> 'ok' AND (?1 IS NULL OR r.bench = ?1)"
					 " ORDER BY r.start_ns", -1, &st, NULL) ? query_fail(db) : 0;
		if (!ret)
			sqlite3_bind_text(st, 1, o->bench, -1, SQLITE_STATIC);
		while (!ret && sqlite3_step(st) == SQLITE_ROW)
			ret = il_table_note(t, "run %s (%s): causes unavailable: %s",
					    col(st, 0), col(st, 1), col(st, 2));
		sqlite3_finalize(st);
	}
	if (!ret && t->nrows)
		ret = il_table_note(t, "Each cause's time is its own: an IRQ inside a preempting thread's slice counts for the IRQ only. unexplained: time of the window no trace event covers (the benchmark's own work, a hypervisor, an SMI).");
	if (ret)
		il_table_free(t);
	else
		*out = t;
	return ret;
}

/* The causes of one stored sample, into @w (freed by the caller). */
static int load_causes(sqlite3 *db, sqlite3_stmt *sc, const char *run,
		       const char *metric, int cpu, int64_t sample,
		       struct il_cause_sample *w)
{
	struct il_cause *c;
	int rc;

	sqlite3_bind_text(sc, 1, run, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(sc, 2, metric, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(sc, 3, cpu);
	sqlite3_bind_int64(sc, 4, sample);
	while ((rc = sqlite3_step(sc)) == SQLITE_ROW) {
		c = realloc(w->causes, (size_t)(w->ncauses + 1) * sizeof(*c));
		if (!c) {
			sqlite3_reset(sc);
			return il_errorf(-ENOMEM, "out of memory");
		}
		w->causes = c;
		c = &c[w->ncauses++];
		memset(c, 0, sizeof(*c));
		snprintf(c->kind, sizeof(c->kind), "%s", col(sc, 0));
		snprintf(c->name, sizeof(c->name), "%s", col(sc, 1));
		c->ns = (uint64_t)sqlite3_column_int64(sc, 2);
		c->count = (uint64_t)sqlite3_column_int64(sc, 3);
	}
	sqlite3_reset(sc);
	return rc == SQLITE_DONE ? 0 : query_fail(db);
}

static int outliers(sqlite3 *db, const struct il_analysis_opts *o,
		    struct il_table **out)
{
	static const char sql[] =
		"SELECT substr(x.run_uuid, 1, 8), r.bench, x.metric, x.cpu, x.t_ns,"
		" x.value_ns, x.unexplained_ns, x.idle_state, x.run_uuid, x.sample"
		" FROM (SELECT s.*, row_number() OVER (PARTITION BY s.run_uuid"
		"  ORDER BY s.value_ns DESC) AS rk FROM cause_samples s) x"
		" JOIN runs r ON r.uuid = x.run_uuid"
		" WHERE x.rk <= ?2 AND (?1 IS NULL OR r.bench = ?1)"
		" ORDER BY r.start_ns, x.run_uuid, x.value_ns DESC";
	static const char causes_sql[] =
		"SELECT kind, name, dur_ns, events FROM causes WHERE run_uuid = ?1"
		" AND metric = ?2 AND cpu = ?3 AND sample = ?4 ORDER BY dur_ns DESC";
	static const char *const cols[] = { "Run", "Benchmark", "Metric", "CPU",
		"At (ms)", "Idle state", "Sample and its causes" };
	sqlite3_stmt *st = NULL, *sc = NULL;
	struct il_table *t;
	int rc, ret = 0;

	*out = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, causes_sql, -1, &sc, NULL) != SQLITE_OK) {
		ret = query_fail(db);
		sqlite3_finalize(st);
		return ret;
	}
	sqlite3_bind_text(st, 1, o->bench, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, TOP_N);
	t = il_table_new("Top outliers and their causes (--causes runs)", 7, cols);
	if (!t)
		ret = il_errorf(-ENOMEM, "out of memory");
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct il_cause_sample w = { 0 };
		char at[32], idle[32], words[1024];
		const char *cells[7];

		w.value_ns = (uint64_t)sqlite3_column_int64(st, 5);
		w.unexplained_ns = (uint64_t)sqlite3_column_int64(st, 6);
		ret = load_causes(db, sc, col(st, 8), col(st, 2),
				  sqlite3_column_int(st, 3),
				  sqlite3_column_int64(st, 9), &w);
		if (ret)
			break;
		il_causes_describe(&w, words, sizeof(words));
		free(w.causes);
		snprintf(at, sizeof(at), "%.3f", (double)sqlite3_column_int64(st, 4) / 1e6);
		if (sqlite3_column_type(st, 7) == SQLITE_NULL)
			snprintf(idle, sizeof(idle), "-");
		else
			snprintf(idle, sizeof(idle), "state%d", sqlite3_column_int(st, 7));
		cells[0] = col(st, 0);
		cells[1] = col(st, 1);
		cells[2] = col(st, 2);
		cells[3] = col(st, 3);
		cells[4] = at;
		cells[5] = idle;
		cells[6] = words;
		ret = il_table_add(t, cells);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = query_fail(db);
	sqlite3_finalize(st);
	sqlite3_finalize(sc);
	if (!ret && t->nrows)
		ret = il_table_note(t, "At: the window's start, ms since the run's time base. Idle state: the cpuidle state (stateN) the CPU entered inside the window, from power:cpu_idle; - where it did not idle.");
	if (ret)
		il_table_free(t);
	else
		*out = t;
	return ret;
}

int il_causes_tables(struct il_store *s)
{
	sqlite3 *db = il_store_db(s);
	sqlite3_stmt *st;
	int have = 0;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE"
			       " type = 'table' AND name = 'cause_states'", -1,
			       &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		have = sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	return have;
}

int il_report_causes(struct il_store *s, const struct il_analysis_opts *o,
		     struct il_table **tot, struct il_table **top)
{
	static const char *const none[] = { "Run" };
	sqlite3 *db = il_store_db(s);
	int ret;

	*top = NULL;
	/* A file opened read-only at an older schema has no causes tables. */
	if (!il_causes_tables(s)) {
		*tot = il_table_new("Time lost per cause (--causes runs)", 1, none);
		*top = il_table_new("Top outliers and their causes (--causes runs)", 1, none);
		if (*tot)
			il_table_note(*tot, "no --causes runs: this database's schema predates them (idlelab db migrate)");
		if (!*tot || !*top) {
			il_table_free(*tot);
			il_table_free(*top);
			*tot = *top = NULL;
			return il_errorf(-ENOMEM, "out of memory");
		}
		return 0;
	}
	ret = totals(db, o, tot);
	if (!ret) {
		ret = outliers(db, o, top);
		if (ret) {
			il_table_free(*tot);
			*tot = NULL;
		}
	}
	return ret;
}
