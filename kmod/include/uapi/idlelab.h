/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * idlelab.h - the one user/kernel ABI of the idlelab helper modules.
 *
 * Two root-only misc devices implement it:
 *   /dev/idlelab_cstate  (idlelab_cstate.ko) raw C-state wake, WBINVD cost
 *                        and blast radius, IRQs-off TSC-gap detector;
 *   /dev/idlelab_ipi     (idlelab_ipi.ko)    IPI storms and the APIC map.
 *
 * Conventions (Documentation/driver-api/ioctl.rst):
 *  - only __u32/__u64 (and __u8 arrays); every struct is a multiple of 8
 *    bytes with explicit padding, and every padding or reserved field must be
 *    zero on input (-EINVAL otherwise) and is zeroed on output;
 *  - every request starts with abi_version (IDLELAB_ABI_VERSION) and size
 *    (sizeof the request struct); a mismatch is -EINVAL;
 *  - each device answers IDLELAB_IOC_GET_INFO, which the harness checks at
 *    open; unknown commands are -ENOTTY;
 *  - samples are fixed-size records written in one batch per request to the
 *    array at the __u64 user pointer `samples`, at most `nr_samples` of them;
 *    `nr_done` says how many were written.  Statistics are done in user space;
 *  - a request that ran but could not measure (the CPU faulted on MWAIT with
 *    ECX != 0, no MWAIT, ...) returns 0 with `unsupported` set to an
 *    IDLELAB_UNSUP_* reason; errors are -errno: -EINVAL bad request (CPU out
 *    of range or offline, count or duration outside the limits below),
 *    -EBUSY another run is in flight on this device, -EINTR a fatal signal
 *    aborted the run, -EFAULT bad pointer, -ENOMEM, -EIO a worker thread
 *    died without finishing (the run was joined on its exit, the device
 *    stays usable), -ENODEV a CPU of the run went offline during it (the
 *    run was stopped before that CPU went; no records are copied out);
 *  - all times are TSC cycles (rdtsc_ordered); tsc_khz is reported by
 *    GET_INFO and in each reply.
 */
#ifndef _UAPI_IDLELAB_H
#define _UAPI_IDLELAB_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * 2: appended the hardware-truth fields of the cstate, WBINVD and gaps
 * requests and records (hw_flags, residency deltas, SMI/NMI per gap and
 * window, window records), grown at the end of each struct.
 */
#define IDLELAB_ABI_VERSION		2
#define IDLELAB_IOC_MAGIC		0xE1

#define IDLELAB_DEV_CSTATE		"idlelab_cstate"
#define IDLELAB_DEV_IPI			"idlelab_ipi"

/* Limits, checked by the kernel and by the harness before submitting. */
#define IDLELAB_MAX_CPUS		32768	/* CPU numbers and list sizes */
#define IDLELAB_MAX_SAMPLES		1000000	/* records per request */
#define IDLELAB_MAX_LAUNCH_NS		100000000ULL	/* 100 ms */
#define IDLELAB_MAX_DIRTY_BYTES		(256ULL << 20)
#define IDLELAB_MAX_FOOTPRINTS		64
#define IDLELAB_MAX_REPS		100000
#define IDLELAB_MAX_WIDTH_US		100000	/* one IRQs-off window */
#define IDLELAB_MAX_WINDOW_US		10000000
#define IDLELAB_MAX_WINDOWS		100000
#define IDLELAB_MAX_ROUNDS		100000
#define IDLELAB_MAX_ROUND_TIMEOUT_US	1000000
#define IDLELAB_MAX_INTERVAL_US		1000000
#define IDLELAB_NAME_LEN		32
/*
 * Worst-case length of one request, every bounded wait counted as timing
 * out: samples x (launch + IDLELAB_CSTATE_WAIT_NS), windows x window, the
 * sweep's sum of reps x IDLELAB_DIRTY_REP_US(footprint), the blast's start
 * wait + reps x (interval (+ 1/8 slack) + IDLELAB_DIRTY_REP_US(dirty)) +
 * one victim window.  A request over it is refused; and whatever the
 * formula says, a run that reaches it anyway is stopped there (-ETIME).
 */
#define IDLELAB_MAX_RUN_US		600000000ULL	/* 10 minutes */
/*
 * What the formulas count for one dirtied-and-written-back repetition: the
 * memset of its bytes and their write-back, each at no less than
 * IDLELAB_DIRTY_BYTES_PER_US (about 1 GB/s, slower than any machine's
 * memory), plus IDLELAB_WBINVD_FIXED_US for the rest of the caches.
 */
#define IDLELAB_DIRTY_BYTES_PER_US	1024ULL
#define IDLELAB_WBINVD_FIXED_US		1000ULL
#define IDLELAB_DIRTY_REP_US(bytes)					\
	(2 * ((__u64)(bytes) / IDLELAB_DIRTY_BYTES_PER_US) +		\
	 IDLELAB_WBINVD_FIXED_US)
/*
 * A storm's worst case: each of its rounds waits out timeout_us four times
 * (the send's xAPIC ICR-idle waits, which share one deadline; the wait for
 * the acknowledgments; the round's close; the next round's drain), and the
 * run ends with one more drain.
 */
#define IDLELAB_STORM_WORST_US(rounds, timeout_us)			\
	((4 * (__u64)(rounds) + 1) * (__u64)(timeout_us))
