/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * series.h - one measured quantity of one run, on one CPU (or CPU pair).
 *
 * A series is what a benchmark feeds samples into and what becomes one row
 * of the summaries table, one histogram BLOB and, on request, one raw BLOB.
 * It is identified within a run by (metric, cpu, cpu2, group): cpu2 is -1
 * unless the metric belongs to a pair, group is -1 unless the benchmark
 * sweeps a count (e.g. the number of IPI targets).
 *
 * A series is written by exactly one thread, so il_series_add() takes no
 * lock: benchmarks create series from setup() (or under the run's lock with
 * il_run_series()) and hand each thread its own.
 */
#ifndef IDLELAB_SERIES_H
#define IDLELAB_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

#define IL_METRIC_MAX	48
#define IL_UNIT_MAX	16

/* Raw BLOB layouts: little-endian u64 values, or (t_ns, value) u64 pairs. */
#define IL_RAW_VALUES	1
#define IL_RAW_TIMED	2

struct il_series {
	char metric[IL_METRIC_MAX];
	char unit[IL_UNIT_MAX];
	int cpu;
	int cpu2;
	int64_t group;
	struct il_summary sum;
	struct il_hist *hist;
	bool keep_raw;		/* store every sample */
	int raw_layout;		/* IL_RAW_VALUES or IL_RAW_TIMED */
	uint64_t *raw;		/* values, or t/value pairs when timed */
	size_t raw_len;		/* number of u64 words in raw */
	size_t raw_cap;
	uint64_t raw_limit;	/* max samples kept; beyond, counted dropped_raw */
	uint64_t dropped_raw;
	/* The TSC value a timed series' times count from, when that is not
	 * the run's t0_tsc (0: it is): a CPU's own first read when TSCs may
	 * disagree across CPUs.  --causes places the samples with it. */
	uint64_t t0_tsc;
	/* A series kept neither raw nor timed keeps, for il_series_drifted(),
	 * its first IL_STATIONARY_WIN samples (win[0..W)) and a ring of its
	 * last IL_STATIONARY_WIN (win[W..2W)); win_n counts what it saw.
	 * NULL where raw samples serve, or out of memory (not judged). */
	uint64_t *win;
	uint64_t win_n;
};

/**
 * il_series_new() - allocate a series.
 * @timed: samples carry a timestamp (always kept raw, e.g. TSC gaps).
 * @keep_raw: keep every value for the raw BLOB.
 */
struct il_series *il_series_new(const char *metric, const char *unit,
				int cpu, int cpu2, int64_t group,
				bool timed, bool keep_raw);
void il_series_free(struct il_series *s);

/**
 * il_series_reserve() - room for @nsamples raw samples (at most raw_limit),
 * allocated and touched now, so that a benchmark's timed loop never
 * reallocates: under mlockall(MCL_FUTURE) a growing buffer is populated
 * page by page inside whatever sample is being taken.  Nothing to do for a
 * series that keeps no raw samples.
 * Return: 0, or -ENOMEM (with a message).
 */
int il_series_reserve(struct il_series *s, uint64_t nsamples);
/*
 * The fewest samples il_series_drifted() judges: a tenth of them, 20, is
 * the least that has a meaningful middle half.
 */
#define IL_STATIONARY_MIN	200
/*
 * The most samples each end of a run not kept raw is judged on: its tenth
 * where the run has up to ten times this many, else this many at each
 * end (16 KiB a series, so memory stays bounded).
 */
#define IL_STATIONARY_WIN	1024

/**
 * il_series_drifted() - the stationarity check of a run's series (issue
 * 22): the first and the last tenth of its raw samples, in the order they
 * were taken, have middle halves (interquartile ranges) that do not
 * overlap, so the warm-up did not settle it or the machine moved under
 * it.  Judged on every untimed series (a timed one is a list of events,
 * such as gaps) with at least IL_STATIONARY_MIN samples: from its raw
 * samples where all were kept, else from its two windows (at most
 * IL_STATIONARY_WIN samples at each end); then @why says how (the two
 * ends' quartiles).
 * Return: true if it drifted.
 */
bool il_series_drifted(const struct il_series *s, char *why, size_t len);

/** il_series_add() - one sample: summary, histogram, raw. Hot path. */
void il_series_add(struct il_series *s, uint64_t v);
/** il_series_add_timed() - one sample with its time since run start. */
void il_series_add_timed(struct il_series *s, uint64_t t_ns, uint64_t v);
static inline void il_series_early(struct il_series *s) { s->sum.early++; }
/** il_series_drop() - one sample not taken, for @why (stats.h). */
static inline void il_series_drop(struct il_series *s, enum il_drop_reason why)
{
	il_summary_drop(&s->sum, why, 1);
}
/*
 * il_series_dropped() - the call before drops had reasons: a sample whose
 * measured condition did not hold (IL_DROP_RACE), which is what every
 * caller of it meant.  New code names its reason with il_series_drop().
 */
static inline void il_series_dropped(struct il_series *s)
{
	il_series_drop(s, IL_DROP_RACE);
}

#endif
