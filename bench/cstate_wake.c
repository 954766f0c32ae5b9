// SPDX-License-Identifier: GPL-2.0-only
/*
 * cstate_wake.c - the raw cost of leaving an idle state, entered by the
 * idlelab_cstate module itself (HLT, MWAIT(hint), an ACPI _CST state or a
 * poll loop) on a pinned kthread, woken by an hrtimer or by an IPI from
 * another CPU.  method=acpi enters the state cst_state=N the kernel's ACPI
 * processor driver parsed from _CST (acpi_idle's CN) as acpi_idle does: an
 * I/O port read with IRQs off (t_intr after t_exit) or HLT, with the
 * bus-master handling bm asks for; what the module entered is stored
 * with the run (cstate_wake_states.c).
 *
 * Each sample carries four TSC reads taken in the kernel: t_launch (the
 * hrtimer was due, or the IPI was sent), t_entry (just before the idle
 * instruction), t_intr (the first instruction of the module's interrupt
 * callback) and t_exit (the first instruction after the idle instruction).
 * Two figures are derived, each between two of them (DESIGN.md):
 *   wake_latency = t_exit - t_launch
 *   intr_latency = t_intr - t_launch
 * converted to ns with the tsc_khz the module reports (stored as the run's
 * tsc_khz).  With IRQ early (sti before the idle instruction) the callback
 * runs before the instruction returns, so t_intr < t_exit; with IRQ late
 * (MWAIT with the interrupt-break hint, IRQs off, sti after) t_exit <
 * t_intr.  The counts of both orders are recorded per CPU, so a test can
 * assert the semantics from the dataset.  So is where t_entry was taken,
 * judged against t_launch (entry_lead_*, cstate_wake_lead.c).
 *
 * Samples that are not a wake by our event are counted apart, never mixed
 * into the latencies: a wake before t_launch is *early*; a wake by another
 * interrupt, or one whose callback never ran, is *dropped*; so is a sample
 * whose event was due before t_entry (late_entries: e.g. WBINVD took longer
 * than L, so the CPU was busy, not idle, when the event came).  Under a
 * hypervisor a WBINVD under 1 us or an MWAIT that returned at once without
 * a wake is a no-op, counted (wbinvd_noop, mwait_noop), never a cost.  The
 * module reads the core and package C-state residency counters and
 * APERF/MPERF around each sample; their shares of the sampled spans are
 * stored per CPU (res_*_pct, or unsupported with the reason) with hw_state,
 * the state the hardware says it entered, beside idle_state, the one asked
 * for.  With wbinvd on,
 * the module dirties dirty_bytes and times a WBINVD before each entry (the
 * C3 entry of seed 000): series wbinvd_time.  SMI (MSR 0x34) and NMI count
 * deltas are summed into run attributes where the module could read them.
 *
 * The placement is a list of measured CPUs (hrtimer wakes), measured one
 * after the other since the module runs one request at a time, or CPU
 * pairs SENDER-MEASURED (IPI wakes).  A request the CPU cannot run (MWAIT
 * absent, or MWAIT with ECX != 0 faulting as under QEMU's TCG) is stored as
 * unsupported with the module's reason: only running it can tell.
 */
#include "bench.h"
#include "common.h"
#include "cstate_wake.h"
#include "err.h"
#include "kclient.h"
#include "sysfs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cw_methods[] = { "hlt", "mwait", "poll", "acpi",
					  NULL };
static const char *const cw_sources[] = { "timer", "ipi", NULL };
static const char *const cw_irq_modes[] = { "early", "late", NULL };

/* Enum indices are the UAPI values. */
_Static_assert(IDLELAB_METHOD_HLT == 0 && IDLELAB_METHOD_MWAIT == 1 &&
	       IDLELAB_METHOD_POLL == 2 && IDLELAB_METHOD_ACPI == 3,
	       "cw_methods order");
_Static_assert(IDLELAB_WAKE_HRTIMER == 0 && IDLELAB_WAKE_IPI == 1,
	       "cw_sources order");
