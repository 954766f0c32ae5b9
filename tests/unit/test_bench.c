// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_bench.c - the user-space benchmarks, run for real on this machine
 * through their ops tables, the way harness/run_execute.c drives them (without
 * counters or storage), plus the registry; those that span CPUs
 * (membarrier_ipi, tlb_shootdown, tsc_gaps) are in test_bench_multi.c.
 *
 * Each case builds a struct il_run by hand, applies the defaults and a few
 * small parameters, runs setup/run/teardown on CPUs 0-1 and checks the
 * series and attributes: the sample counts asked for, ordered statistics,
 * the facts each benchmark promises to record.  Absolute figures are not
 * checked: on this workplace's VMs they are noise.  The stop request is
 * process-wide and cannot be undone, so the case that tests it runs last.
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
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* VmLck of this process in kB, or -1. */
static long locked_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmLck:", 6))
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	return kb;
}

/* ---- the registry and the ops tables ---------------------------------- */

TEST(ops_tables_well_formed)
{
	const struct il_opt *o;
	void *params;
	int i, j, n = 0;

	for (i = 0; il_benches[i]; i++) {
		const struct il_bench_ops *b = il_benches[i];

		n++;
		CHECK(b->name && *b->name);
		CHECKF(b->summary && *b->summary, "%s: summary", b->name);
		CHECKF(b->timestamps && *b->timestamps, "%s: timestamps", b->name);
		CHECKF(b->default_cpus && *b->default_cpus, "%s: default_cpus",
		       b->name);
		CHECKF(b->setup && b->run && b->teardown, "%s: callbacks", b->name);
		CHECKF(b->opts && b->params_size > 0, "%s: options", b->name);
		CHECKF(il_bench_find(b->name) == b, "%s: find", b->name);
		for (j = 0; j < i; j++)
			CHECKF(strcmp(il_benches[j]->name, b->name),
			       "%s registered twice", b->name);
		for (o = b->opts; o && o->name; o++) {
			CHECKF(o->help && *o->help, "%s.%s: help", b->name, o->name);
			CHECKF(o->unit != NULL, "%s.%s: unit", b->name, o->name);
			CHECKF(o->def != NULL, "%s.%s: default", b->name, o->name);
			CHECKF(o->offset < b->params_size, "%s.%s: offset",
			       b->name, o->name);
			CHECKF(o->type != IL_OPT_ENUM || o->choices,
			       "%s.%s: choices", b->name, o->name);
		}
		params = calloc(1, b->params_size);
		CHECKF(il_opts_defaults(b->opts, params) == 0,
		       "%s: defaults do not parse: %s", b->name, il_errmsg());
		/* Every benchmark estimates itself (no table of names in
		 * the harness), and its defaults pass its own check. */
		CHECKF(b->estimate_ns, "%s: estimate_ns", b->name);
		if (b->estimate_ns) {
			uint64_t ns = b->estimate_ns(params, NULL);

			CHECKF(ns > 0 && ns < 3600ULL * 1000000000ULL,
			       "%s: default estimate %" PRIu64 " ns", b->name, ns);
		}
		CHECKF(!b->check || b->check(params, NULL) == 0,
		       "%s: defaults fail check: %s", b->name, il_errmsg());
		free(params);
	}
	/* Any registry: at least one benchmark, in a NULL-terminated array. */
	CHECKF(n >= 1, "%d benchmarks registered", n);
	CHECK(il_bench_find("nosuch") == NULL);
	CHECK(il_bench_find("timer") == NULL);
	CHECK(il_bench_find(NULL) == NULL);
}

TEST(registry_suggests_near_names)
{
	const char *s;

	s = il_bench_suggest("timer_wak");
	CHECK(s && !strcmp(s, "timer_wake"));
	s = il_bench_suggest("futexwake");
	CHECK(s && !strcmp(s, "futex_wake"));
	s = il_bench_suggest("tsc_gap");
	CHECK(s && !strcmp(s, "tsc_gaps"));
	s = il_bench_suggest("tlb_shotdown");
	CHECK(s && !strcmp(s, "tlb_shootdown"));
	CHECK(il_bench_suggest("completely_different") == NULL);
	CHECK(il_bench_suggest("") == NULL);
}

