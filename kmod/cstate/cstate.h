/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cstate.h - internal interface of idlelab_cstate.ko between the device
 * (main.c) and the three operations (wake.c, wbinvd.c, gaps.c).
 *
 * (acpi.c enters the _CST states of IDLELAB_METHOD_ACPI for wake.c.)
 * main.c copies each request in, calls the operation's check function (pure
 * validation, no side effects), allocates the sample buffer, calls the run
 * function and copies the request and the samples back out.  Run functions
 * never touch user memory; they take cpus_read_lock() themselves, validate
 * the CPUs and start their workers under it, and drop it for the run
 * (idlelab_workers.h).  main.c serialises runs.
 */
#ifndef IDLELAB_CSTATE_H
#define IDLELAB_CSTATE_H

#include <linux/types.h>
#include "uapi/idlelab.h"

/* A per-worker slice of gap records. */
struct il_gapbuf {
	struct idlelab_gap_sample *s;
	u32 cap;
	u32 n;
	u32 dropped;
	bool smi;	/* MSR 0x34 readable: count SMIs per gap and window */
};

u64 il_gap_window(struct il_gapbuf *b, u32 cpu, u32 window, u64 width,
		  u64 threshold, u32 *nmi);

/*
 * Test-only fault injection (module parameter "inject", root-only), so the
 * guest rig can show the hang defences at work:
 * IL_INJECT_WORKER_EXIT: the gaps worker exits without completing, as a
 * worker killed by an oops would; IL_INJECT_SENDER_STALL: the IPI-wake
 * sender sleeps IL_INJECT_STALL_MS before its first IPI, longer than the
 * sample waits for it; IL_INJECT_SENDER_EXIT: the IPI-wake sender exits
 * without completing, so that a dead worker is seen while another (the
 * measured one) is still running; IL_INJECT_TSC_UNSTABLE: the next wake
 * run sees the TSC stable at its start and unstable from its second
 * sample on, as if the clocksource watchdog had marked it then (the
 * module's view only, il_tsc_unstable(): the kernel's clocksource is not
 * touched); IL_INJECT_LOSE_WAKE: the next wake run's first sample arms no
 * wake of its own and its backstop timer at its launch time, not its
 * deadline, so that the backstop is what ends its HLT or MWAIT (a lost
 * wake, without waiting a second for one); IL_INJECT_WBINVD_SLOW: the
 * next wake run with IDLELAB_CSTATE_F_WBINVD, or the next WBINVD sweep or
 * blast, spins inside each timed WBINVD window for as many cycles again as
 * its no-op threshold (il_inject_spin()), so that under a hypervisor each
 * span is at least the threshold and must come back unflagged: the guest
 * rig tests the comparison from the side TCG never reaches.  Each bit is
 * cleared once used.  None of them can hold a CPU: they end a thread,
 * sleep, set a flag, end a sample sooner, or (WBINVD_SLOW) spin with IRQs
 * off for at most IL_INJECT_SPIN_MAX_US per WBINVD.
 */
#define IL_INJECT_WORKER_EXIT	(1U << 0)
#define IL_INJECT_SENDER_STALL	(1U << 1)
#define IL_INJECT_SENDER_EXIT	(1U << 2)
#define IL_INJECT_TSC_UNSTABLE	(1U << 3)
#define IL_INJECT_LOSE_WAKE	(1U << 4)
#define IL_INJECT_WBINVD_SLOW	(1U << 5)
#define IL_INJECT_STALL_MS	1500
#define IL_INJECT_SPIN_MAX_US	100
bool il_inject_take(unsigned int bit);
void il_inject_spin(u64 cycles);

#define IL_TSC_PRETEND_STABLE		1
#define IL_TSC_PRETEND_UNSTABLE		2
void il_tsc_pretend_set(int v);
int il_tsc_pretend_get(void);
bool il_tsc_unstable(void);

u32 il_hw_flags(void);
u32 il_hw_flags_end(u32 hw);
u32 il_cpuid_calib(void);
void *il_dirty_alloc(size_t size, int node, u32 *nid, u32 *flags);
u32 il_idle_entry_flags(u32 method);
u32 il_idle_policy_check(u32 method, unsigned int cpu);
u32 il_mwait_hint_check(u32 hint);
u32 il_mwait_policy_check(unsigned int cpu, u32 hint);
int il_cpuidle_attr(unsigned int cpu, unsigned int k, const char *name,
		    char *buf, size_t len);
u32 il_res_probe(u32 *gated, u32 *why);
u32 il_res_read(u32 avail, u64 *v);

/*
 * An IDLELAB_METHOD_ACPI state as resolved before the run (acpi.c): HLT,
 * or a read of @port (and of the PM timer's @pmtmr_port after it, where
 * acpi_idle does that too), with a WBINVD first where @flush; @out is the
 * request's acpi_out word.
 */
struct il_acpi_entry {
	u32 out;
	u32 pmtmr_port;
	u16 port;
	bool halt;
	bool pmtmr;
	bool flush;
};

int il_acpi_resolve(const struct idlelab_cstate_req *req,
		    struct il_acpi_entry *e, u32 *why);
int il_acpi_enter(const struct il_acpi_entry *e,
		  struct idlelab_cstate_sample *s);

int il_cstate_check(const struct idlelab_cstate_req *req);
int il_cstate_run(struct idlelab_cstate_req *req,
		  struct idlelab_cstate_sample *s);

int il_wbinvd_check(const struct idlelab_wbinvd_req *req);
int il_wbinvd_run(struct idlelab_wbinvd_req *req, const u64 *footprints,
		  const u32 *victims, void *samples);

int il_gaps_check(const struct idlelab_gaps_req *req);
int il_gaps_run(struct idlelab_gaps_req *req, struct idlelab_gap_sample *s);

#endif /* IDLELAB_CSTATE_H */
