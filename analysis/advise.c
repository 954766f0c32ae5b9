// SPDX-License-Identifier: GPL-2.0-only
/*
 * advise.c - the deterministic part of `idlelab advise`: the budget, the
 * distribution-free bound on a quantile, the choice of the deepest set of
 * idle states that meets the budget, and the settings that enforce it.
 *
 * The bound is the classical order-statistic one (e.g. Conover, Practical
 * Nonparametric Statistics, 3.2): among n independent samples the number
 * below the q quantile is Binomial(n, q), so X(u) is at or above it with
 * probability P(Bin(n, q) <= u - 1).  It needs no assumption about the
 * shape of the latency distribution, which for wake latencies has a long,
 * lumpy tail that no fitted shape would describe.
 */
#include "advise.h"
#include "err.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int il_budget_parse(const char *s, struct il_budget *b)
{
	const char *p = s;
	char *end;
	double q, v, scale = 1000;

	memset(b, 0, sizeof(*b));
	if (!s || (*p != 'p' && *p != 'P'))
		goto bad;
	q = strtod(++p, &end);
	if (end == p || q <= 0 || q >= 100)
		goto bad;
	p = end;
	while (isspace((unsigned char)*p))
		p++;
	if (strncmp(p, "<=", 2))
		goto bad;
	p += 2;
	v = strtod(p, &end);
	if (end == p || v <= 0)
		goto bad;
	if (!strcmp(end, "ns"))
		scale = 1;
	else if (!strcmp(end, "ms"))
		scale = 1e6;
	else if (*end && strcmp(end, "us"))
		goto bad;
	b->q = q / 100;
	b->limit_ns = (uint64_t)llround(v * scale);
	snprintf(b->text, sizeof(b->text), "%s", s);
	return 0;
bad:
	return il_errorf(-EINVAL, "--budget '%s': expected pQ<=LIMIT with 0 < Q < 100 and a unit of ns, us (the default) or ms, e.g. 'p99.99<=50us'",
			 s ? s : "");
}

/*
 * P(Bin(n, q) <= k) summed term by term in log space (lgamma): exact
 * enough for the n of a benchmark run (up to 1e8) and any q.
 */
static double binom_cdf(uint64_t n, double q, uint64_t k)
{
	double lq = log(q), l1q = log1p(-q), lnf = lgamma((double)n + 1);
	double sum = 0;
	uint64_t i;

	if (k >= n)
		return 1;
	for (i = 0; i <= k; i++)
		sum += exp(lnf - lgamma((double)i + 1) -
			   lgamma((double)(n - i) + 1) +
			   (double)i * lq + (double)(n - i) * l1q);
	return sum;
}

uint64_t il_quantile_ucb_rank(uint64_t n, double q, double conf)
{
	uint64_t lo, hi, mid;

	if (!n || binom_cdf(n, q, n - 1) < conf)
		return 0;
	/* The CDF grows with k: bisect for the least u - 1 that reaches
	 * conf, starting at the mean, below which it never does for the
	 * confidences asked (conf >= 0.5). */
	lo = (uint64_t)floor((double)n * q);
	if (lo)
		lo--;
	hi = n - 1;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (binom_cdf(n, q, mid) >= conf)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo + 1;
}

uint64_t il_quantile_min_n(double q, double conf)
{
	return (uint64_t)ceil(log1p(-conf) / log(q) - 1e-9);
}

const char *il_adv_answer_name(enum il_adv_answer a)
{
	switch (a) {
	case IL_ADV_NO_CPUIDLE:	return "no_cpuidle";
	case IL_ADV_TOO_FEW:	return "too_few_samples";
	case IL_ADV_NONE_MEETS:	return "no_state_meets";
	case IL_ADV_ONLY_POLL:	return "only_poll";
	case IL_ADV_CAP:	return "cap";
	case IL_ADV_ALL:	return "all_states";
	}
	return "?";
}

const char *il_adv_verdict_name(enum il_adv_verdict v)
{
	switch (v) {
	case IL_ADV_MEETS:	return "meets";
	case IL_ADV_FAILS:	return "fails";
	case IL_ADV_FEW:	return "too_few";
	case IL_ADV_UNMEASURED:	return "unmeasured";
	}
	return "?";
}

static bool is_poll(const struct il_adv_state *s)
{
	return !strcmp(s->name, "POLL");
}

