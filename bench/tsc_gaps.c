// SPDX-License-Identifier: GPL-2.0-only
/*
 * tsc_gaps.c - every interruption of a busy CPU above a threshold, with its
 * time, in user space with interrupts on, as sysjitter, oslat and hiccups
 * measure it.
 *
 * One thread per placed CPU, bound to it, reads the TSC in a tight loop for
 * duration_ms.  Whenever two consecutive reads are further apart than
 * threshold_ns, the CPU was taken away: an interrupt, a preemption, an SMI,
 * or a host stealing a vCPU.  gap is taken between two timestamps: the TSC
 * read before the interruption and the next TSC read of the loop after it.
 * Each gap is stored with its start time (ns since the run began, on one
 * time base for all CPUs, so simultaneous gaps line up), which makes the
 * series the gap histogram plus the raw (time, length) list.
 *
 * The loop period (elapsed time / iterations) is the detector's resolution
 * and is recorded per CPU: exactly as the attribute "loop_period_ns" (3
 * decimals, every iteration counted, as tools/bare-rdtsc-loop.c does) and
 * "loop_period_quiet_ns" (gaps and our own bookkeeping left out), and
 * rounded as the one-sample series "loop_period" for the report.
 *
 * Why it is built this way:
 *  - plain RDTSC, not il_rdtsc_ordered(): the fences cost tens of cycles a
 *    read and would coarsen the resolution, while the gaps looked for are
 *    thousands of cycles long, far above any reordering of one read;
 *  - the loop does nothing but read, compare and count: the end check is a
 *    compare with a precomputed TSC deadline, and the stop flag is polled
 *    only once every 2^20 iterations;
 *  - recording a gap (histogram, raw buffer growth) happens outside the
 *    measured interval: the loop re-reads the TSC after it, so our own work
 *    is never reported as a gap;
 *  - no SCHED_FIFO: a spinning FIFO thread would starve the CPU's kernel
 *    threads, and the interruptions are what is being measured.
 */
#include "bench.h"
#include "common.h"
#include "err.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct tg_params {
	uint64_t duration_ms;
	uint64_t threshold_ns;
};

struct tg_state {
	struct il_bench_placed pl;	/* first: il_bench_state_new() */
	const struct tg_params *p;
	uint64_t khz;
	uint64_t threshold_cycles;
	uint64_t duration_cycles;
	uint64_t start_tsc;		/* the common time base of all CPUs */
	struct il_series **gap;		/* per CPU */
	struct il_series **period;	/* per CPU */
	struct il_pool pool;
};

static const struct il_opt tg_opts[] = {
	{ .name = "duration_ms", .type = IL_OPT_U64,
	  .offset = offsetof(struct tg_params, duration_ms),
	  .min = 1, .max = 86400000, .def = "1000", .unit = "ms",
	  .help = "how long each CPU spins",
	  .scale = true },
	{ .name = "threshold_ns", .type = IL_OPT_U64,
	  .offset = offsetof(struct tg_params, threshold_ns),
	  .min = 100, .max = 1000000000, .def = "2000", .unit = "ns",
	  .help = "the smallest interval between two consecutive TSC reads recorded as a gap" },
	IL_OPT_END
};

static const char *tg_supported(void)
{
	if (!il_tsc_khz())
		return "no TSC, or it could not be calibrated against CLOCK_MONOTONIC_RAW";
	return NULL;
}

static double tg_cycles_ns(const struct tg_state *st, double cycles)
{
	return cycles * 1e6 / (double)st->khz;
}

