// SPDX-License-Identifier: GPL-2.0-only
/*
 * futex_wake.c - cross-CPU wake-up latency of a thread blocked in
 * FUTEX_WAIT, per CPU pair: the path of the kernel's reschedule IPI.
 *
 * Each pair (a, b) has a waker bound to CPU a and a sleeper bound to CPU b.
 * The sleeper blocks in FUTEX_WAIT; the waker lets it sit for idle_us, so
 * CPU b can enter an idle state, then takes t0 and calls FUTEX_WAKE.  The
 * sleeper takes t1 as the first thing after FUTEX_WAIT returns.
 * wake_latency is taken between those two timestamps: t0, read by the
 * waker just before FUTEX_WAKE, and t1, read by the sleeper right after its
 * FUTEX_WAIT returns.  It covers the futex hash lookup, the reschedule IPI
 * (or the idle-polling flag) to CPU b, the exit from its idle state and the
 * switch to the sleeper.
 *
 * Why it is built this way:
 *  - t0 and t1 are read on different CPUs, so they come from the TSC only
 *    where the kernel itself trusts it across CPUs (clocksource tsc), else
 *    from CLOCK_MONOTONIC; the choice is recorded.  A t1 before t0 would be
 *    a clock skew, and is counted as early, never as a sample;
 *  - the waker sleeps (clock_nanosleep) through most of idle_us rather
 *    than spin, so an SMT sibling pair can let its whole core go idle, but
 *    wakes hot_us early and spins: t0 is taken on a waker that is running,
 *    not one still leaving its own idle state, whose exit would otherwise
 *    be charged to the sleeper's wake (the least time spun is recorded,
 *    run attribute waker_hot_min_ns);
 *  - the sleeper's FUTEX_WAIT is untimed: a timed one arms and cancels an
 *    hrtimer on the measured CPU on every wait.  It cannot hang: the waker
 *    ends every path by setting done and waking it;
 *  - SCHED_FIFO at `priority` for both threads where permitted; what was
 *    obtained (or the refusal) is recorded per CPU (sched_policy);
 *  - the word, t0 and the sleeper's flags live on the sleeper's NUMA node
 *    (the node is recorded): the sleeper's reads after the wake are local;
 *  - the sleeper announces each sample number before it waits, and the
 *    waker releases exactly that number, so a spurious wake (the word still
 *    unchanged) loops back without a sample, and a wake that found the
 *    sleeper not yet asleep (EAGAIN) is counted as dropped;
 *  - pairs run one after another, never together: pairs may share CPUs,
 *    and concurrent pairs would disturb each other's idle states.
 * Every other wait is bounded (IL_WAIT_SLICE_NS), so a stop request or a
 * failed partner is noticed quickly.
 */
#include "bench.h"
#include "common.h"
#include "err.h"

#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FW_WARMUP	3

struct fw_params {
	uint64_t samples;
	uint64_t idle_us;
	uint64_t hot_us;
	uint64_t priority;
};

/* Shared by one pair, on the sleeper's node. */
struct fw_shm {
	/* Written by the waker, read by the sleeper right after it wakes:
	 * one cache line. */
	uint32_t word __attribute__((aligned(IL_CACHELINE)));
	uint32_t done;		/* the waker has finished */
	uint64_t t0;
	/* Written by the sleeper. */
	uint32_t armed __attribute__((aligned(IL_CACHELINE)));
	uint32_t exited;
	uint64_t measured;	/* samples + early, after the warmup */
};

struct fw_pair {
	int a, b;
	struct fw_shm *shm;
	struct il_series *s;
};

struct fw_state {
	const struct fw_params *p;
	struct il_clock clk;
	int npairs;
	struct fw_pair *pair;
	int *cpus;			/* 2 per pair: waker, sleeper */
	uint32_t turn __attribute__((aligned(IL_CACHELINE)));
	struct il_pool pool;
};

