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
 * state sooner than its table says pays off); and a declared latency or
 * residency that differs between two kernels of one CPU model in the
 * dataset (intel_idle's tables change between releases), on the state's
 * row of each machine and kernel, as "kernel OLD a -> kernel NEW b", with
 * a note per pair below the table.  The declared table is the one each
 * run kept (IL_DCL_FP), so one machine upgraded in place shows a block
 * per kernel, compared as two machines of its model would be; runs stored
 * before runs kept one fall back to the machine row's latest fingerprint.
 * A figure that cannot be given is "-" with the reason in a note, never 0.
 * The data is read by il_dcl_load(), which the plots share.
 */
#include "advise.h"
#include "analysis.h"
#include "err.h"
#include "idle_declared.h"
#include "machine_label.h"
#include "stats.h"
#include "store.h"
#include "store_sqlite.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A state's measured p99 above this many times its declared latency. */
#define IL_DECLARED_FACTOR	2
#define FLAGS_LEN		640

static int d_slot(struct dcl_block *b, int64_t d)
{
	int i;

	for (i = 0; i < b->nd; i++)
		if (b->d[i] == d)
			return i;
	if (b->nd == IL_DCL_MAX_D)
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

	memset(b, 0, sizeof(*b));
	snprintf(b->uuid, sizeof(b->uuid), "%s", sqlite3_column_text(st, 0));
	snprintf(b->host, sizeof(b->host), "%s", sqlite3_column_text(st, 1));
	snprintf(b->wake, sizeof(b->wake), "%s", sqlite3_column_text(st, 3));
	snprintf(b->kernel, sizeof(b->kernel), "%s", sqlite3_column_text(st, 8));
	/* The CPU model is the machine's; the states are the run's. */
	fp = json_loads((const char *)sqlite3_column_text(st, 7), 0, NULL);
	snprintf(b->model, sizeof(b->model), "%s",
		 json_string_value(json_object_get(json_object_get(fp, "cpu"),
						   "brand")) ?: "unknown");
	json_decref(fp);
	fp = json_loads((const char *)sqlite3_column_text(st, 2), 0, NULL);
	b->nstates = il_adv_states_from_fingerprint(fp, b->st,
						    IL_ADV_MAX_STATES, drv,
						    sizeof(drv), b->why,
						    sizeof(b->why));
	json_decref(fp);
}

/*
 * Whether @o is @b's CPU model on another kernel: another machine, or the
 * same one before or after an in-place upgrade.
 */
static bool other_kernel(const struct dcl_block *b, const struct dcl_block *o)
{
	return !strcmp(b->model, o->model) && strcmp(b->kernel, o->kernel) &&
	       strcmp(b->model, "unknown") && strcmp(b->kernel, "unknown");
}

/* Whether block @i of @v is not the first of its machine and kernel. */
static bool same_as_prev(const struct dcl_block *v, int i)
{
	return i && !strcmp(v[i - 1].uuid, v[i].uuid) &&
	       !strcmp(v[i - 1].kernel, v[i].kernel);
}

/* "latency 128 -> 290 us, residency 600 us" when @x and @y differ. */
static bool state_change(const struct il_adv_state *x,
			 const struct il_adv_state *y, char *buf, size_t len)
{
	size_t u = 0;

	buf[0] = '\0';
	if (x->latency_us != y->latency_us)
		u += (size_t)snprintf(buf, len, "latency %" PRId64 " -> %" PRId64 " us",
				      x->latency_us, y->latency_us);
	if (x->residency_us != y->residency_us && u < len)
		snprintf(buf + u, len - u, "%sresidency %" PRId64 " -> %" PRId64 " us",
			 u ? ", " : "", x->residency_us, y->residency_us);
	return buf[0] != '\0';
}

/*
 * State @k of @b against the same state of each other machine of its CPU
 * model on another kernel (the first block of each), appended to @flags:
 * "declared latency 128 -> 290 us: kernel 5.15 (a) -> kernel 6.12 (b)",
 * the older kernel (by version order) first.
 */
static void change_flags(const struct dcl_block *all, int n,
			 const struct dcl_block *b, int k, char *flags,
			 size_t len)
{
	const struct il_adv_state *s = &b->st[k];
	char what[128];
	int i, j;

	for (i = 0; i < n; i++) {
		const struct dcl_block *o = &all[i], *old, *new;
		const struct il_adv_state *os;
		size_t u = strlen(flags);

		if (same_as_prev(all, i) || !other_kernel(b, o))
			continue;
		j = il_adv_state_index(o->st, o->nstates, s->name);
		old = strverscmp(b->kernel, o->kernel) < 0 ? b : o;
		new = old == b ? o : b;
		os = j < 0 ? NULL : &o->st[j];
		if (os && !state_change(old == b ? s : os, old == b ? os : s,
					what, sizeof(what)))
			continue;
		if (!os)	/* o lacks it: b's kernel added or kept it */
			snprintf(what, sizeof(what), "state %s",
				 old == b ? "removed" : "added");
		if (u + 1 < len)
			snprintf(flags + u, len - u, "%sdeclared %s: kernel %s (%s) -> kernel %s (%s)",
				 u ? "; " : "", what, old->kernel, old->host,
				 new->kernel, new->host);
	}
}

/* The flags of state @k of @b, @m its measured residency (or -1). */
static void row_flags(const struct dcl_block *all, int n,
		      const struct dcl_block *b, int k, int64_t m,
		      char *flags, size_t len)
{
	const struct il_adv_state *s = &b->st[k];
	uint64_t cnt = b->h[k] ? il_hist_count(b->h[k]) : 0;

	flags[0] = '\0';
	if (cnt && s->latency_us > 0 &&
	    il_hist_percentile(b->h[k], 99) >
	    (uint64_t)s->latency_us * 1000 * IL_DECLARED_FACTOR)
		snprintf(flags, len, "p99 > %dx declared latency",
			 IL_DECLARED_FACTOR);
	if (m >= 0 && s->residency_us > 0 && m < s->residency_us)
		snprintf(flags + strlen(flags), len - strlen(flags),
			 "%sentered below declared residency",
			 flags[0] ? "; " : "");
	change_flags(all, n, b, k, flags, len);
}

static int block_rows(const struct dcl_block *all, int n,
		      const struct dcl_block *b, struct il_table *t)
{
	char lat[24], res[24], cnt[24], q[3][64], mres[32], flags[FLAGS_LEN];
	char ew[300], ebe[300];
	const char *cells[14];
	int k, j, ret = 0;

	if (!b->nstates)
		ret = il_table_note(t, "%s (wake=%s): no rows: no cpuidle states (%s), so no sample has a known idle state; only the per-d wake latency was measured.",
				    b->host, b->wake, b->why);

	for (k = 0; k < b->nstates && !ret; k++) {
		const struct il_adv_state *s = &b->st[k];
		int64_t m = -1;

		snprintf(lat, sizeof(lat), s->latency_us < 0 ? "unknown" : "%" PRId64, s->latency_us);
		snprintf(res, sizeof(res), s->residency_us < 0 ? "unknown" : "%" PRId64, s->residency_us);
		snprintf(cnt, sizeof(cnt), "%" PRIu64,
			 b->h[k] ? il_hist_count(b->h[k]) : 0);
		quantile_cell(b->h[k], 0.5, q[0], sizeof(q[0]));
		quantile_cell(b->h[k], 0.99, q[1], sizeof(q[1]));
		quantile_cell(b->h[k], 0.9999, q[2], sizeof(q[2]));
		/* The shortest d at which most samples entered this state. */
		for (j = 0; j < b->nd; j++)
			if (b->total[j] && 2 * b->in[j][k] > b->total[j] &&
			    (m < 0 || b->d[j] < m))
				m = b->d[j];
		snprintf(mres, sizeof(mres), m < 0 ? "-" : "%" PRId64, m);
		row_flags(all, n, b, k, m, flags, sizeof(flags));
		cells[0] = b->host;
		cells[1] = b->kernel;
		cells[2] = b->wake;
		cells[3] = s->name;
		cells[4] = lat;
		cells[5] = res;
		cells[6] = cnt;
		cells[7] = q[0];
		cells[8] = q[1];
		cells[9] = q[2];
		cells[10] = mres;
		il_dcl_energy_cells(b, k, ew, sizeof(ew), ebe, sizeof(ebe));
		cells[11] = ew;
		cells[12] = ebe;
		cells[13] = flags[0] ? flags : "-";
		ret = il_table_add(t, cells);
	}
	return ret;
}

/* Add one summary row (metric, grp, blob at columns 4-6) to @b. */
static int block_add(struct dcl_block *b, sqlite3_stmt *st)
{
	const char *metric = (const char *)sqlite3_column_text(st, 4);
	int64_t d = sqlite3_column_int64(st, 5);
	struct il_hist *h = NULL, *c = NULL;
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
	if (slot >= 0) {
		b->in[slot][k] += il_hist_count(h);
		/* A copy per d for the plots; the pooled one takes @h. */
		c = il_hist_new();
		if (!c || il_hist_merge(c, h)) {
			il_hist_free(c);
			il_hist_free(h);
			return il_errorf(-ENOMEM, "out of memory");
		}
		ret = il_adv_hist_into(&b->hd[slot][k], c);
	}
	return ret ?: il_adv_hist_into(&b->h[k], h);
}

/*
 * A note per pair of machines of one CPU model whose declared tables
 * differ between their kernels, older kernel first, each state's change.
 */
static int table_changes(struct il_table *t, const struct dcl_block *v, int n)
{
	char all[1024], what[128];
	int i, j, k, x, ret = 0;

	for (i = 0; i < n && !ret; i++)
		for (j = 0; j < i && !ret; j++) {
			const struct dcl_block *a = &v[j], *b = &v[i], *o;
			size_t u = 0;

			if (same_as_prev(v, i) || same_as_prev(v, j) ||
			    !other_kernel(a, b))
				continue;
			if (strverscmp(a->kernel, b->kernel) > 0) {
				o = a;
				a = b;
				b = o;
			}
			all[0] = '\0';
			for (k = 0; k < a->nstates && u < sizeof(all); k++) {
				x = il_adv_state_index(b->st, b->nstates, a->st[k].name);
				if (x < 0)
					snprintf(what, sizeof(what), "removed");
				else if (!state_change(&a->st[k], &b->st[x], what, sizeof(what)))
					continue;
				u += (size_t)snprintf(all + u, sizeof(all) - u, "%s%s %s",
						      u ? "; " : "", a->st[k].name, what);
			}
			for (k = 0; k < b->nstates && u < sizeof(all); k++)
				if (il_adv_state_index(a->st, a->nstates, b->st[k].name) < 0)
					u += (size_t)snprintf(all + u, sizeof(all) - u, "%s%s added",
							      u ? "; " : "", b->st[k].name);
			if (all[0])
				ret = il_table_note(t, "Declared table changed for %s from kernel %s (%s) to kernel %s (%s): %s.",
						    a->model, a->kernel, a->host,
						    b->kernel, b->host, all);
		}
	return ret;
}

void il_dcl_free(struct dcl_block *v, int n)
{
	int i, j, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < IL_ADV_MAX_STATES; k++) {
			il_hist_free(v[i].h[k]);
			for (j = 0; j < IL_DCL_MAX_D; j++)
				il_hist_free(v[i].hd[j][k]);
		}
	free(v);
}

