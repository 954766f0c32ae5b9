// SPDX-License-Identifier: GPL-2.0-only
/*
 * dest.c - which CPUs a storm targets and which ICR writes reach them: the
 * target set checked against the online CPUs, and for physical and
 * logical storms the destinations computed from the targets' own APIC
 * registers with include/idlelab_apicdest.h (the arithmetic shared with
 * the user-space unit test); broadcast only where the all-but-self
 * shorthand hits exactly the targets.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <asm/apic.h>

#include "idlelab_apic_access.h"
#include "idlelab_apicdest.h"
#include "idlelab_kcommon.h"
#include "ipi.h"
#include "storm.h"

static_assert(IL_APICDEST_XAPIC_PHYS == IDLELAB_DEST_XAPIC_PHYS);
static_assert(IL_APICDEST_XAPIC_FLAT == IDLELAB_DEST_XAPIC_FLAT);
static_assert(IL_APICDEST_XAPIC_CLUSTER == IDLELAB_DEST_XAPIC_CLUSTER);
static_assert(IL_APICDEST_X2APIC_PHYS == IDLELAB_DEST_X2APIC_PHYS);
static_assert(IL_APICDEST_X2APIC_CLUSTER == IDLELAB_DEST_X2APIC_CLUSTER);

/*
 * Targets online, unique, not the sender, and not CPU 0 unless the caller
 * asked for it (IDLELAB_IPI_F_CPU0: the platform's NMIs land there); fills
 * tg[], tidx[] and the mask.
 * Context: cpus_read_lock() held.
 */
int il_storm_targets(struct il_storm *st, const u32 *cpus)
{
	const struct idlelab_ipi_req *req = st->req;
	u32 i;

	if (!il_cpu_ok(req->sender_cpu))
		return -EINVAL;
	for (i = 0; i < req->nr_targets; i++) {
		u32 cpu = cpus[i];

		if (!il_cpu_ok(cpu) || cpu == req->sender_cpu ||
		    st->tidx[cpu] >= 0 ||
		    (cpu == 0 && !(req->flags & IDLELAB_IPI_F_CPU0)))
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
int il_storm_dest(struct il_storm *st)
{
	const struct idlelab_ipi_req *req = st->req;
	bool logical = req->mode == IDLELAB_IPI_LOGICAL;
	struct il_apic_regs r;
	u32 i, dfr = 0, *ids;
	int ret = 0, nw;

	/* Up to 32767 targets: kv* and charged to the caller's memcg. */
	ids = kvcalloc(req->nr_targets, sizeof(*ids), GFP_KERNEL_ACCOUNT);
	st->writes = kvcalloc(req->nr_targets, sizeof(*st->writes),
			      GFP_KERNEL_ACCOUNT);
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
	kvfree(ids);
	return ret;
}

/* Broadcast reaches every other APIC: only when that is the target set. */
bool il_storm_broadcast_ok(struct il_storm *st)
{
	return cpumask_weight(st->mask) == num_online_cpus() - 1 &&
	       cpumask_equal(cpu_online_mask, cpu_present_mask);
}
