// SPDX-License-Identifier: GPL-2.0-only
/*
 * ab_pairs.c - order statistics of the m*n pairwise differences
 * y_j - x_i, and the Mann-Whitney U, without forming the m*n pairs
 * (issue 23, item 5).  The Hodges-Lehmann estimate is the median of those
 * differences and the Moses interval two more of their order statistics;
 * at 10^4 runs a side the pairs are 10^8 doubles, 800 MB, and their sort
 * takes tens of seconds.  ab_stats.c keeps that sort as the reference
 * (il_ab_shift_brute()); tests/unit/test_ab_pairs.c holds the two equal.
 *
 * Design notes.
 * - With x and y sorted, the differences form an implicit matrix whose
 *   row j (y_j) read against x from its largest to its smallest is
 *   ascending, and whose columns are ascending in j.  This stays true of
 *   the computed doubles, not only of the reals: IEEE subtraction rounds
 *   monotonically, so y - x never decreases when y grows or x shrinks.
 *   Every comparison below is on the same computed y_j - x_i the brute
 *   force sorts, so the value selected is that double, bit for bit.
 * - Selection as Monahan (1984) does for the Hodges-Lehmann estimator,
 *   after Johnson and Mizoguchi (1978): each row keeps a window [L, R) of
 *   columns still candidates.  A candidate drawn uniformly at random is
 *   the pivot; one sweep of two pointers (O(m + n), the matrix being
 *   sorted both ways) counts the differences below it and not above it.
 *   The rank asked for either falls among the pivot's ties (done) or
 *   every window shrinks to the side that holds it.  The pivot itself
 *   always leaves the windows, so this ends; a random pivot halves the
 *   candidates in expectation, so O(log(mn)) sweeps.  Once few candidates
 *   are left (at most m + n) they are copied and sorted.
 * - The pivots come from splitmix64 with a fixed seed: the result is
 *   exact whatever the draws, and the running time reproducible.
 * - U counts the pairs y > x once, ties 1/2.  Kept as an integer count of
 *   half pairs, it is exact, and so equal to the brute-force sum of 1 and
 *   0.5 (exact in a double below 2^52 pairs).
 */
#include "ab.h"
#include "ab_pairs.h"
#include "err.h"
#include "splitmix.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Column c of row j: ascending in c and in j. */
static inline double cell(const double *xs, int m, const double *ys, int j,
			  int c)
{
	return ys[j] - xs[m - 1 - c];
}

/*
 * For each row j, the columns whose value is below @p (@le: not above
 * it) into @cnt, and their total.  A row's count never grows with j, so
 * one pointer walks x from its smallest once over all rows.
 */
static size_t count_below(const double *xs, int m, const double *ys, int n,
			  double p, bool le, int *cnt)
{
	size_t total = 0;
	int i = 0, j;

	for (j = 0; j < n; j++) {
		/* i: the first x with ys[j] - x below p (or not above). */
		while (i < m && !(le ? ys[j] - xs[i] <= p : ys[j] - xs[i] < p))
			i++;
		cnt[j] = m - i;
		total += (size_t)(m - i);
	}
	return total;
}

int il_ab_pairs_kth(const double *xs, int m, const double *ys, int n,
		    size_t k, double *out)
{
	size_t left = (size_t)m * (size_t)n, below = 0, c, nlt, nle;
	int *lo, *hi, *lt, *le, j, ret = 0;
	uint64_t seed = 0x23;
	double *v = NULL, p;

	if (m < 1 || n < 1 || k >= left)
		return il_errorf(-EINVAL, "no pairwise difference of rank %zu in %d x %d",
				 k, m, n);
	lo = calloc(n, sizeof(int));
	hi = malloc(n * sizeof(int));
	lt = malloc(n * sizeof(int));
	le = malloc(n * sizeof(int));
	if (!lo || !hi || !lt || !le) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	for (j = 0; j < n; j++)
		hi[j] = m;
	/* Invariant: the k-th smallest is a candidate, every difference
	 * left of a window below it, every one right of it above it. */
	while (left > (size_t)m + (size_t)n) {
		size_t r = il_splitmix64(&seed) % left;

		for (j = 0; r >= (size_t)(hi[j] - lo[j]); j++)
			r -= (size_t)(hi[j] - lo[j]);
		p = cell(xs, m, ys, j, lo[j] + (int)r);
		nlt = count_below(xs, m, ys, n, p, false, lt);
		nle = count_below(xs, m, ys, n, p, true, le);
		if (k >= nlt && k < nle) {
			*out = p;
			goto out;
		}
		left = 0;
		for (j = 0; j < n; j++) {
			if (k < nlt)
				hi[j] = hi[j] < lt[j] ? hi[j] : lt[j];
			else
				lo[j] = lo[j] > le[j] ? lo[j] : le[j];
			if (hi[j] < lo[j])
				hi[j] = lo[j];
			left += (size_t)(hi[j] - lo[j]);
		}
	}
	v = malloc((left + 1) * sizeof(double));
	if (!v) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	for (j = 0, c = 0; j < n; j++) {
		int col;

		below += (size_t)lo[j];
		for (col = lo[j]; col < hi[j]; col++)
			v[c++] = cell(xs, m, ys, j, col);
	}
	qsort(v, left, sizeof(double), dbl_cmp);
	*out = v[k - below];
out:
	free(v);
	free(lo);
	free(hi);
	free(lt);
	free(le);
	return ret;
}

