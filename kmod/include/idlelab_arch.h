/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlelab_arch.h - x86 primitives of the idlelab modules, each one small
 * static inline helper.
 *
 * Every instruction that can fault in a VM or on some CPUs (MONITOR, MWAIT,
 * in particular MWAIT with ECX != 0, WBINVD, WBNOINVD, RDMSR) runs under an
 * exception-table fixup, as rdmsr_safe() does: on #GP or #UD the fixup
 * resumes after the instruction with the error register still holding -EIO,
 * and the caller reports the operation as unsupported instead of oopsing.
 * CPUID cannot be trusted for this: QEMU's TCG reports the MWAIT extensions
 * in CPUID leaf 5 and then raises #GP on MWAIT with ECX = 1.
 */
#ifndef IDLELAB_ARCH_H
#define IDLELAB_ARCH_H

#include <linux/errno.h>
#include <linux/types.h>
#include <asm/asm.h>
#include <asm/barrier.h>
#include <asm/cpufeature.h>
#include <asm/hardirq.h>
#include <asm/msr.h>
#include <asm/nospec-branch.h>
#include <asm/processor.h>
#include <asm/special_insns.h>

#include "idlelab_msr_gate.h"

/*
 * TSC read ordered against the surrounding loads and stores: the kernel's
 * rdtsc_ordered() uses RDTSCP or LFENCE;RDTSC, which the SDM (Vol. 2B,
 * RDTSC) requires so that the read is not executed before earlier
 * instructions complete.
 */
static __always_inline u64 il_tsc(void)
{
	return rdtsc_ordered();
}

/*
 * IL_FIXUP - the asm text of @insn under an exception-table fixup, one home
 * for every instruction below that may fault: on #GP or #UD execution
 * resumes at label 2 with %[err] as it was (-EIO), else the xor clears it.
 * The asm's outputs must include [err] "+r" (err).
 */
#define IL_FIXUP(insn)			\
	"1: " insn "\n\t"		\
	"xor %[err], %[err]\n"		\
	"2:\n\t"			\
	_ASM_EXTABLE(1b, 2b)

/* An instruction without operands under IL_FIXUP: 0, or -EIO on a fault. */
#define IL_INSN_SAFE(insn) ({						\
	int __err = -EIO;						\
									\
	asm volatile(IL_FIXUP(insn) : [err] "+r" (__err) : : "memory");	\
	__err;								\
})

/* MONITOR on @addr (SDM Vol. 2B, MONITOR: RAX address, ECX/EDX hints 0). */
static inline int il_monitor_safe(const void *addr)
{
	int err = -EIO;

	asm volatile(IL_FIXUP(".byte 0x0f, 0x01, 0xc8")
		     : [err] "+r" (err)
		     : "a" (addr), "c" (0), "d" (0) : "memory");
	return err;
}

/*
 * The kernel's idle entry, mirrored before every raw HLT and MWAIT.  Both
 * native_safe_halt() (asm/irqflags.h) and mwait_idle_with_hints()
 * (asm/mwait.h) start with x86_idle_clear_cpu_buffers()
 * (asm/nospec-branch.h, the same name on 6.1 and 6.12): a VERW that
 * clears the CPU's buffers when the static key cpu_buf_idle_clear is on
 * (MDS on parts with SMT whose only bug is MSBDS, MMIO stale data without
 * FBSDP_NO, AMD's TSA), so that an SMT sibling cannot sample what this
 * thread left in them while it sleeps.  Skipping it made every raw idle
 * entry a hole in the mitigation the operator chose.
 */
static __always_inline void il_idle_clear_cpu_buffers(void)
{
	x86_idle_clear_cpu_buffers();
}

/* Is the idle VERW above on (for the IDLELAB_HW_IDLE_VERW flag)? */
static inline bool il_idle_clear_on(void)
{
	return static_key_enabled(&cpu_buf_idle_clear);
}

