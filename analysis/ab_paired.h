/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ab_paired.h - the paired comparison over randomised blocks (issue 22):
 * one difference per block, the log of side k's run value over S1's run
 * value in the same block, tested with the Wilcoxon signed-rank test.
 * A slow drift of the machine moves both runs of a block alike, so it
 * cancels in the difference instead of widening the interval, which is
 * where the unpaired rank-sum test loses power (BENCHMARKS.md §4: with a
 * 20 % drift under blocks it called nothing).
 */
#ifndef IDLELAB_AB_PAIRED_H
#define IDLELAB_AB_PAIRED_H

#include <stdbool.h>

/* Exact signed-rank distribution up to this many non-zero differences. */
#define IL_AB_PAIRED_EXACT_MAX	50

struct il_ab_paired {
	int n;			/* differences, zeros included */
	double est;		/* Hodges-Lehmann: median of the Walsh averages */
	double lo, hi;		/* its interval, when ci_ok */
	bool ci_ok;		/* enough blocks for an interval at @conf */
	double p;		/* two-sided signed-rank p; NaN for n = 0 */
	bool exact;		/* p and interval from the exact distribution */
};

/**
 * il_ab_signed_rank() - the signed-rank test and Hodges-Lehmann estimate
 * with its @conf interval of the @n differences @d (zeros are dropped
 * from the test, as Wilcoxon's, and kept in the estimate).  Exact for at
 * most IL_AB_PAIRED_EXACT_MAX non-zero differences without ties in |d|;
 * otherwise the normal approximation with the tie correction.
 * Return: 0 or -ENOMEM (err.h).
 */
int il_ab_signed_rank(const double *d, int n, double conf,
		      struct il_ab_paired *out);

#endif
