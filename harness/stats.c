// SPDX-License-Identifier: GPL-2.0-only
/*
 * stats.c - exact running summaries and the mergeable log-linear histogram.
 *
 * The histogram uses HdrHistogram's layout for lowest discernible value 1,
 * 3 significant digits and highest trackable value 2^44: a value v belongs
 * to bucket b = max(0, floor(log2(v)) - 10) and sub-bucket s = v >> b, so s
 * lies in [1024, 2048) (in [0, 2048) for b = 0) and the flat index is
 * b * 1024 + s.  Below 2048 every value has its own slot; above, a slot is
 * 2^b wide starting at s << b with s >= 1024, so its width is at most 1/1024
 * of its lower edge, inside the promised 0.1 %.  The index is a clz, a
 * shift and an add, which keeps recording cheap enough for the hot loop of
 * a latency benchmark, and because every histogram of one layout has the
 * same slots, merging two of them is adding their counts.  The counts array
 * stops at the slot of IL_HIST_HIGHEST (index 35840): nothing above it is
 * ever recorded.
 *
 * The BLOB is "ILH", the layout byte, then LEB128 varints: the total count,
 * the number n of slots it describes (the last non-empty index + 1), and
 * tokens for slots 0..n-1, where a non-zero token is the count of the next
 * slot and a 0 token is followed by the length of a run of empty slots.
 * Latency histograms are a narrow band of non-empty slots, so a run fits
 * in tens to hundreds of bytes.  The decoder accepts exactly what the encoder
 * produces (no overlong varints, no empty or adjacent runs, no trailing zero
 * slots or bytes), so a stored BLOB re-encodes to itself byte for byte, and
 * it validates the whole BLOB before allocating anything.
 */
#include "stats.h"
#include "err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB_HALF_MAG	10			/* log2(sub_bucket_count / 2) */
#define SUB_HALF	(1u << SUB_HALF_MAG)	/* 1024 */
#define SUB_MASK	(UINT64_C(2) * SUB_HALF - 1)	/* 2047 */
/* HdrHistogram's bucket, 63 - clz(v | mask) - (mag + 1), with the
 * constants folded: 53 - clz(v | 2047).  OR-ing in the mask puts every
 * v < 2048 in bucket 0 and keeps clz's argument non-zero. */
#define BUCKET_BASE	(64 - SUB_HALF_MAG - 1)
#define NCOUNTS		(((44 - SUB_HALF_MAG) << SUB_HALF_MAG) + SUB_HALF + 1)

struct il_hist {
	uint64_t total;
	uint64_t counts[NCOUNTS];
};

_Static_assert(IL_HIST_HIGHEST == UINT64_C(1) << 44,
	       "NCOUNTS assumes the 2^44 ceiling");
_Static_assert(IL_HIST_SIGFIGS == 3, "SUB_HALF assumes 3 digits");

static inline unsigned int index_of(uint64_t v)
{
	unsigned int b = BUCKET_BASE - __builtin_clzll(v | SUB_MASK);

	return (b << SUB_HALF_MAG) + (unsigned int)(v >> b);
}

/* Bucket b of index i, and its lowest value; slots below 2048 are exact. */
static inline unsigned int shift_of(unsigned int i)
{
	return i < 2 * SUB_HALF ? 0 : (i >> SUB_HALF_MAG) - 1;
}

static inline uint64_t lowest_of(unsigned int i)
{
	unsigned int b = shift_of(i);

	return (uint64_t)(i - (b << SUB_HALF_MAG)) << b;
}

static inline uint64_t highest_of(unsigned int i)
{
	return lowest_of(i) + (UINT64_C(1) << shift_of(i)) - 1;
}

struct il_hist *il_hist_new(void)
{
	struct il_hist *h = calloc(1, sizeof(*h));

	if (!h)
		il_errorf(-ENOMEM, "out of memory for a histogram");
	return h;
}

void il_hist_free(struct il_hist *h)
{
	free(h);
}

/*
 * No il_errorf() here: -ERANGE says it all, and a run that overflows would
 * otherwise format a message per sample in the benchmark's hot loop.
 */
