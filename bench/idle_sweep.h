/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idle_sweep.h - what the two files of idle_sweep share: its parameters,
 * the pair's handshake and the run's state.  idle_sweep.c sets a run up
 * and holds the ops; idle_sweep_threads.c is what the observer and the
 * target threads do per sample.  The design is at the top of idle_sweep.c.
 */
#ifndef IDLELAB_BENCH_IDLE_SWEEP_H
#define IDLELAB_BENCH_IDLE_SWEEP_H

#include "bench.h"
#include "common.h"
#include "energy.h"

#include <stdbool.h>
#include <stdint.h>

/* Visits run before the recorded ones, unrecorded, to warm the path. */
#define IS_WARMUP	4

enum { IS_WAKE_TIMER, IS_WAKE_IPI };
enum { IS_READS_ON, IS_READS_OFF, IS_READS_BOTH };

struct is_params {
	uint64_t samples;
	struct il_u64_list idle_us;
	int wake;
	int reads;
	uint64_t hot_us;
	uint64_t priority;
	uint64_t seed;
};

/* One pair's handshake, on the target's node. */
struct is_shm {
	/* Written by the observer. */
	uint32_t cmd __attribute__((aligned(IL_CACHELINE)));
	uint32_t word;		/* the futex of wake=ipi */
	uint32_t done;
	uint64_t d_ns;
	uint64_t t0;
	/* Written by the target. */
	uint32_t armed __attribute__((aligned(IL_CACHELINE)));
	uint32_t fin;
	uint32_t exited;
	int err;		/* errno of the wait; 0 */
	uint64_t t_start;	/* due time (timer) or t0 (ipi) */
	uint64_t t_end;
};

/* One sample to take: index into idle_us, and whether to read. */
struct is_visit {
	uint16_t di;
	bool reads;
};

struct is_pair {
	int a, b;
	struct is_shm *shm;
	struct il_series **all;		/* per d */
	struct il_series **bare;	/* per d, reads=both only */
	struct il_series **by;		/* per d x (nstates + 2), lazily */
	struct il_cpuidle_usage u;	/* the target's counters */
	struct il_energy en;		/* package energy; en.n 0: none */
	/* Per state entered: samples, and sums of d (us), energy E (uJ),
	 * d*d and d*E, for the fit E = a + b*d the declared table makes. */
	struct is_esum {
		uint64_t n;
		double sd, se, sdd, sde;
	} es[IL_CPUIDLE_MAX];
};

struct is_state {
	const struct is_params *p;
	struct il_clock clk;
	int npairs;
	struct is_pair *pair;
	int *cpus;			/* 2 per pair: observer, target */
	struct is_visit *order;
	size_t norder;
	uint32_t turn __attribute__((aligned(IL_CACHELINE)));
	struct il_pool pool;
};

/* The worker pool's two callbacks (idle_sweep_threads.c): even workers
 * are observers, odd ones targets. */
int idle_sweep_init(struct il_worker *w);
int idle_sweep_thread(struct il_worker *w);

#endif /* IDLELAB_BENCH_IDLE_SWEEP_H */