_Static_assert(IDLELAB_IRQ_EARLY == 0 && IDLELAB_IRQ_LATE == 1,
	       "cw_irq_modes order");

struct cw_params {
	int method;
	uint64_t mwait_hint;
	uint64_t cst_state;
	int bm;
	int wake_source;
	int irq_mode;
	uint64_t launch_min_ns;
	uint64_t launch_max_ns;
	bool wbinvd;
	uint64_t dirty_bytes;
	bool reenter;
	bool policy_override;
	uint64_t samples;
	uint64_t seed;
};

static const struct il_opt cw_opts[] = {
	{ .name = "method", .type = IL_OPT_ENUM,
	  .offset = offsetof(struct cw_params, method), .def = "hlt",
	  .unit = "", .choices = cw_methods,
	  .help = "idle instruction: hlt (sti; hlt), mwait (MONITOR + MWAIT(mwait_hint)), poll (spin on the wake flag) or acpi (the _CST state cst_state, entered as acpi_idle enters it)" },
	{ .name = "mwait_hint", .type = IL_OPT_U64,
	  .offset = offsetof(struct cw_params, mwait_hint),
	  .min = 0, .max = 0xff, .def = "0", .unit = "",
	  .help = "EAX of MWAIT (bits 7:4 C-state - 1, 3:0 sub-state; see CPUID leaf 5 and the cpuidle table's 'MWAIT 0x..' descriptions)" },
	{ .name = "cst_state", .type = IL_OPT_U64,
	  .offset = offsetof(struct cw_params, cst_state),
	  .min = 0, .max = IDLELAB_ACPI_MAX_STATES - 1, .def = "0", .unit = "",
	  .omit_zero = true,
	  .help = "method=acpi: the _CST state N, acpi_idle's cpuidle state CN (1 is C1; see the cpuidle table's 'ACPI IOPORT 0x..' descriptions)" },
	{ .name = "bm", .type = IL_OPT_ENUM,
	  .offset = offsetof(struct cw_params, bm), .def = "kernel",
	  .unit = "", .choices = cw_bm_choices, .omit_zero = true,
	  .help = "method=acpi, before each entry: kernel (what acpi_idle does for the state: WBINVD for a C3 without bm_check), none, or flush (WBINVD, timed: wbinvd_time)" },
	{ .name = "wake_source", .type = IL_OPT_ENUM,
	  .offset = offsetof(struct cw_params, wake_source), .def = "timer",
	  .unit = "", .choices = cw_sources,
	  .help = "timer: a pinned hard hrtimer on the measured CPU; ipi: an IPI from the first CPU of each pair (--cpus pairs:SENDER-MEASURED)" },
	{ .name = "irq_mode", .type = IL_OPT_ENUM,
	  .offset = offsetof(struct cw_params, irq_mode), .def = "early",
	  .unit = "", .choices = cw_irq_modes,
	  .help = "early: sti before the idle instruction; late: MWAIT with the interrupt-break hint and IRQs off, sti after (needs method=mwait)" },
	{ .name = "launch_min_ns", .type = IL_OPT_U64,
	  .offset = offsetof(struct cw_params, launch_min_ns),
	  .min = 1000, .max = IDLELAB_MAX_LAUNCH_NS, .def = "100000",
	  .unit = "ns",
	  .help = "launch distance: from the idle entry's arming to the wake event (the lower bound if launch_max_ns is set)" },
	{ .name = "launch_max_ns", .type = IL_OPT_U64,
	  .offset = offsetof(struct cw_params, launch_max_ns),
	  .min = 0, .max = IDLELAB_MAX_LAUNCH_NS, .def = "0", .unit = "ns",
	  .help = "if not 0, each launch distance is uniformly random in [launch_min_ns, launch_max_ns]" },
	{ .name = "wbinvd", .type = IL_OPT_BOOL,
	  .offset = offsetof(struct cw_params, wbinvd), .def = "false",
	  .unit = "",
	  .help = "dirty dirty_bytes and run WBINVD (timed: wbinvd_time) before each entry, as a C3 entry does" },
	{ .name = "dirty_bytes", .type = IL_OPT_U64,
	  .offset = offsetof(struct cw_params, dirty_bytes),
	  .min = 0, .max = IDLELAB_MAX_DIRTY_BYTES, .def = "0",
	  .unit = "bytes", .help = "bytes dirtied before each WBINVD (with wbinvd)" },
	{ .name = "reenter", .type = IL_OPT_BOOL,
	  .offset = offsetof(struct cw_params, reenter), .def = "false",
	  .unit = "",
	  .help = "re-enter the idle instruction after a wake that was not ours until ours arrives (bounded; for emulators whose timer interrupts come early)" },
	{ .name = "policy_override", .type = IL_OPT_BOOL,
	  .offset = offsetof(struct cw_params, policy_override),
	  .def = "false", .unit = "", .omit_false = true,
	  .help = "enter HLT or MWAIT even where the kernel's idle policy forbids it (idle= boot option, the CPU's resume-latency PM QoS); stored with the run" },
	{ .name = "samples", .type = IL_OPT_U64,
	  .offset = offsetof(struct cw_params, samples),
	  .min = 1, .max = IDLELAB_MAX_SAMPLES, .def = "1000",
	  .unit = "count", .help = "idle entries measured per CPU",
	  .scale = true },
	{ .name = "seed", .type = IL_OPT_U64,
	  .offset = offsetof(struct cw_params, seed),
	  .min = 0, .max = UINT64_MAX, .def = "0", .unit = "",
	  .help = "seed of the random launch distances (recorded); 0 = from the clock" },
	IL_OPT_END
};

