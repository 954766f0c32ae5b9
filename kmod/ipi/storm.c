// SPDX-License-Identifier: GPL-2.0-only
/*
 * storm.c - IDLELAB_IOC_IPI_STORM: closed-loop IPI storms from a sender CPU
 * to a target set.  The destination arithmetic is
 * include/idlelab_apicdest.h, shared with the user-space unit test.
 *
 * Modes: physical (one ICR write per target), logical (one write per
 * cluster, one for the whole mask in xAPIC flat), broadcast (the all-but-self
 * shorthand, only when the targets are every other CPU and all are online),
 * all three sending NMIs to our own NMI_LOCAL handler with our own ICR
 * writes (idlelab_apic_access.h: the x2APIC MSR or the mapped xAPIC page,
 * the same on every kernel); and kernel (smp_call_function_many() with wait, through
 * the kernel's own APIC driver).  Each round is closed-loop: arm every
 * target, send, then wait (bounded by timeout_us) until every target has
 * acknowledged.  NMIs coalesce, so an open-loop storm would lose deliveries.
 *
 * Object model: one struct il_storm per run, owned by il_storm_run() and
 * shared with the sender kthread and the NMI handler (or the
 * smp_call_function callback in kernel mode).  Each target has a @pending
 * word that the sender sets before a round and the handler clears with
 * atomic_xchg(), so a target acknowledges at most once per round; the
 * handler then stores its arrival time and increments @acks (a full barrier,
 * so the sender sees the arrival once it sees the ack).
 *
 * Locking: main.c's il_run_lock serialises runs (-EBUSY when taken).  The
 * NMI handler finds the run through il_cur, an RCU pointer: NMI handlers run
 * inside rcu_read_lock() (nmi_handle()), so clearing il_cur and
 * synchronize_rcu() before freeing the run is enough.  cpus_read_lock() is
 * held for the whole run so that no target goes offline.
 *
 * This file never touches user memory: main.c copies the request and the
 * target list in and the rounds and arrivals out.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
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
#include "ipi.h"

static_assert(IL_APICDEST_XAPIC_PHYS == IDLELAB_DEST_XAPIC_PHYS);
static_assert(IL_APICDEST_XAPIC_FLAT == IDLELAB_DEST_XAPIC_FLAT);
static_assert(IL_APICDEST_XAPIC_CLUSTER == IDLELAB_DEST_XAPIC_CLUSTER);
static_assert(IL_APICDEST_X2APIC_PHYS == IDLELAB_DEST_X2APIC_PHYS);
static_assert(IL_APICDEST_X2APIC_CLUSTER == IDLELAB_DEST_X2APIC_CLUSTER);

struct il_target {
	atomic_t pending;
	u32 cpu;
	u32 count;
	u64 t_arrive;
};

struct il_storm {
	const struct idlelab_ipi_req *req;
	struct il_target *tg;
	int *tidx;			/* CPU -> target index, -1 if none */
	struct il_icr_dest *writes;
	u32 nr_writes;
	u32 model;
	cpumask_var_t mask;
	atomic_t acks;
	atomic_t stray;
	atomic_t abort;
	struct idlelab_ipi_round *rounds;
	struct idlelab_ipi_arrival *arr;
	u32 nr_done;
	u32 unsupported;
};

static struct il_storm __rcu *il_cur;

/* Record one acknowledgment from this CPU; @now is the handler's entry. */
static void il_storm_ack(struct il_storm *st, u64 now)
{
	int idx = st->tidx[smp_processor_id()];

	if (idx < 0 || !atomic_xchg(&st->tg[idx].pending, 0)) {
		atomic_inc(&st->stray);
		return;
	}
	st->tg[idx].t_arrive = now;
	st->tg[idx].count++;
	atomic_inc_return(&st->acks);	/* full barrier: arrival, then ack */
}

/* Registered for NMI_LOCAL by main.c for the module's lifetime. */
int il_ipi_nmi(unsigned int type, struct pt_regs *regs)
{
	u64 now = il_tsc();
	struct il_storm *st = rcu_dereference(il_cur);

	if (!st)
		return NMI_DONE;
	/* While a raw storm runs, every local NMI is counted as ours. */
	il_storm_ack(st, now);
	return NMI_HANDLED;
}

static void il_ipi_kernel_cb(void *info)
{
	il_storm_ack(info, il_tsc());
}

int il_storm_check(const struct idlelab_ipi_req *req)
{
	if (req->abi_version != IDLELAB_ABI_VERSION ||
	    req->size != sizeof(*req) ||
	    !il_all_zero(req->reserved, sizeof(req->reserved)))
		return -EINVAL;
	if (req->mode > IDLELAB_IPI_KERNEL || req->sender_cpu >= nr_cpu_ids ||
	    req->nr_targets == 0 || req->nr_targets >= nr_cpu_ids ||
	    req->nr_targets > IDLELAB_MAX_CPUS ||
	    req->nr_rounds == 0 || req->nr_rounds > IDLELAB_MAX_ROUNDS ||
	    (u64)req->nr_rounds * req->nr_targets > IDLELAB_MAX_SAMPLES ||
	    req->timeout_us == 0 ||
	    req->timeout_us > IDLELAB_MAX_ROUND_TIMEOUT_US ||
	    !req->targets || !req->rounds || !req->arrivals)
		return -EINVAL;
	return 0;
}

