// SPDX-License-Identifier: GPL-2.0-only
/*
 * idle_sweep.c - wake cost against how long the CPU was idle, and which
 * idle state it was in: the map of issue 24, latency(d, entered state,
 * wake source), through the kernel's real idle path.
 *
 * Each pair (a, b) has an observer bound to CPU a and a target bound to
 * CPU b.  For every sample the target blocks for an idle time d taken from
 * the idle_us list, in a seeded random order (each d `samples` times), and
 * is woken by:
 *  - timer: its own hrtimer, an absolute clock_nanosleep(CLOCK_MONOTONIC)
 *    due d after it blocks.  wake_latency is taken between the time the
 *    sleep was due and the target's clock_gettime() right after it returns
 *    (timer_wake's two timestamps);
 *  - ipi: a FUTEX_WAKE from the observer d after the target announced that
 *    it is about to block, which sends the reschedule IPI.  wake_latency is
 *    taken between the observer's timestamp just before FUTEX_WAKE and the
 *    target's right after its FUTEX_WAIT returns (futex_wake's two).
 *
 * The idle state entered comes from the target's per-state cpuidle `usage`
 * counters, read by the observer on CPU a before and after each sample,
 * outside the timed window: the target spins between samples, so it cannot
 * enter idle between the two reads except inside the sample.  One entry in
 * one state names the state; more than one entry (the governor or a tick
 * woke it and it went back) is "ambiguous", and no entry "not_idle"; none
 * is ever guessed.  Where the target has no cpuidle states (no driver) the
 * run says so (attribute entered_state) and stores only the per-d series.
 * With --causes, every sample is noted on the per-d series, whose
 * power:cpu_idle states the causes machinery stores per sample.
 *
 * Series per pair, group = d in us: wake_latency (every sample at d),
 * wake_latency_in_<state> / _ambiguous / _not_idle (by entered state),
 * and with reads=both wake_latency_noreads: the same sweep interleaved
 * with samples whose counters are not read, so the cost of the reads on
 * the figure is measured in the same run (BENCHMARKS.md).
 *
 * Why it is built this way:
 *  - the observer, not the target, reads the counters and records the
 *    samples, so the target does nothing but block and wake;
 *  - the observer sleeps through most of d and spins the last hot_us, so
 *    in ipi mode t0 is taken on a running CPU (as in futex_wake);
 *  - the random order keeps a d from always following the same d, so no
 *    governor history or cache state is phase-locked to the list;
 *  - pairs run one after another: they may share CPUs.
 */
#include "bench.h"
#include "common.h"
#include "err.h"
#include "splitmix.h"

#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define IS_WARMUP	4

enum { IS_WAKE_TIMER, IS_WAKE_IPI };
enum { IS_READS_ON, IS_READS_OFF, IS_READS_BOTH };

static const char *const is_wakes[] = { "timer", "ipi", NULL };
static const char *const is_reads[] = { "on", "off", "both", NULL };

struct is_params {
	uint64_t samples;
	struct il_u64_list idle_us;
	int wake;
	int reads;
	uint64_t hot_us;
	uint64_t priority;
	uint64_t seed;
};

/* One pair's handshake, on the target's node. */
struct is_shm {
	/* Written by the observer. */
	uint32_t cmd __attribute__((aligned(IL_CACHELINE)));
	uint32_t word;		/* the futex of wake=ipi */
	uint32_t done;
	uint64_t d_ns;
	uint64_t t0;
	/* Written by the target. */
	uint32_t armed __attribute__((aligned(IL_CACHELINE)));
	uint32_t fin;
	uint32_t exited;
	int err;		/* errno of the wait; 0 */
	uint64_t t_start;	/* due time (timer) or t0 (ipi) */
	uint64_t t_end;
};

/* One sample to take: index into idle_us, and whether to read. */
struct is_visit {
	uint16_t di;
	bool reads;
};