double il_ab_pairs_u(const double *xs, int m, const double *ys, int n)
{
	uint64_t half = 0;
	int i = 0, e = 0, j;

	/* i: the x below ys[j]; e: the x not above it; both only grow. */
	for (j = 0; j < n; j++) {
		while (i < m && xs[i] < ys[j])
			i++;
		if (e < i)
			e = i;
		while (e < m && xs[e] <= ys[j])
			e++;
		half += 2 * (uint64_t)i + (uint64_t)(e - i);
	}
	return (double)half / 2;
}

int il_ab_diffs_init(struct il_ab_diffs *d, const double *x, int m,
		     const double *y, int n, bool brute)
{
	size_t mn = (size_t)m * (size_t)n, i, j, k = 0;

	memset(d, 0, sizeof(*d));
	d->m = m;
	d->n = n;
	if (brute) {
		d->all = malloc(mn * sizeof(double));
		if (!d->all)
			return il_errorf(-ENOMEM, "out of memory");
		for (i = 0; i < (size_t)m; i++)
			for (j = 0; j < (size_t)n; j++)
				d->all[k++] = y[j] - x[i];
		qsort(d->all, mn, sizeof(double), dbl_cmp);
		return 0;
	}
	d->xs = malloc(m * sizeof(double));
	d->ys = malloc(n * sizeof(double));
	if (!d->xs || !d->ys)
		return il_errorf(-ENOMEM, "out of memory");
	memcpy(d->xs, x, m * sizeof(double));
	memcpy(d->ys, y, n * sizeof(double));
	qsort(d->xs, m, sizeof(double), dbl_cmp);
	qsort(d->ys, n, sizeof(double), dbl_cmp);
	return 0;
}

void il_ab_diffs_free(struct il_ab_diffs *d)
{
	free(d->all);
	free(d->xs);
	free(d->ys);
	memset(d, 0, sizeof(*d));
}

/* The @k-th smallest difference (from 0). */
static int diff_at(const struct il_ab_diffs *d, size_t k, double *out)
{
	if (d->all) {
		*out = d->all[k];
		return 0;
	}
	return il_ab_pairs_kth(d->xs, d->m, d->ys, d->n, k, out);
}

int il_ab_diffs_median(const struct il_ab_diffs *d, double *out)
{
	size_t mn = (size_t)d->m * (size_t)d->n;
	double a, b;
	int ret = diff_at(d, mn / 2, &b);

	if (ret || mn % 2) {
		*out = b;
		return ret;
	}
	ret = diff_at(d, mn / 2 - 1, &a);
	*out = (a + b) / 2;
	return ret;
}

int il_ab_diffs_interval(const struct il_ab_diffs *d, size_t k, double *lo,
			 double *hi)
{
	size_t mn = (size_t)d->m * (size_t)d->n;
	int ret = diff_at(d, k - 1, lo);

	return ret ? ret : diff_at(d, mn - k, hi);
}

double il_ab_diffs_u(const struct il_ab_diffs *d, const double *x,
		     const double *y)
{
	double u = 0;
	int i, j;

	if (!d->all)
		return il_ab_pairs_u(d->xs, d->m, d->ys, d->n);
	/* The reference: every pair compared. */
	for (i = 0; i < d->m; i++)
		for (j = 0; j < d->n; j++)
			u += y[j] > x[i] ? 1 : y[j] == x[i] ? 0.5 : 0;
	return u;
}
