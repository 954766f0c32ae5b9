// SPDX-License-Identifier: GPL-2.0-only
/*
 * causes_run.c - a --causes run's capture from the runner's side
 * (causes.h): the clock chosen to match the benchmark, the buffer sized
 * from the run's estimate, the samples chosen for attribution, and the
 * capture undone as soon as it has been read, before the run is stored.
 *
 * The order around a run (run_execute.c): setup(), il_causes_begin(), the
 * counters, run(), the counters, teardown(), il_causes_end().  Starting
 * after setup() matters twice: the benchmark has picked its clock
 * (il_clock_pick() sets run->tsc_khz) and its threads exist, so their
 * tids say which time on the CPU is the benchmark's own.
 */
#include "causes.h"
#include "run_context.h"
#include "err.h"
#include "tsc.h"
#include "grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Kept events per second per measured CPU that the buffer is sized for:
 * timer_wake at a 500 us interval made about 26000 a second here (the
 * timer vector, hrtimer softirq, wakeup, two switches, cpu_idle twice ...,
 * BENCHMARKS.md); a gap detector makes far fewer.
 */
#define EVENTS_PER_S	30000
/* All CPUs' buffers together stay within this much kernel memory. */
#define BUFFER_TOTAL_KB	(1024 * 1024)

static void note(struct il_run *r, const struct il_series *s,
		 const struct il_causes_note *x)
{
	struct il_causes_run *c = r->causes;
	struct il_causes_notes *n = NULL;
	int i;

	/* Before the capture started (warm-up in setup) nothing is noted. */
	for (i = 0; i < c->nnotes; i++) {
		if (c->notes[i].series == s) {
			n = &c->notes[i];
			break;
		}
	}
	if (!n)
		return;
	if (IL_GROW(n->v, n->cap, (size_t)n->n + 1, 1024))
		return;		/* an outlier less, never a crash */
	n->v[n->n++] = *x;
}

void il_causes_note_slow(struct il_run *r, const struct il_series *s,
			 uint64_t t_start, uint64_t v_ns)
{
	struct il_causes_note x = { t_start, v_ns, 0, 0, 0 };

	note(r, s, &x);
}

void il_causes_note_counts(struct il_run *r, const struct il_series *s,
			   uint64_t t_start, uint64_t v_ns, uint32_t smi,
			   uint32_t nmi, uint32_t valid)
{
	struct il_causes_note x = { t_start, v_ns, smi, nmi, valid };

	if (r->causes)
		note(r, s, &x);
}

static void unavailable(struct il_causes_run *c, const char *why)
{
	c->status = "unavailable";
	snprintf(c->reason, sizeof(c->reason), "%s", why);
}

static bool uses_tsc(const struct il_run *run)
{
	return (run->ops->flags & IL_BF_KMOD) || run->tsc_khz;
}

void il_causes_begin(struct il_run *run)
{
	struct il_causes_run *c = run->causes;
	int cpus[IL_MAX_CPUS], n, ns, i;
	uint64_t kb, est;

	if (!c)
		return;
	c->status = "ok";
	n = il_place_cpus(&run->place, cpus, IL_MAX_CPUS);
	if (n <= 0 || n > IL_MAX_CPUS) {
		unavailable(c, "no measured CPUs to trace");
		return;
	}
	ns = il_run_nseries(run);
	c->notes = calloc((size_t)(ns ? ns : 1), sizeof(*c->notes));
	if (!c->notes) {
		unavailable(c, "out of memory");
		return;
	}
	for (i = 0; i < ns; i++)
		c->notes[i].series = il_run_series_at(run, i);
	c->nnotes = ns;
	est = run->ops->estimate_ns ?
	      run->ops->estimate_ns(run->params, &run->place) : 0;
	kb = c->buffer_kb;
	if (!kb) {
		kb = il_trace_buffer_kb(est, EVENTS_PER_S);
		if (kb > BUFFER_TOTAL_KB / (uint64_t)n)
			kb = BUFFER_TOTAL_KB / (uint64_t)n;
	}
	if (il_trace_start(&c->trace, cpus, n, uses_tsc(run) ?
			   IL_TRACE_CLOCK_TSC : IL_TRACE_CLOCK_MONO, kb, c->lean)) {
		c->nnotes = 0;
		unavailable(c, il_errmsg());
		return;
	}
	il_run_attr(run, -1, "causes_events", "%s",
		    il_trace_events_name(c->lean));
	/* A module's workers (kmod/include/idlelab_kcommon.h) are the
	 * benchmark itself, not threads that took the CPU from it. */
	if (run->ops->flags & IL_BF_KMOD)
		c->trace->self_comm = "idlelab/";
	/* The zero of noted samples on the mono clock, for readable times. */
	c->t0_mono = il_now_ns(CLOCK_MONOTONIC);
	c->t0_tsc = il_rdtsc_ordered();
}

