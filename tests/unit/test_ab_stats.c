// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ab_stats.c - the run-level A/B statistics (analysis/ab_stats.c)
 * against values worked out by hand from the Mann-Whitney null
 * distribution: the exact p-value and Moses interval of 5 against 5
 * (C(10,5) = 252 orderings), the smallest samples for which a 95 %
 * interval exists at all, the normal approximation with ties, the
 * percent mapping of the log-scale shift, TOST and Holm.
 */
#include "ab.h"
#include "ab_paired.h"
#include "tap.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

TEST(exact_five_against_five)
{
	const double x[] = { 1, 2, 3, 4, 5 }, y[] = { 6, 7, 8, 9, 10 };
	struct il_ab_shift s;

	CHECK(il_ab_shift(x, 5, y, 5, 0.95, &s) == 0);
	CHECK(s.exact);
	CHECKF(s.u == 25, "U %g", s.u);
	/* Only the most extreme ordering each way: 2 / 252. */
	CHECKF(near(s.p, 2.0 / 252, 1e-12), "p %.10f", s.p);
	/* The 25 differences are 1..9 with counts 1 2 3 4 5 4 3 2 1. */
	CHECKF(s.est == 5, "HL %g", s.est);
	/* P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252: k = 3, so the
	 * 3rd smallest and 3rd largest differences, level 1 - 8/252. */
	CHECK(s.ci_ok);
	CHECKF(s.lo == 2 && s.hi == 8, "[%g, %g]", s.lo, s.hi);
	CHECKF(near(s.level, 1 - 8.0 / 252, 1e-12), "level %.6f", s.level);
}

TEST(exact_no_shift_is_symmetric)
{
	const double x[] = { 1, 4, 5, 8 }, y[] = { 2, 3, 6, 7 };
	struct il_ab_shift s;

	CHECK(il_ab_shift(x, 4, y, 4, 0.95, &s) == 0);
	CHECK(s.exact);
	CHECKF(s.u == 8, "U %g", s.u);	/* mn / 2: the middle */
	CHECKF(s.p == 1, "p %g", s.p);
	CHECK(s.ci_ok && s.lo < 0 && s.hi > 0);
}

TEST(too_few_runs_no_interval)
{
	const double x[] = { 1, 2, 3 }, y[] = { 7, 8, 9 };
	const double x4[] = { 1, 2, 3, 4 }, y4[] = { 7, 8, 9, 10 };
	struct il_ab_shift s;

	/* 3 vs 3: P(U = 0) = 1/20 > 0.025, no 95 % interval can exist. */
	CHECK(il_ab_shift(x, 3, y, 3, 0.95, &s) == 0);
	CHECK(!s.ci_ok);
	CHECK(isnan(s.lo) && isnan(s.hi));
	CHECKF(near(s.p, 0.1, 1e-12), "p %g", s.p);
	/* 4 vs 4: 1/70 <= 0.025, the interval is the full range. */
	CHECK(il_ab_shift(x4, 4, y4, 4, 0.95, &s) == 0);
	CHECK(s.ci_ok);
	CHECKF(s.lo == 3 && s.hi == 9, "[%g, %g]", s.lo, s.hi);
	/* At 90 %, 3 vs 3 is possible: 1/20 <= 0.05. */
	CHECK(il_ab_shift(x, 3, y, 3, 0.90, &s) == 0);
	CHECK(s.ci_ok);
	CHECK(il_ab_shift(x, 1, y, 0, 0.95, &s) == -EINVAL);
}

TEST(normal_with_ties)
{
	double x[60], y[60];
	struct il_ab_shift s;
	int i;

	/* Values with ties on a grid; y shifted by exactly 3. */
	for (i = 0; i < 60; i++) {
		x[i] = (i * 7) % 20;
		y[i] = x[i] + 3;
	}
	CHECK(il_ab_shift(x, 60, y, 60, 0.95, &s) == 0);
	CHECK(!s.exact);
	CHECK(s.ci_ok);
	CHECKF(s.est == 3, "HL %g", s.est);
	CHECKF(s.lo <= 3 && s.hi >= 3 && s.lo > 0, "[%g, %g]", s.lo, s.hi);
	CHECKF(s.p < 0.05, "p %g", s.p);
	/* No shift: the middle, p near 1. */
	CHECK(il_ab_shift(x, 60, x, 60, 0.95, &s) == 0);
	CHECKF(s.p > 0.99 && s.lo <= 0 && s.hi >= 0, "p %g [%g, %g]", s.p, s.lo, s.hi);
}

