// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlb_shootdown.c - the cost of a TLB shootdown against the number of CPUs
 * running the process: madvise(MADV_DONTNEED) or mprotect() on a page that
 * every thread has just used, timed from user space.  The user-space twin
 * of the seed's flush_tlb_all loop.
 *
 * A timer thread on the first placed CPU owns one page, allocated on its
 * NUMA node (recorded).  N spinner threads, bound to the next N placed
 * CPUs, read that page in a loop, so each of their TLBs holds its
 * translation.  The timer then changes the mapping: MADV_DONTNEED (the page
 * is unmapped) or mprotect(PROT_READ) (it becomes read-only).  Either way
 * the kernel must flush the stale entry on every CPU running this mm, with
 * an IPI to each, and waits for them all before the call returns.
 * call_latency is taken between two timestamps on the timer CPU: just
 * before the madvise()/mprotect() call and just after it returns.  One
 * series per N in the `targets` list (the series group).
 *
 * Why it is built this way:
 *  - before each sample the timer writes the page (repopulating it after
 *    MADV_DONTNEED; the write fault and its own flush are not timed), then
 *    waits until every spinner has completed a fresh read pass, so the
 *    timed call always finds a present page cached in N remote TLBs;
 *  - spinners only read: under PROT_READ a write would fault, and after
 *    MADV_DONTNEED a read simply maps the zero page;
 *  - in mprotect mode only the downgrade is timed; the restore to
 *    read-write (which needs no remote flush) is not;
 *  - the page is its own mapping, so mprotect() never splits a VMA;
 *  - spinners beyond N sleep in FUTEX_WAIT, so their CPUs drop out of the
 *    target set (lazy-TLB CPUs are skipped by the kernel's flush);
 *  - a call during which some target made no progress at all (it was
 *    preempted or asleep throughout, so the kernel skipped it as lazy)
 *    is counted as dropped, not timed at N, its time kept in
 *    call_latency_slept, as membarrier_ipi does; up to twice `samples`
 *    calls are tried;
 *  - both timestamps are on one CPU, so the TSC is used when calibrated.
 */
#include "bench.h"
#include "common.h"
#include "err.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { TS_MADVISE, TS_MPROTECT };

static const char *const ts_modes[] = { "madvise", "mprotect", NULL };

struct ts_params {
	uint64_t samples;
	struct il_u64_list targets;
	int mode;
	int baseline;
};

struct ts_state {
	struct il_spin_bench b;	/* first, as membarrier_ipi's whole state */
	const struct ts_params *p;
	volatile char *page;
	size_t pagesz;
};

static const struct il_opt ts_opts[] = {
	{ .name = "samples", .type = IL_OPT_U64,
	  .offset = offsetof(struct ts_params, samples),
	  .min = 1, .max = 100000000, .def = "1000", .unit = "count",
	  .help = "shootdowns timed per target count (at most 2x as many tries; a call a target slept through is dropped)",
	  .scale = true },
	{ .name = "targets", .type = IL_OPT_LIST,
	  .offset = offsetof(struct ts_params, targets),
	  .min = 0, .max = IL_MAX_CPUS - 1, .def = "0,1", .unit = "count",
	  .help = "numbers of spinning target CPUs, each at most the placed CPUs minus one (0 = no remote CPU, the baseline)" },
	{ .name = "mode", .type = IL_OPT_ENUM,
	  .offset = offsetof(struct ts_params, mode),
	  .def = "madvise", .unit = "",
	  .help = "the timed call: madvise(MADV_DONTNEED) or mprotect(PROT_READ)",
	  .choices = ts_modes },
	IL_OPT_BASELINE(struct ts_params, baseline),
	IL_OPT_END
};

/* One sample: make the page present and cached everywhere, then time the
 * call that invalidates it. */
static int ts_sample(void *arg, int ntargets, uint64_t k, uint64_t *ns)
{
	struct ts_state *st = arg;
	void *pg = (void *)st->page;
	uint64_t t0, t1;
	int r, ret;

	st->page[0] = (char)k;
	/* Every target has read the page since it was written, and is on
	 * its CPU now; the frame drops the call if one of them then left its
	 * CPU for the whole call (it got no flush IPI). */
	ret = il_spin_ready(&st->b.spin, ntargets);
	if (ret)
		return ret;
	if (st->p->mode == TS_MADVISE) {
		t0 = il_clock_read(&st->b.clk);
		r = madvise(pg, st->pagesz, MADV_DONTNEED);
		t1 = il_clock_read(&st->b.clk);
		if (r)
			return il_errorf(-errno, "madvise(MADV_DONTNEED): %s",
					 strerror(errno));
	} else {
		t0 = il_clock_read(&st->b.clk);
		r = mprotect(pg, st->pagesz, PROT_READ);
		t1 = il_clock_read(&st->b.clk);
		if (r)
			return il_errorf(-errno, "mprotect(PROT_READ): %s",
					 strerror(errno));
		if (mprotect(pg, st->pagesz, PROT_READ | PROT_WRITE))
			return il_errorf(-errno, "mprotect(PROT_READ|PROT_WRITE): %s",
					 strerror(errno));
	}
	*ns = il_clock_ns(&st->b.clk, t1 - t0);
	return IL_SPIN_KEEP;
}

static void ts_teardown(struct il_run *run)
{
	struct ts_state *st = run->priv;

	if (!st)
		return;
	il_spin_bench_free(&st->b);
	il_free_local((void *)st->page, st->pagesz);
	free(st);
	run->priv = NULL;
}

static int ts_setup(struct il_run *run)
{
	const struct ts_params *p = run->params;
	struct ts_state *st;
	int node, ret;

	st = calloc(1, sizeof(*st));
	if (!st)
		return il_errorf(-ENOMEM, "out of memory");
	st->p = p;
	run->priv = st;
	/* samples timed calls, in at most twice as many tries. */
	ret = il_spin_bench_init(&st->b, run, &p->targets, p->samples,
				 2 * p->samples);
	if (ret)
		goto fail;
	st->pagesz = (size_t)sysconf(_SC_PAGESIZE);
	st->page = il_alloc_local(run->topo, st->b.cpus[0], st->pagesz, &node);
	if (!st->page) {
		ret = -ENOMEM;
		goto fail;
	}
	if (node >= 0)
		il_run_attr(run, st->b.cpus[0], "numa_node", "%d", node);
	else
		il_run_attr(run, st->b.cpus[0], "numa_node",
			    "unknown: the page could not be bound to a node");
	il_clock_pick(run, &st->b.clk, false);
	st->b.busy = p->baseline == IL_BASELINE_BUSY;
	ret = il_spin_bench_start(&st->b, run, st->page, ts_sample, st);
	if (ret)
		goto fail;
	return 0;
fail:
	ts_teardown(run);
	return ret;
}

static int ts_run(struct il_run *run)
{
	struct ts_state *st = run->priv;

	return il_pool_run(&st->b.pool);
}

/* A target count the placement cannot hold is refused before the run. */
static int ts_check(const void *params, const struct il_placement *place)
{
	const struct ts_params *p = params;

	return il_check_targets(place, &p->targets);
}

/* About 20 us per timed shootdown, for each entry of the targets list. */
static uint64_t ts_estimate_ns(const void *params,
			       const struct il_placement *place)
{
	const struct ts_params *p = params;

	(void)place;
	return il_targets_estimate_ns(&p->targets, p->samples, 20000);
}

const struct il_bench_ops il_bench_tlb_shootdown = {
	.name = "tlb_shootdown",
	.summary = "TLB shootdown cost (madvise DONTNEED or mprotect) against the number of CPUs using the page",
	.timestamps = "call_latency: from a timestamp just before madvise(MADV_DONTNEED) (or mprotect(PROT_READ)) on a page all N spinning threads have just read, to one just after it returns, both on the timer CPU (the first placed); call_latency_slept: the same for the calls a target slept through (made no progress during), left out of call_latency as they had fewer than N targets",
	.flags = IL_BF_MULTI_CPU,	/* a timer CPU plus target CPUs */
	.report = {
		.ipi_metric = "call_latency",	/* one madvise()/mprotect() */
	},
	.default_cpus = "all",
	.opts = ts_opts,
	.params_size = sizeof(struct ts_params),
	.supported = NULL,	/* madvise and mprotect exist everywhere */
	.setup = ts_setup,
	.run = ts_run,
	.teardown = ts_teardown,
	.estimate_ns = ts_estimate_ns,
	.check = ts_check,
};
