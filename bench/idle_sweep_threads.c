// SPDX-License-Identifier: GPL-2.0-only
/*
 * idle_sweep_threads.c - one idle_sweep sample, on its two threads: the
 * target blocks for d and wakes; the observer reads the target's cpuidle
 * counters around it, wakes it (wake=ipi) and files the sample by the
 * state it entered.  Why they split the work this way is at the top of
 * idle_sweep.c.
 */
#include "idle_sweep.h"
#include "err.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- the samples by idle state entered ------------------------------- */

/*
 * The series of a sample whose counters moved from @before to @after: the
 * one state entered once, else ambiguous or not_idle.  Made on first use.
 */
static struct il_series *is_entered(struct il_run *run, struct is_pair *pr,
				    int di, int64_t d_us,
				    const uint64_t *before,
				    const uint64_t *after)
{
	int n = pr->u.n, slot = il_cpuidle_entered(&pr->u, before, after);
	struct il_series **s = &pr->by[di * (n + 2) + slot];
	char metric[64];

	if (!*s) {
		snprintf(metric, sizeof(metric), "wake_latency_%s%s",
			 slot < n ? "in_" : "",
			 slot < n ? pr->u.name[slot] :
			 slot == n ? "ambiguous" : "not_idle");
		*s = il_run_series(run, metric, "ns", pr->a, pr->b, d_us,
				   false);
	}
	return *s;
}

/* ---- the two threads --------------------------------------------------- */

/* One sample on the target.  Return: 0, or a negative errno. */
static int is_target_sample(struct is_state *st, struct is_shm *m,
			    uint32_t i)
{
	uint64_t d_ns = __atomic_load_n(&m->d_ns, __ATOMIC_RELAXED);
	uint64_t due, t1;
	long r;
	int ret;

	m->err = 0;
	if (st->p->wake == IS_WAKE_TIMER) {
		due = il_now_ns(CLOCK_MONOTONIC) + d_ns;
		ret = il_sleep_until(CLOCK_MONOTONIC, due);
		t1 = il_now_ns(CLOCK_MONOTONIC);
		if (ret)
			return il_errorf(ret, "clock_nanosleep: %s",
					 strerror(-ret));
		m->t_start = due;
		m->t_end = t1;
		return 0;
	}
	__atomic_store_n(&m->armed, i, __ATOMIC_RELEASE);
	for (;;) {
		/* Untimed: no hrtimer is armed on the measured CPU. */
		r = syscall(SYS_futex, &m->word, FUTEX_WAIT_PRIVATE, i - 1,
			    NULL, NULL, 0);
		t1 = il_clock_read(&st->clk);
		if (__atomic_load_n(&m->word, __ATOMIC_ACQUIRE) != i - 1)
			break;
		if (r && errno != EAGAIN && errno != EINTR)
			return il_errorf(-errno, "FUTEX_WAIT: %s",
					 strerror(errno));
	}
	/* EAGAIN: released before it slept, so t1 is not a wake. */
	m->err = r ? errno : 0;
	m->t_start = __atomic_load_n(&m->t0, __ATOMIC_RELAXED);
	m->t_end = t1;
	return 0;
}

static int is_target(struct is_state *st, struct is_pair *pr)
{
	struct is_shm *m = pr->shm;
	uint32_t i, c;
	int ret;

	if (il_wait_turn(&st->turn, (uint32_t)(pr - st->pair)))
		return 0;
	for (i = 1; ; i++) {
		/* Spin, never block, between samples: an idle entry here
		 * would be charged to the next sample's counters. */
		while ((c = __atomic_load_n(&m->cmd, __ATOMIC_ACQUIRE)) < i)
			il_cpu_relax();
		if (__atomic_load_n(&m->done, __ATOMIC_ACQUIRE))
			return 0;
		ret = is_target_sample(st, m, i);
		if (ret)
			return ret;
		__atomic_store_n(&m->fin, i, __ATOMIC_RELEASE);
	}
}

