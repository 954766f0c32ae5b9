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
 *    target made no progress at all is counted as dropped from
 *    call_latency, its time kept in call_latency_slept;
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

struct mb_params {
	uint64_t samples;
	struct il_u64_list targets;
	int baseline;
};

static const struct il_opt mb_opts[] = {
	{ .name = "samples", .type = IL_OPT_U64,
	  .offset = offsetof(struct mb_params, samples),
	  .min = 1, .max = 100000000, .def = "1000", .unit = "count",
	  .help = "membarrier calls timed per target count (at most 2x as many tries; a call a target slept through is dropped)",
	  .scale = true },
	{ .name = "targets", .type = IL_OPT_LIST,
	  .offset = offsetof(struct mb_params, targets),
	  .min = 0, .max = IL_MAX_CPUS - 1, .def = "0,1", .unit = "count",
	  .help = "numbers of spinning target CPUs, each at most the placed CPUs minus one (0 = no remote CPU, the baseline)" },
	IL_OPT_BASELINE(struct mb_params, baseline),
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

/* One call, timed once every target is known to be on its CPU. */
static int mb_sample(void *arg, int nt, uint64_t k, uint64_t *ns)
{
	struct il_spin_bench *b = arg;
	uint64_t t0, t1;
	long r;
	int ret;

	(void)k;
	/* Proof that each target is on its CPU right now; the frame checks
	 * after the call that none of them left it throughout. */
	ret = il_spin_ready(&b->spin, nt);
	if (ret)
		return ret;
	t0 = il_clock_read(&b->clk);
	r = sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0);
	t1 = il_clock_read(&b->clk);
	if (r < 0)
		return il_errorf(-errno, "membarrier(PRIVATE_EXPEDITED): %s",
				 strerror(errno));
	*ns = il_clock_ns(&b->clk, t1 - t0);
	return IL_SPIN_KEEP;
}

static void mb_teardown(struct il_run *run)
{
	struct il_spin_bench *b = run->priv;

	if (!b)
		return;
	il_spin_bench_free(b);
	free(b);
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
	struct il_spin_bench *b;
	int ret;

	b = calloc(1, sizeof(*b));
	if (!b)
		return il_errorf(-ENOMEM, "out of memory");
	run->priv = b;
	/* samples timed calls, in at most twice as many tries. */
	ret = il_spin_bench_init(b, run, &p->targets, p->samples,
				 2 * p->samples);
	if (ret)
		goto fail;
	if (sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) < 0) {
		ret = il_errorf(-errno, "membarrier(REGISTER_PRIVATE_EXPEDITED): %s",
				strerror(errno));
		goto fail;
	}
	il_clock_pick(run, &b->clk, false);
	record_target_cpus(run, b->cpus + 1, b->maxn);
	b->busy = p->baseline == IL_BASELINE_BUSY;
	ret = il_spin_bench_start(b, run, NULL, mb_sample, b);
	if (ret)
		goto fail;
	return 0;
fail:
	mb_teardown(run);
	return ret;
}

static int mb_run(struct il_run *run)
{
	struct il_spin_bench *b = run->priv;

	return il_pool_run(&b->pool);
}

/* A target count the placement cannot hold is refused before the run. */
static int mb_check(const void *params, const struct il_placement *place)
{
	const struct mb_params *p = params;

	return il_check_targets(place, &p->targets);
}

/* About 20 us per timed call, for each entry of the targets list. */
static uint64_t mb_estimate_ns(const void *params,
			       const struct il_placement *place)
{
	const struct mb_params *p = params;

	(void)place;
	return il_targets_estimate_ns(&p->targets, p->samples, 20000);
}

const struct il_bench_ops il_bench_membarrier_ipi = {
	.name = "membarrier_ipi",
	.summary = "membarrier(PRIVATE_EXPEDITED) cost against the number of CPUs spinning in the process",
	.timestamps = "call_latency: from a timestamp just before membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) to one just after it returns, both on the timer CPU (the first placed), with N threads spinning on the next N placed CPUs; call_latency_slept: the same for the calls a target slept through (made no progress during), left out of call_latency as they had fewer than N targets",
	.flags = IL_BF_MULTI_CPU,	/* a timer CPU plus target CPUs */
	.report = {
		.ipi_metric = "call_latency",	/* one membarrier() per round */
	},
	.default_cpus = "all",
	.opts = mb_opts,
	.params_size = sizeof(struct mb_params),
	.supported = mb_supported,
	.setup = mb_setup,
	.run = mb_run,
	.teardown = mb_teardown,
	.estimate_ns = mb_estimate_ns,
	.check = mb_check,
};
