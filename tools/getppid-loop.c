// SPDX-License-Identifier: GPL-2.0-only
/*
 * getppid-loop.c - the probe of BENCHMARKS.md section 6's per-event cost:
 * the mean time of one getppid() system call, pinned to one CPU, issued
 * through syscall() so that no C library cache answers it.  Run with and
 * without syscalls:sys_enter_getppid enabled in a tracefs instance
 * (tools/bench-trace-event-cost.sh), the difference is what one event
 * written to the ring buffer costs there, the syscall-tracepoint entry
 * work included.
 *
 * usage: getppid-loop CPU CALLS   -> prints ns per call
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	cpu_set_t set;
	long n, i;

	if (argc != 3 || atoi(argv[1]) < 0 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: getppid-loop CPU CALLS\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("getppid-loop: sched_setaffinity");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((double)(b.tv_sec - a.tv_sec) * 1e9 +
			  (double)(b.tv_nsec - a.tv_nsec)) / (double)n);
	return 0;
}