/* How long past its launch a wake sample waits for its own event. */
#define IDLELAB_CSTATE_WAIT_NS		1000000000ULL	/* 1 s */
/* The aggressor's bounded wait for its victims to start spinning. */
#define IDLELAB_BLAST_START_US		2000000ULL
/* Gap thresholds below this are refused: below the loop's resolution. */
#define IDLELAB_MIN_THRESHOLD_NS	100

/* Reasons a request could not measure (the `unsupported` out field). */
#define IDLELAB_UNSUP_NONE		0
#define IDLELAB_UNSUP_NO_MWAIT		1	/* not in CPUID */
#define IDLELAB_UNSUP_MWAIT_FAULT	2	/* #GP/#UD on it */
#define IDLELAB_UNSUP_MWAIT_ECX_FAULT	3	/* ECX != 0 faulted */
#define IDLELAB_UNSUP_WBINVD_FAULT	4
#define IDLELAB_UNSUP_NO_WBNOINVD	5	/* CPUID lacks WBNOINVD */
#define IDLELAB_UNSUP_WBNOINVD_FAULT	6
#define IDLELAB_UNSUP_NO_LOGICAL	7	/* LDR empty: no logical dest */
#define IDLELAB_UNSUP_BROADCAST_SET	8	/* offline CPUs would be hit */
#define IDLELAB_UNSUP_NO_APIC		9
#define IDLELAB_UNSUP_DEST_MODEL	10	/* unknown DFR/LDR layout */
#define IDLELAB_UNSUP_NO_ARAT		11	/* APIC timer stops */
#define IDLELAB_UNSUP_KERNEL_PHYS	12	/* kernel: physical dest only */
#define IDLELAB_UNSUP_LOWRES_TIMER	13	/* hrtimer_resolution > 1 ns */
#define IDLELAB_UNSUP_MWAIT_HINT	14	/* hint not in CPUID.5:EDX */
#define IDLELAB_UNSUP_TSC_STOPS		15	/* deep hint, no NONSTOP_TSC */
/*
 * The kernel's icr_write is not the hardware's (Xen PV, where it is a
 * WARN_ON; SEV-ES/SNP and TDX guests, where the hypervisor emulates the
 * APIC; any driver that replaced it): the raw ICR modes are refused.
 * It is 16, not 13, because the two modules share this one numbering and
 * 13-15 are the C-state module's reasons just above (LOWRES_TIMER,
 * MWAIT_HINT, TSC_STOPS).
 */
#define IDLELAB_UNSUP_ICR_NOT_NATIVE	16
/*
 * A Xen PV guest (dom0 included) runs in ring 3 under Xen: HLT and MWAIT
 * are privileged there (HLT #GPs; the kernel idles through a hypercall),
 * and Xen emulates WBINVD, so its time is Xen's flush, not the caller's.
 * Every raw HLT, MWAIT and WBINVD request is refused with this reason.
 * The raw ICR modes keep their own reason (16): under PV it is the same
 * refusal, but one that also holds on other platforms.
 */
#define IDLELAB_UNSUP_XEN_PV		17
/*
 * The kernel's idle policy forbids the state asked for (refused unless the
 * request sets IDLELAB_CSTATE_F_POLICY_OVERRIDE): 18, the kernel was booted
 * with idle=poll (no HLT or MWAIT), idle=halt or idle=nomwait (no MWAIT);
 * 19, the measured CPU's resume-latency PM QoS
 * (/sys/devices/system/cpu/cpuN/power/pm_qos_resume_latency_us) allows
 * no idle state at all ("n/a"), which the kernel's cpuidle governor
 * answers by polling.  20 is kept for a cpuidle state that is disabled or
 * beyond max_cstate.
 */
#define IDLELAB_UNSUP_IDLE_OVERRIDE	18
#define IDLELAB_UNSUP_PM_QOS		19
#define IDLELAB_UNSUP_STATE_DISABLED	20
/*
 * IDLELAB_METHOD_ACPI: 21, the measured CPU has no ACPI power data to take
 * a state from (no _CST, or acpi_idle is not the cpuidle driver: intel_idle,
 * a guest without _CST); 22, the state's entry is one the module cannot do
 * as acpi_idle does it: an FFixedHW (FFH) entry, whose MWAIT ECX the kernel
 * keeps in arch-private data; an I/O port above 0xffff; or the kernel's
 * bus-master handling of a C3-type state needing ARB_DIS (bm_check and
 * bm_control), which acpi_idle coordinates over every CPU under a lock of
 * its own: set from outside it would stop DMA while other CPUs run.
 */
#define IDLELAB_UNSUP_NO_CST		21
#define IDLELAB_UNSUP_CST_ENTRY		22

/* GET_INFO, the same command on both devices. */
#define IDLELAB_OP_CSTATE_WAKE		(1U << 0)
#define IDLELAB_OP_WBINVD		(1U << 1)
#define IDLELAB_OP_GAPS			(1U << 2)
#define IDLELAB_OP_IPI_STORM		(1U << 3)
#define IDLELAB_OP_APIC_MAP		(1U << 4)

