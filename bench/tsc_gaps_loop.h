/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tsc_gaps_loop.h - the detection loop of tsc_gaps, alone, so that a unit
 * test can drive it with a scripted clock (tests/unit/test_tsc_gaps_loop.c)
 * while the benchmark runs it on plain RDTSC.  It is always inlined with a
 * constant clock function, so the benchmark's loop has no indirect call.
 *
 * Design notes.  The loop reads the clock, and when two consecutive reads
 * are more than @thr apart it records a gap.  Recording is bookkeeping
 * between two reads, and the CPU can be taken away during it as during
 * anything else: an interruption that lands there must not be lost.  So
 * the bookkeeping is timed too: its own interval, from the read that found
 * the gap to the read after the record, is checked against the threshold
 * like every other interval, and recorded as a gap when above it.  The
 * record itself is a store into a preallocated array, tens of cycles, so
 * an interval above the threshold there is an interruption, not our work.
 * Every stretch of the run from the first read to the last is then in
 * exactly one checked interval.  The only unchecked stretch is the flush of
 * a full array into the caller's storage (@flush), which is timed and
 * counted as blind time, never as a gap and never silently.
 */
#ifndef IDLELAB_BENCH_TSC_GAPS_LOOP_H
#define IDLELAB_BENCH_TSC_GAPS_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct il_gap_rec {
	uint64_t at;		/* clock value of the read before the gap */
	uint64_t len;		/* clock units */
};

struct il_gap_loop {
	/* in */
	uint64_t thr;		/* a gap is an interval longer than this */
	uint64_t duration;	/* the loop ends at the first read past start + this */
	struct il_gap_rec *rec;	/* room for @cap records */
	size_t cap;
	/* out */
	size_t n;		/* records in @rec (the rest went to @flush) */
	uint64_t start, last;	/* the first and the last read */
	uint64_t iters;		/* loop passes */
	uint64_t gaps;		/* every gap, flushed ones included */
	uint64_t book_gaps;	/* of them, found in the bookkeeping */
	uint64_t gap_sum;	/* the gaps' total length */
	uint64_t max_gap;
	uint64_t book;		/* time in bookkeeping intervals */
	uint64_t blind;		/* time in @flush, not checked */
	uint64_t flushes;
};

/*
 * @read: the clock; @flush(@ctx, @L) empties L->rec (sets L->n = 0) when
 * it is full; @stop(@ctx) is polled every 2^20 passes (may be NULL).
 */
static inline __attribute__((always_inline)) void
il_gap_loop_run(struct il_gap_loop *L, uint64_t (*read)(void *), void *ctx,
		void (*flush)(void *, struct il_gap_loop *),
		bool (*stop)(void *))
{
	const uint64_t thr = L->thr;
	uint64_t prev, t, t2, end;

	prev = read(ctx);
	L->start = prev;
	end = prev + L->duration;
	for (;;) {
		t = read(ctx);
		if (__builtin_expect(t - prev > thr, 0)) {
			uint64_t d = t - prev, at = prev;

			/* Until a bookkeeping interval comes out clean:
			 * nearly always at once, else each interruption
			 * found in it is recorded in turn. */
			for (;;) {
				if (__builtin_expect(L->n == L->cap, 0)) {
					flush(ctx, L);
					t2 = read(ctx);
					L->blind += t2 - t;
					L->flushes++;
					t = t2;
				}
				L->rec[L->n].at = at;
				L->rec[L->n].len = d;
				L->n++;
				L->gaps++;
				L->gap_sum += d;
				if (d > L->max_gap)
					L->max_gap = d;
				t2 = read(ctx);
				L->book += t2 - t;
				if (__builtin_expect(t2 - t <= thr, 1)) {
					t = t2;
					break;
				}
				/* Interrupted while recording: that is a gap
				 * of its own, from t to t2. */
				L->book_gaps++;
				at = t;
				d = t2 - t;
				t = t2;
			}
		}
		prev = t;
		L->iters++;
		if (__builtin_expect(t >= end, 0))
			break;
		if (stop && __builtin_expect(!(L->iters & 0xfffff), 0) &&
		    stop(ctx))
			break;
	}
	L->last = prev;
}

#endif
