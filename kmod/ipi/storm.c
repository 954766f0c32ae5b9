// SPDX-License-Identifier: GPL-2.0-only
/*
 * storm.c - IDLELAB_IOC_IPI_STORM: closed-loop IPI storms from a sender CPU
 * to a target set.  The target set and the ICR writes that reach it are
 * dest.c's; this file runs the rounds and takes the acknowledgments.
 *
 * Modes: physical (one ICR write per target), logical (one write per
 * cluster, one for the whole mask in xAPIC flat), broadcast (the all-but-self
 * shorthand, only when the targets are every other CPU and all are online),
 * all three sending NMIs to our own NMI_LOCAL handler with our own ICR
 * writes (idlelab_apic_access.h: the x2APIC MSR or the mapped xAPIC page,
 * the same on every kernel); and kernel (an async smp_call_function per
 * target, through the kernel's own APIC driver).  Each round is closed-loop:
 * arm every target, send, then wait (bounded by timeout_us) until every
 * target has acknowledged.  NMIs coalesce, so an open-loop storm would lose
 * deliveries.
 *
 * Object model: one struct il_storm (storm.h) per run, owned by
 * il_storm_run() and shared with the sender kthread and the NMI handler (or
 * the smp_call_function callback in kernel mode, storm_kernel.c).
 *
 * Which NMIs are ours: NMIs carry no payload and coalesce, and the NMI_LOCAL
 * chain is shared with perf, the watchdog and whatever the platform sends.
 * So each target has an owed count (in its @slot), raised by the sender before each ICR
 * write that reaches it; the handler claims an NMI (NMI_HANDLED) only while
 * its CPU is owed one, and passes every other one on (NMI_DONE, counted in
 * @foreign), so that the kernel still sees them and reports the unknown ones.
 * Before arming a round the sender drains (bounded by timeout_us) the NMIs
 * of a timed-out round: a target is never armed while it still owes one,
 * so a late NMI of round k cannot be taken for round k+1's.  The run ends
 * early (IDLELAB_RUN_UNDRAINED) when a drain fails, and before il_cur is
 * cleared a last bounded drain collects the stragglers; what is still owed
 * after it stays claimable for a while (il_straggler(), owed.c).
 *
 * Round generations: round r has generation r + 1.  A target's @slot holds
 * the generation it may acknowledge; the handler takes it (with the owed
 * NMI, in one cmpxchg), writes its arrival into that generation's record and
 * publishes @done = generation (release).  The sender disarms each target
 * after the wait and, for a target the handler took,
 * waits (bounded) until @done shows it; the round's acks are counted from
 * those, so a late handler can neither be counted in the next round nor
 * wipe its records.  @round_acks (generation << 32 | count) is only the
 * sender's fast completion test, and ignores acks of other generations.
 *
 * Locking: main.c's il_run_lock serialises runs (-EBUSY when taken).  The
 * NMI handler finds the run through il_cur, an RCU pointer: NMI handlers run
 * inside rcu_read_lock() (nmi_handle()), so clearing il_cur and
 * synchronize_rcu() before freeing the run is enough.  cpus_read_lock() is
 * held only while the targets are checked, their destinations computed and
 * the sender bound; a target or the sender going offline during the run
 * aborts it (-ENODEV), and the CPU waits in its teardown until the sender
 * has stopped writing ICRs (idlelab_workers.h).  Each round runs
 * with preemption disabled (the sender is pinned, the round is bounded by
 * timeout_us); cond_resched() between rounds.
 *
 * This file never touches user memory: main.c copies the request and the
 * target list in and the rounds and arrivals out.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/nmi.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/nmi.h>
#include <asm/smp.h>

#include "idlelab_apic_access.h"
#include "idlelab_apicdest.h"
#include "idlelab_arch.h"
#include "idlelab_kcommon.h"
#include "idlelab_storm_check.h"
#include "ipi.h"
#include "storm.h"

struct il_storm __rcu *il_cur;	/* storm_kernel.c's callback too */

/*
 * For the guest rig (tests/vm/kmod-client.c): the next storm's sender exits
 * without completing its run, as a worker that died would, so that the
 * test sees the ioctl join on the task's exit (-EIO) rather than hang.
 */
