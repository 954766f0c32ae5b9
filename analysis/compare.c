// SPDX-License-Identifier: GPL-2.0-only
/*
 * compare.c - the A/B table: two or more sides, each chosen by a filter
 * (filter.c), one column group per side, and for every side after the
 * first the change of the median and of the mean against the first side
 * with a bootstrap 95 % confidence interval.  This is how the seeds'
 * "-5.1 %" and "~10 %" claims are made or refuted.
 *
 * Rows are benchmark x metric x target count; everything a side selected
 * for one row (all its runs, CPUs and pairs) merges into one histogram.
 *
 * Design notes - the bootstrap.  Each replicate draws a side's n samples
 * from its merged histogram's bucket distribution (the value of a bucket
 * is its midpoint; buckets are at most 0.1 % wide).  Drawing n values one
 * by one would cost n per replicate, so the counts are drawn as one
 * multinomial, bucket by bucket as conditional binomials: O(buckets) per
 * replicate whatever n is.  Binomials with fewer than 30 expected events
 * on either side are drawn exactly (Bernoulli trials or geometric gaps);
 * larger ones by the normal approximation, whose error is far below the
 * interval's width at such counts.  Raw samples, where stored, agree with
 * the histogram within its 0.1 % resolution, so the histogram is used for
 * every side alike.  The generator is xoshiro256** seeded from --seed
 * through splitmix64, so the same database and seed print the same
 * intervals on every machine.  The interval is the percentile interval
 * (2.5 % and 97.5 % of the replicates' deltas).
 */
#include "analysis.h"
#include "err.h"
#include "groups.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIDES 8

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

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
		r->s[i] = splitmix64(&seed);
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
static int bootstrap(const struct il_hist *a, const struct il_hist *b,
		     const struct il_analysis_opts *o, uint64_t salt,
		     double ci_med[2], double ci_mean[2])
{
	int B = o->resamples > 0 ? o->resamples : 1000, i, ret;
	double *dm = calloc(B, sizeof(double)), *da = calloc(B, sizeof(double));
	struct dist x, y;
	struct rng r;

	ret = dist_init(&x, a) ?: dist_init(&y, b);
	if (ret || !dm || !da) {
		ret = ret ?: il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	/* One stream per row, so adding a row never shifts the others. */
	rng_seed(&r, o->seed ^ (salt * 0x9e3779b97f4a7c15ULL));
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

static int add(const struct il_srow *r, void *arg)
{
	char key[256], n[24];
	const char *labels[6];

	if (r->is_ref && !r->hist)
		return 0;
	snprintf(key, sizeof(key), "%s\x1f%s\x1f%010" PRId64, r->bench, r->metric, r->grp);
	il_fmt_u64(n, sizeof(n), r->grp);
	labels[0] = r->bench;
	labels[1] = r->metric;
	labels[2] = n;
	labels[3] = r->unit;
	labels[4] = NULL;
	return il_grps_add(arg, key, labels, r);
}

static struct il_grp *find(struct il_grps *g, const char *key)
{
	int i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].key, key))
			return &g->v[i];
	return NULL;
}

int il_report_compare(struct il_store *s, const struct il_analysis_opts *o,
		      struct il_table **out)
{
	struct il_grps g[MAX_SIDES] = { 0 }, keys = { 0 };
	int ns = o->ncompare, ncols, i, k, ret = 0;
	char (*colbuf)[80] = NULL;
	const char **cols = NULL, **cells = NULL;
	char (*vals)[64] = NULL;
	struct il_table *t = NULL;

