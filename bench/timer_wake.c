// SPDX-License-Identifier: GPL-2.0-only
/*
 * timer_wake.c - how late a thread sleeping on a timer wakes up, per CPU,
 * measured the way cyclictest (rt-tests) does.
 *
 * One thread per placed CPU, bound to it, sleeps with an absolute
 * clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) until a target time and
 * reads CLOCK_MONOTONIC as soon as it returns.  wake_latency is taken
 * between two timestamps: the target time the sleep was due (t_target) and
 * that clock_gettime() after the wake (t_wake).  It covers the timer
 * interrupt, the exit from whatever idle state the CPU was in, the wake-up
 * and the switch to the thread.
 *
 * Why it is built this way:
 *  - absolute targets, each the previous target plus the interval, so the
 *    time spent measuring and recording never shifts the schedule;
 *  - SCHED_FIFO where permitted, so the wake is not queued behind other
 *    work (the policy actually obtained is recorded per CPU);
 *  - timer slack 1 ns: the default 50 us slack of a SCHED_OTHER thread
 *    would otherwise dominate the figure (seen on this workplace's VMs);
 *  - mlockall, so a page fault never lands inside a sample;
 *  - optionally a PM QoS request held on /dev/cpu_dma_latency for the run,
 *    to compare shallow and deep idle;
 *  - a random interval (xorshift per thread, seed recorded) so the wake is
 *    not phase-locked to the tick or another periodic source;
 *  - thread i's interval is interval_us + i * distance_us (cyclictest's
 *    -d), so threads on CPUs that share a timer or a package can be kept
 *    from waking in step;
 *  - the raw buffer is allocated and touched in setup, before mlockall:
 *    a buffer growing in the loop would be populated under MCL_FUTURE
 *    inside a sample, and be recorded as wake latency.
 * When a wake is so late that the next target has already passed, the
 * schedule keeps its grid, as cyclictest does: the target moves on by
 * whole intervals until it lies ahead, and every period skipped is a
 * dropped sample (reason overrun), rather than a burst of immediate,
 * meaningless wakes or a schedule that silently restarts.  Those dropped
 * periods are the stalls' victims, so leaving them out flatters the tail
 * (coordinated omission): the series wake_latency_corrected holds every
 * measured sample plus, for each skipped target t, the latency now - t a
 * wake due at t would have had (HdrHistogram's correction), so its count
 * is the measured count plus the overrun drops.  The first few
 * wakes are discarded: they include cold caches and the first touch of the
 * timer's kernel structures.  With `--events none` no counter is open on
 * the measured CPUs (run attribute "counters").
 */
#include "bench.h"
#include "common.h"
#include "err.h"
#include "pmqos.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define TW_WARMUP		5

struct tw_params {
	uint64_t samples;
	uint64_t duration_ms;
	uint64_t interval_us;
	uint64_t interval_max_us;
	uint64_t distance_us;
	uint64_t priority;
	uint64_t pm_qos_us;
	uint64_t seed;
};

struct tw_state {
	struct il_bench_placed pl;	/* first: il_bench_state_new() */
	const struct tw_params *p;
	struct il_series **s;		/* one per thread */
	struct il_series **c;		/* each one's corrected twin */
	struct il_pool pool;
	int qos_fd;
	bool locked;
};

static const struct il_opt tw_opts[] = {
	{ .name = "samples", .type = IL_OPT_U64,
	  .offset = offsetof(struct tw_params, samples),
	  .min = 1, .max = 1000000000, .def = "1000", .unit = "count",
	  .help = "wake-ups measured per CPU (after 5 discarded)",
	  .scale = true },
	{ .name = "duration_ms", .type = IL_OPT_U64,
	  .offset = offsetof(struct tw_params, duration_ms),
	  .min = 0, .max = 86400000, .def = "0", .unit = "ms",
	  .help = "stop after this long even before samples is reached; 0 = no limit",
	  .scale = true },
	{ .name = "interval_us", .type = IL_OPT_U64,
	  .offset = offsetof(struct tw_params, interval_us),
	  .min = 1, .max = 10000000, .def = "1000", .unit = "us",
	  .help = "time from one target to the next (the lower bound if interval_max_us is set); cyclictest's default" },
	{ .name = "interval_max_us", .type = IL_OPT_U64,
	  .offset = offsetof(struct tw_params, interval_max_us),
	  .min = 0, .max = 10000000, .def = "0", .unit = "us",
	  .help = "if not 0, each interval is uniformly random in [interval_us, interval_max_us]" },
	{ .name = "distance_us", .type = IL_OPT_U64,
	  .offset = offsetof(struct tw_params, distance_us),
	  .min = 0, .max = 1000000, .def = "0", .unit = "us",
	  .help = "thread i's interval is interval_us + i * distance_us (cyclictest's -d; 0 as with its -S)" },
	{ .name = "priority", .type = IL_OPT_U64,
	  .offset = offsetof(struct tw_params, priority),
	  .min = 0, .max = 99, .def = "95", .unit = "",
	  .help = "SCHED_FIFO priority where permitted (obtained policy recorded); 0 = stay SCHED_OTHER" },
	{ .name = "pm_qos_us", .type = IL_OPT_U64,
	  .offset = offsetof(struct tw_params, pm_qos_us),
	  .min = 0, .max = IL_PM_QOS_NO_LIMIT_US, .def = IL_PM_QOS_NO_LIMIT_STR, .unit = "us",
	  .help = "PM QoS CPU latency request held on /dev/cpu_dma_latency for the run; 2000000000 (the kernel's 'no constraint') makes none" },
	{ .name = "seed", .type = IL_OPT_U64,
	  .offset = offsetof(struct tw_params, seed),
	  .min = 0, .max = UINT64_MAX, .def = "0", .unit = "",
	  .help = "seed of the random intervals, thread i uses seed + i (recorded); 0 = from the clock" },
	IL_OPT_END
};