static bool test_sender_exit;
module_param(test_sender_exit, bool, 0600);
MODULE_PARM_DESC(test_sender_exit,
		 "test only: the next storm's sender thread exits abnormally");

/*
 * For the guest rig too: the first target's handler waits this long after
 * its TSC read before it claims the NMI, so that with a timeout_us below
 * it every round times out for that target and its acknowledgment comes
 * late, during the next drain: it must count as late, in no round.
 *
 * It busy-waits inside an NMI handler, where nothing can interrupt it and
 * the hard-lockup detector cannot fire, so it is capped hard rather than
 * built only into a test build: the rig loads the modules Debian's dkms
 * builds (tests/vm/README.md), which a Kbuild flag of the rig's would not
 * reach.  The cap, 200 ms, is what the rig needs (150 ms) and a fifth of
 * the lowest hard-lockup threshold (watchdog_thresh = 1 s); a larger value
 * is refused with -EINVAL.  The module's other test knobs (test_sender_exit
 * here, cstate's inject) end a thread or make it sleep: they hold no CPU.
 */
#define IL_TEST_LATE_MAX_US	200000
static uint test_late_us;

static int il_test_late_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, IL_TEST_LATE_MAX_US);
}

static const struct kernel_param_ops il_test_late_ops = {
	.set	= il_test_late_set,
	.get	= param_get_uint,
};

module_param_cb(test_late_us, &il_test_late_ops, &test_late_us, 0600);
MODULE_PARM_DESC(test_late_us,
		 "test only: delay (us, at most 200000) of the first target's NMI handler");

/* Arm @t for generation @gen, owed @more NMIs besides those it still is. */
static void il_slot_arm(struct il_target *t, u32 gen, u32 more)
{
	s64 old = atomic64_read(t->slot);

	while (!atomic64_try_cmpxchg(t->slot, &old,
				     IL_SLOT(gen, IL_SLOT_OWED(old) + more)))
		;
}

/* Count one ack for generation @gen, unless the sender has moved on. */
static void il_round_ack(struct il_storm *st, u32 gen)
{
	s64 old = atomic64_read(&st->round_acks);

	do {
		if ((u64)old >> 32 != gen)
			return;
	} while (!atomic64_try_cmpxchg(&st->round_acks, &old, old + 1));
}

/*
 * Record the acknowledgment of target @idx, entered at @now: at most one
 * per armed generation, into that generation's record, whatever round the
 * sender is in by then.
 */
void il_storm_ack(struct il_storm *st, int idx, u32 gen, u64 now)
{
	struct il_target *t = &st->tg[idx];
	struct idlelab_ipi_arrival *a;

	if (!gen) {
		atomic_inc(&st->late);
		return;
	}
	a = &st->arr[(size_t)(gen - 1) * st->req->nr_targets + idx];
	a->t = now;
	a->count = 1;
	il_round_ack(st, gen);
	smp_store_release(&t->done, gen);	/* the record, then done */
}

/*
 * Registered for NMI_LOCAL with NMI_FLAG_FIRST by main.c for the module's
 * lifetime: first in the chain, so the TSC read comes before perf's handler
 * and the others.  Claims only the NMIs a target is still owed.
 */
int il_ipi_nmi(unsigned int type, struct pt_regs *regs)
{
	u64 now = il_tsc();
	struct il_storm *st = rcu_dereference(il_cur);
	int cpu, idx;
	s64 gen = -1;

	if (!st)
		return il_straggler(now);
	cpu = smp_processor_id();
	idx = st->tidx[cpu];
	if (idx == 0 && unlikely(READ_ONCE(test_late_us))) {
		u64 until = now + il_us_to_cycles(min_t(uint,
					READ_ONCE(test_late_us),
					IL_TEST_LATE_MAX_US));

		while (il_tsc() < until)
			cpu_relax();
	}
	if (idx < 0 && il_straggler(now) == NMI_HANDLED)
		return NMI_HANDLED;	/* owed by an earlier run */
	if (idx >= 0)
		gen = il_slot_take(st->tg[idx].slot, true);
	if (gen < 0) {
		if (idx >= 0 || cpu == st->req->sender_cpu)
			atomic_inc(&st->foreign);
		return NMI_DONE;
	}
	il_storm_ack(st, idx, gen, now);
	return NMI_HANDLED;
}

