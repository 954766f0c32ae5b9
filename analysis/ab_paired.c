// SPDX-License-Identifier: GPL-2.0-only
/*
 * ab_paired.c - the Wilcoxon signed-rank test, the Hodges-Lehmann shift
 * of paired differences and its distribution-free interval from the
 * sorted Walsh averages (ab_paired.h; Hollander & Wolfe's construction).
 */
#include "ab_paired.h"
#include "err.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * P(W+ <= w) for every w of n untied ranks 1..n: the number of subsets of
 * {1..n} with each sum, over 2^n, by the usual dynamic programme.  Return:
 * a malloc'd array of n(n+1)/2 + 1 cumulative probabilities, or NULL.
 */
static double *exact_cdf(int n)
{
	int max = n * (n + 1) / 2, k, w;
	double *c = calloc((size_t)max + 1, sizeof(double)), acc = 0;

	if (!c)
		return NULL;
	c[0] = 1;
	for (k = 1; k <= n; k++)
		for (w = max; w >= k; w--)
			c[w] += c[w - k];
	for (w = 0; w <= max; w++) {
		acc += c[w] / ldexp(1, n);
		c[w] = acc;
	}
	return c;
}

/* Midranks of |d| (all non-zero), into @r; whether any tie was met; the
 * tie correction sum(t^3 - t) into *@tsum. */
static bool midranks(const double *ad, int n, double *r, double *tsum)
{
	int *ix = malloc((size_t)n * sizeof(int)), i, j, k;
	bool ties = false;

	*tsum = 0;
	if (!ix)
		return false;
	for (i = 0; i < n; i++)
		ix[i] = i;
	/* Insertion sort of indices by |d|: n is a number of blocks. */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && ad[ix[j - 1]] > ad[ix[j]]; j--) {
			k = ix[j];
			ix[j] = ix[j - 1];
			ix[j - 1] = k;
		}
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && ad[ix[j]] == ad[ix[i]]; j++)
			;
		for (k = i; k < j; k++)
			r[ix[k]] = (i + 1 + j) / 2.0;
		if (j - i > 1) {
			ties = true;
			*tsum += (double)(j - i) * (j - i) * (j - i) - (j - i);
		}
	}
	free(ix);
	return ties;
}

/*
 * The test and the interval's rank by the normal approximation, for the
 * @m non-zero of @n differences whose positive ranks sum to @wplus, with
 * the tie correction @tsum (midranks()): the two-sided p into *@p.
 * Return: c, the rank of the interval's ends among the Walsh averages.
 */
static int normal_test(int n, int m, double wplus, double tsum, double alpha,
		       double *p)
{
	double mean = m * (m + 1) / 4.0;
	double var = m * (m + 1) * (2.0 * m + 1) / 24 - tsum / 48;
	double z = var > 0 ? (fabs(wplus - mean) - 0.5) / sqrt(var) : 0;

	/* The interval's rank is over all n differences, as the
	 * estimate's: the untied normal approximation for n. */
	double nmean = n * (n + 1) / 4.0;
	double nsd = sqrt(n * (n + 1) * (2.0 * n + 1) / 24);
	double a = 0, b = 10, q;
	int i, c;

	*p = var > 0 ? fmin(1, erfc(fmax(z, 0) / sqrt(2))) : 1;
	/* z for alpha/2, by bisection on erfc. */
	for (i = 0; i < 100; i++) {
		q = (a + b) / 2;
		if (erfc(q / sqrt(2)) / 2 > alpha / 2)
			a = q;
		else
			b = q;
	}
	c = (int)floor(nmean - a * nsd);
	if (c < 0)
		c = 0;
	return c;
}

int il_ab_signed_rank(const double *d, int n, double conf,
		      struct il_ab_paired *out)
{
	double *ad = NULL, *r = NULL, *walsh = NULL, *cdf = NULL;
	double wplus = 0, tsum = 0, alpha = 1 - conf;
	int m = 0, i, j, k, nw = n * (n + 1) / 2, c = 0, ret = 0;
	bool ties;

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->p = NAN;
	if (n < 1)
		return 0;
	ad = malloc((size_t)n * sizeof(double));
	r = malloc((size_t)n * sizeof(double));
	walsh = malloc((size_t)nw * sizeof(double));
	if (!ad || !r || !walsh) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	/* The estimate: every difference, zeros too. */
	for (i = 0, k = 0; i < n; i++)
		for (j = i; j < n; j++)
			walsh[k++] = (d[i] + d[j]) / 2;
	qsort(walsh, (size_t)nw, sizeof(double), dbl_cmp);
	out->est = nw % 2 ? walsh[nw / 2] : (walsh[nw / 2 - 1] + walsh[nw / 2]) / 2;
	/* The test: the non-zero differences' signed ranks. */
	for (i = 0; i < n; i++)
		if (d[i] != 0)
			ad[m++] = fabs(d[i]);
	if (!m) {
		out->p = 1;
		goto out;
	}
	ties = midranks(ad, m, r, &tsum);
	for (i = 0, k = 0; i < n; i++)
		if (d[i] != 0) {
			if (d[i] > 0)
				wplus += r[k];
			k++;
		}
	out->exact = !ties && m == n && m <= IL_AB_PAIRED_EXACT_MAX;
	if (out->exact) {
		int w = (int)lround(wplus), max = m * (m + 1) / 2;
		double lo, hi;

		cdf = exact_cdf(m);
		if (!cdf) {
			ret = il_errorf(-ENOMEM, "out of memory");
			goto out;
		}
		lo = cdf[w];
		hi = w > 0 ? 1 - cdf[w - 1] : 1;
		out->p = fmin(1, 2 * fmin(lo, hi));
		/* The interval: the c-th smallest and c-th largest Walsh
		 * averages, c the largest with P(W+ <= c - 1) <= alpha/2. */
		while (c < max && cdf[c] <= alpha / 2)
			c++;
	} else {
		c = normal_test(n, m, wplus, tsum, alpha, &out->p);
	}
	if (c >= 1 && c <= nw) {
		out->ci_ok = true;
		out->lo = walsh[c - 1];
		out->hi = walsh[nw - c];
	}
out:
	free(cdf);
	free(ad);
	free(r);
	free(walsh);
	return ret;
}
