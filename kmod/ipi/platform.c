// SPDX-License-Identifier: GPL-2.0-only
/*
 * platform.c - what the machine under the module does to a storm: whether
 * the ICR the raw modes write is the hardware's, and the run attributes
 * every reply carries (measured under a hypervisor, TSC unstable).
 *
 * The raw modes write the ICR themselves (idlelab_apic_access.h), which is
 * only meaningful where the kernel's own APIC driver does the same.  The
 * kernel says so through apic->icr_write: its native drivers use
 * native_apic_icr_write (xAPIC) or native_x2apic_icr_write (x2APIC), and a
 * platform that cannot write the ICR directly replaces it (Xen PV's
 * xen_apic_icr_write is a WARN_ON; Hyper-V's goes through a synthetic
 * MSR).  The pointer is compared by the name %ps gives it; without
 * kallsyms the name is an address and the raw modes are refused, which
 * errs on the safe side.  SEV-ES/SNP and TDX guests keep a native-looking
 * driver while every APIC MSR access traps to the hypervisor, so they are
 * refused by their feature flags.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cc_platform.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/tsc.h>

#include "ipi.h"

bool il_icr_native(void)
{
	char name[48];

	if (boot_cpu_has(X86_FEATURE_XENPV) ||
	    boot_cpu_has(X86_FEATURE_TDX_GUEST) ||
	    cc_platform_has(CC_ATTR_GUEST_STATE_ENCRYPT))
		return false;
	snprintf(name, sizeof(name), "%ps", apic->icr_write);
	return !strcmp(name, "native_apic_icr_write") ||
	       !strcmp(name, "native_x2apic_icr_write");
}

/* IDLELAB_RUN_* that hold for the whole run. */
u32 il_run_flags(void)
{
	u32 f = 0;

	if (boot_cpu_has(X86_FEATURE_HYPERVISOR))
		f |= IDLELAB_RUN_HYPERVISOR;
	if (check_tsc_unstable())
		f |= IDLELAB_RUN_TSC_UNSTABLE;
	return f;
}
