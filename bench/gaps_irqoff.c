// SPDX-License-Identifier: GPL-2.0-only
/*
 * gaps_irqoff.c - every interruption of a CPU that interrupts cannot
 * explain, the way the kernel's hwlat tracer looks for them: the
 * idlelab_cstate module spins reading the TSC with IRQs off for width_us in
 * every window_us, windows times, on each placed CPU in turn.
 *
 * gap is taken between two timestamps: two consecutive TSC reads of the
 * module's IRQs-off loop that are more than threshold_ns apart.  With IRQs
 * off, only an SMI, an NMI, or a hypervisor taking the vCPU away can make
 * one; the NMIs counted on the CPU during the run are stored (nmi_count) so
 * NMI-caused gaps can be told apart.  Each gap is stored with its time (ns
 * since the run began, one time base for every CPU), making the series the
 * gap histogram plus the raw (time, length) list.  The loop period (the
 * shortest TSC-to-TSC time of the loop) is the detector's resolution and is
 * stored as loop_period_ns.  The user-space twin with IRQs on is tsc_gaps.
 *
 * Each gap also carries the NMIs and SMIs (MSR 0x34) counted since the
 * previous read, read right after it: the timed series gap_nmi and gap_smi
 * have one value per gap at the gap's time, same CPU, so a gap with a count
 * there had an NMI or SMI in it (the trace-attribution report names the
 * cause from them).  Every window is on record too (timed series
 * gap_window: its start and length; window_nmi, window_smi), so a window
 * without gaps tells "no gap" from "not observed".
 */
#include "bench.h"
#include "common.h"
#include "err.h"
#include "kclient.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct gi_params {
	uint64_t width_us;
	uint64_t window_us;
	uint64_t windows;
	uint64_t threshold_ns;
	uint64_t max_records;
};

static const struct il_opt gi_opts[] = {
	{ .name = "width_us", .type = IL_OPT_U64,
	  .offset = offsetof(struct gi_params, width_us),
	  .min = 1, .max = IDLELAB_MAX_WIDTH_US, .def = "10000", .unit = "us",
	  .help = "IRQs off this long in each window (hwlat's width)" },
	{ .name = "window_us", .type = IL_OPT_U64,
	  .offset = offsetof(struct gi_params, window_us),
	  .min = 1, .max = IDLELAB_MAX_WINDOW_US, .def = "20000", .unit = "us",
	  .help = "the period of the windows, at least twice width_us (IRQs on for the rest)" },
	{ .name = "windows", .type = IL_OPT_U64,
	  .offset = offsetof(struct gi_params, windows),
	  .min = 1, .max = IDLELAB_MAX_WINDOWS, .def = "100", .unit = "count",
	  .help = "windows per CPU",
	  .scale = true },
	{ .name = "threshold_ns", .type = IL_OPT_U64,
	  .offset = offsetof(struct gi_params, threshold_ns),
	  .min = 100, .max = 1000000000, .def = "2000", .unit = "ns",
	  .help = "the smallest interval between two consecutive TSC reads recorded as a gap" },
	{ .name = "max_records", .type = IL_OPT_U64,
	  .offset = offsetof(struct gi_params, max_records),
	  .min = 1, .max = IDLELAB_MAX_SAMPLES, .def = "100000",
	  .unit = "count", .help = "gap records kept per CPU; beyond, counted as dropped" },
	IL_OPT_END
};

struct gi_state {
	struct il_bench_placed pl;	/* first: il_bench_state_new() */
	const struct gi_params *p;
	struct idlelab_gap_sample *buf;
};

static void gi_teardown(struct il_run *run)
{
	struct gi_state *st = run->priv;

	if (st)
		free(st->buf);
	il_bench_state_free(run);
}

/* The module refuses a request longer than IDLELAB_MAX_RUN_US. */
static int gi_check(const void *params, const struct il_placement *place)
{
	const struct gi_params *p = params;
	int ret;

	(void)place;
	ret = il_kcheck_duty(p->width_us, p->window_us);
	if (ret)
		return ret;
	/* The module's own floor, so --dry-run refuses it too. */
	ret = il_kcheck_threshold_ns(p->threshold_ns);
	if (ret)
		return ret;
	return il_kcheck_run_us("windows x window_us",
				p->windows * p->window_us);
}