/* What one measured CPU adds up to over all its batches. */
struct cw_tally {
	uint64_t done, unsup, early, other, no_intr, reentries;
	uint64_t intr_before_exit, intr_after_exit;
	uint64_t late, wb_noop, mwait_noop, resched, stale, preempted, backstop;
	uint64_t smi, nmi, tsc_unstable;
	bool smi_valid, nmi_valid;
	uint32_t hw, res_avail, cpuid_cycles, noop_cycles;
	uint32_t dirty_node, dirty_flags;
	uint32_t acpi_out;
	struct il_khw_res res;
	struct cw_lead lead;	/* cstate_wake_lead.c */
};

struct cw_state {
	struct il_bench_placed pl;	/* first: il_bench_state_new() */
	const struct cw_params *p;
	int n;			/* measured CPUs */
	int *cpu;		/* measured */
	int *sender;		/* -1 for timer wakes */
	struct il_series **wake, **intr, **wb;
	struct idlelab_cstate_sample *buf;
	struct il_run *run;	/* for --causes notes (cw_account) */
	struct cw_lead_rule lead;	/* the bound on each sample's lead */
};

static void cw_teardown(struct il_run *run)
{
	struct cw_state *st = run->priv;

	if (st) {
		free(st->buf);
		free(st->wake);
		free(st->intr);
		free(st->wb);
		free(st->cpu);
		free(st->sender);
	}
	il_bench_state_free(run);
}

/* samples x the (mean) launch distance, one measured CPU after another. */
static uint64_t cw_estimate_ns(const void *params,
			       const struct il_placement *place)
{
	const struct cw_params *p = params;

	return p->samples * il_range_mean(p->launch_min_ns, p->launch_max_ns) *
	       (uint64_t)il_bench_measured(place);
}

