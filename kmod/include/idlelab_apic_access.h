/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlelab_apic_access.h - the local APIC registers the IPI module reads
 * and the ICR it writes, the same way on every kernel: through the x2APIC
 * MSRs in x2APIC mode, and through the kernel's mapped xAPIC page with its
 * inline accessors (native_apic_mem_read/write) otherwise.  Since 6.6 the
 * kernel's own apic_read() and ICR callbacks are static calls a module
 * cannot reach (idlelab_compat.h); these helpers need only x2apic_mode,
 * which the kernel exports.
 *
 * Callers run with interrupts off for every ICR write: in xAPIC mode a
 * write is two stores (ICR2, then ICR), and an interrupt handler sending
 * its own IPI in between would redirect ours.
 */
#ifndef IDLELAB_APIC_ACCESS_H
#define IDLELAB_APIC_ACCESS_H

#include <linux/types.h>
#include <asm/apic.h>
#include <asm/apicdef.h>
#include <asm/msr.h>
#include <asm/processor.h>

#include "idlelab_arch.h"

/* Read APIC register @reg (an APIC_* offset); DFR does not exist in x2APIC. */
static inline u32 il_apic_read(u32 reg)
{
	if (x2apic_mode)
		return native_apic_msr_read(reg);
	return native_apic_mem_read(reg);
}

/* This CPU's APIC ID: all 32 bits in x2APIC, bits 31:24 of the xAPIC ID. */
static inline u32 il_apic_id(void)
{
	u32 id = il_apic_read(APIC_ID);

	return x2apic_mode ? id : id >> 24;
}

/*
 * il_apic_icr_write() - send one IPI: @low is the ICR's low word (vector,
 * delivery and destination modes, shorthand), @dest the destination.
 *
 * x2APIC: one 64-bit WRMSR with the destination in bits 63:32 (SDM Vol. 3A,
 * "Interrupt Command Register (ICR)" in x2APIC mode).  WRMSR to the x2APIC
 * MSRs is not serializing, so earlier stores (the round's state the
 * targets read) are fenced first, as the kernel does before its own IPIs.
 * xAPIC: wait until the delivery-status bit says the previous IPI left,
 * then the destination in ICR2 bits 31:24 and the low word, whose store
 * sends it.
 *
 * The wait is bounded by the TSC @deadline, not by a count of reads: an
 * MMIO read of the APIC costs anything from nanoseconds to microseconds
 * (a trap to the hypervisor in a guest), so a million of them, which the
 * callers spend with IRQs off, had no bound in time.  The caller passes
 * one deadline for all the writes of a round, so that the whole send fits
 * the run limit's formula (IDLELAB_STORM_WORST_US).
 * Return: 0, or -EBUSY if the ICR did not go idle before @deadline.
 */
static inline int il_apic_icr_write(u32 low, u32 dest, u64 deadline)
{
	if (x2apic_mode) {
		weak_wrmsr_fence();
		native_x2apic_icr_write(low, dest);
		return 0;
	}
	while (native_apic_mem_read(APIC_ICR) & APIC_ICR_BUSY) {
		if (il_tsc() >= deadline)
			return -EBUSY;
		cpu_relax();
	}
	native_apic_mem_write(APIC_ICR2, SET_XAPIC_DEST_FIELD(dest));
	native_apic_mem_write(APIC_ICR, low);
	return 0;
}

#endif
