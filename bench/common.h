/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * common.h - helpers shared by the user-space benchmarks in bench/.
 *
 * Every benchmark runs its measuring code in threads bound to the placed
 * CPUs, never in the harness's own thread, whose affinity the harness owns.
 * The threads are created and bound in setup() and wait at a start gate;
 * run() opens the gate and joins them.  That keeps thread creation, binding
 * and first-touch page faults out of the counter deltas, which bracket
 * run() alone (harness/run_execute.c).
 *
 * The rest are the small pieces several benchmarks need: a futex wrapper
 * with a bounded wait, the scheduling and memory controls of cyclictest
 * (SCHED_FIFO, timer slack, mlockall, a PM QoS request), each recording
 * what it actually obtained with il_run_attr(), the choice between the TSC
 * and CLOCK_MONOTONIC, and the spinning-target machinery of the IPI
 * benchmarks (membarrier_ipi, tlb_shootdown) with the frame they share.
 * Three files implement it, one part each: common_pool.c (the threads, the
 * gate, the futex and sleep wrappers), common_controls.c (the controls, the
 * clock, the placed CPUs) and common_spin.c (the spinning targets).
 *
 * Errors follow err.h.  A worker thread returns il_errorf()'s value; the
 * pool carries its message (thread-local in err.c) back to the thread that
 * joins, so the harness sees it through il_errmsg() like any other error.
 */
#ifndef IDLELAB_BENCH_COMMON_H
#define IDLELAB_BENCH_COMMON_H

#include <pthread.h>
#include <sys/types.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "bench.h"
#include "tsc.h"

#define IL_CACHELINE	64

/* Wait bound of every blocking call in a worker, so a lost wake-up or a
 * stop request is noticed within this time instead of hanging a join. */
#define IL_WAIT_SLICE_NS	(200 * 1000 * 1000ull)
/* How long a controller waits for its spinners to reach a state. */
#define IL_SPIN_SETTLE_NS	(10 * 1000 * 1000 * 1000ull)

static inline void il_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/*
 * xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift
 * generators", 2016): a few cycles, no shared state, good enough to spread
 * timer intervals uniformly.  @s must not be 0.
 */
static inline uint64_t il_xorshift64s(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * UINT64_C(0x2545F4914F6CDD1D);
}

/**
 * il_grid_next() - the next target of a periodic schedule, after a wake at
 * @now for the target *@next: one period on, and while that has passed
 * already, further periods on the same grid (cyclictest's way), so that a
 * late wake never shifts the schedule.  A period is @fixed_ns plus, when
 * @span is not 0, a uniform draw from [0, @span) of @rng (xorshift64*).
 * @backfill (may be NULL): each skipped target t gets the sample now - t,
 * the latency a wake due at t would have had: HdrHistogram's correction
 * for coordinated omission, since the periods the late wake swallowed are
 * exactly the ones a stall made slow.
 * Return: the periods skipped, i.e. missed (0 when on time).
 */
static inline uint64_t il_grid_next(uint64_t *next, uint64_t now,
				    uint64_t fixed_ns, uint64_t span,
				    uint64_t *rng, struct il_series *backfill)
{
	uint64_t missed = 0;

	*next += fixed_ns + (span ? il_xorshift64s(rng) % span : 0);
	while (*next <= now) {
		if (backfill)
			il_series_add(backfill, now - *next);
		*next += fixed_ns + (span ? il_xorshift64s(rng) % span : 0);
		missed++;
	}
	return missed;
}

/**
 * il_futex_wait() - FUTEX_WAIT_PRIVATE on @word while it holds @val, for at
 * most @timeout_ns (relative; 0 = no limit).
 * Return: 0 when woken (possibly spuriously); -EAGAIN if @word != @val on
 * entry; -ETIMEDOUT; -EINTR; another -errno on failure.
 */
int il_futex_wait(uint32_t *word, uint32_t val, uint64_t timeout_ns);
/** il_futex_wake() - FUTEX_WAKE_PRIVATE up to @n waiters; count or -errno. */
int il_futex_wake(uint32_t *word, int n);

/**
 * il_wait_turn() - block until *@turn is @k (benchmarks that run their
 * CPU pairs one after another).  Return: 0, or 1 on a stop request.
 */
int il_wait_turn(uint32_t *turn, uint32_t k);

/** il_sleep_until() - absolute clock_nanosleep, restarted after signals. */
int il_sleep_until(clockid_t clk, uint64_t t_ns);

/* ---- pinned worker threads with a start gate ------------------------- */