/* ---- timer_wake -------------------------------------------------------- */

TEST(timer_wake_fixed_interval)
{
	static const char *const kv[] = { "samples=300", "interval_us=200", NULL };
	struct il_run run;
	const char *cpus = two_cpus ? "0-1" : "0";
	const char *mlock;
	int c, ret;

	if (!prep(&run, "timer_wake", cpus, kv))
		goto out;
	ret = exec(&run);
	CHECKF(ret == 0, "timer_wake: %d %s", ret, il_errmsg());
	/* wake_latency and its corrected twin per CPU. */
	CHECK(il_run_nseries(&run) == (two_cpus ? 4 : 2));
	for (c = 0; c < (two_cpus ? 2 : 1); c++) {
		struct il_series *s = find_series(&run, "wake_latency", c, -1, -1);
		const char *pol = il_run_attr_find(&run, c, "sched_policy");
		const char *slack = il_run_attr_find(&run, c, "timer_slack_ns");
		char what[64];

		snprintf(what, sizeof(what), "timer_wake cpu %d", c);
		check_series(s, 300, what);
		CHECK(s && s->sum.early == 0);
		CHECK(s && !strcmp(s->unit, "ns"));
		CHECKF(pol, "cpu %d: sched_policy not recorded", c);
		if (pol)
			printf("# cpu %d sched_policy: %s\n", c, pol);
		/* 1 as set, or 0: the kernel gives SCHED_FIFO no slack. */
		CHECKF(slack && (!strcmp(slack, "1") ||
				 (!strcmp(slack, "0") && pol &&
				  !strncmp(pol, "SCHED_FIFO", 10))),
		       "cpu %d: timer_slack_ns %s", c, slack ? slack : "(none)");
		CHECK(il_run_attr_find(&run, c, "overruns") != NULL);
	}
	mlock = il_run_attr_find(&run, -1, "mlockall");
	CHECK(mlock != NULL);
	/* A lock this run took is undone by teardown. */
	if (mlock && !strcmp(mlock, "yes"))
		CHECKF(locked_kb() == 0, "VmLck %ld kB after teardown", locked_kb());
	/* No PM QoS request unless asked for. */
	CHECK(il_run_attr_find(&run, -1, "pm_qos_us") == NULL);
out:
	il_run_release(&run);
}

TEST(timer_wake_random_interval_and_pm_qos)
{
	static const char *const kv[] = {
		"samples=100", "interval_us=100", "interval_max_us=300",
		"seed=42", "pm_qos_us=0", "priority=0", NULL
	};
	struct il_run run;
	const char *v;

	if (!prep(&run, "timer_wake", two_cpus ? "0-1" : "0", kv))
		goto out;
	CHECKF(exec(&run) == 0, "%s", il_errmsg());
	check_series(find_series(&run, "wake_latency", 0, -1, -1), 100,
		     "timer_wake random cpu 0");
	v = il_run_attr_find(&run, 0, "seed");
	CHECKF(v && !strcmp(v, "42"), "seed of thread 0: %s", v ? v : "(none)");
	if (two_cpus) {
		v = il_run_attr_find(&run, 1, "seed");
		CHECKF(v && !strcmp(v, "43"), "seed of thread 1: %s",
		       v ? v : "(none)");
	}
	v = il_run_attr_find(&run, 0, "sched_policy");
	CHECKF(v && !strncmp(v, "SCHED_OTHER", 11), "priority=0: %s",
	       v ? v : "(none)");
	v = il_run_attr_find(&run, 0, "timer_slack_ns");
	CHECKF(v && !strcmp(v, "1"), "SCHED_OTHER slack: %s", v ? v : "(none)");
	/* Held, or the reason it could not be. */
	v = il_run_attr_find(&run, -1, "pm_qos_us");
	CHECKF(v && (!strcmp(v, "0") || !strncmp(v, "unavailable: ", 13)),
	       "pm_qos_us: %s", v ? v : "(none)");
	if (v)
		printf("# pm_qos_us: %s\n", v);
out:
	il_run_release(&run);
}