TEST(exact_matches_normal_roughly)
{
	double x[50], y[50];
	struct il_ab_shift e, n;
	int i;

	/* Interleaved distinct values, y a little higher. */
	for (i = 0; i < 50; i++) {
		x[i] = 2.0 * i;
		y[i] = 2.0 * i + 7.5;
	}
	CHECK(il_ab_shift(x, 50, y, 50, 0.95, &e) == 0);
	CHECK(e.exact);
	CHECK(e.path == IL_AB_PATH_EXACT);
	/* One tie: still exact at 50 a side, conditional on the tie. */
	y[0] = x[0];
	CHECK(il_ab_shift(x, 50, y, 50, 0.95, &n) == 0);
	CHECK(n.exact && n.path == IL_AB_PATH_EXACT_TIES);
	CHECKF(near(e.p, n.p, 0.05), "exact %g given ties %g", e.p, n.p);
}

/*
 * Issue 22, item 5: 6 against 6, completely separated, has the exact p
 * 2/924; one tie between the arms sent it to the normal approximation
 * (0.0064).  Conditional on the tie, the two choices of six ranks whose
 * sum is at least the observed 56.5 are {6.5 (either), 8 .. 12}: the
 * one-sided tail is 2/924 and the two-sided p 4/924.
 */
TEST(exact_given_ties)
{
	const double x[] = { 1, 2, 3, 4, 5, 6 }, y[] = { 6, 8, 9, 10, 11, 12 };
	const double xs[] = { 1, 2, 3, 4, 5, 6 }, ys[] = { 7, 8, 9, 10, 11, 12 };
	const double xt[] = { 1, 1, 2 }, yt[] = { 1, 2, 2 };
	struct il_ab_shift s;

	CHECK(il_ab_shift(xs, 6, ys, 6, 0.95, &s) == 0);
	CHECKF(s.path == IL_AB_PATH_EXACT && near(s.p, 2.0 / 924, 1e-12), "p %g", s.p);
	CHECK(il_ab_shift(x, 6, y, 6, 0.95, &s) == 0);
	CHECKF(s.path == IL_AB_PATH_EXACT_TIES, "path %s", il_ab_path_name(s.path));
	CHECKF(near(s.p, 4.0 / 924, 1e-12), "p %.6f, want %.6f", s.p, 4.0 / 924);
	CHECK(s.ci_ok && s.lo > 0);
	/* Ties within and across: the midranks are 2 2 2 5 5 5, y's sum
	 * is 12; of the 20 choices of three, 10 have a sum >= 12 (1 of 15,
	 * 9 of 12), so p = 2 x 10/20 = 1. */
	CHECK(il_ab_shift(xt, 3, yt, 3, 0.95, &s) == 0);
	CHECK(s.path == IL_AB_PATH_EXACT_TIES);
	CHECKF(s.p == 1, "p %g", s.p);
	CHECK(!strcmp(il_ab_path_name(IL_AB_PATH_NORMAL), "normal"));
}

TEST(percent_and_tost)
{
	double a[20], b[20], c[20];
	struct il_ab_result r;
	int i;

	for (i = 0; i < 20; i++) {
		a[i] = 1000 + i;
		b[i] = a[i] * 1.10;
		c[i] = (1000 + (i * 7) % 20 + 0.25) * 1.001;
	}
	CHECK(il_ab_compare(a, 20, b, 20, 0.95, 2, &r) == 0);
	CHECK(r.positive);
	CHECKF(near(r.pct, 10, 1e-9), "shift %g %%", r.pct);
	CHECK(r.lo_pct > 0 && r.hi_pct > r.lo_pct);
	CHECK(r.equiv == IL_AB_EQUIV_NOT_SHOWN);
	/* Nearly equal runs: equivalent within 2 %, and no evidence of a
	 * change either. */
	CHECK(il_ab_compare(a, 20, c, 20, 0.95, 2, &r) == 0);
	CHECKF(r.lo_pct <= 0 && r.hi_pct >= 0, "[%g, %g]", r.lo_pct, r.hi_pct);
	CHECKF(r.equiv == IL_AB_EQUIV_SHOWN, "90%% [%g, %g]", r.eq_lo_pct, r.eq_hi_pct);
	/* Without a margin, no TOST. */
	CHECK(il_ab_compare(a, 20, c, 20, 0.95, 0, &r) == 0);
	CHECK(r.equiv == IL_AB_EQUIV_NONE);
	/* A zero value has no ratio. */
	a[3] = 0;
	CHECK(il_ab_compare(a, 20, b, 20, 0.95, 0, &r) == 0);
	CHECK(!r.positive && isnan(r.pct));
}

