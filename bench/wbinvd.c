// SPDX-License-Identifier: GPL-2.0-only
/*
 * wbinvd.c - what a WBINVD costs, on its own CPU and on the others, through
 * the idlelab_cstate module (seed 000: a C3 entry that ran WBINVD every
 * time, 65-69 us each, and TSC gaps of up to 222 us on other CPUs).
 *
 * mode=sweep: on each placed CPU in turn the module dirties each footprint
 * and times WBINVD (or WBNOINVD with noinvd), reps times.  wbinvd_time is
 * taken between two TSC reads in the module, just before and just after
 * the instruction; one series per CPU and footprint (group = footprint in
 * KiB).
 *
 * mode=blast: the first placed CPU is the aggressor, the others victims.
 * Each victim spins reading the TSC with IRQs off in bounded windows of
 * width_us, as gaps_irqoff does, while the aggressor dirties dirty_bytes
 * and runs WBINVD every interval_us, reps times.  victim_gap is taken
 * between two consecutive TSC reads of a victim's loop that are more than
 * threshold_ns apart, stored with its time (ns since the run began, one
 * time base for every CPU) so that gaps line up with the aggressor's
 * WBINVDs, themselves stored as the timed series wbinvd_time of the
 * aggressor.  All times are TSC cycles converted with the module's tsc_khz.
 * The victims keep IRQs off width_us in every window_us (hwlat's duty
 * cycle); each window's start and length is the timed series
 * victim_window, so a window without gaps is told from one never observed.
 * Each victim gap has its NMI and SMI counts since the previous read
 * (victim_gap_nmi, victim_gap_smi, timed like victim_gap).
 *
 * Under a hypervisor a WBINVD under 1 us did nothing: it is counted in
 * wbinvd_noop and left out of wbinvd_time rather than reported as a cost.
 * wbinvd_reaches_sharers records CPUID.4:EDX[0] of the last cache level.
 */
#include "bench.h"
#include "common.h"
#include "err.h"
#include "kclient.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const wb_modes[] = { "sweep", "blast", NULL };

_Static_assert(IDLELAB_WBINVD_SWEEP == 0 && IDLELAB_WBINVD_BLAST == 1,
	       "wb_modes order");

/* Gap records the blast mode can return per request. */
#define WB_MAX_RECORDS	1000000

struct wb_params {
	int mode;
	struct il_u64_list footprints;
	uint64_t reps;
	bool noinvd;
	uint64_t interval_us;
	uint64_t dirty_bytes;
	uint64_t width_us;
	uint64_t window_us;
	uint64_t threshold_ns;
	uint64_t max_records;
};

static const struct il_opt wb_opts[] = {
	{ .name = "mode", .type = IL_OPT_ENUM,
	  .offset = offsetof(struct wb_params, mode), .def = "sweep",
	  .unit = "", .choices = wb_modes,
	  .help = "sweep: WBINVD cost against dirty footprint on each placed CPU; blast: gaps on the other placed CPUs while the first runs WBINVD" },
	{ .name = "footprints", .type = IL_OPT_LIST,
	  .offset = offsetof(struct wb_params, footprints),
	  .min = 0, .max = IDLELAB_MAX_DIRTY_BYTES,
	  .def = "0,65536,1048576,16777216", .unit = "bytes",
	  .help = "sweep: bytes dirtied before each timed WBINVD (series group = KiB)" },
	{ .name = "reps", .type = IL_OPT_U64,
	  .offset = offsetof(struct wb_params, reps),
	  .min = 1, .max = IDLELAB_MAX_REPS, .def = "100", .unit = "count",
	  .help = "sweep: WBINVDs per footprint; blast: WBINVDs on the aggressor",
	  .scale = true },
	{ .name = "noinvd", .type = IL_OPT_BOOL,
	  .offset = offsetof(struct wb_params, noinvd), .def = "false",
	  .unit = "",
	  .help = "sweep: time WBNOINVD instead (unsupported where CPUID lacks it)" },
	{ .name = "interval_us", .type = IL_OPT_U64,
	  .offset = offsetof(struct wb_params, interval_us),
	  .min = 1, .max = IDLELAB_MAX_INTERVAL_US, .def = "7000",
	  .unit = "us",
	  .help = "blast: time between two WBINVDs (seed 000: ~140/s)" },
	{ .name = "dirty_bytes", .type = IL_OPT_U64,
	  .offset = offsetof(struct wb_params, dirty_bytes),
	  .min = 0, .max = IDLELAB_MAX_DIRTY_BYTES, .def = "16777216",
	  .unit = "bytes", .help = "blast: bytes dirtied before each WBINVD" },
	{ .name = "width_us", .type = IL_OPT_U64,
	  .offset = offsetof(struct wb_params, width_us),
	  .min = 1, .max = IDLELAB_MAX_WIDTH_US, .def = "10000", .unit = "us",
	  .help = "blast: length of each IRQs-off window of the victims" },
	{ .name = "window_us", .type = IL_OPT_U64,
	  .offset = offsetof(struct wb_params, window_us),
	  .min = 2, .max = IDLELAB_MAX_WINDOW_US, .def = "20000", .unit = "us",
	  .help = "blast: period of the victims' windows, at least twice width_us (hwlat's duty cycle: IRQs on for the rest)" },
	{ .name = "threshold_ns", .type = IL_OPT_U64,
	  .offset = offsetof(struct wb_params, threshold_ns),
	  .min = 100, .max = 1000000000, .def = "2000", .unit = "ns",
	  .help = "blast: the smallest victim TSC gap recorded" },
	{ .name = "max_records", .type = IL_OPT_U64,
	  .offset = offsetof(struct wb_params, max_records),
	  .min = 1, .max = WB_MAX_RECORDS, .def = "100000", .unit = "count",
	  .help = "blast: gap records kept; beyond, counted as dropped" },
	IL_OPT_END
};

