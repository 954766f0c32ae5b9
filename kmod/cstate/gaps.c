// SPDX-License-Identifier: GPL-2.0-only
/*
 * gaps.c - the IRQs-off TSC-gap detector, in the manner of the kernel's
 * hwlat tracer: a kthread pinned to the CPU disables interrupts for `width`
 * out of every `window`, spins reading the TSC and records every gap between
 * two consecutive reads above the threshold.  The smallest difference seen
 * in a window is its loop period, the detector's resolution, stored with
 * every gap of the window.  il_gap_window() is also the victim loop of the
 * WBINVD blast-radius mode (wbinvd.c).
 *
 * Locking: none beyond the run serialisation in main.c; each worker owns
 * its struct il_gapbuf.  The IRQs-off window is bounded by
 * IDLELAB_MAX_WIDTH_US (100 ms), far below the hard-lockup threshold, so
 * the NMI watchdog is left alone: touching it would hide a real lockup.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "idlelab_arch.h"
#include "idlelab_cstate_check.h"
#include "idlelab_kcommon.h"
#include "cstate.h"

/* Room for one more record, else one more dropped. */
static struct idlelab_gap_sample *il_gap_next(struct il_gapbuf *b)
{
	if (b->n < b->cap)
		return memset(&b->s[b->n++], 0, sizeof(*b->s));
	b->dropped++;
	return NULL;
}

/**
 * il_gap_window - one IRQs-off window of the gap detector
 * @b:		where gaps go; a full buffer counts them in ->dropped
 * @cpu:	this CPU, stored in the records
 * @window:	window index, stored in the records
 * @width:	window length, TSC cycles
 * @threshold:	gaps longer than this are recorded, TSC cycles
 * @nmi:	out: NMIs taken during the window
 *
 * Each gap record carries the NMIs (and, with @b->smi, the SMIs) counted
 * since the previous read, taken right after the gap: an NMI or SMI that
 * made the gap is counted in it.  Those reads take time themselves, so the
 * loop restarts its clock after them rather than call them a gap.  The
 * window ends with an IDLELAB_GAP_KIND_WINDOW record (start, length, the
 * window's NMIs and SMIs), so a window with no gap is still on record.
 *
 * Context: a kthread bound to @cpu, preemptible on entry and exit.
 * Return: the loop period (smallest TSC difference) of the window.
 */
u64 il_gap_window(struct il_gapbuf *b, u32 cpu, u32 window, u64 width,
		  u64 threshold, u32 *nmi)
{
	u64 start, prev, now, d, period = U64_MAX;
	u32 first = b->n, nmi0, nmi_prev, smi0 = 0, smi_prev = 0, smi = 0, n, i;
	struct idlelab_gap_sample *g;
	bool smi_ok = false;
	unsigned long flags;

	local_irq_save(flags);
	nmi0 = il_nmi_count();
	nmi_prev = nmi0;
	if (b->smi) {
		smi_ok = il_smi_count(&smi0);
		smi_prev = smi0;
	}
	start = il_tsc();
	prev = start;
	do {
		now = il_tsc();
		d = now - prev;
		if (d < period)
			period = d;
		if (d > threshold) {
			g = il_gap_next(b);
			if (g) {
				g->t = prev;
				g->len = d;
				g->cpu = cpu;
				g->kind = IDLELAB_GAP_KIND_GAP;
				g->window = window;
				n = il_nmi_count();
				g->gap_nmi = n - nmi_prev;
				nmi_prev = n;
				if (smi_ok && il_smi_count(&smi)) {
					g->smi = smi - smi_prev;
					smi_prev = smi;
					g->flags |= IDLELAB_GAP_F_SMI_VALID;
				}
				now = il_tsc();
			}
		}
		prev = now;
	} while (now - start < width);
	*nmi = il_nmi_count() - nmi0;
	if (!(smi_ok && il_smi_count(&smi)))
		smi_ok = false;
	local_irq_restore(flags);

	for (i = first; i < b->n; i++) {
		b->s[i].loop_period = period;
		b->s[i].nmi = *nmi;
	}
	g = il_gap_next(b);
	if (g) {
		g->t = start;
		g->len = now - start;
		g->loop_period = period;
		g->cpu = cpu;
		g->kind = IDLELAB_GAP_KIND_WINDOW;
		g->window = window;
		g->nmi = *nmi;
		g->gap_nmi = *nmi;
		if (smi_ok) {
			g->smi = smi - smi0;
			g->flags |= IDLELAB_GAP_F_SMI_VALID;
		}
	}
	return period;
}

int il_gaps_check(const struct idlelab_gaps_req *req)
{
	return il_gaps_req_check(req, nr_cpu_ids);
}

struct il_gaps {
	const struct idlelab_gaps_req *req;
	struct il_gapbuf buf;
	struct il_run_ctl ctl;
	u64 period;
	u64 nmi;
};

static int il_gaps_worker(struct il_worker *wk)
{
	struct il_gaps *g = wk->ctx;
	const struct idlelab_gaps_req *req = g->req;
	u64 width = il_us_to_cycles(req->width_us);
	u64 thr = il_ns_to_cycles(req->threshold_ns);
	u32 rest = req->window_us - req->width_us, i, nmi, smi;
	u64 p;

	/* Test only: die as an oops would, without completing. */
	if (il_inject_take(IL_INJECT_WORKER_EXIT))
		kthread_complete_and_exit(NULL, 0);
	g->buf.smi = il_smi_count(&smi);
	for (i = 0; i < req->nr_windows; i++) {
		if (il_should_abort(&g->ctl))
			break;
		p = il_gap_window(&g->buf, wk->cpu, i, width, thr, &nmi);
		if (p < g->period)
			g->period = p;
		g->nmi += nmi;
		if (rest)
			usleep_range(rest, rest + rest / 8 + 1);
		else
			cond_resched();
	}
	return 0;
}

/**
 * il_gaps_run - run a checked IDLELAB_IOC_GAPS request
 * @req:	the request; the out fields are filled in
 * @s:		req->nr_samples zeroed records
 *
 * Return: 0, -EINVAL for an offline CPU, -EINTR, -ENOMEM, -ENODEV when the
 * CPU went offline during the run.
 */
int il_gaps_run(struct idlelab_gaps_req *req, struct idlelab_gap_sample *s)
{
	struct il_worker wk = {};
	struct il_gaps *g;
	u32 hw0;
	int ret;

	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	g->req = req;
	g->buf.s = s;
	g->buf.cap = req->nr_samples;
	g->period = U64_MAX;

	wk.fn = il_gaps_worker;
	wk.ctx = g;
	wk.cpu = req->cpu;
	/* Read before too: the TSC may be marked unstable meanwhile. */
	hw0 = il_hw_flags();
	/* The hotplug lock only while the CPU is checked and bound. */
	cpus_read_lock();
	ret = il_cpu_ok(req->cpu) ? il_workers_start(&wk, 1, &g->ctl) : -EINVAL;
	cpus_read_unlock();
	if (ret)
		goto free_gaps;
	ret = il_workers_end(&wk, 1, &g->ctl);
	req->nr_done = g->buf.n;
	req->dropped = g->buf.dropped;
	req->loop_period = g->period == U64_MAX ? 0 : g->period;
	req->nmi_count = g->nmi;
	req->tsc_khz = tsc_khz;
	req->hw_flags = il_hw_flags_end(hw0);
free_gaps:
	kfree(g);
	return ret;
}
