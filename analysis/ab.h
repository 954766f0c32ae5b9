/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ab.h - the statistics of the A/B table (compare.c), kept apart from the
 * database so that tools/ab-sim.c runs synthetic campaigns through exactly
 * the code the report uses.
 *
 * The unit is the run: each run of an arm gives one value of a statistic
 * (its median, p99 or mean).  Samples within a run are autocorrelated and
 * the spread between runs dominates, so single samples are not independent
 * draws and must not be resampled as if they were (issue 12).
 *
 * ab_stats.c: the shift between two arms as a Hodges-Lehmann estimate with
 * its distribution-free Moses interval and the Mann-Whitney p-value, the
 * TOST equivalence check, and Holm's adjustment.  The old pooled-sample
 * bootstrap, kept only so that the simulator can show how badly it covers,
 * is not part of the library: tools/ab_bootstrap.c, linked into ab-sim.
 *
 * Errors follow err.h.
 */
#ifndef IDLELAB_ANALYSIS_AB_H
#define IDLELAB_ANALYSIS_AB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/*
 * Above this many runs in either arm, the null distribution of U is the
 * normal approximation with the tie-corrected variance.  At or below it,
 * it is exact: without ties the textbook one, with ties the permutation
 * distribution of the rank sum conditional on the tied groups (midranks),
 * so that per-run values that share a histogram bucket do not push a
 * small campaign onto the approximation.
 */
#define IL_AB_EXACT_MAX	50

/* How the p-value of a shift was computed, for the row to say. */
enum il_ab_path {
	IL_AB_PATH_EXACT,	/* exact, no ties */
	IL_AB_PATH_EXACT_TIES,	/* exact permutation, conditional on ties */
	IL_AB_PATH_NORMAL,	/* normal approximation, tie-corrected */
};

/** il_ab_path_name() - "exact", "exact given ties", "normal". */
const char *il_ab_path_name(enum il_ab_path p);

/*
 * The per-run statistics the A/B table compares, in its row order: the
 * first IL_AB_NSTATS always, the Harrell-Davis deciles with --deciles.
 */
enum il_ab_stat {
	IL_AB_MEDIAN,
	IL_AB_P99,
	IL_AB_MEAN,
	IL_AB_NSTATS,
	IL_AB_HD10 = IL_AB_NSTATS,	/* .. IL_AB_HD90, one per decile */
	IL_AB_HD90 = IL_AB_HD10 + 8,
	IL_AB_NALL
};

const char *il_ab_stat_name(enum il_ab_stat s);

/** il_ab_run_stat() - statistic @s of one run's histogram and summary. */
double il_ab_run_stat(enum il_ab_stat s, const struct il_hist *h,
		      const struct il_summary *sum);

/*
 * A run's exact percentiles (issue 22, item 3): the p50 and p99 of a run
 * that kept every sample raw, as order statistics of those samples.  For
 * a run with one series they are the stored ones (store_run.c took them
 * from its raw samples); for a run whose value merges several series,
 * each kept raw, the caller merges the samples and sets them with
 * il_ab_exact_set() (analysis/ab_raw.c reads them from the database).
 * ok is false until then, and where any series kept some samples only in
 * its histogram: the run's merged histogram then stands in.
 */
struct il_ab_exact {
	bool ok;		/* p50 and p99 are exact */
	bool all_raw;		/* every series so far kept every sample raw */
	int nseries;
	int64_t p50, p99;
};

/**
 * il_ab_exact_add() - one more series of the run into @e: @exact says it
 * kept every sample raw, @p50 and @p99 are its stored percentiles.
 */
void il_ab_exact_add(struct il_ab_exact *e, bool exact, int64_t p50,
		     int64_t p99);

/* The Harrell-Davis deciles of a run, HD p10 .. HD p90. */
#define IL_AB_NDECILES	(IL_AB_HD90 - IL_AB_HD10 + 1)

/**
 * il_ab_exact_set() - the run of @e merges series that all kept every
 * sample raw; @v holds those samples (@n of them, sorted here in place):
 * its exact p50 and p99 into @e, the same ranks store_run.c uses, and,
 * when @hd is not NULL, its Harrell-Davis deciles into @hd
 * (IL_AB_NDECILES values).  Nothing changes when @n is 0.
 */
void il_ab_exact_set(struct il_ab_exact *e, uint64_t *v, size_t n,
		     double *hd);

/**
 * il_ab_run_value() - statistic @s of one run: its exact p50 or p99 where
 * @e has them, else il_ab_run_stat() of its histogram and summary.
 */
double il_ab_run_value(enum il_ab_stat s, const struct il_hist *h,
		       const struct il_summary *sum,
		       const struct il_ab_exact *e);

/**
 * il_ab_hd_quantile() - the Harrell-Davis @p-quantile (0 < p < 1) of the
 * values in @h (ab_hd.c); NaN for an empty histogram.
 */
double il_ab_hd_quantile(const struct il_hist *h, double p);

/**
 * il_ab_hd_deciles() - il_ab_hd_quantile() of @h at p = 0.1 .. 0.9 into
 * @out (IL_AB_NDECILES), the same doubles, in one pass over @h.
 */
void il_ab_hd_deciles(const struct il_hist *h, double *out);

