// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_bench_multi.c - the user-space benchmarks that span CPUs, run for
 * real through their ops tables as test_bench.c runs the others:
 * membarrier_ipi and tlb_shootdown (madvise and mprotect) with their
 * targets, the targets' validation in setup, and tsc_gaps' gaps and
 * period.  Absolute figures are not checked: on this workplace's VMs they
 * are noise.
 */
#include "bench.h"
#include "bench_registry.h"
#include "run_context.h"
#include "bench_fixture.h"
#include "err.h"
#include "opts.h"
#include "stats.h"
#include "store.h"
#include "tap.h"
#include "topo.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- membarrier_ipi and tlb_shootdown ---------------------------------- */

static void ipi_bench(const char *name, const char *mode)
{
	char m[32];
	const char *kv[] = { "samples=300", "targets=0,1", NULL, NULL };
	struct il_run run;
	int ret, g;

	if (!two_cpus) {
		printf("# needs CPUs 0 and 1\n");
		return;
	}
	if (mode) {
		snprintf(m, sizeof(m), "mode=%s", mode);
		kv[2] = m;
	}
	if (!prep(&run, name, "0-1", kv))
		goto out;
	ret = exec(&run);
	if (ret == 1)
		goto out;	/* unsupported here, with the reason printed */
	CHECKF(ret == 0, "%s: %d %s", name, ret, il_errmsg());
	/* Per entry of the targets list, call_latency and the calls a
	 * target slept through, which it dropped (issue 22, item 2). */
	CHECK(il_run_nseries(&run) == 4);
	for (g = 0; g <= 1; g++) {
		struct il_series *c = find_series(&run, "call_latency", 0, -1, g);
		struct il_series *z = find_series(&run, "call_latency_slept", 0, -1, g);
		char what[64];

		snprintf(what, sizeof(what), "%s%s%s N=%d", name,
			 mode ? " " : "", mode ? mode : "", g);
		check_series(c, 300, what);
		CHECKF(c && z && z->sum.count == c->sum.dropped,
		       "%s: %" PRIu64 " slept through, %" PRIu64 " dropped", what,
		       z ? z->sum.count : 0, c ? c->sum.dropped : 0);
	}
	if (!strcmp(name, "tlb_shootdown"))
		CHECK(il_run_attr_find(&run, 0, "numa_node") != NULL);
out:
	il_run_release(&run);
}

TEST(membarrier_ipi_targets)
{
	ipi_bench("membarrier_ipi", NULL);
}

TEST(tlb_shootdown_madvise)
{
	ipi_bench("tlb_shootdown", "madvise");
}

TEST(tlb_shootdown_mprotect)
{
	ipi_bench("tlb_shootdown", "mprotect");
}

/* Targets beyond the placed CPUs, or listed twice, are refused in setup. */
TEST(ipi_targets_validated)
{
	static const char *const names[] = { "membarrier_ipi", "tlb_shootdown" };
	const char *kv_many[] = { "targets=1,2", NULL };
	const char *kv_dup[] = { "targets=1,1", NULL };
	struct il_run run;
	int i, ret;

	if (!two_cpus) {
		printf("# needs CPUs 0 and 1\n");
		return;
	}
	for (i = 0; i < 2; i++) {
		const struct il_bench_ops *ops = il_bench_find(names[i]);

		if (ops && ops->supported && ops->supported())
			continue;
		if (prep(&run, names[i], "0-1", kv_many)) {
			ret = run.ops->setup(&run);
			CHECKF(ret == -EINVAL, "%s targets=1,2: %d", names[i], ret);
			CHECKF(strstr(il_errmsg(), "targets"), "message: %s",
			       il_errmsg());
			if (!ret)
				run.ops->teardown(&run);
		}
		il_run_release(&run);
		if (prep(&run, names[i], "0-1", kv_dup)) {
			ret = run.ops->setup(&run);
			CHECKF(ret == -EINVAL, "%s targets=1,1: %d", names[i], ret);
			if (!ret)
				run.ops->teardown(&run);
		}
		il_run_release(&run);
	}
}

