// SPDX-License-Identifier: GPL-2.0-only
/*
 * tsc.c - the TSC frequency, measured once per process.
 *
 * The kernel knows tsc_khz but does not export it, and CPUID leaf 0x15 is
 * absent or zero on most AMD parts and in many guests, so we measure: the
 * TSC against CLOCK_MONOTONIC_RAW (not slewed by NTP) over three ~20 ms
 * windows, and keep the median, which discards a window disturbed by a
 * preemption or a host stall (hundreds of us are seen on this workplace's
 * VMs).  Each end of a window is the tightest of a few (clock, TSC, clock)
 * bracketings, so a stall between the two reads cannot skew the ratio.
 * The result is recorded with every run that converts TSC ticks, so a
 * wrong calibration is at least visible in the dataset.
 */
#include "tsc.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#ifdef __x86_64__
#include <cpuid.h>
#endif

#define IL_TSC_ROUNDS		3
#define IL_TSC_WINDOW_NS	20000000ull
#define IL_TSC_BRACKETS		8

static uint64_t il_tsc_khz_cached;
static pthread_once_t il_tsc_once = PTHREAD_ONCE_INIT;

/* One (ns, tsc) point: the TSC read nearest the middle of the tightest
 * CLOCK_MONOTONIC_RAW bracket. */
static void tsc_point(uint64_t *ns, uint64_t *tsc)
{
	uint64_t best = UINT64_MAX;
	int i;

	*ns = 0;
	*tsc = 0;
	for (i = 0; i < IL_TSC_BRACKETS; i++) {
		uint64_t t0 = il_now_ns(CLOCK_MONOTONIC_RAW);
		uint64_t c = il_rdtsc_ordered();
		uint64_t t1 = il_now_ns(CLOCK_MONOTONIC_RAW);

		if (t1 - t0 < best) {
			best = t1 - t0;
			*ns = t0 + (t1 - t0) / 2;
			*tsc = c;
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int have_tsc(void)
{
#ifdef __x86_64__
	unsigned int a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	return !!(d & (1u << 4));
#else
	return 0;
#endif
}

static void tsc_measure(void)
{
	uint64_t khz[IL_TSC_ROUNDS];
	int i, n = 0;

	if (!have_tsc())
		return;
	for (i = 0; i < IL_TSC_ROUNDS; i++) {
		struct timespec ts = { 0, (long)IL_TSC_WINDOW_NS };
		uint64_t ns0, c0, ns1, c1;

		tsc_point(&ns0, &c0);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		tsc_point(&ns1, &c1);
		/* A TSC that stands still or runs backwards (a migration to a
		 * CPU with an unsynchronised TSC) gives no usable round. */
		if (ns1 <= ns0 || c1 <= c0)
			continue;
		khz[n++] = (uint64_t)(((unsigned __int128)(c1 - c0) * 1000000u +
				       (ns1 - ns0) / 2) / (ns1 - ns0));
	}
	if (!n)
		return;
	qsort(khz, (size_t)n, sizeof(khz[0]), cmp_u64);
	il_tsc_khz_cached = khz[n / 2];
}

uint64_t il_tsc_khz(void)
{
	pthread_once(&il_tsc_once, tsc_measure);
	return il_tsc_khz_cached;
}

uint64_t il_tsc_to_ns(uint64_t cycles)
{
	uint64_t khz = il_tsc_khz();

	if (!khz)
		return 0;
	/* 128-bit product: cycles * 10^6 overflows 64 bits after ~5 h at
	 * 1 GHz. */
	return (uint64_t)((unsigned __int128)cycles * 1000000u / khz);
}
