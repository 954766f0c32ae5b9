// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_tsc_gaps_loop.c - tsc_gaps' detection loop (bench/tsc_gaps_loop.h)
 * driven by a scripted clock, so every read returns a value the test chose
 * and the loop's decisions can be checked exactly: an interruption that
 * lands in the bookkeeping of a gap is recorded as a gap of its own (it
 * used to be skipped over), a full record array is flushed with its time
 * counted as blind, and the gaps' total is what oslat's and sysjitter's
 * summaries are made of.  Then the TSC cross-CPU verdict from given
 * clocksource and kernel-log texts, and one short real tsc_gaps run for
 * the facts it records (the summaries, the verdict, the time base).
 */
#include "../../bench/common.h"
#include "../../bench/tsc_gaps_loop.h"
#include "bench.h"
#include "bench_registry.h"
#include "run_context.h"
#include "err.h"
#include "opts.h"
#include "series.h"
#include "store.h"
#include "tap.h"
#include "topo.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The clock: the scripted values, then +10 per read. */
struct script {
	const uint64_t *v;
	size_t n, i;
	uint64_t last;
	int flushes;
	struct il_gap_rec out[16];	/* what flush handed over */
	size_t nout;
};

static uint64_t scripted(void *ctx)
{
	struct script *s = ctx;

	s->last = s->i < s->n ? s->v[s->i++] : s->last + 10;
	return s->last;
}

static void flush(void *ctx, struct il_gap_loop *L)
{
	struct script *s = ctx;
	size_t i;

	for (i = 0; i < L->n && s->nout < 16; i++)
		s->out[s->nout++] = L->rec[i];
	L->n = 0;
	s->flushes++;
}

TEST(interruption_in_bookkeeping_is_a_gap)
{
	/* 0 start; 10, 20 loop; 500: a gap of 480 after 20; the next read,
	 * the end of the bookkeeping, is 900: the CPU was taken away while
	 * the gap was being recorded, 400 more; then a clean bookkeeping
	 * read at 910 and the loop again. */
	static const uint64_t v[] = { 0, 10, 20, 500, 900, 910 };
	struct script s = { .v = v, .n = 6 };
	struct il_gap_rec rec[8];
	struct il_gap_loop L = { .thr = 100, .duration = 2000, .rec = rec, .cap = 8 };

	il_gap_loop_run(&L, scripted, &s, flush, NULL);
	CHECKF(L.gaps == 2, "gaps %" PRIu64, L.gaps);
	CHECK(L.n == 2);
	CHECK(rec[0].at == 20 && rec[0].len == 480);
	CHECKF(L.n == 2 && rec[1].at == 500 && rec[1].len == 400,
	       "second record at %" PRIu64 " len %" PRIu64, rec[1].at, rec[1].len);
	CHECK(L.book_gaps == 1);
	CHECK(L.gap_sum == 880);
	CHECK(L.max_gap == 480);
	CHECK(L.blind == 0 && s.flushes == 0);
	CHECK(L.last >= 2000);
}

/* Every stretch of the run is in exactly one checked interval: the loop's
 * clean intervals, the gaps, the clean bookkeeping, and blind time add up
 * to the elapsed time with nothing left over. */
TEST(time_accounted_for)
{
	static const uint64_t v[] = { 0, 50, 300, 310, 320, 700, 1500, 1510 };
	struct script s = { .v = v, .n = 8 };
	struct il_gap_rec rec[8];
	struct il_gap_loop L = { .thr = 100, .duration = 3000, .rec = rec, .cap = 8 };
	uint64_t clean_loop;

	il_gap_loop_run(&L, scripted, &s, flush, NULL);
	/* Gaps: 50->300 (250), 320->700 (380), and 700->1500 (800) found in
	 * the bookkeeping of the second. */
	CHECKF(L.gaps == 3 && L.book_gaps == 1, "gaps %" PRIu64 " in book %" PRIu64,
	       L.gaps, L.book_gaps);
	CHECK(L.gap_sum == 250 + 380 + 800);
	/* Bookkeeping: 300->310 (clean), 700->1500 (the gap), 1500->1510. */
	CHECKF(L.book == 10 + 800 + 10, "book %" PRIu64, L.book);
	/* Clean loop passes: every one 10 or 50 units apart. */
	clean_loop = (L.last - L.start) - (L.gap_sum - 800) - L.book - L.blind;
	CHECKF(clean_loop == 50 + 10 + (L.last - 1510), "clean %" PRIu64, clean_loop);
}

TEST(full_array_is_flushed_and_blind_time_counted)
{
	/* Three gaps, room for two: the third record flushes the first two. */
	static const uint64_t v[] = { 0, 200, 210, 400, 410, 600, 610, 650, 660 };
	struct script s = { .v = v, .n = 9 };
	struct il_gap_rec rec[2];
	struct il_gap_loop L = { .thr = 100, .duration = 1000, .rec = rec, .cap = 2 };

	il_gap_loop_run(&L, scripted, &s, flush, NULL);
	CHECK(L.gaps == 3);
	CHECK(s.flushes == 1 && s.nout == 2 && L.n == 1);
	CHECK(s.out[0].at == 0 && s.out[0].len == 200);
	CHECK(s.out[1].at == 210 && s.out[1].len == 190);
	CHECK(rec[0].at == 410 && rec[0].len == 190);
	/* The flush ran between the reads 600 and 610. */
	CHECKF(L.blind == 10 && L.flushes == 1, "blind %" PRIu64, L.blind);
}