static int cw_check(const void *params, const struct il_placement *place)
{
	const struct cw_params *p = params;
	int ret;

	/* launch_max_ns 0 is a fixed distance. */
	ret = p->launch_max_ns ?
	      il_check_not_below("launch_max_ns", p->launch_max_ns,
				 "launch_min_ns", p->launch_min_ns) : 0;
	if (ret)
		return ret;
	if (p->irq_mode == IDLELAB_IRQ_LATE &&
	    p->method != IDLELAB_METHOD_MWAIT)
		return il_errorf(-EINVAL, "parameter 'irq_mode': late needs method=mwait (only MWAIT can wake with IRQs off)");
	if ((p->method == IDLELAB_METHOD_ACPI) != (p->cst_state != 0))
		return il_errorf(-EINVAL, "parameter 'cst_state': method=acpi needs a _CST state 1-%d, and only it takes one",
				 IDLELAB_ACPI_MAX_STATES - 1);
	if (p->method == IDLELAB_METHOD_ACPI && p->wbinvd)
		return il_errorf(-EINVAL, "parameter 'wbinvd': method=acpi flushes as bm says (bm=flush times it)");
	if (place && p->wake_source == IDLELAB_WAKE_IPI &&
	    place->kind != IL_PLACE_PAIRS)
		return il_errorf(-EINVAL, "wake_source=ipi needs CPU pairs SENDER-MEASURED (e.g. --cpus pairs:0-1)");
	return 0;
}

/* Each entry is preceded by a timed WBINVD: wbinvd_time is stored. */
static bool cw_flushes(const struct cw_params *p)
{
	return p->method == IDLELAB_METHOD_ACPI ? p->bm == IDLELAB_ACPI_BM_FLUSH :
	       p->wbinvd;
}

static int cw_setup(struct il_run *run)
{
	const struct cw_params *p = run->params;
	struct cw_state *st;
	int i, ret;

	ret = il_bench_state_new(run, sizeof(*st), NULL);
	if (ret)
		return ret;
	st = run->priv;
	st->run = run;
	st->p = p;
	st->lead.wake_source = p->wake_source;
	st->lead.l_max = p->launch_max_ns > p->launch_min_ns ?
			 p->launch_max_ns : p->launch_min_ns;
	/* One measured CPU a pair (the second), else each placed CPU. */
	st->n = run->place.kind == IL_PLACE_PAIRS ? run->place.npairs :
		st->pl.n;
	st->cpu = calloc((size_t)st->n, sizeof(int));
	st->sender = calloc((size_t)st->n, sizeof(int));
	st->wake = calloc((size_t)st->n, sizeof(*st->wake));
	st->intr = calloc((size_t)st->n, sizeof(*st->intr));
	st->wb = calloc((size_t)st->n, sizeof(*st->wb));
	st->buf = calloc(IL_KBATCH, sizeof(*st->buf));
	if (!st->cpu || !st->sender || !st->wake || !st->intr || !st->wb ||
	    !st->buf) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < st->n; i++) {
		if (run->place.kind == IL_PLACE_PAIRS) {
			st->sender[i] = run->place.pairs[i].a;
			st->cpu[i] = run->place.pairs[i].b;
			if (p->wake_source != IDLELAB_WAKE_IPI)
				st->sender[i] = -1;
		} else {
			st->cpu[i] = st->pl.cpus[i];
			st->sender[i] = -1;
		}
		st->wake[i] = il_run_series(run, "wake_latency", "ns",
					    st->cpu[i], -1, -1, false);
		st->intr[i] = il_run_series(run, "intr_latency", "ns",
					    st->cpu[i], -1, -1, false);
		st->wb[i] = cw_flushes(p) ?
			    il_run_series(run, "wbinvd_time", "ns", st->cpu[i],
					  -1, -1, false) : NULL;
		if (!st->wake[i] || !st->intr[i] || (cw_flushes(p) && !st->wb[i])) {
			ret = il_errorf(-ENOMEM, "out of memory for a series");
			goto fail;
		}
	}
	return 0;
fail:
	cw_teardown(run);
	return ret;
}

static void cw_account(struct cw_state *st, int i,
		       const struct idlelab_cstate_sample *s, uint64_t khz,
		       struct cw_tally *t)
{
	uint32_t f = s->flags;