static int tw_init(struct il_worker *w)
{
	struct tw_state *st = w->pool->arg;

	/* Both are per thread, so they are set here, on the bound thread;
	 * neither failing stops the run: what was obtained is recorded.  The
	 * slack after the policy: the kernel gives a SCHED_FIFO thread no
	 * slack at all (recent kernels read back 0 and ignore the prctl),
	 * so what is recorded is what is in force. */
	il_sched_fifo(w->pool->run, w->cpu, (int)st->p->priority);
	il_timer_slack(w->pool->run, w->cpu, 1);
	return 0;
}


static int tw_thread(struct il_worker *w)
{
	struct tw_state *st = w->pool->arg;
	const struct tw_params *p = st->p;
	struct il_series *s = st->s[w->idx], *c = st->c[w->idx];
	uint64_t lo = (p->interval_us + (uint64_t)w->idx * p->distance_us) * 1000;
	uint64_t span = 0, rng = 0, missed = 0, skipped;
	uint64_t next, now, end = UINT64_MAX, overruns = 0, k;
	int ret;

	if (p->interval_max_us) {
		span = (p->interval_max_us - p->interval_us) * 1000 + 1;
		rng = p->seed ? p->seed + (uint64_t)w->idx :
		      il_now_ns(CLOCK_MONOTONIC) ^
		      ((uint64_t)(w->cpu + 1) * UINT64_C(0x9E3779B97F4A7C15));
		if (!rng)
			rng = 1;	/* xorshift's one fixed point */
		il_run_attr(w->pool->run, w->cpu, "seed", "%" PRIu64, rng);
	}
	il_run_attr(w->pool->run, w->cpu, "interval_ns", "%" PRIu64, lo);
	now = il_now_ns(CLOCK_MONOTONIC);
	if (p->duration_ms)
		end = now + p->duration_ms * 1000000;
	next = now + lo + (span ? il_xorshift64s(&rng) % span : 0);
	for (k = 0; k < p->samples + TW_WARMUP; k++) {
		if (il_stop_requested())
			break;
		ret = il_sleep_until(CLOCK_MONOTONIC, next);
		now = il_now_ns(CLOCK_MONOTONIC);
		if (ret)
			return il_errorf(ret, "clock_nanosleep: %s",
					 strerror(-ret));
		if (k >= TW_WARMUP) {
			if (now < next) {
				il_series_early(s);
				il_series_early(c);
			} else {
				il_series_add(s, now - next);
				il_series_add(c, now - next);
				/* --causes: the window [due, wake]. */
				il_causes_note(w->pool->run, s, next, now - next);
			}
		}
		skipped = il_grid_next(&next, now, lo, span, &rng,
				       k >= TW_WARMUP ? c : NULL);
		if (skipped) {
			/* Overrun: whole periods passed while we were late. */
			overruns++;
			if (k >= TW_WARMUP) {
				missed += skipped;
				il_summary_drop(&s->sum, IL_DROP_OVERRUN,
						skipped);
			}
		}
		if (now >= end)
			break;
	}
	il_run_attr(w->pool->run, w->cpu, "overruns", "%" PRIu64, overruns);
	il_run_attr(w->pool->run, w->cpu, "missed_periods", "%" PRIu64, missed);
	return 0;
}

static void tw_teardown(struct il_run *run)
{
	struct tw_state *st = run->priv;

	if (st) {
		il_pool_stop(&st->pool);
		if (st->locked)
			il_munlock_all();
		il_pm_qos_release(st->qos_fd);
		free(st->s);
		free(st->c);
	}
	il_bench_state_free(run);
}

/* The threads a placement makes, less one: the last thread's index. */
static uint64_t tw_last_idx(const struct il_placement *place)
{
	return place && place->kind == IL_PLACE_CPUS && place->ncpus > 1 ?
	       (uint64_t)place->ncpus - 1 : 0;
}