/* Sleep until hot_us before @target, then spin to it. */
static int is_hot_until(const struct is_params *p, uint64_t target)
{
	uint64_t hot = p->hot_us * 1000;
	int ret;

	if (target > il_now_ns(CLOCK_MONOTONIC) + hot) {
		ret = il_sleep_until(CLOCK_MONOTONIC, target - hot);
		if (ret)
			return il_errorf(ret, "clock_nanosleep: %s",
					 strerror(-ret));
	}
	while (il_now_ns(CLOCK_MONOTONIC) < target)
		il_cpu_relax();
	return 0;
}

/* Wait for the target to store @field == @i.  Return: 0, or 1 if it has
 * exited (failed). */
static int is_wait_for(struct is_shm *m, uint32_t *field, uint32_t i)
{
	while (__atomic_load_n(field, __ATOMIC_ACQUIRE) != i) {
		if (__atomic_load_n(&m->exited, __ATOMIC_ACQUIRE))
			return 1;
		il_cpu_relax();
	}
	return 0;
}

/* Store sample @i of visit @v; the counters moved from @b to @e. */
static void is_record(struct is_state *st, struct is_pair *pr,
		      const struct is_visit *v, const uint64_t *b,
		      const uint64_t *e)
{
	struct il_run *run = st->pool.run;
	struct is_shm *m = pr->shm;
	int64_t d_us = (int64_t)st->p->idle_us.v[v->di];
	struct il_series *s = v->reads ? pr->all[v->di] : pr->bare[v->di];
	struct il_series *in = NULL;
	uint64_t ns;

	if (v->reads && pr->u.n)
		in = is_entered(run, pr, v->di, d_us, b, e);
	if (m->err) {
		il_series_drop(s, IL_DROP_RACE);
		if (in)
			il_series_drop(in, IL_DROP_RACE);
		return;
	}
	if (m->t_end < m->t_start) {
		il_series_early(s);
		if (in)
			il_series_early(in);
		return;
	}
	ns = st->p->wake == IS_WAKE_IPI ?
	     il_clock_ns(&st->clk, m->t_end - m->t_start) :
	     m->t_end - m->t_start;
	il_series_add(s, ns);
	if (in)
		il_series_add(in, ns);
	/* --causes: the window [due or t0, wake] on the target's CPU. */
	il_causes_note(run, s, m->t_start, ns);
}

/* The counters into @v, the time it took added to *@ns. */
static int is_read_timed(struct is_pair *pr, uint64_t *v, uint64_t *ns,
			 uint64_t *nread)
{
	uint64_t t = il_now_ns(CLOCK_MONOTONIC);
	int ret = il_cpuidle_usage_read(&pr->u, v);

	*ns += il_now_ns(CLOCK_MONOTONIC) - t;
	(*nread)++;
	if (ret)
		return il_errorf(ret, "reading CPU %d's cpuidle usage: %s",
				 pr->b, strerror(-ret));
	return 0;
}

/* The energy of one sample of @v, which moved the counters @b to @e. */
static void is_energy_add(struct is_state *st, struct is_pair *pr,
			  const struct is_visit *v, const uint64_t *b,
			  const uint64_t *e, uint64_t eb, uint64_t ee)
{
	int k = il_cpuidle_entered(&pr->u, b, e);
	double d = (double)st->p->idle_us.v[v->di], x = (double)(ee - eb);
	struct is_esum *s;

	/* Ambiguous, not idle or a failed sample: no state to charge. */
	if (k >= pr->u.n || pr->shm->err)
		return;
	s = &pr->es[k];
	s->n++;
	s->sd += d;
	s->se += x;
	s->sdd += d * d;
	s->sde += d * x;
}

/* The sums per state, as attributes, and a read error's reason. */
static void is_energy_attrs(struct is_state *st, struct is_pair *pr, int err)
{
	char key[IL_CPUIDLE_NAME + 16];
	int k;

	if (err)
		il_run_attr(st->pool.run, pr->b, "energy",
			    "unavailable: reading energy_uj failed mid-run: %s",
			    strerror(-err));
	for (k = 0; !err && k < pr->u.n; k++) {
		if (!pr->es[k].n)
			continue;
		snprintf(key, sizeof(key), "energy_in_%s", pr->u.name[k]);
		/* n, then the sums of d, E, d*d and d*E, in us and uJ. */
		il_run_attr(st->pool.run, pr->b, key,
			    "%" PRIu64 " %.17g %.17g %.17g %.17g", pr->es[k].n,
			    pr->es[k].sd, pr->es[k].se, pr->es[k].sdd,
			    pr->es[k].sde);
	}
}