void il_advise_choose(struct il_adv_state *st, int n,
		      const struct il_budget *b, double conf,
		      struct il_advice *out)
{
	uint64_t need = il_quantile_min_n(b->q, conf);
	int i;

	out->deepest = -1;
	out->stop = -1;
	out->need_n = 0;
	for (i = 0; i < n; i++) {
		struct il_adv_state *s = &st[i];

		s->need_n = 0;
		if (!s->n || !s->has_ucb) {
			s->verdict = s->n ? IL_ADV_FEW : IL_ADV_UNMEASURED;
			s->need_n = need;
		} else {
			s->verdict = s->ucb_ns <= b->limit_ns ? IL_ADV_MEETS :
				     IL_ADV_FAILS;
		}
		if (out->stop < 0 && s->verdict != IL_ADV_MEETS)
			out->stop = i;
		if (out->stop < 0)
			out->deepest = i;
	}
	if (!n)
		out->answer = IL_ADV_NO_CPUIDLE;
	else if (out->deepest == n - 1)
		out->answer = IL_ADV_ALL;
	else if (out->deepest < 0 && st[out->stop].verdict != IL_ADV_FAILS)
		out->answer = IL_ADV_TOO_FEW;
	else if (out->deepest < 0)
		out->answer = IL_ADV_NONE_MEETS;
	else if (out->deepest == 0 && is_poll(&st[0]))
		out->answer = IL_ADV_ONLY_POLL;
	else
		out->answer = IL_ADV_CAP;
	if (out->answer == IL_ADV_TOO_FEW)
		out->need_n = st[out->stop].need_n;
}

/* ---- the settings ------------------------------------------------------ */

/*
 * The kernel command line that keeps the driver to states 0..k, where
 * one exists: intel_idle's states_off mask (by state index, 5.7+),
 * acpi_idle's processor.max_cstate (state k is ACPI C-state k, state 0
 * being POLL), or idle=poll for POLL alone with any driver.
 */
static json_t *cmdline(const struct il_adv_state *st, int n,
		       const char *driver, int k, json_t *notes)
{
	char buf[256];
	unsigned long mask = 0;
	int i;

	if (k == 0 && is_poll(&st[0]))
		return json_string("idle=poll");
	if (!strcmp(driver, "intel_idle")) {
		for (i = k + 1; i < n; i++)
			mask |= 1UL << st[i].index;
		snprintf(buf, sizeof(buf), "intel_idle.states_off=0x%lx", mask);
		return json_string(buf);
	}
	if (!strcmp(driver, "acpi_idle")) {
		snprintf(buf, sizeof(buf), "processor.max_cstate=%d",
			 st[k].index);
		return json_string(buf);
	}
	snprintf(buf, sizeof(buf), "no kernel command-line option limits the %s driver's states: apply the disable list at boot (e.g. a systemd unit or tuned)",
		 driver[0] ? driver : "unknown");
	json_array_append_new(notes, json_string(buf));
	return json_null();
}

/*
 * The PM QoS limit: the governors skip a state whose exit latency is above
 * the limit, so the declared latency of state k works when every deeper
 * state declares more.  Return: the limit, or -1 (with a note) when the
 * declared table does not allow one.
 */
static int64_t qos_limit(const struct il_adv_state *st, int n, int k,
			 json_t *notes)
{
	char buf[200];
	int i;

	if (st[k].latency_us < 0) {
		json_array_append_new(notes, json_string("no PM QoS value: the state's declared latency is unknown; use the disable list"));
		return -1;
	}
	for (i = k + 1; i < n; i++) {
		if (st[i].latency_us >= 0 && st[i].latency_us > st[k].latency_us)
			continue;
		snprintf(buf, sizeof(buf), "no PM QoS value: %s declares no more latency (%" PRId64 " us) than %s (%" PRId64 " us), so a limit cannot tell them apart; use the disable list",
			 st[i].name, st[i].latency_us, st[k].name,
			 st[k].latency_us);
		json_array_append_new(notes, json_string(buf));
		return -1;
	}
	return st[k].latency_us;
}