/*
 * Targets online, unique, not the sender; fills tg[], tidx[] and the mask.
 * Context: cpus_read_lock() held.
 */
static int il_storm_targets(struct il_storm *st, const u32 *cpus)
{
	const struct idlelab_ipi_req *req = st->req;
	u32 i;

	if (!il_cpu_ok(req->sender_cpu))
		return -EINVAL;
	for (i = 0; i < req->nr_targets; i++) {
		u32 cpu = cpus[i];

		if (!il_cpu_ok(cpu) || cpu == req->sender_cpu ||
		    st->tidx[cpu] >= 0)
			return -EINVAL;
		st->tidx[cpu] = i;
		st->tg[i].cpu = cpu;
		cpumask_set_cpu(cpu, st->mask);
	}
	return 0;
}

/*
 * The ICR writes of a physical or logical storm, from the targets' own
 * APIC registers.  Returns 0 with st->unsupported set when the destination
 * model does not allow the mode.
 */
static int il_storm_dest(struct il_storm *st)
{
	const struct idlelab_ipi_req *req = st->req;
	bool logical = req->mode == IDLELAB_IPI_LOGICAL;
	struct il_apic_regs r;
	u32 i, dfr = 0, *ids;
	int ret = 0, nw;

	ids = kcalloc(req->nr_targets, sizeof(*ids), GFP_KERNEL);
	st->writes = kcalloc(req->nr_targets, sizeof(*st->writes),
			     GFP_KERNEL);
	if (!ids || !st->writes) {
		ret = -ENOMEM;
		goto free_ids;
	}
	/*
	 * Logical destinations only where the kernel's own driver uses them
	 * (cluster x2apic, flat): under physical routing (x2apic_phys,
	 * physflat, or a firmware that forces physical mode) nothing
	 * promises the logical IDs are set up or stay so.
	 */
	if (logical && !apic->dest_mode_logical) {
		st->unsupported = IDLELAB_UNSUP_KERNEL_PHYS;
		goto free_ids;
	}
	for (i = 0; i < req->nr_targets; i++) {
		ret = smp_call_function_single(st->tg[i].cpu, il_read_apic,
					       &r, 1);
		if (ret)
			goto free_ids;
		if (i && r.dfr != dfr) {
			st->unsupported = IDLELAB_UNSUP_DEST_MODEL;
			goto free_ids;
		}
		dfr = r.dfr;
		if (!logical)
			ids[i] = r.apic_id;
		else if (x2apic_mode)
			ids[i] = r.apic_id;
		else
			ids[i] = r.ldr >> 24;
		if (logical && x2apic_mode &&
		    r.ldr != il_x2apic_ldr(r.apic_id)) {
			st->unsupported = IDLELAB_UNSUP_DEST_MODEL;
			goto free_ids;
		}
	}
	if (!logical)
		st->model = x2apic_mode ? IL_APICDEST_X2APIC_PHYS :
					  IL_APICDEST_XAPIC_PHYS;
	else if (x2apic_mode)
		st->model = IL_APICDEST_X2APIC_CLUSTER;
	else if ((dfr >> 28) == 0xf)
		st->model = IL_APICDEST_XAPIC_FLAT;
	else if ((dfr >> 28) == 0)
		st->model = IL_APICDEST_XAPIC_CLUSTER;
	else
		st->unsupported = IDLELAB_UNSUP_DEST_MODEL;
	if (st->unsupported)
		goto free_ids;

	il_apicdest_sort(ids, req->nr_targets);
	nw = il_apicdest_build(st->model, ids, req->nr_targets, st->writes,
			       req->nr_targets);
	if (nw < 0) {
		/* An empty or odd LDR: the kernel runs this APIC physical. */
		st->unsupported = logical ? IDLELAB_UNSUP_NO_LOGICAL :
					    IDLELAB_UNSUP_DEST_MODEL;
		goto free_ids;
	}
	st->nr_writes = nw;
free_ids:
	kfree(ids);
	return ret;
}