/*
 * A gap series' companion of per-gap module counts (gaps_irqoff's gap_nmi
 * and gap_smi beside gap, wbinvd's victim_gap_nmi/_smi beside victim_gap):
 * the timed series named METRIC_SUFFIX on the same CPU, or NULL.
 */
static const struct il_series *companion(const struct il_run *run,
					 const struct il_series *s,
					 const char *suffix)
{
	char name[IL_METRIC_MAX + 8];
	int i;

	snprintf(name, sizeof(name), "%s_%s", s->metric, suffix);
	for (i = 0; i < il_run_nseries(run); i++) {
		const struct il_series *o = il_run_series_at(run, i);

		if (o->raw_layout == IL_RAW_TIMED && o->cpu == s->cpu &&
		    !strcmp(o->metric, name))
			return o;
	}
	return NULL;
}

/*
 * The count a companion holds for the gap at time @t, found from index
 * *@pos on (both series are in time order; the SMI one skips gaps whose
 * MSR 0x34 read failed).  False when it has none for that gap.
 */
static bool count_at(const struct il_series *o, uint64_t t, size_t *pos,
		     uint32_t *n)
{
	if (!o)
		return false;
	while (*pos < o->raw_len / 2 && o->raw[2 * *pos] < t)
		(*pos)++;
	if (*pos >= o->raw_len / 2 || o->raw[2 * *pos] != t)
		return false;
	*n = (uint32_t)o->raw[2 * *pos + 1];
	return true;
}

void il_causes_gap_counts(const struct il_run *run, const struct il_series *gap,
			  struct il_cause_sample *w, size_t n)
{
	const struct il_series *nmi = companion(run, gap, "nmi");
	const struct il_series *smi = companion(run, gap, "smi");
	size_t k, nmi_pos = 0, smi_pos = 0;

	for (k = 0; k < n; k++) {
		uint64_t t = (uint64_t)w[k].t_ns;

		if (count_at(nmi, t, &nmi_pos, &w[k].nmi))
			w[k].counts_valid |= IL_CAUSES_NMI_VALID;
		if (count_at(smi, t, &smi_pos, &w[k].smi))
			w[k].counts_valid |= IL_CAUSES_SMI_VALID;
	}
}