	t->done++;
	if (f & IDLELAB_SAMPLE_UNSUPPORTED) {
		t->unsup++;
		return;
	}
	il_khw_res_add(&t->res, s);
	t->reentries += s->reentries;
	t->resched += !!(f & IDLELAB_SAMPLE_RESCHED);
	t->mwait_noop += !!(f & IDLELAB_SAMPLE_MWAIT_NOOP);
	t->tsc_unstable += !!(f & IDLELAB_SAMPLE_TSC_UNSTABLE);
	if (f & IDLELAB_SAMPLE_SMI_VALID) {
		t->smi += s->smi_delta;
		t->smi_valid = true;
	}
	if (f & IDLELAB_SAMPLE_NMI_VALID) {
		t->nmi += s->nmi_delta;
		t->nmi_valid = true;
	}
	if ((f & IDLELAB_SAMPLE_WBINVD_NOOP) && st->wb[i]) {
		t->wb_noop++;
		il_series_drop(st->wb[i], IL_DROP_RACE);
	} else if ((f & IDLELAB_SAMPLE_WBINVD) && st->wb[i]) {
		il_series_add(st->wb[i], il_kcyc_ns(s->wbinvd_cycles, khz));
	}
	/* Switched out inside the window: the time is the scheduler's. */
	if (f & IDLELAB_SAMPLE_PREEMPTED) {
		t->preempted++;
		il_series_drop(st->wake[i], IL_DROP_RACE);
		il_series_drop(st->intr[i], IL_DROP_RACE);
		return;
	}
	/* The wake was lost; the module's backstop timer ended the idle. */
	if (f & IDLELAB_SAMPLE_BACKSTOP) {
		t->backstop++;
		il_series_drop(st->wake[i], IL_DROP_LOST);
		il_series_drop(st->intr[i], IL_DROP_LOST);
		return;
	}
	if (f & IDLELAB_SAMPLE_OTHER_IRQ) {
		t->other++;
		/* Another interrupt won the race to wake the CPU. */
		il_series_drop(st->wake[i], IL_DROP_RACE);
		il_series_drop(st->intr[i], IL_DROP_RACE);
		return;
	}
	if (s->t_intr && !(f & IDLELAB_SAMPLE_NO_INTR)) {
		if (s->t_intr < s->t_exit)
			t->intr_before_exit++;
		else
			t->intr_after_exit++;
	}
	if ((f & IDLELAB_SAMPLE_EARLY_WAKE) || s->t_exit < s->t_launch) {
		t->early++;
		il_series_early(st->wake[i]);
		il_series_early(st->intr[i]);
		return;
	}
	/* Due before the idle entry: no idle exit to time. */
	if (f & IDLELAB_SAMPLE_LATE_ENTRY) {
		t->late++;
		il_series_drop(st->wake[i], IL_DROP_OVERRUN);
		il_series_drop(st->intr[i], IL_DROP_OVERRUN);
		return;
	}
	il_series_add(st->wake[i], il_kcyc_ns(s->t_exit - s->t_launch, khz));
	cw_lead_add(&t->lead, &st->lead, s, khz);
	/* --causes: the window [t_launch, t_exit], with the module's counts. */
	il_causes_note_counts(st->run, st->wake[i], s->t_launch,
			      il_kcyc_ns(s->t_exit - s->t_launch, khz),
			      (uint32_t)s->smi_delta, s->nmi_delta,
			      (f & IDLELAB_SAMPLE_SMI_VALID ? IL_CAUSES_SMI_VALID : 0) |
			      (f & IDLELAB_SAMPLE_NMI_VALID ? IL_CAUSES_NMI_VALID : 0));
	if ((f & IDLELAB_SAMPLE_NO_INTR) || !s->t_intr) {
		t->no_intr++;
		il_series_drop(st->intr[i], IL_DROP_LOST);
	} else if (s->t_intr < s->t_launch) {
		il_series_early(st->intr[i]);
	} else {
		il_series_add(st->intr[i],
			      il_kcyc_ns(s->t_intr - s->t_launch, khz));
	}
}

