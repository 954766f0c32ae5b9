// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_stats.c - checks of harness/stats.c against independent models.
 *
 * The histogram's buckets are checked against the layout written out again
 * here from its definition, and its percentiles against exact order
 * statistics of the same samples (sorted, same rank convention, computed in
 * integers) on uniform, constant, bimodal, heavy-tailed, small and huge
 * values, each within 0.1 %.  Merging must give the histogram of the union
 * bucket for bucket and byte for byte once encoded.  The decoder is fed
 * handmade corrupt BLOBs, every prefix and every single-bit flip of a real
 * one, and random bytes; built with ASan it must never read out of bounds,
 * and whatever it accepts must re-encode to the same bytes.  The summary is
 * checked against a two-pass long double computation and its merge against
 * the summary of the union.  All data come from a fixed-seed xorshift64*,
 * so a failure reproduces.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "stats.h"

#define HIGHEST		IL_HIST_HIGHEST
#define NBUCKETS	35841	/* slot of 2^44 is 34 * 1024 + 1024 */

static uint64_t rng_state;

static void rng_seed(uint64_t s)
{
	rng_state = s ? s : 1;
}

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

/* Uniform in (0, 1]: never 0, so logs and powers stay finite. */
static double rng_unit(void)
{
	return ((rng() >> 11) + 1) * 0x1.0p-53;
}

static double rng_normal(void)
{
	return sqrt(-2 * log(rng_unit())) * cos(2 * M_PI * rng_unit());
}

static uint64_t clamp_value(double x)
{
	if (!(x >= 0))
		return 0;
	if (x >= (double)HIGHEST)
		return HIGHEST;
	return (uint64_t)x;
}

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
static int close_above(uint64_t got, uint64_t e)
{
	if (got < e)
		return 0;
	if (e < 2048)
		return got == e;
	return (double)(got - e) <= (double)e * 0.001;
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
		CHECKF(close_above(got, e), "%s p%g: got %llu, exact %llu",
		       what, pcts_m[i] / 1e4, (unsigned long long)got,
		       (unsigned long long)e);
	}
	got = il_hist_max(h);
	CHECKF(close_above(got, v[n - 1]), "%s max %llu, exact %llu", what,
	       (unsigned long long)got, (unsigned long long)v[n - 1]);
	lo = il_hist_min(h);
	CHECKF(lo <= v[0] && (v[0] < 2048 ? lo == v[0] :
			      (double)(v[0] - lo) <= lo * 0.001),
	       "%s min %llu, exact %llu", what, (unsigned long long)lo,
	       (unsigned long long)v[0]);
	il_hist_free(h);
}

struct buckets {
	size_t n, cap;
	uint64_t (*b)[3];
};

