// SPDX-License-Identifier: GPL-2.0-only
/*
 * common_spin.c - the spinning targets of the IPI benchmarks (common.h):
 * threads that spin on their CPUs so an IPI finds them running, stepped
 * through a generation word and counted in laps, and the frame around
 * them (placement, one series per target count, a timer thread driving
 * the calls) that membarrier_ipi and tlb_shootdown share.  The threads
 * themselves come from the pool in common_pool.c.
 */
#include "common.h"
#include "err.h"
#include "topo.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int il_spin_init(struct il_spin_ctl *c, int nspin, const volatile char *touch)
{
	memset(c, 0, sizeof(*c));
	c->nspin = nspin;
	c->touch = touch;
	if (!nspin)
		return 0;
	c->slot = aligned_alloc(IL_CACHELINE, (size_t)nspin * sizeof(*c->slot));
	c->mark = calloc((size_t)nspin, sizeof(*c->mark));
	if (!c->slot || !c->mark) {
		il_spin_free(c);
		return il_errorf(-ENOMEM, "out of memory for %d spinners", nspin);
	}
	memset(c->slot, 0, (size_t)nspin * sizeof(*c->slot));
	return 0;
}

void il_spin_free(struct il_spin_ctl *c)
{
	free(c->slot);
	free(c->mark);
	c->slot = NULL;
	c->mark = NULL;
}

int il_spinner(struct il_spin_ctl *c, int i)
{
	struct il_spin_slot *s = &c->slot[i];
	uint64_t laps = 0;
	uint32_t g;

	for (;;) {
		g = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&c->quit, __ATOMIC_ACQUIRE))
			return 0;
		if ((uint32_t)i < __atomic_load_n(&c->active, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&s->state, (uint64_t)g << 1 | 1,
					 __ATOMIC_RELEASE);
			/* Stay on the CPU, in this process, reading: that
			 * is what puts the CPU in the IPI target set. */
			while (__atomic_load_n(&c->gen, __ATOMIC_ACQUIRE) == g) {
				if (c->touch)
					(void)*c->touch;
				__atomic_store_n(&s->laps, ++laps,
						 __ATOMIC_RELEASE);
				il_cpu_relax();
			}
		} else {
			__atomic_store_n(&s->state, (uint64_t)g << 1,
					 __ATOMIC_RELEASE);
			/* Parked asleep, the CPU does not run this process
			 * and is not a target; the timeout only bounds a
			 * missed wake-up. */
			il_futex_wait(&c->gen, g, IL_WAIT_SLICE_NS);
		}
	}
}

static int settle_check(uint64_t deadline, const char *what, int i)
{
	if (il_stop_requested())
		return -EINTR;
	if (il_now_ns(CLOCK_MONOTONIC) > deadline)
		return il_errorf(-ETIMEDOUT, "spinner %d did not %s within %llu s",
				 i, what, IL_SPIN_SETTLE_NS / 1000000000ull);
	il_cpu_relax();
	return 0;
}

int il_spin_set(struct il_spin_ctl *c, int n)
{
	uint64_t deadline = il_now_ns(CLOCK_MONOTONIC) + IL_SPIN_SETTLE_NS;
	uint32_t g;
	int i = 0, ret;

	__atomic_store_n(&c->active, (uint32_t)n, __ATOMIC_RELEASE);
	g = __atomic_add_fetch(&c->gen, 1, __ATOMIC_ACQ_REL);
	il_futex_wake(&c->gen, INT_MAX);
	while (i < c->nspin) {
		uint64_t want = (uint64_t)g << 1 | (i < n);

		if (__atomic_load_n(&c->slot[i].state, __ATOMIC_ACQUIRE) == want) {
			i++;
			continue;
		}
		ret = settle_check(deadline, i < n ? "start spinning" : "park", i);
		if (ret)
			return ret;
	}
	return 0;
}

