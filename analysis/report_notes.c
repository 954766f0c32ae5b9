// SPDX-License-Identifier: GPL-2.0-only
/*
 * report_notes.c - the lists under the results table (report_notes.h).
 * A flagged run stays in the table: its samples are real, but what they
 * measured may not be the idle or IPI cost alone, so the flag is printed
 * beside the figures rather than hidden or silently dropped.
 */
#include "err.h"
#include "machine_label.h"
#include "report_notes.h"

#include <string.h>

/*
 * The rows of @sql, a query filtered by --run (?1) and --bench (?2), as
 * objects named by @keys: text columns, the last one an integer count.
 * Return: the array, or NULL when the query could not be prepared.
 */
static json_t *count_rows(sqlite3 *db, const char *sql,
			  const struct il_report_opts *o,
			  const char *const *keys)
{
	sqlite3_stmt *st;
	json_t *a, *row;
	int i, n = 0;

	while (keys[n])
		n++;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, o->run_uuid, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, o->bench, -1, SQLITE_STATIC);
	a = json_array();
	while (sqlite3_step(st) == SQLITE_ROW) {
		row = json_object();
		for (i = 0; i < n; i++)
			json_object_set_new(row, keys[i],
				sqlite3_column_type(st, i) == SQLITE_INTEGER ?
				json_integer(sqlite3_column_int64(st, i)) :
				json_string((const char *)sqlite3_column_text(st, i)));
		json_array_append_new(a, row);
	}
	sqlite3_finalize(st);
	return a;
}

/* Runs and counters that could not be measured, with their reasons. */
static int not_measured(sqlite3 *db, const struct il_report_opts *o,
			json_t **runs_out, json_t **cnt_out)
{
	static const char runs_sql[] =
		"SELECT " IL_MACHINE_LABEL_M ", r.bench, r.status, coalesce(r.status_reason, ''), count(*), "
		"sum((SELECT coalesce(sum(s.count), 0) FROM summaries s WHERE s.run_uuid = r.uuid)) "
		"FROM runs r JOIN machines m ON m.uuid = r.machine_uuid "
		"WHERE r.status NOT IN ('ok') AND (?1 IS NULL OR r.uuid = ?1) "
		"AND (?2 IS NULL OR r.bench = ?2) "
		"GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4";
	static const char cnt_sql[] =
		"SELECT " IL_MACHINE_LABEL_M ", group_concat(DISTINCT r.bench), c.event, c.status, "
		"coalesce(c.reason, ''), count(DISTINCT r.uuid) "
		"FROM counters c JOIN runs r ON r.uuid = c.run_uuid "
		"JOIN machines m ON m.uuid = r.machine_uuid "
		"WHERE c.status <> 'ok' AND (?1 IS NULL OR r.uuid = ?1) "
		"AND (?2 IS NULL OR r.bench = ?2) "
		"GROUP BY 1, c.event, c.status, c.reason ORDER BY 1, 3";
	static const char *const runs_keys[] = {
		"machine", "benchmark", "status", "reason", "runs", "samples", NULL
	};
	static const char *const cnt_keys[] = {
		"machine", "benchmarks", "event", "status", "reason", "runs", NULL
	};

	*runs_out = count_rows(db, runs_sql, o, runs_keys);
	*cnt_out = *runs_out ? count_rows(db, cnt_sql, o, cnt_keys) : NULL;
	if (!*cnt_out)
		return il_errorf(-EIO, "report query failed: %s", sqlite3_errmsg(db));
	return 0;
}

/*
 * @rows as a Markdown table after "@title:" and the header lines @head,
 * one column per name in @keys: an integer as a number, anything else as
 * its string.
 */
static void print_rows_md(FILE *out, const char *title, const char *head,
			  json_t *rows, const char *const *keys)
{
	size_t i;
	json_t *v, *c;
	int k;

	if (!json_array_size(rows))
		return;
	fprintf(out, "\n%s:\n\n%s", title, head);
	json_array_foreach(rows, i, v) {
		for (k = 0; keys[k]; k++) {
			c = json_object_get(v, keys[k]);
			if (json_is_integer(c))
				fprintf(out, "| %d ", (int)json_integer_value(c));
			else
				fprintf(out, "| %s ", json_string_value(c));
		}
		fputs("|\n", out);
	}
}

