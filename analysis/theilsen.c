// SPDX-License-Identifier: GPL-2.0-only
/*
 * theilsen.c - the Theil-Sen slope and Sen's interval (theilsen.h).  All
 * pairwise slopes are kept and sorted: the IPI report fits tens to a few
 * hundred points (runs x target counts), so O(n^2 log n) is nothing.
 */
#include "theilsen.h"
#include "err.h"

#include <math.h>
#include <stdlib.h>

static int dbl_cmp(const void *a, const void *b)
{
	double u = *(const double *)a, v = *(const double *)b;

	return (u > v) - (u < v);
}

/* sum over groups of equal x of t(t-1)(2t+5); @xs sorted. */
static double x_ties(const double *xs, int n)
{
	double sum = 0;
	int i = 0, j;

	while (i < n) {
		for (j = i; j < n && xs[j] == xs[i]; j++)
			;
		sum += (double)(j - i) * (j - i - 1) * (2.0 * (j - i) + 5);
		i = j;
	}
	return sum;
}

int il_theilsen(const double *x, const double *y, int n,
		struct il_theilsen *out)
{
	double *s, *xs, var, c, nd = n;
	long m = 0, lo, hi;
	int i, j;

	out->npoints = n;
	out->npairs = 0;
	out->has_ci = false;
	s = malloc(((size_t)n * (size_t)(n > 1 ? n - 1 : 1) / 2 + 1) * sizeof(*s));
	xs = malloc(((size_t)n + 1) * sizeof(*xs));
	if (!s || !xs) {
		free(s);
		free(xs);
		return il_errorf(-ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (x[j] != x[i])
				s[m++] = (y[j] - y[i]) / (x[j] - x[i]);
	if (!m) {
		free(s);
		free(xs);
		return il_errorf(-EINVAL, "a slope needs two distinct target counts");
	}
	qsort(s, (size_t)m, sizeof(*s), dbl_cmp);
	out->npairs = m;
	out->slope = m % 2 ? s[m / 2] : (s[m / 2 - 1] + s[m / 2]) / 2;
	for (i = 0; i < n; i++)
		xs[i] = x[i];
	qsort(xs, (size_t)n, sizeof(*xs), dbl_cmp);
	var = (nd * (nd - 1) * (2 * nd + 5) - x_ties(xs, n)) / 18;
	c = 1.959963984540054 * sqrt(var > 0 ? var : 0);
	lo = (long)floor(((double)m - c) / 2);
	hi = (long)ceil(((double)m + c) / 2) + 1;
	if (lo >= 1 && hi <= m) {
		out->has_ci = true;
		out->lo = s[lo - 1];
		out->hi = s[hi - 1];
	}
	free(s);
	free(xs);
	return 0;
}