/* CPUID.1:ECX.MONITOR */
#define IDLELAB_FEAT_MWAIT		(1U << 0)
#define IDLELAB_FEAT_MWAIT_EXT		(1U << 1)	/* CPUID.5:ECX bit 0 */
#define IDLELAB_FEAT_MWAIT_IRQ_BREAK	(1U << 2)	/* CPUID.5:ECX bit 1 */
#define IDLELAB_FEAT_WBNOINVD		(1U << 3)
#define IDLELAB_FEAT_SMI_COUNT		(1U << 4)	/* MSR 0x34 readable */
#define IDLELAB_FEAT_X2APIC		(1U << 5)
#define IDLELAB_FEAT_NMI_COUNT		(1U << 6)

struct idlelab_info {
	__u32 abi_version;		/* in: IDLELAB_ABI_VERSION; out */
	__u32 size;			/* in: sizeof(struct idlelab_info) */
	__u32 module_version;		/* out: major << 16 | minor */
	__u32 ops;			/* out: IDLELAB_OP_* this device runs */
	__u32 features;			/* out: IDLELAB_FEAT_* */
	__u32 nr_cpu_ids;		/* out */
	__u32 tsc_khz;			/* out */
	__u32 cpuid5_eax;		/* out: raw CPUID leaf 5 (MWAIT) */
	__u32 cpuid5_ebx;
	__u32 cpuid5_ecx;
	/* out: C-state sub-states per C-level */
	__u32 cpuid5_edx;
	__u32 max_samples;		/* out: IDLELAB_MAX_SAMPLES */
	__u8 name[IDLELAB_NAME_LEN];	/* out: module name */
	__u64 reserved[4];		/* must be zero; zeroed on output */
};

/* ---- Raw C-state wake (/dev/idlelab_cstate) ---------------------------- */

#define IDLELAB_METHOD_HLT		0	/* always "sti; hlt" */
#define IDLELAB_METHOD_MWAIT		1	/* MONITOR + MWAIT(hint) */
#define IDLELAB_METHOD_POLL		2	/* spin on the wake flag */
/*
 * An ACPI C-state of the measured CPU, as the kernel's ACPI processor
 * driver parsed it from _CST (per_cpu(processors, cpu)->power.states[]),
 * named by acpi_req and entered the way acpi_idle enters it: HLT for an
 * ACPI_CSTATE_HALT entry; for ACPI_CSTATE_SYSTEMIO, with IRQs off, a read
 * of the state's I/O port (the interrupt is taken after t_exit, as with
 * IRQ late), followed by the dummy PM-timer read only where the kernel
 * does it (Intel, not under a hypervisor); FFH entries are refused (22).
 */
#define IDLELAB_METHOD_ACPI		3

/* pinned hard hrtimer, distance L */
#define IDLELAB_WAKE_HRTIMER		0
/* IPI from a sender on sender_cpu */
#define IDLELAB_WAKE_IPI		1

#define IDLELAB_IRQ_EARLY		0	/* sti before the idle insn */
/* MWAIT ECX=1, IRQs off, sti after */
#define IDLELAB_IRQ_LATE		1

#define IDLELAB_CSTATE_F_WBINVD		(1U << 0)	/* dirty, then WBINVD */
/*
 * Re-enter the idle instruction after a wake that was not ours, until ours
 * arrives (bounded); the sample then times the last entry and counts the
 * re-entries.  For emulators whose timer interrupts come early (Bochs).
 */
#define IDLELAB_CSTATE_F_REENTER	(1U << 1)
/*
 * Run HLT or MWAIT even where the kernel's idle policy forbids it
 * (IDLELAB_UNSUP_IDLE_OVERRIDE, _PM_QOS): the user's explicit choice,
 * stored with the run by the harness.
 */
#define IDLELAB_CSTATE_F_POLICY_OVERRIDE (1U << 2)
#define IDLELAB_CSTATE_F_ALL		(IDLELAB_CSTATE_F_WBINVD | \
					 IDLELAB_CSTATE_F_REENTER | \
					 IDLELAB_CSTATE_F_POLICY_OVERRIDE)