TEST(timer_wake_rejects_inverted_range)
{
	static const char *const kv[] = { "interval_us=500", "interval_max_us=100",
					  NULL };
	struct il_run run;
	int ret;

	if (!prep(&run, "timer_wake", "0", kv))
		goto out;
	ret = run.ops->setup(&run);
	CHECK(ret == -EINVAL);
	CHECKF(strstr(il_errmsg(), "interval_max_us"), "message: %s", il_errmsg());
	if (!ret)
		run.ops->teardown(&run);
	CHECK(run.priv == NULL);
out:
	il_run_release(&run);
}

/* The same constraint is the check op's, so a campaign's --dry-run (which
 * calls il_run_prepare()) refuses it before anything runs. */
TEST(timer_wake_check_op_refuses_inverted_range)
{
	static const char *const kv[] = { "interval_us=500", "interval_max_us=100",
					  NULL };
	struct il_run run;

	if (!prep(&run, "timer_wake", "0", kv))
		goto out;
	CHECK(run.ops->check != NULL);
	if (run.ops->check) {
		CHECK(run.ops->check(run.params, &run.place) == -EINVAL);
		CHECKF(strstr(il_errmsg(), "interval_max_us"), "message: %s",
		       il_errmsg());
	}
out:
	il_run_release(&run);
}

/* A worker that cannot bind fails setup with its CPU named, and leaves
 * nothing behind: a synthetic topology is not this system, so binding is
 * refused for every thread. */
TEST(worker_failure_fails_setup)
{
	static const char *const names[] = { "timer_wake", "tsc_gaps",
					      "membarrier_ipi" };
	struct il_topo *syn = NULL;
	struct il_run run;
	size_t i;
	int ret;

	CHECK(il_topo_open_synthetic("pack:1 core:2 pu:1", &syn) == 0);
	if (!syn)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!prep(&run, names[i], "0-1", NULL)) {
			il_run_release(&run);
			continue;
		}
		run.topo = syn;
		ret = run.ops->setup(&run);
		CHECKF(ret == -EOPNOTSUPP, "%s: %d %s", names[i], ret, il_errmsg());
		CHECKF(strstr(il_errmsg(), "CPU 0"), "%s: message '%s'",
		       names[i], il_errmsg());
		CHECK(run.priv == NULL);
		if (!ret)
			run.ops->teardown(&run);
		il_run_release(&run);
	}
	il_topo_close(syn);
}

/* ---- futex_wake -------------------------------------------------------- */

TEST(futex_wake_pair)
{
	static const char *const kv[] = { "samples=300", "idle_us=100", NULL };
	struct il_run run;
	struct il_series *s;

	if (!two_cpus) {
		printf("# needs CPUs 0 and 1\n");
		return;
	}
	if (!prep(&run, "futex_wake", "pairs:0-1", kv))
		goto out;
	CHECKF(exec(&run) == 0, "%s", il_errmsg());
	s = find_series(&run, "wake_latency", 0, 1, -1);
	CHECK(il_run_nseries(&run) == 1);
	if (s) {
		/* Early wakes are counted beside the samples, never in. */
		CHECKF(s->sum.count + s->sum.early == 300, "%" PRIu64 " + %" PRIu64,
		       s->sum.count, s->sum.early);
		check_series(s, 0, "futex_wake 0->1");
	} else {
		CHECK(s);
	}
	CHECK(il_run_attr_find(&run, 1, "numa_node") != NULL);
	CHECK(il_run_attr_find(&run, -1, "clock") != NULL);
	printf("# clock: %s\n", il_run_attr_find(&run, -1, "clock"));
out:
	il_run_release(&run);
}