json_t *il_advise_settings(const struct il_adv_state *st, int n,
			   const char *driver, const struct il_advice *a)
{
	json_t *o, *dis, *cmds, *notes;
	char buf[160], tuned[200];
	int64_t lim;
	int i, k = a->deepest;

	if (a->answer != IL_ADV_CAP && a->answer != IL_ADV_ONLY_POLL &&
	    a->answer != IL_ADV_ALL)
		return NULL;
	o = json_object();
	dis = json_array();
	cmds = json_array();
	notes = json_array();
	if (!o || !dis || !cmds || !notes) {
		json_decref(o);
		json_decref(dis);
		json_decref(cmds);
		json_decref(notes);
		return NULL;
	}
	json_object_set_new(o, "allowed_deepest", json_string(st[k].name));
	json_object_set_new(o, "disable", dis);
	json_object_set_new(o, "disable_cmds", cmds);
	json_object_set_new(o, "notes", notes);
	if (a->answer == IL_ADV_ALL) {
		json_object_set_new(o, "cpu_dma_latency_us", json_null());
		json_object_set_new(o, "pm_qos_resume_latency_us", json_null());
		json_object_set_new(o, "tuned", json_null());
		json_object_set_new(o, "cmdline", json_null());
		json_array_append_new(notes, json_string("every state meets the budget: no cap is needed"));
		return o;
	}
	for (i = k + 1; i < n; i++) {
		json_array_append_new(dis, json_integer(st[i].index));
		snprintf(buf, sizeof(buf),
			 "echo 1 | tee /sys/devices/system/cpu/cpu*/cpuidle/state%d/disable",
			 st[i].index);
		json_array_append_new(cmds, json_string(buf));
	}
	lim = qos_limit(st, n, k, notes);
	json_object_set_new(o, "cpu_dma_latency_us",
			    lim < 0 ? json_null() : json_integer(lim));
	/* The per-device file reads 0 as "no constraint" and takes "n/a"
	 * for a zero limit (drivers/base/power/sysfs.c). */
	if (lim < 0)
		json_object_set_new(o, "pm_qos_resume_latency_us", json_null());
	else if (lim == 0)
		json_object_set_new(o, "pm_qos_resume_latency_us",
				    json_string("n/a"));
	else {
		snprintf(buf, sizeof(buf), "%" PRId64, lim);
		json_object_set_new(o, "pm_qos_resume_latency_us",
				    json_string(buf));
	}
	/* tuned turns cstate.name into that state's latency itself, and
	 * falls back to the number where the name does not exist. */
	if (lim < 0)
		snprintf(tuned, sizeof(tuned), "[cpu]\nforce_latency=cstate.name:%s\n",
			 st[k].name);
	else
		snprintf(tuned, sizeof(tuned), "[cpu]\nforce_latency=cstate.name:%s|%" PRId64 "\n",
			 st[k].name, lim);
	json_object_set_new(o, "tuned", json_string(tuned));
	json_object_set_new(o, "cmdline", cmdline(st, n, driver, k, notes));
	if (a->answer == IL_ADV_ONLY_POLL)
		json_array_append_new(notes, json_string("only POLL meets the budget: the CPUs then busy-poll when idle, at full power and with less headroom for an SMT sibling"));
	return o;
}

int il_adv_states_from_fingerprint(json_t *fp, struct il_adv_state *st,
				   int max, char *driver, size_t dlen,
				   char *why, size_t wlen)
{
	json_t *ci = json_object_get(fp, "cpuidle"), *states, *s, *v;
	const char *d;
	size_t i;
	int n = 0;

	d = json_string_value(json_object_get(ci, "driver"));
	snprintf(driver, dlen, "%s", d ? d : "unknown");
	states = json_object_get(ci, "states");
	if (!json_is_array(states) || !json_array_size(states)) {
		v = json_object_get(states, "unknown");
		snprintf(why, wlen, "cpuidle driver %s%s%s", driver,
			 v ? ": " : "", v ? json_string_value(v) : "");
		return 0;
	}
	json_array_foreach(states, i, s) {
		if (n >= max)
			break;
		memset(&st[n], 0, sizeof(st[n]));
		snprintf(st[n].name, sizeof(st[n].name), "%s",
			 json_string_value(json_object_get(s, "name")) ?: "?");
		v = json_object_get(s, "index");
		st[n].index = json_is_integer(v) ? (int)json_integer_value(v) :
			      (int)i;
		v = json_object_get(s, "latency_us");
		st[n].latency_us = json_is_integer(v) ? json_integer_value(v) : -1;
		v = json_object_get(s, "residency_us");
		st[n].residency_us = json_is_integer(v) ? json_integer_value(v) : -1;
		n++;
	}
	return n;
}
