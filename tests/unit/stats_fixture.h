/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats_fixture.h - what the three checks of harness/stats.c share
 * (test_stats.c: the histogram's layout, percentiles and merge;
 * test_hist_codec.c: its encoding; test_summary.c: the running summary):
 * a fixed-seed xorshift64* so that every failure reproduces, the values it
 * is turned into, and bucket-for-bucket and byte-for-byte comparisons of
 * two histograms.  Include it once, in a test's own file.
 */
#ifndef IDLELAB_STATS_FIXTURE_H
#define IDLELAB_STATS_FIXTURE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define HIGHEST		IL_HIST_HIGHEST

static uint64_t rng_state;

static inline void rng_seed(uint64_t s)
{
	rng_state = s ? s : 1;
}

static inline uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

/* Uniform in (0, 1]: never 0, so logs and powers stay finite. */
static inline double rng_unit(void)
{
	return ((rng() >> 11) + 1) * 0x1.0p-53;
}

static inline double rng_normal(void)
{
	return sqrt(-2 * log(rng_unit())) * cos(2 * M_PI * rng_unit());
}

static inline uint64_t clamp_value(double x)
{
	if (!(x >= 0))
		return 0;
	if (x >= (double)HIGHEST)
		return HIGHEST;
	return (uint64_t)x;
}

struct buckets {
	size_t n, cap;
	uint64_t (*b)[3];
};

static inline int collect(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
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

static inline int same_buckets(const struct il_hist *a, const struct il_hist *b)
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

static inline int same_encoding(const struct il_hist *a, const struct il_hist *b)
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

#endif