struct wb_state {
	struct il_bench_placed pl;	/* first: il_bench_state_new() */
};

/* blast needs an aggressor and a victim, among the distinct CPUs of any
 * placement (the check op, again in setup). */
static int wb_check_cpus(const void *params, int ncpus)
{
	const struct wb_params *p = params;

	if (p->mode == IDLELAB_WBINVD_BLAST && ncpus < 2)
		return il_errorf(-EINVAL, "mode=blast needs an aggressor and at least one victim CPU (--cpus all, or e.g. 0-3)");
	return 0;
}

/*
 * A blast's victims leave the housekeeping CPUs out unless named, and
 * keep within the module's cap (uapi/idlelab.h, nr_victims): one online
 * CPU besides the aggressor is no victim.  An implicit set is cut to fit
 * (the highest victims go); a named one over the cap is refused here with
 * the reason rather than by the module's bare -EINVAL.
 */
static int wb_setup(struct il_run *run)
{
	const struct wb_params *p = run->params;
	struct wb_state *st;
	int ret, cap;

	ret = il_bench_state_new(run, sizeof(struct wb_state), wb_check_cpus);
	if (ret || p->mode != IDLELAB_WBINVD_BLAST)
		return ret;
	st = run->priv;
	cap = il_topo_ncpus_online(run->topo) - 2;
	il_housekeeping_drop(run, &st->pl, 1);
	if (st->pl.n - 1 > cap && il_housekeeping_named(run))
		ret = il_errorf(-EINVAL, "mode=blast: %d victims, but at most %d on %d online CPUs: one CPU besides the aggressor stays out of a blast",
				st->pl.n - 1, cap < 0 ? 0 : cap, cap + 2);
	else if (st->pl.n - 1 > cap)
		st->pl.n = cap + 1 > 0 ? cap + 1 : 0;
	if (!ret)
		ret = wb_check_cpus(p, st->pl.n);
	if (ret)
		il_bench_state_free(run);
	return ret;
}