	*out = NULL;
	if (ns < 2 || ns > MAX_SIDES)
		return il_errorf(-EINVAL, "compare needs 2 to %d --compare filters, got %d",
				 MAX_SIDES, ns);
	for (k = 0; !ret && k < ns; k++)
		ret = il_rows_foreach(s, o->bench, o->compare[k], add, &g[k]);
	if (ret)
		goto out;
	/* The rows: the union of every side's keys, sorted. */
	for (k = 0; !ret && k < ns; k++)
		for (i = 0; !ret && i < g[k].n; i++) {
			struct il_srow none = { .p50 = -1, .p99 = -1, .p999 = -1 };

			il_summary_init(&none.sum);
			if (!find(&keys, g[k].v[i].key))
				ret = il_grps_add(&keys, g[k].v[i].key,
						  (const char *const *)g[k].v[i].label, &none);
		}
	if (ret)
		goto out;
	il_grps_sort(&keys);
	ncols = 4 + 3 * ns + 5 * (ns - 1);
	cols = calloc(ncols, sizeof(*cols));
	cells = calloc(ncols, sizeof(*cells));
	colbuf = calloc(ncols, sizeof(*colbuf));
	vals = calloc(ncols, sizeof(*vals));
	if (!cols || !cells || !colbuf || !vals) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	cols[0] = "Benchmark";
	cols[1] = "Metric";
	cols[2] = "Targets";
	cols[3] = "Unit";
	i = 4;
	for (k = 0; k < ns; k++) {
		snprintf(colbuf[i], 80, "S%d n", k + 1);
		snprintf(colbuf[i + 1], 80, "S%d median", k + 1);
		snprintf(colbuf[i + 2], 80, "S%d mean", k + 1);
		i += 3;
	}
	for (k = 1; k < ns; k++) {
		snprintf(colbuf[i], 80, "S%d vs S1 median %%", k + 1);
		snprintf(colbuf[i + 1], 80, "S%d median 95%% CI", k + 1);
		snprintf(colbuf[i + 2], 80, "S%d vs S1 mean %%", k + 1);
		snprintf(colbuf[i + 3], 80, "S%d mean 95%% CI", k + 1);
		snprintf(colbuf[i + 4], 80, "S%d note", k + 1);
		i += 5;
	}
	for (i = 4; i < ncols; i++)
		cols[i] = colbuf[i];
	t = il_table_new("A/B comparison", ncols, cols);
	if (!t) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < ns; i++)
		il_table_note(t, "S%d: %s", i + 1, o->compare_text[i]);
	il_table_note(t, "Delta %% = (Sk - S1) / S1; 95%% CI: percentile bootstrap, %d resamples of each side's merged histogram, seed %" PRIu64 ".",
		      o->resamples > 0 ? o->resamples : 1000, o->seed);
	for (i = 0; !ret && i < keys.n; i++) {
		struct il_grp *p[MAX_SIDES];
		int c = 4;

		for (k = 0; k < ncols; k++)
			snprintf(vals[k], 64, "-");
		for (k = 0; k < 4; k++)
			cells[k] = keys.v[i].label[k];
		for (k = 0; k < ns; k++, c += 3) {
			p[k] = find(&g[k], keys.v[i].key);
			if (!p[k] || !p[k]->sum.count) {
				p[k] = NULL;
				continue;
			}
			il_fmt_u64(vals[c], 64, (int64_t)p[k]->sum.count);
			il_fmt_u64(vals[c + 1], 64, il_grp_pct(p[k], 50));
			il_fmt_f1(vals[c + 2], 64, p[k]->sum.mean);
		}
		for (k = 1; !ret && k < ns; k++, c += 5) {
			double m1, m2, ci_med[2] = { 0, 0 }, ci_mean[2] = { 0, 0 };
			int zero;

			if (!p[0] || !p[k]) {
				snprintf(vals[c + 4], 64, "missing on a side");
				continue;
			}
			m1 = (double)il_grp_pct(p[0], 50);
			m2 = (double)il_grp_pct(p[k], 50);
			if (m1 > 0 && m2 >= 0)
				snprintf(vals[c], 64, "%+.2f", (m2 - m1) / m1 * 100);
			if (p[0]->sum.mean > 0)
				snprintf(vals[c + 2], 64, "%+.2f",
					 (p[k]->sum.mean - p[0]->sum.mean) / p[0]->sum.mean * 100);
			if (p[0]->ref || p[k]->ref) {
				snprintf(vals[c + 4], 64, "reference figures: no interval");
				continue;
			}
			ret = bootstrap(p[0]->hist, p[k]->hist, o,
					(uint64_t)i * MAX_SIDES + (uint64_t)k, ci_med, ci_mean);
			if (ret)
				break;
			snprintf(vals[c + 1], 64, "[%+.2f, %+.2f]", ci_med[0], ci_med[1]);
			snprintf(vals[c + 3], 64, "[%+.2f, %+.2f]", ci_mean[0], ci_mean[1]);
			zero = 0;
			if (ci_med[0] <= 0 && ci_med[1] >= 0)
				zero |= 1;
			if (ci_mean[0] <= 0 && ci_mean[1] >= 0)
				zero |= 2;
			snprintf(vals[c + 4], 64, "%s",
				 zero == 3 ? "CI contains 0: no significant change" :
				 zero == 1 ? "median CI contains 0" :
				 zero == 2 ? "mean CI contains 0" : "significant");
		}
		for (k = 4; k < ncols; k++)
			cells[k] = vals[k];
		if (!ret)
			ret = il_table_add(t, cells);
	}
out:
	if (ret) {
		il_table_free(t);
		t = NULL;
	}
	*out = t;
	for (k = 0; k < MAX_SIDES; k++)
		il_grps_free(&g[k]);
	il_grps_free(&keys);
	free(cols);
	free(cells);
	free(colbuf);
	free(vals);
	return ret;
}
