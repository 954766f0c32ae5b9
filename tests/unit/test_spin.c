// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_spin.c - the spinning-target frame of membarrier_ipi and
 * tlb_shootdown (bench/common_spin.c): a call during which a target was off
 * its CPU throughout is counted as dropped, never timed at N targets (its
 * time goes to call_latency_slept instead), and both benchmarks allow twice `samples` tries for it; and the busy
 * baseline: the non-target CPUs spin in a separate process, asleep where
 * the CPU is a target, with the SMT relation of each target recorded.
 *
 * The descheduled target is made deterministic: a signal sent to the
 * spinner thread holds it in a handler that sleeps until released, so its
 * lap counter stands still for exactly the calls the test chooses.  That is
 * what a preempted or sleeping target looks like to the frame.
 */
#include "../../bench/common.h"
#include "bench.h"
#include "bench_registry.h"
#include "run_context.h"
#include "err.h"
#include "opts.h"
#include "series.h"
#include "store.h"
#include "tap.h"
#include "topo.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static struct il_topo *topo;
static int two_cpus;

/* The stalled spinner's handshake with the timer thread. */
static uint32_t held;		/* 1 while a spinner sits in the handler */
static uint32_t release_word;	/* bumped to let it go */

static void hold_handler(int sig)
{
	uint32_t r = __atomic_load_n(&release_word, __ATOMIC_ACQUIRE);

	(void)sig;
	__atomic_store_n(&held, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&release_word, __ATOMIC_ACQUIRE) == r)
		il_futex_wait(&release_word, r, IL_WAIT_SLICE_NS);
	__atomic_store_n(&held, 0, __ATOMIC_RELEASE);
}

struct fake {
	struct il_spin_bench *b;
	uint64_t stalls;	/* stalled calls past the warm-up */
	/* Calls past the warm-up whose targets, none held, had still not all
	 * moved after 1 ms: on a loaded host the scheduler can take a target
	 * off its CPU, and the bench is right to drop such a call too. */
	uint64_t unmoved;
	bool stalled;
	int bad;		/* a handshake that did not complete */
};

static bool wait_held(uint32_t want)
{
	uint64_t deadline = il_now_ns(CLOCK_MONOTONIC) + IL_SPIN_SETTLE_NS;

	while (__atomic_load_n(&held, __ATOMIC_ACQUIRE) != want)
		if (il_now_ns(CLOCK_MONOTONIC) > deadline)
			return false;
	return true;
}

/* Every third call with one target is made while spinner 0 is held. */
static int fake_sample(void *arg, int nt, uint64_t k, uint64_t *ns)
{
	struct fake *f = arg;
	uint64_t deadline;
	int ret;

	if (f->stalled) {
		__atomic_add_fetch(&release_word, 1, __ATOMIC_ACQ_REL);
		il_futex_wake(&release_word, 1);
		f->bad += !wait_held(0);
		f->stalled = false;
	}
	ret = il_spin_wait_laps(&f->b->spin, nt);
	if (ret)
		return ret;
	/* Never on what could be the last call: the frame would then quit
	 * with a spinner still held, and the join would wait for it. */
	if (nt == 1 && k % 3 == 1 && k + 2 < IL_SPIN_WARMUP + f->b->tries &&
	    f->b->s[1]->sum.count + 1 < f->b->samples) {
		pthread_kill(f->b->pool.w[1].tid, SIGUSR1);
		f->bad += !wait_held(1);
		f->stalled = true;
		f->stalls += k >= IL_SPIN_WARMUP;
	}
	il_spin_mark(&f->b->spin, nt);
	/* The "call": a target that is on its CPU makes progress during it,
	 * as it does during a real call of a few microseconds. */
	deadline = il_now_ns(CLOCK_MONOTONIC) + 1000000;
	while (nt && !il_spin_all_moved(&f->b->spin, nt) &&
	       il_now_ns(CLOCK_MONOTONIC) < deadline)
		il_cpu_relax();
	f->unmoved += nt && !f->stalled && k >= IL_SPIN_WARMUP &&
		      !il_spin_all_moved(&f->b->spin, nt);
	*ns = 1000 + k;
	return IL_SPIN_KEEP;
}

static bool prep(struct il_run *run, const char *name, const char *const *kv)
{
	const struct il_bench_ops *ops = il_bench_find(name);

	memset(run, 0, sizeof(*run));
	CHECKF(ops, "%s not registered", name);
	if (!ops || il_run_init(run, ops) || il_opts_defaults(ops->opts, run->params))
		return false;
	for (; kv && *kv; kv++)
		if (il_opts_set_kv(ops->opts, run->params, *kv))
			return false;
	run->topo = topo;
	return il_place_parse(topo, "0-1", &run->place) == 0;
}

