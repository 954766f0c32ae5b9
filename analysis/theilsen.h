/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * theilsen.h - internal to analysis/: the Theil-Sen slope of y against x
 * with Sen's distribution-free confidence interval, the fit the IPI report
 * uses for the cost of one more target.  Robust to the odd slow run (the
 * median of pairwise slopes ignores up to ~29 % outliers) and needs no
 * assumption on the shape of the per-run noise, only that the points are
 * independent: the caller gives one point per run and target count.
 */
#ifndef IDLELAB_ANALYSIS_THEILSEN_H
#define IDLELAB_ANALYSIS_THEILSEN_H

#include <stdbool.h>

struct il_theilsen {
	int npoints;
	long npairs;		/* pairs with distinct x: the slopes */
	double slope;		/* median of the pairwise slopes */
	bool has_ci;		/* false: too few points for the interval */
	double lo, hi;		/* 95 % interval, when has_ci */
};

/**
 * il_theilsen() - fit @n points (@x, @y).  The 95 % interval is Sen's
 * (1968): with C = 1.96 * sqrt(Var S), Var S the variance of Kendall's S
 * under no association with ties in x, [n(n-1)(2n+5) - sum t(t-1)(2t+5)] /
 * 18, its ends are the pairwise slopes of ranks floor((N - C) / 2) and
 * ceil((N + C) / 2) + 1 (1-based, N = @out->npairs); when either rank
 * falls outside 1..N there is no interval (has_ci false).
 * Return: 0; -EINVAL when fewer than two distinct x; -ENOMEM.
 */
int il_theilsen(const double *x, const double *y, int n,
		struct il_theilsen *out);

#endif
