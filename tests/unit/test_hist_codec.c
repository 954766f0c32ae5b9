// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_hist_codec.c - checks of the histogram's BLOB encoding
 * (harness/stats.c): round trips of real histograms; handmade corrupt
 * BLOBs, every prefix and every single-bit flip of a real one, and random
 * bytes fed to the decoder.  Built with ASan it must never read out of
 * bounds, and whatever it accepts must re-encode to the same bytes.
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

int main(void)
{
	RUN(encode_decode_roundtrip);
	RUN(decode_rejects_corrupt);
	RUN(decode_fuzz);
	return tap_done();
}
