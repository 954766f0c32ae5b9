/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * storm.h - one IPI storm's state, shared by the parts of
 * IDLELAB_IOC_IPI_STORM: storm.c (the rounds, the NMI handler and the
 * acknowledgments), owed.c (the NMIs each CPU is owed, across runs),
 * storm_kernel.c (kernel mode's csds and callback) and dest.c (the target
 * set and the ICR writes that reach it).  Not part of the module's
 * interface (ipi.h).
 */
#ifndef IDLELAB_IPI_STORM_H
#define IDLELAB_IPI_STORM_H

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/types.h>

#include "idlelab_apicdest.h"
#include "idlelab_kcommon.h"
#include "uapi/idlelab.h"

/*
 * A target's @slot: the generation it may acknowledge in bits 63:32 (0:
 * none) and the NMIs sent to it and not yet claimed in bits 31:0, in one
 * word, so that the handler claims an NMI and takes the generation in one
 * step: a handler that took a late NMI's owed count cannot take the next
 * round's generation after the sender armed it.
 */
#define IL_SLOT(gen, owed)	((s64)((u64)(gen) << 32 | (u32)(owed)))
#define IL_SLOT_GEN(v)		((u32)((u64)(v) >> 32))
#define IL_SLOT_OWED(v)		((u32)(v))

/*
 * A target's slot is its CPU's (owed.c's il_slot), not the run's: the
 * NMIs a run still owes when it ends stay owed, and claimable, after its
 * struct il_storm is freed.
 */
struct il_target {
	atomic64_t *slot;	/* IL_SLOT(armed generation, owed NMIs) */
	u32 done;		/* generation of its last recorded ack */
	u32 cpu;
};

struct il_storm {
	const struct idlelab_ipi_req *req;
	struct il_target *tg;
	int *tidx;			/* CPU -> target index, -1 if none */
	struct il_icr_dest *writes;
	u32 nr_writes;
	u32 model;
	cpumask_var_t mask;
	atomic64_t round_acks;		/* generation << 32 | acks */
	atomic_t foreign;		/* NMIs passed on (sender, targets) */
	atomic_t late;			/* ours, after their round closed */
	struct il_run_ctl ctl;
	struct idlelab_ipi_round *rounds;
	struct idlelab_ipi_arrival *arr;
	u32 nr_done;
	u32 unsupported;
	u32 lost;
	u32 seq;			/* this run's number, in its csd tags */
	bool undrained;
};

/* storm.c: the run in progress, and one target's acknowledgment. */
extern struct il_storm __rcu *il_cur;
void il_storm_ack(struct il_storm *st, int idx, u32 gen, u64 now);

/* owed.c: the NMIs each CPU is owed, across runs. */
atomic64_t *il_cpu_slot(unsigned int cpu);
s64 il_slot_take(atomic64_t *slot, bool claim);
int il_straggler(u64 now);
void il_owed_wait(const u32 *cpus, u32 n);
void il_owed_until(const struct il_storm *st);

/* storm_kernel.c: kernel mode's csds. */
u32 il_storm_kernel_seq(void);
bool il_kcsd_busy(unsigned int cpu);
void il_storm_send_kernel(struct il_storm *st, u32 gen);

/* dest.c.  Context: cpus_read_lock() held. */
int il_storm_targets(struct il_storm *st, const u32 *cpus);
int il_storm_dest(struct il_storm *st);
bool il_storm_broadcast_ok(struct il_storm *st);

#endif /* IDLELAB_IPI_STORM_H */