/* The check itself is plain C, shared with the fuzz target. */
static_assert(IL_REQ_EINVAL == EINVAL);

int il_storm_check(const struct idlelab_ipi_req *req)
{
	return il_storm_req_check(req, nr_cpu_ids);
}

/*
 * Send one round; returns the number of ICR writes.  Every target was
 * armed and owed its NMI before t_issue (il_storm_round()), so that this
 * costs nothing inside the timed window.  The xAPIC ICR-idle waits of all
 * the writes share one deadline, @timeout cycles after t_issue, so that
 * the send is one of the round's four bounded waits that the run limit
 * counts (IDLELAB_STORM_WORST_US); an ICR that is still busy then ends the
 * writes early, and the targets not sent to time the round out, which
 * flags it.
 */
static u32 il_storm_send(struct il_storm *st, struct idlelab_ipi_round *rd,
			 u32 gen, u64 timeout)
{
	u32 mode = st->req->mode, w, low;
	unsigned long flags;
	u64 deadline;

	if (mode == IDLELAB_IPI_KERNEL) {
		rd->t_issue = il_tsc();
		il_storm_send_kernel(st, gen);
		rd->t_issued = il_tsc();
		return 0;
	}
	local_irq_save(flags);
	rd->t_issue = il_tsc();
	deadline = rd->t_issue + timeout;
	if (mode == IDLELAB_IPI_BROADCAST) {
		w = !il_apic_icr_write(APIC_DEST_ALLBUT | APIC_DM_NMI, 0,
				       deadline);
	} else {
		for (w = 0; w < st->nr_writes; w++) {
			low = APIC_DM_NMI | (st->writes[w].logical ?
					     APIC_DEST_LOGICAL :
					     APIC_DEST_PHYSICAL);
			if (il_apic_icr_write(low, st->writes[w].dest,
					      deadline))
				break;
		}
	}
	rd->t_issued = il_tsc();
	local_irq_restore(flags);
	return w;
}

/* NMIs still owed by the targets; in kernel mode, csds still queued. */
static u32 il_storm_owed(struct il_storm *st)
{
	bool kernel = st->req->mode == IDLELAB_IPI_KERNEL;
	u32 i, n = 0;

	for (i = 0; i < st->req->nr_targets; i++)
		n += kernel ? il_kcsd_busy(st->tg[i].cpu) :
		     IL_SLOT_OWED(atomic64_read(st->tg[i].slot));
	return n;
}

/* Wait, at most @cycles, until no target is owed an NMI; the rest owed. */
static u32 il_storm_drain(struct il_storm *st, u64 cycles)
{
	u64 deadline = il_tsc() + cycles;
	u32 owed;

	while ((owed = il_storm_owed(st)) && il_tsc() < deadline)
		cpu_relax();
	return owed;
}

/*
 * Close round @gen: disarm every target and count the acks the handler
 * recorded for this generation.  A target whose generation the handler
 * took is waited for (it is inside its handler, a few hundred cycles, but
 * bounded anyway) until its record is published.
 */
static u32 il_storm_close(struct il_storm *st, u32 gen, u64 cycles)
{
	u32 i, acks = 0;
	u64 deadline = il_tsc() + cycles;

	for (i = 0; i < st->req->nr_targets; i++) {
		struct il_target *t = &st->tg[i];

		if (il_slot_take(t->slot, false))
			continue;	/* never acknowledged: stays 0 */
		/* Acquire: pairs with the handler's release of @done. */
		while (smp_load_acquire(&t->done) != gen &&
		       il_tsc() < deadline)
			cpu_relax();
		/* Acquire again: the record is read after @done. */
		if (smp_load_acquire(&t->done) == gen)
			acks++;
	}
	return acks;
}