int il_dcl_load(struct il_store *s, struct dcl_block **out)
{
	static const char sql[] =
		"SELECT m.uuid, " IL_MACHINE_LABEL_M ", " IL_DCL_FP ","
		" coalesce(json_extract(r.params, '$.wake'), '?'),"
		" s.metric, s.grp, h.blob, m.fingerprint," IL_DCL_KERNEL
		" FROM summaries s JOIN runs r ON r.uuid = s.run_uuid" IL_DCL_JOIN
		" JOIN histograms h ON h.summary_id = s.id"
		" WHERE r.bench = 'idle_sweep' AND r.status = 'ok'"
		" AND m.fingerprint IS NOT NULL"
		" AND (s.metric = 'wake_latency' OR s.metric LIKE 'wake\\_latency\\_in\\_%' ESCAPE '\\')"
		" ORDER BY 2, m.uuid, 9, 4";
	sqlite3 *db = il_store_db(s);
	struct dcl_block *v = NULL, *b = NULL, *nb;
	sqlite3_stmt *st;
	int n = 0, rc, ret = 0;

	*out = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return il_errorf(-EIO, "report: %s", sqlite3_errmsg(db));
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!b || strcmp(b->uuid, (const char *)sqlite3_column_text(st, 0)) ||
		    strncmp(b->kernel, (const char *)sqlite3_column_text(st, 8),
			    sizeof(b->kernel) - 1) ||
		    strcmp(b->wake, (const char *)sqlite3_column_text(st, 3))) {
			nb = realloc(v, (size_t)(n + 1) * sizeof(*v));
			if (!nb) {
				ret = il_errorf(-ENOMEM, "out of memory");
				break;
			}
			v = nb;
			b = &v[n++];
			block_init(b, st);
		}
		ret = block_add(b, st);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = il_errorf(-EIO, "report: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (ret) {
		il_dcl_free(v, n);
		return ret;
	}
	*out = v;
	return n;
}

