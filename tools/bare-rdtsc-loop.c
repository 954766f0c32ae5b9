// SPDX-License-Identifier: GPL-2.0-only
/*
 * bare-rdtsc-loop.c - the reference for BENCHMARKS.md figure 3: the period
 * of the tightest loop that reads the TSC and compares it with the previous
 * read, pinned to one CPU, with nothing else in it.  tsc_gaps' loop period
 * (its detection resolution) is compared against this.
 *
 * usage: bare-rdtsc-loop CPU SECONDS   -> prints ns per iteration
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	uint64_t iters = 0, prev, t, maxgap = 0, deadline_check = 0;
	double secs, elapsed = 0;
	cpu_set_t set;

	if (argc != 3) {
		fprintf(stderr, "usage: %s CPU SECONDS\n", argv[0]);
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	secs = atof(argv[2]);
	clock_gettime(CLOCK_MONOTONIC, &a);
	prev = rdtsc();
	for (;;) {
		t = rdtsc();
		if (t - prev > maxgap)
			maxgap = t - prev;
		prev = t;
		iters++;
		/* Check the clock rarely so it does not count in the period. */
		if (++deadline_check == (1u << 20)) {
			deadline_check = 0;
			clock_gettime(CLOCK_MONOTONIC, &b);
			elapsed = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
			if (elapsed >= secs)
				break;
		}
	}
	printf("%.3f\n", elapsed * 1e9 / (double)iters);
	return maxgap == 0;	/* keeps maxgap live */
}