struct is_pair {
	int a, b;
	struct is_shm *shm;
	struct il_series **all;		/* per d */
	struct il_series **bare;	/* per d, reads=both only */
	struct il_series **by;		/* per d x (nstates + 2), lazily */
	struct il_cpuidle_usage u;	/* the target's counters */
};

struct is_state {
	const struct is_params *p;
	struct il_clock clk;
	int npairs;
	struct is_pair *pair;
	int *cpus;			/* 2 per pair: observer, target */
	struct is_visit *order;
	size_t norder;
	uint32_t turn __attribute__((aligned(IL_CACHELINE)));
	struct il_pool pool;
};

static const struct il_opt is_opts[] = {
	{ .name = "samples", .type = IL_OPT_U64,
	  .offset = offsetof(struct is_params, samples),
	  .min = 1, .max = 10000000, .def = "200", .unit = "count",
	  .help = "wake-ups measured per idle time per pair (per reads kind with reads=both)",
	  .scale = true },
	{ .name = "idle_us", .type = IL_OPT_LIST,
	  .offset = offsetof(struct is_params, idle_us),
	  .min = 1, .max = 1000000,
	  .def = "1,2,5,10,20,50,100,200,500,1000,2000,5000", .unit = "us",
	  .help = "the idle times d the target is left blocked before its wake, visited in a seeded random order" },
	{ .name = "wake", .type = IL_OPT_ENUM,
	  .offset = offsetof(struct is_params, wake), .def = "timer",
	  .unit = "", .choices = is_wakes,
	  .help = "timer: the target's own hrtimer (clock_nanosleep); ipi: a FUTEX_WAKE from the observer CPU (reschedule IPI)" },
	{ .name = "reads", .type = IL_OPT_ENUM,
	  .offset = offsetof(struct is_params, reads), .def = "on",
	  .unit = "", .choices = is_reads,
	  .help = "on: read the cpuidle usage counters around every sample; off: never (no entered state); both: interleave the two, to measure what the reads cost" },
	{ .name = "hot_us", .type = IL_OPT_U64,
	  .offset = offsetof(struct is_params, hot_us),
	  .min = 0, .max = 1000000, .def = "20", .unit = "us",
	  .help = "the observer spins the last hot_us of each idle time instead of sleeping, so it is running when the wake is due" },
	{ .name = "priority", .type = IL_OPT_U64,
	  .offset = offsetof(struct is_params, priority),
	  .min = 0, .max = 99, .def = "0", .unit = "",
	  .help = "SCHED_FIFO priority of both threads where permitted (obtained policy recorded); 0 = stay SCHED_OTHER" },
	{ .name = "seed", .type = IL_OPT_U64,
	  .offset = offsetof(struct is_params, seed),
	  .min = 0, .max = UINT64_MAX, .def = "0", .unit = "",
	  .help = "seed of the visiting order (recorded); 0 = from the clock" },
	IL_OPT_END
};

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

static int is_observer(struct is_state *st, struct is_pair *pr)
{
	const struct is_params *p = st->p;
	struct is_shm *m = pr->shm;
	uint64_t b[IL_CPUIDLE_MAX], e[IL_CPUIDLE_MAX], t, read_ns = 0, nread = 0;
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
		if (k >= IS_WARMUP)
			is_record(st, pr, v, b, e);
	}
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

static int is_init(struct il_worker *w)
{
	struct is_state *st = w->pool->arg;

	il_sched_fifo(w->pool->run, w->cpu, (int)st->p->priority);
	if (w->idx % 2)
		il_timer_slack(w->pool->run, w->cpu, 1);
	return 0;
}

static int is_thread(struct il_worker *w)
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

/* ---- setup and the ops ------------------------------------------------- */

static void is_teardown(struct il_run *run)
{
	struct is_state *st = run->priv;
	int i;

	if (!st)
		return;
	il_pool_stop(&st->pool);
	for (i = 0; st->pair && i < st->npairs; i++) {
		struct is_pair *pr = &st->pair[i];

		il_cpuidle_usage_close(&pr->u);
		il_free_local(pr->shm, sizeof(struct is_shm));
		free(pr->all);
		free(pr->bare);
		free(pr->by);
	}
	free(st->pair);
	free(st->cpus);
	free(st->order);
	free(st);
	run->priv = NULL;
}