int il_report_declared(struct il_store *s, const struct il_analysis_opts *o,
		       struct il_table **out)
{
	static const char *const cols[] = {
		"Machine", "Kernel", "Wake", "State", "Declared latency (us)",
		"Declared residency (us)", "Samples", "p50 (us) [95 % CI]",
		"p99 (us) [95 % CI]", "p99.99 (us) [95 % CI]",
		"Measured residency (us)", "Energy per wake (uJ)",
		"Energy break-even (us)", "Flags"
	};
	struct dcl_block *v;
	struct il_table *t;
	int n, i, k, ret = 0;

	(void)o;	/* one benchmark: --bench has nothing to narrow */
	t = il_table_new("Declared against measured idle states (idle_sweep)", 14, cols);
	if (!t)
		return il_errorf(-ENOMEM, "out of memory");
	/* The quantiles with their intervals: csv splits each in three. */
	for (k = 7; k <= 9; k++)
		il_table_col_kind(t, k, IL_COL_EST_INTERVAL);
	n = il_dcl_load(s, &v);
	if (n < 0) {
		il_table_free(t);
		return n;
	}
	ret = il_dcl_energy_load(s, v, n);
	for (i = 0; i < n && !ret; i++)
		ret = block_rows(v, n, &v[i], t);
	if (!ret && !n)
		ret = il_table_note(t, "No idle_sweep run in this dataset: run 'idlelab bench idle_sweep' (see idlelab-bench(1)).");
	if (!ret && n)
		ret = il_table_note(t, "Samples are those that entered one state alone, pooled over every idle time d. A CI reads [too few] where the samples cannot bound the quantile at 95 %% (p99.99 needs over 36000); Measured residency is the shortest d at which most samples entered the state, - where none did. Flags: p99 above %dx the declared latency; entered below the declared residency; a declared figure that differs on another kernel for the same CPU model. Energy (RAPL package, every CPU of the package) per wake is the mean over the state's samples; its break-even is the idle time at which the line energy = a + b*d of the state crosses that of the nearest shallower state, after which the deeper one saves energy.",
				    IL_DECLARED_FACTOR);
	if (!ret)
		ret = table_changes(t, v, n);
	il_dcl_free(v, n);
	if (ret) {
		il_table_free(t);
		return ret;
	}
	*out = t;
	return 0;
}
