// SPDX-License-Identifier: GPL-2.0-only
/*
 * owed.c - the NMIs each CPU is owed, across IPI storms.
 *
 * NMIs cannot be recalled: one sent to a target that cannot take it yet
 * (inside another NMI handler, in SMM, a vCPU the host is not running)
 * arrives whenever that ends, maybe after the run's last drain.  With the
 * owed count in the run, such an NMI found no run and reached the kernel
 * as an unknown NMI ("Uhhuh").  So the owed counts are per CPU and live as
 * long as the module: at its end a run stamps each target with a deadline,
 * IL_STRAGGLER_US later, until which the handler still claims what that
 * CPU is owed, as a straggler (counted in the read-only parameter
 * @stragglers: the run's lost_nmis were owed at its end, and those that
 * came anyway are among these).  The deadline is the longest round timeout
 * the ABI allows: what an NMI may be owed for inside a run.  The residual
 * is the one the run already has: a foreign NMI reaching an owed CPU first
 * is claimed in its place, at most as many as are owed.  The next run
 * whose targets include a CPU still owed waits for its stragglers, at most
 * until that deadline, and forgets the rest.
 *
 * The slot format (generation and owed count in one word) is storm.h's;
 * storm.c arms the slots and its NMI handler claims from them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sysfs.h>
#include <asm/nmi.h>

#include "idlelab_arch.h"
#include "idlelab_kcommon.h"
#include "storm.h"

#define IL_STRAGGLER_US		IDLELAB_MAX_ROUND_TIMEOUT_US
static DEFINE_PER_CPU(atomic64_t, il_slot);
static DEFINE_PER_CPU(u64, il_slot_until);	/* TSC; read after il_cur */
static atomic_long_t il_stragglers = ATOMIC_LONG_INIT(0);

static int il_stragglers_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&il_stragglers));
}

static const struct kernel_param_ops il_stragglers_ops = {
	.get	= il_stragglers_get,
};

module_param_cb(stragglers, &il_stragglers_ops, NULL, 0444);
MODULE_PARM_DESC(stragglers,
		 "owed NMIs claimed after the run that sent them had ended");

atomic64_t *il_cpu_slot(unsigned int cpu)
{
	return per_cpu_ptr(&il_slot, cpu);
}

/*
 * Take the armed generation, and with @claim one owed NMI too.  Return: the
 * generation (0: none was armed), or -1 when @claim found nothing owed.
 */
s64 il_slot_take(atomic64_t *slot, bool claim)
{
	s64 old = atomic64_read(slot), new;

	do {
		if (claim && !IL_SLOT_OWED(old))
			return -1;
		new = IL_SLOT(0, IL_SLOT_OWED(old) - claim);
	} while (!atomic64_try_cmpxchg(slot, &old, new));
	return IL_SLOT_GEN(old);
}

/* An NMI on a CPU no run targets: claim it if an ended run still owes one. */
int il_straggler(u64 now)
{
	/* Pairs with il_owed_until()'s smp_wmb(): the deadline, then il_cur. */
	smp_rmb();
	if (now >= __this_cpu_read(il_slot_until) ||
	    il_slot_take(this_cpu_ptr(&il_slot), true) < 0)
		return NMI_DONE;
	atomic_long_inc(&il_stragglers);
	return NMI_HANDLED;
}

/*
 * Before a run: wait until @cpus are owed no NMI by an earlier run, or
 * until their deadlines pass (at most IL_STRAGGLER_US); forget the rest,
 * which that run reported lost.  Sleeps: no lock is held yet.
 */
void il_owed_wait(const u32 *cpus, u32 n)
{
	atomic64_t *slot;
	u32 i;

	for (i = 0; i < n; i++) {
		if (cpus[i] >= nr_cpu_ids)
			continue;	/* storm.c's il_storm_targets() refuses it */
		slot = il_cpu_slot(cpus[i]);
		while (IL_SLOT_OWED(atomic64_read(slot)) &&
		       il_tsc() < READ_ONCE(*per_cpu_ptr(&il_slot_until,
							 cpus[i])))
			usleep_range(1000, 2000);
		atomic64_set(slot, IL_SLOT(0, 0));
	}
}

/*
 * At a run's end, before il_cur is cleared: what the targets of @st are
 * still owed stays claimable until IL_STRAGGLER_US from now, by
 * il_straggler() once il_cur is cleared.
 */
void il_owed_until(const struct il_storm *st)
{
	u64 until = il_tsc() + il_us_to_cycles(IL_STRAGGLER_US);
	u32 i;

	for (i = 0; i < st->req->nr_targets; i++)
		WRITE_ONCE(*per_cpu_ptr(&il_slot_until, st->tg[i].cpu), until);
	smp_wmb();	/* the deadlines before il_cur: il_straggler() */
}
