/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tsc.h - time sources of the user-space benchmarks.
 *
 * il_rdtsc_ordered() fences RDTSC with LFENCE on both sides: Intel SDM
 * vol. 2B "RDTSC" says RDTSC is not serialising and that LFENCE before it
 * waits for earlier instructions to complete; the trailing LFENCE keeps
 * later loads from starting before the read.  AMD documents the same
 * behaviour once LFENCE is made dispatch-serialising (the kernel does so).
 *
 * The TSC frequency is measured once per process against CLOCK_MONOTONIC_RAW
 * and recorded with every run that uses it.
 */
#ifndef IDLELAB_TSC_H
#define IDLELAB_TSC_H

#include <stdint.h>
#include <time.h>

static inline uint64_t il_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t il_rdtsc_ordered(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t il_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/** il_tsc_khz() - measured TSC frequency in kHz (cached), 0 if unusable. */
uint64_t il_tsc_khz(void);

/** il_tsc_to_ns() - convert a TSC delta with the measured frequency. */
uint64_t il_tsc_to_ns(uint64_t cycles);

#endif
