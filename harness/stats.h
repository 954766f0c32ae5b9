/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats.h - exact summaries and the mergeable log-linear histogram.
 *
 * The histogram follows HdrHistogram's layout with one fixed configuration
 * (layout version IL_HIST_LAYOUT): lowest discernible value 1, highest
 * trackable value IL_HIST_HIGHEST, 3 significant decimal digits, so every
 * recorded value lands in a bucket whose width is at most 0.1 % of its
 * lower edge.  Because every histogram of one layout has the same buckets,
 * merging is exact: the counts are added.
 *
 * Values are unsigned 64-bit integers; for latencies they are nanoseconds.
 * Values above IL_HIST_HIGHEST are not recorded and are counted as dropped
 * (IL_DROP_RANGE) in the summary by the caller (il_hist_record() returns
 * -ERANGE).
 *
 * Errors follow err.h.
 */
#ifndef IDLELAB_STATS_H
#define IDLELAB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IL_HIST_LAYOUT	1
#define IL_HIST_SIGFIGS	3
#define IL_HIST_HIGHEST	(UINT64_C(1) << 44)	/* ~4.9 hours in ns */

struct il_hist;

/** il_hist_new() - an empty histogram of layout IL_HIST_LAYOUT, or NULL. */
struct il_hist *il_hist_new(void);
void il_hist_free(struct il_hist *h);

/**
 * il_hist_record() - count one value.
 * Return: 0, or -ERANGE when @v > IL_HIST_HIGHEST (nothing recorded).
 */
int il_hist_record(struct il_hist *h, uint64_t v);
/** il_hist_record_n() - count @n copies of @v (import of bucketed data). */
int il_hist_record_n(struct il_hist *h, uint64_t v, uint64_t n);

/** il_hist_merge() - add every count of @src into @dst. Exact. */
int il_hist_merge(struct il_hist *dst, const struct il_hist *src);

uint64_t il_hist_count(const struct il_hist *h);
uint64_t il_hist_min(const struct il_hist *h);	/* bucket-equivalent */
uint64_t il_hist_max(const struct il_hist *h);	/* bucket-equivalent */

/**
 * il_hist_percentile() - the value at percentile @p (0 < p <= 100).
 *
 * Returns the midpoint of the bucket that holds the sample of rank
 * ceil(p/100 * count), so the result is within 0.05 % of the exact order
 * statistic and agrees with the Harrell-Davis estimates, which weigh
 * bucket midpoints.  HdrHistogram's convention, the bucket's highest
 * value, biased every percentile upwards and could exceed the exact Max
 * (issue 22).  Returns 0 for an empty histogram.  Prefer
 * il_hist_percentile_in() where the exact extremes are known.
 */
uint64_t il_hist_percentile(const struct il_hist *h, double p);

/**
 * il_hist_percentile_in() - il_hist_percentile() clamped to [@min, @max],
 * the exact extremes a summary keeps, so no percentile lies outside them
 * and one sample gives its own value.
 */
uint64_t il_hist_percentile_in(const struct il_hist *h, double p,
			       uint64_t min, uint64_t max);

/**
 * il_percentile_exact() - the order statistic of rank ceil(p/100 * n)
 * among @n values (sorted in place), the same rank il_hist_percentile()
 * uses.  For a run whose raw samples are kept.  Return: 0 when n is 0.
 */
uint64_t il_percentile_exact(uint64_t *v, size_t n, double p);

/**
 * il_tail_estimable() - whether percentile @p of @n samples says more
 * than the few largest samples do: at least 10 samples lie beyond it,
 * n * (1 - p/100) >= 10.  p99 needs 1000 samples, p99.9 10000; below,
 * a table prints "-" instead of what is the maximum in all but name.
 */
bool il_tail_estimable(uint64_t n, double p);

/**
 * il_pct_over() - percentile @p ranked over every sample, the @over ones
 * dropped for range (past the histogram: a cyclictest overflow) too,
 * whose values are unknown but above each of the @count recorded ones
 * (issue 22, item 7).  Return: false when the rank falls among those
 * (the percentile is only "above the histogram"); else true, with *@p
 * set to the percentile of the same rank among the recorded ones.
 */
