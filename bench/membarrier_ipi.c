// SPDX-License-Identifier: GPL-2.0-only
/*
 * membarrier_ipi.c - the cost of one membarrier(MEMBARRIER_CMD_PRIVATE_
 * EXPEDITED) call against the number of other CPUs running the process:
 * an IPI round trip to N targets, driven from user space.
 *
 * A timer thread on the first placed CPU calls membarrier while N spinner
 * threads, bound to the next N placed CPUs, spin in this process.  The
 * kernel sends an IPI to every CPU whose current task uses this mm and
 * waits until each has run its handler (smp_call_function_many with wait).
 * call_latency is taken between two timestamps on the timer CPU: just
 * before the membarrier() call and just after it returns.  One series per
 * N in the `targets` list (the series group), so cost against target count
 * comes out as a table.
 *
 * Why it is built this way:
 *  - the spinners spin in user space, reading a shared word, so each
 *    target CPU is certainly running this mm when the IPI is sent; spinners
 *    beyond N sleep in FUTEX_WAIT, so their CPUs are not targets.  N = 0 is
 *    the syscall with no remote CPU, the baseline;
 *  - the controller waits until every spinner reports the state it was
 *    asked for before timing, and discards a few calls per N;
 *  - before each call it also waits until every target has completed a
 *    fresh pass of its loop.  Without that, whenever another task held a
 *    target CPU for a moment, the timer (whose calls are then cheap, with
 *    no IPI to send) packed thousands of IPI-less samples into those few
 *    milliseconds: seen here as a third of the N = 1 samples costing
 *    what N = 0 does.  For the same reason a call during which some
 *    target made no progress at all is counted as dropped, not timed;
 *  - both timestamps are on one CPU, so the TSC (lfence-fenced) is used
 *    whenever it is calibrated, with tsc_khz recorded;
 *  - the registration is done once in setup(), never timed.
 */
#include "bench.h"
#include "common.h"
#include "err.h"

#include <inttypes.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MB_WARMUP	8

struct mb_params {
	uint64_t samples;
	struct il_u64_list targets;
};

struct mb_state {
	const struct mb_params *p;
	struct il_clock clk;
	int n;
	int *cpus;
	struct il_series **s;		/* one per targets entry */
	struct il_spin_ctl spin;
	struct il_pool pool;
};

static const struct il_opt mb_opts[] = {
	{ .name = "samples", .type = IL_OPT_U64,
	  .offset = offsetof(struct mb_params, samples),
	  .min = 1, .max = 100000000, .def = "1000", .unit = "count",
	  .help = "membarrier calls timed per target count (at most 2x as many tries; a call a target slept through is dropped)" },
	{ .name = "targets", .type = IL_OPT_LIST,
	  .offset = offsetof(struct mb_params, targets),
	  .min = 0, .max = IL_MAX_CPUS - 1, .def = "0,1", .unit = "count",
	  .help = "numbers of spinning target CPUs, each at most the placed CPUs minus one (0 = no remote CPU, the baseline)" },
	IL_OPT_END
};

static long sys_membarrier(int cmd, unsigned int flags)
{
	return syscall(SYS_membarrier, cmd, flags, 0);
}

