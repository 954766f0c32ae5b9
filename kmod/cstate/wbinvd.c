// SPDX-License-Identifier: GPL-2.0-only
/*
 * wbinvd.c - the cost of WBINVD (or WBNOINVD) against the dirty footprint,
 * and its blast radius: how long other CPUs stall while one CPU writes back
 * its caches (the AMD seed's "gaps of up to 222 us").
 *
 * Sweep mode: one kthread on the aggressor CPU dirties each footprint with
 * IRQs on, then times the instruction with IRQs off.
 *
 * Blast mode: one victim kthread per victim CPU runs the gap detector's
 * IRQs-off window (il_gap_window()) for width_us in every window_us (a
 * duty cycle, as hwlat's) until the aggressor is done, each window on
 * record with its start and end; the aggressor runs `reps` WBINVDs
 * `interval_us` apart and records each as an IDLELAB_GAP_KIND_WBINVD
 * event, so user space can line victim gaps up with aggressor events on the
 * common TSC.
 *
 * Object model and locking: one struct il_wbinvd per run.  The sample
 * buffer is cut into one slice per worker (aggressor first, then victims in
 * request order), each written only by its worker, and compacted after all
 * workers are done.  @started and @stop are the only shared words: victims
 * count themselves in, the aggressor waits for them (bounded) and sets @stop
 * (smp_store_release) when its last WBINVD is recorded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <asm/cpufeature.h>

#include "idlelab_arch.h"
#include "idlelab_clockcal.h"
#include "idlelab_cstate_check.h"
#include "idlelab_kcommon.h"
#include "cstate.h"

struct il_wbinvd {
	const struct idlelab_wbinvd_req *req;
	const u64 *footprints;
	u8 *dirty;
	u64 dirty_size;
	struct il_run_ctl ctl;
	atomic_t started;
	bool stop;
	bool smi;		/* MSR 0x34 readable */
	bool hypervisor;
	bool slow;		/* IL_INJECT_WBINVD_SLOW taken (test only) */
	u32 cpuid_cycles;	/* calibrated on the aggressor */
	u32 noop_cycles;
	u32 unsupported;
	u32 dropped;
	/* sweep */
	struct idlelab_wbinvd_sample *ws;
	u32 nr_ws;
	/* blast: slice 0 is the aggressor's, 1..nr_victims the victims' */
	struct il_gapbuf *bufs;
};

int il_wbinvd_check(const struct idlelab_wbinvd_req *req)
{
	return il_wbinvd_req_check(req, nr_cpu_ids);
}

/* The no-op threshold, from a CPUID round trip timed on the aggressor. */
static void il_wbinvd_calib(struct il_wbinvd *b)
{
	b->cpuid_cycles = il_cpuid_calib();
	b->noop_cycles = il_noop_cycles(b->cpuid_cycles);
	/* Taken by the run's worker that times WBINVD (cstate.h). */
	b->slow = il_inject_take(IL_INJECT_WBINVD_SLOW);
}

/*
 * One timed write-back with IRQs off; the footprint was dirtied before.
 * *flags gets IDLELAB_SAMPLE_SMI_VALID with *smi the SMIs during it, and
 * IDLELAB_SAMPLE_WBINVD_NOOP when a hypervisor made it implausibly fast.
 */
static int il_wbinvd_once(struct il_wbinvd *b, u64 *t_start, u64 *cycles,
			  u32 *smi, u32 *flags)
{
	bool noinvd = b->req->flags & IDLELAB_WBINVD_F_NOINVD, smi_ok;
	unsigned long irq;
	u32 smi0, smi1;
	u64 t0;
	int err;

	local_irq_save(irq);
	smi_ok = b->smi && il_smi_count(&smi0);
	t0 = il_tsc();
	err = noinvd ? il_wbnoinvd_safe() : il_wbinvd_safe();
	/* Test only: at least the threshold, so never a no-op. */
	if (b->slow)
		il_inject_spin(b->noop_cycles);
	*cycles = il_tsc() - t0;
	if (smi_ok && il_smi_count(&smi1)) {
		*smi = smi1 - smi0;
		*flags |= IDLELAB_SAMPLE_SMI_VALID;
	}
	local_irq_restore(irq);
	*t_start = t0;
	/* Not much more than one trap: the host did not really do it. */
	if (b->hypervisor && *cycles < b->noop_cycles)
		*flags |= IDLELAB_SAMPLE_WBINVD_NOOP;
	return err;
}