static int is_check(const void *params, const struct il_placement *pl)
{
	const struct is_params *p = params;
	int i;

	if (p->idle_us.n < 1)
		return il_errorf(-EINVAL, "idle_us: at least one idle time is needed");
	if (!pl)
		return 0;
	if (pl->kind != IL_PLACE_PAIRS || pl->npairs < 1)
		return il_errorf(-EINVAL, "--cpus '%s': idle_sweep needs CPU pairs OBSERVER-TARGET (e.g. pairs:0-1)",
				 pl->spec);
	for (i = 0; i < pl->npairs; i++)
		if (pl->pairs[i].a == pl->pairs[i].b)
			return il_errorf(-EINVAL, "--cpus '%s': pair %d-%d is one CPU; the observer needs its own",
					 pl->spec, pl->pairs[i].a,
					 pl->pairs[i].b);
	return 0;
}

/*
 * The visiting order: each d `samples` times (twice, reads on and off,
 * with reads=both), shuffled by Fisher-Yates from the seed.
 */
static int is_make_order(struct il_run *run, struct is_state *st)
{
	const struct is_params *p = st->p;
	int kinds = p->reads == IS_READS_BOTH ? 2 : 1;
	uint64_t rng = p->seed ? p->seed : il_now_ns(CLOCK_MONOTONIC);
	size_t n = (size_t)p->samples * (size_t)p->idle_us.n * (size_t)kinds;
	size_t i, j;
	struct is_visit tmp;

	st->order = calloc(n, sizeof(*st->order));
	if (!st->order)
		return il_errorf(-ENOMEM, "out of memory for %zu samples", n);
	for (i = 0; i < n; i++) {
		st->order[i].di = (uint16_t)(i % (size_t)p->idle_us.n);
		st->order[i].reads = p->reads == IS_READS_ON ||
				     (kinds == 2 && (i / (size_t)p->idle_us.n) % 2);
	}
	il_run_attr(run, -1, "seed", "%" PRIu64, rng);
	for (i = n - 1; i > 0; i--) {
		j = (size_t)(il_splitmix64(&rng) % (i + 1));
		tmp = st->order[i];
		st->order[i] = st->order[j];
		st->order[j] = tmp;
	}
	st->norder = n;
	return 0;
}

static int is_setup_pair(struct il_run *run, struct is_state *st,
			 struct is_pair *pr)
{
	const struct is_params *p = st->p;
	char why[160] = "";
	int di, node, ret;

	pr->shm = il_alloc_local(run->topo, pr->b, sizeof(*pr->shm), &node);
	pr->all = calloc((size_t)p->idle_us.n, sizeof(*pr->all));
	pr->bare = calloc((size_t)p->idle_us.n, sizeof(*pr->bare));
	if (!pr->shm || !pr->all || !pr->bare)
		return il_errorf(-ENOMEM, "out of memory");
	if (p->reads != IS_READS_OFF) {
		ret = il_cpuidle_usage_open(&pr->u, pr->b, why, sizeof(why));
		if (ret < 0)
			return ret;
	} else {
		snprintf(why, sizeof(why), "unavailable: not read (reads=off)");
	}
	il_run_attr(run, pr->b, "entered_state", "%s", why[0] ? why :
		    "cpuidle usage counters, read on the observer CPU between samples");
	pr->by = calloc((size_t)p->idle_us.n * (size_t)(pr->u.n + 2),
			sizeof(*pr->by));
	if (!pr->by)
		return il_errorf(-ENOMEM, "out of memory");
	for (di = 0; di < p->idle_us.n; di++) {
		pr->all[di] = il_run_series(run, "wake_latency", "ns", pr->a,
					    pr->b, (int64_t)p->idle_us.v[di],
					    false);
		if (!pr->all[di])
			return il_errorf(-ENOMEM, "out of memory for a series");
		if (p->reads != IS_READS_BOTH)
			continue;
		pr->bare[di] = il_run_series(run, "wake_latency_noreads", "ns",
					     pr->a, pr->b,
					     (int64_t)p->idle_us.v[di], false);
		if (!pr->bare[di])
			return il_errorf(-ENOMEM, "out of memory for a series");
	}
	/* reads=off stores its samples as the plain per-d series. */
	if (p->reads == IS_READS_OFF)
		memcpy(pr->bare, pr->all, (size_t)p->idle_us.n * sizeof(*pr->all));
	return 0;
}

