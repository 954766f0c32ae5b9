/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * common_spin.h - the spinning targets of the IPI benchmarks and the frame
 * that membarrier_ipi and tlb_shootdown share, with the busy baseline
 * (common_spin.c, common_busy.c).  Included
 * by common.h, whose types it uses: include common.h, not this file.
 */
#ifndef IDLELAB_BENCH_COMMON_SPIN_H
#define IDLELAB_BENCH_COMMON_SPIN_H

/* ---- spinning targets for the IPI benchmarks ------------------------- */

/*
 * Design notes.  One controller thread (the timer) and @nspin spinner
 * threads.  The controller publishes how many spinners are active and
 * bumps the generation word; spinner i spins while the generation stays
 * the same if i < active, else it parks in FUTEX_WAIT on the generation.
 * Each spinner reports the (generation, spinning) state it has reached, so
 * the controller knows when exactly the first N CPUs are running this
 * process and the others are not, which is what the kernel's IPI target
 * set (mm_cpumask, or rq->curr->mm for membarrier) follows.  Every spin
 * pass also reads *touch (when set) and bumps the spinner's lap counter,
 * so the controller can wait until each active spinner has used a page's
 * translation since it was last changed, and can tell afterwards whether
 * every target kept running through a timed call (il_spin_mark() before,
 * il_spin_all_moved() after).
 */
struct il_spin_slot {
	uint64_t state;		/* gen << 1 | spinning, by the spinner */
	uint64_t laps;		/* passes of the spin loop */
} __attribute__((aligned(IL_CACHELINE)));

struct il_spin_ctl {
	uint32_t gen __attribute__((aligned(IL_CACHELINE)));
	uint32_t active;
	uint32_t quit;
	const volatile char *touch;
	int nspin;
	struct il_spin_slot *slot;	/* nspin of them */
	uint64_t *mark;			/* laps at il_spin_mark() */
};

int il_spin_init(struct il_spin_ctl *c, int nspin, const volatile char *touch);
void il_spin_free(struct il_spin_ctl *c);
/** il_spinner() - the loop of spinner @i; returns once il_spin_quit(). */
int il_spinner(struct il_spin_ctl *c, int i);
/**
 * il_spin_set() - make spinners 0..@n-1 spin and park the rest; returns
 * once they all report it.  Return: 0; -EINTR on a stop request;
 * -ETIMEDOUT with a message if they do not settle in IL_SPIN_SETTLE_NS.
 */
int il_spin_set(struct il_spin_ctl *c, int n);
/**
 * il_spin_wait_laps() - wait until each of the @n active spinners has
 * completed a full pass of its loop from now on.  Same returns.
 */
int il_spin_wait_laps(struct il_spin_ctl *c, int n);
/**
 * il_spin_ready() - il_spin_wait_laps() then il_spin_mark(): every active
 * spinner is on its CPU now, and the frame can tell after the timed call
 * whether each stayed there.  A sample function calls it right before its
 * first timestamp.  Same returns as il_spin_wait_laps().
 */
int il_spin_ready(struct il_spin_ctl *c, int n);
/** il_spin_mark() - remember the lap counts of the @n active spinners. */
void il_spin_mark(struct il_spin_ctl *c, int n);
/**
 * il_spin_all_moved() - true if each of the @n active spinners has made
 * progress since il_spin_mark(): none of them was off its CPU throughout.
 */
bool il_spin_all_moved(const struct il_spin_ctl *c, int n);
/** il_spin_quit() - end every spinner loop (they return from il_spinner). */
void il_spin_quit(struct il_spin_ctl *c);

/* ---- the frame of the spinning-target benchmarks --------------------- */

/*
 * membarrier_ipi and tlb_shootdown differ only in the call they time and in
 * what that call needs; the frame is the rest, so the two measure alike.
 * Thread 0 is the timer on the first placed CPU, thread i is spinner i - 1
 * on the next.  For each count N of the `targets` list, in order, the timer
 * makes exactly N spinners spin, then calls the benchmark's sample function
 * until N's "call_latency" series (group N) holds @samples values or
 * @tries calls past the warm-up were made.  A sample function calls
 * il_spin_ready() just before its first timestamp; a call after which some
 * target had made no progress since then is counted as dropped (the target
 * was off its CPU throughout, so the call had fewer than N targets), which
 * is why @tries is twice @samples.  Those calls are the slow idle wakes a
 * study of idle cost is after, so they are not thrown away: their times go
 * to N's "call_latency_slept" series, whose count is how many there were.  The first IL_SPIN_WARMUP calls
 * per N are discarded: the spinner set has just changed, and the caches and
 * TLBs of the call's own path are cold.  A stop request ends the loop
 * without failing the run, so what was measured is kept.
 */
