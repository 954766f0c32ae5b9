// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_compare_collect.c - what `report --compare` keeps of a run (issue
 * 23): a compared run stays a few words and the values the table shows,
 * whatever its rows added up to, so that memory grows by a small term a
 * run.  An item put from an accumulator holds the values the old items
 * computed, its raw ids in its list's pool, and the nine deciles of its
 * histogram as il_ab_hd_quantile() gives each, to the bit.  The scans of
 * a histogram that stop at its last sample find the same maximum.
 */
#include "ab.h"
#include "compare_collect.h"
#include "groups.h"
#include "splitmix.h"
#include "stats.h"
#include "tap.h"

#include <math.h>
#include <string.h>

/* A row of one series with @n samples of @h's, kept raw when @raw. */
static struct il_srow row(struct il_hist *h, bool raw, int64_t id)
{
	struct il_srow r = { .run_uuid = "11111111-0000-4000-8000-000000000000",
			     .p50 = 1000, .p99 = 2000, .exact = raw,
			     .raw_id = raw ? id : -1, .hist = h };

	il_summary_init(&r.sum);
	r.sum.count = il_hist_count(h);
	r.sum.mean = 1234.5;
	r.sum.dropped = 7;
	return r;
}

static struct il_hist *random_hist(uint64_t *seed, int n, uint64_t *vmax)
{
	struct il_hist *h = il_hist_new();
	int i;

	*vmax = 0;
	for (i = 0; h && i < n; i++) {
		uint64_t v = 500 + il_splitmix64(seed) % 200000;

		il_hist_record(h, v);
		if (v > *vmax)
			*vmax = v;
	}
	return h;
}

/* The per-run term: an item is its counts, flags and ids, no summary. */
TEST(item_is_small)
{
	CHECKF(sizeof(struct ab_item) <= 32, "%zu bytes", sizeof(struct ab_item));
}

/* A histogram-only item: the values the old code computed. */
TEST(put_keeps_the_values)
{
	struct ab_items s = { .nval = IL_AB_NALL };
	struct ab_acc a = { 0 };
	uint64_t seed = 42, vmax;
	struct il_hist *h = random_hist(&seed, 500, &vmax);
	struct il_srow r = row(h, false, 0);
	double *v;
	int st;

	ab_acc_start(&a, &r);
	CHECK(!ab_acc_count(&a, &r));
	CHECK(!ab_item_put(&s, 3, &a, h));
	CHECK(s.n == 1 && s.v[0].cpu == 3 && !s.v[0].raw && !s.v[0].merged);
	CHECK(s.v[0].count == 500 && s.v[0].dropped == 7);
	v = ab_item_val(&s, 0);
	for (st = 0; st < IL_AB_NALL; st++) {
		double want = il_ab_run_value(st, h, &a.sum, &a.exact);

		CHECKF(!memcmp(&v[st], &want, sizeof(want)), "stat %d: %.17g, not %.17g",
		       st, v[st], want);
	}
	free(s.v);
	free(s.val);
	ab_raw_ids_free(&s.ids);
	ab_raw_ids_free(&a.raw);
	il_hist_free(h);
}

/* A run of two raw series: its ids pooled, read later, the stored
 * values meanwhile; a second item's ids follow the first's. */
TEST(put_pools_raw_ids)
{
	struct ab_items s = { .nval = IL_AB_NSTATS };
	struct ab_acc a = { 0 };
	uint64_t seed = 7, vmax;
	struct il_hist *h = random_hist(&seed, 50, &vmax);
	struct il_srow r1 = row(h, true, 101), r2 = row(h, true, 102);
	struct il_srow r3 = row(h, true, 103), r4 = row(h, true, 104);
	int k;

	ab_acc_start(&a, &r1);
	CHECK(!ab_acc_count(&a, &r1) && !ab_acc_count(&a, &r2));
	CHECK(!ab_item_put(&s, 0, &a, h));
	ab_acc_start(&a, &r3);
	CHECK(!ab_acc_count(&a, &r3) && !ab_acc_count(&a, &r4));
	CHECK(!ab_item_put(&s, 1, &a, h));
	CHECK(s.n == 2 && s.v[0].raw && s.v[0].merged && s.v[1].raw);
	CHECK(s.v[0].raw_off == 0 && s.v[0].raw_n == 2);
	CHECK(s.v[1].raw_off == 2 && s.v[1].raw_n == 2);
	for (k = 0; k < 4 && s.ids.n == 4; k++)
		CHECKF(s.ids.v[k] == 101 + k, "id %d: %lld", k, (long long)s.ids.v[k]);
	CHECK(ab_item_val(&s, 1)[IL_AB_MEDIAN] == 1000);
	CHECK(ab_item_val(&s, 1)[IL_AB_P99] == 2000);
	CHECK(ab_item_val(&s, 1)[IL_AB_MEAN] == 1234.5);
	free(s.v);
	free(s.val);
	ab_raw_ids_free(&s.ids);
	ab_raw_ids_free(&a.raw);
	il_hist_free(h);
}

/* One pass for nine deciles: the same doubles as one pass each. */
TEST(deciles_in_one_pass)
{
	uint64_t seed = 2026, vmax;
	double out[IL_AB_NDECILES];
	int c, d, bad = 0;

	for (c = 0; c < 200; c++) {
		struct il_hist *h = random_hist(&seed, 1 + c * 7, &vmax);

		il_ab_hd_deciles(h, out);
		for (d = 0; d < IL_AB_NDECILES; d++) {
			double want = il_ab_hd_quantile(h, (d + 1) / 10.0);

			bad += !!memcmp(&out[d], &want, sizeof(want));
		}
		il_hist_free(h);
	}
	CHECKF(!bad, "%d deciles differ", bad);
}

TEST(deciles_of_nothing)
{
	struct il_hist *e = il_hist_new();
	double out[IL_AB_NDECILES];

	il_ab_hd_deciles(e, out);
	CHECK(isnan(out[0]) && isnan(out[IL_AB_NDECILES - 1]));
	il_hist_free(e);
}

struct last {
	uint64_t hi, seen;
};

static int last_visit(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
{
	struct last *l = arg;

	(void)lo;
	l->hi = hi;
	l->seen += count;
	return 0;
}

/* The scans that stop at the last sample still reach it. */
TEST(max_and_foreach_reach_the_last_sample)
{
	uint64_t seed = 99, vmax;
	int c;

	for (c = 0; c < 50; c++) {
		struct il_hist *h = random_hist(&seed, 1 + c, &vmax);
		struct last l = { 0 };

		il_hist_foreach(h, last_visit, &l);
		CHECK(l.seen == il_hist_count(h));
		CHECK(l.hi == il_hist_max(h));
		CHECKF(il_hist_max(h) >= vmax && il_hist_max(h) <= vmax + vmax / 500,
		       "max %llu of %llu", (unsigned long long)il_hist_max(h),
		       (unsigned long long)vmax);
		il_hist_free(h);
	}
}

int main(void)
{
	RUN(item_is_small);
	RUN(put_keeps_the_values);
	RUN(put_pools_raw_ids);
	RUN(deciles_in_one_pass);
	RUN(deciles_of_nothing);
	RUN(max_and_foreach_reach_the_last_sample);
	return tap_done();
}