/* samples x the slowest thread's (mean) interval, cut short by
 * duration_ms; CPUs run at once. */
static uint64_t tw_estimate_ns(const void *params,
			       const struct il_placement *place)
{
	const struct tw_params *p = params;
	uint64_t ns;

	ns = (p->samples + TW_WARMUP) *
	     (il_range_mean(p->interval_us, p->interval_max_us) +
	      tw_last_idx(place) * p->distance_us) * 1000ULL;
	if (p->duration_ms && p->duration_ms * 1000000ULL < ns)
		ns = p->duration_ms * 1000000ULL;
	return ns;
}

static int tw_check(const void *params, const struct il_placement *place)
{
	const struct tw_params *p = params;
	uint64_t last = p->interval_us + tw_last_idx(place) * p->distance_us;

	if (last > 10000000)
		return il_errorf(-EINVAL, "distance_us=%" PRIu64 ": the last thread's interval would be %" PRIu64 " us, above the 10 s interval_us allows",
				 p->distance_us, last);
	if (!p->interval_max_us)	/* a fixed interval */
		return 0;
	return il_check_not_below("interval_max_us", p->interval_max_us,
				  "interval_us", p->interval_us);
}

/* The most samples thread @idx can take: samples, or fewer periods in
 * duration_ms. */
static uint64_t tw_max_samples(const struct tw_params *p, int idx)
{
	uint64_t lo = (p->interval_us + (uint64_t)idx * p->distance_us) * 1000;
	uint64_t n = p->samples;

	if (p->duration_ms && p->duration_ms * 1000000 / lo + 1 < n)
		n = p->duration_ms * 1000000 / lo + 1;
	return n;
}

static int tw_setup(struct il_run *run)
{
	const struct tw_params *p = run->params;
	struct tw_state *st;
	int i, ret;

	ret = il_bench_state_new(run, sizeof(*st), NULL);
	if (ret)
		return ret;
	st = run->priv;
	st->p = p;
	st->qos_fd = -1;
	st->s = calloc((size_t)st->pl.n, sizeof(*st->s));
	st->c = calloc((size_t)st->pl.n, sizeof(*st->c));
	if (!st->s || !st->c) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < st->pl.n; i++) {
		st->s[i] = il_run_series(run, "wake_latency", "ns",
					 st->pl.cpus[i], -1, -1, false);
		/* Never raw: a stall would add one sample per period. */
		st->c[i] = il_run_series(run, "wake_latency_corrected", "ns",
					 st->pl.cpus[i], -1, -1, false);
		if (!st->s[i] || !st->c[i]) {
			ret = il_errorf(-ENOMEM, "out of memory for a series");
			goto fail;
		}
		st->c[i]->keep_raw = false;
		/* Before mlockall, and never in the timed loop. */
		ret = il_series_reserve(st->s[i], tw_max_samples(p, i));
		if (ret)
			goto fail;
	}
	if (p->pm_qos_us < IL_PM_QOS_NO_LIMIT_US)
		st->qos_fd = il_pm_qos_hold(run, p->pm_qos_us);
	ret = il_pool_start(&st->pool, run, st->pl.n, st->pl.cpus, tw_init,
			    tw_thread, st);
	if (ret)
		goto fail;
	/* Last, once the stacks and series exist: under a small
	 * RLIMIT_MEMLOCK, MCL_FUTURE could make later allocations fail. */
	st->locked = il_mlock_all(run);
	return 0;
fail:
	tw_teardown(run);
	return ret;
}

static int tw_run(struct il_run *run)
{
	struct tw_state *st = run->priv;

	return il_pool_run(&st->pool);
}

const struct il_bench_ops il_bench_timer_wake = {
	.name = "timer_wake",
	.summary = "timer wake-up latency per CPU, cyclictest's method (absolute clock_nanosleep)",
	.timestamps = "wake_latency: from the absolute CLOCK_MONOTONIC time the clock_nanosleep(TIMER_ABSTIME) was due, to clock_gettime(CLOCK_MONOTONIC) right after the thread returns from it; "
		      "wake_latency_corrected: the same samples plus, for every period a late wake made the schedule skip (an overrun drop), the latency a wake due then would have had (HdrHistogram's correction for coordinated omission)",
	.flags = 0,		/* any placement; one thread per distinct CPU */
	.report = {
		.wake_source = "timer",	/* clock_nanosleep's hrtimer */
	},
	.default_cpus = "all",
	.opts = tw_opts,
	.params_size = sizeof(struct tw_params),
	.supported = NULL,	/* clock_nanosleep exists everywhere */
	.setup = tw_setup,
	.run = tw_run,
	.teardown = tw_teardown,
	.estimate_ns = tw_estimate_ns,
	.check = tw_check,
};