static const struct il_opt fw_opts[] = {
	{ .name = "samples", .type = IL_OPT_U64,
	  .offset = offsetof(struct fw_params, samples),
	  .min = 1, .max = 1000000000, .def = "1000", .unit = "count",
	  .help = "wake-ups measured per pair (at most 2x as many attempts; a wake that finds the sleeper awake is dropped)",
	  .scale = true },
	{ .name = "idle_us", .type = IL_OPT_U64,
	  .offset = offsetof(struct fw_params, idle_us),
	  .min = 0, .max = 10000000, .def = "500", .unit = "us",
	  .help = "how long the sleeper is left blocked before each wake, so its CPU can go idle" },
	{ .name = "hot_us", .type = IL_OPT_U64,
	  .offset = offsetof(struct fw_params, hot_us),
	  .min = 0, .max = 1000000, .def = "20", .unit = "us",
	  .help = "the waker spins at least this long after its own wake before taking t0, so t0 is not taken on a CPU leaving idle" },
	{ .name = "priority", .type = IL_OPT_U64,
	  .offset = offsetof(struct fw_params, priority),
	  .min = 0, .max = 99, .def = "0", .unit = "",
	  .help = "SCHED_FIFO priority of both threads where permitted (obtained policy recorded); 0 = stay SCHED_OTHER" },
	IL_OPT_END
};

static int fw_sleeper(struct fw_state *st, struct fw_pair *pr)
{
	struct fw_shm *m = pr->shm;
	uint64_t t0, t1, i;
	uint32_t w;
	long r;
	int err;

	if (il_wait_turn(&st->turn, (uint32_t)(pr - st->pair)))
		return 0;
	for (i = 1; ; i++) {
		__atomic_store_n(&m->armed, (uint32_t)i, __ATOMIC_RELEASE);
		for (;;) {
			/* Untimed: no hrtimer armed on this CPU (see top). */
			r = syscall(SYS_futex, &m->word, FUTEX_WAIT_PRIVATE,
				    (uint32_t)(i - 1), NULL, NULL, 0);
			/* t1: the first thing after the wait returns. */
			t1 = il_clock_read(&st->clk);
			err = r ? errno : 0;
			w = __atomic_load_n(&m->word, __ATOMIC_ACQUIRE);
			if (__atomic_load_n(&m->done, __ATOMIC_ACQUIRE))
				return 0;
			if (w != (uint32_t)(i - 1))
				break;
			/* Word unchanged: spurious wake or signal. */
			if (err && err != EAGAIN && err != EINTR)
				return il_errorf(-err, "FUTEX_WAIT: %s",
						 strerror(err));
			/* A waker stopped before its turn never sets done. */
			if (il_stop_requested())
				return 0;
		}
		if (i <= FW_WARMUP)
			continue;
		if (err) {
			/* EAGAIN: released before we slept; EINTR racing
			 * the release: t1 is not the wake. */
			il_series_drop(pr->s, IL_DROP_RACE);
			continue;
		}
		t0 = __atomic_load_n(&m->t0, __ATOMIC_RELAXED);
		if (t1 < t0)
			il_series_early(pr->s);
		else {
			il_series_add(pr->s, il_clock_ns(&st->clk, t1 - t0));
			/* --causes: the window [t0, t1], seen on the sleeper's CPU. */
			il_causes_note(st->pool.run, pr->s, t0,
				       il_clock_ns(&st->clk, t1 - t0));
		}
		__atomic_store_n(&m->measured, m->measured + 1,
				 __ATOMIC_RELAXED);
	}
}

