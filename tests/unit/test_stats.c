// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_stats.c - checks of harness/stats.c's histogram against independent
 * models (its encoding: test_hist_codec.c; the summary: test_summary.c).
 *
 * The histogram's buckets are checked against the layout written out again
 * here from its definition, and its percentiles against exact order
 * statistics of the same samples (sorted, same rank convention, computed in
 * integers) on uniform, constant, bimodal, heavy-tailed, small and huge
 * values, each within 0.1 %.  Merging must give the histogram of the union
 * bucket for bucket and byte for byte once encoded.  All data come from a
 * fixed-seed xorshift64* (stats_fixture.h), so a failure reproduces.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "stats.h"
#include "stats_fixture.h"

#define NBUCKETS	35841	/* slot of 2^44 is 34 * 1024 + 1024 */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Exact percentile, p in millionths, rank ceil(p * n) at least 1. */
static uint64_t exact_pct(const uint64_t *sorted, uint64_t n, uint64_t pm)
{
	uint64_t rank = (pm * n + 999999) / 1000000;

	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

/* The histogram value @got stands for exact value @e: at or above it,
 * equal below 2048, within 0.1 % above. */
/* Within half a bucket of the exact value: a percentile is its bucket's
 * midpoint (issue 22), never the bucket's top. */
static int close_mid(uint64_t got, uint64_t e)
{
	uint64_t d = got > e ? got - e : e - got;

	if (e < 2048)
		return got == e;
	return (double)d <= (double)e * 0.0005 + 1;
}

static const uint64_t pcts_m[] = {
	500000, 900000, 990000, 999000, 999900, 1000000,
};

static struct il_hist *hist_of(const uint64_t *v, size_t n)
{
	struct il_hist *h = il_hist_new();
	size_t i;

	CHECK(h);
	if (!h)
		abort();
	for (i = 0; i < n; i++)
		CHECK(il_hist_record(h, v[i]) == 0);
	return h;
}

/* Record @v, then compare percentiles, min and max with the exact ones. */
static void check_percentiles(const char *what, uint64_t *v, size_t n)
{
	struct il_hist *h = hist_of(v, n);
	uint64_t got, e, lo;
	size_t i;

	qsort(v, n, sizeof(*v), cmp_u64);
	CHECK(il_hist_count(h) == n);
	for (i = 0; i < sizeof(pcts_m) / sizeof(pcts_m[0]); i++) {
		got = il_hist_percentile(h, pcts_m[i] / 1e4);
		e = exact_pct(v, n, pcts_m[i]);
		CHECKF(close_mid(got, e), "%s p%g: got %llu, exact %llu",
		       what, pcts_m[i] / 1e4, (unsigned long long)got,
		       (unsigned long long)e);
		/* Clamped to the exact extremes, never outside them. */
		got = il_hist_percentile_in(h, pcts_m[i] / 1e4, v[0], v[n - 1]);
		CHECKF(got >= v[0] && got <= v[n - 1] && close_mid(got, e),
		       "%s p%g clamped: got %llu, exact %llu, max %llu", what,
		       pcts_m[i] / 1e4, (unsigned long long)got,
		       (unsigned long long)e, (unsigned long long)v[n - 1]);
	}
	got = il_hist_max(h);
	CHECKF(got >= v[n - 1] && (double)(got - v[n - 1]) <= (double)v[n - 1] * 0.001,
	       "%s max %llu, exact %llu", what,
	       (unsigned long long)got, (unsigned long long)v[n - 1]);
	lo = il_hist_min(h);
	CHECKF(lo <= v[0] && (v[0] < 2048 ? lo == v[0] :
			      (double)(v[0] - lo) <= lo * 0.001),
	       "%s min %llu, exact %llu", what, (unsigned long long)lo,
	       (unsigned long long)v[0]);
	il_hist_free(h);
}


/* The layout from its definition: width 1 below 2048, else 2^(log2 v - 10). */
static uint64_t model_width(uint64_t v)
{
	if (v < 2048)
		return 1;
	return UINT64_C(1) << (63 - __builtin_clzll(v) - 10);
}

static int stop_at_3(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
{
	size_t *n = arg;

	(void)hi;
	(void)count;
	if (lo != *n)
		return -1;
	return ++*n == 3 ? 42 : 0;
}

TEST(bucket_layout)
{
	struct il_hist *h = il_hist_new();
	struct buckets bs = { 0 };
	uint64_t lo, w, v;
	size_t i;
	int k;

	/* One value at every bucket's lower edge, as the model places them. */
	for (lo = 0; lo <= HIGHEST; lo += model_width(lo))
		CHECK(il_hist_record(h, lo) == 0);
	il_hist_foreach(h, collect, &bs);
	CHECKF(bs.n == NBUCKETS, "%zu buckets", bs.n);
	for (i = 0, lo = 0; i < bs.n; i++) {
		w = model_width(lo);
		CHECKF(bs.b[i][0] == lo && bs.b[i][1] == lo + w - 1 &&
		       bs.b[i][2] == 1, "bucket %zu [%llu, %llu] x%llu", i,
		       (unsigned long long)bs.b[i][0],
		       (unsigned long long)bs.b[i][1],
		       (unsigned long long)bs.b[i][2]);
		if (lo >= 1024)
			CHECK((double)w <= lo * 0.001);
		lo += w;
	}
	CHECK(bs.n && bs.b[bs.n - 1][0] == HIGHEST);
	free(bs.b);
	/* A non-zero return ends the walk and is passed back. */
	bs.n = 0;
	CHECK(il_hist_foreach(h, stop_at_3, &bs.n) == 42 && bs.n == 3);

	/* Any value falls in the model's bucket: min/max of a single value. */
	rng_seed(1);
	for (k = 0; k < 2000; k++) {
		v = rng() >> (20 + rng() % 44);
		if (v > HIGHEST)
			v = HIGHEST;
		w = model_width(v);
		il_hist_free(h);
		h = il_hist_new();
		CHECK(h != NULL);
		if (!h)
			break;
		CHECK(il_hist_count(h) == 0);
		CHECK(il_hist_record(h, v) == 0);
		CHECKF(il_hist_min(h) == (v & ~(w - 1)) &&
		       il_hist_max(h) == (v | (w - 1)), "value %llu",
		       (unsigned long long)v);
	}
	il_hist_free(h);
}

TEST(record_range)
{
	struct il_hist *h = il_hist_new();

	CHECK(il_hist_record(h, 0) == 0);
	CHECK(il_hist_record(h, HIGHEST) == 0);
	CHECK(il_hist_record(h, HIGHEST + 1) == -ERANGE);
	CHECK(il_hist_record(h, UINT64_MAX) == -ERANGE);
	CHECK(il_hist_record_n(h, HIGHEST + 1, 5) == -ERANGE);
	CHECK(il_hist_count(h) == 2);
	CHECK(il_hist_min(h) == 0);
	CHECK(il_hist_max(h) >= HIGHEST);
	CHECK(il_hist_percentile(h, 50) == 0);
	CHECK(il_hist_percentile(h, 100) <= il_hist_max(h));
	CHECK(il_hist_percentile_in(h, 100, 0, HIGHEST) == HIGHEST);
	/* A total that would wrap is refused, not silently corrupted. */
	CHECK(il_hist_record_n(h, 7, UINT64_MAX - 2) == 0);
	CHECK(il_hist_record_n(h, 7, 1) == -EOVERFLOW);
	CHECK(il_hist_count(h) == UINT64_MAX);
	il_hist_free(h);
}

TEST(small_values_exact)
{
	enum { N = 100000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct il_hist *h;
	size_t i, k;

	rng_seed(2);
	for (i = 0; i < N; i++)
		v[i] = rng() % 2048;
	h = hist_of(v, N);
	qsort(v, N, sizeof(*v), cmp_u64);
	for (k = 1; k <= 1000; k++)
		CHECK(il_hist_percentile(h, k / 10.0) ==
		      exact_pct(v, N, k * 1000));
	CHECK(il_hist_min(h) == v[0] && il_hist_max(h) == v[N - 1]);
	il_hist_free(h);
	free(v);
}

TEST(percentiles_uniform)
{
	enum { N = 1000000 };
	uint64_t *v = malloc(N * sizeof(*v));
	size_t i;

	rng_seed(3);
	for (i = 0; i < N; i++)
		v[i] = rng() % 1000000000;
	check_percentiles("uniform", v, N);
	free(v);
}

TEST(percentiles_constant)
{
	enum { N = 100000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct il_hist *h;
	size_t i, k;

	for (i = 0; i < N; i++)
		v[i] = 123456789;
	check_percentiles("constant", v, N);
	h = hist_of(v, N);
	/* One value: every percentile, clamped, is that value (issue 22
	 * saw Min 2579000, Max 2579000, Median 2580479). */
	for (k = 0; k < sizeof(pcts_m) / sizeof(pcts_m[0]); k++)
		CHECK(il_hist_percentile_in(h, pcts_m[k] / 1e4, 123456789, 123456789) ==
		      123456789);
	il_hist_free(h);
	free(v);
}

TEST(percentiles_bimodal)
{
	enum { N = 500000 };
	uint64_t *v = malloc(N * sizeof(*v));
	size_t i;

	/* A fast path near 1 us and a slow one near 200 us, 3 % of the time:
	 * p99 sits in the gap's far side, p50 and p90 in the near mode. */
	rng_seed(4);
	for (i = 0; i < N; i++)
		v[i] = rng() % 100 < 3 ?
			clamp_value(200000 + 20000 * rng_normal()) :
			clamp_value(1000 + 50 * rng_normal());
	check_percentiles("bimodal", v, N);
	free(v);
}

TEST(percentiles_pareto)
{
	enum { N = 500000 };
	uint64_t *v = malloc(N * sizeof(*v));
	size_t i;

	/* alpha 1.1: a tail heavy enough that p99.99 is orders above p50. */
	rng_seed(5);
	for (i = 0; i < N; i++)
		v[i] = clamp_value(5000 / pow(rng_unit(), 1 / 1.1));
	check_percentiles("pareto", v, N);
	free(v);
}

TEST(percentiles_lognormal)
{
	enum { N = 500000 };
	uint64_t *v = malloc(N * sizeof(*v));
	size_t i;

	rng_seed(6);
	for (i = 0; i < N; i++)
		v[i] = clamp_value(exp(9 + 2 * rng_normal()));
	check_percentiles("lognormal", v, N);
	free(v);
}

TEST(percentiles_huge)
{
	enum { N = 200000 };
	uint64_t *v = malloc(N * sizeof(*v));
	size_t i;

	rng_seed(7);
	for (i = 0; i < N; i++)
		v[i] = HIGHEST - (rng() % (UINT64_C(1) << 40));
	v[0] = HIGHEST;
	check_percentiles("huge", v, N);
	free(v);
}

/* Exact order statistics from raw samples, and where a tail says more
 * than the largest few samples. */
TEST(percentile_exact_and_tails)
{
	uint64_t v[] = { 9, 1, 5, 7, 3 };

	CHECK(il_percentile_exact(v, 5, 50) == 5);
	CHECK(il_percentile_exact(v, 5, 100) == 9);
	CHECK(il_percentile_exact(v, 5, 1) == 1);
	CHECK(il_percentile_exact(v, 0, 50) == 0);
	CHECK(!il_tail_estimable(999, 99));
	CHECK(il_tail_estimable(1000, 99));
	CHECK(!il_tail_estimable(9999, 99.9));
	CHECK(il_tail_estimable(10000, 99.9));
	CHECK(il_tail_estimable(20, 50));
	CHECK(!il_tail_estimable(0, 50));
}

TEST(percentile_rank_convention)
{
	struct il_hist *h = il_hist_new();
	uint64_t i;

	CHECK(il_hist_percentile(h, 50) == 0);
	CHECK(il_hist_min(h) == 0 && il_hist_max(h) == 0);
	for (i = 1; i <= 1000; i++)
		il_hist_record(h, i);
	/* 99.9 and 0.1 are inexact in binary; the rank must still be exact. */
	CHECK(il_hist_percentile(h, 99.9) == 999);
	CHECK(il_hist_percentile(h, 0.1) == 1);
	CHECK(il_hist_percentile(h, 0.1001) == 2);
	CHECK(il_hist_percentile(h, 50) == 500);
	CHECK(il_hist_percentile(h, 50.05) == 501);
	CHECK(il_hist_percentile(h, 100) == 1000);
	CHECK(il_hist_percentile(h, 1e-9) == 1);
	CHECK(il_hist_percentile(h, 150) == 1000);
	CHECK(il_hist_percentile(h, 0) == 1);
	CHECK(il_hist_percentile(h, NAN) == 1);
	for (i = 1; i <= 999; i++)
		CHECK(il_hist_percentile(h, i / 10.0) == i);
	il_hist_free(h);
}

TEST(record_n_equals_records)
{
	struct il_hist *a = il_hist_new(), *b = il_hist_new();
	uint64_t v, n;
	int k, j;

	rng_seed(8);
	for (k = 0; k < 300; k++) {
		v = rng() >> (20 + rng() % 44);
		n = rng() % 20;
		CHECK(il_hist_record_n(a, v, n) == 0);
		for (j = 0; j < (int)n; j++)
			il_hist_record(b, v);
	}
	CHECK(il_hist_count(a) == il_hist_count(b));
	CHECK(same_buckets(a, b));
	CHECK(same_encoding(a, b));
	il_hist_free(a);
	il_hist_free(b);
}

TEST(merge_equals_union)
{
	struct il_hist *a = il_hist_new(), *b = il_hist_new();
	struct il_hist *u = il_hist_new(), *m = il_hist_new();
	struct il_hist *e = il_hist_new();
	uint64_t v;
	int i;

	rng_seed(9);
	for (i = 0; i < 200000; i++) {
		v = rng() % 100000;
		il_hist_record(a, v);
		il_hist_record(u, v);
		v = clamp_value(exp(12 + 3 * rng_normal()));
		il_hist_record(b, v);
		il_hist_record(u, v);
	}
	CHECK(il_hist_merge(m, e) == 0);
	CHECK(il_hist_merge(m, a) == 0);
	CHECK(il_hist_merge(m, b) == 0);
	CHECK(il_hist_merge(m, e) == 0);
	CHECK(il_hist_count(m) == il_hist_count(u));
	CHECK(same_buckets(m, u));
	CHECK(same_encoding(m, u));
	CHECK(il_hist_percentile(m, 99.9) == il_hist_percentile(u, 99.9));
	/* Merging into itself doubles every count. */
	CHECK(il_hist_merge(a, a) == 0);
	CHECK(il_hist_count(a) == 400000);
	il_hist_record_n(e, 0, UINT64_MAX);
	CHECK(il_hist_merge(e, m) == -EOVERFLOW);
	CHECK(il_hist_count(e) == UINT64_MAX);
	il_hist_free(a);
	il_hist_free(b);
	il_hist_free(u);
	il_hist_free(m);
	il_hist_free(e);
}

int main(void)
{
	RUN(bucket_layout);
	RUN(record_range);
	RUN(small_values_exact);
	RUN(percentiles_uniform);
	RUN(percentiles_constant);
	RUN(percentiles_bimodal);
	RUN(percentiles_pareto);
	RUN(percentiles_lognormal);
	RUN(percentiles_huge);
	RUN(percentile_exact_and_tails);
	RUN(percentile_rank_convention);
	RUN(record_n_equals_records);
	RUN(merge_equals_union);
	return tap_done();
}
