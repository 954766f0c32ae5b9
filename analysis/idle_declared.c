// SPDX-License-Identifier: GPL-2.0-only
/*
 * idle_declared.c - `report --kind declared` (issue 24): per machine,
 * wake source and idle state, what cpuidle declares (sysfs latency and
 * target residency, from the stored fingerprint) beside what idle_sweep
 * measured for the samples that entered that state alone: p50, p99 and
 * p99.99 with distribution-free 95 % confidence intervals (order
 * statistics, advise.h), and the measured target residency, the shortest
 * idle time d at which most samples entered the state.
 *
 * Flags: a p99 above IL_DECLARED_FACTOR times the declared latency; a
 * measured residency below the declared one (the governor enters the
 * state sooner than its table says pays off); and, below the table, a
 * declared table that differs between two machines of one CPU model on
 * different kernels (intel_idle's tables change between releases).  A
 * figure that cannot be given is "-" with the reason in a note, never 0.
 */
#include "advise.h"
#include "analysis.h"
#include "err.h"
#include "machine_label.h"
#include "stats.h"
#include "store.h"
#include "store_sqlite.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A state's measured p99 above this many times its declared latency. */
#define IL_DECLARED_FACTOR	2
#define MAX_D			64

struct dcl_block {
	char uuid[37], host[128], kernel[96], model[96], wake[16];
	char table[512];		/* the declared table, to compare */
	char why[256];			/* no states: why */
	int nstates;
	struct il_adv_state st[IL_ADV_MAX_STATES];
	struct il_hist *h[IL_ADV_MAX_STATES];
	int nd;
	int64_t d[MAX_D];
	uint64_t total[MAX_D];
	uint64_t in[MAX_D][IL_ADV_MAX_STATES];
};

static int d_slot(struct dcl_block *b, int64_t d)
{
	int i;

	for (i = 0; i < b->nd; i++)
		if (b->d[i] == d)
			return i;
	if (b->nd == MAX_D)
		return -1;
	b->d[b->nd] = d;
	return b->nd++;
}

/* "p [lo, hi]" in us for quantile @q of @h, or "-" when too few. */
static void quantile_cell(const struct il_hist *h, double q, char *buf,
			  size_t len)
{
	uint64_t n = h ? il_hist_count(h) : 0, u, l;

	if (!n) {
		snprintf(buf, len, "-");
		return;
	}
	/* Two-sided 95 %: 97.5 % on each side; the lower rank mirrors the
	 * upper one of the complementary quantile. */
	u = il_quantile_ucb_rank(n, q, 0.975);
	l = il_quantile_ucb_rank(n, 1 - q, 0.975);
	if (!u || !l) {
		snprintf(buf, len, "%.1f [too few]",
			 (double)il_hist_percentile(h, q * 100) / 1000);
		return;
	}
	snprintf(buf, len, "%.1f [%.1f, %.1f]",
		 (double)il_hist_percentile(h, q * 100) / 1000,
		 (double)il_adv_hist_rank(h, n + 1 - l, false) / 1000,
		 (double)il_adv_hist_rank(h, u, true) / 1000);
}

static void block_init(struct dcl_block *b, sqlite3_stmt *st)
{
	json_t *fp;
	char drv[64];
	size_t len = 0;
	int k;

	memset(b, 0, sizeof(*b));
	snprintf(b->uuid, sizeof(b->uuid), "%s", sqlite3_column_text(st, 0));
	snprintf(b->host, sizeof(b->host), "%s", sqlite3_column_text(st, 1));
	snprintf(b->wake, sizeof(b->wake), "%s", sqlite3_column_text(st, 3));
	fp = json_loads((const char *)sqlite3_column_text(st, 2), 0, NULL);
	snprintf(b->kernel, sizeof(b->kernel), "%s",
		 json_string_value(json_object_get(json_object_get(fp, "kernel"),
						   "release")) ?: "unknown");
	snprintf(b->model, sizeof(b->model), "%s",
		 json_string_value(json_object_get(json_object_get(fp, "cpu"),
						   "brand")) ?: "unknown");
	b->nstates = il_adv_states_from_fingerprint(fp, b->st,
						    IL_ADV_MAX_STATES, drv,
						    sizeof(drv), b->why,
						    sizeof(b->why));
	json_decref(fp);
	for (k = 0; k < b->nstates && len < sizeof(b->table); k++)
		len += (size_t)snprintf(b->table + len, sizeof(b->table) - len,
					"%s %" PRId64 "/%" PRId64 " us; ",
					b->st[k].name, b->st[k].latency_us,
					b->st[k].residency_us);
}

