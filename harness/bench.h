/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench.h - the ops table every benchmark implements, and the run context
 * the harness hands it.
 *
 * A benchmark is one file in bench/ defining one `const struct
 * il_bench_ops` and one line in bench/registry.c.  The harness:
 *   1. checks supported() (for a kmod benchmark without one: that its .kdev
 *      exists); a non-NULL reason stores the run as unsupported;
 *   2. fills run->params from the option table (defaults, then --param);
 *   3. expands the placement (run->place) and snapshots the environment;
 *   4. opens .kdev into run->kdev (kmod benchmarks, kmod_frame.h), calls
 *      setup(), opens the counters, calls run(), stops the counters, calls
 *      teardown() (always, once setup() succeeded), closes run->kdev;
 *   5. stores every series, counter and attribute in one transaction.
 *
 * setup/run return 0 or a negative errno with il_errorf() (err.h).
 * run() returns -EOPNOTSUPP when only running could tell that this machine
 * cannot measure (a kmod reported MWAIT faulting): the run is stored as
 * unsupported with the message as its reason, like a supported() refusal.
 * run() should return promptly once il_stop_requested() is true (SIGINT):
 * what was measured so far is stored with status "interrupted".
 */
#ifndef IDLELAB_BENCH_H
#define IDLELAB_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "opts.h"
#include "series.h"
#include "topo.h"

struct il_run;
struct il_run_owned;
struct il_kdev;
struct il_causes_run;

/* Benchmark flags. */
enum {
	/* Placement must be pairs (pairs:… or A-B lists). */
	IL_BF_PAIRS = 1 << 0,
	/* Needs at least two placed CPUs. */
	IL_BF_MULTI_CPU = 1 << 1,
	/* Drives a helper kernel module (kmod/). */
	IL_BF_KMOD = 1 << 2,
};

/*
 * What the reports (analysis/) take from a benchmark's stored rows, declared
 * here so that no report names a benchmark: a new benchmark that fills these
 * in appears in those reports with no edit in analysis/.  Zero (NULL) for a
 * benchmark a report has no use for.
 */
struct il_bench_report {
	/* ipi report: the metric of one IPI round; its group is the target
	 * count N. */
	const char *ipi_metric;
	/* ipi report: the runs differ in a `mode` parameter whose values
	 * are compared side by side, one column each (ipi_modes.c). */
	bool ipi_by_mode;
	/* pairs report: the metric of the waker (cpu) -> sleeper (cpu2)
	 * matrix. */
	const char *pairs_metric;
	/* states report: the wake source of a run that stored no wake_source
	 * attribute (what the benchmark is always woken by). */
	const char *wake_source;
};

struct il_bench_ops {
	const char *name;
	const char *summary;
	/* The two timestamps each metric is taken between, for `list`/README. */
	const char *timestamps;
	unsigned int flags;
	const char *default_cpus;	/* placement when --cpus is not given */
	const struct il_opt *opts;	/* IL_OPT_END-terminated */
	size_t params_size;
	/* NULL if the benchmark can run here, else the reason it cannot. */
	const char *(*supported)(void);
	/*
	 * The helper module's device (IDLELAB_DEV_*) a kmod benchmark drives,
	 * else NULL.  The harness derives the rest (kmod_frame.h): supported()
	 * when not given is the device's presence, and the device is opened
	 * (GET_INFO, ABI check) into run->kdev before setup() and closed after
	 * teardown(), so a benchmark never opens it itself.
	 */
	const char *kdev;
	struct il_bench_report report;	/* what the reports select by */
	int (*setup)(struct il_run *run);
	int (*run)(struct il_run *run);
	void (*teardown)(struct il_run *run);
	/*
	 * A rough duration of one run in ns, from its parameters, for
	 * --dry-run and the ETA until the dataset has history (the harness
	 * adds its own per-run overhead).  @place is NULL when unknown.
	 */
	uint64_t (*estimate_ns)(const void *params,
				const struct il_placement *place);
	/*
	 * Constraints that span parameters or the placement (NULL: none).
	 * il_run_prepare() calls it, so `idlelab run --dry-run` refuses a
	 * campaign that would fail at run time.  0 or -EINVAL (err.h).
	 */
	int (*check)(const void *params, const struct il_placement *place);
};

/* How many CPUs (or pairs) a benchmark measures one after another. */
static inline int il_bench_measured(const struct il_placement *place)
{
	if (!place)
		return 1;
	return place->kind == IL_PLACE_PAIRS ? place->npairs : place->ncpus;
}

struct il_run {
	const struct il_bench_ops *ops;
	void *params;			/* ops->params_size bytes */
	struct il_topo *topo;
	struct il_placement place;
	bool keep_raw;			/* --raw */
	void *priv;			/* the benchmark's own state */
	struct il_kdev *kdev;		/* ops->kdev, open from setup to teardown */

	/* The series and attributes the helpers below record, and their
	 * lock: the harness's, read through run_context.h. */
	struct il_run_owned *own;
	uint64_t tsc_khz;		/* set when the benchmark used the TSC */
	/* --causes (causes.h): NULL unless asked for; set before setup(). */
	struct il_causes_run *causes;
	/* The TSC value the times of the run's timed series count from
	 * (tsc_gaps, gaps_irqoff, wbinvd blast), so --causes can place the
	 * gaps on the trace's x86-tsc clock; 0: not declared. */
	uint64_t t0_tsc;
};

void il_causes_note_slow(struct il_run *r, const struct il_series *s,
			 uint64_t t_start, uint64_t v_ns);

#define IL_CAUSES_SMI_VALID	(1U << 0)
#define IL_CAUSES_NMI_VALID	(1U << 1)

/**
 * il_causes_note_counts() - il_causes_note() for a sample whose module
 * also counted the SMIs (MSR 0x34) and NMIs inside its window: tracefs
 * never sees an SMI, so these become causes of kind "smi" (and "nmi"
 * where the trace has no nmi_handler event for the window), with their
 * count and no duration.
 */
void il_causes_note_counts(struct il_run *r, const struct il_series *s,
			   uint64_t t_start, uint64_t v_ns, uint32_t smi,
			   uint32_t nmi, uint32_t valid);

/**
 * il_causes_note() - a sample of @s that --causes may attribute: its
 * window starts at @t_start, in the benchmark's clock (TSC cycles when it
 * set run->tsc_khz, else CLOCK_MONOTONIC ns), and lasts @v_ns.  One
 * never-taken branch when --causes is off.  Call it from the series'
 * own thread, beside il_series_add().
 */
static inline void il_causes_note(struct il_run *r, const struct il_series *s,
				  uint64_t t_start, uint64_t v_ns)
{
	if (__builtin_expect(r->causes != NULL, 0))
		il_causes_note_slow(r, s, t_start, v_ns);
}

/**
 * il_run_series() - create a series owned by the run (thread-safe).
 * @timed: samples carry a time (gap events); always kept raw.
 * Return: the series, or NULL on allocation failure.
 */
struct il_series *il_run_series(struct il_run *r, const char *metric,
				const char *unit, int cpu, int cpu2,
				int64_t group, bool timed);

/**
 * il_run_attr() - record a fact about the run (thread-safe), e.g. the
 * scheduling policy obtained on a CPU or the NUMA node of a buffer.
 * @cpu: -1 for run-wide.
 */
int il_run_attr(struct il_run *r, int cpu, const char *key,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * il_stop_requested() - true once SIGINT/SIGTERM asked the run to end.
 * The harness's side of the run (init, release, the stop request) is in
 * run_context.h.
 */
bool il_stop_requested(void);

#endif
