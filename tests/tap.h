/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tap.h - a minimal TAP producer for the C unit tests.
 *
 * Each TEST(name) is one test case; CHECK() records a failure with its
 * location but lets the case continue, so one run shows every broken
 * assertion.  tests/run.sh counts the "ok"/"not ok" lines of every binary
 * into the final "N passed, N failed" line.
 *
 *   TEST(percentiles_constant) { CHECK(x == 1); }
 *   int main(void) { RUN(percentiles_constant); return tap_done(); }
 */
#ifndef IDLELAB_TAP_H
#define IDLELAB_TAP_H

#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed_cases, tap_case_failed;

#define TEST(name) static void test_##name(void)

#define CHECK(cond)                                                      \
	do {                                                             \
		if (!(cond)) {                                           \
			tap_case_failed = 1;                             \
			printf("# %s:%d: CHECK failed: %s\n", __FILE__,  \
			       __LINE__, #cond);                         \
		}                                                        \
	} while (0)

#define CHECKF(cond, ...)                                                \
	do {                                                             \
		if (!(cond)) {                                           \
			tap_case_failed = 1;                             \
			printf("# %s:%d: CHECK failed: %s: ", __FILE__,  \
			       __LINE__, #cond);                         \
			printf(__VA_ARGS__);                             \
			printf("\n");                                    \
		}                                                        \
	} while (0)

#define RUN(name)                                                        \
	do {                                                             \
		tap_case_failed = 0;                                     \
		test_##name();                                           \
		tap_n++;                                                 \
		if (tap_case_failed)                                     \
			tap_failed_cases++;                              \
		printf("%s %d - %s\n", tap_case_failed ? "not ok" : "ok", \
		       tap_n, #name);                                    \
		fflush(stdout);                                          \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed_cases ? 1 : 0;
}

#endif