static int il_wbinvd_sweep(struct il_worker *wk)
{
	struct il_wbinvd *b = wk->ctx;
	const struct idlelab_wbinvd_req *req = b->req;
	bool noinvd = req->flags & IDLELAB_WBINVD_F_NOINVD;
	u32 f, r;

	b->smi = il_smi_count(&r);
	il_wbinvd_calib(b);
	for (f = 0; f < req->nr_footprints; f++) {
		for (r = 0; r < req->reps; r++) {
			struct idlelab_wbinvd_sample *s = &b->ws[b->nr_ws];

			if (il_should_abort(&b->ctl))
				return 0;
			if (b->footprints[f])
				memset(b->dirty, (int)r | 1, b->footprints[f]);
			memset(s, 0, sizeof(*s));
			s->dirty_bytes = b->footprints[f];
			if (il_wbinvd_once(b, &s->t_start, &s->cycles,
					   &s->smi, &s->flags)) {
				b->unsupported = noinvd ?
					IDLELAB_UNSUP_WBNOINVD_FAULT :
					IDLELAB_UNSUP_WBINVD_FAULT;
				return 0;
			}
			b->nr_ws++;
			cond_resched();
		}
	}
	return 0;
}

static int il_blast_aggressor(struct il_worker *wk)
{
	struct il_wbinvd *b = wk->ctx;
	const struct idlelab_wbinvd_req *req = b->req;
	bool noinvd = req->flags & IDLELAB_WBINVD_F_NOINVD;
	struct il_gapbuf *g = &b->bufs[0];
	u64 deadline = il_tsc() + il_us_to_cycles(IDLELAB_BLAST_START_US);
	u32 r, f;

	b->smi = il_smi_count(&r);
	il_wbinvd_calib(b);
	while (atomic_read(&b->started) < req->nr_victims &&
	       il_tsc() < deadline && !il_should_abort(&b->ctl))
		usleep_range(50, 100);

	for (r = 0; r < req->reps; r++) {
		struct idlelab_gap_sample *s = &g->s[g->n];

		if (il_should_abort(&b->ctl))
			break;
		if (req->dirty_bytes)
			memset(b->dirty, (int)r | 1, req->dirty_bytes);
		memset(s, 0, sizeof(*s));
		f = 0;
		if (il_wbinvd_once(b, &s->t, &s->len, &s->smi, &f)) {
			b->unsupported = noinvd ?
				IDLELAB_UNSUP_WBNOINVD_FAULT :
				IDLELAB_UNSUP_WBINVD_FAULT;
			break;
		}
		s->cpu = wk->cpu;
		s->kind = IDLELAB_GAP_KIND_WBINVD;
		s->window = r;
		s->flags = (f & IDLELAB_SAMPLE_SMI_VALID ?
			    IDLELAB_GAP_F_SMI_VALID : 0) |
			   (f & IDLELAB_SAMPLE_WBINVD_NOOP ?
			    IDLELAB_GAP_F_WBINVD_NOOP : 0);
		g->n++;
		if (req->interval_us)
			usleep_range(req->interval_us, req->interval_us +
				     req->interval_us / 8 + 1);
		else
			cond_resched();
	}
	/* Victims that see stop also see the last WBINVD recorded. */
	smp_store_release(&b->stop, true);
	return 0;
}