static int fw_waker(struct fw_state *st, struct fw_pair *pr)
{
	const struct fw_params *p = st->p;
	struct fw_shm *m = pr->shm;
	uint64_t idle_ns = p->idle_us * 1000, hot_ns = p->hot_us * 1000;
	uint64_t i, t0, deadline, target, woke, hot_min = UINT64_MAX;
	uint64_t attempts = 2 * p->samples + FW_WARMUP;
	int ret = 0;

	if (il_wait_turn(&st->turn, (uint32_t)(pr - st->pair)))
		return 0;
	for (i = 1; i <= attempts; i++) {
		/* The sleeper arms i once it has recorded sample i - 1. */
		while (__atomic_load_n(&m->armed, __ATOMIC_ACQUIRE) != i) {
			if (il_stop_requested() ||
			    __atomic_load_n(&m->exited, __ATOMIC_ACQUIRE))
				goto out;
			il_cpu_relax();
		}
		if (__atomic_load_n(&m->measured, __ATOMIC_RELAXED) >= p->samples ||
		    il_stop_requested())
			break;
		target = il_now_ns(CLOCK_MONOTONIC) + idle_ns;
		if (idle_ns > hot_ns) {
			ret = il_sleep_until(CLOCK_MONOTONIC, target - hot_ns);
			if (ret) {
				ret = il_errorf(ret, "clock_nanosleep: %s",
						strerror(-ret));
				break;
			}
		}
		/* Hot: spin until the idle time is over, and at least
		 * hot_us after our own wake, however late it came. */
		woke = il_now_ns(CLOCK_MONOTONIC);
		if (woke + hot_ns > target)
			target = woke + hot_ns;
		while ((t0 = il_now_ns(CLOCK_MONOTONIC)) < target)
			il_cpu_relax();
		if (t0 - woke < hot_min)
			hot_min = t0 - woke;
		t0 = il_clock_read(&st->clk);
		__atomic_store_n(&m->t0, t0, __ATOMIC_RELAXED);
		__atomic_store_n(&m->word, (uint32_t)i, __ATOMIC_RELEASE);
		il_futex_wake(&m->word, 1);
	}
out:
	if (hot_min != UINT64_MAX)
		il_run_attr(st->pool.run, pr->a, "waker_hot_min_ns", "%" PRIu64,
			    hot_min);
	/* done before the word moves on, so the sleeper that sees the new
	 * word also sees done and takes no sample from it. */
	__atomic_store_n(&m->done, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&m->word, 1, __ATOMIC_RELEASE);
	il_futex_wake(&m->word, 1);
	deadline = il_now_ns(CLOCK_MONOTONIC) + IL_SPIN_SETTLE_NS;
	while (!__atomic_load_n(&m->exited, __ATOMIC_ACQUIRE)) {
		if (il_now_ns(CLOCK_MONOTONIC) > deadline) {
			ret = il_errorf(-ETIMEDOUT, "the sleeper on CPU %d did not finish",
					pr->b);
			break;
		}
		il_sleep_until(CLOCK_MONOTONIC,
			       il_now_ns(CLOCK_MONOTONIC) + 100000);
	}
	__atomic_add_fetch(&st->turn, 1, __ATOMIC_RELEASE);
	il_futex_wake(&st->turn, INT_MAX);
	return ret;
}

/* On the bound thread, before the gate: the policy is per thread. */
static int fw_init(struct il_worker *w)
{
	struct fw_state *st = w->pool->arg;

	/* Refused (unprivileged) is recorded and does not stop the run. */
	il_sched_fifo(w->pool->run, w->cpu, (int)st->p->priority);
	return 0;
}

static int fw_thread(struct il_worker *w)
{
	struct fw_state *st = w->pool->arg;
	struct fw_pair *pr = &st->pair[w->idx / 2];
	int ret;

	if (w->idx % 2 == 0)
		return fw_waker(st, pr);
	ret = fw_sleeper(st, pr);
	/* On every path, or the waker would wait for it. */
	__atomic_store_n(&pr->shm->exited, 1, __ATOMIC_RELEASE);
	return ret;
}

static void fw_teardown(struct il_run *run)
{
	struct fw_state *st = run->priv;
	int i;

	if (!st)
		return;
	il_pool_stop(&st->pool);
	for (i = 0; st->pair && i < st->npairs; i++)
		il_free_local(st->pair[i].shm, sizeof(struct fw_shm));
	free(st->pair);
	free(st->cpus);
	free(st);
	run->priv = NULL;
}

/* Each pair must be two CPUs, and no pair may be measured twice. */
static int fw_check(const void *params, const struct il_placement *pl)
{
	int i, j;

	(void)params;
	if (!pl)
		return 0;
	if (pl->kind != IL_PLACE_PAIRS || pl->npairs < 1)
		return il_errorf(-EINVAL, "--cpus '%s': futex_wake needs CPU pairs (e.g. pairs:smt or pairs:0-1)",
				 pl->spec);
	for (i = 0; i < pl->npairs; i++) {
		if (pl->pairs[i].a == pl->pairs[i].b)
			return il_errorf(-EINVAL, "--cpus '%s': pair %d-%d is one CPU; a cross-CPU wake needs two",
					 pl->spec, pl->pairs[i].a, pl->pairs[i].b);
		for (j = 0; j < i; j++)
			if (pl->pairs[j].a == pl->pairs[i].a &&
			    pl->pairs[j].b == pl->pairs[i].b)
				return il_errorf(-EINVAL, "--cpus '%s': pair %d-%d is listed twice",
						 pl->spec, pl->pairs[i].a,
						 pl->pairs[i].b);
	}
	return 0;
}