/*
 * What the module did before each raw idle entry, as the kernel's own idle
 * entry does (kmod/README.md): the idle VERW (idle_verw, HLT and MWAIT)
 * and the CLFLUSH before MONITOR (clflush_monitor, MWAIT).  Stored as 0
 * too, so that a run without them says so rather than saying nothing.
 */
static void cw_idle_entry_attrs(struct il_run *run, int method, uint32_t hw)
{
	if (method == IDLELAB_METHOD_POLL)
		return;
	il_run_attr(run, -1, "idle_verw", "%d", !!(hw & IDLELAB_HW_IDLE_VERW));
	if (method == IDLELAB_METHOD_MWAIT)
		il_run_attr(run, -1, "clflush_monitor", "%d",
			    !!(hw & IDLELAB_HW_CLFLUSH_MONITOR));
}

static void cw_record(struct il_run *run, int cpu, const struct cw_tally *t)
{
	il_run_attr(run, cpu, "samples_done", "%" PRIu64, t->done);
	il_run_attr(run, cpu, "early_wakes", "%" PRIu64, t->early);
	il_run_attr(run, cpu, "other_irq_wakes", "%" PRIu64, t->other);
	il_run_attr(run, cpu, "no_intr", "%" PRIu64, t->no_intr);
	il_run_attr(run, cpu, "unsupported_samples", "%" PRIu64, t->unsup);
	il_run_attr(run, cpu, "reentries", "%" PRIu64, t->reentries);
	cw_lead_attrs(run, cpu, &t->lead);
	il_run_attr(run, cpu, "intr_before_exit", "%" PRIu64,
		    t->intr_before_exit);
	il_run_attr(run, cpu, "intr_after_exit", "%" PRIu64,
		    t->intr_after_exit);
	if (t->smi_valid)
		il_run_attr(run, cpu, "smi_count", "%" PRIu64, t->smi);
	else if (t->res.gate_why == IDLELAB_GATE_NOT_INTEL)
		il_run_attr(run, cpu, "smi_count",
			    "unsupported: MSR 0x34 is Intel's SMI count and this CPU is not Intel's: never read here");
	else
		il_run_attr(run, cpu, "smi_count",
			    "unavailable: MSR 0x34 not readable");
	if (t->nmi_valid)
		il_run_attr(run, cpu, "nmi_count", "%" PRIu64, t->nmi);
	else
		il_run_attr(run, cpu, "nmi_count", "unavailable");
	il_run_attr(run, cpu, "late_entries", "%" PRIu64, t->late);
	il_run_attr(run, cpu, "wbinvd_noop", "%" PRIu64, t->wb_noop);
	il_run_attr(run, cpu, "mwait_noop", "%" PRIu64, t->mwait_noop);
	il_run_attr(run, cpu, "reenter_resched_stops", "%" PRIu64, t->resched);
	il_run_attr(run, cpu, "stale_ipis", "%" PRIu64, t->stale);
	il_run_attr(run, cpu, "preempted_windows", "%" PRIu64, t->preempted);
	il_run_attr(run, cpu, "tsc_unstable_samples", "%" PRIu64,
		    t->tsc_unstable);
	il_khw_calib_attrs(run, cpu, t->cpuid_cycles, t->noop_cycles,
			   t->hw);
	if (t->dirty_flags)
		il_khw_node_attr(run, cpu, "dirty_node", t->dirty_node,
				 t->dirty_flags);
	il_run_attr(run, cpu, "backstop_samples", "%" PRIu64, t->backstop);
}

/*
 * Samples per request: the module refuses one whose worst case (every
 * sample waiting its full bound) is over IDLELAB_MAX_RUN_US.
 */
static uint64_t cw_batch(uint64_t launch_max_ns)
{
	uint64_t per = (launch_max_ns + IDLELAB_CSTATE_WAIT_NS) / 1000;
	uint64_t n = IDLELAB_MAX_RUN_US / per;

	return n < IL_KBATCH ? n : IL_KBATCH;
}