TEST(futex_wake_needs_pairs)
{
	struct il_run run;
	int ret;

	if (!prep(&run, "futex_wake", "0", NULL))
		goto out;
	CHECK(run.ops->flags & IL_BF_PAIRS);
	ret = run.ops->setup(&run);
	CHECK(ret == -EINVAL);
	if (!ret)
		run.ops->teardown(&run);
out:
	il_run_release(&run);
}

/* ---- stop requests (last: il_request_stop() cannot be undone) ---------- */

static void *stop_later(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	(void)arg;
	nanosleep(&ts, NULL);
	il_request_stop();
	return NULL;
}

TEST(stop_request_ends_runs_quickly)
{
	static const char *const tw[] = { "samples=1000000000", "interval_us=200",
					  NULL };
	static const char *const fw[] = { "samples=1000000000", NULL };
	static const char *const mb[] = { "samples=100000000", "targets=1,0", NULL };
	static const char *const tg[] = { "duration_ms=86400000", NULL };
	static const struct {
		const char *name, *cpus;
		const char *const *kv;
	} rest[] = {
		{ "futex_wake", "pairs:0-1", fw },
		{ "membarrier_ipi", "0-1", mb },
		{ "tlb_shootdown", "0-1", mb },
		{ "tsc_gaps", "0-1", tg },
	};
	struct il_series *s;
	struct il_run run;
	pthread_t tid;
	uint64_t t0, dt;
	size_t i;
	int ret;

	if (!prep(&run, "timer_wake", "0", tw))
		goto out;
	t0 = mono_ns();
	CHECK(pthread_create(&tid, NULL, stop_later, NULL) == 0);
	ret = exec(&run);
	dt = mono_ns() - t0;
	pthread_join(tid, NULL);
	CHECKF(ret == 0, "%s", il_errmsg());
	CHECK(il_stop_requested());
	CHECKF(dt < 2000000000ull, "timer_wake took %" PRIu64 " ms to stop",
	       dt / 1000000);
	s = find_series(&run, "wake_latency", 0, -1, -1);
	/* What was measured up to the stop is kept. */
	CHECK(s && s->sum.count > 0 && s->sum.count < 1000000000ull);
	if (s)
		printf("# timer_wake stopped after %" PRIu64 " ms, %" PRIu64 " samples\n",
		       dt / 1000000, s->sum.count);
out:
	il_run_release(&run);

	if (!two_cpus)
		return;
	/* With the stop already requested, every other benchmark, however
	 * long it was asked to run, returns at once and cleanly. */
	for (i = 0; i < sizeof(rest) / sizeof(rest[0]); i++) {
		if (!prep(&run, rest[i].name, rest[i].cpus, rest[i].kv)) {
			il_run_release(&run);
			continue;
		}
		t0 = mono_ns();
		ret = exec(&run);
		dt = mono_ns() - t0;
		CHECKF(ret == 0 || ret == 1, "%s: %d %s", rest[i].name, ret,
		       il_errmsg());
		CHECKF(dt < 2000000000ull, "%s took %" PRIu64 " ms to stop",
		       rest[i].name, dt / 1000000);
		il_run_release(&run);
	}
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
	RUN(ops_tables_well_formed);
	RUN(registry_suggests_near_names);
	RUN(timer_wake_fixed_interval);
	RUN(timer_wake_random_interval_and_pm_qos);
	RUN(timer_wake_rejects_inverted_range);
	RUN(timer_wake_check_op_refuses_inverted_range);
	RUN(worker_failure_fails_setup);
	RUN(futex_wake_pair);
	RUN(futex_wake_needs_pairs);
	RUN(stop_request_ends_runs_quickly);
	il_topo_close(topo);
	return tap_done();
}