struct il_pool;

struct il_worker {
	struct il_pool *pool;
	int idx;		/* 0 .. pool->n - 1 */
	int cpu;		/* OS CPU the thread is bound to */
	pthread_t tid;
	bool created;
	int ret;		/* what init/fn returned */
	char err[256];		/* the worker's il_errmsg() if ret != 0 */
};

typedef int (*il_worker_fn)(struct il_worker *w);

struct il_pool {
	struct il_run *run;
	void *arg;		/* the benchmark's state, for the workers */
	int n;
	struct il_worker *w;
	il_worker_fn init;	/* after binding, before the gate */
	il_worker_fn fn;	/* in the thread once the gate opens */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int nready;
	int gate;		/* IL_GATE_* (common_pool.c) */
	bool live;		/* threads exist and are not joined yet */
};

/**
 * il_pool_start() - create @n threads, thread i bound with il_bind_self()
 * to @cpus[i]; each then runs @init (may be NULL) and waits at the gate.
 * Returns once every thread is waiting.  On any failure (creation, binding
 * or @init) the threads are stopped and joined, and the first failure is
 * returned with its message, naming the CPU.
 */
int il_pool_start(struct il_pool *p, struct il_run *run, int n,
		  const int *cpus, il_worker_fn init, il_worker_fn fn,
		  void *arg);
/**
 * il_pool_run() - open the gate, run @fn in every thread and join them.
 * Return: 0, or the first worker failure (lowest index) with its message.
 */
int il_pool_run(struct il_pool *p);
/** il_pool_stop() - release and join threads that never ran; idempotent. */
void il_pool_stop(struct il_pool *p);

/* ---- controls, each recorded with what was obtained ------------------ */

/**
 * il_sched_fifo() - SCHED_FIFO at @prio for the calling thread, recorded as
 * attribute "sched_policy" of @cpu ("SCHED_FIFO 95", or "SCHED_OTHER 0
 * (SCHED_FIFO 95 refused: ...)").  @prio 0 asks for no change.
 * Return: 0 if SCHED_FIFO was obtained (or @prio is 0), else a negative
 * errno (not fatal: the benchmark runs on under the policy it has, which
 * is recorded).
 */
int il_sched_fifo(struct il_run *run, int cpu, int prio);
/** il_timer_slack() - PR_SET_TIMERSLACK for the calling thread, recorded
 * as "timer_slack_ns" (the value read back) of @cpu. */
int il_timer_slack(struct il_run *run, int cpu, unsigned long ns);
/**
 * il_mlock_all() - mlockall(MCL_CURRENT | MCL_FUTURE), recorded as the
 * run attribute "mlockall" ("yes", or "no: reason").
 * Return: true if this call locked memory that was not locked before, so
 * the caller undoes it with il_munlock_all(); false if it failed, or if
 * memory was already locked (a campaign's mlockall), which stays as it was.
 */
bool il_mlock_all(struct il_run *run);
void il_munlock_all(void);
/**
 * il_pm_qos_hold() - open /dev/cpu_dma_latency (through sysfs.h's root)
 * and write @us; the request lasts until il_pm_qos_release().  Recorded as
 * the run attribute "pm_qos_us" (the value, or "unavailable: reason").
 * Return: the descriptor, or a negative errno (not fatal).
 */
int il_pm_qos_hold(struct il_run *run, uint64_t us);
void il_pm_qos_release(int fd);

/* ---- the clock of a benchmark ---------------------------------------- */

/*
 * The TSC has the finer resolution and the cheaper read, so it is used when
 * it was calibrated (il_tsc_khz() > 0); for timestamps taken on two CPUs it
 * also needs the kernel to trust it across CPUs, which it shows by using it
 * as the clocksource.  Otherwise CLOCK_MONOTONIC, which is always
 * comparable across CPUs.
 */
struct il_clock {
	bool tsc;
};

/**
 * il_clock_pick() - choose the clock, set run->tsc_khz when it is the TSC
 * and record the choice as the run attribute "clock".
 * @cross_cpu: the two timestamps of a sample are taken on different CPUs.
 */
void il_clock_pick(struct il_run *run, struct il_clock *c, bool cross_cpu);

static inline uint64_t il_clock_read(const struct il_clock *c)
{
	return c->tsc ? il_rdtsc_ordered() : il_now_ns(CLOCK_MONOTONIC);
}

/* A difference of two il_clock_read() values, in ns. */
static inline uint64_t il_clock_ns(const struct il_clock *c, uint64_t d)
{
	return c->tsc ? il_tsc_to_ns(d) : d;
}