int il_spin_wait_laps(struct il_spin_ctl *c, int n)
{
	uint64_t deadline = il_now_ns(CLOCK_MONOTONIC) + IL_SPIN_SETTLE_NS;
	uint64_t snap[64];
	int base, i, m, ret;

	/* The lap a spinner is in may have read before now; the one after it
	 * started after the snapshot, so two laps on is a whole fresh pass. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (base = 0; base < n; base += m) {
		m = n - base < 64 ? n - base : 64;
		for (i = 0; i < m; i++)
			snap[i] = __atomic_load_n(&c->slot[base + i].laps,
						  __ATOMIC_ACQUIRE);
		for (i = 0; i < m; ) {
			if (__atomic_load_n(&c->slot[base + i].laps,
					    __ATOMIC_ACQUIRE) >= snap[i] + 2) {
				i++;
				continue;
			}
			ret = settle_check(deadline, "complete a lap", base + i);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int il_spin_ready(struct il_spin_ctl *c, int n)
{
	int ret = il_spin_wait_laps(c, n);

	if (!ret)
		il_spin_mark(c, n);
	return ret;
}

void il_spin_mark(struct il_spin_ctl *c, int n)
{
	int i;

	for (i = 0; i < n; i++)
		c->mark[i] = __atomic_load_n(&c->slot[i].laps, __ATOMIC_ACQUIRE);
}

bool il_spin_all_moved(const struct il_spin_ctl *c, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (__atomic_load_n(&c->slot[i].laps, __ATOMIC_ACQUIRE) ==
		    c->mark[i])
			return false;
	return true;
}

void il_spin_quit(struct il_spin_ctl *c)
{
	__atomic_store_n(&c->quit, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&c->gen, 1, __ATOMIC_ACQ_REL);
	il_futex_wake(&c->gen, INT_MAX);
}

/* ---- the frame of the spinning-target benchmarks --------------------- */

const char *const il_baseline_names[] = { "idle", "busy", NULL };

int il_spin_bench_init(struct il_spin_bench *b, struct il_run *run,
		       const struct il_u64_list *targets, uint64_t samples,
		       uint64_t tries)
{
	int i, ret;

	memset(b, 0, sizeof(*b));
	b->targets = targets;
	b->samples = samples;
	b->tries = tries;
	ret = il_bench_cpus(run, &b->cpus);
	if (ret < 0)
		return ret;
	b->n = ret;
	ret = il_check_targets(&run->place, targets);
	if (ret)
		return ret;
	for (i = 0; i < targets->n; i++)
		if (targets->v[i] > (uint64_t)b->maxn)
			b->maxn = (int)targets->v[i];
	return 0;
}

/*
 * --causes: where the call just timed began, in the benchmark's clock.  The
 * sample op returns only the length, so the window is placed back from
 * now: it ends the few ns of the op's return later than the call did.
 */
static uint64_t spin_window_start(const struct il_spin_bench *b, uint64_t ns)
{
	uint64_t now = il_clock_read(&b->clk);

	return b->clk.tsc ? now - ns * il_tsc_khz() / 1000000 : now - ns;
}

/* The calls for one target count @nt, into @s. */
static int spin_bench_count(struct il_spin_bench *b, struct il_series *s,
			    struct il_series *slept, int nt)
{
	uint64_t k, ns = 0;
	int ret;

	for (k = 0; s->sum.count < b->samples &&
		    k < IL_SPIN_WARMUP + b->tries; k++) {
		if (il_stop_requested())
			return -EINTR;
		ret = b->sample(b->arg, nt, k, &ns);
		if (ret < 0)
			return ret;
		if (k < IL_SPIN_WARMUP)
			continue;
		/* A target that made no progress since il_spin_ready() was
		 * off its CPU for the whole call: the kernel had no IPI to
		 * send it (lazy TLB, or no longer running this mm), so the
		 * call was timed with fewer than nt targets.  Dropped from
		 * N's series under its own reason, not race, and timed in
		 * the slept series: a target asleep is the slow wake under
		 * study. */
		if (ret == IL_SPIN_KEEP && !il_spin_all_moved(&b->spin, nt)) {
			il_series_add(slept, ns);
			il_series_drop(s, IL_DROP_SLEPT);
		} else if (ret == IL_SPIN_KEEP) {
			il_series_add(s, ns);
			if (b->pool.run->causes)
				il_causes_note(b->pool.run, s,
					       spin_window_start(b, ns), ns);
		} else {
			il_series_dropped(s);
		}
	}
	return 0;
}

static int spin_bench_timer(struct il_spin_bench *b)
{
	int i, ret = 0;

	for (i = 0; i < b->targets->n && !ret; i++) {
		int nt = (int)b->targets->v[i];

		/* The busy processes leave the new targets' CPUs first,
		 * so a target spinner never shares its CPU with one. */
		if (b->busy)
			ret = il_busy_set(&b->busyp, nt);
		if (!ret)
			ret = il_spin_set(&b->spin, nt);
		if (!ret)
			ret = spin_bench_count(b, b->s[i], b->slept[i], nt);
	}
	/* A stop request is not a failure: what was measured is kept. */
	return ret == -EINTR ? 0 : ret;
}

static int spin_bench_thread(struct il_worker *w)
{
	struct il_spin_bench *b = w->pool->arg;
	int ret;

	if (w->idx)
		return il_spinner(&b->spin, w->idx - 1);
	ret = spin_bench_timer(b);
	/* Always, or the spinners would never return. */
	il_spin_quit(&b->spin);
	return ret;
}

/*
 * How each target CPU relates to the timer's (hwloc): an SMT sibling shares
 * its core's pipeline with the timer, which a busy or idle sibling changes
 * more than any IPI does.  Plus the baseline, in words.
 */
static void record_relations(struct il_spin_bench *b, struct il_run *run)
{
	char list[200];
	size_t used = 0;
	int i;

	for (i = 1; run->topo && i < b->n; i++)
		il_run_attr(run, b->cpus[i], "relation_to_timer", "%s (timer CPU %d)",
			    il_relation_name(il_topo_relation(run->topo, b->cpus[0],
							      b->cpus[i])),
			    b->cpus[0]);
	list[0] = '\0';
	for (i = 1; i < b->n && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d",
					 i > 1 ? "," : "", b->cpus[i]);
	if (b->busy)
		il_run_attr(run, -1, "baseline",
			    "busy: of CPUs %s, those not targets at N spin in a separate process (its own mm, so no IPI from this one)",
			    b->n > 1 ? list : "none");
	else
		il_run_attr(run, -1, "baseline",
			    "idle: of CPUs %s, those not targets at N sleep", b->n > 1 ? list : "none");
}

int il_spin_bench_start(struct il_spin_bench *b, struct il_run *run,
			const volatile char *touch, il_spin_sample_fn sample,
			void *arg)
{
	int i, ret;

	b->sample = sample;
	b->arg = arg;
	b->s = calloc((size_t)b->targets->n, sizeof(*b->s));
	b->slept = calloc((size_t)b->targets->n, sizeof(*b->slept));
	if (!b->s || !b->slept)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; i < b->targets->n; i++) {
		b->s[i] = il_run_series(run, "call_latency", "ns", b->cpus[0],
					-1, (int64_t)b->targets->v[i], false);
		b->slept[i] = il_run_series(run, "call_latency_slept", "ns",
					    b->cpus[0], -1,
					    (int64_t)b->targets->v[i], false);
		if (!b->s[i] || !b->slept[i])
			return il_errorf(-ENOMEM, "out of memory for a series");
	}
	ret = il_spin_init(&b->spin, b->maxn, touch);
	if (ret)
		return ret;
	record_relations(b, run);
	if (b->busy) {
		/* Before the threads exist: fork() copies only this one. */
		ret = il_busy_start(&b->busyp, b->cpus + 1, b->n - 1);
		if (ret)
			return ret;
	}
	/* Thread 0 is the timer on cpus[0]; thread i is spinner i - 1. */
	return il_pool_start(&b->pool, run, 1 + b->maxn, b->cpus, NULL,
			     spin_bench_thread, b);
}

void il_spin_bench_free(struct il_spin_bench *b)
{
	/* The threads first: the spinners use the spin state until joined. */
	il_pool_stop(&b->pool);
	il_busy_stop(&b->busyp);
	il_spin_free(&b->spin);
	free(b->s);
	free(b->slept);
	free(b->cpus);
	b->s = NULL;
	b->slept = NULL;
	b->cpus = NULL;
}
