// SPDX-License-Identifier: GPL-2.0-only
/*
 * states.c - seed 002's table: wake latency per idle state x wake source,
 * with n, min, max, median, avg, stddev, p99 and p99.9, one block per
 * machine.  The idle state is the run's 'idle_state' attribute (cstate_wake
 * records it), else the cpuidle restriction envctl recorded for the CPU
 * ("all but C6,C1E"), else "any"; the wake source is the 'wake_source'
 * attribute (cstate_wake and imported cyclictest runs record it), else the
 * wake source the benchmark declares (bench.h's report.wake_source:
 * timer_wake a timer, futex_wake the reschedule IPI); rows with neither
 * are not wake measurements and are left out.
 * Reference machines' rows are marked "(ref: SOURCE)".
 *
 * The idle state is the one requested.  Below the table, one note per
 * machine and requested state says which state the hardware says it
 * entered (cstate_wake's 'hw_state', from the residency counters and
 * APERF/MPERF the module read around each sample), or that no residency
 * data was stored, as wult tells requested from entered states.
 */
#include "analysis.h"
#include "bench.h"
#include "err.h"
#include "groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The groups and the distinct requested-vs-entered notes. */
struct st_ctx {
	struct il_grps g;
	char **notes;
	int nnotes;
};

/* Remember one note, once. */
static int st_note(struct st_ctx *c, const struct il_srow *r)
{
	char **v, *n;
	int i;

	if (asprintf(&n, r->hw_state ?
		     "%s: idle state %s requested; the hardware says %s." :
		     "%s: idle state %s requested; no residency data stored, so which state the hardware entered is not known.",
		     r->host, r->idle_state, r->hw_state) < 0)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; i < c->nnotes; i++) {
		if (!strcmp(c->notes[i], n)) {
			free(n);
			return 0;
		}
	}
	v = realloc(c->notes, (size_t)(c->nnotes + 1) * sizeof(*v));
	if (!v) {
		free(n);
		return il_errorf(-ENOMEM, "out of memory");
	}
	c->notes = v;
	c->notes[c->nnotes++] = n;
	return 0;
}

static void idle_state(const struct il_srow *r, char *buf, size_t len)
{
	const char *d;

	if (r->idle_state) {
		snprintf(buf, len, "%s", r->idle_state);
		return;
	}
	d = r->envctl ? strstr(r->envctl, "disabled=") : NULL;
	if (d && strcmp(d + 9, "none") && strcmp(d + 9, "unknown"))
		snprintf(buf, len, "all but %s", d + 9);
	else
		snprintf(buf, len, "any");
}

static int add(const struct il_srow *r, void *arg)
{
	struct st_ctx *c = arg;
	char state[200], key[2048], host[300], cfg[512], bench[600];
	const char *src = r->wake_source;
	const char *labels[6];

	if (strcmp(r->metric, "wake_latency") && strcmp(r->metric, "intr_latency"))
		return 0;
	if (!src)
		src = il_bench_report_of(r->bench)->wake_source;
	if (!src)
		return 0;
	idle_state(r, state, sizeof(state));
	/* "(ref: seed 002)": the source up to its first colon. */
	if (r->is_ref)
		snprintf(host, sizeof(host), "%s (ref: %.*s)", r->host,
			 (int)strcspn(r->source, ":"), r->source);
	else
		snprintf(host, sizeof(host), "%s", r->host);
	/* Runs that measured different things stay apart: the configuration
	 * (il_params_label()) goes with the benchmark's name. */
	if (il_params_label(r->bench, r->params, IL_PARAMS_KEEP_LISTS, cfg, sizeof(cfg)))
		snprintf(cfg, sizeof(cfg), "%s", r->params ? r->params : "");
	if (cfg[0])
		snprintf(bench, sizeof(bench), "%s (%s)", r->bench, cfg);
	else
		snprintf(bench, sizeof(bench), "%s", r->bench);
	snprintf(key, sizeof(key), "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", r->host,
		 r->machine_uuid, r->metric, state, src, bench);
	labels[0] = host;
	labels[1] = bench;
	labels[2] = r->metric;
	labels[3] = state;
	labels[4] = src;
	labels[5] = r->unit;
	/* Only measured rows that name the state they asked for. */
	if (r->idle_state && !r->is_ref && !strcmp(r->metric, "wake_latency")) {
		int ret = st_note(c, r);

		if (ret)
			return ret;
	}
	return il_grps_add(&c->g, key, labels, r);
}

int il_report_states(struct il_store *s, const struct il_analysis_opts *o,
		     struct il_table **out)
{
	static const char *const cols[] = {
		"Machine", "Benchmark", "Metric", "Idle state", "Wake source",
		"Unit", "Nr samples", "Min", "Max", "Median", "Avg", "Stddev",
		"p99", "p99.9",
	};
	struct st_ctx c = { 0 };
	struct il_table *t;
	int i, ret, nref = 0;

	*out = NULL;
	ret = il_rows_foreach(s, o->bench, NULL, add, &c);
	if (ret)
		goto out;
	il_grps_sort(&c.g);
	t = il_table_new("Wake latency per idle state and wake source", 14, cols);
	if (!t) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; !ret && i < c.g.n; i++) {
		const struct il_grp *p = &c.g.v[i];
		char n[24] = "0", mn[24] = "-", mx[24] = "-", med[24] = "-",
		     avg[24] = "-", sd[24] = "-", p99[24] = "-", p999[24] = "-";
		const char *cells[14];

		if (p->sum.count) {
			il_fmt_u64(n, sizeof(n), (int64_t)p->sum.count);
			il_fmt_u64(mn, sizeof(mn), (int64_t)p->sum.min);
			il_fmt_u64(mx, sizeof(mx), (int64_t)p->sum.max);
			il_fmt_u64(med, sizeof(med), il_grp_pct(p, 50));
			il_fmt_f1(avg, sizeof(avg), p->sum.mean);
			il_fmt_f1(sd, sizeof(sd), il_summary_stddev(&p->sum));
			il_fmt_u64(p99, sizeof(p99), il_grp_pct(p, 99));
			il_fmt_u64(p999, sizeof(p999), il_grp_pct(p, 99.9));
		}
		nref += p->ref;
		memcpy(cells, (const char *const[]){ p->label[0], p->label[1],
			p->label[2], p->label[3], p->label[4], p->label[5], n, mn, mx,
			med, avg, sd, p99, p999 }, sizeof(cells));
		ret = il_table_add(t, cells);
	}
	/* --causes runs: by the state really entered (states_entered.c). */
	if (!ret)
		ret = il_states_entered(s, o, t);
	if (!ret && nref)
		ret = il_table_note(t, "Rows marked (ref: ...) are figures published in the seed posts, not measured: they carry only the published statistics (- where none was published).");
	for (i = 0; !ret && i < c.nnotes; i++)
		ret = il_table_note(t, "%s", c.notes[i]);
	if (ret)
		il_table_free(t);
	else
		*out = t;
out:
	for (i = 0; i < c.nnotes; i++)
		free(c.notes[i]);
	free(c.notes);
	il_grps_free(&c.g);
	return ret;
}