/* One measured CPU: its samples in batches of IL_KBATCH requests. */
static int cw_one(struct il_run *run, struct cw_state *st, int i,
		  uint64_t *seed, struct cw_tally *t)
{
	const struct cw_params *p = st->p;
	struct idlelab_cstate_req r;
	uint64_t left = p->samples, k, batch;
	int ret;

	batch = cw_batch(p->launch_max_ns > p->launch_min_ns ?
			 p->launch_max_ns : p->launch_min_ns);
	while (left && !il_stop_requested()) {
		il_kreq_init(&r, sizeof(r));
		r.cpu = (__u32)st->cpu[i];
		r.sender_cpu = st->sender[i] < 0 ? 0 : (__u32)st->sender[i];
		r.method = (__u32)p->method;
		r.mwait_hint = (__u32)p->mwait_hint;
		r.wake_source = (__u32)p->wake_source;
		r.irq_mode = (__u32)p->irq_mode;
		if (p->method == IDLELAB_METHOD_ACPI)
			r.acpi_req = IDLELAB_ACPI_REQ(p->cst_state, p->bm);
		r.launch_min_ns = p->launch_min_ns;
		r.launch_max_ns = p->launch_max_ns ? p->launch_max_ns :
				  p->launch_min_ns;
		r.dirty_bytes = p->wbinvd ? p->dirty_bytes : 0;
		r.seed = (*seed)++;
		r.flags = (p->wbinvd ? IDLELAB_CSTATE_F_WBINVD : 0) |
			  (p->reenter ? IDLELAB_CSTATE_F_REENTER : 0) |
			  (p->policy_override ?
			   IDLELAB_CSTATE_F_POLICY_OVERRIDE : 0);
		r.nr_samples = (__u32)(left < batch ? left : batch);
		r.samples = (__u64)(uintptr_t)st->buf;
		ret = il_kdev_ioctl(run->kdev, IDLELAB_IOC_CSTATE_WAKE, &r,
				    "CSTATE_WAKE");
		if (ret)
			return ret;
		if (r.unsupported)
			return il_errorf(-EOPNOTSUPP, "cstate_wake %s on CPU %d: %s (module reason %u)",
					 cw_methods[p->method], st->cpu[i],
					 il_kunsup_str(r.unsupported),
					 r.unsupported);
		if (!run->tsc_khz)
			run->tsc_khz = r.tsc_khz;
		t->res_avail = r.res_avail;
		t->res.gated = r.res_gated;
		t->res.gate_why = r.gate_why;
		t->cpuid_cycles = r.cpuid_cycles;
		t->noop_cycles = r.noop_cycles;
		t->dirty_node = r.dirty_node;
		t->dirty_flags = r.dirty_flags;
		t->acpi_out = r.acpi_out;
		/* The run's flags, whatever batch saw the TSC go. */
		t->hw = r.hw_flags | (t->hw & IDLELAB_HW_TSC_UNSTABLE_DURING);
		t->stale += r.stale_ipis;
		for (k = 0; k < r.nr_done && k < r.nr_samples; k++)
			cw_account(st, i, &st->buf[k], r.tsc_khz, t);
		if (r.nr_done < r.nr_samples)
			return il_errorf(-EIO, "CSTATE_WAKE on CPU %d returned %u of %u samples",
					 st->cpu[i], r.nr_done, r.nr_samples);
		left -= r.nr_done;
	}
	return 0;
}