/* Add the windows of one series to @w (grown as needed). */
static int add_windows(struct il_causes_run *c, const struct il_run *run,
		       uint64_t t0, const struct il_series *s,
		       const struct il_causes_notes *nt,
		       struct il_cause_sample **w, int **wcpu, size_t *nw,
		       size_t *cap)
{
	int cpu = s->cpu2 >= 0 ? s->cpu2 : s->cpu;
	uint64_t thr, k, n;
	double per = c->trace->clock == IL_TRACE_CLOCK_TSC ?
		1e6 / (double)c->khz : 1.0;
	bool timed = s->raw_layout == IL_RAW_TIMED;
	size_t first = *nw;
	/* A series counted from its CPU's own first read: its times move by
	 * that read's distance from t0, in the same CPU's TSC as its events.
	 * Without this a run whose TSCs were not trusted across CPUs had its
	 * windows off by the thread's start, tens to hundreds of us. */
	int64_t shift = 0;

	if (timed && c->trace->clock == IL_TRACE_CLOCK_TSC && s->t0_tsc)
		shift = s->t0_tsc >= t0 ?
			(int64_t)((double)(s->t0_tsc - t0) * per) :
			-(int64_t)((double)(t0 - s->t0_tsc) * per);

	if (timed && c->trace->clock == IL_TRACE_CLOCK_TSC && !run->t0_tsc)
		return 0;	/* no time base declared: nothing to place */
	/* Counts kept beside the gaps, and the IRQs-off windows the gaps
	 * were looked for in, are not gaps themselves. */
	if (timed && (strcmp(s->unit, "ns") || strstr(s->metric, "window")))
		return 0;
	n = timed ? s->raw_len / 2 : (nt ? nt->n : 0);
	thr = c->threshold_ns ? c->threshold_ns :
	      (s->hist ? il_hist_percentile(s->hist, 99.0) : 0);
	for (k = 0; k < n; k++) {
		uint64_t v = timed ? s->raw[2 * k + 1] : nt->v[k].v;
		int64_t t;

		/* Every noted sample goes in, for the idle state it met
		 * (il_causes_states()); only outliers are kept after. */
		if (timed) {
			t = (int64_t)s->raw[2 * k] + shift;
		} else {
			uint64_t a = nt->v[k].t;

			t = a >= t0 ? (int64_t)((double)(a - t0) * per) :
			    -(int64_t)((double)(t0 - a) * per);
		}
		if (*nw == *cap) {
			size_t capw = *cap, capc = *cap;

			/* Two arrays, one count: *cap moves when both did. */
			if (IL_GROW(*w, capw, *nw + 1, 256) ||
			    IL_GROW(*wcpu, capc, *nw + 1, 256))
				return -ENOMEM;
			*cap = capw;
		}
		memset(&(*w)[*nw], 0, sizeof(**w));
		(*w)[*nw].series = s;
		(*w)[*nw].index = k;
		(*w)[*nw].t_ns = t;
		(*w)[*nw].value_ns = v;
		(*w)[*nw].keep = timed || v >= thr;
		if (!timed) {
			(*w)[*nw].smi = nt->v[k].smi;
			(*w)[*nw].nmi = nt->v[k].nmi;
			(*w)[*nw].counts_valid = nt->v[k].valid;
		}
		(*w)[*nw].cpu = cpu;
		(*wcpu)[*nw] = cpu;
		(*nw)++;
	}
	if (timed)
		il_causes_gap_counts(run, s, *w + first, *nw - first);
	return 0;
}

/* Keep the outliers at the front of @w, freeing the others' causes. */
static size_t keep_outliers(struct il_cause_sample *w, size_t n)
{
	size_t k, m = 0;

	for (k = 0; k < n; k++) {
		if (w[k].keep)
			w[m++] = w[k];
		else
			free(w[k].causes);
	}
	return m;
}

void il_causes_end(struct il_run *run)
{
	struct il_causes_run *c = run->causes;
	struct il_cause_sample *w = NULL;
	int *wcpu = NULL, i, ret = 0;
	size_t nw = 0, cap = 0;
	uint64_t t_begin, t0;

	if (!c || !c->trace)
		return;
	t_begin = il_now_ns(CLOCK_MONOTONIC);
	c->khz = run->tsc_khz ? run->tsc_khz : il_tsc_khz();
	ret = il_trace_stop(c->trace);
	/* One zero for events and samples: the benchmark's, where it has one. */
	if (c->trace->clock == IL_TRACE_CLOCK_TSC)
		t0 = run->t0_tsc ? run->t0_tsc : c->t0_tsc;
	else
		t0 = c->t0_mono;
	for (i = 0; !ret && i < il_run_nseries(run); i++)
		ret = add_windows(c, run, t0, il_run_series_at(run, i),
				  i < c->nnotes ? &c->notes[i] : NULL,
				  &w, &wcpu, &nw, &cap);
	if (!ret)
		ret = il_causes_attribute(c->trace, t0, c->khz, w, nw, wcpu);
	if (!ret)
		ret = il_causes_states(c, w, nw);
	c->samples = w;
	c->nsamples = keep_outliers(w, nw);
	free(wcpu);
	/* Put tracefs back now: storing the run may take a while. */
	if (il_trace_close(c->trace)) {
		/* Never silent: the journal keeps it for `idlelab restore`. */
		fprintf(stderr, "idlelab: warning: %s; `idlelab restore` puts it back\n",
			il_errmsg());
		if (!ret)
			ret = -EIO;
	}
	if (ret)
		unavailable(c, il_errmsg());
	c->attribution_ns = il_now_ns(CLOCK_MONOTONIC) - t_begin;
}