struct idlelab_cstate_req {
	__u32 abi_version;
	__u32 size;
	__u32 cpu;			/* measured CPU */
	__u32 sender_cpu;		/* IDLELAB_WAKE_IPI only, != cpu */
	__u32 method;			/* IDLELAB_METHOD_* */
	__u32 mwait_hint;		/* EAX of MWAIT; recorded per sample */
	__u32 wake_source;		/* IDLELAB_WAKE_* */
	__u32 irq_mode;			/* IDLELAB_IRQ_*; LATE needs MWAIT */
	__u64 launch_min_ns;		/* launch distance L; fixed when */
	__u64 launch_max_ns;		/*   min == max, else uniform */
	__u64 dirty_bytes;		/* with IDLELAB_CSTATE_F_WBINVD */
	__u64 seed;			/* PRNG seed for random L */
	__u32 flags;			/* IDLELAB_CSTATE_F_* */
	/* in: records wanted (1..MAX_SAMPLES) */
	__u32 nr_samples;
	__u64 samples;			/* in: struct idlelab_cstate_sample[] */
	__u32 nr_done;			/* out: records written */
	__u32 unsupported;		/* out: IDLELAB_UNSUP_* */
	__u32 tsc_khz;			/* out */
	__u32 pad;			/* must be zero */
	/*
	 * The last reserved word of ABI 2 (zero from older callers).
	 * METHOD_ACPI only (zero otherwise), in: IDLELAB_ACPI_REQ(index, bm);
	 * out: what was entered, IDLELAB_ACPI_OUT_* (every sample of a run
	 * has the same state, entry and bus-master handling, fixed before
	 * its first sample, so the run's word holds it for each sample).
	 */
	__u32 acpi_req;
	__u32 acpi_out;
	/*
	 * Taken from reserved words (each zero in, as they were).  out: the
	 * median cycles of a CPUID on the measured CPU, timed at the run's
	 * start, and the no-op threshold made from it (IL_NOOP_CPUID_MULT
	 * times, kmod/include/idlelab_clockcal.h): under a hypervisor a
	 * WBINVD or MWAIT shorter than it is flagged as a no-op.
	 */
	__u32 cpuid_cycles;
	__u32 noop_cycles;
	/*
	 * out, with IDLELAB_DIRTY_F_VALID: the NUMA node of the dirty
	 * buffer's pages (page_to_nid), and IDLELAB_DIRTY_F_* about them.
	 */
	__u32 dirty_node;
	__u32 dirty_flags;
	/*
	 * out: the
	 * IDLELAB_RES_* counters left unread because the CPU's vendor or
	 * model does not give their MSR numbers that meaning, and why
	 * (IDLELAB_GATE_*); they are not in res_avail.
	 */
	__u32 res_gated;
	__u32 gate_why;
	/* ABI 2 */
	__u32 hw_flags;			/* out: IDLELAB_HW_* */
	__u32 res_avail;		/* out: IDLELAB_RES_* readable */
	__u32 stale_ipis;		/* out: IPIs for a past sample, ignored */
	__u32 pad2;			/* must be zero */
};

/*
 * acpi_req: bits 7:0, the index of the state in power.states[] as acpi_idle
 * numbers them: 1 for the first _CST state (C1) up to power.count, the N
 * of the cpuidle state named "CN" (with the POLL state at 0 on x86, its
 * cpuidle index too).  0, an index above power.count or one of
 * IDLELAB_ACPI_MAX_STATES or more is -EINVAL.  Bits 9:8, the bus-master
 * handling before each entry (IDLELAB_ACPI_BM_*): KERNEL does what
 * acpi_idle does for this state (a C3-type state: nothing with bm_check and
 * no bm_control, as on Zen; ACPI_FLUSH_CPU_CACHE, WBINVD, without
 * bm_check; refused, 22, where it would need ARB_DIS); NONE, nothing;
 * FLUSH, WBINVD before every entry whatever the state's type.  A flush
 * is timed like IDLELAB_CSTATE_F_WBINVD's (the sample's wbinvd_cycles and
 * IDLELAB_SAMPLE_WBINVD, the last entry's with F_REENTER), which is why a
 * METHOD_ACPI request may not set F_WBINVD.  The kernel's demotions are
 * not copied: a busy bus master (BM_STS) or a C2 without
 * ACPI_FADT_C2_MP_SUPPORTED makes acpi_idle enter a shallower state, but
 * the request measures the state it names.
 */
#define IDLELAB_ACPI_MAX_STATES		8	/* ACPI_PROCESSOR_MAX_POWER */
#define IDLELAB_ACPI_BM_KERNEL		0
#define IDLELAB_ACPI_BM_NONE		1
#define IDLELAB_ACPI_BM_FLUSH		2
#define IDLELAB_ACPI_REQ(index, bm)	((__u32)(index) | (__u32)(bm) << 8)
#define IDLELAB_ACPI_REQ_INDEX(r)	((r) & 0xff)
#define IDLELAB_ACPI_REQ_BM(r)		(((r) >> 8) & 0x3)
#define IDLELAB_ACPI_REQ_ALL		0x3ffU
/*
 * acpi_out: bits 15:0, the state's I/O port (SYSTEMIO; 0 otherwise); 17:16
 * its entry (IDLELAB_ACPI_ENTRY_*: the kernel's ACPI_CSTATE_* plus one, 0
 * when no state was resolved, as in a refusal for want of _CST); 19:18
 * its ACPI type (1-3 for C1-C3); then what was done before or after each
 * entry, and the processor's bus-master flags as the kernel set them.
 */
#define IDLELAB_ACPI_ENTRY_SYSTEMIO	1
#define IDLELAB_ACPI_ENTRY_FFH		2
#define IDLELAB_ACPI_ENTRY_HALT		3
#define IDLELAB_ACPI_OUT_PORT(o)	((o) & 0xffff)
#define IDLELAB_ACPI_OUT_ENTRY(o)	(((o) >> 16) & 0x3)
#define IDLELAB_ACPI_OUT_TYPE(o)	(((o) >> 18) & 0x3)
#define IDLELAB_ACPI_OUT_FLUSH		(1U << 20)	/* WBINVD each entry */
#define IDLELAB_ACPI_OUT_PMTMR		(1U << 21)	/* dummy inl after */
#define IDLELAB_ACPI_OUT_BM_CHECK	(1U << 22)	/* pr->flags.bm_check */
#define IDLELAB_ACPI_OUT_BM_CONTROL	(1U << 23)	/* .bm_control */

/*
 * What the hardware and the kernel said about a run (the hw_flags out field
 * of the cstate, WBINVD and gaps requests).
 */