static int is_setup(struct il_run *run)
{
	const struct is_params *p = run->params;
	const struct il_placement *pl = &run->place;
	struct is_state *st;
	int i, ret;

	ret = is_check(p, pl);
	if (ret)
		return ret;
	st = calloc(1, sizeof(*st));
	if (!st)
		return il_errorf(-ENOMEM, "out of memory");
	run->priv = st;
	st->p = p;
	st->npairs = pl->npairs;
	st->pair = calloc((size_t)st->npairs, sizeof(*st->pair));
	st->cpus = calloc((size_t)st->npairs * 2, sizeof(*st->cpus));
	if (!st->pair || !st->cpus) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto fail;
	}
	ret = is_make_order(run, st);
	if (ret)
		goto fail;
	if (p->wake == IS_WAKE_IPI)
		il_clock_pick(run, &st->clk, true);
	else
		il_run_attr(run, -1, "clock", "CLOCK_MONOTONIC (the timer's own clock)");
	for (i = 0; i < st->npairs; i++) {
		struct is_pair *pr = &st->pair[i];

		pr->a = pl->pairs[i].a;
		pr->b = pl->pairs[i].b;
		st->cpus[2 * i] = pr->a;
		st->cpus[2 * i + 1] = pr->b;
		ret = is_setup_pair(run, st, pr);
		if (ret)
			goto fail;
	}
	ret = il_pool_start(&st->pool, run, st->npairs * 2, st->cpus, is_init,
			    is_thread, st);
	if (ret)
		goto fail;
	return 0;
fail:
	is_teardown(run);
	return ret;
}

static int is_run(struct il_run *run)
{
	struct is_state *st = run->priv;

	return il_pool_run(&st->pool);
}

/* Every sample waits its d plus some 30 us of handshake and reads. */
static uint64_t is_estimate_ns(const void *params,
			       const struct il_placement *place)
{
	const struct is_params *p = params;
	uint64_t npairs = place && place->kind == IL_PLACE_PAIRS &&
			  place->npairs > 0 ? (uint64_t)place->npairs : 1;
	uint64_t sum = 0;
	int i;

	for (i = 0; i < p->idle_us.n; i++)
		sum += p->idle_us.v[i] + 30;
	return npairs * (p->reads == IS_READS_BOTH ? 2 : 1) * p->samples *
	       sum * 1000ULL;
}

const struct il_bench_ops il_bench_idle_sweep = {
	.name = "idle_sweep",
	.summary = "wake latency against idle time d, per idle state entered (cpuidle usage read between samples)",
	.timestamps = "wake_latency (group d): wake=timer, from the absolute CLOCK_MONOTONIC time the target's clock_nanosleep was due to its clock_gettime right after; "
		      "wake=ipi, from the observer's timestamp just before FUTEX_WAKE (CPU a) to the target's right after FUTEX_WAIT returns (CPU b), TSC where the clocksource is tsc, else CLOCK_MONOTONIC",
	.flags = IL_BF_PAIRS		/* observer on pair.a, target on pair.b */
		| IL_BF_MULTI_CPU,	/* the counters are read from CPU a */
	.default_cpus = "pairs:0-1",
	.opts = is_opts,
	.params_size = sizeof(struct is_params),
	.supported = NULL,	/* without cpuidle the entered state is
				 * unavailable, the latencies are not */
	.setup = is_setup,
	.run = is_run,
	.teardown = is_teardown,
	.estimate_ns = is_estimate_ns,
	.check = is_check,
};
