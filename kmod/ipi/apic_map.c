// SPDX-License-Identifier: GPL-2.0-only
/*
 * apic_map.c - IDLELAB_IOC_APIC_MAP: every possible CPU's APIC ID, and for
 * the online ones the LDR their own local APIC reports, plus the DFR and
 * the destination model.  User space turns this into the logical
 * destinations of a storm and checks them against what storm.c computes.
 * The register reader is also storm.c's source for the targets' IDs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/apic.h>
#include <asm/smp.h>

#include "idlelab_apic_access.h"
#include "idlelab_kcommon.h"
#include "ipi.h"

void il_read_apic(void *info)
{
	struct il_apic_regs *r = info;

	r->apic_id = il_apic_id();
	r->ldr = il_apic_read(APIC_LDR);
	/* x2APIC has no DFR: reading its MSR would fault. */
	r->dfr = x2apic_mode ? 0 : il_apic_read(APIC_DFR);
}

/* The kernel's APIC driver name, NUL-padded so no kernel bytes leak. */
void il_apic_name(__u8 *dst, size_t len)
{
	memset(dst, 0, len);
	strscpy((char *)dst, apic->name, len);
}

/* Return: 0, -EINVAL, or -ENOSPC when the caller's array is too small. */
int il_apic_map_check(const struct idlelab_apic_map_req *req)
{
	if (req->abi_version != IDLELAB_ABI_VERSION ||
	    req->size != sizeof(*req) ||
	    !il_all_zero(req->reserved, sizeof(req->reserved)) ||
	    req->nr_cpus == 0 || req->nr_cpus > IDLELAB_MAX_CPUS || !req->cpus)
		return -EINVAL;
	if (req->nr_cpus < num_possible_cpus())
		return -ENOSPC;
	return 0;
}

/* Fills @c, num_possible_cpus() entries, and the request's out fields. */
void il_apic_map_run(struct idlelab_apic_map_req *req,
		     struct idlelab_apic_cpu *c)
{
	struct il_apic_regs r;
	unsigned int cpu;
	u32 n = 0;

	memset(&r, 0, sizeof(r));
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		c[n].cpu = cpu;
		c[n].apic_id = per_cpu(x86_cpu_to_apicid, cpu);
		if (cpu_online(cpu) &&
		    !smp_call_function_single(cpu, il_read_apic, &r, 1)) {
			c[n].ldr = r.ldr;
			c[n].flags = IDLELAB_APIC_CPU_ONLINE;
		}
		n++;
	}
	cpus_read_unlock();

	req->nr_cpus = n;
	req->x2apic = x2apic_mode;
	req->dfr = r.dfr;
	if (x2apic_mode)
		req->dest_model = IDLELAB_DEST_X2APIC_CLUSTER;
	else
		req->dest_model = (r.dfr >> 28) == 0xf ?
				  IDLELAB_DEST_XAPIC_FLAT :
				  IDLELAB_DEST_XAPIC_CLUSTER;
	il_apic_name(req->apic_name, sizeof(req->apic_name));
}