/* One round, generation @r + 1, with preemption disabled throughout. */
static void il_storm_round(struct il_storm *st, u32 r, u64 timeout)
{
	struct idlelab_ipi_round *rd = &st->rounds[r];
	u32 n = st->req->nr_targets, gen = r + 1, i, late0;
	struct idlelab_ipi_arrival *arr = &st->arr[(size_t)r * n];
	u32 more = st->req->mode != IDLELAB_IPI_KERNEL;
	u64 deadline;

	memset(rd, 0, sizeof(*rd));
	/* Counting this generation before any target can acknowledge it. */
	atomic64_set(&st->round_acks, (s64)gen << 32);
	for (i = 0; i < n; i++) {
		arr[i].t = 0;
		arr[i].cpu = st->tg[i].cpu;
		arr[i].count = 0;
		il_slot_arm(&st->tg[i], gen, more);	/* a full barrier */
	}
	late0 = atomic_read(&st->late);
	smp_mb();	/* armed before the first ICR write */
	rd->icr_writes = il_storm_send(st, rd, gen, timeout);
	deadline = il_tsc() + timeout;
	while ((u32)atomic64_read(&st->round_acks) < n &&
	       il_tsc() < deadline)
		cpu_relax();
	rd->t_complete = il_tsc();
	rd->acks = il_storm_close(st, gen, timeout);
	if (rd->acks < n)
		rd->flags |= IDLELAB_ROUND_TIMEOUT;
	rd->stray = atomic_read(&st->late) - late0;
}

static int il_storm_sender(struct il_worker *wk)
{
	struct il_storm *st = wk->ctx;
	const struct idlelab_ipi_req *req = st->req;
	u64 timeout = il_us_to_cycles(req->timeout_us);
	u32 r, foreign0 = 0, owed;
	unsigned long sw0;

	if (READ_ONCE(test_sender_exit)) {
		static DECLARE_COMPLETION(il_nobody_waits);

		WRITE_ONCE(test_sender_exit, false);
		kthread_complete_and_exit(&il_nobody_waits, 0);
	}
	for (r = 0; r < req->nr_rounds; r++) {
		if (il_should_abort(&st->ctl))
			break;
		preempt_disable();
		/* A timed-out round's NMIs arrive, or the run ends here. */
		owed = il_storm_drain(st, timeout);
		if (r) {
			/* Foreign NMIs during round r - 1 or just after it. */
			if (atomic_read(&st->foreign) != foreign0)
				st->rounds[r - 1].flags |=
					IDLELAB_ROUND_FOREIGN_NMI;
		}
		if (owed) {
			preempt_enable();
			st->undrained = true;
			break;
		}
		foreign0 = atomic_read(&st->foreign);
		sw0 = il_switches(current);
		il_storm_round(st, r, timeout);
		/* Cannot happen with preemption off; seen, not assumed. */
		if (il_switches(current) != sw0)
			st->rounds[r].flags |= IDLELAB_ROUND_PREEMPTED;
		preempt_enable();
		st->nr_done = r + 1;
		cond_resched();
	}
	/* The last stragglers, while they still count in this run. */
	il_storm_drain(st, timeout);
	if (st->nr_done && atomic_read(&st->foreign) != foreign0)
		st->rounds[st->nr_done - 1].flags |= IDLELAB_ROUND_FOREIGN_NMI;
	return 0;
}

/*
 * After the sender: lost_nmis is what the targets are still owed now,
 * after the last drain; owed.c keeps it claimable for a while.
 */
static void il_storm_ended(struct il_storm *st)
{
	st->lost = il_storm_owed(st);
	il_owed_until(st);
	RCU_INIT_POINTER(il_cur, NULL);
	synchronize_rcu();
}

