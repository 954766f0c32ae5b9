// SPDX-License-Identifier: GPL-2.0-only
/*
 * ab_stats.c - the run-level statistics of the A/B table (ab.h): the
 * Hodges-Lehmann shift, its Moses interval, the Mann-Whitney p-value,
 * TOST and Holm's adjustment.  Nothing here reads the database.
 *
 * Design notes.
 * - The Moses interval is a pair of order statistics of the m*n pairwise
 *   differences y_j - x_i: [D(k), D(mn + 1 - k)], where k is the largest
 *   integer with P(U <= k - 1) <= (1 - conf) / 2 under no shift.  It is
 *   distribution-free: its coverage is 1 - 2 P(U <= k - 1) whatever the
 *   distribution of the runs, provided the two arms differ by a shift.
 *   When even k = 1 is too wide (P(U = 0) = 1 / C(m + n, m) > alpha / 2,
 *   e.g. 3 runs against 3 at 95 %) no interval at that level exists and
 *   ci_ok is false: the report says so in words.
 * - The estimate and the interval's ends are order statistics of the
 *   pairwise differences; ab_pairs.c selects them without forming the
 *   m*n pairs, and keeps the brute-force sort as the tested reference.
 * - Exact null distribution of U for m, n <= IL_AB_EXACT_MAX, by the
 *   recursion on the largest observation (an x adds no pair, a y adds m
 *   pairs), in probabilities, so nothing overflows: O(m n (m n)).  It
 *   gives the interval's k with or without ties (the Moses interval is
 *   defined for a continuous shift model; a tie only makes two pairwise
 *   differences equal), and the p-value without ties.
 * - With ties, and m, n <= IL_AB_EXACT_MAX, the p-value is the exact
 *   permutation distribution of the rank sum of y conditional on the tie
 *   pattern: every choice of n of the N midranks is equally likely, and
 *   a knapsack over doubled midranks (integers) counts the choices per
 *   sum, O(N n N^2).  Per-run medians that share a histogram bucket tie
 *   often; issue 22 saw the normal path taken by 65 % of null campaigns,
 *   and one tie at 6 against 6 move p from 0.0022 (exact) to 0.0064.
 * - Above the limit, the normal approximation, mean mn/2 and the variance
 *   with the tie correction (mn/12) ((N + 1) - sum(t^3 - t) / (N (N - 1))),
 *   with a continuity correction of 1/2 for the p-value; k is then the
 *   integer nearest to mn/2 - z sd.
 * - Two-sided p: twice the smaller tail, at most 1.
 * - TOST: equivalence within +-margin at level alpha is shown exactly when
 *   the 1 - 2 alpha interval lies inside the margin (the two one-sided
 *   tests, each at alpha); here alpha = 0.05, so the 90 % Moses interval.
 */
#include "ab.h"
#include "ab_pairs.h"
#include "err.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *il_ab_stat_name(enum il_ab_stat s)
{
	switch (s) {
	case IL_AB_MEDIAN:
		return "median";
	case IL_AB_P99:
		return "p99";
	case IL_AB_MEAN:
		return "mean";
	default:
		break;
	}
	if (s >= IL_AB_HD10 && s <= IL_AB_HD90) {
		static const char *const dec[] = {
			"HD p10", "HD p20", "HD p30", "HD p40", "HD p50",
			"HD p60", "HD p70", "HD p80", "HD p90",
		};

		return dec[s - IL_AB_HD10];
	}
	return "?";
}

double il_ab_run_stat(enum il_ab_stat s, const struct il_hist *h,
		      const struct il_summary *sum)
{
	switch (s) {
	case IL_AB_MEDIAN:
		return (double)il_hist_percentile_in(h, 50, sum->min, sum->max);
	case IL_AB_P99:
		return (double)il_hist_percentile_in(h, 99, sum->min, sum->max);
	case IL_AB_MEAN:
		return sum->mean;
	default:
		break;
	}
	if (s >= IL_AB_HD10 && s <= IL_AB_HD90)
		return il_ab_hd_quantile(h, (s - IL_AB_HD10 + 1) / 10.0);
	return NAN;
}