/*
 * Issue 22, item 9: TOST adjusted across rows.  4 against 4 has a 90 %
 * interval (P(U = 0) = 1/70 <= 0.05), equivalent within 2 % here; with
 * ten rows in the family Bonferroni asks for the 99 % interval, and 1/70
 * > 0.005: none exists, so equivalence is no longer shown.
 */
TEST(tost_across_rows)
{
	const double a[] = { 1000, 1001, 1002, 1003 };
	const double b[] = { 1000.5, 1001.5, 1002.5, 1003.5 };
	struct il_ab_result r;

	CHECK(il_ab_compare(a, 4, b, 4, 0.95, 2, &r) == 0);
	CHECKF(r.equiv == IL_AB_EQUIV_SHOWN && r.eq_level == 0.90,
	       "90%% [%g, %g]", r.eq_lo_pct, r.eq_hi_pct);
	CHECK(il_ab_tost(a, 4, b, 4, 2, 1 - 0.10 / 10, &r) == 0);
	CHECKF(r.equiv == IL_AB_EQUIV_NOT_SHOWN && !r.eq_ci_ok &&
	       near(r.eq_level, 0.99, 1e-12), "equiv %d level %g", r.equiv, r.eq_level);
	/* The shift itself is left as it was. */
	CHECK(r.s.ci_ok && r.lo_pct < 0.05 && r.hi_pct > 0.05);
	/* Two rows: the 95 % interval, which 4 against 4 still has. */
	CHECK(il_ab_tost(a, 4, b, 4, 2, 1 - 0.10 / 2, &r) == 0);
	CHECK(r.equiv == IL_AB_EQUIV_SHOWN && r.eq_ci_ok);
}

/*
 * Issue 22, item 5: tsc_gaps' loop_period is the same in every run of
 * both arms; the table said "too few runs (10 vs 10)" and TOST "not shown
 * equivalent".  Now: shift 0, interval [0, 0], p 1, equivalent.
 */
TEST(all_runs_equal)
{
	double a[10], b[10];
	struct il_ab_result r;
	int i;

	for (i = 0; i < 10; i++)
		a[i] = b[i] = 13;
	CHECK(il_ab_compare(a, 10, b, 10, 0.95, 5, &r) == 0);
	CHECK(r.all_equal && r.s.ci_ok);
	CHECK(r.pct == 0 && r.lo_pct == 0 && r.hi_pct == 0 && r.s.p == 1);
	CHECK(r.equiv == IL_AB_EQUIV_SHOWN);
	/* One run a side says nothing, equal or not. */
	CHECK(il_ab_compare(a, 1, b, 1, 0.95, 0, &r) == 0);
	CHECK(!r.all_equal && !r.s.ci_ok);
	/* One differing run: the ordinary path. */
	b[3] = 14;
	CHECK(il_ab_compare(a, 10, b, 10, 0.95, 0, &r) == 0);
	CHECK(!r.all_equal && !isnan(r.s.p));
}

