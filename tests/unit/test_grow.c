// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_grow.c - the array-growing helper (harness/grow.h): the first
 * allocation from an empty array, doubling from there, a jump straight to
 * what is asked when doubling is not enough, no work when it fits, and
 * refusals that leave the array as it was when count * size overflows or
 * the capacity would not fit in its counter's type.
 */
#include "grow.h"
#include "tap.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

TEST(zero_start)
{
	int *v = NULL, cap = 0;

	CHECK(IL_GROW(v, cap, 1, 16) == 0);
	CHECK(v != NULL);
	CHECK(cap == 16);
	v[15] = 7;		/* all 16 are there (ASan checks) */
	free(v);
}

TEST(doubles)
{
	size_t cap = 0, n;
	uint64_t *v = NULL;

	for (n = 0; n < 100; n++) {
		CHECK(IL_GROW(v, cap, n + 1, 4) == 0);
		v[n] = n;
	}
	/* 4, 8, 16, 32, 64, 128 */
	CHECK(cap == 128);
	for (n = 0; n < 100; n++)
		CHECK(v[n] == n);
	free(v);
}

TEST(fits_is_a_no_op)
{
	char *v = malloc(8), *was = v;
	int cap = 8;

	CHECK(IL_GROW(v, cap, 8, 16) == 0);
	CHECK(v == was && cap == 8);
	CHECK(IL_GROW(v, cap, 0, 16) == 0);
	CHECK(v == was && cap == 8);
	free(v);
}

TEST(jumps_to_need)
{
	int *v = NULL;
	size_t cap = 0;

	CHECK(IL_GROW(v, cap, 1000, 16) == 0);
	CHECK(cap == 1000);
	CHECK(IL_GROW(v, cap, 1001, 16) == 0);
	CHECK(cap == 2000);
	free(v);
}

TEST(overflow_refused)
{
	uint64_t *v = malloc(4 * sizeof(*v)), *was = v;
	size_t cap = 4;

	/* count * size overflows size_t: refused before any realloc. */
	CHECK(IL_GROW(v, cap, SIZE_MAX / sizeof(*v) + 1, 16) == -ENOMEM);
	CHECK(v == was && cap == 4);
	/* Doubling past SIZE_MAX / size is clamped, then refused as too big. */
	cap = SIZE_MAX / 2 + 1;
	CHECK(IL_GROW(v, cap, cap + 1, 16) == -ENOMEM);
	CHECK(v == was && cap == SIZE_MAX / 2 + 1);
	free(v);
}

TEST(counter_type_refused)
{
	char *v = malloc(16), *was = v;
	int cap = 16;
	void *raw = NULL;
	size_t rcap = 0;

	/* More than an int counter can hold. */
	CHECK(IL_GROW(v, cap, (size_t)INT_MAX + 1, 16) == -ENOMEM);
	CHECK(v == was && cap == 16);
	/* The function: @max bounds the capacity, @size 0 is refused. */
	CHECK(il_grow(&raw, &rcap, 11, 1, 16, 10) == -ENOMEM);
	CHECK(il_grow(&raw, &rcap, 1, 0, 16, SIZE_MAX) == -ENOMEM);
	CHECK(raw == NULL && rcap == 0);
	CHECK(il_grow(&raw, &rcap, 1, 1, 16, 10) == 0);
	CHECK(raw != NULL && rcap == 10);
	free(raw);
	free(v);
}

int main(void)
{
	RUN(zero_start);
	RUN(doubles);
	RUN(fits_is_a_no_op);
	RUN(jumps_to_need);
	RUN(overflow_refused);
	RUN(counter_type_refused);
	return tap_done();
}