static int gi_setup(struct il_run *run)
{
	const struct gi_params *p = run->params;
	struct gi_state *st;
	int ret;

	ret = il_bench_state_new(run, sizeof(*st), NULL);
	if (ret)
		return ret;
	st = run->priv;
	st->p = p;
	/* IRQs off for long windows: not on a housekeeping CPU unless named. */
	il_housekeeping_drop(run, &st->pl, 0);
	if (!st->pl.n) {
		gi_teardown(run);
		return il_errorf(-EINVAL, "gaps_irqoff: no CPU left once the housekeeping CPUs (CPU 0, the harness's own) are left out: name the CPUs in --cpus");
	}
	st->buf = calloc(p->max_records, sizeof(*st->buf));
	if (!st->buf) {
		gi_teardown(run);
		return il_errorf(-ENOMEM, "out of memory");
	}
	return 0;
}

/* The per-CPU series gi_cpu() fills, one timed value per record. */
struct gi_series {
	struct il_series *gap, *gap_nmi, *gap_smi, *win, *win_nmi, *win_smi;
};

static int gi_series_new(struct il_run *run, int cpu, struct gi_series *g)
{
	g->gap = il_run_series(run, "gap", "ns", cpu, -1, -1, true);
	g->gap_nmi = il_run_series(run, "gap_nmi", "count", cpu, -1, -1, true);
	g->gap_smi = il_run_series(run, "gap_smi", "count", cpu, -1, -1, true);
	g->win = il_run_series(run, "gap_window", "ns", cpu, -1, -1, true);
	g->win_nmi = il_run_series(run, "window_nmi", "count", cpu, -1, -1,
				   true);
	g->win_smi = il_run_series(run, "window_smi", "count", cpu, -1, -1,
				   true);
	if (!g->gap || !g->gap_nmi || !g->gap_smi || !g->win || !g->win_nmi ||
	    !g->win_smi)
		return il_errorf(-ENOMEM, "out of memory for a series");
	return 0;
}