bool il_pct_over(uint64_t count, uint64_t over, double *p);

/**
 * il_hist_foreach() - visit every non-empty bucket in increasing order.
 * @fn: called with the bucket's lowest and highest equivalent value and its
 *      count; a non-zero return stops the walk and is returned.
 */
int il_hist_foreach(const struct il_hist *h,
		    int (*fn)(uint64_t lo, uint64_t hi, uint64_t count,
			      void *arg),
		    void *arg);

/**
 * il_hist_encode() - serialise to a self-describing, compact BLOB.
 * @buf: set to a malloc()ed buffer the caller frees.
 *
 * The BLOB starts with the magic "ILH", the layout version byte, and holds
 * the non-zero buckets run-length encoded as LEB128 varints, so an empty or
 * narrow histogram takes a few bytes.
 */
int il_hist_encode(const struct il_hist *h, uint8_t **buf, size_t *len);

/**
 * il_hist_decode() - the inverse of il_hist_encode().
 * Return: 0, -EPROTO for a foreign or corrupt BLOB, -EPROTONOSUPPORT for an
 * unknown layout version.  Never reads past @len.
 */
int il_hist_decode(const uint8_t *buf, size_t len, struct il_hist **out);

/*
 * Why a sample was not taken.  Each is counted on its own, so a report can
 * tell a histogram too small (range) from a schedule that fell behind
 * (overrun) and from a measurement whose precondition did not hold.
 */
enum il_drop_reason {
	IL_DROP_RANGE,		/* the value is beyond what is recorded:
				 * above IL_HIST_HIGHEST, past an imported
				 * histogram's last bucket */
	IL_DROP_OVERRUN,	/* a periodic target had passed before it
				 * could be waited for: one per missed
				 * period */
	IL_DROP_RACE,		/* the measured condition was lost to a
				 * race or did not hold: the sleeper not yet
				 * asleep, a target descheduled, another
				 * interrupt first, a WBINVD a hypervisor
				 * made a no-op */
	IL_DROP_LOST,		/* the event or its record was lost: not
				 * acknowledged in time, a buffer full */
	IL_DROP_SLEPT,		/* a target slept through the call, so it
				 * had fewer targets than asked: kept apart
				 * from race because those are the slow
				 * idle wakes under study (issue 22, 2c),
				 * and timed in a series of their own */
};
#define IL_DROP_NREASONS	5

/**
 * il_drop_reason_name() - "range", "overrun", "race", "lost", "slept": the reason's
 * name in reports and the suffix of its summaries column (dropped_NAME);
 * NULL outside the enum.
 */
const char *il_drop_reason_name(enum il_drop_reason r);

/*
 * Exact running summary: count, min, max, mean and the sum of squared
 * deviations by Welford's method, so the stddev is stable for long runs.
 * dropped and early are counted by the caller: samples that could not be
 * recorded (dropped, the total of drop[] by reason) and wakes before
 * their launch time.  drop_split is false for a summary read from a
 * database older than schema 4, which kept only the total, and for any
 * merge with one.
 */
struct il_summary {
	uint64_t count;
	uint64_t min;
	uint64_t max;
	double mean;
	double m2;
	uint64_t dropped;
	uint64_t drop[IL_DROP_NREASONS];
	bool drop_split;
	uint64_t early;
};

/** il_summary_drop() - count @n samples not taken, for @why. */
static inline void il_summary_drop(struct il_summary *s,
				   enum il_drop_reason why, uint64_t n)
{
	s->dropped += n;
	s->drop[why] += n;
}

void il_summary_init(struct il_summary *s);
void il_summary_add(struct il_summary *s, uint64_t v);
/** il_summary_merge() - combine two summaries (Chan et al.'s formula). */
void il_summary_merge(struct il_summary *dst, const struct il_summary *src);
/** il_summary_stddev() - the sample standard deviation (n - 1), 0 if n < 2. */
double il_summary_stddev(const struct il_summary *s);

#endif