#define IDLELAB_HW_HYPERVISOR		(1U << 0)	/* X86_FEATURE_HYPERVISOR */
#define IDLELAB_HW_TSC_UNSTABLE		(1U << 1)	/* check_tsc_unstable() */
#define IDLELAB_HW_NONSTOP_TSC		(1U << 2)	/* TSC runs in C-states */
#define IDLELAB_HW_C1E_KNOWN		(1U << 3)	/* MSR 0x1FC was readable */
#define IDLELAB_HW_C1E_ON		(1U << 4)	/* C1E promotion enabled */
/* CPUID.4 (AMD: 0x8000001D) of the last cache level was read */
#define IDLELAB_HW_WBINVD_INFO		(1U << 5)
/* its EDX[0] = 0: WBINVD acts on the caches of the other sharing CPUs */
#define IDLELAB_HW_WBINVD_SHARERS	(1U << 6)
#define IDLELAB_HW_SMI_COUNT		(1U << 7)	/* MSR 0x34 readable */
/*
 * X86_FEATURE_XENPV: a Xen PV guest.  Its "IRQs off" (cli, as a PV
 * operation) masks event-channel upcalls only; Xen's own interrupts and
 * its scheduling of the vCPU still run, so a gaps run measures gaps under
 * event-channel masking, not with the CPU's interrupts off.
 */
#define IDLELAB_HW_XEN_PV		(1U << 8)
/*
 * A cstate wake request by HLT or MWAIT: every idle entry was preceded by
 * the kernel's idle-entry VERW (x86_idle_clear_cpu_buffers(), static key
 * cpu_buf_idle_clear on), whose cost lands before t_entry.
 */
#define IDLELAB_HW_IDLE_VERW		(1U << 9)
/* MWAIT: each MONITOR was preceded by CLFLUSH (X86_BUG_CLFLUSH_MONITOR) */
#define IDLELAB_HW_CLFLUSH_MONITOR	(1U << 10)

/*
 * check_tsc_unstable() was false when the run started and true after it:
 * the kernel marked the TSC unstable during the run (TSC_UNSTABLE is set
 * too), so its cross-CPU and cross-sample times cannot be trusted.
 */
#define IDLELAB_HW_TSC_UNSTABLE_DURING	(1U << 11)

/*
 * Where the dirty buffer's pages are (dirty_flags, and the WBINVD
 * request's mem_flags).  It is asked for on the measuring CPU's node
 * only (__GFP_THISNODE); when that fails it is taken from anywhere.
 */
#define IDLELAB_DIRTY_F_VALID		(1U << 0)	/* *_node is real */
#define IDLELAB_DIRTY_F_FALLBACK	(1U << 1)	/* not node-local */
/* pages on several nodes; the node is the first page's */
#define IDLELAB_DIRTY_F_MIXED		(1U << 2)

/*
 * Per-sample residency counter deltas (the res_* sample fields), one bit
 * per counter in res_avail when the counter was readable on the measured
 * CPU (rdmsr_safe did not fault).  Core C1/C3/C6/C7: MSRs 0x660,
 * 0x3FC-0x3FE; package C3/C6/C7: 0x3F8-0x3FA; MPERF/APERF: 0xE7/0xE8.
 */
#define IDLELAB_RES_CORE_C1		(1U << 0)
#define IDLELAB_RES_CORE_C3		(1U << 1)
#define IDLELAB_RES_CORE_C6		(1U << 2)
#define IDLELAB_RES_CORE_C7		(1U << 3)
#define IDLELAB_RES_PKG_C3		(1U << 4)
#define IDLELAB_RES_PKG_C6		(1U << 5)
#define IDLELAB_RES_PKG_C7		(1U << 6)
#define IDLELAB_RES_MPERF		(1U << 7)
#define IDLELAB_RES_APERF		(1U << 8)
/*
 * Package C2 (MSR 0x60D, Sandy Bridge and later, Sapphire Rapids among
 * them).  The sample's res[] has no tenth 64-bit slot and its size is
 * frozen, so this delta is the 32-bit res_pkg_c2 instead: the counter
 * ticks at the TSC rate, so a sample span over 2^32 cycles (above 1 s at
 * 4 GHz, only a sample that waited out IDLELAB_CSTATE_WAIT_NS) cannot hold
 * it and leaves the bit clear in that sample's res_flags.
 */
#define IDLELAB_RES_PKG_C2		(1U << 9)
#define IDLELAB_RES_NR			10	/* counters */
#define IDLELAB_RES_NR64		9	/* of them in res[] */

/*
 * Why counters were left unread (gate_why): the residency, SMI-count and
 * POWER_CTL MSRs are Intel's model-specific registers.  On another
 * vendor's CPU (AMD, Hygon, ...) those numbers mean something else or
 * nothing, so they are not read at all (MPERF and APERF still are where
 * CPUID.6:ECX[0] has them: AMD defines them too); on an Intel model that
 * does not document a counter, that counter is not read.
 */
#define IDLELAB_GATE_NONE		0
#define IDLELAB_GATE_NOT_INTEL		1	/* vendor is not Intel */
#define IDLELAB_GATE_MODEL		2	/* Intel, model lacks it */

