/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_fixture.h - what the benchmark tests share (test_bench.c: the
 * registry, timer_wake, futex_wake and the stop request;
 * test_bench_multi.c: membarrier_ipi, tlb_shootdown and tsc_gaps across
 * CPUs): the topology of this machine and whether CPUs 0 and 1 are both
 * online (main() sets them), a struct il_run prepared the way the runner
 * prepares one, setup/run/teardown in order, and the invariants of a
 * latency series.  Include it once, in a test's own file, after tap.h.
 */
#ifndef IDLELAB_BENCH_FIXTURE_H
#define IDLELAB_BENCH_FIXTURE_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "bench_registry.h"
#include "run_context.h"
#include "err.h"
#include "opts.h"
#include "stats.h"
#include "tap.h"
#include "topo.h"

static struct il_topo *topo;
static int two_cpus;	/* CPUs 0 and 1 are both online */

/*
 * Prepare @run for @name on @cpus with the "key=value" strings of @kv
 * (NULL-terminated).  Return: the ops, or NULL after a failed CHECK.
 */
static inline const struct il_bench_ops *prep(struct il_run *run, const char *name,
				       const char *cpus, const char *const *kv)
{
	const struct il_bench_ops *ops = il_bench_find(name);
	int ret;

	/* Zeroed, so il_run_release() is safe whatever fails below. */
	memset(run, 0, sizeof(*run));
	CHECKF(ops, "benchmark %s not registered", name);
	if (!ops)
		return NULL;
	CHECK(il_run_init(run, ops) == 0);
	ret = il_opts_defaults(ops->opts, run->params);
	CHECKF(ret == 0, "%s defaults: %s", name, il_errmsg());
	for (; kv && *kv; kv++) {
		ret = il_opts_set_kv(ops->opts, run->params, *kv);
		CHECKF(ret == 0, "%s %s: %s", name, *kv, il_errmsg());
	}
	run->topo = topo;
	ret = il_place_parse(topo, cpus, &run->place);
	CHECKF(ret == 0, "placement %s: %s", cpus, il_errmsg());
	return ret ? NULL : ops;
}

/* setup + run + teardown, as the runner does.  Return: setup's or run's
 * error; 1 if the benchmark is unsupported here (a diagnostic says why). */
static inline int exec(struct il_run *run)
{
	const struct il_bench_ops *ops = run->ops;
	const char *why = ops->supported ? ops->supported() : NULL;
	int ret;

	if (why) {
		printf("# %s unsupported here: %s\n", ops->name, why);
		return 1;
	}
	il_errclear();
	ret = ops->setup(run);
	if (ret)
		return ret;
	ret = ops->run(run);
	ops->teardown(run);
	return ret;
}

static inline struct il_series *find_series(const struct il_run *run,
				     const char *metric, int cpu, int cpu2,
				     int64_t group)
{
	int i;

	for (i = 0; i < il_run_nseries(run); i++) {
		struct il_series *s = il_run_series_at(run, i);

		if (!strcmp(s->metric, metric) && s->cpu == cpu &&
		    s->cpu2 == cpu2 && s->group == group)
			return s;
	}
	return NULL;
}

/* The invariants of every latency series, and its count. */
static inline void check_series(const struct il_series *s, uint64_t want_count,
			 const char *what)
{
	uint64_t p50;

	CHECKF(s, "%s: series missing", what);
	if (!s)
		return;
	if (want_count)
		CHECKF(s->sum.count == want_count,
		       "%s: %" PRIu64 " samples, want %" PRIu64, what,
		       s->sum.count, want_count);
	CHECKF(s->sum.count > 0, "%s: no samples", what);
	if (!s->sum.count)
		return;
	p50 = il_hist_percentile(s->hist, 50);
	/* The histogram's percentiles are bucket-equivalent (0.1 %). */
	CHECKF(s->sum.min <= p50 + p50 / 1000 + 1 &&
	       p50 <= s->sum.max + s->sum.max / 1000 + 1,
	       "%s: min %" PRIu64 " p50 %" PRIu64 " max %" PRIu64, what,
	       s->sum.min, p50, s->sum.max);
	CHECKF(s->sum.min > 0, "%s: a sample of 0 ns", what);
	CHECKF(s->sum.mean >= (double)s->sum.min &&
	       s->sum.mean <= (double)s->sum.max, "%s: mean outside [min, max]",
	       what);
	CHECKF(il_hist_count(s->hist) == s->sum.count,
	       "%s: histogram holds %" PRIu64 ", summary %" PRIu64, what,
	       il_hist_count(s->hist), s->sum.count);
	printf("# %s: n=%" PRIu64 " min=%" PRIu64 " p50=%" PRIu64 " max=%" PRIu64
	       " early=%" PRIu64 " dropped=%" PRIu64 "\n", what, s->sum.count,
	       s->sum.min, p50, s->sum.max, s->sum.early, s->sum.dropped);
}

#endif