/*
 * MONITOR on @addr as mwait_idle_with_hints() arms it: on parts with
 * X86_BUG_CLFLUSH_MONITOR (erratum AAI65) the monitored line must be
 * flushed first or the monitor may miss the write, fenced on both sides
 * as 6.1 does it (6.12 patches the same CLFLUSH in as an alternative).
 *
 * The kernel's other MONITOR rule, X86_BUG_MONITOR (a write to the line
 * does not always wake), makes it keep TIF_POLLING_NRFLAG clear so that a
 * waker sends an IPI.  Nothing here needs it: the module never sets that
 * flag, every wake it measures is an interrupt (its hrtimer or its IPI),
 * and the monitored word is written only by that interrupt's callback,
 * after the wake.
 */
static inline int il_monitor_armed(const void *addr)
{
	if (boot_cpu_has_bug(X86_BUG_CLFLUSH_MONITOR)) {
		mb();	/* earlier stores to the line before its flush */
		clflush((void *)addr);
		mb();	/* the flush done before MONITOR arms the line */
	}
	return il_monitor_safe(addr);
}

/*
 * MWAIT with interrupts as they are (SDM Vol. 2B, MWAIT: EAX hint, ECX
 * extensions; ECX bit 0 makes an interrupt a break event even with IF = 0).
 */
static inline int il_mwait_safe(u32 hint, u32 ecx)
{
	int err = -EIO;

	asm volatile(IL_FIXUP(".byte 0x0f, 0x01, 0xc9")
		     : [err] "+r" (err) : "a" (hint), "c" (ecx) : "memory");
	return err;
}

/*
 * STI immediately followed by MWAIT: the STI interrupt shadow (SDM Vol. 2B,
 * STI) keeps a pending interrupt from being taken between the two, so a
 * wake-up that is already pending breaks the MWAIT instead of being lost.
 */
static inline int il_sti_mwait_safe(u32 hint)
{
	int err = -EIO;

	asm volatile("sti\n\t" IL_FIXUP(".byte 0x0f, 0x01, 0xc9")
		     : [err] "+r" (err) : "a" (hint), "c" (0) : "memory");
	return err;
}

/* STI;HLT, with the same interrupt shadow argument as above. */
static inline void il_sti_hlt(void)
{
	asm volatile("sti; hlt" : : : "memory");
}

/* WBINVD (SDM Vol. 2B): write back and invalidate all caches. */
static inline int il_wbinvd_safe(void)
{
	return IL_INSN_SAFE("wbinvd");
}

/* WBNOINVD (F3 0F 09): write back, keep the lines valid. */
static inline int il_wbnoinvd_safe(void)
{
	return IL_INSN_SAFE(".byte 0xf3, 0x0f, 0x09");
}

/*
 * The MSRs idlelab_msr_gate.h allows on the boot CPU (*why: the
 * IDLELAB_GATE_* reason for the rest).  All CPUs of a machine share one
 * vendor and model, so the boot CPU's answer is every CPU's.
 */
static inline u32 il_msr_gate_here(u32 *why)
{
	struct il_cpu_ident c = {
		.vendor = IL_CPU_OTHER,
		.family = boot_cpu_data.x86,
		.model = boot_cpu_data.x86_model,
		.aperfmperf = boot_cpu_has(X86_FEATURE_APERFMPERF),
	};

	if (boot_cpu_data.x86_vendor == X86_VENDOR_INTEL)
		c.vendor = IL_CPU_INTEL;
	else if (boot_cpu_data.x86_vendor == X86_VENDOR_AMD ||
		 boot_cpu_data.x86_vendor == X86_VENDOR_HYGON)
		c.vendor = IL_CPU_AMD;
	return il_msr_gate(&c, why);
}

/*
 * MSR_SMI_COUNT (0x34, Intel only; SDM Vol. 4: bits 31:0 count SMIs, the
 * rest reserved); false when the read faults, or when the gate says the
 * number is not Intel's counter on this CPU.  A 32-bit counter, so deltas
 * are taken in u32 arithmetic, which is right across one wrap.
 */
static inline bool il_smi_count(u32 *val)
{
	u32 why;
	u64 v;

	if (!(il_msr_gate_here(&why) & IL_GATE_SMI_COUNT) ||
	    rdmsrl_safe(MSR_SMI_COUNT, &v))
		return false;
	*val = (u32)v;
	return true;
}

/* NMIs taken by this CPU so far (arch/x86 irq_stat, exported). */
static inline u32 il_nmi_count(void)
{
	return this_cpu_read(irq_stat.__nmi_count);
}

#endif /* IDLELAB_ARCH_H */