/*
 * Whether TSC values read on two CPUs can be compared, as far as the
 * kernel can tell: it uses the TSC as its clocksource, and its log has no
 * "Marking TSC unstable" (the clocksource watchdog's verdict, printed when
 * it switches away, and sometimes the only trace once the log has moved
 * on).  What cannot be read makes it unverified, never reliable.
 */
enum il_tsc_trust {
	IL_TSC_RELIABLE,
	IL_TSC_UNRELIABLE,
	IL_TSC_UNVERIFIED,
};

/**
 * il_tsc_verdict() - the decision, from what was read.
 * @clocksource: current_clocksource's text, or NULL when unreadable.
 * @kmsg: the kernel log, or NULL when unreadable (@kmsg_why says why).
 * @why: the reason, in words, for the run attribute.
 */
enum il_tsc_trust il_tsc_verdict(const char *clocksource, const char *kmsg,
				 const char *kmsg_why, char *why, size_t len);
/**
 * il_tsc_cross_cpu() - il_tsc_verdict() on this machine: current_clocksource
 * through sysfs.h's root, the kernel log through syslog(2) READ_ALL (root,
 * or kernel.dmesg_restrict = 0).
 */
enum il_tsc_trust il_tsc_cross_cpu(char *why, size_t len);

/* ---- placement ------------------------------------------------------- */

/**
 * il_bench_cpus() - the distinct placed CPUs, ascending, malloc()ed into
 * *@cpus (free() it).  Return: their number, or a negative errno.
 */
int il_bench_cpus(struct il_run *run, int **cpus);

/*
 * Most benchmarks keep, first in their state (run->priv), the placed CPUs
 * they measure on; these two are the setup and teardown frame of that
 * state, so each benchmark adds only what is its own.
 */
struct il_bench_placed {
	int n;			/* the distinct placed CPUs */
	int *cpus;		/* ascending, from il_bench_cpus() */
};

/**
 * il_bench_state_new() - the start of setup(): the benchmark's check op
 * (il_run_prepare() ran it already; a direct caller is refused too), then
 * run->priv set to a zeroed state of @size bytes whose first member is a
 * struct il_bench_placed, filled with the placed CPUs, then @check_cpus
 * (when not NULL) on them: the check op sees a placement's CPU list only
 * for a plain list, this sees the distinct CPUs of any placement.
 * Return: 0, or a negative errno with a message (run->priv NULL).
 */
int il_bench_state_new(struct il_run *run, size_t size,
		       int (*check_cpus)(const void *params, int ncpus));
/**
 * il_housekeeping_drop() - leave the housekeeping CPUs, CPU 0 and the CPU
 * the calling (main) thread runs on, out of @pl->cpus[@from..] unless the
 * placement names CPUs one by one (a list, pairs:A-B); the order of the
 * rest is kept.  Stores the run attribute housekeeping_cpus (the CPUs left
 * alone, or "named in --cpus").  Return: the number of CPUs dropped.
 */
int il_housekeeping_drop(struct il_run *run, struct il_bench_placed *pl,
			 int from);
/**
 * il_housekeeping_named() - does the run's placement spell its CPUs out
 * one by one (a CPU list, pairs:A-B,...), so that every CPU it names is
 * the user's choice, housekeeping CPUs included?
 */
bool il_housekeeping_named(const struct il_run *run);
/**
 * il_bench_state_free() - free what il_bench_state_new() made and set
 * run->priv to NULL; nothing when it is NULL already.  The benchmark frees
 * its own members first.
 */
void il_bench_state_free(struct il_run *run);

/* ---- parameter checks and estimates ---------------------------------- */

/**
 * il_check_not_below() - the constraint "@name is at least @lo_name".
 * Return: 0, or -EINVAL with the message that names both parameters.
 */
int il_check_not_below(const char *name, uint64_t v, const char *lo_name,
		       uint64_t lo);

/* The mean of a range [@lo, @hi] whose upper end is unset (0) or below. */
static inline uint64_t il_range_mean(uint64_t lo, uint64_t hi)
{
	return hi > lo ? (lo + hi) / 2 : lo;
}

/*
 * A rough duration: @calls calls of @each_ns for each entry of a `targets`
 * list (an empty list runs once).
 */
static inline uint64_t il_targets_estimate_ns(const struct il_u64_list *t,
					      uint64_t calls,
					      uint64_t each_ns)
{
	return calls * (uint64_t)(t->n ? t->n : 1) * each_ns;
}

