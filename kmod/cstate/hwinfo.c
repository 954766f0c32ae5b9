// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwinfo.c - what the hardware and the kernel say about a measurement, read
 * by the three operations of idlelab_cstate.ko (wake.c, wbinvd.c, gaps.c):
 * the run-wide IDLELAB_HW_* flags (hypervisor, TSC stability, C1E
 * promotion, whether WBINVD reaches the other CPUs' caches), the check of
 * an MWAIT hint against CPUID leaf 5, and the idle-residency counters read
 * around each wake sample, so that the report can tell the state asked for
 * from the state the hardware says it entered.
 *
 * Every MSR is read with rdmsrl_safe(): a counter the CPU (or hypervisor)
 * does not have faults, and is then reported as not readable, never as 0.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/device.h>
#include <linux/pm_qos.h>
#include <linux/types.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/tsc.h>

#include "idlelab_arch.h"
#include "cstate.h"

/* MSR_IA32_POWER_CTL (0x1FC) bit 1: C1E promotion (SDM Vol. 4). */
#define IL_POWER_CTL_C1E	(1ULL << 1)

/*
 * The residency counters in IDLELAB_RES_* order: MSR_CORE_C1_RES (0x660),
 * MSR_CORE_C3/C6/C7_RESIDENCY (0x3FC-0x3FE), MSR_PKG_C3/C6/C7_RESIDENCY
 * (0x3F8-0x3FA), MPERF and APERF (SDM Vol. 4, turbostat's list).
 */
static const u32 il_res_msr[IDLELAB_RES_NR] = {
	0x660, 0x3fc, 0x3fd, 0x3fe, 0x3f8, 0x3f9, 0x3fa,
	MSR_IA32_MPERF, MSR_IA32_APERF,
};

/*
 * Does WBINVD on one CPU act on the caches of the other CPUs that share
 * the last cache level?  CPUID leaf 4 (AMD: 0x8000001D, same layout),
 * EDX bit 0 of the highest level: 0 = it does (SDM Vol. 2A, CPUID).
 */
static u32 il_wbinvd_reach(void)
{
	unsigned int leaf, a, b, c, d, i, level, best = 0;
	u32 f = 0;

	if (boot_cpu_data.x86_vendor == X86_VENDOR_INTEL &&
	    boot_cpu_data.cpuid_level >= 4)
		leaf = 4;
	else if (boot_cpu_has(X86_FEATURE_TOPOEXT))
		leaf = 0x8000001d;
	else
		return 0;
	for (i = 0; i < 16; i++) {
		cpuid_count(leaf, i, &a, &b, &c, &d);
		if (!(a & 0x1f))	/* cache type 0: no more caches */
			break;
		level = (a >> 5) & 7;
		if (level < best)
			continue;
		best = level;
		f = IDLELAB_HW_WBINVD_INFO |
		    (d & 1 ? 0 : IDLELAB_HW_WBINVD_SHARERS);
	}
	return f;
}

/**
 * il_hw_flags - the IDLELAB_HW_* flags of a run, read on the calling CPU
 *
 * Return: the flags.
 */
u32 il_hw_flags(void)
{
	u32 f = il_wbinvd_reach(), smi;
	u64 pc;

	if (boot_cpu_has(X86_FEATURE_HYPERVISOR))
		f |= IDLELAB_HW_HYPERVISOR;
	if (boot_cpu_has(X86_FEATURE_XENPV))
		f |= IDLELAB_HW_XEN_PV;
	/* Cross-CPU times compare TSCs: say when the kernel distrusts them. */
	if (check_tsc_unstable())
		f |= IDLELAB_HW_TSC_UNSTABLE;
	if (boot_cpu_has(X86_FEATURE_NONSTOP_TSC))
		f |= IDLELAB_HW_NONSTOP_TSC;
	if (!rdmsrl_safe(MSR_IA32_POWER_CTL, &pc)) {
		f |= IDLELAB_HW_C1E_KNOWN;
		if (pc & IL_POWER_CTL_C1E)
			f |= IDLELAB_HW_C1E_ON;
	}
	if (il_smi_count(&smi))
		f |= IDLELAB_HW_SMI_COUNT;
	return f;
}

/**
 * il_idle_entry_flags - what a wake by @method does besides the idle
 * instruction (il_wake_pass(), idlelab_arch.h)
 * @method:	IDLELAB_METHOD_*
 *
 * Return: IDLELAB_HW_IDLE_VERW when HLT or MWAIT is preceded by the
 * kernel's idle VERW, IDLELAB_HW_CLFLUSH_MONITOR when MWAIT's MONITOR is
 * preceded by CLFLUSH; 0 for the poll loop, which enters no idle state.
 */
u32 il_idle_entry_flags(u32 method)
{
	u32 f = 0;

	if (method == IDLELAB_METHOD_POLL)
		return 0;
	if (il_idle_clear_on())
		f |= IDLELAB_HW_IDLE_VERW;
	if (method == IDLELAB_METHOD_MWAIT &&
	    boot_cpu_has_bug(X86_BUG_CLFLUSH_MONITOR))
		f |= IDLELAB_HW_CLFLUSH_MONITOR;
	return f;
}

/**
 * il_idle_policy_check - may the kernel's idle policy enter @method on
 * @cpu?  What the kernel itself would not enter is refused, unless the
 * request overrides it (IDLELAB_CSTATE_F_POLICY_OVERRIDE).
 * @method:	IDLELAB_METHOD_*
 * @cpu:	the measured CPU, online (cpus_read_lock() held or not: the
 *		CPU device is never freed)
 *
 * idle= (boot_option_idle_override, as select_idle_routine() reads it):
 * idle=poll allows no HLT or MWAIT, idle=halt and idle=nomwait no MWAIT.
 * PM QoS: the CPU's own resume-latency constraint, read locklessly as
 * cpuidle_governor_latency_req() reads it; 0 ("n/a" in sysfs) leaves the
 * governor only polling.  The global cpu_dma_latency limit, which that
 * function also takes, is deliberately not read: the harness holds it
 * itself during its runs (pmqos.h), so counting it would refuse every run
 * the harness makes, and the kernel does not export its value anyway.
 *
 * Return: IDLELAB_UNSUP_NONE, _IDLE_OVERRIDE or _PM_QOS.
 */
u32 il_idle_policy_check(u32 method, unsigned int cpu)
{
	struct device *dev;

	if (method == IDLELAB_METHOD_POLL)
		return IDLELAB_UNSUP_NONE;
	if (boot_option_idle_override == IDLE_POLL ||
	    (method == IDLELAB_METHOD_MWAIT &&
	     (boot_option_idle_override == IDLE_HALT ||
	      boot_option_idle_override == IDLE_NOMWAIT)))
		return IDLELAB_UNSUP_IDLE_OVERRIDE;
	dev = get_cpu_device(cpu);
	if (dev && !IS_ERR_OR_NULL(READ_ONCE(dev->power.qos)) &&
	    READ_ONCE(dev->power.qos->resume_latency.target_value) == 0)
		return IDLELAB_UNSUP_PM_QOS;
	return IDLELAB_UNSUP_NONE;
}

/**
 * il_mwait_hint_check - may MWAIT be asked for @hint here?
 * @hint:	EAX of MWAIT: bits 7:4 the C-state minus 1, 3:0 the sub-state
 *
 * The sub-state must be one CPUID.5:EDX counts for that C-state (bits
 * 4n+3:4n hold the number of C(n) sub-states, SDM Vol. 2A, CPUID leaf 5);
 * without leaf 5 only the C1 hint 0 is accepted.  A hint deeper than C1
 * needs a TSC that keeps running in it (NONSTOP_TSC), or no timestamp taken
 * across it means anything.
 *
 * Return: IDLELAB_UNSUP_NONE, IDLELAB_UNSUP_MWAIT_HINT or
 * IDLELAB_UNSUP_TSC_STOPS.
 */
u32 il_mwait_hint_check(u32 hint)
{
	unsigned int a, b, c, d, cs = ((hint >> 4) & 0xf) + 1;

	if (boot_cpu_data.cpuid_level < 5) {
		if (hint)
			return IDLELAB_UNSUP_MWAIT_HINT;
	} else {
		cpuid(5, &a, &b, &c, &d);
		if (cs > 7 || (hint & 0xf) >= ((d >> (4 * cs)) & 0xf))
			return IDLELAB_UNSUP_MWAIT_HINT;
	}
	if (cs > 1 && !boot_cpu_has(X86_FEATURE_NONSTOP_TSC))
		return IDLELAB_UNSUP_TSC_STOPS;
	return IDLELAB_UNSUP_NONE;
}

/**
 * il_res_probe - the IDLELAB_RES_* counters readable on this CPU
 *
 * Context: bound to the measured CPU.
 * Return: the mask of counters whose rdmsr did not fault.
 */
u32 il_res_probe(void)
{
	u32 m = 0, i;
	u64 v;

	for (i = 0; i < IDLELAB_RES_NR; i++)
		if (!rdmsrl_safe(il_res_msr[i], &v))
			m |= 1U << i;
	return m;
}

/**
 * il_res_read - read the counters of @avail on this CPU
 * @avail:	IDLELAB_RES_* mask from il_res_probe()
 * @v:		out: IDLELAB_RES_NR values, in IDLELAB_RES_* order
 *
 * Return: the mask of the counters actually read (a read can still fault).
 */
u32 il_res_read(u32 avail, u64 *v)
{
	u32 m = 0, i;

	for (i = 0; i < IDLELAB_RES_NR; i++)
		if ((avail & (1U << i)) && !rdmsrl_safe(il_res_msr[i], &v[i]))
			m |= 1U << i;
	return m;
}