TEST(descheduled_target_call_is_dropped)
{
	static const char *const kv[] = { "targets=0,1", NULL };
	struct il_spin_bench b = { 0 };
	struct il_run run;
	struct fake f = { .b = &b };
	struct sigaction sa = { .sa_handler = hold_handler };
	const struct il_u64_list *targets;
	int ret;

	if (!two_cpus) {
		printf("# needs CPUs 0 and 1\n");
		return;
	}
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	if (!prep(&run, "membarrier_ipi", kv)) {
		CHECKF(0, "prep: %s", il_errmsg());
		goto out;
	}
	/* The parsed targets list, read through the option table. */
	targets = (const void *)((const char *)run.params +
				 il_opts_find(run.ops->opts, "targets")->offset);
	ret = il_spin_bench_init(&b, &run, targets, 30, 60);
	CHECKF(ret == 0, "init: %s", il_errmsg());
	ret = ret ?: il_spin_bench_start(&b, &run, NULL, fake_sample, &f);
	CHECKF(ret == 0, "start: %s", il_errmsg());
	ret = ret ?: il_pool_run(&b.pool);
	CHECKF(ret == 0, "run: %s", il_errmsg());
	CHECK(f.bad == 0);
	if (!ret) {
		/* N = 0: nothing to stall, nothing dropped. */
		CHECK(b.s[0]->sum.count == 30 && b.s[0]->sum.dropped == 0);
		/* N = 1: each held call dropped, the rest timed, except those
		 * the host's scheduler stalled on its own (f.unmoved). */
		CHECKF(b.s[1]->sum.count == 30, "count %" PRIu64, b.s[1]->sum.count);
		CHECKF(f.stalls > 0 && b.s[1]->sum.dropped >= f.stalls &&
		       b.s[1]->sum.dropped <= f.stalls + f.unmoved,
		       "dropped %" PRIu64 " of %" PRIu64 " stalled calls (%" PRIu64
		       " more found unmoved)",
		       b.s[1]->sum.dropped, f.stalls, f.unmoved);
		/* Issue 22, item 2: each such call is kept as its own
		 * category, with its time: the slow idle wakes. */
		CHECKF(b.slept && b.slept[1] &&
		       !strcmp(b.slept[1]->metric, "call_latency_slept") &&
		       b.slept[1]->sum.count == b.s[1]->sum.dropped &&
		       b.slept[1]->sum.min >= 1000 + IL_SPIN_WARMUP,
		       "slept %" PRIu64 ", dropped %" PRIu64,
		       b.slept && b.slept[1] ? b.slept[1]->sum.count : 0,
		       b.s[1]->sum.dropped);
		CHECK(b.slept && b.slept[0] && b.slept[0]->sum.count == 0);
		/* Item 2c: dropped under their own reason, not race. */
		CHECKF(b.slept && b.slept[1] &&
		       b.s[1]->sum.drop[IL_DROP_SLEPT] == b.slept[1]->sum.count &&
		       b.s[1]->sum.drop[IL_DROP_RACE] == 0,
		       "slept %" PRIu64 ", race %" PRIu64,
		       b.s[1]->sum.drop[IL_DROP_SLEPT],
		       b.s[1]->sum.drop[IL_DROP_RACE]);
	}
	il_spin_bench_free(&b);
out:
	il_run_release(&run);
}

/* Both benchmarks try up to 2 x samples calls per target count. */
TEST(twice_the_tries)
{
	static const char *const names[] = { "membarrier_ipi", "tlb_shootdown" };
	static const char *const kv[] = { "samples=50", "targets=0,1", NULL };
	struct il_run run;
	unsigned int i;
	int ret;

	if (!two_cpus) {
		printf("# needs CPUs 0 and 1\n");
		return;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct il_bench_ops *ops = il_bench_find(names[i]);

		if (ops && ops->supported && ops->supported()) {
			printf("# %s unsupported here: %s\n", names[i],
			       ops->supported());
			continue;
		}
		if (!prep(&run, names[i], kv)) {
			CHECKF(0, "%s prep: %s", names[i], il_errmsg());
			il_run_release(&run);
			continue;
		}
		ret = run.ops->setup(&run);
		CHECKF(ret == 0, "%s setup: %s", names[i], il_errmsg());
		if (!ret) {
			/* Each state starts with its struct il_spin_bench. */
			const struct il_spin_bench *b = run.priv;

			CHECKF(b->samples == 50 && b->tries == 100,
			       "%s: samples %" PRIu64 " tries %" PRIu64,
			       names[i], b->samples, b->tries);
			run.ops->teardown(&run);
		}
		il_run_release(&run);
	}
}

/* The one-letter scheduler state of @pid from /proc, or '?'. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/*
 * Wait (bounded) until @pid's state is @want; return the last seen.  The
 * bound is long because a child told to park stays runnable (R) until the
 * scheduler gets to it, which on a loaded 2-CPU machine took long enough
 * once to fail a 2 s bound; a child that does reach the state ends the
 * wait at once.
 */
static char wait_state(pid_t pid, char want)
{
	uint64_t deadline = il_now_ns(CLOCK_MONOTONIC) + 20000000000ull;
	char c;

	while ((c = proc_state(pid)) != want && il_now_ns(CLOCK_MONOTONIC) < deadline)
		usleep(1000);
	return c;
}

struct busy_probe {
	struct il_spin_bench *b;
	char seen[2];		/* the busy child's state at N = 0 and N = 1 */
	pid_t pid;
};

