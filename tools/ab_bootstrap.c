// SPDX-License-Identifier: GPL-2.0-only
/*
 * ab_bootstrap.c - the pooled-sample bootstrap that the A/B table used
 * before issue 12, kept only for tools/ab-sim.c, which measures how often
 * its "95 %" interval covers a true zero shift (far too rarely: it treats
 * autocorrelated samples of a few runs as independent draws and ignores
 * the spread between runs).  No report calls it.
 *
 * Each replicate draws an arm's n samples from its merged histogram's
 * bucket distribution (a bucket's value is its midpoint), as one
 * multinomial drawn bucket by bucket as conditional binomials: O(buckets)
 * per replicate whatever n is.  Binomials with fewer than 30 expected
 * events on either side are drawn exactly (Bernoulli trials or geometric
 * gaps), larger ones by the normal approximation.  The generator is
 * xoshiro256** seeded through splitmix64.  The interval is the percentile
 * interval (2.5 % and 97.5 % of the replicates' deltas).
 */
#include "ab_bootstrap.h"
#include "err.h"
#include "splitmix.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rng {
	uint64_t s[4];
};

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t res = rotl(r->s[1] * 5, 7) * 9, t = r->s[1] << 17;

	r->s[2] ^= r->s[0];
	r->s[3] ^= r->s[1];
	r->s[1] ^= r->s[2];
	r->s[0] ^= r->s[3];
	r->s[2] ^= t;
	r->s[3] = rotl(r->s[3], 45);
	return res;
}

/* Uniform in (0, 1): never 0, so log() below is finite. */
static double rng_unit(struct rng *r)
{
	return ((rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = il_splitmix64(&seed);
}

static uint64_t binomial(struct rng *r, uint64_t n, double p)
{
	double mu, sd, x, u1, u2;
	uint64_t k = 0, i;

	if (!n || p <= 0)
		return 0;
	if (p >= 1)
		return n;
	if (n < 64) {
		for (i = 0; i < n; i++)
			k += rng_unit(r) < p;
		return k;
	}
	if ((double)n * p < 30) {
		/* Geometric gaps between successes: O(np). */
		double lq = log1p(-p), pos = 0;

		for (;;) {
			pos += floor(log(rng_unit(r)) / lq) + 1;
			if (pos > (double)n)
				return k;
			k++;
		}
	}
	if ((double)n * (1 - p) < 30)
		return n - binomial(r, n, 1 - p);
	mu = (double)n * p;
	sd = sqrt(mu * (1 - p));
	/* Two statements: the draws' order must not depend on the compiler. */
	u1 = rng_unit(r);
	u2 = rng_unit(r);
	x = floor(mu + sd * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2) + 0.5);
	if (x < 0)
		return 0;
	return x > (double)n ? n : (uint64_t)x;
}

struct dist {
	int nb;
	double *val;
	uint64_t *cnt;
	uint64_t *draw;
	uint64_t n;
};

static int dist_visit(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
{
	struct dist *d = arg;

	d->val[d->nb] = ((double)lo + (double)hi) / 2;
	d->cnt[d->nb++] = count;
	d->n += count;
	return 0;
}

static int count_visit(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
{
	(void)lo;
	(void)hi;
	(void)count;
	(*(int *)arg)++;
	return 0;
}

static int dist_init(struct dist *d, const struct il_hist *h)
{
	int nb = 0;

	memset(d, 0, sizeof(*d));
	il_hist_foreach(h, count_visit, &nb);
	d->val = calloc(nb + 1, sizeof(*d->val));
	d->cnt = calloc(nb + 1, sizeof(*d->cnt));
	d->draw = calloc(nb + 1, sizeof(*d->draw));
	if (!d->val || !d->cnt || !d->draw)
		return il_errorf(-ENOMEM, "out of memory");
	il_hist_foreach(h, dist_visit, d);
	return 0;
}

static void dist_free(struct dist *d)
{
	free(d->val);
	free(d->cnt);
	free(d->draw);
}

/* One replicate: a multinomial draw of n over the buckets; median, mean. */
static void resample(struct rng *r, struct dist *d, double *med, double *mean)
{
	uint64_t left = d->n, rank, acc = 0;
	double pleft = 1, sum = 0;
	int i;

	for (i = 0; i < d->nb; i++) {
		double p = (double)d->cnt[i] / (double)d->n;

		d->draw[i] = i == d->nb - 1 ? left : binomial(r, left, pleft > 0 ? p / pleft : 1);
		left -= d->draw[i];
		pleft -= p;
		sum += d->val[i] * (double)d->draw[i];
	}
	*mean = sum / (double)d->n;
	rank = (d->n + 1) / 2;
	for (i = 0; i < d->nb; i++) {
		acc += d->draw[i];
		if (acc >= rank) {
			*med = d->val[i];
			return;
		}
	}
	*med = d->val[d->nb - 1];
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The 95 % percentile interval of the deltas of median and of mean. */
int il_ab_pooled_bootstrap(const struct il_hist *a, const struct il_hist *b,
			   uint64_t seed, int resamples, double ci_med[2],
			   double ci_mean[2])
{
	int B = resamples > 0 ? resamples : 1000, i, ret;
	double *dm = calloc(B, sizeof(double)), *da = calloc(B, sizeof(double));
	struct dist x, y;
	struct rng r;

	ret = dist_init(&x, a) ?: dist_init(&y, b);
	if (ret || !dm || !da) {
		ret = ret ?: il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	rng_seed(&r, seed);
	for (i = 0; i < B; i++) {
		double m1, a1, m2, a2;

		resample(&r, &x, &m1, &a1);
		resample(&r, &y, &m2, &a2);
		dm[i] = (m2 - m1) / m1 * 100;
		da[i] = (a2 - a1) / a1 * 100;
	}
	qsort(dm, B, sizeof(double), dbl_cmp);
	qsort(da, B, sizeof(double), dbl_cmp);
	ci_med[0] = dm[(int)floor(0.025 * (B - 1))];
	ci_med[1] = dm[(int)ceil(0.975 * (B - 1))];
	ci_mean[0] = da[(int)floor(0.025 * (B - 1))];
	ci_mean[1] = da[(int)ceil(0.975 * (B - 1))];
out:
	dist_free(&x);
	dist_free(&y);
	free(dm);
	free(da);
	return ret;
}