static int fw_setup(struct il_run *run)
{
	const struct il_placement *pl = &run->place;
	struct fw_state *st;
	int i, node, ret;

	/* il_run_prepare() checked already; a direct caller is refused too. */
	ret = fw_check(run->params, pl);
	if (ret)
		return ret;
	st = calloc(1, sizeof(*st));
	if (!st)
		return il_errorf(-ENOMEM, "out of memory");
	run->priv = st;
	st->p = run->params;
	st->npairs = pl->npairs;
	st->pair = calloc((size_t)st->npairs, sizeof(*st->pair));
	st->cpus = calloc((size_t)st->npairs * 2, sizeof(*st->cpus));
	if (!st->pair || !st->cpus) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto fail;
	}
	il_clock_pick(run, &st->clk, true);
	for (i = 0; i < st->npairs; i++) {
		struct fw_pair *pr = &st->pair[i];

		pr->a = pl->pairs[i].a;
		pr->b = pl->pairs[i].b;
		st->cpus[2 * i] = pr->a;
		st->cpus[2 * i + 1] = pr->b;
		pr->shm = il_alloc_local(run->topo, pr->b, sizeof(*pr->shm),
					 &node);
		if (!pr->shm) {
			ret = -ENOMEM;
			goto fail;
		}
		if (node >= 0)
			il_run_attr(run, pr->b, "numa_node", "%d", node);
		else
			il_run_attr(run, pr->b, "numa_node",
				    "unknown: the buffer could not be bound to a node");
		pr->s = il_run_series(run, "wake_latency", "ns", pr->a, pr->b,
				      -1, false);
		if (!pr->s) {
			ret = il_errorf(-ENOMEM, "out of memory for a series");
			goto fail;
		}
	}
	ret = il_pool_start(&st->pool, run, st->npairs * 2, st->cpus, fw_init,
			    fw_thread, st);
	if (ret)
		goto fail;
	return 0;
fail:
	fw_teardown(run);
	return ret;
}

static int fw_run(struct il_run *run)
{
	struct fw_state *st = run->priv;

	return il_pool_run(&st->pool);
}

/* Each wake waits idle_us (or hot_us) plus a few us of futex round trip;
 * pairs one after another. */
static uint64_t fw_estimate_ns(const void *params,
			       const struct il_placement *place)
{
	const struct fw_params *p = params;
	uint64_t npairs = place && place->kind == IL_PLACE_PAIRS &&
			  place->npairs > 0 ? (uint64_t)place->npairs : 1;

	return npairs * (p->samples + FW_WARMUP) *
	       ((p->idle_us > p->hot_us ? p->idle_us : p->hot_us) + 20) * 1000ULL;
}

const struct il_bench_ops il_bench_futex_wake = {
	.name = "futex_wake",
	.summary = "cross-CPU futex wake-up latency per CPU pair (reschedule IPI + idle exit)",
	.timestamps = "wake_latency: from the waker's timestamp just before FUTEX_WAKE (CPU a) to the sleeper's timestamp right after its FUTEX_WAIT returns (CPU b); TSC where the clocksource is tsc, else CLOCK_MONOTONIC",
	.flags = IL_BF_PAIRS		/* waker on pair.a, sleeper on pair.b */
		| IL_BF_MULTI_CPU,	/* the wake crosses CPUs */
	.report = {
		.pairs_metric = "wake_latency",	/* waker -> sleeper matrix */
		.wake_source = "ipi",	/* the reschedule IPI */
	},
	.default_cpus = "pairs:0-1",
	.opts = fw_opts,
	.params_size = sizeof(struct fw_params),
	.supported = NULL,	/* futexes exist on every Linux */
	.setup = fw_setup,
	.run = fw_run,
	.teardown = fw_teardown,
	.estimate_ns = fw_estimate_ns,
	.check = fw_check,
};