static int busy_sample(void *arg, int nt, uint64_t k, uint64_t *ns)
{
	struct busy_probe *bp = arg;
	int ret = il_spin_ready(&bp->b->spin, nt);

	if (ret)
		return ret;
	if (k == 0) {
		bp->pid = bp->b->busyp.pid[0];
		/* Spinning (R) where CPU 1 is no target, asleep where it is. */
		bp->seen[nt] = wait_state(bp->pid, nt ? 'S' : 'R');
		ret = il_spin_ready(&bp->b->spin, nt);
		if (ret)
			return ret;
	}
	*ns = 1000;
	return IL_SPIN_KEEP;
}

TEST(busy_baseline)
{
	static const char *const kv[] = { "targets=0,1", "baseline=busy", NULL };
	struct il_spin_bench b = { 0 };
	struct busy_probe bp = { .b = &b };
	const struct il_u64_list *targets;
	struct il_run run;
	struct il_run_attr a;
	bool busy_attr = false, rel_attr = false;
	int i, ret;

	if (!two_cpus) {
		printf("# needs CPUs 0 and 1\n");
		return;
	}
	if (!prep(&run, "membarrier_ipi", kv)) {
		CHECKF(0, "prep (baseline=busy): %s", il_errmsg());
		il_run_release(&run);
		return;
	}
	targets = (const void *)((const char *)run.params +
				 il_opts_find(run.ops->opts, "targets")->offset);
	ret = il_spin_bench_init(&b, &run, targets, 20, 40);
	b.busy = true;
	ret = ret ?: il_spin_bench_start(&b, &run, NULL, busy_sample, &bp);
	CHECKF(ret == 0, "start: %s", il_errmsg());
	if (!ret) {
		CHECK(b.busyp.n == 1 && b.busyp.pid[0] > 0 && b.busyp.pid[0] != getpid());
		ret = il_pool_run(&b.pool);
		CHECKF(ret == 0, "run: %s", il_errmsg());
	}
	CHECKF(bp.seen[0] == 'R', "busy process at N=0: state %c", bp.seen[0]);
	CHECKF(bp.seen[1] == 'S', "busy process at N=1: state %c", bp.seen[1]);
	il_spin_bench_free(&b);
	/* Reaped: the pid is gone. */
	CHECK(bp.pid > 0 && kill(bp.pid, 0) == -1 && errno == ESRCH);
	for (i = 0; i < il_run_nattrs(&run); i++) {
		il_run_attr_get(&run, i, &a);
		if (a.cpu == -1 && !strcmp(a.key, "baseline") && !strncmp(a.value, "busy:", 5))
			busy_attr = true;
		if (a.cpu == 1 && !strcmp(a.key, "relation_to_timer") &&
		    strstr(a.value, "(timer CPU 0)"))
			rel_attr = true;
	}
	CHECK(busy_attr);
	CHECK(rel_attr);
	il_run_release(&run);
}

/* The real benchmarks run end to end with baseline=busy. */
TEST(busy_baseline_real_runs)
{
	static const char *const names[] = { "membarrier_ipi", "tlb_shootdown" };
	static const char *const kv[] = { "samples=200", "targets=0,1", "baseline=busy", NULL };
	struct il_run run;
	unsigned int i;
	int ret, g, k;

	if (!two_cpus) {
		printf("# needs CPUs 0 and 1\n");
		return;
	}
	for (i = 0; i < 2; i++) {
		const struct il_bench_ops *ops = il_bench_find(names[i]);

		if (ops && ops->supported && ops->supported()) {
			printf("# %s unsupported here: %s\n", names[i], ops->supported());
			continue;
		}
		if (!prep(&run, names[i], kv)) {
			CHECKF(0, "%s prep: %s", names[i], il_errmsg());
			il_run_release(&run);
			continue;
		}
		ret = run.ops->setup(&run);
		CHECKF(ret == 0, "%s setup: %s", names[i], il_errmsg());
		if (!ret) {
			ret = run.ops->run(&run);
			run.ops->teardown(&run);
			CHECKF(ret == 0, "%s run: %s", names[i], il_errmsg());
		}
		for (g = 0; g <= 1; g++)
			for (k = 0; k < il_run_nseries(&run); k++) {
				const struct il_series *s = il_run_series_at(&run, k);

				if (s->group == g && !strcmp(s->metric, "call_latency"))
					CHECKF(s->sum.count == 200,
					       "%s N=%d: %" PRIu64 " samples", names[i], g,
					       s->sum.count);
			}
		il_run_release(&run);
	}
}

int main(void)
{
	if (il_topo_open(&topo)) {
		printf("not ok 1 - il_topo_open: %s\n1..1\n", il_errmsg());
		return 1;
	}
	two_cpus = il_topo_cpu_online(topo, 0) && il_topo_cpu_online(topo, 1);
	RUN(descheduled_target_call_is_dropped);
	RUN(twice_the_tries);
	RUN(busy_baseline);
	RUN(busy_baseline_real_runs);
	il_topo_close(topo);
	return tap_done();
}