static int il_blast_victim(struct il_worker *wk)
{
	struct il_wbinvd *b = wk->ctx;
	const struct idlelab_wbinvd_req *req = b->req;
	struct il_gapbuf *g = &b->bufs[wk->index];
	u64 width = il_us_to_cycles(req->width_us);
	u64 thr = il_ns_to_cycles(req->threshold_ns);
	u32 window = 0, nmi, rest = req->window_us - req->width_us;

	g->smi = il_smi_count(&nmi);
	atomic_inc(&b->started);
	/*
	 * Pairs with the aggressor's release of stop.  IRQs off width_us in
	 * every window_us, as hwlat does, so the victim CPU keeps serving its
	 * interrupts and timers in between.
	 */
	while (!smp_load_acquire(&b->stop) && !il_should_abort(&b->ctl)) {
		il_gap_window(g, wk->cpu, window++, width, thr, &nmi);
		usleep_range(rest, rest + rest / 8 + 1);
	}
	return 0;
}

/*
 * Check the victim list against the aggressor and itself, and cap it: at
 * least one online CPU besides the aggressor is no victim, so that some
 * CPU keeps its interrupts on and the machine's housekeeping a place to
 * run while every victim holds IRQs off half of each window.
 * Context: cpus_read_lock() held.
 */
static int il_blast_cpus(const struct idlelab_wbinvd_req *req,
			 const u32 *victims)
{
	cpumask_var_t seen;
	int ret = 0;
	u32 i;

	if ((u64)req->nr_victims + 2 > num_online_cpus())
		return -EINVAL;
	if (!zalloc_cpumask_var(&seen, GFP_KERNEL))
		return -ENOMEM;
	cpumask_set_cpu(req->cpu, seen);
	for (i = 0; i < req->nr_victims; i++) {
		if (!il_cpu_ok(victims[i]) ||
		    cpumask_test_and_set_cpu(victims[i], seen)) {
			ret = -EINVAL;
			break;
		}
	}
	free_cpumask_var(seen);
	return ret;
}

static int il_wbinvd_workers(struct il_wbinvd *b, const u32 *victims,
			     struct idlelab_gap_sample *gs)
{
	const struct idlelab_wbinvd_req *req = b->req;
	u32 n = req->nr_victims + 1, per, i, off;
	struct il_worker *wk;
	int ret;

	/* One per victim, up to nr_cpu_ids: kv* and charged to the caller. */
	wk = kvcalloc(n, sizeof(*wk), GFP_KERNEL_ACCOUNT);
	b->bufs = kvcalloc(n, sizeof(*b->bufs), GFP_KERNEL_ACCOUNT);
	if (!wk || !b->bufs) {
		ret = -ENOMEM;
		goto free_workers;
	}
	per = (req->nr_samples - req->reps) / req->nr_victims;
	b->bufs[0].s = gs;
	b->bufs[0].cap = req->reps;
	wk[0].fn = il_blast_aggressor;
	wk[0].cpu = req->cpu;
	wk[0].ctx = b;
	for (i = 1; i < n; i++) {
		b->bufs[i].s = gs + req->reps + (size_t)(i - 1) * per;
		b->bufs[i].cap = per;
		wk[i].fn = il_blast_victim;
		wk[i].cpu = victims[i - 1];
		wk[i].ctx = b;
	}
	/* The hotplug lock only while the CPUs are checked and bound. */
	cpus_read_lock();
	ret = il_cpu_ok(req->cpu) ? il_blast_cpus(req, victims) : -EINVAL;
	if (!ret)
		ret = il_workers_start(wk, n, &b->ctl);
	cpus_read_unlock();
	if (ret)
		goto free_workers;
	ret = il_workers_end(wk, n, &b->ctl);
	/* Compact the slices: each starts at or after the end of the last. */
	for (i = 0, off = 0; i < n; i++) {
		if (b->bufs[i].s != gs + off)
			memmove(gs + off, b->bufs[i].s,
				b->bufs[i].n * sizeof(*gs));
		off += b->bufs[i].n;
		b->dropped += b->bufs[i].dropped;
	}
	b->nr_ws = off;
free_workers:
	kvfree(b->bufs);
	kvfree(wk);
	return ret;
}

