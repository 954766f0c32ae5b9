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
 * series the gap histogram plus the raw (time, length) list.  One time base
 * needs TSCs that agree across CPUs: setup checks that the kernel trusts
 * them (il_tsc_cross_cpu(): clocksource tsc, no "Marking TSC unstable" in
 * its log) and records the verdict as "tsc_cross_cpu"; unless it is
 * reliable, each CPU's times count from that CPU's own first read instead,
 * and "gap_time_base" says so, so no cross-CPU alignment is published that
 * the clock cannot support.
 *
 * Per CPU, the summaries of oslat and sysjitter: "time_lost" (the gaps'
 * total length as parts per million of the run, attribute
 * "time_lost_pct" exactly) and "interruption_rate" (gaps per second, in
 * mHz; attribute "interruptions_per_s"), each a one-sample series so the
 * report shows them.
 *
 * The loop period (elapsed time / iterations) is the detector's resolution
 * and is recorded per CPU: exactly as the attribute "loop_period_ns" (3
 * decimals, every iteration counted, as tools/bare-rdtsc-loop.c does) and
 * "loop_period_quiet_ns" (gaps and our own bookkeeping left out), and
 * as the one-sample series "loop_period" in ps for the report.
 *
 * Why it is built this way:
 *  - plain RDTSC, not il_rdtsc_ordered(): the fences cost tens of cycles a
 *    read and would coarsen the resolution, while the gaps looked for are
 *    thousands of cycles long, far above any reordering of one read;
 *  - the loop does nothing but read, compare and count: the end check is a
 *    compare with a precomputed TSC deadline, and the stop flag is polled
 *    only once every 2^20 iterations;
 *  - recording a gap is a store into a preallocated array, and that
 *    bookkeeping is timed and checked like any other interval
 *    (tsc_gaps_loop.h), so an interruption landing in it is recorded, not
 *    lost; the series (histogram, raw list) are filled after the loop;
 *  - no SCHED_FIFO: a spinning FIFO thread would starve the CPU's kernel
 *    threads, and the interruptions are what is being measured.
 */
#include "bench.h"
#include "common.h"
#include "err.h"
#include "tsc_gaps_loop.h"

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
	bool cross_cpu;			/* start_tsc may be used on every CPU */
	size_t cap;			/* gap records per CPU */
	struct il_gap_rec **rec;	/* per CPU, preallocated */
	struct il_series **gap;		/* per CPU */
	struct il_series **period;	/* per CPU */
	struct il_series **lost;	/* per CPU: time_lost, ppm */
	struct il_series **rate;	/* per CPU: interruption_rate, mHz */
	struct il_pool pool;
};

/* What the loop's callbacks need on one CPU. */
struct tg_cpu {
	const struct tg_state *st;
	struct il_series *gs;
	uint64_t base;			/* gap times count from here */
};

#define TG_MAX_RECS	((size_t)1 << 20)

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

static uint64_t tg_read(void *ctx)
{
	(void)ctx;
	return il_rdtsc();
}

static bool tg_stop(void *ctx)
{
	(void)ctx;
	return il_stop_requested();
}

/* The records so far into the gap series; the array is empty after. */
static void tg_flush(void *ctx, struct il_gap_loop *L)
{
	const struct tg_cpu *c = ctx;
	size_t i;

	for (i = 0; i < L->n; i++) {
		uint64_t at = L->rec[i].at;

		il_series_add_timed(c->gs, il_tsc_to_ns(at > c->base ? at - c->base : 0),
				    il_tsc_to_ns(L->rec[i].len));
	}
	L->n = 0;
}

static void tg_summaries(struct il_worker *w, const struct il_gap_loop *L)
{
	struct tg_state *st = w->pool->arg;
	struct il_run *run = w->pool->run;
	double elapsed = (double)(L->last - L->start), period, quiet, secs;
	double lost_pct, per_s;
	uint64_t clean = L->iters > L->gaps - L->book_gaps ?
		L->iters - (L->gaps - L->book_gaps) : 0;

	period = tg_cycles_ns(st, elapsed) / (double)L->iters;
	quiet = clean ? tg_cycles_ns(st, elapsed - (double)(L->gap_sum + L->book + L->blind)) /
		(double)clean : period;
	secs = tg_cycles_ns(st, elapsed) / 1e9;
	lost_pct = elapsed > 0 ? 100.0 * (double)L->gap_sum / elapsed : 0;
	per_s = secs > 0 ? (double)L->gaps / secs : 0;
	il_run_attr(run, w->cpu, "loop_period_ns", "%.3f", period);
	il_run_attr(run, w->cpu, "loop_period_quiet_ns", "%.3f", quiet);
	il_run_attr(run, w->cpu, "iterations", "%" PRIu64, L->iters);
	il_run_attr(run, w->cpu, "gaps", "%" PRIu64, L->gaps);
	il_run_attr(run, w->cpu, "gaps_in_bookkeeping", "%" PRIu64, L->book_gaps);
	il_run_attr(run, w->cpu, "max_gap_ns", "%" PRIu64, il_tsc_to_ns(L->max_gap));
	il_run_attr(run, w->cpu, "elapsed_ns", "%.0f", tg_cycles_ns(st, elapsed));
	il_run_attr(run, w->cpu, "bookkeeping_ns", "%.0f", tg_cycles_ns(st, (double)L->book));
	/* Only a full record array makes blind time; say how much. */
	il_run_attr(run, w->cpu, "blind_ns", "%.0f%s", tg_cycles_ns(st, (double)L->blind),
		    L->flushes ? " (record array flushed mid-run: interruptions during it are not seen)" : "");
	il_run_attr(run, w->cpu, "time_lost_pct", "%.6f", lost_pct);
	il_run_attr(run, w->cpu, "interruptions_per_s", "%.3f", per_s);
	/* In ps, the attribute's resolution: whole ns rounded 13.4 to 13,
	 * 3 %, and made runs look equal that were not (issue 22). */
	il_series_add(st->period[w->idx], period < 0.0015 ? 1 : (uint64_t)(period * 1e3 + 0.5));
	il_series_add(st->lost[w->idx], (uint64_t)(lost_pct * 1e4 + 0.5));
	il_series_add(st->rate[w->idx], (uint64_t)(per_s * 1e3 + 0.5));
}