static void print_not_measured_md(json_t *runs, json_t *cnts, FILE *out)
{
	static const char *const runs_cols[] = {
		"machine", "benchmark", "status", "runs", "samples", "reason", NULL
	};
	static const char *const cnt_cols[] = {
		"machine", "event", "status", "runs", "reason", "benchmarks", NULL
	};

	print_rows_md(out, "Not measured",
		      "| Machine | Benchmark | Status | Runs | Samples | Reason |\n|---|---|---|---:|---:|---|\n",
		      runs, runs_cols);
	print_rows_md(out, "Counters not counted",
		      "| Machine | Event | Status | Runs | Reason | Benchmarks |\n|---|---|---|---:|---|---|\n",
		      cnts, cnt_cols);
}

/* Runs whose conditions were not the ones the figures assume. */
static json_t *flagged_runs(sqlite3 *db, const struct il_report_opts *o)
{
	static const char sql[] =
		"SELECT " IL_MACHINE_LABEL_M ", substr(r.uuid, 1, 8), r.bench, a.cpu, a.key, a.value "
		"FROM run_attrs a JOIN runs r ON r.uuid = a.run_uuid "
		"JOIN machines m ON m.uuid = r.machine_uuid "
		"WHERE a.key IN ('thermal_throttle_rose', 'not_stationary', 'tsc_unstable_during_run') AND (?1 IS NULL OR r.uuid = ?1) "
		"AND (?2 IS NULL OR r.bench = ?2) ORDER BY 1, r.start_ns, a.cpu";
	static const char *const keys[] = {
		"machine", "run", "benchmark", "cpu", "flag", "detail", NULL
	};

	return count_rows(db, sql, o, keys);
}

/*
 * Runs on a hypervisor-tagged machine, per machine and hypervisor: one
 * line each rather than every run, since on such a machine every run is.
 */
static json_t *hypervisor_runs(sqlite3 *db, const struct il_report_opts *o)
{
	static const char sql[] =
		"SELECT " IL_MACHINE_LABEL_M ", a.value, count(DISTINCT r.uuid) "
		"FROM run_attrs a JOIN runs r ON r.uuid = a.run_uuid "
		"JOIN machines m ON m.uuid = r.machine_uuid "
		"WHERE a.key = 'under_hypervisor' AND (?1 IS NULL OR r.uuid = ?1) "
		"AND (?2 IS NULL OR r.bench = ?2) GROUP BY 1, 2 ORDER BY 1, 2";
	static const char *const keys[] = {
		"machine", "hypervisor", "runs", NULL
	};

	return count_rows(db, sql, o, keys);
}

int report_notes_read(sqlite3 *db, const struct il_report_opts *o,
		      struct report_notes *n)
{
	int ret = not_measured(db, o, &n->runs, &n->counters);

	if (ret)
		return ret;
	n->flagged = flagged_runs(db, o);
	n->hypervisor = n->flagged ? hypervisor_runs(db, o) : NULL;
	if (!n->hypervisor)
		return il_errorf(-EIO, "report query failed: %s", sqlite3_errmsg(db));
	return 0;
}

void report_notes_md(const struct report_notes *n, FILE *out)
{
	static const char *const flag_cols[] = {
		"machine", "run", "benchmark", "cpu", "flag", "detail", NULL
	};
	static const char *const hyp_cols[] = {
		"machine", "hypervisor", "runs", NULL
	};

	print_not_measured_md(n->runs, n->counters, out);
	print_rows_md(out, "Flagged runs (in the table above, but measured under conditions that can move the figures: thermal_throttle_rose, the CPU was slowed by heat during the run; not_stationary, the first and last tenth of a series' samples, at most 1024 at each end, have middle halves that do not overlap; tsc_unstable_during_run, the kernel marked the TSC unstable while the run measured)",
		      "| Machine | Run | Benchmark | CPU | Flag | Detail |\n|---|---|---|---:|---|---|\n",
		      n->flagged, flag_cols);
	print_rows_md(out, "Runs under a hypervisor (CPUID.1:ECX[31] set: a trapped instruction costs the host's time, and a WBINVD or MWAIT the host ignores is a no-op; the idlelab_cstate runs record the calibrated threshold below which they count one, noop_threshold_cycles)",
		      "| Machine | Hypervisor | Runs |\n|---|---|---:|\n",
		      n->hypervisor, hyp_cols);
}

void report_notes_free(struct report_notes *n)
{
	json_decref(n->runs);
	json_decref(n->counters);
	json_decref(n->flagged);
	json_decref(n->hypervisor);
	memset(n, 0, sizeof(*n));
}
