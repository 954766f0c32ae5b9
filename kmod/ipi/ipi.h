/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ipi.h - internal interface of idlelab_ipi.ko between the device (main.c)
 * and its two operations: closed-loop IPI storms (storm.c) and the map of
 * every CPU's APIC ID and LDR (apic_map.c).
 *
 * As in idlelab_cstate.ko, main.c copies each request in, calls the
 * operation's check function (pure validation, no side effects), allocates
 * the output buffers, calls the run function and copies the request and the
 * records back out.  Run functions never touch user memory; they take
 * cpus_read_lock() themselves, only while they check CPUs and start
 * workers.  main.c serialises runs.
 */
#ifndef IDLELAB_IPI_H
#define IDLELAB_IPI_H

#include <linux/ptrace.h>
#include <linux/types.h>
#include "uapi/idlelab.h"

/* What one CPU's local APIC says about itself. */
struct il_apic_regs {
	u32 apic_id;
	u32 ldr;
	u32 dfr;
};

void il_read_apic(void *info);
void il_apic_name(__u8 *dst, size_t len);
bool il_icr_native(void);
u32 il_run_flags(void);

int il_apic_map_check(const struct idlelab_apic_map_req *req);
void il_apic_map_run(struct idlelab_apic_map_req *req,
		     struct idlelab_apic_cpu *c);

int il_ipi_nmi(unsigned int type, struct pt_regs *regs);
void il_storm_csd_idle(void);
int il_storm_check(const struct idlelab_ipi_req *req);
int il_storm_run(struct idlelab_ipi_req *req, const u32 *cpus,
		 struct idlelab_ipi_round *rounds,
		 struct idlelab_ipi_arrival *arr);

#endif /* IDLELAB_IPI_H */