static int wb_sweep_cpu(struct il_run *run, int cpu, bool first)
{
	const struct wb_params *p = run->params;
	struct il_series *s[IL_LIST_MAX];
	struct idlelab_wbinvd_sample *buf;
	struct idlelab_wbinvd_req r;
	uint64_t fp[IL_LIST_MAX];
	uint64_t unsup = 0, noop = 0, smi = 0, k;
	bool smi_ok = true;
	int i, j, ret;

	for (i = 0; i < p->footprints.n; i++) {
		fp[i] = p->footprints.v[i];
		s[i] = il_run_series(run, "wbinvd_time", "ns", cpu, -1,
				     (int64_t)(fp[i] / 1024), false);
		if (!s[i])
			return il_errorf(-ENOMEM, "out of memory for a series");
	}
	buf = calloc(p->reps * (uint64_t)p->footprints.n, sizeof(*buf));
	if (!buf)
		return il_errorf(-ENOMEM, "out of memory");
	il_kreq_init(&r, sizeof(r));
	r.mode = IDLELAB_WBINVD_SWEEP;
	r.cpu = (__u32)cpu;
	r.flags = p->noinvd ? IDLELAB_WBINVD_F_NOINVD : 0;
	r.nr_footprints = (__u32)p->footprints.n;
	r.footprints = (__u64)(uintptr_t)fp;
	r.reps = (__u32)p->reps;
	r.nr_samples = (__u32)(p->reps * (uint64_t)p->footprints.n);
	r.samples = (__u64)(uintptr_t)buf;
	ret = il_kdev_ioctl(run->kdev, IDLELAB_IOC_WBINVD, &r, "WBINVD sweep");
	if (ret)
		goto out;
	if (r.unsupported) {
		ret = il_errorf(-EOPNOTSUPP, "%s on CPU %d: %s (module reason %u)",
				p->noinvd ? "WBNOINVD" : "WBINVD", cpu,
				il_kunsup_str(r.unsupported), r.unsupported);
		goto out;
	}
	if (!run->tsc_khz)
		run->tsc_khz = r.tsc_khz;
	for (k = 0; k < r.nr_done && k < r.nr_samples; k++) {
		if (buf[k].flags & IDLELAB_SAMPLE_UNSUPPORTED) {
			unsup++;
			continue;
		}
		for (j = 0; j < p->footprints.n; j++)
			if (fp[j] == buf[k].dirty_bytes)
				break;
		if (j == p->footprints.n) {
			ret = il_errorf(-EIO, "WBINVD sweep on CPU %d: a record for %" PRIu64 " bytes, not a requested footprint",
					cpu, (uint64_t)buf[k].dirty_bytes);
			goto out;
		}
		if (buf[k].flags & IDLELAB_SAMPLE_SMI_VALID)
			smi += buf[k].smi;
		else
			smi_ok = false;
		if (buf[k].flags & IDLELAB_SAMPLE_WBINVD_NOOP) {
			noop++;
			il_series_drop(s[j], IL_DROP_RACE);
			continue;
		}
		il_series_add(s[j], il_kcyc_ns(buf[k].cycles, r.tsc_khz));
	}
	il_run_attr(run, cpu, "unsupported_samples", "%" PRIu64, unsup);
	il_run_attr(run, cpu, "wbinvd_noop", "%" PRIu64, noop);
	if (smi_ok)
		il_run_attr(run, cpu, "smi_count", "%" PRIu64, smi);
	else
		il_run_attr(run, cpu, "smi_count",
			    "unavailable: MSR 0x34 not readable");
	il_run_attr(run, cpu, "numa_node", "%u", r.node);
	if (r.mem_flags)
		il_khw_node_attr(run, cpu, "dirty_node", r.mem_node,
				 r.mem_flags);
	il_khw_calib_attrs(run, cpu, r.cpuid_cycles, r.noop_cycles,
			   r.hw_flags);
	if (first)
		il_khw_attrs(run, r.hw_flags, true);
	if (r.nr_done && unsup == r.nr_done)
		ret = il_errorf(-EOPNOTSUPP, "%s on CPU %d: every sample came back unsupported",
				p->noinvd ? "WBNOINVD" : "WBINVD", cpu);
	else if (r.nr_done < r.nr_samples)
		ret = il_errorf(-EIO, "WBINVD sweep on CPU %d returned %u of %u samples",
				cpu, r.nr_done, r.nr_samples);
out:
	free(buf);
	return ret;
}

/* A victim's series: its gaps, their NMI and SMI counts, its windows. */
struct wb_victim {
	struct il_series *gap, *nmi, *smi, *win;
	uint64_t gaps, windows;
};

static int wb_victim_new(struct il_run *run, int cpu, struct wb_victim *v)
{
	v->gap = il_run_series(run, "victim_gap", "ns", cpu, -1, -1, true);
	v->nmi = il_run_series(run, "victim_gap_nmi", "count", cpu, -1, -1,
			       true);
	v->smi = il_run_series(run, "victim_gap_smi", "count", cpu, -1, -1,
			       true);
	v->win = il_run_series(run, "victim_window", "ns", cpu, -1, -1, true);
	if (!v->gap || !v->nmi || !v->smi || !v->win)
		return il_errorf(-ENOMEM, "out of memory for a series");
	return 0;
}