#define IDLELAB_SAMPLE_EARLY_WAKE	(1U << 0)	/* t_exit < t_launch */
#define IDLELAB_SAMPLE_OTHER_IRQ	(1U << 1)	/* woken, not by us */
#define IDLELAB_SAMPLE_UNSUPPORTED	(1U << 2)
#define IDLELAB_SAMPLE_SMI_VALID	(1U << 3)	/* smi_delta is real */
#define IDLELAB_SAMPLE_NMI_VALID	(1U << 4)	/* nmi_delta is real */
#define IDLELAB_SAMPLE_NO_INTR		(1U << 5)	/* callback never ran */
/* wbinvd_cycles is real */
#define IDLELAB_SAMPLE_WBINVD		(1U << 6)
/* F_REENTER stopped re-entering because need_resched() was set */
#define IDLELAB_SAMPLE_RESCHED		(1U << 7)
/*
 * The wake event was due (or sent) before t_entry, e.g. because WBINVD took
 * longer than L: no latency can be taken from it; counted apart.
 */
#define IDLELAB_SAMPLE_LATE_ENTRY	(1U << 8)
/* Under a hypervisor WBINVD took under noop_cycles: a no-op, not a cost */
#define IDLELAB_SAMPLE_WBINVD_NOOP	(1U << 9)
/* Under a hypervisor MWAIT returned at once without any wake: a no-op */
#define IDLELAB_SAMPLE_MWAIT_NOOP	(1U << 10)
/*
 * The measuring kthread was switched out between the arming and t_exit,
 * which preemption being off should make impossible: not a latency.
 */
#define IDLELAB_SAMPLE_PREEMPTED	(1U << 11)
/*
 * HLT or MWAIT: the sample's own wake had not come by its deadline (launch +
 * IDLELAB_CSTATE_WAIT_NS), and the module's backstop timer, armed for that
 * deadline on the measured CPU, ended the idle: a lost wake, bounded, not a
 * latency.
 */
#define IDLELAB_SAMPLE_BACKSTOP		(1U << 12)
/*
 * The kernel marked the TSC unstable at or before the end of this sample,
 * after the run had started with it stable: its times are suspect.
 */
#define IDLELAB_SAMPLE_TSC_UNSTABLE	(1U << 13)

struct idlelab_cstate_sample {
	__u64 t_launch;			/* event due (hrtimer) or sent (IPI) */
	__u64 t_entry;			/* just before the idle instruction */
	/* first insn of our callback; 0: none */
	__u64 t_intr;
	__u64 t_exit;			/* first insn after the idle insn */
	__u64 wbinvd_cycles;
	__u64 smi_delta;		/* MSR 0x34 delta, if SMI_VALID */
	__u32 nmi_delta;		/* NMIs on the CPU, if NMI_VALID */
	__u32 flags;			/* IDLELAB_SAMPLE_* */
	__u32 mwait_hint;		/* hint used (MWAIT only) */
	__u32 reentries;		/* F_REENTER: extra idle entries */
	/* ABI 2: counter deltas from just before arming to after t_exit */
	__u64 res_tsc;			/* TSC cycles of that span */
	/* IDLELAB_RES_* order; valid where the request's res_avail says */
	__u64 res[IDLELAB_RES_NR64];
	__u32 res_flags;		/* IDLELAB_RES_* read in this sample */
	__u32 res_pkg_c2;		/* IDLELAB_RES_PKG_C2's delta */
};

/* ---- WBINVD cost and blast radius (/dev/idlelab_cstate) --------------- */

#define IDLELAB_WBINVD_SWEEP		0	/* cost vs dirty footprint */
#define IDLELAB_WBINVD_BLAST		1	/* gaps on victims meanwhile */

#define IDLELAB_WBINVD_F_NOINVD		(1U << 0)	/* use WBNOINVD */
#define IDLELAB_WBINVD_F_ALL		IDLELAB_WBINVD_F_NOINVD

struct idlelab_wbinvd_req {
	__u32 abi_version;
	__u32 size;
	__u32 mode;			/* IDLELAB_WBINVD_* */
	__u32 cpu;			/* aggressor CPU */
	__u32 flags;			/* IDLELAB_WBINVD_F_* */
	__u32 nr_footprints;		/* SWEEP: 1..MAX_FOOTPRINTS */
	__u64 footprints;		/* SWEEP: __u64 dirty bytes[] */
	/* SWEEP: per footprint; BLAST: number of WBINVDs */
	__u32 reps;
	__u32 interval_us;		/* BLAST: between WBINVDs, >= 1 */
	__u64 dirty_bytes;		/* BLAST: dirtied before each WBINVD */
	/*
	 * BLAST: 1..MAX_CPUS, and at most the online CPUs less two: one
	 * online CPU besides the aggressor stays out of the blast, with its
	 * interrupts on, to keep the machine running (-EINVAL otherwise).
	 */
	__u32 nr_victims;
	__u32 width_us;			/* BLAST: victim IRQs-off window */
	__u64 victims;			/* BLAST: __u32 cpu[] */
	__u64 threshold_ns;		/* BLAST: gaps above this recorded */
	__u32 nr_samples;		/* in: capacity of samples */
	__u32 nr_done;			/* out */
	/* SWEEP: idlelab_wbinvd_sample[]; BLAST: idlelab_gap_sample[] */
	__u64 samples;
	__u32 unsupported;		/* out: IDLELAB_UNSUP_* */
	__u32 tsc_khz;			/* out */
	__u32 dropped;			/* out: records lost, buffer full */
	__u32 pad;
	__u64 reserved[2];
	/* Taken from reserved words: as the cstate request's fields. */
	__u32 cpuid_cycles;		/* out */
	__u32 noop_cycles;		/* out */
	/*
	 * out, with IDLELAB_DIRTY_F_VALID in mem_flags: the NUMA node of
	 * the dirty buffer's pages (page_to_nid).
	 */
	__u32 mem_node;
	__u32 mem_flags;		/* out: IDLELAB_DIRTY_F_* */
	/* ABI 2 */
	__u32 hw_flags;			/* out: IDLELAB_HW_* */
	/*
	 * out: the aggressor CPU's NUMA node, cpu_to_node(cpu).  The dirty
	 * buffer is asked for on that node, but its pages may land on
	 * another one: mem_node says where they are.
	 */
	__u32 node;
	/* BLAST: victim window period, >= 2 x width_us (IRQs on half) */
	__u32 window_us;
	__u32 pad2;			/* must be zero */
};