static int block_rows(struct dcl_block *b, struct il_table *t)
{
	char lat[24], res[24], n[24], q[3][64], mres[32], flags[160];
	const char *cells[12];
	int k, j, ret = 0;

	if (!b->nstates)
		ret = il_table_note(t, "%s (wake=%s): no rows: no cpuidle states (%s), so no sample has a known idle state; only the per-d wake latency was measured.",
				    b->host, b->wake, b->why);

	for (k = 0; k < b->nstates && !ret; k++) {
		const struct il_adv_state *s = &b->st[k];
		uint64_t cnt = b->h[k] ? il_hist_count(b->h[k]) : 0;
		int64_t m = -1;

		snprintf(lat, sizeof(lat), s->latency_us < 0 ? "unknown" : "%" PRId64, s->latency_us);
		snprintf(res, sizeof(res), s->residency_us < 0 ? "unknown" : "%" PRId64, s->residency_us);
		snprintf(n, sizeof(n), "%" PRIu64, cnt);
		quantile_cell(b->h[k], 0.5, q[0], sizeof(q[0]));
		quantile_cell(b->h[k], 0.99, q[1], sizeof(q[1]));
		quantile_cell(b->h[k], 0.9999, q[2], sizeof(q[2]));
		/* The shortest d at which most samples entered this state. */
		for (j = 0; j < b->nd; j++)
			if (b->total[j] && 2 * b->in[j][k] > b->total[j] &&
			    (m < 0 || b->d[j] < m))
				m = b->d[j];
		snprintf(mres, sizeof(mres), m < 0 ? "-" : "%" PRId64, m);
		flags[0] = '\0';
		if (cnt && s->latency_us > 0 &&
		    il_hist_percentile(b->h[k], 99) >
		    (uint64_t)s->latency_us * 1000 * IL_DECLARED_FACTOR)
			snprintf(flags, sizeof(flags), "p99 > %dx declared latency",
				 IL_DECLARED_FACTOR);
		if (m >= 0 && s->residency_us > 0 && m < s->residency_us)
			snprintf(flags + strlen(flags), sizeof(flags) - strlen(flags),
				 "%sentered below declared residency",
				 flags[0] ? "; " : "");
		cells[0] = b->host;
		cells[1] = b->kernel;
		cells[2] = b->wake;
		cells[3] = s->name;
		cells[4] = lat;
		cells[5] = res;
		cells[6] = n;
		cells[7] = q[0];
		cells[8] = q[1];
		cells[9] = q[2];
		cells[10] = mres;
		cells[11] = flags[0] ? flags : "-";
		ret = il_table_add(t, cells);
	}
	for (k = 0; k < IL_ADV_MAX_STATES; k++)
		il_hist_free(b->h[k]);
	return ret;
}

/* Add one summary row (metric, grp, blob at columns 4-6) to @b. */
static int block_add(struct dcl_block *b, sqlite3_stmt *st)
{
	const char *metric = (const char *)sqlite3_column_text(st, 4);
	int64_t d = sqlite3_column_int64(st, 5);
	struct il_hist *h = NULL;
	int k, slot, ret;

	ret = il_hist_decode(sqlite3_column_blob(st, 6),
			     (size_t)sqlite3_column_bytes(st, 6), &h);
	if (ret)
		return ret;
	slot = d_slot(b, d);
	if (!strcmp(metric, "wake_latency")) {
		if (slot >= 0)
			b->total[slot] += il_hist_count(h);
		il_hist_free(h);
		return 0;
	}
	k = strncmp(metric, "wake_latency_in_", 16) ? -1 :
	    il_adv_state_index(b->st, b->nstates, metric + 16);
	if (k < 0) {
		il_hist_free(h);
		return 0;
	}
	if (slot >= 0)
		b->in[slot][k] += il_hist_count(h);
	if (!b->h[k]) {
		b->h[k] = h;
		return 0;
	}
	ret = il_hist_merge(b->h[k], h);
	il_hist_free(h);
	return ret;
}

