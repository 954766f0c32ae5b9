// SPDX-License-Identifier: GPL-2.0-only
/*
 * ab_hd.c - the Harrell-Davis quantile of one run's histogram, for the
 * A/B table's shift function (--deciles): the decile of every run, then
 * the run-level shift per decile as for any other statistic, so that a
 * location shift (the same shift at every decile) can be told from a tail
 * change (a shift growing toward p90), seed 003's question.
 *
 * Harrell and Davis (Biometrika 69, 1982): the p-quantile of n sorted
 * values is sum_i w_i x_(i) with w_i = I_{i/n}(a, b) - I_{(i-1)/n}(a, b),
 * a = p (n + 1), b = (1 - p)(n + 1), I the regularized incomplete beta
 * function: a smooth average of the order statistics near the quantile,
 * with a smaller variance than a single order statistic.  In a histogram
 * the order statistics of a bucket are its value (the midpoint, at most
 * 0.1 % off), so the sum runs over buckets: value x (I at the bucket's
 * last rank - I at its first), O(buckets) evaluations of I.
 *
 * A run that kept every sample raw gets the sum over its samples instead
 * (il_ab_hd_sorted()), so that its "HD p50" and its exact median agree
 * rather than differ by half a bucket.  The weights fall off like a
 * normal density around rank p n with standard deviation about
 * sqrt(n p (1 - p)) ranks, so the sum runs over a window of 20 of those
 * either side (the weight outside is far below a double's rounding)
 * and over runs of equal values, one evaluation of I per distinct value
 * in the window: at most about 20 000 for 10^6 samples at the median
 * (fewer toward p10 and p90, and with ties), not 10^6.
 *
 * I_x(a, b) is evaluated by its continued fraction (modified Lentz), on
 * the side of x where it converges quickly (x < (a + 1) / (a + b + 2),
 * else 1 - I_{1-x}(b, a)); its terms grow like sqrt(max(a, b)), a few
 * hundred for runs of 10^5 samples.
 */
#include "ab.h"

#include <math.h>
#include <string.h>

#define CF_MAX_ITER	100000
#define CF_EPS		1e-14
#define CF_TINY		1e-300

/* The continued fraction of I_x(a, b), without its front factor. */
static double beta_cf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), f;
	int m;

	if (fabs(d) < CF_TINY)
		d = CF_TINY;
	d = 1 / d;
	f = d;
	for (m = 1; m <= CF_MAX_ITER; m++) {
		double num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)), del;

		/* Even step. */
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < CF_TINY ? 1 / CF_TINY : 1 / d;
		if (fabs(c) < CF_TINY)
			c = CF_TINY;
		f *= d * c;
		/* Odd step. */
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < CF_TINY ? 1 / CF_TINY : 1 / d;
		if (fabs(c) < CF_TINY)
			c = CF_TINY;
		del = d * c;
		f *= del;
		if (fabs(del - 1) < CF_EPS)
			break;
	}
	return f;
}

/*
 * The regularized incomplete beta function I_x(a, b), a, b > 0, with
 * @lg = lgamma(a + b) - lgamma(a) - lgamma(b), the part of its front
 * factor that does not depend on x: a quantile's sum evaluates I at many
 * x for the same a and b, and the three lgamma() were a third of it.
 */
static double ibeta_lg(double a, double b, double lg, double x)
{
	double lf;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lf = lg + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lf) * beta_cf(a, b, x) / a;
	return 1 - exp(lf) * beta_cf(b, a, 1 - x) / b;
}

static double lg_of(double a, double b)
{
	return lgamma(a + b) - lgamma(a) - lgamma(b);
}

/*
 * Several quantiles' sums over one histogram at once: the buckets are
 * visited once for all of them, and each value of I at a bucket's last
 * rank is also the next bucket's value at its first (the same x, so the
 * same double), not evaluated twice.
 */
struct hd {
	int nq;
	double n, rank;
	double a[IL_AB_NDECILES], b[IL_AB_NDECILES], lg[IL_AB_NDECILES];
	double prev[IL_AB_NDECILES], sum[IL_AB_NDECILES];
};

static void hd_init(struct hd *h, const struct il_hist *hist,
		    const double *p, int nq)
{
	int q;

	memset(h, 0, sizeof(*h));
	h->nq = nq;
	h->n = (double)il_hist_count(hist);
	for (q = 0; q < nq; q++) {
		h->a[q] = p[q] * (h->n + 1);
		h->b[q] = (1 - p[q]) * (h->n + 1);
		h->lg[q] = lg_of(h->a[q], h->b[q]);
	}
}

static int hd_visit(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
{
	struct hd *h = arg;
	double mid = ((double)lo + (double)hi) / 2, up;
	int q;

	h->rank += (double)count;
	for (q = 0; q < h->nq; q++) {
		up = ibeta_lg(h->a[q], h->b[q], h->lg[q], h->rank / h->n);
		h->sum[q] += mid * (up - h->prev[q]);
		h->prev[q] = up;
	}
	return 0;
}

double il_ab_hd_quantile(const struct il_hist *h, double p)
{
	struct hd s;

	if (!il_hist_count(h) || p <= 0 || p >= 1)
		return NAN;
	hd_init(&s, h, &p, 1);
	il_hist_foreach(h, hd_visit, &s);
	return s.sum[0];
}

void il_ab_hd_deciles(const struct il_hist *h, double *out)
{
	double p[IL_AB_NDECILES];
	struct hd s;
	int d;

	for (d = 0; d < IL_AB_NDECILES; d++) {
		p[d] = (d + 1) / 10.0;
		out[d] = NAN;
	}
	if (!il_hist_count(h))
		return;
	hd_init(&s, h, p, IL_AB_NDECILES);
	il_hist_foreach(h, hd_visit, &s);
	memcpy(out, s.sum, sizeof(s.sum));
}

/* Half the width of il_ab_hd_sorted()'s window, in ranks. */
#define HD_WINDOW_SD	20

double il_ab_hd_sorted(const uint64_t *v, size_t n, double p)
{
	double dn = (double)n, a, b, lg, half, prev = 0, sum = 0, lo_r, hi_r;
	size_t lo, hi, i, j;

	if (!n || p <= 0 || p >= 1)
		return NAN;
	a = p * (dn + 1);
	b = (1 - p) * (dn + 1);
	lg = lg_of(a, b);
	half = HD_WINDOW_SD * sqrt(dn * p * (1 - p)) + HD_WINDOW_SD;
	lo_r = floor(p * dn - half);
	hi_r = ceil(p * dn + half);
	lo = lo_r < 0 ? 0 : (size_t)lo_r;
	hi = hi_r > dn ? n : (size_t)hi_r;
	/*
	 * Sample v[k] is the order statistic of rank k + 1, its weight
	 * I((k + 1)/n) - I(k/n).  The first run of values takes the weight
	 * below the window too and the last the weight above, so the
	 * weights add up to 1 exactly.
	 */
	for (i = lo; i < hi; i = j) {
		double up;

		for (j = i + 1; j < hi && v[j] == v[i]; j++)
			;
		up = j == hi ? 1 : ibeta_lg(a, b, lg, (double)j / dn);
		sum += (double)v[i] * (up - prev);
		prev = up;
	}
	return sum;
}