/**
 * il_wbinvd_run - run a checked IDLELAB_IOC_WBINVD request
 * @req:	the request; nr_done, dropped, unsupported, tsc_khz filled in
 * @footprints:	SWEEP: req->nr_footprints byte counts, each checked here
 * @victims:	BLAST: req->nr_victims CPUs, checked here
 * @samples:	req->nr_samples zeroed records of the mode's type
 *
 * Return: 0 (also when unsupported), -EINVAL, -EINTR, -ENOMEM, -ENODEV when
 * one of its CPUs went offline during the run.
 */
int il_wbinvd_run(struct idlelab_wbinvd_req *req, const u64 *footprints,
		  const u32 *victims, void *samples)
{
	struct il_worker wk = {};
	struct il_wbinvd *b;
	u64 size = 0, sweep_us = 0;
	u32 i;
	int ret;

	/*
	 * Offline or repeated CPUs are -EINVAL whatever this machine
	 * supports (see il_cstate_run()); the checks under the lock below
	 * are the ones the run relies on.
	 */
	cpus_read_lock();
	ret = il_cpu_ok(req->cpu) ? 0 : -EINVAL;
	if (!ret && req->mode != IDLELAB_WBINVD_SWEEP)
		ret = il_blast_cpus(req, victims);
	cpus_read_unlock();
	if (ret)
		return ret;
	req->nr_done = 0;
	req->dropped = 0;
	req->unsupported = IDLELAB_UNSUP_NONE;
	req->tsc_khz = tsc_khz;
	req->hw_flags = il_hw_flags();
	req->node = cpu_to_node(req->cpu);
	if (req->mode == IDLELAB_WBINVD_SWEEP) {
		for (i = 0; i < req->nr_footprints; i++) {
			if (footprints[i] > IDLELAB_MAX_DIRTY_BYTES)
				return -EINVAL;
			size = max(size, footprints[i]);
			sweep_us += IDLELAB_DIRTY_REP_US(footprints[i]);
		}
		/* Each footprint's reps, each dirtied and written back. */
		if (sweep_us * req->reps > IDLELAB_MAX_RUN_US)
			return -EINVAL;
	} else {
		size = req->dirty_bytes;
	}
	/* Xen emulates WBINVD for a PV guest: the time would be Xen's. */
	if (req->hw_flags & IDLELAB_HW_XEN_PV) {
		req->unsupported = IDLELAB_UNSUP_XEN_PV;
		return 0;
	}
	if ((req->flags & IDLELAB_WBINVD_F_NOINVD) &&
	    !boot_cpu_has(X86_FEATURE_WBNOINVD)) {
		req->unsupported = IDLELAB_UNSUP_NO_WBNOINVD;
		return 0;
	}

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->req = req;
	b->footprints = footprints;
	b->ws = samples;
	b->hypervisor = req->hw_flags & IDLELAB_HW_HYPERVISOR;
	atomic_set(&b->started, 0);
	if (size) {
		/* On the aggressor's node: its write-back is what is timed. */
		b->dirty = il_dirty_alloc(size, req->node, &req->mem_node,
					  &req->mem_flags);
		if (!b->dirty) {
			ret = -ENOMEM;
			goto free_run;
		}
	}

	if (req->mode == IDLELAB_WBINVD_SWEEP) {
		wk.fn = il_wbinvd_sweep;
		wk.ctx = b;
		wk.cpu = req->cpu;
		/* The hotplug lock only while the CPU is checked and bound. */
		cpus_read_lock();
		ret = il_cpu_ok(req->cpu) ? il_workers_start(&wk, 1, &b->ctl) :
		      -EINVAL;
		cpus_read_unlock();
		if (!ret)
			ret = il_workers_end(&wk, 1, &b->ctl);
	} else {
		ret = il_wbinvd_workers(b, victims, samples);
	}
	req->dropped = b->dropped;
	req->nr_done = b->nr_ws;
	req->unsupported = b->unsupported;
	req->cpuid_cycles = b->cpuid_cycles;
	req->noop_cycles = b->noop_cycles;
	req->hw_flags = il_hw_flags_end(req->hw_flags);
	kvfree(b->dirty);
free_run:
	kfree(b);
	return ret;
}
