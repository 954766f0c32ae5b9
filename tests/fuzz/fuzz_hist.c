// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_hist.c - the histogram codec (harness/stats.c): the input is split
 * at the position its first byte names into two BLOBs, each decoded as
 * the store decodes a histogram read back from a database; two that
 * decode are merged, as a report merges runs.  What decodes must
 * re-encode to a BLOB that decodes to the same count, and a merge must
 * hold the sum of both counts (or have refused to).
 */
#include "fuzz.h"
#include "stats.h"

#include <string.h>

static struct il_hist *decode(const uint8_t *p, size_t len)
{
	struct il_hist *h = NULL;
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		return NULL;
	memcpy(copy, p, len);
	if (il_hist_decode(len ? copy : NULL, len, &h))
		h = NULL;
	free(copy);
	return h;
}

static void roundtrip(const struct il_hist *h)
{
	struct il_hist *again = NULL;
	uint8_t *buf = NULL;
	size_t len = 0;

	if (il_hist_encode(h, &buf, &len))
		return;
	if (il_hist_decode(buf, len, &again))
		fuzz_fail("a decoded histogram re-encodes to a BLOB it refuses");
	if (il_hist_count(again) != il_hist_count(h))
		fuzz_fail("count %llu became %llu through a round trip",
			  (unsigned long long)il_hist_count(h),
			  (unsigned long long)il_hist_count(again));
	il_hist_free(again);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct il_hist *a, *b;
	size_t cut;

	if (!size)
		return 0;
	cut = data[0] < size ? data[0] : size - 1;
	data++;
	size--;
	a = decode(data, cut);
	b = decode(data + cut, size - cut);
	if (a) {
		roundtrip(a);
		(void)il_hist_percentile(a, 99.0);
	}
	if (a && b) {
		uint64_t na = il_hist_count(a), nb = il_hist_count(b);

		if (!il_hist_merge(a, b) && il_hist_count(a) != na + nb &&
		    na + nb >= na)
			fuzz_fail("merge of %llu and %llu holds %llu",
				  (unsigned long long)na, (unsigned long long)nb,
				  (unsigned long long)il_hist_count(a));
		roundtrip(a);
	}
	il_hist_free(a);
	il_hist_free(b);
	return 0;
}