/* The signed-rank test over blocks (ab_paired.c), against hand counts. */
TEST(signed_rank_paired)
{
	double up[8] = { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8 };
	double six[6] = { 1, 2, 3, 4, 5, 6 }, zero[6] = { 0 };
	double mixed[6] = { -1, 2, 3, -4, 5, 6 };
	struct il_ab_paired r;

	/* All 8 differences positive: W+ = 36, p = 2 / 2^8. */
	CHECK(il_ab_signed_rank(up, 8, 0.95, &r) == 0);
	CHECKF(r.exact && fabs(r.p - 2.0 / 256) < 1e-12, "p %g", r.p);
	CHECK(r.ci_ok && r.lo > 0 && fabs(r.est - 0.45) < 1e-12);
	/* Six: the smallest n with a 95 % interval, [min, max] Walsh. */
	CHECK(il_ab_signed_rank(six, 6, 0.95, &r) == 0);
	CHECK(fabs(r.p - 2.0 / 64) < 1e-12 && r.ci_ok && r.lo == 1 && r.hi == 6);
	/* Five cannot give one. */
	CHECK(il_ab_signed_rank(six, 5, 0.95, &r) == 0);
	CHECK(!r.ci_ok && fabs(r.p - 2.0 / 32) < 1e-12);
	/* W+ = 2 + 3 + 5 + 6 = 16 of 21: P(W+ >= 16) = P(W+ <= 5) = 10/64
	 * (the subsets of 1..6 summing to at most 5). */
	CHECK(il_ab_signed_rank(mixed, 6, 0.95, &r) == 0);
	CHECKF(fabs(r.p - 2 * 10.0 / 64) < 1e-12, "p %g", r.p);
	/* Every pair equal: no difference, p 1, estimate 0. */
	CHECK(il_ab_signed_rank(zero, 6, 0.95, &r) == 0);
	CHECK(r.p == 1 && r.est == 0);
	CHECK(il_ab_signed_rank(zero, 0, 0.95, &r) == 0 && isnan(r.p));
}

TEST(holm)
{
	const double p[] = { 0.01, 0.04, 0.03, NAN, 0.5 };
	double adj[5];

	il_ab_holm(p, 5, adj);
	/* Four tests: 0.01*4, 0.03*3, max(0.04*2, 0.09), max(0.5, 0.09). */
	CHECKF(near(adj[0], 0.04, 1e-12), "%g", adj[0]);
	CHECKF(near(adj[2], 0.09, 1e-12), "%g", adj[2]);
	CHECKF(near(adj[1], 0.09, 1e-12), "%g", adj[1]);
	CHECKF(near(adj[4], 0.5, 1e-12), "%g", adj[4]);
	CHECK(isnan(adj[3]));
}

/* Reference values computed with mpmath's regularized betainc. */
TEST(harrell_davis)
{
	static const uint64_t ties[] = { 10, 10, 10, 20, 20, 20, 20, 20, 50, 50 };
	struct il_hist *h = il_hist_new(), *t = il_hist_new();
	struct il_summary sum;
	int i;

	CHECK(h && t);
	if (!h || !t)
		goto out;
	for (i = 1; i <= 10; i++)
		il_hist_record(h, 10 * (uint64_t)i);
	for (i = 0; i < 10; i++)
		il_hist_record(t, ties[i]);
	CHECKF(near(il_ab_hd_quantile(h, 0.1), 15.6488482334, 1e-6), "%.10f",
	       il_ab_hd_quantile(h, 0.1));
	CHECKF(near(il_ab_hd_quantile(h, 0.5), 55, 1e-6), "%.10f", il_ab_hd_quantile(h, 0.5));
	CHECKF(near(il_ab_hd_quantile(h, 0.9), 94.3511517666, 1e-6), "%.10f",
	       il_ab_hd_quantile(h, 0.9));
	CHECKF(near(il_ab_hd_quantile(t, 0.3), 14.6509724232, 1e-6), "%.10f",
	       il_ab_hd_quantile(t, 0.3));
	/* The statistic the table asks for: decile 9 of 9 is p90. */
	il_summary_init(&sum);
	CHECK(near(il_ab_run_stat(IL_AB_HD90, h, &sum), 94.3511517666, 1e-6));
	CHECK(!strcmp(il_ab_stat_name(IL_AB_HD10), "HD p10"));
	il_hist_free(t);
	t = il_hist_new();
	CHECK(t != NULL);
	if (!t)
		goto out;
	CHECK(isnan(il_ab_hd_quantile(t, 0.5)));
out:
	il_hist_free(h);
	il_hist_free(t);
}

int main(void)
{
	RUN(exact_five_against_five);
	RUN(exact_no_shift_is_symmetric);
	RUN(too_few_runs_no_interval);
	RUN(normal_with_ties);
	RUN(exact_matches_normal_roughly);
	RUN(exact_given_ties);
	RUN(percent_and_tost);
	RUN(tost_across_rows);
	RUN(all_runs_equal);
	RUN(signed_rank_paired);
	RUN(holm);
	RUN(harrell_davis);
	return tap_done();
}