int il_hist_record(struct il_hist *h, uint64_t v)
{
	if (__builtin_expect(v > IL_HIST_HIGHEST, 0))
		return -ERANGE;
	h->counts[index_of(v)]++;
	h->total++;
	return 0;
}

int il_hist_record_n(struct il_hist *h, uint64_t v, uint64_t n)
{
	if (v > IL_HIST_HIGHEST)
		return il_errorf(-ERANGE, "value %llu above the histogram's "
				 "ceiling", (unsigned long long)v);
	/* Every count is at most the total, so this guards them all. */
	if (n > UINT64_MAX - h->total)
		return il_errorf(-EOVERFLOW, "histogram count overflow");
	h->counts[index_of(v)] += n;
	h->total += n;
	return 0;
}

int il_hist_merge(struct il_hist *dst, const struct il_hist *src)
{
	unsigned int i;

	if (src->total > UINT64_MAX - dst->total)
		return il_errorf(-EOVERFLOW, "histogram count overflow");
	for (i = 0; i < NCOUNTS; i++)
		dst->counts[i] += src->counts[i];
	dst->total += src->total;
	return 0;
}

uint64_t il_hist_count(const struct il_hist *h)
{
	return h->total;
}

uint64_t il_hist_min(const struct il_hist *h)
{
	unsigned int i;

	for (i = 0; i < NCOUNTS; i++)
		if (h->counts[i])
			return lowest_of(i);
	return 0;
}

/*
 * From the bottom, up to the bucket where the counts reach the total
 * (total == sum(counts), which every writer and il_hist_decode() keep):
 * latencies fill the low buckets, so a scan down from the top crossed
 * most of the array's 0.4 MB for every row a report reads.
 */
uint64_t il_hist_max(const struct il_hist *h)
{
	uint64_t seen = 0;
	unsigned int i;

	for (i = 0; i < NCOUNTS && h->total; i++) {
		seen += h->counts[i];
		if (seen >= h->total)
			return highest_of(i);
	}
	return 0;
}

/*
 * ceil(p / 100 * count), clamped to [1, count].  p = 99.9 is not exact in
 * binary, so 99.9 / 100 * 1000 comes out as 999.0000000000001; a plain
 * ceil() would then pick rank 1000.  A product within a few ulps of an
 * integer is taken to be that integer, which is what the caller meant.
 */
static uint64_t rank_of(uint64_t count, double p)
{
	long double x, r;

	if (!(p > 0))
		return 1;
	if (p >= 100)
		return count;
	x = (long double)p / 100 * (long double)count;
	r = ceill(x);
	if (r - x > 0 && (x - (r - 1)) <= x * 4 * (long double)__DBL_EPSILON__)
		r -= 1;
	if (r < 1)
		return 1;
	if (r >= (long double)count)
		return count;
	return (uint64_t)r;
}

uint64_t il_hist_percentile(const struct il_hist *h, double p)
{
	uint64_t rank, seen = 0;
	unsigned int i;

	if (!h->total)
		return 0;
	rank = rank_of(h->total, p);
	for (i = 0; i < NCOUNTS; i++) {
		seen += h->counts[i];
		if (seen >= rank)
			return lowest_of(i) + (highest_of(i) - lowest_of(i)) / 2;
	}
	return 0;	/* unreachable while total == sum(counts) */
}

uint64_t il_hist_percentile_in(const struct il_hist *h, double p,
			       uint64_t min, uint64_t max)
{
	uint64_t v = il_hist_percentile(h, p);

	if (!h->total || min > max)
		return v;
	return v < min ? min : v > max ? max : v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

uint64_t il_percentile_exact(uint64_t *v, size_t n, double p)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[rank_of(n, p) - 1];
}

bool il_tail_estimable(uint64_t n, double p)
{
	/* The 1e-9 keeps 1000 samples at p99 estimable despite 0.99's
	 * binary rounding (1000 * 0.01 = 9.99999...). */
	return (double)n * (1 - p / 100) + 1e-9 >= 10;
}