struct idlelab_wbinvd_sample {
	__u64 dirty_bytes;
	__u64 t_start;
	__u64 cycles;			/* WBINVD (or WBNOINVD) duration */
	/* IDLELAB_SAMPLE_UNSUPPORTED, _WBINVD_NOOP, _SMI_VALID */
	__u32 flags;
	__u32 smi;			/* SMIs during it (MSR 0x34, SMI_VALID) */
};

/* ---- IRQs-off TSC gaps (/dev/idlelab_cstate) -------------------------- */

struct idlelab_gaps_req {
	__u32 abi_version;
	__u32 size;
	__u32 cpu;
	__u32 width_us;			/* IRQs off this long per window */
	__u32 window_us;		/* period, >= 2 x width_us */
	__u32 nr_windows;		/* 1..MAX_WINDOWS */
	__u64 threshold_ns;		/* gaps above this are recorded */
	__u32 nr_samples;		/* in: capacity */
	__u32 nr_done;			/* out */
	__u64 samples;			/* struct idlelab_gap_sample[] */
	__u64 loop_period;		/* out: min loop period, cycles */
	__u64 nmi_count;		/* out: NMIs on cpu during the run */
	__u32 dropped;			/* out: gaps not stored */
	__u32 tsc_khz;			/* out */
	__u64 reserved[4];
	/* ABI 2 */
	__u32 hw_flags;			/* out: IDLELAB_HW_* */
	__u32 pad;			/* must be zero */
};

#define IDLELAB_GAP_KIND_GAP		0	/* a TSC gap on cpu */
#define IDLELAB_GAP_KIND_WBINVD		1	/* aggressor WBINVD event */
/*
 * ABI 2: one record per IRQs-off window, so that "no gap" can be told from
 * "not observed": t = its first TSC read, len = its length; nmi and smi are
 * the window's counts.  It follows the window's gaps; a full buffer counts
 * it in dropped, like a gap.
 */
#define IDLELAB_GAP_KIND_WINDOW		2

#define IDLELAB_GAP_F_SMI_VALID		(1U << 0)	/* smi is real */
#define IDLELAB_GAP_F_WBINVD_NOOP	(1U << 1)	/* as the sample flag */

struct idlelab_gap_sample {
	__u64 t;			/* TSC at the start of the gap */
	__u64 len;			/* cycles */
	__u64 loop_period;		/* min loop period in that window */
	__u32 cpu;
	__u32 kind;			/* IDLELAB_GAP_KIND_* */
	__u32 nmi;			/* NMIs during that window */
	__u32 window;			/* window index */
	/*
	 * ABI 2.  GAP: NMIs and SMIs counted since the previous read (the
	 * window's start or the previous gap's end), read at this gap's end,
	 * so a gap an NMI or SMI caused has a count here; WINDOW: the
	 * window's; WBINVD: SMIs during the instruction.
	 */
	__u32 gap_nmi;
	__u32 smi;
	__u32 flags;			/* IDLELAB_GAP_F_* */
	__u32 reserved;
};

/* ---- IPI storm (/dev/idlelab_ipi) ------------------------------------ */

#define IDLELAB_IPI_PHYSICAL		0	/* one ICR write per target */
/* one per cluster / flat mask */
#define IDLELAB_IPI_LOGICAL		1
#define IDLELAB_IPI_BROADCAST		2	/* all-but-self shorthand */
#define IDLELAB_IPI_KERNEL		3	/* async smp_call_function */

#define IDLELAB_DEST_XAPIC_PHYS		0
#define IDLELAB_DEST_XAPIC_FLAT		1
#define IDLELAB_DEST_XAPIC_CLUSTER	2
#define IDLELAB_DEST_X2APIC_PHYS	3
#define IDLELAB_DEST_X2APIC_CLUSTER	4