static int tg_thread(struct il_worker *w)
{
	struct tg_state *st = w->pool->arg;
	struct tg_cpu c = { .st = st, .gs = st->gap[w->idx] };
	struct il_gap_loop L = {
		.thr = st->threshold_cycles,
		.duration = st->duration_cycles,
		.rec = st->rec[w->idx],
		.cap = st->cap,
	};

	/* This CPU's own TSC as the base when TSCs may disagree. */
	c.base = st->cross_cpu ? st->start_tsc : il_rdtsc_ordered();
	c.gs->t0_tsc = c.base;	/* --causes lines this CPU's trace up with it */
	il_gap_loop_run(&L, tg_read, &c, tg_flush, tg_stop);
	tg_flush(&c, &L);
	tg_summaries(w, &L);
	return 0;
}

static void tg_teardown(struct il_run *run)
{
	struct tg_state *st = run->priv;
	int i;

	if (st) {
		il_pool_stop(&st->pool);
		for (i = 0; st->rec && i < st->pl.n; i++)
			free(st->rec[i]);
		free(st->rec);
		free(st->gap);
		free(st->period);
		free(st->lost);
		free(st->rate);
	}
	il_bench_state_free(run);
}

static int tg_setup(struct il_run *run)
{
	const struct tg_params *p = run->params;
	struct tg_state *st;
	char why[256];
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
	st->cross_cpu = il_tsc_cross_cpu(why, sizeof(why)) == IL_TSC_RELIABLE;
	il_run_attr(run, -1, "tsc_cross_cpu", "%s", why);
	il_run_attr(run, -1, "gap_time_base", "%s", st->cross_cpu ?
		    "common: ns since the run began, comparable across CPUs" :
		    "per CPU: ns since that CPU's first read; not comparable across CPUs (see tsc_cross_cpu)");
	/* Room for every gap the run can hold, up to 1 Mi records (16 MiB)
	 * per CPU; past that the array is flushed mid-run (blind_ns). */
	st->cap = p->duration_ms * 1000000 / p->threshold_ns + 2;
	if (st->cap > TG_MAX_RECS)
		st->cap = TG_MAX_RECS;
	st->rec = calloc((size_t)st->pl.n, sizeof(*st->rec));
	st->gap = calloc((size_t)st->pl.n, sizeof(*st->gap));
	st->period = calloc((size_t)st->pl.n, sizeof(*st->period));
	st->lost = calloc((size_t)st->pl.n, sizeof(*st->lost));
	st->rate = calloc((size_t)st->pl.n, sizeof(*st->rate));
	if (!st->rec || !st->gap || !st->period || !st->lost || !st->rate) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < st->pl.n; i++) {
		st->gap[i] = il_run_series(run, "gap", "ns", st->pl.cpus[i],
					   -1, -1, true);
		st->period[i] = il_run_series(run, "loop_period", "ps",
					      st->pl.cpus[i], -1, -1, false);
		st->lost[i] = il_run_series(run, "time_lost", "ppm",
					    st->pl.cpus[i], -1, -1, false);
		st->rate[i] = il_run_series(run, "interruption_rate", "mHz",
					    st->pl.cpus[i], -1, -1, false);
		/* Touched now, so the loop's stores never page-fault. */
		st->rec[i] = malloc(st->cap * sizeof(*st->rec[i]));
		if (st->rec[i])
			memset(st->rec[i], 0, st->cap * sizeof(*st->rec[i]));
		if (!st->gap[i] || !st->period[i] || !st->lost[i] ||
		    !st->rate[i] || !st->rec[i]) {
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
	.timestamps = "gap: from one TSC read of a tight loop to the next one (or across the loop's own bookkeeping), recorded when longer than threshold_ns, with its start time since the run began (per CPU when the TSC is not reliable across CPUs); loop_period: the loop's elapsed TSC time divided by its iterations; time_lost, interruption_rate: the gaps' total over the elapsed time, their count per second",
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