TEST(quiet_run_has_no_gaps)
{
	struct script s = { .v = NULL, .n = 0 };
	struct il_gap_rec rec[2];
	struct il_gap_loop L = { .thr = 100, .duration = 1000, .rec = rec, .cap = 2 };

	il_gap_loop_run(&L, scripted, &s, flush, NULL);
	CHECK(L.gaps == 0 && L.gap_sum == 0 && L.book == 0);
	CHECK(L.iters == 100);
}

TEST(tsc_verdict)
{
	char why[256];

	CHECK(il_tsc_verdict("tsc", "[0.1] clocksource: Switched to clocksource tsc\n",
			     NULL, why, sizeof(why)) == IL_TSC_RELIABLE);
	CHECK(strstr(why, "reliable: clocksource tsc") == why);
	CHECK(il_tsc_verdict("kvm-clock", "", NULL, why, sizeof(why)) == IL_TSC_UNRELIABLE);
	CHECK(strstr(why, "'kvm-clock'"));
	CHECK(il_tsc_verdict("tsc", "[9.9] clocksource: timekeeping watchdog on CPU1: "
			     "Marking clocksource 'tsc' as unstable\n[9.9] tsc: Marking TSC unstable due to clocksource watchdog\n",
			     NULL, why, sizeof(why)) == IL_TSC_UNRELIABLE);
	CHECK(strstr(why, "Marking TSC unstable"));
	CHECK(il_tsc_verdict("tsc", NULL, "syslog(2) READ_ALL: Operation not permitted",
			     why, sizeof(why)) == IL_TSC_UNVERIFIED);
	CHECK(strstr(why, "unverified") == why && strstr(why, "not permitted"));
	CHECK(il_tsc_verdict(NULL, "", NULL, why, sizeof(why)) == IL_TSC_UNVERIFIED);
}

static const struct il_series *series_of(const struct il_run *run, const char *metric)
{
	int i;

	for (i = 0; i < il_run_nseries(run); i++)
		if (!strcmp(il_run_series_at(run, i)->metric, metric))
			return il_run_series_at(run, i);
	return NULL;
}

/* A real 100 ms run on CPU 0: the summaries and the verdict are stored. */
TEST(tsc_gaps_records_summaries_and_verdict)
{
	static const char *const kv[] = { "duration_ms=100", "threshold_ns=1000", NULL };
	const struct il_bench_ops *ops = il_bench_find("tsc_gaps");
	const struct il_series *lost, *rate, *gap;
	const char *const *k;
	struct il_topo *topo = NULL;
	struct il_run run;
	const char *v, *why;
	int ret;

	memset(&run, 0, sizeof(run));
	why = ops && ops->supported ? ops->supported() : NULL;
	if (!ops || why) {
		CHECK(ops);
		printf("# tsc_gaps unsupported here: %s\n", why ? why : "not registered");
		return;
	}
	CHECK(il_topo_open(&topo) == 0);
	CHECK(il_run_init(&run, ops) == 0);
	CHECK(il_opts_defaults(ops->opts, run.params) == 0);
	for (k = kv; *k; k++)
		CHECK(il_opts_set_kv(ops->opts, run.params, *k) == 0);
	run.topo = topo;
	CHECK(il_place_parse(topo, "0", &run.place) == 0);
	ret = ops->setup(&run);
	CHECKF(ret == 0, "setup: %s", il_errmsg());
	if (!ret) {
		ret = ops->run(&run);
		ops->teardown(&run);
		CHECKF(ret == 0, "run: %s", il_errmsg());
	}
	lost = series_of(&run, "time_lost");
	rate = series_of(&run, "interruption_rate");
	gap = series_of(&run, "gap");
	CHECK(lost && lost->sum.count == 1 && !strcmp(lost->unit, "ppm"));
	CHECK(rate && rate->sum.count == 1 && !strcmp(rate->unit, "mHz"));
	/* The rate is the gap count over the elapsed time. */
	if (rate && gap && (v = il_run_attr_find(&run, 0, "elapsed_ns"))) {
		double expect = (double)gap->sum.count / (atof(v) / 1e9) * 1e3;

		CHECKF(rate->sum.max + 1 >= expect && rate->sum.max <= expect + 1,
		       "rate %" PRIu64 " mHz, gaps %" PRIu64, rate->sum.max, gap->sum.count);
	}
	CHECK(il_run_attr_find(&run, 0, "time_lost_pct") && il_run_attr_find(&run, 0, "interruptions_per_s"));
	CHECK(il_run_attr_find(&run, 0, "gaps_in_bookkeeping") && il_run_attr_find(&run, 0, "bookkeeping_ns"));
	v = il_run_attr_find(&run, -1, "tsc_cross_cpu");
	CHECKF(v && (!strncmp(v, "reliable", 8) || !strncmp(v, "unreliable", 10) ||
		     !strncmp(v, "unverified", 10)), "tsc_cross_cpu: %s", v ? v : "(none)");
	if (v)
		printf("# tsc_cross_cpu here: %s\n", v);
	why = il_run_attr_find(&run, -1, "gap_time_base");
	CHECK(why && v && (!strncmp(v, "reliable", 8) == !strncmp(why, "common", 6)));
	il_run_release(&run);
	il_topo_close(topo);
}

int main(void)
{
	RUN(interruption_in_bookkeeping_is_a_gap);
	RUN(time_accounted_for);
	RUN(full_array_is_flushed_and_blind_time_counted);
	RUN(quiet_run_has_no_gaps);
	RUN(tsc_verdict);
	RUN(tsc_gaps_records_summaries_and_verdict);
	return tap_done();
}