struct idlelab_ipi_req {
	__u32 abi_version;
	__u32 size;
	__u32 mode;			/* IDLELAB_IPI_* */
	__u32 sender_cpu;
	__u32 nr_targets;		/* 1..MAX_CPUS, sender excluded */
	__u32 nr_rounds;		/* 1..MAX_ROUNDS */
	__u64 targets;			/* in: __u32 cpu[nr_targets], unique */
	__u32 timeout_us;		/* per round, 1..MAX_ROUND_TIMEOUT_US */
	__u32 x2apic;			/* out: 1 if x2APIC mode */
	__u64 rounds;			/* out: idlelab_ipi_round[nr_rounds] */
	/* out: idlelab_ipi_arrival[nr_rounds * nr_targets] */
	__u64 arrivals;
	__u32 nr_done;			/* out: rounds completed */
	__u32 unsupported;		/* out: IDLELAB_UNSUP_* */
	__u32 dest_model;		/* out: IDLELAB_DEST_* used */
	__u32 tsc_khz;			/* out */
	__u8 apic_name[IDLELAB_NAME_LEN];	/* out: kernel APIC driver */
	/* The first reserved word of ABI 1, zero from older callers. */
	__u32 run_flags;		/* out: IDLELAB_RUN_* */
	/* out: NMIs not ours on the sender or a target during the run */
	__u32 foreign_nmis;
	/* out: ours, arriving after their round had timed out */
	__u32 late_nmis;
	/*
	 * out: ours, still owed after the final bounded drain (kernel mode:
	 * callbacks still queued)
	 */
	__u32 lost_nmis;
	/*
	 * The first reserved word of ABI 2's storm, zero from older
	 * callers, who therefore never target CPU 0.
	 */
	__u32 flags;			/* in: IDLELAB_IPI_F_* */
	__u32 pad2;			/* must be zero */
	__u64 reserved[1];
};

/*
 * CPU 0 is where the platform's own NMIs land (legacy NMI sources, some
 * firmware and BMC paths) and does the machine's housekeeping: a storm
 * may target it only when the caller says so with this flag (the harness
 * sets it only when the user named CPU 0 in --cpus); otherwise a target
 * list holding CPU 0 is -EINVAL.
 */
#define IDLELAB_IPI_F_CPU0		(1U << 0)
#define IDLELAB_IPI_F_ALL		IDLELAB_IPI_F_CPU0

/*
 * Run attributes (run_flags): what the results were measured under.  Bits
 * 0 and 1 mean what the C-state requests' hw_flags bits 0 and 1 mean;
 * the storm's own start at bit 16.
 */
#define IDLELAB_RUN_HYPERVISOR		(1U << 0)	/* X86_FEATURE_HYPERVISOR */
/* check_tsc_unstable(): cross-CPU TSC differences are not latencies */
#define IDLELAB_RUN_TSC_UNSTABLE	(1U << 1)
/*
 * stopped early: a target still owed an NMI after a bounded drain (kernel
 * mode: its callback was still queued)
 */
#define IDLELAB_RUN_UNDRAINED		(1U << 16)

#define IDLELAB_ROUND_TIMEOUT		(1U << 0)	/* some ack missing */
/*
 * An NMI that was not ours reached the sender or a target while the round
 * was armed or before the next one (a perf or watchdog NMI, an injected
 * one): its handler may have delayed ours, so the times are suspect.
 */
#define IDLELAB_ROUND_FOREIGN_NMI	(1U << 1)
/* The sender was switched out during the round (see SAMPLE_PREEMPTED) */
#define IDLELAB_ROUND_PREEMPTED		(1U << 2)

struct idlelab_ipi_round {
	__u64 t_issue;			/* before the first ICR write */
	__u64 t_issued;			/* after the last ICR write */
	__u64 t_complete;		/* last ack seen by the sender */
	__u32 icr_writes;
	__u32 acks;			/* total acks this round */
	__u32 flags;			/* IDLELAB_ROUND_* */
	__u32 stray;			/* late NMIs of earlier rounds */
};

struct idlelab_ipi_arrival {
	__u64 t;			/* TSC at the handler's first insn */
	__u32 cpu;
	__u32 count;			/* acks from this target this round */
};

/* The APIC map: every possible CPU's APIC ID and LDR. */
#define IDLELAB_APIC_CPU_ONLINE		(1U << 0)

struct idlelab_apic_cpu {
	__u32 cpu;
	__u32 apic_id;
	__u32 ldr;			/* raw LDR register (0 if offline) */
	__u32 flags;			/* IDLELAB_APIC_CPU_* */
};

struct idlelab_apic_map_req {
	__u32 abi_version;
	__u32 size;
	/* in: capacity (-ENOSPC below the possible CPUs); out: entries */
	__u32 nr_cpus;
	__u32 x2apic;			/* out */
	__u64 cpus;			/* out: struct idlelab_apic_cpu[] */
	__u32 dfr;			/* out: xAPIC DFR (0 in x2APIC) */
	__u32 dest_model;		/* out: IDLELAB_DEST_* for LOGICAL */
	__u8 apic_name[IDLELAB_NAME_LEN];
	__u64 reserved[4];
};

#define IDLELAB_IOC_GET_INFO \
	_IOWR(IDLELAB_IOC_MAGIC, 0x00, struct idlelab_info)
#define IDLELAB_IOC_CSTATE_WAKE \
	_IOWR(IDLELAB_IOC_MAGIC, 0x01, struct idlelab_cstate_req)
#define IDLELAB_IOC_WBINVD \
	_IOWR(IDLELAB_IOC_MAGIC, 0x02, struct idlelab_wbinvd_req)
#define IDLELAB_IOC_GAPS \
	_IOWR(IDLELAB_IOC_MAGIC, 0x03, struct idlelab_gaps_req)
#define IDLELAB_IOC_IPI_STORM \
	_IOWR(IDLELAB_IOC_MAGIC, 0x04, struct idlelab_ipi_req)
#define IDLELAB_IOC_APIC_MAP \
	_IOWR(IDLELAB_IOC_MAGIC, 0x05, struct idlelab_apic_map_req)

#endif /* _UAPI_IDLELAB_H */