#define IL_SPIN_WARMUP	8

enum {
	IL_SPIN_KEEP,	/* a sample: into the series */
	IL_SPIN_DROP,	/* not timed with N targets: counted as dropped */
};

/**
 * il_spin_sample_fn - make one timed call with spinners 0..@nt-1 spinning.
 * @arg: what the benchmark gave il_spin_bench_start().
 * @k: the number of the call for this @nt, warm-up calls included.
 * @ns: set to the call's duration.
 * Return: IL_SPIN_KEEP or IL_SPIN_DROP, or a negative errno with a message
 * (-EINTR for a stop request), which ends the loop.
 */
typedef int (*il_spin_sample_fn)(void *arg, int nt, uint64_t k, uint64_t *ns);

/*
 * The busy baseline (common_busy.c): one forked process per listed CPU,
 * spinning while its CPU is not a target, asleep while it is.
 */
struct il_busy_shared;
struct il_busy {
	int n;
	pid_t *pid;
	struct il_busy_shared *sh;
	size_t size;
};

/**
 * il_busy_start() - fork one process bound to each of @cpus[0..@n-1].
 * They start asleep.  Release with il_busy_stop(), also after a failure.
 * Return: 0, or a negative errno with a message.
 */
int il_busy_start(struct il_busy *b, const int *cpus, int n);
/**
 * il_busy_set() - CPUs [0, @targets) of the list asleep (they are the
 * targets), the rest spinning; returns once each process reports it.
 * Return: 0; -EINTR on a stop request; -ETIMEDOUT or -ECHILD with a message.
 */
int il_busy_set(struct il_busy *b, int targets);
/** il_busy_stop() - end and reap the processes (bounded); idempotent. */
void il_busy_stop(struct il_busy *b);

/* The `baseline` parameter of the spinning-target benchmarks: one entry of
 * their option tables, an int field of their params struct @ptype. */
enum { IL_BASELINE_IDLE, IL_BASELINE_BUSY };
extern const char *const il_baseline_names[];
#define IL_OPT_BASELINE(ptype, field)					\
	{ .name = "baseline", .type = IL_OPT_ENUM,			\
	  .offset = offsetof(ptype, field),				\
	  .def = "idle", .unit = "",					\
	  .help = "what the placed CPUs that are not targets do: idle (sleep) or busy (spin in a separate process that gets no IPI from this one, so N=0 has as many busy CPUs as N=k)", \
	  .choices = il_baseline_names }

struct il_spin_bench {
	bool busy;		/* baseline busy: set before ..._start() */
	struct il_busy busyp;	/* its processes, on cpus[1..n-1] */
	struct il_clock clk;	/* the benchmark picks it (il_clock_pick) */
	int n;			/* placed CPUs */
	int *cpus;		/* [0] the timer's, [1..] the spinners' */
	int maxn;		/* the largest target count: the spinners */
	const struct il_u64_list *targets;
	uint64_t samples;	/* values wanted per target count */
	uint64_t tries;		/* at most this many calls after warm-up */
	il_spin_sample_fn sample;
	void *arg;
	struct il_series **s;	/* call_latency, one per targets entry */
	struct il_series **slept; /* call_latency_slept, likewise */
	struct il_spin_ctl spin;
	struct il_pool pool;
};

/**
 * il_spin_bench_init() - the placed CPUs into @b, @targets validated
 * against them (il_check_targets(), one CPU being the timer's) and the
 * number of spinners they need.  Release @b with il_spin_bench_free(),
 * also after a failure.
 * Return: 0, or a negative errno with a message.
 */
int il_spin_bench_init(struct il_spin_bench *b, struct il_run *run,
		       const struct il_u64_list *targets, uint64_t samples,
		       uint64_t tries);
/**
 * il_spin_bench_start() - the series, the spinner state (every spin pass
 * reads *@touch when it is set) and the threads, left waiting at the gate
 * so that run() is il_pool_run(&@b->pool).  @sample is called with @arg.
 * Return: 0, or a negative errno with a message.
 */
int il_spin_bench_start(struct il_spin_bench *b, struct il_run *run,
			const volatile char *touch, il_spin_sample_fn sample,
			void *arg);
/** il_spin_bench_free() - stop the threads and free what @b holds. */
void il_spin_bench_free(struct il_spin_bench *b);

#endif