static int cw_run(struct il_run *run)
{
	struct cw_state *st = run->priv;
	const struct cw_params *p = st->p;
	struct cw_tally t;
	uint64_t seed = p->seed ? p->seed : il_now_ns(CLOCK_MONOTONIC);
	char state[96], hw_state[160];
	int i, ret;

	il_run_attr(run, -1, "method", "%s", cw_methods[p->method]);
	il_run_attr(run, -1, "wake_source", "%s", cw_sources[p->wake_source]);
	il_run_attr(run, -1, "irq_mode", "%s", cw_irq_modes[p->irq_mode]);
	il_run_attr(run, -1, "mwait_hint", "0x%02" PRIx64, p->mwait_hint);
	il_run_attr(run, -1, "seed", "%" PRIu64, seed);
	/* The user's explicit choice to go past the kernel's idle policy. */
	il_run_attr(run, -1, "policy_override", "%d", p->policy_override);
	if (p->method == IDLELAB_METHOD_MWAIT)
		cw_state_name(st->n ? st->cpu[0] : 0,
			      (unsigned int)p->mwait_hint, state,
			      sizeof(state));
	else if (p->method == IDLELAB_METHOD_ACPI)
		/* acpi_idle's own name for power.states[N]. */
		snprintf(state, sizeof(state), "C%u",
			 (unsigned int)p->cst_state);
	else
		snprintf(state, sizeof(state), "%s",
			 p->method == IDLELAB_METHOD_HLT ? "HLT" : "POLL");
	il_run_attr(run, -1, "idle_state", "%s", state);
	il_run_attr(run, -1, "module_version", "%u.%u",
		    run->kdev->info.module_version >> 16,
		    run->kdev->info.module_version & 0xffff);
	il_run_attr(run, -1, "cpuid5", "%08x %08x %08x %08x",
		    run->kdev->info.cpuid5_eax, run->kdev->info.cpuid5_ebx,
		    run->kdev->info.cpuid5_ecx, run->kdev->info.cpuid5_edx);
	for (i = 0; i < st->n; i++) {
		memset(&t, 0, sizeof(t));
		if (st->sender[i] >= 0)
			il_run_attr(run, st->cpu[i], "sender_cpu", "%d",
				    st->sender[i]);
		ret = cw_one(run, st, i, &seed, &t);
		cw_record(run, st->cpu[i], &t);
		if (t.done > t.unsup) {
			il_khw_res_attrs(run, st->cpu[i], &t.res, t.res_avail,
					 t.hw, hw_state, sizeof(hw_state));
			/* The run's: its first measured CPU's. */
			if (i == 0) {
				il_run_attr(run, -1, "hw_state", "%s",
					    hw_state);
				il_khw_attrs(run, t.hw, cw_flushes(p));
				cw_idle_entry_attrs(run, p->method, t.hw);
				if (p->method == IDLELAB_METHOD_ACPI)
					cw_acpi_attrs(run, st->cpu[i],
						      (unsigned int)p->cst_state,
						      p->bm, t.acpi_out);
			}
		}
		if (ret)
			return ret;
		if (t.done && t.unsup == t.done)
			return il_errorf(-EOPNOTSUPP, "cstate_wake %s on CPU %d: every sample came back unsupported",
					 cw_methods[p->method], st->cpu[i]);
	}
	return 0;
}

const struct il_bench_ops il_bench_cstate_wake = {
	.name = "cstate_wake",
	.summary = "raw idle-state exit (HLT, MWAIT(hint), an ACPI _CST state, poll) entered by the idlelab_cstate module, woken by an hrtimer or an IPI",
	.timestamps = "wake_latency: from t_launch (the hrtimer was due, or the IPI was sent; TSC in the module) to t_exit (the first instruction after the idle instruction); intr_latency: from t_launch to t_intr (the first instruction of the module's interrupt callback); wbinvd_time: TSC before and after WBINVD",
	.flags = IL_BF_KMOD,	/* needs /dev/idlelab_cstate */
	.default_cpus = "0",
	.opts = cw_opts,
	.params_size = sizeof(struct cw_params),
	.kdev = IDLELAB_DEV_CSTATE,	/* the runner opens it around setup/teardown */
	.setup = cw_setup,
	.run = cw_run,
	.teardown = cw_teardown,
	.estimate_ns = cw_estimate_ns,
	.check = cw_check,
};
