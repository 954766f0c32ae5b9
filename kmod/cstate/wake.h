/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wake.h - what the wake samples (wake.c) and the wake run (wake_run.c)
 * share: the run's state, and how its workers are set up.  The locking
 * and ordering of its fields are described at the top of wake.c.
 */
#ifndef IDLELAB_WAKE_H
#define IDLELAB_WAKE_H

#include <linux/cache.h>
#include <linux/hrtimer.h>
#include <linux/types.h>

#include "idlelab_kcommon.h"
#include "cstate.h"
#include "uapi/idlelab.h"

struct il_wake {
	/* The MONITORed line: written by the wake callback. */
	int woken ____cacheline_aligned;
	u64 t_intr;
	/* Sender handshake. */
	u64 t_launch ____cacheline_aligned;
	u64 delay;
	/* The hrtimer's arming: adjacent monotonic and TSC reads, and L. */
	u64 arm_mono;
	u64 arm_tsc;
	u64 arm_l_ns;
	u32 armed;
	bool finished;
	struct hrtimer timer;
	/* At each HLT/MWAIT sample's deadline, whatever its wake source. */
	struct hrtimer backstop;
	int backstop_fired;	/* written by its callback, measured CPU */
	const struct idlelab_cstate_req *req;
	struct idlelab_cstate_sample *s;
	u8 *dirty;
	u64 rng;
	struct il_run_ctl ctl;
	u32 nr_done;
	u32 unsupported;
	u32 stale_ipis;		/* written by the callback on the measured CPU */
	u32 res_avail;		/* IDLELAB_RES_* readable there */
	u32 res_gated;		/* and left unread by the vendor gate */
	u32 gate_why;
	u32 cpuid_cycles;	/* calibrated on the measured CPU */
	u32 noop_cycles;	/* the no-op threshold made from it */
	bool hypervisor;
	bool wbinvd_slow;	/* IL_INJECT_WBINVD_SLOW taken (test only) */
	bool tsc_unstable;	/* check_tsc_unstable() at the start */
	struct il_acpi_entry acpi;	/* METHOD_ACPI, resolved at the start */
};

unsigned int il_wake_workers(struct il_wake *w, struct il_worker *wk);

#endif /* IDLELAB_WAKE_H */