static int is_observer(struct is_state *st, struct is_pair *pr)
{
	const struct is_params *p = st->p;
	struct is_shm *m = pr->shm;
	uint64_t b[IL_CPUIDLE_MAX], e[IL_CPUIDLE_MAX], t, read_ns = 0, nread = 0;
	uint64_t eb = 0, ee = 0;
	int eerr = 0;
	const struct is_visit *v;
	size_t k;
	uint32_t i = 0;
	int ret = 0;

	if (il_wait_turn(&st->turn, (uint32_t)(pr - st->pair)))
		return 0;
	for (k = 0; k < st->norder + IS_WARMUP && !il_stop_requested(); k++) {
		/* The warm-up visits the first entries again, unrecorded. */
		v = &st->order[k < IS_WARMUP ? k % st->norder :
			       k - IS_WARMUP];
		i++;
		if (v->reads && pr->u.n) {
			ret = is_read_timed(pr, b, &read_ns, &nread);
			if (ret)
				break;
		}
		if (v->reads && pr->en.n && !eerr)
			eerr = il_energy_read(&pr->en, &eb);
		t = il_now_ns(CLOCK_MONOTONIC);
		__atomic_store_n(&m->d_ns, p->idle_us.v[v->di] * 1000,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&m->cmd, i, __ATOMIC_RELEASE);
		if (p->wake == IS_WAKE_IPI) {
			if (is_wait_for(m, &m->armed, i))
				break;
			ret = is_hot_until(p, il_now_ns(CLOCK_MONOTONIC) +
					      p->idle_us.v[v->di] * 1000);
			if (ret)
				break;
			__atomic_store_n(&m->t0, il_clock_read(&st->clk),
					 __ATOMIC_RELAXED);
			__atomic_store_n(&m->word, i, __ATOMIC_RELEASE);
			il_futex_wake(&m->word, 1);
		} else {
			ret = is_hot_until(p, t + p->idle_us.v[v->di] * 1000);
			if (ret)
				break;
		}
		if (is_wait_for(m, &m->fin, i))
			break;
		if (v->reads && pr->u.n) {
			ret = is_read_timed(pr, e, &read_ns, &nread);
			if (ret)
				break;
		}
		if (v->reads && pr->en.n && !eerr)
			eerr = il_energy_read(&pr->en, &ee);
		if (k >= IS_WARMUP)
			is_record(st, pr, v, b, e);
		if (k >= IS_WARMUP && v->reads && pr->en.n && !eerr)
			is_energy_add(st, pr, v, b, e, eb, ee);
	}
	if (pr->en.n)
		is_energy_attrs(st, pr, eerr);
	if (nread)
		il_run_attr(st->pool.run, pr->b, "state_read_ns_mean",
			    "%" PRIu64, read_ns / nread);
	/* done before cmd moves on, so the spinning target sees both. */
	__atomic_store_n(&m->done, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&m->cmd, i + 1, __ATOMIC_RELEASE);
	is_wait_for(m, &m->exited, 1);
	__atomic_add_fetch(&st->turn, 1, __ATOMIC_RELEASE);
	il_futex_wake(&st->turn, INT_MAX);
	return ret;
}

int idle_sweep_init(struct il_worker *w)
{
	struct is_state *st = w->pool->arg;

	il_sched_fifo(w->pool->run, w->cpu, (int)st->p->priority);
	if (w->idx % 2)
		il_timer_slack(w->pool->run, w->cpu, 1);
	return 0;
}

int idle_sweep_thread(struct il_worker *w)
{
	struct is_state *st = w->pool->arg;
	struct is_pair *pr = &st->pair[w->idx / 2];
	int ret;

	if (w->idx % 2 == 0)
		return is_observer(st, pr);
	ret = is_target(st, pr);
	/* On every path, or the observer would wait for it. */
	__atomic_store_n(&pr->shm->exited, 1, __ATOMIC_RELEASE);
	return ret;
}