/**
 * il_ab_hd_sorted() - the Harrell-Davis @p-quantile (0 < p < 1) of the @n
 * values @v, sorted ascending: the samples themselves, not a histogram's
 * bucket midpoints (ab_hd.c); NaN when @n is 0.
 */
double il_ab_hd_sorted(const uint64_t *v, size_t n, double p);

/* The shift of y against x, in the units of the values given. */
struct il_ab_shift {
	int m, n;		/* values in x and in y */
	bool exact;		/* the interval from the exact (untied)
				 * null distribution, else normal */
	enum il_ab_path path;	/* how p was computed */
	bool ci_ok;		/* false: too few values for the level */
	double est;		/* Hodges-Lehmann: median of y_j - x_i */
	double lo, hi;		/* Moses interval, when ci_ok */
	double level;		/* its attained level (exact: >= asked) */
	double u;		/* Mann-Whitney U: pairs y > x, ties 1/2 */
	double p;		/* two-sided p of U under no shift */
};

/**
 * il_ab_shift() - Hodges-Lehmann shift of @y against @x with a Moses
 * interval at level @conf (0.95) and the two-sided Mann-Whitney p-value.
 * Return: 0, -EINVAL if either side is empty, -ENOMEM.
 */
int il_ab_shift(const double *x, int m, const double *y, int n, double conf,
		struct il_ab_shift *out);

/**
 * il_ab_set_brute() - make il_ab_shift() take il_ab_shift_brute()'s path
 * for the rest of the process: the brute-force reference of `report
 * --compare` (IDLELAB_COMPARE_REFERENCE=1, compare_reference.c).
 */
void il_ab_set_brute(bool brute);

/**
 * il_ab_shift_brute() - il_ab_shift() by forming and sorting all m*n
 * differences: O(mn log mn) time, O(mn) memory.  The reference the fast
 * path is tested against (tests/unit/test_ab_pairs.c); reports do not
 * use it.  Same return.
 */
int il_ab_shift_brute(const double *x, int m, const double *y, int n,
		      double conf, struct il_ab_shift *out);

/**
 * il_ab_pairs_kth() - the @k-th smallest (from 0) of the m*n differences
 * ys[j] - xs[i], @xs and @ys sorted ascending, into @out, exactly as the
 * sorted list of all of them would hold it, in O((m + n) log(mn))
 * expected time and O(m + n) memory (ab_pairs.c).
 * Return: 0, -EINVAL if @k is out of range, -ENOMEM.
 */
int il_ab_pairs_kth(const double *xs, int m, const double *ys, int n,
		    size_t k, double *out);

/**
 * il_ab_pairs_u() - the Mann-Whitney U of @ys over @xs (both sorted
 * ascending): the pairs with y > x, ties counted 1/2, in O(m + n).
 */
double il_ab_pairs_u(const double *xs, int m, const double *ys, int n);

/* The verdict of a TOST equivalence check. */
enum il_ab_equiv {
	IL_AB_EQUIV_NONE,	/* no margin was asked for */
	IL_AB_EQUIV_SHOWN,	/* the 90 % interval lies inside the margin */
	IL_AB_EQUIV_NOT_SHOWN,	/* it does not, or cannot exist */
};

/*
 * One row of the A/B table: per-run values of a statistic in two arms,
 * compared as ratios, i.e. on the log scale: a shift of -5 % means the
 * values of b are 0.95 times those of a.  The log makes a relative shift
 * additive, so the Hodges-Lehmann estimate and its interval map back to
 * percentages exactly.
 */
struct il_ab_result {
	bool positive;		/* every value > 0; else nothing below */
	struct il_ab_shift s;	/* on log values */
	double pct, lo_pct, hi_pct;	/* the same as % of a */
	enum il_ab_equiv equiv;
	double eq_lo_pct, eq_hi_pct;	/* the TOST interval, when computed */
	double eq_level;	/* its level: 0.90, or Bonferroni's across rows */
	bool eq_ci_ok;
	/* Every run of both sides has one value (at least 2 a side): the
	 * shift is 0 with the interval [0, 0] and p 1, not "too few runs". */
	bool all_equal;
};

/**
 * il_ab_compare() - compare the per-run values @a (m) and @b (n): the
 * shift of b against a in %, its @conf interval, the p-value and, when
 * @margin_pct > 0, TOST at level 0.05 with the margin +-@margin_pct %
 * (equivalent when the 90 % interval lies inside it).
 * Return: 0 or -errno (err.h).
 */
int il_ab_compare(const double *a, int m, const double *b, int n,
		  double conf, double margin_pct, struct il_ab_result *out);

/**
 * il_ab_tost() - (re)do the TOST part of @out for the values @a and @b of
 * il_ab_compare() with the margin +-@margin_pct %, from the interval at
 * @level: 0.90 for one test at 5 %, 1 - 0.10 / k for k tests adjusted
 * together by Bonferroni.  Leaves @out's shift alone.
 * Return: 0 or -errno (err.h).
 */
int il_ab_tost(const double *a, int m, const double *b, int n,
	       double margin_pct, double level, struct il_ab_result *out);

/**
 * il_ab_holm() - Holm's step-down adjustment of the @k p-values @p into
 * @adj (may be @p); a NaN p is no test, is skipped and stays NaN.
 */
void il_ab_holm(const double *p, int k, double *adj);

#endif
