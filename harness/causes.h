/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * causes.h - per-sample causes of a --causes run: which kernel events
 * (IRQs, vectors, softirqs, NMIs, other threads, idle) overlapped each
 * outlier's window on its CPU, for how long, and what is left unexplained.
 *
 * The samples attributed are every sample of a timed series (the gaps of
 * tsc_gaps, gaps_irqoff and wbinvd's blast mode: each is an interruption)
 * and, for the other series, every sample at or above the threshold
 * (--causes-threshold, else that series' own p99).  A benchmark makes its
 * untimed samples attributable by noting each one's start with
 * il_causes_note() (bench.h), a no-op branch when --causes is off.
 *
 * One time base: the trace clock is x86-tsc when the benchmark stamps with
 * the TSC (a kmod benchmark, or run->tsc_khz set by setup) and mono when it
 * stamps with CLOCK_MONOTONIC; sample windows and events are both turned
 * into ns since the run's t0 (run->t0_tsc for the TSC) with the run's one
 * TSC frequency.
 *
 * Errors follow err.h.
 */
#ifndef IDLELAB_CAUSES_H
#define IDLELAB_CAUSES_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"
#include "series.h"
#include "trace_capture.h"

struct il_run;

#define IL_CAUSE_KIND_MAX	12
#define IL_CAUSE_NAME_MAX	64

/* Cause kinds, as stored in causes.kind. */
#define IL_CAUSE_IRQ		"irq"		/* device IRQs and vectors */
#define IL_CAUSE_SOFTIRQ	"softirq"
#define IL_CAUSE_NMI		"nmi"
#define IL_CAUSE_SMI		"smi"		/* counted by a module, untimed */
#define IL_CAUSE_THREAD		"thread"	/* another task on the CPU */
#define IL_CAUSE_IDLE		"idle"		/* the CPU sat in an idle state */

struct il_cause {
	char kind[IL_CAUSE_KIND_MAX];
	char name[IL_CAUSE_NAME_MAX];
	uint64_t ns;			/* inside the sample's window */
	uint64_t count;			/* events of it in the window */
};

struct il_cause_sample {
	const struct il_series *series;
	uint64_t index;			/* the sample's index in its series */
	int cpu;			/* where its window is looked at */
	bool keep;			/* an outlier, stored (else only counted) */
	int64_t t_ns;			/* window start, ns since the run's t0 */
	uint64_t value_ns;		/* window length: the sample */
	int idle_state;			/* state entered in the window, -1: none */
	uint32_t smi, nmi, counts_valid;	/* from a module, see the note */
	uint64_t unexplained_ns;
	int ncauses;
	struct il_cause *causes;
};

/* One sample a benchmark noted (il_causes_note()). */
struct il_causes_note {
	uint64_t t;			/* start, in the benchmark's clock */
	uint64_t v;			/* ns */
	/* Counted by a module inside the window (il_causes_note_counts());
	 * IL_CAUSES_SMI_VALID / IL_CAUSES_NMI_VALID say which are real. */
	uint32_t smi, nmi;
	uint32_t valid;
};


struct il_causes_notes {
	const struct il_series *series;
	size_t n, cap;
	struct il_causes_note *v;
};

/* Every noted sample of one series and CPU, by the idle state entered. */
struct il_cause_state {
	const struct il_series *series;
	int cpu;
	int state;			/* -1: not idle, or unknown */
	char name[64];			/* cpuidle's name, or why there is none */
	struct il_summary sum;
	struct il_hist *hist;
};

/* What --causes asks for, and the capture behind it. */
struct il_causes_run {
	uint64_t threshold_ns;		/* 0: each series' p99 */
	uint64_t buffer_kb;		/* 0: sized from the run's estimate */
	bool lean;			/* --causes-lean: fewer events */
	struct il_trace *trace;
	uint64_t t0_mono, t0_tsc;	/* when the capture started */
	uint64_t khz;			/* the TSC frequency used */
	int nnotes;
	struct il_causes_notes *notes;	/* one per series at trace start */
	/* The result, filled by il_causes_attribute(). */
	const char *status;		/* "ok", "unavailable" */
	char reason[256];
	size_t nsamples;
	struct il_cause_sample *samples;
	uint64_t attribution_ns;	/* how long attributing took */
	int nstates;
	struct il_cause_state *states;	/* il_causes_states() */
};

/**
 * il_causes_states() - fold the attributed windows @w (every noted sample,
 * not only the outliers) into @c->states by the idle state entered
 * (causes_idle_entered.c).  Return: 0 or -ENOMEM (message set).
 */
int il_causes_states(struct il_causes_run *c, const struct il_cause_sample *w,
		     size_t n);
void il_causes_states_free(struct il_causes_run *c);

/** il_causes_note_slow() - see il_causes_note() in bench.h. */
void il_causes_note_slow(struct il_run *r, const struct il_series *s,
			 uint64_t t_start, uint64_t v_ns);

/**
 * il_causes_begin() - start the capture for @run, after setup() (so the
 * benchmark has chosen its clock and its threads exist) and before run().
 * A capture that cannot start is not an error of the run: the causes are
 * stored as unavailable with the reason.
 */
void il_causes_begin(struct il_run *run);

/**
 * il_causes_end() - stop the capture and attribute every sample chosen
 * (see the top of this file), after teardown().
 */
void il_causes_end(struct il_run *run);

/** il_causes_free() - free @c and its capture (restoring tracefs);
 * causes_free.c. */
void il_causes_free(struct il_causes_run *c);

/**
 * il_causes_gap_counts() - the module's per-gap NMI and SMI counts for the
 * @n windows @w taken from the timed gap series @gap: the companion series
 * METRIC_nmi and METRIC_smi on its CPU (gaps_irqoff's gap_nmi, gap_smi;
 * wbinvd's victim_gap_nmi, victim_gap_smi) hold one count per gap at the
 * gap's time.  A gap the module could not count for keeps its flag clear,
 * so no cause is claimed for it.
 */
void il_causes_gap_counts(const struct il_run *run, const struct il_series *gap,
			  struct il_cause_sample *w, size_t n);

/**
 * il_causes_attribute() - the attribution itself, on a capture already
 * read: for each window in @win (sorted or not), the causes on its CPU.
 * @t0: the run's t0 in the trace clock's unit; @khz: TSC kHz (x86-tsc).
 * Exposed for the unit tests, which feed it synthetic events.
 * Return: 0 or -ENOMEM (message set).
 */
int il_causes_attribute(const struct il_trace *t, uint64_t t0, uint64_t khz,
			struct il_cause_sample *win, size_t nwin,
			const int *win_cpu);

/** il_causes_describe() - "3.02 ms: thread stall/4121 (RT 90); ...". */
void il_causes_describe(const struct il_cause_sample *s, char *buf,
			size_t len);

#endif