static int tg_thread(struct il_worker *w)
{
	struct tg_state *st = w->pool->arg;
	struct il_series *gs = st->gap[w->idx];
	const uint64_t thr = st->threshold_cycles;
	uint64_t start, end, prev, t, d, iters = 0, gaps = 0, maxgap = 0;
	uint64_t excluded = 0, t_rec, since;
	double elapsed, period, quiet;

	start = il_rdtsc_ordered();
	end = start + st->duration_cycles;
	prev = start;
	for (;;) {
		t = il_rdtsc();
		if (__builtin_expect(t - prev > thr, 0)) {
			d = t - prev;
			since = prev > st->start_tsc ? prev - st->start_tsc : 0;
			il_series_add_timed(gs, il_tsc_to_ns(since),
					    il_tsc_to_ns(d));
			gaps++;
			if (d > maxgap)
				maxgap = d;
			/* Resume timing after our own bookkeeping. */
			t_rec = il_rdtsc();
			excluded += d + (t_rec - t);
			t = t_rec;
		}
		prev = t;
		iters++;
		if (__builtin_expect(t >= end, 0))
			break;
		if (__builtin_expect(!(iters & 0xfffff), 0) &&
		    il_stop_requested())
			break;
	}
	elapsed = (double)(prev - start);
	period = tg_cycles_ns(st, elapsed) / (double)iters;
	quiet = iters > gaps ?
		tg_cycles_ns(st, elapsed - (double)excluded) /
		(double)(iters - gaps) : period;
	il_run_attr(w->pool->run, w->cpu, "loop_period_ns", "%.3f", period);
	il_run_attr(w->pool->run, w->cpu, "loop_period_quiet_ns", "%.3f", quiet);
	il_run_attr(w->pool->run, w->cpu, "iterations", "%" PRIu64, iters);
	il_run_attr(w->pool->run, w->cpu, "gaps", "%" PRIu64, gaps);
	il_run_attr(w->pool->run, w->cpu, "max_gap_ns", "%" PRIu64,
		    il_tsc_to_ns(maxgap));
	il_run_attr(w->pool->run, w->cpu, "elapsed_ns", "%.0f",
		    tg_cycles_ns(st, elapsed));
	/* Rounded to whole ns, at least 1: the exact value is the attr. */
	il_series_add(st->period[w->idx],
		      period < 1.5 ? 1 : (uint64_t)(period + 0.5));
	return 0;
}

static void tg_teardown(struct il_run *run)
{
	struct tg_state *st = run->priv;

	if (st) {
		il_pool_stop(&st->pool);
		free(st->gap);
		free(st->period);
	}
	il_bench_state_free(run);
}

static int tg_setup(struct il_run *run)
{
	const struct tg_params *p = run->params;
	struct tg_state *st;
	int i, ret;

	ret = il_bench_state_new(run, sizeof(*st), NULL);
	if (ret)
		return ret;
	st = run->priv;
	st->p = p;
	st->khz = il_tsc_khz();
	if (!st->khz) {
		ret = il_errorf(-EOPNOTSUPP, "%s", tg_supported());
		goto fail;
	}
	run->tsc_khz = st->khz;
	il_run_attr(run, -1, "clock", "tsc %" PRIu64 " kHz (plain rdtsc)",
		    st->khz);
	st->threshold_cycles = p->threshold_ns * st->khz / 1000000;
	if (!st->threshold_cycles)
		st->threshold_cycles = 1;
	st->duration_cycles = p->duration_ms * st->khz;
	il_run_attr(run, -1, "threshold_cycles", "%" PRIu64,
		    st->threshold_cycles);
	st->gap = calloc((size_t)st->pl.n, sizeof(*st->gap));
	st->period = calloc((size_t)st->pl.n, sizeof(*st->period));
	if (!st->gap || !st->period) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < st->pl.n; i++) {
		st->gap[i] = il_run_series(run, "gap", "ns", st->pl.cpus[i],
					   -1, -1, true);
		st->period[i] = il_run_series(run, "loop_period", "ns",
					      st->pl.cpus[i], -1, -1, false);
		if (!st->gap[i] || !st->period[i]) {
			ret = il_errorf(-ENOMEM, "out of memory for a series");
			goto fail;
		}
	}
	ret = il_pool_start(&st->pool, run, st->pl.n, st->pl.cpus, NULL,
			    tg_thread, st);
	if (ret)
		goto fail;
	return 0;
fail:
	tg_teardown(run);
	return ret;
}

static int tg_run(struct il_run *run)
{
	struct tg_state *st = run->priv;

	st->start_tsc = il_rdtsc_ordered();
	run->t0_tsc = st->start_tsc;	/* --causes: the gaps' time base */
	return il_pool_run(&st->pool);
}

/* Every CPU spins for duration_ms at the same time. */
static uint64_t tg_estimate_ns(const void *params,
			       const struct il_placement *place)
{
	const struct tg_params *p = params;

	(void)place;
	return p->duration_ms * 1000000ULL;
}

const struct il_bench_ops il_bench_tsc_gaps = {
	.name = "tsc_gaps",
	.summary = "interruptions of a spinning CPU above a threshold, with their times (IRQs on, like sysjitter/oslat)",
	.timestamps = "gap: from one TSC read of a tight loop to the next one, recorded when longer than threshold_ns, with its start time since the run began; loop_period: the loop's elapsed TSC time divided by its iterations",
	.flags = 0,		/* any placement; one spinner per distinct CPU */
	.default_cpus = "all",
	.opts = tg_opts,
	.params_size = sizeof(struct tg_params),
	.supported = tg_supported,
	.setup = tg_setup,
	.run = tg_run,
	.teardown = tg_teardown,
	.estimate_ns = tg_estimate_ns,
};