/**
 * il_check_targets() - validate a list of target counts against the
 * distinct CPUs of @place, one of them the timer's: each count at most
 * the others and no value twice.  The check op of the spinning-target
 * benchmarks, so il_run_prepare() refuses a count the placement cannot
 * hold before anything is stored; @place NULL checks the list alone.
 * Return: 0, or -EINVAL with a message naming the value and the placement.
 */
int il_check_targets(const struct il_placement *place,
		     const struct il_u64_list *targets);

/* The spinning targets and their frame: common_spin.h. */
#include "common_spin.h"

/* ---- the idlelab_cstate module's hardware view (common_hw_attrs.c) --- */

struct idlelab_cstate_sample;

/* Residency counter deltas summed over a CPU's samples. */
struct il_khw_res {
	uint64_t tsc;			/* the spans' TSC cycles */
	uint64_t sum[10];		/* IDLELAB_RES_NR, in their order */
	uint32_t seen;			/* counters read at least once */
	uint32_t gated;			/* the request's res_gated */
	uint32_t gate_why;		/* and its IDLELAB_GATE_* reason */
};

/**
 * il_khw_attrs() - the run attributes of the IDLELAB_HW_* flags @hw:
 * hypervisor, tsc_unstable, nonstop_tsc, c1e_promotion and, with @wbinvd,
 * wbinvd_reaches_sharers (CPUID.4:EDX[0] of the last cache level).
 */
void il_khw_attrs(struct il_run *run, uint32_t hw, bool wbinvd);

/**
 * il_khw_calib_attrs() - per CPU: cpuid_roundtrip_cycles, the median
 * CPUID the module timed there at the run's start, and
 * noop_threshold_cycles, the WBINVD/MWAIT time under which a run under a
 * hypervisor (@hw) counts one as a no-op ("not applied" elsewhere).
 */
void il_khw_calib_attrs(struct il_run *run, int cpu, uint32_t cpuid_cycles,
			uint32_t noop_cycles, uint32_t hw);

/**
 * il_khw_node_attr() - @key: the NUMA node of a dirty buffer's pages
 * (@node, with the module's IDLELAB_DIRTY_F_* @flags), or why unknown.
 */
void il_khw_node_attr(struct il_run *run, int cpu, const char *key,
		      uint32_t node, uint32_t flags);

/** il_khw_res_add() - add one sample's residency deltas. */
void il_khw_res_add(struct il_khw_res *r,
		    const struct idlelab_cstate_sample *s);

/**
 * il_khw_res_attrs() - per CPU: res_<counter>_pct (percent of the sampled
 * spans), or "unsupported: ..." (the vendor/model gate left it unread, or
 * the read faulted) or "unavailable: ..." (it
 * never advanced: under a hypervisor for any counter, anywhere for MPERF),
 * for each counter, and hw_state, the state the hardware says the CPU
 * entered (also written to @state, @len bytes).
 */
void il_khw_res_attrs(struct il_run *run, int cpu, const struct il_khw_res *r,
		      uint32_t avail, uint32_t hw, char *state, size_t len);

/* ---- one CPU's cpuidle usage counters (common_cpuidle.c) ----------- */

#define IL_CPUIDLE_MAX	16
#define IL_CPUIDLE_NAME	32

struct il_cpuidle_usage {
	int cpu;
	int n;					/* states; 0: none */
	int fd[IL_CPUIDLE_MAX];			/* each one's usage, open */
	char name[IL_CPUIDLE_MAX][IL_CPUIDLE_NAME];	/* metric-safe */
};

/**
 * il_cpuidle_usage_open() - open the usage counter of every idle state of
 * CPU @cpu.  Return: the number of states (0: none, with the reason in
 * @why, never a guess), or a negative errno with a message.
 */
int il_cpuidle_usage_open(struct il_cpuidle_usage *u, int cpu, char *why,
			  size_t len);
/** il_cpuidle_usage_read() - every state's usage into @v; 0 or -errno. */
int il_cpuidle_usage_read(const struct il_cpuidle_usage *u, uint64_t *v);
/**
 * il_cpuidle_entered() - from the counters before and after a sample, the
 * one state entered once (its index), u->n when more than one entry
 * (ambiguous) and u->n + 1 when none.
 */
int il_cpuidle_entered(const struct il_cpuidle_usage *u, const uint64_t *before,
		       const uint64_t *after);
void il_cpuidle_usage_close(struct il_cpuidle_usage *u);

#endif
