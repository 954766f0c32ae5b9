// SPDX-License-Identifier: GPL-2.0-only
/*
 * wake_run.c - one IDLELAB_IOC_CSTATE_WAKE run: its refusals, decided
 * before any worker starts, its allocations and its workers' start and
 * end (the samples themselves are wake.c's).  The hotplug lock is held
 * only while the CPUs are checked and the workers bound.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <asm/cpufeature.h>

#include "idlelab_arch.h"
#include "idlelab_kcommon.h"
#include "cstate.h"
#include "wake.h"

/* The request's CPUs are online; the caller holds cpus_read_lock(). */
static bool il_wake_cpus_ok(const struct idlelab_cstate_req *req)
{
	return il_cpu_ok(req->cpu) &&
	       (req->wake_source != IDLELAB_WAKE_IPI ||
		il_cpu_ok(req->sender_cpu));
}

/*
 * il_cstate_refusal - why this machine cannot run @req (req->hw_flags
 * filled in), as an IDLELAB_UNSUP_* reason, or IDLELAB_UNSUP_NONE.  Every
 * refusal is decided here, before any worker starts.
 */
static u32 il_cstate_refusal(const struct idlelab_cstate_req *req)
{
	u32 why;

	/*
	 * A Xen PV guest cannot run HLT or MWAIT (privileged: HLT #GPs with
	 * IRQs off and preemption disabled, which oopsed a dom0), and Xen
	 * emulates its WBINVD: refuse before any worker starts.  POLL needs
	 * neither and still runs.
	 */
	if ((req->hw_flags & IDLELAB_HW_XEN_PV) &&
	    (req->method != IDLELAB_METHOD_POLL ||
	     (req->flags & IDLELAB_CSTATE_F_WBINVD)))
		return IDLELAB_UNSUP_XEN_PV;
	if (req->method == IDLELAB_METHOD_MWAIT &&
	    !boot_cpu_has(X86_FEATURE_MWAIT))
		return IDLELAB_UNSUP_NO_MWAIT;
	why = req->method == IDLELAB_METHOD_MWAIT ?
	      il_mwait_hint_check(req->mwait_hint) : IDLELAB_UNSUP_NONE;
	/*
	 * A tick-resolution hrtimer would be up to a tick late by design;
	 * reported before a hint's reason, as the module always has.
	 */
	if (req->wake_source == IDLELAB_WAKE_HRTIMER &&
	    hrtimer_resolution != 1)
		why = IDLELAB_UNSUP_LOWRES_TIMER;
	if (why)
		return why;
	if (!(req->flags & IDLELAB_CSTATE_F_POLICY_OVERRIDE)) {
		why = il_idle_policy_check(req->method, req->cpu);
		if (!why && req->method == IDLELAB_METHOD_MWAIT)
			why = il_mwait_policy_check(req->cpu, req->mwait_hint);
		if (why)
			return why;
	}
	/* Without an always-running APIC timer a deep C-state may never end. */
	if (req->method == IDLELAB_METHOD_MWAIT && req->mwait_hint &&
	    req->wake_source == IDLELAB_WAKE_HRTIMER &&
	    !boot_cpu_has(X86_FEATURE_ARAT))
		return IDLELAB_UNSUP_NO_ARAT;
	return IDLELAB_UNSUP_NONE;
}

/**
 * il_cstate_run - run a checked IDLELAB_IOC_CSTATE_WAKE request
 * @req:	the request; nr_done, unsupported and tsc_khz are filled in
 * @s:		req->nr_samples zeroed records
 *
 * Return: 0 (also when unsupported), -EINVAL for an offline CPU or an ACPI
 * state index past the CPU's _CST states, -EINTR,
 * -ENOMEM, -ENODEV when one of its CPUs went offline during the run.
 */
int il_cstate_run(struct idlelab_cstate_req *req,
		  struct idlelab_cstate_sample *s)
{
	struct il_worker wk[2] = {};
	struct il_acpi_entry acpi = {};
	unsigned int nr_workers;
	struct il_wake *w;
	bool cpus_ok;
	int ret;

	/*
	 * A request naming an offline CPU is -EINVAL whatever this machine
	 * supports, so the answer never depends on the platform (the
	 * low-resolution guest found it answered "unsupported" instead).
	 * The check under the lock below is the one the run relies on.
	 */
	cpus_read_lock();
	cpus_ok = il_wake_cpus_ok(req);
	cpus_read_unlock();
	if (!cpus_ok)
		return -EINVAL;
	req->nr_done = 0;
	req->unsupported = IDLELAB_UNSUP_NONE;
	req->tsc_khz = tsc_khz;
	if (il_inject_take(IL_INJECT_TSC_UNSTABLE))
		il_tsc_pretend_set(IL_TSC_PRETEND_STABLE);
	req->hw_flags = il_hw_flags() | il_idle_entry_flags(req->method);
	req->res_avail = 0;
	req->stale_ipis = 0;
	req->acpi_out = 0;
	req->unsupported = il_cstate_refusal(req);
	if (!req->unsupported && req->method == IDLELAB_METHOD_ACPI) {
		ret = il_acpi_resolve(req, &acpi, &req->unsupported);
		if (ret) {
			il_tsc_pretend_set(0);
			return ret;
		}
		req->acpi_out = acpi.out;
		/* The idle VERW precedes the HLT entry only, as in io_idle(). */
		if (!acpi.halt)
			req->hw_flags &= ~IDLELAB_HW_IDLE_VERW;
	}
	if (req->unsupported) {
		il_tsc_pretend_set(0);
		return 0;
	}

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w) {
		ret = -ENOMEM;
		goto free_wake;
	}
	w->req = req;
	w->s = s;
	w->acpi = acpi;
	w->rng = req->seed;
	w->hypervisor = req->hw_flags & IDLELAB_HW_HYPERVISOR;
	w->tsc_unstable = req->hw_flags & IDLELAB_HW_TSC_UNSTABLE;
	if (req->dirty_bytes) {
		/* On the measured CPU's node: its write-back is the cost. */
		w->dirty = il_dirty_alloc(req->dirty_bytes,
					  cpu_to_node(req->cpu),
					  &req->dirty_node, &req->dirty_flags);
		if (!w->dirty) {
			ret = -ENOMEM;
			goto free_wake;
		}
	}
	nr_workers = il_wake_workers(w, wk);
	/* The hotplug lock only while the CPUs are checked and bound. */
	cpus_read_lock();
	ret = il_wake_cpus_ok(req) ? il_workers_start(wk, nr_workers, &w->ctl) :
	      -EINVAL;
	cpus_read_unlock();
	if (ret)
		goto free_dirty;
	ret = il_workers_end(wk, nr_workers, &w->ctl);
	hrtimer_cancel(&w->timer);
	hrtimer_cancel(&w->backstop);
	req->nr_done = w->nr_done;
	req->unsupported = w->unsupported;
	req->res_avail = w->res_avail;
	req->res_gated = w->res_gated;
	req->gate_why = w->gate_why;
	req->cpuid_cycles = w->cpuid_cycles;
	req->noop_cycles = w->noop_cycles;
	req->hw_flags = il_hw_flags_end(req->hw_flags);
	req->stale_ipis = w->stale_ipis;
free_dirty:
	kvfree(w->dirty);
free_wake:
	kfree(w);
	il_tsc_pretend_set(0);
	return ret;
}