/* Send one round; returns the number of ICR writes. */
static u32 il_storm_send(struct il_storm *st, struct idlelab_ipi_round *rd)
{
	u32 mode = st->req->mode, w, low;
	unsigned long flags;

	if (mode == IDLELAB_IPI_KERNEL) {
		preempt_disable();
		rd->t_issue = il_tsc();
		smp_call_function_many(st->mask, il_ipi_kernel_cb, st, true);
		rd->t_issued = rd->t_issue;
		preempt_enable();
		return 0;
	}
	local_irq_save(flags);
	rd->t_issue = il_tsc();
	/*
	 * An xAPIC ICR that never goes idle ends the writes early; the
	 * targets not sent to then time the round out, which flags it.
	 */
	if (mode == IDLELAB_IPI_BROADCAST) {
		w = !il_apic_icr_write(APIC_DEST_ALLBUT | APIC_DM_NMI, 0);
	} else {
		for (w = 0; w < st->nr_writes; w++) {
			low = APIC_DM_NMI | (st->writes[w].logical ?
					     APIC_DEST_LOGICAL :
					     APIC_DEST_PHYSICAL);
			if (il_apic_icr_write(low, st->writes[w].dest))
				break;
		}
	}
	rd->t_issued = il_tsc();
	local_irq_restore(flags);
	return w;
}

static int il_storm_sender(struct il_worker *wk)
{
	struct il_storm *st = wk->ctx;
	const struct idlelab_ipi_req *req = st->req;
	u32 n = req->nr_targets, r, i, stray0;
	u64 timeout = il_us_to_cycles(req->timeout_us), deadline;

	for (r = 0; r < req->nr_rounds; r++) {
		struct idlelab_ipi_round *rd = &st->rounds[r];
		struct idlelab_ipi_arrival *arr = &st->arr[(size_t)r * n];

		if (il_should_abort(&st->abort))
			break;
		memset(rd, 0, sizeof(*rd));
		for (i = 0; i < n; i++) {
			st->tg[i].count = 0;
			st->tg[i].t_arrive = 0;
			atomic_set(&st->tg[i].pending, 1);
		}
		atomic_set(&st->acks, 0);
		stray0 = atomic_read(&st->stray);
		smp_mb();	/* armed before the first ICR write */
		rd->icr_writes = il_storm_send(st, rd);
		deadline = il_tsc() + timeout;
		while (atomic_read(&st->acks) < n && il_tsc() < deadline)
			cpu_relax();
		rd->t_complete = il_tsc();
		/* Late arrivals after a timeout count as strays. */
		for (i = 0; i < n; i++)
			atomic_set(&st->tg[i].pending, 0);
		smp_mb();	/* acks and arrivals after the disarm */
		rd->acks = atomic_read(&st->acks);
		if (rd->acks < n)
			rd->flags |= IDLELAB_ROUND_TIMEOUT;
		for (i = 0; i < n; i++) {
			arr[i].t = st->tg[i].t_arrive;
			arr[i].cpu = st->tg[i].cpu;
			arr[i].count = st->tg[i].count;
		}
		rd->stray = atomic_read(&st->stray) - stray0;
		st->nr_done = r + 1;
		touch_nmi_watchdog();
		cond_resched();
	}
	return 0;
}

/* Broadcast reaches every other APIC: only when that is the target set. */
static bool il_storm_broadcast_ok(struct il_storm *st)
{
	return cpumask_weight(st->mask) == num_online_cpus() - 1 &&
	       cpumask_equal(cpu_online_mask, cpu_present_mask);
}

static int il_storm_exec(struct il_storm *st, const u32 *cpus)
{
	const struct idlelab_ipi_req *req = st->req;
	struct il_worker wk = {};
	int ret;

	cpus_read_lock();
	ret = il_storm_targets(st, cpus);
	if (ret)
		goto unlock_cpus;
	if (req->mode != IDLELAB_IPI_KERNEL &&
	    !boot_cpu_has(X86_FEATURE_APIC)) {
		st->unsupported = IDLELAB_UNSUP_NO_APIC;
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
	if (req->mode != IDLELAB_IPI_KERNEL)
		rcu_assign_pointer(il_cur, st);
	wk.fn = il_storm_sender;
	wk.ctx = st;
	wk.cpu = req->sender_cpu;
	ret = il_workers_run(&wk, 1, &st->abort);
	RCU_INIT_POINTER(il_cur, NULL);
	synchronize_rcu();
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
 * offline, repeated or the sender, -ENOMEM, or -EINTR.
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
	atomic_set(&st->abort, 0);
	st->tg = kcalloc(req->nr_targets, sizeof(*st->tg), GFP_KERNEL);
	st->tidx = kmalloc_array(nr_cpu_ids, sizeof(*st->tidx), GFP_KERNEL);
	if (!st->tg || !st->tidx ||
	    !zalloc_cpumask_var(&st->mask, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto free_storm;
	}
	for (i = 0; i < nr_cpu_ids; i++)
		st->tidx[i] = -1;

	ret = il_storm_exec(st, cpus);
	if (ret)
		goto free_storm;
	req->nr_done = st->nr_done;
	req->unsupported = st->unsupported;
	req->dest_model = st->model;
	req->x2apic = x2apic_mode;
	req->tsc_khz = tsc_khz;
	il_apic_name(req->apic_name, sizeof(req->apic_name));
free_storm:
	free_cpumask_var(st->mask);
	kfree(st->tidx);
	kfree(st->tg);
	kfree(st->writes);
	kfree(st);
	return ret;
}
