// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_theilsen.c - the Theil-Sen slope and Sen's interval of the IPI fit
 * table (analysis/theilsen.c): exact on a line, robust to one wild point,
 * ranks worked by hand for a small case, no interval when the points are
 * too few, and a refusal when every x is the same.
 */
#include "../../analysis/theilsen.h"
#include "err.h"
#include "tap.h"

#include <errno.h>
#include <math.h>

TEST(exact_line)
{
	double x[] = { 0, 2, 4, 8, 16, 0, 2, 4, 8, 16 };
	double y[10];
	struct il_theilsen f;
	int i;

	for (i = 0; i < 10; i++)
		y[i] = 4000 + 1200 * x[i];
	CHECK(il_theilsen(x, y, 10, &f) == 0);
	CHECK(f.npoints == 10);
	/* 45 pairs less the 5 with equal x. */
	CHECK(f.npairs == 40);
	CHECK(fabs(f.slope - 1200) < 1e-9);
	CHECK(f.has_ci && fabs(f.lo - 1200) < 1e-9 && fabs(f.hi - 1200) < 1e-9);
}

/* One run 50x slower moves a least-squares slope a lot, this one not. */
TEST(one_outlier)
{
	double x[10], y[10];
	struct il_theilsen f;
	int i;

	for (i = 0; i < 10; i++) {
		x[i] = i + 1;
		y[i] = 2 * x[i];
	}
	y[9] = 1000;
	CHECK(il_theilsen(x, y, 10, &f) == 0);
	CHECK(fabs(f.slope - 2) < 1e-9);
	/* n = 10, 45 pairs: Var S = 10*9*25/18 = 125, C = 21.91, ranks 11
	 * and 35 of the slopes, 36 of which are exactly 2. */
	CHECK(f.has_ci && fabs(f.lo - 2) < 1e-9 && fabs(f.hi - 2) < 1e-9);
}

/* Ranks worked by hand: x = 1..6, y = x plus a known wobble. */
TEST(interval_ranks)
{
	double x[] = { 1, 2, 3, 4, 5, 6 };
	double y[] = { 1, 3, 2, 5, 4, 7 };
	struct il_theilsen f;

	/* The 15 slopes, sorted: -1 -1 1/3 1/2 3/4 1 1 1 1 6/5 4/3 5/3 2
	 * 3 3, median (the 8th) 1.  Var S = 6*5*17/18 = 28.33, C = 10.43,
	 * so the ends are ranks floor(2.28) = 2 and ceil(12.72) + 1 = 14. */
	CHECK(il_theilsen(x, y, 6, &f) == 0);
	CHECK(f.npairs == 15);
	CHECK(fabs(f.slope - 1) < 1e-9);
	CHECKF(f.has_ci && fabs(f.lo + 1) < 1e-9 && fabs(f.hi - 3) < 1e-9,
	       "ci %g %g", f.lo, f.hi);
}

TEST(too_few_points)
{
	double x[] = { 2, 4, 8, 16 }, y[] = { 10, 20, 41, 79 };
	struct il_theilsen f;

	CHECK(il_theilsen(x, y, 4, &f) == 0);
	CHECK(!f.has_ci);
	CHECK(f.slope > 4.8 && f.slope < 5.2);
}

TEST(one_target_count)
{
	double x[] = { 4, 4, 4 }, y[] = { 1, 2, 3 };
	struct il_theilsen f;

	CHECK(il_theilsen(x, y, 3, &f) == -EINVAL);
}

int main(void)
{
	RUN(exact_line);
	RUN(one_outlier);
	RUN(interval_ranks);
	RUN(too_few_points);
	RUN(one_target_count);
	return tap_done();
}
