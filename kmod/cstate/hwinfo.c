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
#include <linux/cpuidle.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pm_qos.h>
#include <linux/slab.h>
#include <linux/types.h>
#include <linux/vmalloc.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/tsc.h>

#include "idlelab_arch.h"
#include "idlelab_clockcal.h"
#include "idlelab_mwait_policy.h"
#include "cstate.h"

/* MSR_IA32_POWER_CTL (0x1FC) bit 1: C1E promotion (SDM Vol. 4). */
#define IL_POWER_CTL_C1E	(1ULL << 1)

/*
 * The residency counters in IDLELAB_RES_* order: MSR_CORE_C1_RES (0x660),
 * MSR_CORE_C3/C6/C7_RESIDENCY (0x3FC-0x3FE), MSR_PKG_C3/C6/C7_RESIDENCY
 * (0x3F8-0x3FA), MPERF and APERF, MSR_PKG_C2_RESIDENCY (0x60D) (SDM Vol.
 * 4, turbostat's list).
 */
static const u32 il_res_msr[IDLELAB_RES_NR] = {
	0x660, 0x3fc, 0x3fd, 0x3fe, 0x3f8, 0x3f9, 0x3fa,
	MSR_IA32_MPERF, MSR_IA32_APERF, 0x60d,
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

/*
 * Test only (IL_INJECT_TSC_UNSTABLE): what check_tsc_unstable() is made
 * to say instead of the kernel, so that a guest whose kernel distrusted
 * its TSC from boot (QEMU's TCG) can show a run during which it changed,
 * without touching the kernel's clocksource.  0: the kernel's answer.
 */
static atomic_t il_tsc_pretend = ATOMIC_INIT(0);

void il_tsc_pretend_set(int v)
{
	atomic_set(&il_tsc_pretend, v);
}

int il_tsc_pretend_get(void)
{
	return atomic_read(&il_tsc_pretend);
}

/* check_tsc_unstable(), unless a test pretends otherwise. */
bool il_tsc_unstable(void)
{
	int v = atomic_read(&il_tsc_pretend);

	return v ? v == IL_TSC_PRETEND_UNSTABLE : check_tsc_unstable();
}

/**
 * il_hw_flags - the IDLELAB_HW_* flags of a run, read on the calling CPU
 *
 * Return: the flags.
 */
u32 il_hw_flags(void)
{
	u32 f = il_wbinvd_reach(), smi, why;
	u64 pc;

	if (boot_cpu_has(X86_FEATURE_HYPERVISOR))
		f |= IDLELAB_HW_HYPERVISOR;
	if (boot_cpu_has(X86_FEATURE_XENPV))
		f |= IDLELAB_HW_XEN_PV;
	/* Cross-CPU times compare TSCs: say when the kernel distrusts them. */
	if (il_tsc_unstable())
		f |= IDLELAB_HW_TSC_UNSTABLE;
	if (boot_cpu_has(X86_FEATURE_NONSTOP_TSC))
		f |= IDLELAB_HW_NONSTOP_TSC;
	if ((il_msr_gate_here(&why) & IL_GATE_POWER_CTL) &&
	    !rdmsrl_safe(MSR_IA32_POWER_CTL, &pc)) {
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
 * il_cpuidle_attr - one line of an attribute of @cpu's cpuidle state @k
 * @cpu:	the CPU
 * @k:		the cpuidle state's index
 * @name:	the attribute (desc, disable, default_status, ...)
 * @buf:	where the line goes, NUL-terminated, the newline cut
 * @len:	@buf's size
 *
 * The per-CPU cpuidle device, which holds the disable bits, is not
 * exported on either kernel (cpuidle_devices), and the MWAIT hints are
 * only in the states' descriptions, so the module reads what the user
 * reads and sets.  Both idle-policy checks (MWAIT hints here, ACPI
 * states in acpi.c) use it.
 *
 * Return: 0 or -errno.
 */
int il_cpuidle_attr(unsigned int cpu, unsigned int k, const char *name,
		    char *buf, size_t len)
{
	char path[96];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%u/cpuidle/state%u/%s",
		 cpu, k, name);
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, len - 1, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/**
 * il_mwait_policy_check - does @cpu's cpuidle policy forbid MWAIT(@hint)?
 * @cpu:	the measured CPU
 * @hint:	the request's MWAIT hint
 *
 * The decision is idlelab_mwait_policy.h's, on @cpu's registered states.
 * They are read from sysfs, as the user sees and sets them: the per-CPU
 * disable lives in the CPU's cpuidle device, which the kernel does not
 * export to modules (cpuidle_devices), and the hints only in the states'
 * descriptions.  A state that cannot be read ends the table.
 *
 * Return: IDLELAB_UNSUP_NONE or IDLELAB_UNSUP_STATE_DISABLED.
 */
u32 il_mwait_policy_check(unsigned int cpu, u32 hint)
{
	struct il_idle_state st[CPUIDLE_STATE_MAX];
	char (*desc)[CPUIDLE_DESC_LEN];
	char dis[16];
	u32 n, why;

	desc = kcalloc(CPUIDLE_STATE_MAX, sizeof(*desc), GFP_KERNEL);
	if (!desc)
		return IDLELAB_UNSUP_NONE;	/* no table: no policy known */
	for (n = 0; n < CPUIDLE_STATE_MAX; n++) {
		if (il_cpuidle_attr(cpu, n, "desc", desc[n], sizeof(desc[n])) ||
		    il_cpuidle_attr(cpu, n, "disable", dis, sizeof(dis)))
			break;
		st[n].desc = desc[n];
		st[n].disabled = strcmp(dis, "0") != 0;
	}
	why = il_mwait_policy(st, n, hint);
	kfree(desc);
	return why;
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
 * @gated:	out: the counters the vendor/model gate left unread
 * @why:	out: the IDLELAB_GATE_* reason of the Intel-only ones
 *		(MPERF and APERF are gated only where CPUID.6 lacks them)
 *
 * Only what idlelab_msr_gate.h allows is tried: a read that does not
 * fault on another vendor's CPU still does not mean Intel's counter.
 *
 * Context: bound to the measured CPU.
 * Return: the mask of counters whose rdmsr did not fault.
 */
u32 il_res_probe(u32 *gated, u32 *why)
{
	u32 m = 0, i, allow = il_msr_gate_here(why);
	u64 v;

	*gated = 0;
	for (i = 0; i < IDLELAB_RES_NR; i++) {
		if (!(allow & (1U << i)))
			*gated |= 1U << i;
		else if (!rdmsrl_safe(il_res_msr[i], &v))
			m |= 1U << i;
	}
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

/**
 * il_hw_flags_end - @hw (a run's il_hw_flags()) with what changed by its end
 * @hw:		the flags read before the run
 *
 * The kernel may mark the TSC unstable at any time (the clocksource
 * watchdog, a TSC write, a failed sync check): a run that started with a
 * stable TSC and ended without one gets IDLELAB_HW_TSC_UNSTABLE and
 * IDLELAB_HW_TSC_UNSTABLE_DURING.
 *
 * Return: the flags.
 */
u32 il_hw_flags_end(u32 hw)
{
	if (!(hw & IDLELAB_HW_TSC_UNSTABLE) && il_tsc_unstable())
		hw |= IDLELAB_HW_TSC_UNSTABLE | IDLELAB_HW_TSC_UNSTABLE_DURING;
	return hw;
}

/**
 * il_cpuid_calib - the median cycles of a CPUID round trip on this CPU
 *
 * Under a hypervisor CPUID always exits to it, so this is the cost of one
 * trap; a WBINVD or MWAIT the host ignores costs about as much
 * (idlelab_clockcal.h).  Leaf 0, IRQs off around each one.
 *
 * Context: bound to the measuring CPU.
 * Return: the median of IL_CALIB_N timings.
 */
u32 il_cpuid_calib(void)
{
	unsigned int a, b, c, d, i;
	u32 v[IL_CALIB_N];
	unsigned long irq;
	u64 t0, dt;

	for (i = 0; i < IL_CALIB_N; i++) {
		local_irq_save(irq);
		t0 = il_tsc();
		cpuid(0, &a, &b, &c, &d);
		dt = il_tsc() - t0;
		local_irq_restore(irq);
		v[i] = dt > U32_MAX ? U32_MAX : (u32)dt;
	}
	return il_median_u32(v, IL_CALIB_N);
}

/* The node of the page under @p, a kmalloc or vmalloc address. */
static int il_addr_nid(const void *p)
{
	struct page *pg = is_vmalloc_addr(p) ? vmalloc_to_page(p) :
			  virt_to_page(p);

	return pg ? page_to_nid(pg) : NUMA_NO_NODE;
}

/**
 * il_dirty_alloc - a buffer of @size bytes on @node's memory, if it can be
 * @size:	bytes (> 0)
 * @node:	the measuring CPU's node
 * @nid:	out: the node of its first page
 * @flags:	out: IDLELAB_DIRTY_F_*
 *
 * The write-back timed is the measuring CPU's, so the buffer is asked for
 * on its node only; kvmalloc_node() alone treats the node as a preference
 * and may place the pages anywhere.  Where that fails it is taken from
 * anywhere, and said so.  Every page is then looked up: where the pages
 * really are is reported, not where they were asked for.
 *
 * Return: the buffer (kvfree() it), or NULL.
 */
void *il_dirty_alloc(size_t size, int node, u32 *nid, u32 *flags)
{
	void *buf = kvmalloc_node(size, GFP_KERNEL_ACCOUNT | __GFP_THISNODE |
				  __GFP_NOWARN, node);
	size_t off;
	int first, n;

	*flags = 0;
	if (!buf) {
		buf = kvmalloc_node(size, GFP_KERNEL_ACCOUNT, node);
		if (!buf)
			return NULL;
		*flags |= IDLELAB_DIRTY_F_FALLBACK;
	}
	first = il_addr_nid(buf);
	for (off = PAGE_SIZE - offset_in_page(buf); off < size;
	     off += PAGE_SIZE) {
		n = il_addr_nid((u8 *)buf + off);
		if (n != first)
			*flags |= IDLELAB_DIRTY_F_MIXED;
	}
	if (first != NUMA_NO_NODE) {
		*nid = first;
		*flags |= IDLELAB_DIRTY_F_VALID;
	}
	if (first != node)
		*flags |= IDLELAB_DIRTY_F_FALLBACK;
	return buf;
}