bool il_pct_over(uint64_t count, uint64_t over, double *p)
{
	double rank;

	if (!over)
		return true;
	rank = ceil(*p / 100 * (double)(count + over) - 1e-9);
	if (rank > (double)count)
		return false;
	*p = (rank - 0.5) * 100 / (double)count;
	return true;
}

int il_hist_foreach(const struct il_hist *h,
		    int (*fn)(uint64_t lo, uint64_t hi, uint64_t count,
			      void *arg),
		    void *arg)
{
	uint64_t seen = 0;
	unsigned int i;
	int ret;

	/* Not past the last sample (see il_hist_max()). */
	for (i = 0; i < NCOUNTS && seen < h->total; i++) {
		if (!h->counts[i])
			continue;
		seen += h->counts[i];
		ret = fn(lowest_of(i), highest_of(i), h->counts[i], arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* With @p NULL only the length is computed, so encode can size exactly. */
static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		if (v)
			b |= 0x80;
		if (p)
			p[n] = b;
		n++;
	} while (v);
	return n;
}

static size_t put_blob(const struct il_hist *h, uint8_t *p)
{
	unsigned int i, n = 0, run;
	size_t len = 4;

	for (i = 0; i < NCOUNTS; i++)
		if (h->counts[i])
			n = i + 1;
	if (p) {
		memcpy(p, "ILH", 3);
		p[3] = IL_HIST_LAYOUT;
	}
	len += put_varint(p ? p + len : NULL, h->total);
	len += put_varint(p ? p + len : NULL, n);
	for (i = 0; i < n; i++) {
		if (h->counts[i]) {
			len += put_varint(p ? p + len : NULL, h->counts[i]);
			continue;
		}
		for (run = 1; !h->counts[i + run]; run++)
			;	/* stops: counts[n - 1] != 0 */
		len += put_varint(p ? p + len : NULL, 0);
		len += put_varint(p ? p + len : NULL, run);
		i += run - 1;
	}
	return len;
}

int il_hist_encode(const struct il_hist *h, uint8_t **buf, size_t *len)
{
	size_t n = put_blob(h, NULL);
	uint8_t *p = malloc(n);

	if (!p)
		return il_errorf(-ENOMEM, "out of memory encoding a histogram");
	put_blob(h, p);
	*buf = p;
	*len = n;
	return 0;
}

static int get_varint(const uint8_t *buf, size_t len, size_t *pos,
		      uint64_t *out)
{
	size_t i = *pos, start = *pos;
	unsigned int shift = 0;
	uint64_t v = 0;
	uint8_t b;

	for (;;) {
		if (i >= len)
			return il_errorf(-EPROTO, "histogram BLOB truncated "
					 "at byte %zu", i);
		b = buf[i++];
		/* The tenth byte carries bit 63 only. */
		if (shift == 63 && b > 1)
			return il_errorf(-EPROTO, "histogram BLOB: varint "
					 "overflow at byte %zu", start);
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
	}
	if (b == 0 && i - start > 1)
		return il_errorf(-EPROTO, "histogram BLOB: overlong varint "
				 "at byte %zu", start);
	*pos = i;
	*out = v;
	return 0;
}

/*
 * Walk the slot tokens from @pos; with @counts NULL only validate.  Called
 * twice by decode so corrupt input is rejected before any allocation.
 */
static int get_slots(const uint8_t *buf, size_t len, size_t pos,
		     uint64_t n, uint64_t total, uint64_t *counts)
{
	uint64_t i = 0, t, run, sum = 0;
	int ret, prev_run = 0;

	while (i < n) {
		ret = get_varint(buf, len, &pos, &t);
		if (ret)
			return ret;
		if (t) {
			if (t > UINT64_MAX - sum)
				return il_errorf(-EPROTO, "histogram BLOB: "
						 "counts overflow");
			sum += t;
			if (counts)
				counts[i] = t;
			i++;
			prev_run = 0;
			continue;
		}
		ret = get_varint(buf, len, &pos, &run);
		if (ret)
			return ret;
		/* A run never ends the slots: n stops at a non-empty one. */
		if (!run || prev_run || run >= n - i)
			return il_errorf(-EPROTO, "histogram BLOB: bad run of "
					 "%llu empty slots at slot %llu",
					 (unsigned long long)run,
					 (unsigned long long)i);
		i += run;
		prev_run = 1;
	}
	if (pos != len)
		return il_errorf(-EPROTO, "histogram BLOB: %zu trailing bytes",
				 len - pos);
	if (sum != total)
		return il_errorf(-EPROTO, "histogram BLOB: total %llu but "
				 "counts sum to %llu",
				 (unsigned long long)total,
				 (unsigned long long)sum);
	return 0;
}

int il_hist_decode(const uint8_t *buf, size_t len, struct il_hist **out)
{
	uint64_t total, n;
	struct il_hist *h;
	size_t pos = 4;
	int ret;

	*out = NULL;
	if (len < 4 || !buf || memcmp(buf, "ILH", 3))
		return il_errorf(-EPROTO, "not an idlelab histogram BLOB");
	if (buf[3] != IL_HIST_LAYOUT)
		return il_errorf(-EPROTONOSUPPORT, "histogram layout %u, this "
				 "build reads layout %u", buf[3],
				 IL_HIST_LAYOUT);
	ret = get_varint(buf, len, &pos, &total);
	if (ret)
		return ret;
	ret = get_varint(buf, len, &pos, &n);
	if (ret)
		return ret;
	if (n > NCOUNTS)
		return il_errorf(-EPROTO, "histogram BLOB: %llu slots, "
				 "layout has %u", (unsigned long long)n,
				 NCOUNTS);
	ret = get_slots(buf, len, pos, n, total, NULL);
	if (ret)
		return ret;
	h = il_hist_new();
	if (!h)
		return -ENOMEM;
	get_slots(buf, len, pos, n, total, h->counts);
	h->total = total;
	*out = h;
	return 0;
}

void il_summary_init(struct il_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->min = UINT64_MAX;
	s->drop_split = true;
}

const char *il_drop_reason_name(enum il_drop_reason r)
{
	switch (r) {
	case IL_DROP_RANGE:
		return "range";
	case IL_DROP_OVERRUN:
		return "overrun";
	case IL_DROP_RACE:
		return "race";
	case IL_DROP_LOST:
		return "lost";
	case IL_DROP_SLEPT:
		return "slept";
	}
	return NULL;
}

/*
 * The reciprocal depends only on the count, so it is computed off the
 * mean's dependency chain: sample after sample, the chain is then a
 * subtract, a multiply and an add instead of a divide, about twice as fast.
 * It costs one extra rounding per sample, far below what Welford's update
 * loses anyway.
 */
void il_summary_add(struct il_summary *s, uint64_t v)
{
	double x = (double)v, inv, d;

	s->count++;
	inv = 1.0 / (double)s->count;
	if (v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	d = x - s->mean;
	s->mean += d * inv;
	s->m2 += d * (x - s->mean);
}

void il_summary_merge(struct il_summary *dst, const struct il_summary *src)
{
	double na, nb, n, d;
	int i;

	dst->dropped += src->dropped;
	for (i = 0; i < IL_DROP_NREASONS; i++)
		dst->drop[i] += src->drop[i];
	dst->drop_split = dst->drop_split && src->drop_split;
	dst->early += src->early;
	if (!src->count)
		return;
	if (!dst->count) {
		dst->count = src->count;
		dst->min = src->min;
		dst->max = src->max;
		dst->mean = src->mean;
		dst->m2 = src->m2;
		return;
	}
	na = (double)dst->count;
	nb = (double)src->count;
	n = na + nb;
	d = src->mean - dst->mean;
	dst->count += src->count;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->mean += d * (nb / n);
	dst->m2 += src->m2 + d * d * (na * nb / n);
}

double il_summary_stddev(const struct il_summary *s)
{
	if (s->count < 2 || !(s->m2 > 0))
		return 0;
	return sqrt(s->m2 / (double)(s->count - 1));
}
