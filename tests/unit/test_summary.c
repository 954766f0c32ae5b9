// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_summary.c - checks of the running summary (harness/stats.c): its
 * Welford mean and deviation against a two-pass long double computation,
 * its merge against the summary of the union, its edges, and drop reasons
 * kept through a merge.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "tap.h"
#include "stats.h"
#include "stats_fixture.h"

TEST(summary_welford_vs_two_pass)
{
	enum { N = 1000000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct il_summary s;
	long double sum = 0, ss = 0, mean, sd;
	uint64_t mn = UINT64_MAX, mx = 0;
	size_t i;

	/* Large offset, small spread: where a naive sum of squares fails. */
	rng_seed(12);
	il_summary_init(&s);
	for (i = 0; i < N; i++) {
		v[i] = clamp_value(1e9 + 1000 * rng_normal() +
				   (rng() % 1000 == 0 ? 1e6 : 0));
		il_summary_add(&s, v[i]);
		sum += v[i];
		mn = v[i] < mn ? v[i] : mn;
		mx = v[i] > mx ? v[i] : mx;
	}
	mean = sum / N;
	for (i = 0; i < N; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	sd = sqrtl(ss / (N - 1));
	CHECK(s.count == N && s.min == mn && s.max == mx);
	CHECKF(fabsl(s.mean - mean) <= 1e-9 * mean, "mean %.17g vs %.17Lg",
	       s.mean, mean);
	CHECKF(fabsl(il_summary_stddev(&s) - sd) <= 1e-9 * sd,
	       "stddev %.17g vs %.17Lg", il_summary_stddev(&s), sd);
	free(v);
}

static int summary_close(const struct il_summary *a,
			 const struct il_summary *b)
{
	double sa = il_summary_stddev(a), sb = il_summary_stddev(b);

	return a->count == b->count && a->min == b->min && a->max == b->max &&
	       fabs(a->mean - b->mean) <= 1e-9 * fabs(b->mean) &&
	       fabs(sa - sb) <= 1e-9 * sb;
}

TEST(summary_merge_equals_union)
{
	static const size_t cut[] = { 0, 0, 1, 8, 1008, 50000, 50001, 300000 };
	enum { N = 300000 };
	struct il_summary u, m, part[7], tree;
	uint64_t v;
	size_t i, p;

	rng_seed(13);
	il_summary_init(&u);
	for (p = 0; p < 7; p++)
		il_summary_init(&part[p]);
	for (i = 0, p = 0; i < N; i++) {
		while (i >= cut[p + 1])
			p++;
		/* Each part drawn from its own range, so means differ. */
		v = rng() % (1000 << p) + 100000 * p;
		il_summary_add(&part[p], v);
		il_summary_add(&u, v);
	}
	part[3].dropped = 5;
	part[5].early = 7;

	il_summary_init(&m);
	for (p = 0; p < 7; p++)
		il_summary_merge(&m, &part[p]);
	CHECK(summary_close(&m, &u));
	CHECK(m.dropped == 5 && m.early == 7);

	/* Pairwise, the other way round: the order must not matter. */
	il_summary_init(&tree);
	for (p = 7; p-- > 0;) {
		if (p & 1)
			il_summary_merge(&part[p - 1], &part[p]);
		else
			il_summary_merge(&tree, &part[p]);
	}
	CHECK(summary_close(&tree, &u));
}

TEST(summary_edges)
{
	struct il_summary s, e;

	il_summary_init(&s);
	il_summary_init(&e);
	CHECK(s.count == 0 && il_summary_stddev(&s) == 0);
	il_summary_merge(&s, &e);
	CHECK(s.count == 0 && s.min == UINT64_MAX && s.max == 0);
	il_summary_add(&s, 0);
	CHECK(s.min == 0 && s.max == 0 && s.mean == 0);
	CHECK(il_summary_stddev(&s) == 0);
	il_summary_init(&s);
	il_summary_add(&s, 77);
	CHECK(s.count == 1 && s.min == 77 && s.max == 77 && s.mean == 77);
	CHECK(il_summary_stddev(&s) == 0);
	il_summary_add(&s, 79);
	CHECK(s.mean == 78 && fabs(il_summary_stddev(&s) - sqrt(2)) < 1e-12);
	il_summary_merge(&e, &s);
	CHECK(e.count == 2 && e.min == 77 && e.max == 79 && e.mean == 78);
	il_summary_add(&e, UINT64_MAX);
	CHECK(e.max == UINT64_MAX && e.min == 77);
}

/* Drops keep their reasons through a merge; an unsplit part (a row read
 * from before schema 4) makes the merged split unknown, not zero. */
TEST(summary_drop_reasons_merge)
{
	struct il_summary a, b, m;
	int r;

	il_summary_init(&a);
	il_summary_init(&b);
	CHECK(a.drop_split);
	il_summary_drop(&a, IL_DROP_OVERRUN, 3);
	il_summary_drop(&a, IL_DROP_RANGE, 1);
	il_summary_drop(&b, IL_DROP_RACE, 2);
	il_summary_drop(&b, IL_DROP_LOST, 4);
	CHECK(a.dropped == 4 && b.dropped == 6);
	il_summary_init(&m);
	il_summary_merge(&m, &a);
	il_summary_merge(&m, &b);
	CHECK(m.dropped == 10 && m.drop_split);
	CHECK(m.drop[IL_DROP_RANGE] == 1 && m.drop[IL_DROP_OVERRUN] == 3 &&
	      m.drop[IL_DROP_RACE] == 2 && m.drop[IL_DROP_LOST] == 4);
	b.drop_split = false;
	il_summary_merge(&a, &b);
	CHECK(!a.drop_split && a.dropped == 10);
	for (r = 0; r < IL_DROP_NREASONS; r++)
		CHECKF(il_drop_reason_name(r) != NULL, "reason %d has no name", r);
	CHECK(!strcmp(il_drop_reason_name(IL_DROP_OVERRUN), "overrun"));
	CHECK(il_drop_reason_name(IL_DROP_NREASONS) == NULL);
}

/*
 * Issue 22, item 9: the stationarity check of a run's raw samples, the
 * first tenth against the last.  A steady series passes; one whose level
 * climbs by a third from start to end does not; too few samples,
 * samples not all kept, or a timed list of events are not judged.
 */
TEST(series_stationarity)
{
	struct il_series *s = il_series_new("wake_latency", "ns", 0, -1, -1,
					    false, true);
	struct il_series *t = il_series_new("call_latency", "ns", 0, -1, -1,
					    false, true);
	struct il_series *g = il_series_new("gap", "ns", 0, -1, -1, true, true);
	char why[256] = "";
	int i;

	CHECK(s && t && g);
	if (!s || !t || !g)
		goto out;
	for (i = 0; i < 1000; i++) {
		uint64_t climb = 1000 + (uint64_t)i / 3 + (uint64_t)(i % 11);

		il_series_add(s, 1000 + (uint64_t)(i * 7919 % 101));
		il_series_add(t, climb);
		il_series_add_timed(g, (uint64_t)i * 1000, climb);
	}
	CHECKF(!il_series_drifted(s, why, sizeof(why)), "%s", why);
	CHECK(il_series_drifted(t, why, sizeof(why)));
	CHECKF(strstr(why, "call_latency: first tenth's middle half 10"), "%s", why);
	/* A timed series is a list of events, not judged. */
	CHECK(!il_series_drifted(g, why, sizeof(why)));
	/* A sample not kept raw: no longer judged. */
	t->dropped_raw = 1;
	CHECK(!il_series_drifted(t, why, sizeof(why)));
	t->dropped_raw = 0;
	il_series_free(s);
	s = il_series_new("x", "ns", 0, -1, -1, false, true);
	for (i = 0; s && i < IL_STATIONARY_MIN - 1; i++)
		il_series_add(s, (uint64_t)i * 100);
	CHECK(s && !il_series_drifted(s, why, sizeof(why)));
out:
	il_series_free(s);
	il_series_free(t);
	il_series_free(g);
}

/*
 * Issue 22, item 9d: a run that kept no raw samples is judged too, from
 * the first and last IL_STATIONARY_WIN samples its series keeps (its
 * tenths while they fit): a climb is caught at 1000 samples and at
 * 50000, where only the windows are left; steady noise is not flagged.
 */
TEST(series_stationarity_not_raw)
{
	struct il_series *a = il_series_new("wake_latency", "ns", 0, -1, -1,
					    false, false);
	struct il_series *b = il_series_new("wake_latency", "ns", 0, -1, -1,
					    false, false);
	struct il_series *c = il_series_new("wake_latency", "ns", 0, -1, -1,
					    false, false);
	char why[256] = "";
	int i;

	CHECK(a && b && c && a->win && !a->raw);
	if (!a || !b || !c)
		goto out;
	for (i = 0; i < 50000; i++) {
		if (i < 1000)
			il_series_add(a, 1000 + (uint64_t)i / 3 + (uint64_t)(i % 11));
		il_series_add(b, 1000 + (uint64_t)i / 40 + (uint64_t)(i % 11));
		il_series_add(c, 1000 + (uint64_t)(i * 7919 % 101));
	}
	CHECK(il_series_drifted(a, why, sizeof(why)));
	CHECKF(strstr(why, "wake_latency: first tenth's middle half 10"), "%s", why);
	CHECK(il_series_drifted(b, why, sizeof(why)));
	CHECKF(strstr(why, "first 1024 samples' middle half 10") &&
	       strstr(why, "(of 50000)"), "%s", why);
	CHECKF(!il_series_drifted(c, why, sizeof(why)), "%s", why);
	/* A sample counted past the window (il_summary_add() alone): the
	 * window no longer holds the run's ends, not judged. */
	il_summary_add(&b->sum, 5);
	CHECK(!il_series_drifted(b, why, sizeof(why)));
out:
	il_series_free(a);
	il_series_free(b);
	il_series_free(c);
}

int main(void)
{
	RUN(summary_welford_vs_two_pass);
	RUN(series_stationarity_not_raw);
	RUN(summary_merge_equals_union);
	RUN(summary_edges);
	RUN(summary_drop_reasons_merge);
	RUN(series_stationarity);
	return tap_done();
}
