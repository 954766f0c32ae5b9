// SPDX-License-Identifier: GPL-2.0-only
/*
 * storm_kernel.c - the kernel mode of IDLELAB_IOC_IPI_STORM: each round an
 * async smp_call_function per target, through the kernel's own APIC
 * driver, whose callback acknowledges like the NMI handler of the raw
 * modes.  storm.c runs the rounds for every mode; this file holds the
 * per-CPU csds, their run and round tags, the callback and the send.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>

#include "idlelab_arch.h"
#include "ipi.h"
#include "storm.h"

/*
 * Kernel mode sends with smp_call_function_single_async(), one csd per
 * target CPU, so that a round waits for its acks no longer than timeout_us
 * (smp_call_function_many() with wait waited, preemption off, for a target
 * with IRQs off however long).  A csd in flight when its round or run ends
 * stays owed: it lives as long as the module, no round is sent to a target
 * whose csd is busy (each round's drain waits, bounded, or ends the run),
 * and module exit waits until every csd is idle.  The callback's info,
 * captured when queued, tags the run and round: a late callback counts as
 * late, never in another round or run.
 */
static DEFINE_PER_CPU(call_single_data_t, il_kcsd);
static atomic_t il_kseq;

/* A new run's number, for its callbacks' tags. */
u32 il_storm_kernel_seq(void)
{
	return atomic_inc_return(&il_kseq);
}

#define IL_TAG_GEN_BITS		20	/* IDLELAB_MAX_ROUNDS < 2^20 */
#define IL_TAG_SEQ_MASK		(ULONG_MAX >> IL_TAG_GEN_BITS)
#define IL_TAG(seq, gen)	((void *)((((unsigned long)(seq) &	\
					    IL_TAG_SEQ_MASK) <<		\
					   IL_TAG_GEN_BITS) | (gen)))
static_assert(IDLELAB_MAX_ROUNDS < (1UL << IL_TAG_GEN_BITS));

bool il_kcsd_busy(unsigned int cpu)
{
	return READ_ONCE(per_cpu_ptr(&il_kcsd, cpu)->node.u_flags) &
	       CSD_FLAG_LOCK;
}

/* Take @t's armed generation if it is @gen; 0 otherwise. */
static u32 il_slot_take_gen(struct il_target *t, u32 gen)
{
	s64 old = atomic64_read(t->slot);

	do {
		if (IL_SLOT_GEN(old) != gen)
			return 0;
	} while (!atomic64_try_cmpxchg(t->slot, &old,
				       IL_SLOT(0, IL_SLOT_OWED(old))));
	return gen;
}

/*
 * Kernel mode's, in IRQ context; its tag: run and round.  Unlike an NMI
 * handler it is not inside rcu_read_lock() already: the lockdep kernel
 * (tests/vm/debug-kernel.sh) reported the bare rcu_dereference() here as
 * suspicious RCU usage, so the read side is taken explicitly.
 */
static void il_ipi_kernel_cb(void *info)
{
	unsigned long tag = (unsigned long)info;
	struct il_storm *st;
	u64 now = il_tsc();
	int idx;

	rcu_read_lock();
	st = rcu_dereference(il_cur);
	if (!st || (st->seq & IL_TAG_SEQ_MASK) != tag >> IL_TAG_GEN_BITS)
		goto out;
	idx = st->tidx[smp_processor_id()];
	if (idx >= 0)
		il_storm_ack(st, idx,
			     il_slot_take_gen(&st->tg[idx],
					      tag & ((1UL << IL_TAG_GEN_BITS) - 1)),
			     now);
out:
	rcu_read_unlock();
}

/* Queue round @gen's callback on every target whose csd is idle. */
void il_storm_send_kernel(struct il_storm *st, u32 gen)
{
	call_single_data_t *csd;
	u32 i;

	for (i = 0; i < st->req->nr_targets; i++) {
		csd = per_cpu_ptr(&il_kcsd, st->tg[i].cpu);
		if (il_kcsd_busy(st->tg[i].cpu))
			continue;	/* still owed: this target times out */
		INIT_CSD(csd, il_ipi_kernel_cb, IL_TAG(st->seq, gen));
		smp_call_function_single_async(st->tg[i].cpu, csd);
	}
}

/* Module exit: no csd queued, no callback running (an RCU reader). */
void il_storm_csd_idle(void)
{
	unsigned int cpu, waited = 0;

	for_each_possible_cpu(cpu) {
		while (il_kcsd_busy(cpu)) {
			if (waited++ == 100)
				pr_warn("waiting for cpu%u's callback\n", cpu);
			usleep_range(10000, 20000);
		}
	}
	synchronize_rcu();
}