/* One victim record (a gap or a window) at @t ns. */
static void wb_victim_add(struct wb_victim *v,
			  const struct idlelab_gap_sample *g, uint64_t t,
			  uint32_t khz)
{
	if (g->kind == IDLELAB_GAP_KIND_WINDOW) {
		il_series_add_timed(v->win, t, il_kcyc_ns(g->len, khz));
		v->windows++;
		return;
	}
	v->gaps++;
	il_series_add_timed(v->gap, t, il_kcyc_ns(g->len, khz));
	il_series_add_timed(v->nmi, t, g->gap_nmi);
	if (g->flags & IDLELAB_GAP_F_SMI_VALID)
		il_series_add_timed(v->smi, t, g->smi);
}

static int wb_blast(struct il_run *run, struct wb_state *st)
{
	const struct wb_params *p = run->params;
	struct wb_victim *vs;
	struct il_series *ev;
	struct idlelab_gap_sample *buf;
	struct idlelab_wbinvd_req r;
	uint32_t *victims;
	uint64_t t0 = 0, k, noop = 0;
	int aggr = st->pl.cpus[0], nv = st->pl.n - 1, i, ret = 0;

	vs = calloc((size_t)nv, sizeof(*vs));
	victims = calloc((size_t)nv, sizeof(*victims));
	buf = calloc(p->max_records, sizeof(*buf));
	ev = il_run_series(run, "wbinvd_time", "ns", aggr, -1, -1, true);
	if (!vs || !victims || !buf || !ev) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nv; i++) {
		victims[i] = (uint32_t)st->pl.cpus[i + 1];
		ret = wb_victim_new(run, st->pl.cpus[i + 1], &vs[i]);
		if (ret)
			goto out;
	}
	il_kreq_init(&r, sizeof(r));
	r.mode = IDLELAB_WBINVD_BLAST;
	r.cpu = (__u32)aggr;
	r.reps = (__u32)p->reps;
	r.interval_us = (__u32)p->interval_us;
	r.dirty_bytes = p->dirty_bytes;
	r.nr_victims = (__u32)nv;
	r.width_us = (__u32)p->width_us;
	r.window_us = (__u32)p->window_us;
	r.victims = (__u64)(uintptr_t)victims;
	r.threshold_ns = p->threshold_ns;
	r.nr_samples = (__u32)p->max_records;
	r.samples = (__u64)(uintptr_t)buf;
	ret = il_kdev_ioctl(run->kdev, IDLELAB_IOC_WBINVD, &r, "WBINVD blast");
	if (ret)
		goto out;
	if (r.unsupported) {
		ret = il_errorf(-EOPNOTSUPP, "WBINVD blast from CPU %d: %s (module reason %u)",
				aggr, il_kunsup_str(r.unsupported),
				r.unsupported);
		goto out;
	}
	run->tsc_khz = r.tsc_khz;
	/* The run's time base: the earliest record, on every CPU. */
	for (k = 0; k < r.nr_done && k < r.nr_samples; k++)
		if (!t0 || buf[k].t < t0)
			t0 = buf[k].t;
	run->t0_tsc = t0;	/* --causes: the gaps' time base */
	for (k = 0; k < r.nr_done && k < r.nr_samples; k++) {
		const struct idlelab_gap_sample *g = &buf[k];
		uint64_t t = il_kcyc_ns(g->t - t0, r.tsc_khz);

		if (g->kind == IDLELAB_GAP_KIND_WBINVD) {
			if (g->flags & IDLELAB_GAP_F_WBINVD_NOOP) {
				noop++;
				il_series_drop(ev, IL_DROP_RACE);
				continue;
			}
			il_series_add_timed(ev, t, il_kcyc_ns(g->len, r.tsc_khz));
			continue;
		}
		for (i = 0; i < nv; i++)
			if (victims[i] == g->cpu)
				break;
		if (i == nv) {
			ret = il_errorf(-EIO, "WBINVD blast: a gap record for CPU %u, not a victim",
					g->cpu);
			goto out;
		}
		wb_victim_add(&vs[i], g, t, r.tsc_khz);
	}
	il_run_attr(run, -1, "aggressor_cpu", "%d", aggr);
	il_run_attr(run, -1, "dropped_records", "%u", r.dropped);
	il_run_attr(run, -1, "wbinvd_noop", "%" PRIu64, noop);
	il_run_attr(run, -1, "numa_node", "%u", r.node);
	if (r.mem_flags)
		il_khw_node_attr(run, -1, "dirty_node", r.mem_node,
				 r.mem_flags);
	il_khw_calib_attrs(run, aggr, r.cpuid_cycles, r.noop_cycles,
			   r.hw_flags);
	il_khw_attrs(run, r.hw_flags, true);
	for (i = 0; i < nv; i++) {
		il_run_attr(run, (int)victims[i], "victim_gaps", "%" PRIu64,
			    vs[i].gaps);
		il_run_attr(run, (int)victims[i], "windows_observed",
			    "%" PRIu64, vs[i].windows);
	}