static int collect(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
{
	struct buckets *bs = arg;

	if (bs->n == bs->cap) {
		bs->cap = bs->cap ? 2 * bs->cap : 1024;
		bs->b = realloc(bs->b, bs->cap * sizeof(*bs->b));
		if (!bs->b)
			abort();
	}
	bs->b[bs->n][0] = lo;
	bs->b[bs->n][1] = hi;
	bs->b[bs->n][2] = count;
	bs->n++;
	return 0;
}

static int same_buckets(const struct il_hist *a, const struct il_hist *b)
{
	struct buckets x = { 0 }, y = { 0 };
	int same;

	il_hist_foreach(a, collect, &x);
	il_hist_foreach(b, collect, &y);
	same = x.n == y.n && (!x.n || !memcmp(x.b, y.b, x.n * sizeof(*x.b)));
	free(x.b);
	free(y.b);
	return same;
}

static int same_encoding(const struct il_hist *a, const struct il_hist *b)
{
	uint8_t *x = NULL, *y = NULL;
	size_t xn = 0, yn = 0;
	int same;

	if (il_hist_encode(a, &x, &xn) || il_hist_encode(b, &y, &yn))
		return 0;
	same = xn == yn && !memcmp(x, y, xn);
	free(x);
	free(y);
	return same;
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
		il_hist_reset(h);
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
	CHECK(il_hist_percentile(h, 100) == il_hist_max(h));
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
	for (k = 0; k < sizeof(pcts_m) / sizeof(pcts_m[0]); k++)
		CHECK(il_hist_percentile(h, pcts_m[k] / 1e4) == il_hist_max(h));
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

/* Decode an exact-size heap copy, so ASan sees any read past @len. */
static int decode_copy(const uint8_t *buf, size_t len, struct il_hist **out)
{
	uint8_t *p = malloc(len ? len : 1);
	int ret;

	memcpy(p, buf, len);
	*out = (struct il_hist *)1;	/* must be cleared on failure */
	ret = il_hist_decode(len ? p : NULL, len, out);
	free(p);
	return ret;
}

/* Decode, and what is accepted must re-encode to the same bytes. */
static int decode_canonical(const uint8_t *buf, size_t len)
{
	struct il_hist *h;
	uint8_t *re;
	size_t rn;
	int ret = decode_copy(buf, len, &h);

	if (ret) {
		CHECK(h == NULL);
		CHECK(ret == -EPROTO || ret == -EPROTONOSUPPORT);
		return ret;
	}
	CHECK(il_hist_encode(h, &re, &rn) == 0);
	CHECKF(rn == len && !memcmp(re, buf, len), "accepted %zu bytes, "
	       "re-encoded to %zu", len, rn);
	free(re);
	il_hist_free(h);
	return 0;
}

static int count_one(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
{
	(void)lo;
	(void)hi;
	(void)count;
	++*(size_t *)arg;
	return 0;
}

static size_t nonempty(const struct il_hist *h)
{
	size_t n = 0;

	il_hist_foreach(h, count_one, &n);
	return n;
}

TEST(encode_decode_roundtrip)
{
	struct il_hist *src[5], *d;
	uint8_t *buf;
	size_t len;
	int i, k;

	for (i = 0; i < 5; i++)
		src[i] = il_hist_new();
	il_hist_record(src[1], 42);
	il_hist_record(src[1], HIGHEST);
	rng_seed(10);
	for (k = 0; k < 100000; k++)
		il_hist_record(src[2], clamp_value(exp(10 + rng_normal())));
	for (k = 0; k < 100; k++)
		il_hist_record(src[3], rng() % HIGHEST);
	il_hist_record_n(src[4], 0, UINT64_MAX - 1);
	il_hist_record_n(src[4], HIGHEST, 1);
	for (i = 0; i < 5; i++) {
		CHECK(il_hist_encode(src[i], &buf, &len) == 0);
		if (i == 0)
			CHECKF(len == 6, "empty histogram: %zu bytes", len);
		CHECK(len >= 4 && !memcmp(buf, "ILH", 3) &&
		      buf[3] == IL_HIST_LAYOUT);
		CHECK(decode_copy(buf, len, &d) == 0);
		CHECK(il_hist_count(d) == il_hist_count(src[i]));
		CHECK(il_hist_min(d) == il_hist_min(src[i]));
		CHECK(il_hist_max(d) == il_hist_max(src[i]));
		CHECK(il_hist_percentile(d, 99.99) ==
		      il_hist_percentile(src[i], 99.99));
		CHECK(same_buckets(d, src[i]));
		CHECK(decode_canonical(buf, len) == 0);
		/* Sparse: a count and at most one run per non-empty bucket. */
		CHECKF(len <= 14 + 14 * nonempty(src[i]) &&
		       (i != 2 || len <= 3 * nonempty(src[i])),
		       "%zu bytes for %zu buckets", len, nonempty(src[i]));
		il_hist_free(d);
		free(buf);
		il_hist_free(src[i]);
	}
}

TEST(decode_rejects_corrupt)
{
	static const struct {
		const char *what;
		uint8_t b[32];
		size_t len;
		int ret;
	} c[] = {
		{ "empty", { 0 }, 0, -EPROTO },
		{ "magic only", "ILH", 3, -EPROTO },
		{ "wrong magic", "XLH\1\0\0", 6, -EPROTO },
		{ "lower case", "ilh\1\0\0", 6, -EPROTO },
		{ "layout 2", "ILH\2\0\0", 6, -EPROTONOSUPPORT },
		{ "layout 0", "ILH\0\0\0", 6, -EPROTONOSUPPORT },
		{ "layout 255", "ILH\377", 4, -EPROTONOSUPPORT },
		{ "no header", "ILH\1", 4, -EPROTO },
		{ "no slot count", "ILH\1\0", 5, -EPROTO },
		{ "valid empty", "ILH\1\0\0", 6, 0 },
		{ "valid one", "ILH\1\1\1\1", 7, 0 },
		{ "trailing byte", "ILH\1\0\0\0", 7, -EPROTO },
		{ "total mismatch", "ILH\1\2\1\1", 7, -EPROTO },
		{ "empty with total", "ILH\1\1\0", 6, -EPROTO },
		{ "last slot empty", "ILH\1\0\2\0\2", 8, -EPROTO },
		{ "run of zero", "ILH\1\1\3\0\0\1", 9, -EPROTO },
		{ "adjacent runs", "ILH\1\1\4\0\1\0\2\1", 11, -EPROTO },
		{ "run past end", "ILH\1\1\2\0\5\1", 9, -EPROTO },
		{ "too many slots", "ILH\1\0\202\230\2", 8, -EPROTO },
		{ "slot past 2^44", "ILH\1\1\202\230\2\0\201\230\2\1",
		  13, -EPROTO },
		{ "valid 2^44", "ILH\1\1\201\230\2\0\200\230\2\1",
		  13, 0 },
		{ "overlong varint", "ILH\1\200\0\0", 7, -EPROTO },
		{ "truncated varint", "ILH\1\200", 5, -EPROTO },
		{ "varint overflow",
		  "ILH\1\377\377\377\377\377\377\377\377\377\2\0", 15,
		  -EPROTO },
		{ "varint 11 bytes",
		  "ILH\1\377\377\377\377\377\377\377\377\377\201\0\0", 16,
		  -EPROTO },
		{ "max total",
		  "ILH\1\377\377\377\377\377\377\377\377\377\1\1"
		  "\377\377\377\377\377\377\377\377\377\1", 25, 0 },
		{ "counts overflow",
		  "ILH\1\0\2\200\200\200\200\200\200\200\200\200\1"
		  "\200\200\200\200\200\200\200\200\200\1", 26, -EPROTO },
	};
	struct il_hist *h;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ret = decode_copy(c[i].b, c[i].len, &h);
		CHECKF(ret == c[i].ret, "%s: %d", c[i].what, ret);
		CHECKF(ret ? h == NULL : h != NULL, "%s: out", c[i].what);
		if (!ret)
			decode_canonical(c[i].b, c[i].len);
		il_hist_free(ret ? NULL : h);
	}
}

TEST(decode_fuzz)
{
	struct il_hist *src = il_hist_new(), *h;
	uint8_t *buf, *mut, rnd[64];
	size_t len, i, n;
	int bit, k, accepted = 0;

	rng_seed(11);
	for (k = 0; k < 2000; k++)
		il_hist_record(src, clamp_value(exp(8 + 3 * rng_normal())));
	CHECK(il_hist_encode(src, &buf, &len) == 0);

	/* Every strict prefix is a truncation. */
	for (i = 0; i < len; i++)
		CHECKF(decode_copy(buf, i, &h) == -EPROTO && !h,
		       "prefix %zu of %zu", i, len);

	/* Every single-bit flip: an error, or a canonical BLOB. */
	mut = malloc(len);
	for (i = 0; i < len; i++) {
		for (bit = 0; bit < 8; bit++) {
			memcpy(mut, buf, len);
			mut[i] ^= 1u << bit;
			if (!decode_canonical(mut, len))
				accepted++;
		}
	}
	/* A flipped count keeps its length only if the total is flipped too;
	 * no single flip can do both. */
	CHECKF(accepted == 0, "%d bit flips accepted", accepted);
	free(mut);

	/* Random bytes, half behind a valid magic and layout. */
	for (k = 0; k < 20000; k++) {
		n = rng() % sizeof(rnd);
		/* A quarter of tiny bytes, so short plausible varints occur. */
		for (i = 0; i < n; i++)
			rnd[i] = rng() % 4 ? rng() : rng() % 3;
		if ((k & 1) && n >= 4)
			memcpy(rnd, "ILH\1", 4);
		decode_canonical(rnd, n);
	}
	free(buf);
	il_hist_free(src);
}

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
	RUN(percentile_rank_convention);
	RUN(record_n_equals_records);
	RUN(merge_equals_union);
	RUN(encode_decode_roundtrip);
	RUN(decode_rejects_corrupt);
	RUN(decode_fuzz);
	RUN(summary_welford_vs_two_pass);
	RUN(summary_merge_equals_union);
	RUN(summary_edges);
	RUN(summary_drop_reasons_merge);
	return tap_done();
}