/* ---- tsc_gaps ---------------------------------------------------------- */

TEST(tsc_gaps_records_gaps_and_period)
{
	static const char *const kv[] = { "duration_ms=200", "threshold_ns=500",
					  NULL };
	struct il_run run;
	int c, ret, ncpu = two_cpus ? 2 : 1;
	size_t i;

	if (!prep(&run, "tsc_gaps", two_cpus ? "0-1" : "0", kv))
		goto out;
	ret = exec(&run);
	if (ret == 1)
		goto out;
	CHECKF(ret == 0, "%s", il_errmsg());
	CHECK(run.tsc_khz > 0);
	for (c = 0; c < ncpu; c++) {
		struct il_series *g = find_series(&run, "gap", c, -1, -1);
		struct il_series *p = find_series(&run, "loop_period", c, -1, -1);
		const char *lp = il_run_attr_find(&run, c, "loop_period_ns");
		const char *ng = il_run_attr_find(&run, c, "gaps");
		char what[64];
		double period = lp ? atof(lp) : 0;

		snprintf(what, sizeof(what), "tsc_gaps gap cpu %d", c);
		check_series(g, 0, what);
		snprintf(what, sizeof(what), "tsc_gaps loop_period cpu %d", c);
		check_series(p, 1, what);
		CHECKF(lp && period > 0, "cpu %d: loop_period_ns %s", c,
		       lp ? lp : "(none)");
		CHECKF(lp && strchr(lp, '.') && strlen(strchr(lp, '.')) == 4,
		       "loop_period_ns has 3 decimals: %s", lp ? lp : "(none)");
		/* Issue 22, item 5: the one-sample series has the
		 * attribute's resolution (ps), not whole ns (4 % at 13 ns). */
		CHECKF(p && !strcmp(p->unit, "ps") && p->sum.count == 1 &&
		       fabs((double)p->sum.min - period * 1e3) <= 1,
		       "cpu %d: loop_period %" PRIu64 " %s against %s ns", c,
		       p ? p->sum.min : 0, p ? p->unit : "?", lp ? lp : "?");
		printf("# cpu %d loop_period_ns %s, quiet %s, gaps %s, max %s ns\n",
		       c, lp ? lp : "?", il_run_attr_find(&run, c, "loop_period_quiet_ns"),
		       ng ? ng : "?", il_run_attr_find(&run, c, "max_gap_ns"));
		if (!g)
			continue;
		CHECK(ng && strtoull(ng, NULL, 10) == g->sum.count + g->sum.dropped);
		/* Timed raw layout: (t_ns, gap) pairs in time order, inside
		 * the run. */
		CHECK(g->raw_layout == IL_RAW_TIMED);
		CHECK(g->raw_len == 2 * g->sum.count);
		for (i = 2; i + 1 < g->raw_len; i += 2)
			CHECKF(g->raw[i] >= g->raw[i - 2],
			       "gap times out of order at %zu", i / 2);
		if (g->raw_len)
			CHECKF(g->raw[g->raw_len - 2] < 2000000000ull,
			       "last gap at %" PRIu64 " ns", g->raw[g->raw_len - 2]);
		for (i = 1; i < g->raw_len; i += 2)
			CHECK(g->raw[i] >= 500);
	}
out:
	il_run_release(&run);
}

int main(void)
{
	int ret = il_topo_open(&topo);

	if (ret) {
		printf("not ok 1 - il_topo_open: %s\n1..1\n", il_errmsg());
		return 1;
	}
	two_cpus = il_topo_cpu_online(topo, 0) && il_topo_cpu_online(topo, 1);
	if (!two_cpus)
		printf("# CPUs 0 and 1 are not both online: multi-CPU cases are skipped\n");
	RUN(membarrier_ipi_targets);
	RUN(tlb_shootdown_madvise);
	RUN(tlb_shootdown_mprotect);
	RUN(ipi_targets_validated);
	RUN(tsc_gaps_records_gaps_and_period);
	il_topo_close(topo);
	return tap_done();
}
