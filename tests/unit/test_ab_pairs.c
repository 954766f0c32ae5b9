// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ab_pairs.c - the selection of pairwise-difference order statistics
 * (analysis/ab_pairs.c) against the brute force that forms and sorts all
 * m*n of them (issue 23, item 5): every rank of many small random cases,
 * and whole shifts (estimate, interval, level, U, p) compared bit for
 * bit, with and without ties, on both the exact (m, n <= 50) and the
 * normal path.  Exact means equal doubles, not near ones: a report that
 * printed a different last digit from the reference would be a bug.
 */
#include "ab.h"
#include "ab_pairs.h"
#include "splitmix.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t seed = 2023;

/* @k values: few distinct ones (many ties) when @levels > 0, else spread. */
static void draw(double *v, int k, int levels)
{
	int i;

	for (i = 0; i < k; i++) {
		uint64_t r = il_splitmix64(&seed);

		/* Logs of positive values, as the A/B table feeds it. */
		v[i] = levels ? log(1 + (double)(r % (uint64_t)levels)) :
		       log1p((double)(r >> 11) / 9007199254740992.0 * 100);
	}
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static bool same(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a));
}

TEST(every_rank_matches_the_sort)
{
	double x[40], y[40], *all = malloc(40 * 40 * sizeof(double)), v;
	int c, bad = 0, cases = 0;

	CHECK(all != NULL);
	for (c = 0; all && c < 300; c++) {
		int m = 1 + (int)(il_splitmix64(&seed) % 40);
		int n = 1 + (int)(il_splitmix64(&seed) % 40);
		int levels = c % 3 ? (int)(c % 7) : 0;
		size_t k, mn = (size_t)m * n, i, j, z = 0;

		draw(x, m, levels);
		draw(y, n, levels);
		qsort(x, m, sizeof(double), dbl_cmp);
		qsort(y, n, sizeof(double), dbl_cmp);
		for (i = 0; i < (size_t)m; i++)
			for (j = 0; j < (size_t)n; j++)
				all[z++] = y[j] - x[i];
		qsort(all, mn, sizeof(double), dbl_cmp);
		for (k = 0; k < mn; k++) {
			if (il_ab_pairs_kth(x, m, y, n, k, &v) || !same(v, all[k]))
				bad++;
		}
		cases++;
	}
	CHECKF(bad == 0, "%d ranks of %d cases differ from the sort", bad, cases);
	CHECK(il_ab_pairs_kth(x, 3, y, 3, 9, &v) < 0);	/* out of range */
	free(all);
}

/* Every field il_ab_shift() fills, compared bit for bit. */
static bool shifts_equal(const struct il_ab_shift *a, const struct il_ab_shift *b)
{
	return a->m == b->m && a->n == b->n && a->exact == b->exact &&
	       a->path == b->path && a->ci_ok == b->ci_ok &&
	       same(a->est, b->est) && same(a->lo, b->lo) &&
	       same(a->hi, b->hi) && same(a->level, b->level) &&
	       same(a->u, b->u) && same(a->p, b->p);
}

TEST(shift_matches_brute_force)
{
	static const double conf[] = { 0.95, 0.90, 1 - 0.10 / 7 };
	double x[120], y[120];
	struct il_ab_shift f, b;
	int c, bad = 0, normal = 0, ties = 0;

	for (c = 0; c < 400; c++) {
		/* Up to 120 a side: past IL_AB_EXACT_MAX, the normal path. */
		int top = c % 4 ? 30 : 120;
		int m = 1 + (int)(il_splitmix64(&seed) % top);
		int n = 1 + (int)(il_splitmix64(&seed) % top);
		double cf = conf[c % 3];

		draw(x, m, c % 2 ? 2 + c % 9 : 0);
		draw(y, n, c % 2 ? 2 + c % 9 : 0);
		if (il_ab_shift(x, m, y, n, cf, &f) ||
		    il_ab_shift_brute(x, m, y, n, cf, &b) ||
		    !shifts_equal(&f, &b)) {
			bad++;
			continue;
		}
		normal += f.path == IL_AB_PATH_NORMAL;
		ties += f.path == IL_AB_PATH_EXACT_TIES;
	}
	CHECKF(bad == 0, "%d of 400 shifts differ from the brute force", bad);
	/* The cases reached every path, or the comparison proves less. */
	CHECKF(normal > 20 && ties > 20, "normal %d, exact with ties %d", normal, ties);
}

TEST(u_counts_ties_half)
{
	const double x[] = { 1, 2, 2, 3 }, y[] = { 2, 2, 4 };
	struct il_ab_diffs d;

	/* y=2: x=1 below, two ties -> 2 each; y=4: 4 below.  U = 8. */
	CHECK(il_ab_pairs_u(x, 4, y, 3) == 8);
	CHECK(il_ab_diffs_init(&d, x, 4, y, 3, true) == 0);
	CHECK(il_ab_diffs_u(&d, x, y) == 8);
	il_ab_diffs_free(&d);
}

int main(void)
{
	RUN(every_rank_matches_the_sort);
	RUN(shift_matches_brute_force);
	RUN(u_counts_ties_half);
	return tap_done();
}
