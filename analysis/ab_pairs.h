/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ab_pairs.h - internal to analysis/: the m*n pairwise differences
 * y_j - x_i of two samples in order, as the Hodges-Lehmann estimate and
 * the Moses interval of ab_stats.c read them, and their Mann-Whitney U.
 * Two ways to the same doubles (ab_pairs.c): all the differences formed
 * and sorted, the brute-force reference kept for the tests, or one order
 * statistic at a time by selection from sorted copies of x and y, which
 * the reports use.  Errors follow err.h.
 */
#ifndef IDLELAB_ANALYSIS_AB_PAIRS_H
#define IDLELAB_ANALYSIS_AB_PAIRS_H

#include <stdbool.h>
#include <stddef.h>

struct il_ab_diffs {
	double *all;		/* brute: every difference, sorted */
	double *xs, *ys;	/* selection: x and y sorted */
	int m, n;
};

/**
 * il_ab_diffs_init() - the differences of @y (n) against @x (m), @brute
 * or by selection.  Free with il_ab_diffs_free() whatever it returns.
 * Return: 0 or -ENOMEM.
 */
int il_ab_diffs_init(struct il_ab_diffs *d, const double *x, int m,
		     const double *y, int n, bool brute);
void il_ab_diffs_free(struct il_ab_diffs *d);

/** il_ab_diffs_median() - their median (the mean of the two middle ones). */
int il_ab_diffs_median(const struct il_ab_diffs *d, double *out);

/**
 * il_ab_diffs_interval() - the k-th smallest and k-th largest of them
 * (@k from 1), the Moses interval's ends.
 */
int il_ab_diffs_interval(const struct il_ab_diffs *d, size_t k, double *lo,
			 double *hi);

/** il_ab_diffs_u() - the Mann-Whitney U of @y over @x, as given to init. */
double il_ab_diffs_u(const struct il_ab_diffs *d, const double *x,
		     const double *y);

#endif