static int gi_cpu(struct il_run *run, struct gi_state *st, int cpu,
		  uint64_t t0)
{
	const struct gi_params *p = st->p;
	struct idlelab_gaps_req r;
	struct gi_series gs;
	uint64_t k, n = 0, nwin = 0, smi = 0;
	bool smi_ok = true;
	int ret;

	ret = gi_series_new(run, cpu, &gs);
	if (ret)
		return ret;
	il_kreq_init(&r, sizeof(r));
	r.cpu = (__u32)cpu;
	r.width_us = (__u32)p->width_us;
	r.window_us = (__u32)p->window_us;
	r.nr_windows = (__u32)p->windows;
	r.threshold_ns = p->threshold_ns;
	r.nr_samples = (__u32)p->max_records;
	r.samples = (__u64)(uintptr_t)st->buf;
	ret = il_kdev_ioctl(run->kdev, IDLELAB_IOC_GAPS, &r, "GAPS");
	if (ret)
		return ret;
	run->tsc_khz = r.tsc_khz;
	for (k = 0; k < r.nr_done && k < r.nr_samples; k++) {
		const struct idlelab_gap_sample *g = &st->buf[k];
		uint64_t t = g->t > t0 ? il_kcyc_ns(g->t - t0, r.tsc_khz) : 0;
		bool sv = g->flags & IDLELAB_GAP_F_SMI_VALID;

		if (g->cpu != (__u32)cpu || (g->kind != IDLELAB_GAP_KIND_GAP &&
					     g->kind != IDLELAB_GAP_KIND_WINDOW))
			return il_errorf(-EIO, "GAPS on CPU %d: a record for CPU %u kind %u",
					 cpu, g->cpu, g->kind);
		if (g->kind == IDLELAB_GAP_KIND_WINDOW) {
			il_series_add_timed(gs.win, t,
					    il_kcyc_ns(g->len, r.tsc_khz));
			il_series_add_timed(gs.win_nmi, t, g->nmi);
			if (sv) {
				il_series_add_timed(gs.win_smi, t, g->smi);
				smi += g->smi;
			} else {
				smi_ok = false;
			}
			nwin++;
			continue;
		}
		il_series_add_timed(gs.gap, t, il_kcyc_ns(g->len, r.tsc_khz));
		il_series_add_timed(gs.gap_nmi, t, g->gap_nmi);
		if (sv)
			il_series_add_timed(gs.gap_smi, t, g->smi);
		n++;
	}
	/* The module's buffer was full: those gaps are lost. */
	il_summary_drop(&gs.gap->sum, IL_DROP_LOST, r.dropped);
	il_run_attr(run, cpu, "loop_period_ns", "%.3f",
		    r.tsc_khz ? (double)r.loop_period * 1e6 / r.tsc_khz : 0.0);
	il_run_attr(run, cpu, "loop_period_cycles", "%" PRIu64,
		    (uint64_t)r.loop_period);
	il_run_attr(run, cpu, "nmi_count", "%" PRIu64, (uint64_t)r.nmi_count);
	if (smi_ok && nwin)
		il_run_attr(run, cpu, "smi_count", "%" PRIu64, smi);
	else
		il_run_attr(run, cpu, "smi_count",
			    "unavailable: MSR 0x34 not readable");
	il_run_attr(run, cpu, "gaps", "%" PRIu64, n);
	il_run_attr(run, cpu, "windows_observed", "%" PRIu64, nwin);
	il_run_attr(run, cpu, "dropped_records", "%u", r.dropped);
	if (cpu == st->pl.cpus[0])
		il_khw_attrs(run, r.hw_flags, false);
	/*
	 * A Xen PV guest's cli masks event channels only: Xen's interrupts
	 * and its vCPU scheduling still land inside the windows, so the gaps
	 * say what a dom0 sees, not what the CPU does with IRQs off.
	 */
	if (cpu == st->pl.cpus[0] && (r.hw_flags & IDLELAB_HW_XEN_PV))
		il_run_attr(run, -1, "irqs_off_scope",
			    "event-channel masking (Xen PV guest): Xen's own interrupts and vCPU scheduling still run");
	return 0;
}

static int gi_run(struct il_run *run)
{
	struct gi_state *st = run->priv;
	/* The user-space TSC is the module's: one time base for all CPUs. */
	uint64_t t0 = il_rdtsc_ordered();
	int i, ret;

	run->t0_tsc = t0;	/* --causes: the gaps' time base */
	for (i = 0; i < st->pl.n && !il_stop_requested(); i++) {
		ret = gi_cpu(run, st, st->pl.cpus[i], t0);
		if (ret)
			return ret;
	}
	return 0;
}

/* windows x window_us on each CPU, one CPU after another. */
static uint64_t gi_estimate_ns(const void *params,
			       const struct il_placement *place)
{
	const struct gi_params *p = params;

	return p->windows * p->window_us * 1000ULL *
	       (uint64_t)il_bench_measured(place);
}

const struct il_bench_ops il_bench_gaps_irqoff = {
	.name = "gaps_irqoff",
	.summary = "TSC gaps with IRQs off in bounded windows, per CPU, hwlat's method (idlelab_cstate module)",
	.timestamps = "gap: two consecutive TSC reads of the module's IRQs-off spin loop more than threshold_ns apart, stored with the time of the first",
	.flags = IL_BF_KMOD,	/* needs /dev/idlelab_cstate */
	.default_cpus = "all",
	.opts = gi_opts,
	.params_size = sizeof(struct gi_params),
	.kdev = IDLELAB_DEV_CSTATE,	/* the runner opens it around setup/teardown */
	.setup = gi_setup,
	.run = gi_run,
	.teardown = gi_teardown,
	.estimate_ns = gi_estimate_ns,
	.check = gi_check,
};
