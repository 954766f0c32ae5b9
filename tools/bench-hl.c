// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-hl.c - BENCHMARKS.md section 9's Hodges-Lehmann figure (issue 23,
 * item 5): the time of one il_ab_shift() of N log values against N, by
 * selection (what reports use) or, with --brute, by forming and sorting
 * all N*N differences (the reference).  Values are whole-ns latencies
 * around 1000 (ties, as per-run medians from histograms have) with a 1 %
 * shift; prints the estimate, interval and U with every digit, so the
 * two ways can be seen to agree, and the seconds.  Peak memory: run it
 * under /usr/bin/time -f %M.
 */
#include "ab.h"
#include "splitmix.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-hl [--brute] N\n\n"
		"  -b, --brute  form and sort all N*N differences (the reference)\n"
		"  -h, --help   this text\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "brute", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct timespec a, b;
	struct il_ab_shift r;
	uint64_t seed = 1;
	double *x, *y;
	int o, n, i, brute = 0, ret;
	char *end;

	while ((o = getopt_long(argc, argv, "bh", lo, NULL)) != -1) {
		if (o == 'b') {
			brute = 1;
		} else if (o == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	n = (int)strtol(argv[optind], &end, 10);
	if (*end || n < 1 || n > 1000000) {
		fprintf(stderr, "bench-hl: N: want 1 to 1000000, got '%s'\n", argv[optind]);
		return 2;
	}
	x = malloc(n * sizeof(double));
	y = malloc(n * sizeof(double));
	if (!x || !y) {
		fprintf(stderr, "bench-hl: out of memory\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		x[i] = log(1000 + (double)(il_splitmix64(&seed) % 500));
		y[i] = log(1010 + (double)(il_splitmix64(&seed) % 500));
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	ret = (brute ? il_ab_shift_brute : il_ab_shift)(x, n, y, n, 0.95, &r);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (ret) {
		fprintf(stderr, "bench-hl: failed (%d)\n", ret);
		return 1;
	}
	printf("n %d %s est %.17g lo %.17g hi %.17g u %.1f seconds %.3f\n",
	       n, brute ? "brute" : "select", r.est, r.lo, r.hi, r.u,
	       (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9);
	free(x);
	free(y);
	return 0;
}