/* Notes on declared tables that differ for one CPU model. */
static int table_changes(struct il_table *t, struct dcl_block *seen, int n)
{
	int i, j, ret = 0;

	for (i = 0; i < n && !ret; i++)
		for (j = 0; j < i && !ret; j++)
			if (!strcmp(seen[i].model, seen[j].model) &&
			    strcmp(seen[i].kernel, seen[j].kernel) &&
			    strcmp(seen[i].table, seen[j].table))
				ret = il_table_note(t, "Declared table changed for %s: kernel %s (%s: %s) against kernel %s (%s: %s).",
						    seen[i].model, seen[j].kernel,
						    seen[j].host, seen[j].table,
						    seen[i].kernel, seen[i].host,
						    seen[i].table);
	return ret;
}

int il_report_declared(struct il_store *s, const struct il_analysis_opts *o,
		       struct il_table **out)
{
	static const char sql[] =
		"SELECT m.uuid, " IL_MACHINE_LABEL_M ", m.fingerprint,"
		" coalesce(json_extract(r.params, '$.wake'), '?'),"
		" s.metric, s.grp, h.blob"
		" FROM summaries s JOIN runs r ON r.uuid = s.run_uuid"
		" JOIN machines m ON m.uuid = r.machine_uuid"
		" JOIN histograms h ON h.summary_id = s.id"
		" WHERE r.bench = 'idle_sweep' AND r.status = 'ok'"
		" AND m.fingerprint IS NOT NULL"
		" AND (s.metric = 'wake_latency' OR s.metric LIKE 'wake\\_latency\\_in\\_%' ESCAPE '\\')"
		" ORDER BY 2, m.uuid, 4";
	static const char *const cols[] = {
		"Machine", "Kernel", "Wake", "State", "Declared latency (us)",
		"Declared residency (us)", "Samples", "p50 (us) [95 % CI]",
		"p99 (us) [95 % CI]", "p99.99 (us) [95 % CI]",
		"Measured residency (us)", "Flags"
	};
	sqlite3 *db = il_store_db(s);
	struct dcl_block *blocks = NULL, *b = NULL, *nb;
	struct il_table *t;
	sqlite3_stmt *st;
	int n = 0, rc, ret = 0, k;

	(void)o;	/* one benchmark: --bench has nothing to narrow */
	t = il_table_new("Declared against measured idle states (idle_sweep)", 12, cols);
	if (!t)
		return il_errorf(-ENOMEM, "out of memory");
	/* The quantiles with their intervals: csv splits each in three. */
	for (k = 7; k <= 9; k++)
		il_table_col_kind(t, k, IL_COL_EST_INTERVAL);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		il_table_free(t);
		return il_errorf(-EIO, "report: %s", sqlite3_errmsg(db));
	}
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!b || strcmp(b->uuid, (const char *)sqlite3_column_text(st, 0)) ||
		    strcmp(b->wake, (const char *)sqlite3_column_text(st, 3))) {
			if (b)
				ret = block_rows(b, t);
			nb = realloc(blocks, (size_t)(n + 1) * sizeof(*blocks));
			if (!nb) {
				ret = il_errorf(-ENOMEM, "out of memory");
				break;
			}
			blocks = nb;
			b = &blocks[n++];
			block_init(b, st);
		}
		if (!ret)
			ret = block_add(b, st);
	}
	if (!ret && b)
		ret = block_rows(b, t);
	sqlite3_finalize(st);
	if (ret && b)		/* the block whose rows were not made */
		for (rc = 0; rc < IL_ADV_MAX_STATES; rc++)
			il_hist_free(b->h[rc]);
	if (!ret && !n)
		ret = il_table_note(t, "No idle_sweep run in this dataset: run 'idlelab bench idle_sweep' (see idlelab-bench(1)).");
	if (!ret && n)
		ret = il_table_note(t, "Samples are those that entered one state alone, pooled over every idle time d. A CI reads [too few] where the samples cannot bound the quantile at 95 %% (p99.99 needs over 36000); Measured residency is the shortest d at which most samples entered the state, - where none did. Flags: p99 above %dx the declared latency; entered below the declared residency.",
				    IL_DECLARED_FACTOR);
	if (!ret)
		ret = table_changes(t, blocks, n);
	free(blocks);
	if (ret) {
		il_table_free(t);
		return ret;
	}
	*out = t;
	return 0;
}