out:
	free(vs);
	free(victims);
	free(buf);
	return ret;
}

static int wb_run(struct il_run *run)
{
	const struct wb_params *p = run->params;
	struct wb_state *st = run->priv;
	int i, ret;

	il_run_attr(run, -1, "mode", "%s", wb_modes[p->mode]);
	if (p->mode == IDLELAB_WBINVD_BLAST)
		return wb_blast(run, st);
	for (i = 0; i < st->pl.n && !il_stop_requested(); i++) {
		ret = wb_sweep_cpu(run, st->pl.cpus[i], i == 0);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * sweep: about 500 us per dirtied-and-timed WBINVD, per footprint, one CPU
 * after another; blast: reps WBINVDs interval_us apart on the aggressor.
 */
static uint64_t wb_estimate_ns(const void *params,
			       const struct il_placement *place)
{
	const struct wb_params *p = params;

	if (p->mode == IDLELAB_WBINVD_BLAST)
		return p->reps * p->interval_us * 1000ULL;
	return p->reps * (uint64_t)p->footprints.n * 500000ULL *
	       (uint64_t)il_bench_measured(place);
}

/*
 * The module's worst case of a sweep on one CPU: every footprint's reps,
 * each dirtied and written back at IDLELAB_DIRTY_REP_US().
 */
static int wb_check_sweep(const struct wb_params *p)
{
	uint64_t us = 0;
	int i;

	for (i = 0; i < p->footprints.n; i++)
		us += IDLELAB_DIRTY_REP_US(p->footprints.v[i]);
	return il_kcheck_run_us("mode=sweep: reps x the dirty and write-back of every footprint",
				p->reps * us);
}

/* The module refuses a run longer than IDLELAB_MAX_RUN_US. */
static int wb_check(const void *params, const struct il_placement *place)
{
	const struct wb_params *p = params;
	int ret;

	if (p->mode != IDLELAB_WBINVD_BLAST)
		return wb_check_sweep(p);
	ret = il_kcheck_duty(p->width_us, p->window_us);
	if (ret)
		return ret;
	/* The module's own floor, so --dry-run refuses it too. */
	ret = il_kcheck_threshold_ns(p->threshold_ns);
	if (ret)
		return ret;
	/*
	 * The module's worst case: the start wait, each repetition's memset
	 * and write-back and its interval with the slack, one window.
	 */
	ret = il_kcheck_run_us("mode=blast: victim start wait + reps x (interval_us (+1/8 slack) + dirty and write-back of dirty_bytes) + window_us",
			       IDLELAB_BLAST_START_US + p->reps *
			       (p->interval_us + p->interval_us / 8 + 1 +
				IDLELAB_DIRTY_REP_US(p->dirty_bytes)) +
			       p->window_us);
	if (ret || !place)
		return ret;
	return wb_check_cpus(p, il_place_cpus(place, NULL, 0));
}

const struct il_bench_ops il_bench_wbinvd = {
	.name = "wbinvd",
	.summary = "WBINVD cost against the dirty footprint, and its blast radius: IRQs-off TSC gaps on other CPUs meanwhile (idlelab_cstate module)",
	.timestamps = "wbinvd_time: TSC just before and just after WBINVD (or WBNOINVD) in the module; victim_gap: two consecutive TSC reads of a victim's IRQs-off loop more than threshold_ns apart",
	.flags = IL_BF_KMOD,	/* needs /dev/idlelab_cstate */
	.default_cpus = "0",
	.opts = wb_opts,
	.params_size = sizeof(struct wb_params),
	.kdev = IDLELAB_DEV_CSTATE,	/* the runner opens it around setup/teardown */
	.setup = wb_setup,
	.run = wb_run,
	.teardown = il_bench_state_free,
	.estimate_ns = wb_estimate_ns,
	.check = wb_check,
};