static int il_storm_exec(struct il_storm *st, const u32 *cpus)
{
	const struct idlelab_ipi_req *req = st->req;
	struct il_worker wk = {};
	int ret;
	u32 i;

	cpus_read_lock();
	ret = il_storm_targets(st, cpus);
	if (ret)
		goto unlock_cpus;
	for (i = 0; i < req->nr_targets; i++)
		st->tg[i].slot = il_cpu_slot(st->tg[i].cpu);
	if (req->mode != IDLELAB_IPI_KERNEL &&
	    !boot_cpu_has(X86_FEATURE_APIC)) {
		st->unsupported = IDLELAB_UNSUP_NO_APIC;
		goto unlock_cpus;
	}
	if (req->mode != IDLELAB_IPI_KERNEL && !il_icr_native()) {
		st->unsupported = IDLELAB_UNSUP_ICR_NOT_NATIVE;
		goto unlock_cpus;
	}
	if (req->mode == IDLELAB_IPI_PHYSICAL ||
	    req->mode == IDLELAB_IPI_LOGICAL) {
		ret = il_storm_dest(st);
		if (ret || st->unsupported)
			goto unlock_cpus;
	} else if (req->mode == IDLELAB_IPI_BROADCAST) {
		if (cpumask_weight(st->mask) != num_online_cpus() - 1) {
			ret = -EINVAL;
			goto unlock_cpus;
		}
		if (!il_storm_broadcast_ok(st)) {
			st->unsupported = IDLELAB_UNSUP_BROADCAST_SET;
			goto unlock_cpus;
		}
	}
	/*
	 * In kernel mode too: nothing is owed there, so the handler only
	 * counts the NMIs that hit the sender or a target during the run.
	 */
	rcu_assign_pointer(il_cur, st);
	st->ctl.cpus = st->mask;	/* a target going offline ends it too */
	wk.fn = il_storm_sender;
	wk.ctx = st;
	wk.cpu = req->sender_cpu;
	ret = il_workers_start(&wk, 1, &st->ctl);
	/* Held only while the CPUs are checked and the sender bound. */
	cpus_read_unlock();
	if (!ret)
		ret = il_workers_end(&wk, 1, &st->ctl);
	il_storm_ended(st);
	return ret;

unlock_cpus:
	cpus_read_unlock();
	return ret;
}

/**
 * il_storm_run - run the storm @req, already checked by il_storm_check()
 * @req:	the request; its out fields are filled on success
 * @cpus:	the @req->nr_targets target CPUs
 * @rounds:	@req->nr_rounds records
 * @arr:	@req->nr_rounds * @req->nr_targets arrival records
 *
 * Return: 0 (with req->unsupported possibly set), -EINVAL for a target
 * offline, repeated or the sender, -ENOMEM, -EINTR, or -ENODEV when the
 * sender or a target went offline during the run.
 */
int il_storm_run(struct idlelab_ipi_req *req, const u32 *cpus,
		 struct idlelab_ipi_round *rounds,
		 struct idlelab_ipi_arrival *arr)
{
	struct il_storm *st;
	u32 i;
	int ret;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	st->req = req;
	st->rounds = rounds;
	st->arr = arr;
	st->seq = il_storm_kernel_seq();
	/* Up to 32767 targets: kv* and charged to the caller's memcg. */
	st->tg = kvcalloc(req->nr_targets, sizeof(*st->tg),
			  GFP_KERNEL_ACCOUNT);
	st->tidx = kvmalloc_array(nr_cpu_ids, sizeof(*st->tidx),
				  GFP_KERNEL_ACCOUNT);
	if (!st->tg || !st->tidx ||
	    !zalloc_cpumask_var(&st->mask, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto free_storm;
	}
	for (i = 0; i < nr_cpu_ids; i++)
		st->tidx[i] = -1;

	il_owed_wait(cpus, req->nr_targets);
	ret = il_storm_exec(st, cpus);
	if (ret)
		goto free_storm;
	req->nr_done = st->nr_done;
	req->unsupported = st->unsupported;
	req->run_flags = il_run_flags() |
			 (st->undrained ? IDLELAB_RUN_UNDRAINED : 0);
	req->foreign_nmis = atomic_read(&st->foreign);
	req->late_nmis = atomic_read(&st->late);
	req->lost_nmis = st->lost;
	req->dest_model = st->model;
	req->x2apic = x2apic_mode;
	req->tsc_khz = tsc_khz;
	il_apic_name(req->apic_name, sizeof(req->apic_name));
free_storm:
	free_cpumask_var(st->mask);
	kvfree(st->tidx);
	kvfree(st->tg);
	kvfree(st->writes);
	kfree(st);
	return ret;
}