void il_ab_exact_add(struct il_ab_exact *e, bool exact, int64_t p50,
		     int64_t p99)
{
	bool first = !e->nseries++;

	e->all_raw = exact && (first || e->all_raw);
	/* A second series: its stored values are not the merge's. */
	e->ok = first && exact && p50 >= 0 && p99 >= 0;
	e->p50 = p50;
	e->p99 = p99;
}

void il_ab_exact_set(struct il_ab_exact *e, uint64_t *v, size_t n,
		     double *hd)
{
	int i;

	if (!n)
		return;
	/* Sorts @v: the deciles below read it sorted. */
	e->p50 = (int64_t)il_percentile_exact(v, n, 50);
	e->p99 = (int64_t)il_percentile_exact(v, n, 99);
	e->ok = true;
	for (i = 0; hd && i < IL_AB_NDECILES; i++)
		hd[i] = il_ab_hd_sorted(v, n, (i + 1) / 10.0);
}

double il_ab_run_value(enum il_ab_stat s, const struct il_hist *h,
		       const struct il_summary *sum,
		       const struct il_ab_exact *e)
{
	if (e->ok && s == IL_AB_MEDIAN)
		return (double)e->p50;
	if (e->ok && s == IL_AB_P99)
		return (double)e->p99;
	return il_ab_run_stat(s, h, sum);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * P(U = u), u = 0..m*n, for m x's and n y's without ties, into @f (m*n+1
 * doubles).  row[j] holds the distribution for (i, j) as i grows.
 */
static int u_null_exact(int m, int n, double *f)
{
	int mn = m * n, i, j, u;
	double **row = calloc(n + 1, sizeof(*row));
	double *tmp = calloc(mn + 1, sizeof(*tmp));
	int ret = 0;

	if (!row || !tmp) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	for (j = 0; j <= n; j++) {
		row[j] = calloc(mn + 1, sizeof(double));
		if (!row[j]) {
			ret = il_errorf(-ENOMEM, "out of memory");
			goto out;
		}
		row[j][0] = 1;		/* i = 0: U = 0 for sure */
	}
	for (i = 1; i <= m; i++) {
		/* j = 0: no y, U = 0 (row[0] stays as it is). */
		for (j = 1; j <= n; j++) {
			double px = (double)i / (i + j), py = (double)j / (i + j);

			/* row[j] is (i-1, j); row[j-1] is already (i, j-1). */
			for (u = 0; u <= i * j; u++) {
				double a = u <= (i - 1) * j ? row[j][u] : 0;
				double b = u >= i && u - i <= i * (j - 1) ? row[j - 1][u - i] : 0;

				tmp[u] = px * a + py * b;
			}
			memcpy(row[j], tmp, (i * j + 1) * sizeof(double));
		}
	}
	memcpy(f, row[n], (mn + 1) * sizeof(double));
out:
	if (row)
		for (j = 0; j <= n; j++)
			free(row[j]);
	free(row);
	free(tmp);
	return ret;
}

/* sum(t^3 - t) over the tie groups of the pooled sample; -1 on ENOMEM. */
static double tie_sum(const double *x, int m, const double *y, int n)
{
	double *v = malloc((m + n) * sizeof(double)), s = 0;
	int i, j;

	if (!v)
		return -1;
	memcpy(v, x, m * sizeof(double));
	memcpy(v + m, y, n * sizeof(double));
	qsort(v, m + n, sizeof(double), dbl_cmp);
	for (i = 0; i < m + n; i = j) {
		for (j = i + 1; j < m + n && v[j] == v[i]; j++)
			;
		s += pow(j - i, 3) - (j - i);
	}
	free(v);
	return s;
}

struct tagged {
	double v;
	bool y;
};

static int tagged_cmp(const void *a, const void *b)
{
	const struct tagged *x = a, *y = b;

	return (x->v > y->v) - (x->v < y->v);
}

/*
 * The two-sided p of the rank sum of @y among @x and @y under the exact
 * permutation distribution conditional on the ties (design notes): twice
 * the smaller tail at the observed sum, at most 1.
 */
static int p_exact_ties(const double *x, int m, const double *y, int n,
			double *p)
{
	int N = m + n, i, j, a, b, top = 0, total2 = N * (N + 1), w2 = 0;
	struct tagged *t = malloc(N * sizeof(*t));
	int *r2 = malloc(N * sizeof(int));
	double *c = calloc((size_t)(n + 1) * (total2 + 1), sizeof(double));
	double all = 0, lo = 0, hi = 0;

	if (!t || !r2 || !c) {
		free(t);
		free(r2);
		free(c);
		return il_errorf(-ENOMEM, "out of memory");
	}
	for (i = 0; i < m; i++)
		t[i] = (struct tagged){ x[i], false };
	for (i = 0; i < n; i++)
		t[m + i] = (struct tagged){ y[i], true };
	qsort(t, N, sizeof(*t), tagged_cmp);
	/* Doubled midranks: a tie group at ranks a+1 .. b gets a + 1 + b. */
	for (a = 0; a < N; a = b) {
		for (b = a + 1; b < N && t[b].v == t[a].v; b++)
			;
		for (i = a; i < b; i++) {
			r2[i] = a + 1 + b;
			if (t[i].y)
				w2 += r2[i];
		}
	}
	/* c[j * (total2 + 1) + s]: the choices of j of the ranks seen so
	 * far whose doubled sum is s. */
#define C(j, s) c[(size_t)(j) * (total2 + 1) + (s)]
	C(0, 0) = 1;
	for (i = 0; i < N; i++) {
		top += r2[i];
		for (j = i + 1 < n ? i + 1 : n; j >= 1; j--)
			for (a = top; a >= r2[i]; a--)
				C(j, a) += C(j - 1, a - r2[i]);
	}
	for (a = 0; a <= total2; a++) {
		all += C(n, a);
		if (a <= w2)
			lo += C(n, a);
		if (a >= w2)
			hi += C(n, a);
	}
#undef C
	*p = fmin(1, 2 * fmin(lo, hi) / all);
	free(t);
	free(r2);
	free(c);
	return 0;
}

const char *il_ab_path_name(enum il_ab_path p)
{
	switch (p) {
	case IL_AB_PATH_EXACT:
		return "exact";
	case IL_AB_PATH_EXACT_TIES:
		return "exact given ties";
	case IL_AB_PATH_NORMAL:
		return "normal";
	}
	return "?";
}

/* The standard normal quantile, by bisection on erfc (only a few calls). */
static double z_of(double upper_tail)
{
	double lo = 0, hi = 40;
	int i;

	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (0.5 * erfc(mid / M_SQRT2) > upper_tail)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static int shift_with(const double *x, int m, const double *y, int n,
		      double conf, bool brute, struct il_ab_shift *out)
{
	size_t mn = (size_t)m * (size_t)n, i, k = 0;
	double alpha2 = (1 - conf) / 2, ties;
	struct il_ab_diffs d;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->m = m;
	out->n = n;
	out->lo = out->hi = out->p = NAN;
	if (m < 1 || n < 1)
		return il_errorf(-EINVAL, "a shift needs values on both sides (%d, %d)", m, n);
	ret = il_ab_diffs_init(&d, x, m, y, n, brute);
	if (!ret)
		ret = il_ab_diffs_median(&d, &out->est);
	if (ret)
		goto out;
	out->u = il_ab_diffs_u(&d, x, y);
	ties = tie_sum(x, m, y, n);
	if (ties < 0) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	out->exact = m <= IL_AB_EXACT_MAX && n <= IL_AB_EXACT_MAX;
	out->path = !out->exact ? IL_AB_PATH_NORMAL :
		    ties == 0 ? IL_AB_PATH_EXACT : IL_AB_PATH_EXACT_TIES;
	if (out->exact) {
		double *f = malloc((mn + 1) * sizeof(double)), cdf = 0, tail;

		ret = f ? u_null_exact(m, n, f) : il_errorf(-ENOMEM, "out of memory");
		if (ret) {
			free(f);
			goto out;
		}
		/* k: the largest with P(U <= k - 1) <= alpha / 2. */
		for (k = 0; k < mn && cdf + f[k] <= alpha2 * (1 + 1e-12); k++)
			cdf += f[k];
		/* Now P(U <= k - 1) = cdf, and k >= 1 iff an interval exists. */
		if (k >= 1 && 2 * k <= mn + 1) {
			out->ci_ok = true;
			out->level = 1 - 2 * cdf;
			ret = il_ab_diffs_interval(&d, k, &out->lo, &out->hi);
		}
		if (!ret && out->path == IL_AB_PATH_EXACT_TIES) {
			free(f);
			ret = p_exact_ties(x, m, y, n, &out->p);
			goto out;
		}
		/* Tails at the observed U (an integer without ties). */
		tail = 0;
		for (i = 0; i <= (size_t)out->u; i++)
			tail += f[i];
		out->p = tail;
		tail = 0;
		for (i = (size_t)out->u; i <= mn; i++)
			tail += f[i];
		out->p = fmin(1, 2 * fmin(out->p, tail));
		free(f);
	} else {
		double N = m + n, mu = (double)mn / 2;
		double var = (double)mn / 12 * ((N + 1) - ties / (N * (N - 1)));
		double sd = sqrt(var > 0 ? var : 0), dev, z;
		double c = floor(mu - z_of(alpha2) * sd + 0.5);

		if (c >= 1 && sd > 0) {
			k = (size_t)c;
			out->ci_ok = true;
			out->level = conf;
			ret = il_ab_diffs_interval(&d, k, &out->lo, &out->hi);
		}
		dev = fabs(out->u - mu);
		dev = dev >= 0.5 ? dev - 0.5 : 0;
		z = sd > 0 ? dev / sd : 0;
		out->p = fmin(1, erfc(z / M_SQRT2));
	}
out:
	il_ab_diffs_free(&d);
	return ret;
}

/* Set by the reference path of report --compare (compare_reference.c). */
static bool ab_brute;

void il_ab_set_brute(bool brute)
{
	ab_brute = brute;
}

int il_ab_shift(const double *x, int m, const double *y, int n, double conf,
		struct il_ab_shift *out)
{
	return shift_with(x, m, y, n, conf, ab_brute, out);
}

int il_ab_shift_brute(const double *x, int m, const double *y, int n,
		      double conf, struct il_ab_shift *out)
{
	return shift_with(x, m, y, n, conf, true, out);
}

/* Every value of @a and @b the same, with at least 2 on each side. */
static bool all_equal(const double *a, int m, const double *b, int n)
{
	int i;

	if (m < 2 || n < 2)
		return false;
	for (i = 1; i < m; i++)
		if (a[i] != a[0])
			return false;
	for (i = 0; i < n; i++)
		if (b[i] != a[0])
			return false;
	return true;
}

/* TOST on the log values @la, @lb from the interval at @level. */
static int tost_log(const double *la, int m, const double *lb, int n,
		    double margin_pct, double level, struct il_ab_result *out)
{
	struct il_ab_shift eq;
	int ret = il_ab_shift(la, m, lb, n, level, &eq);

	if (ret)
		return ret;
	out->eq_level = level;
	out->eq_ci_ok = eq.ci_ok;
	out->eq_lo_pct = out->eq_hi_pct = NAN;
	out->equiv = IL_AB_EQUIV_NOT_SHOWN;
	if (eq.ci_ok) {
		out->eq_lo_pct = expm1(eq.lo) * 100;
		out->eq_hi_pct = expm1(eq.hi) * 100;
		/* The margin as a ratio, both ways: 1/(1+d) .. 1+d. */
		if (eq.lo > -log1p(margin_pct / 100) && eq.hi < log1p(margin_pct / 100))
			out->equiv = IL_AB_EQUIV_SHOWN;
	}
	return 0;
}

int il_ab_compare(const double *a, int m, const double *b, int n,
		  double conf, double margin_pct, struct il_ab_result *out)
{
	double *la = malloc((m + 1) * sizeof(double));
	double *lb = malloc((n + 1) * sizeof(double));
	int i, ret = 0;

	memset(out, 0, sizeof(*out));
	out->pct = out->lo_pct = out->hi_pct = NAN;
	out->eq_lo_pct = out->eq_hi_pct = NAN;
	out->s.p = NAN;
	if (!la || !lb) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	out->positive = true;
	for (i = 0; i < m; i++) {
		out->positive &= a[i] > 0;
		la[i] = a[i] > 0 ? log(a[i]) : 0;
	}
	for (i = 0; i < n; i++) {
		out->positive &= b[i] > 0;
		lb[i] = b[i] > 0 ? log(b[i]) : 0;
	}
	if (!out->positive)
		goto out;
	if (all_equal(a, m, b, n)) {
		/* Ranks carry no information here, and the rank machinery
		 * would call it "too few runs"; the data say no difference. */
		out->all_equal = true;
		out->s.est = out->s.lo = out->s.hi = 0;
		out->s.ci_ok = true;
		out->s.p = 1;
		out->pct = out->lo_pct = out->hi_pct = 0;
		if (margin_pct > 0) {
			out->eq_ci_ok = true;
			out->eq_lo_pct = out->eq_hi_pct = 0;
			out->eq_level = 0.90;
			out->equiv = IL_AB_EQUIV_SHOWN;
		}
		goto out;
	}
	ret = il_ab_shift(la, m, lb, n, conf, &out->s);
	if (ret)
		goto out;
	out->pct = expm1(out->s.est) * 100;
	if (out->s.ci_ok) {
		out->lo_pct = expm1(out->s.lo) * 100;
		out->hi_pct = expm1(out->s.hi) * 100;
	}
	if (margin_pct > 0)
		ret = tost_log(la, m, lb, n, margin_pct, 0.90, out);
out:
	free(la);
	free(lb);
	return ret;
}

int il_ab_tost(const double *a, int m, const double *b, int n,
	       double margin_pct, double level, struct il_ab_result *out)
{
	double *la, *lb;
	int i, ret;

	if (!out->positive || out->all_equal || margin_pct <= 0)
		return 0;
	la = malloc((m + 1) * sizeof(double));
	lb = malloc((n + 1) * sizeof(double));
	if (!la || !lb) {
		free(la);
		free(lb);
		return il_errorf(-ENOMEM, "out of memory");
	}
	for (i = 0; i < m; i++)
		la[i] = log(a[i]);
	for (i = 0; i < n; i++)
		lb[i] = log(b[i]);
	ret = tost_log(la, m, lb, n, margin_pct, level, out);
	free(la);
	free(lb);
	return ret;
}

struct pidx {
	double p;
	int i;
};

static int pidx_cmp(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	return x->p < y->p ? -1 : x->p > y->p ? 1 : x->i - y->i;
}

void il_ab_holm(const double *p, int k, double *adj)
{
	struct pidx *v = malloc((k + 1) * sizeof(*v));
	double run = 0;
	int i, nt = 0;

	if (!v) {
		/* Without memory the conservative answer is Bonferroni's. */
		for (i = 0; i < k; i++)
			adj[i] = isnan(p[i]) ? p[i] : fmin(1, p[i] * k);
		return;
	}
	for (i = 0; i < k; i++)
		if (!isnan(p[i]))
			v[nt++] = (struct pidx){ p[i], i };
	qsort(v, nt, sizeof(*v), pidx_cmp);
	for (i = 0; i < nt; i++) {
		double a = fmin(1, (double)(nt - i) * v[i].p);

		run = fmax(run, a);	/* step-down: never below an earlier one */
		v[i].p = run;
	}
	for (i = 0; i < k; i++)
		if (isnan(p[i]))
			adj[i] = p[i];
	for (i = 0; i < nt; i++)
		adj[v[i].i] = v[i].p;
	free(v);
}