static const char *mb_supported(void)
{
	static char why[160];
	long r = sys_membarrier(MEMBARRIER_CMD_QUERY, 0);

	if (r < 0) {
		snprintf(why, sizeof(why), "membarrier(2) is not available: %s",
			 strerror(errno));
		return why;
	}
	if (!(r & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		return "the kernel does not offer MEMBARRIER_CMD_PRIVATE_EXPEDITED (Linux 4.14 or later)";
	return NULL;
}

static int mb_timer(struct mb_state *st)
{
	const struct mb_params *p = st->p;
	uint64_t t0, t1, k;
	int i, nt, ret = 0;
	long r;

	for (i = 0; i < p->targets.n && !ret; i++) {
		nt = (int)p->targets.v[i];
		ret = il_spin_set(&st->spin, nt);
		if (ret)
			break;
		/* samples timed calls, in at most twice as many tries. */
		for (k = 0; st->s[i]->sum.count < p->samples &&
			    k < MB_WARMUP + 2 * p->samples; k++) {
			if (il_stop_requested()) {
				ret = -EINTR;
				break;
			}
			/* Proof that each target is on its CPU right now. */
			ret = il_spin_wait_laps(&st->spin, nt);
			if (ret)
				break;
			il_spin_mark(&st->spin, nt);
			t0 = il_clock_read(&st->clk);
			r = sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0);
			t1 = il_clock_read(&st->clk);
			if (r < 0) {
				ret = il_errorf(-errno, "membarrier(PRIVATE_EXPEDITED): %s",
						strerror(errno));
				break;
			}
			if (k < MB_WARMUP)
				continue;
			/* A target that made no progress during the call was
			 * off its CPU: the call had fewer than N targets. */
			if (il_spin_all_moved(&st->spin, nt))
				il_series_add(st->s[i],
					      il_clock_ns(&st->clk, t1 - t0));
			else
				il_series_dropped(st->s[i]);
		}
	}
	/* A stop request is not a failure: what was measured is kept. */
	return ret == -EINTR ? 0 : ret;
}

static int mb_thread(struct il_worker *w)
{
	struct mb_state *st = w->pool->arg;
	int ret;

	if (w->idx)
		return il_spinner(&st->spin, w->idx - 1);
	ret = mb_timer(st);
	/* Always, or the spinners would never return. */
	il_spin_quit(&st->spin);
	return ret;
}

static void mb_teardown(struct il_run *run)
{
	struct mb_state *st = run->priv;

	if (!st)
		return;
	il_pool_stop(&st->pool);
	il_spin_free(&st->spin);
	free(st->s);
	free(st->cpus);
	free(st);
	run->priv = NULL;
}

/* Record which CPUs serve as targets: the first N of them for count N. */
static void record_target_cpus(struct il_run *run, const int *cpus, int n)
{
	char buf[200];
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && used < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%d",
					 i ? "," : "", cpus[i]);
	il_run_attr(run, -1, "target_cpus", "%s", n ? buf : "none");
}

static int mb_setup(struct il_run *run)
{
	const struct mb_params *p = run->params;
	struct mb_state *st;
	uint64_t maxn = 0;
	int i, ret;

	st = calloc(1, sizeof(*st));
	if (!st)
		return il_errorf(-ENOMEM, "out of memory");
	st->p = p;
	run->priv = st;
	ret = il_bench_cpus(run, &st->cpus);
	if (ret < 0)
		goto fail;
	st->n = ret;
	ret = il_check_targets(run, &p->targets, st->n - 1);
	if (ret)
		goto fail;
	for (i = 0; i < p->targets.n; i++)
		if (p->targets.v[i] > maxn)
			maxn = p->targets.v[i];
	if (sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) < 0) {
		ret = il_errorf(-errno, "membarrier(REGISTER_PRIVATE_EXPEDITED): %s",
				strerror(errno));
		goto fail;
	}
	il_clock_pick(run, &st->clk, false);
	record_target_cpus(run, st->cpus + 1, (int)maxn);
	st->s = calloc((size_t)p->targets.n, sizeof(*st->s));
	if (!st->s) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < p->targets.n; i++) {
		st->s[i] = il_run_series(run, "call_latency", "ns", st->cpus[0],
					 -1, (int64_t)p->targets.v[i], false);
		if (!st->s[i]) {
			ret = il_errorf(-ENOMEM, "out of memory for a series");
			goto fail;
		}
	}
	ret = il_spin_init(&st->spin, (int)maxn, NULL);
	if (ret)
		goto fail;
	/* Thread 0 is the timer on cpus[0]; thread i is spinner i - 1. */
	ret = il_pool_start(&st->pool, run, 1 + (int)maxn, st->cpus, NULL,
			    mb_thread, st);
	if (ret)
		goto fail;
	return 0;
fail:
	mb_teardown(run);
	return ret;
}

static int mb_run(struct il_run *run)
{
	struct mb_state *st = run->priv;

	return il_pool_run(&st->pool);
}

const struct il_bench_ops il_bench_membarrier_ipi = {
	.name = "membarrier_ipi",
	.summary = "membarrier(PRIVATE_EXPEDITED) cost against the number of CPUs spinning in the process",
	.timestamps = "call_latency: from a timestamp just before membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) to one just after it returns, both on the timer CPU (the first placed), with N threads spinning on the next N placed CPUs",
	.flags = IL_BF_MULTI_CPU,	/* a timer CPU plus target CPUs */
	.default_cpus = "all",
	.opts = mb_opts,
	.params_size = sizeof(struct mb_params),
	.supported = mb_supported,
	.setup = mb_setup,
	.run = mb_run,
	.teardown = mb_teardown,
};
