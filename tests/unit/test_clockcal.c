// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_clockcal.c - the arithmetic of idlelab_cstate.ko's run-time
 * calibrations (kmod/include/idlelab_clockcal.h): the median CPUID round
 * trip and the hypervisor no-op threshold made from it, and the t_launch
 * of an hrtimer wake rescaled by the monotonic clock's own rate.
 */
#include <stdint.h>
#include <stdio.h>

#include "tap.h"
#include "idlelab_clockcal.h"

/* An interrupt or a host preemption in a few timings moves no median. */
TEST(median_ignores_outliers)
{
	__u32 v[IL_CALIB_N], i;

	for (i = 0; i < IL_CALIB_N; i++)
		v[i] = 2000 + i % 3;
	v[0] = 900000;
	v[5] = 750000;
	v[9] = 3;
	CHECK(il_median_u32(v, IL_CALIB_N) >= 2000 &&
	      il_median_u32(v, IL_CALIB_N) <= 2002);
	for (i = 1; i < IL_CALIB_N; i++)
		CHECK(v[i - 1] <= v[i]);
	v[0] = 7;
	CHECK(il_median_u32(v, 1) == 7);
}

/*
 * A trapped CPUID of 1.5 us at 3 GHz (4500 cycles, a nested guest): the
 * old fixed 1 us (3000 cycles) threshold would call a 2 us no-op WBINVD
 * a real one; the calibrated threshold does not.
 */
TEST(noop_threshold_follows_the_trap)
{
	__u32 thr = il_noop_cycles(4500);

	CHECK(thr == 4500 * IL_NOOP_CPUID_MULT);
	CHECK(6000 < thr);
	CHECK(!(6000 < 3000));
	CHECK(il_noop_cycles(0xffffffffU) == 0xffffffffU);
	CHECK(il_noop_cycles(0x60000000U) == 0xffffffffU);
}

/*
 * L = 100 ms, tsc_khz says 3 GHz but the monotonic clock runs 500 ppm
 * slow against the TSC (NTP slew): the TSC advances 3.0015e8 cycles while
 * the monotonic clock advances 100 ms.  The nominal conversion is 150000
 * cycles (50 us) early; the rescaled one is within a cycle.
 */
TEST(launch_rescaled_by_the_clock_rate)
{
	const __u64 l = 100000000ULL, tsc0 = 123456789ULL, mono0 = 5000000ULL;
	const __u64 nominal = 300000000ULL;		/* L at 3 GHz */
	const __u64 exact = tsc0 + 300150000ULL;	/* 500 ppm more */
	/* Read 300 us after E, at the same rate. */
	__u64 mono1 = mono0 + l + 300000, tsc1 = exact + 300150 * 3;
	__u64 got = il_launch_tsc(tsc0, mono0, tsc1, mono1, l, nominal);
	__u64 old = tsc0 + nominal;

	CHECKF(exact - old == 150000, "old error %llu",
	       (unsigned long long)(exact - old));
	CHECKF(got >= exact - 1 && got <= exact + 1, "got %llu want %llu",
	       (unsigned long long)got, (unsigned long long)exact);
}

/* Rates equal: the rescaled value is the nominal one. */
TEST(launch_same_rate_unchanged)
{
	__u64 got = il_launch_tsc(1000, 0, 1000 + 3 * 2000000, 2000000,
				  1000000, 3000000);

	CHECK(got == 1000 + 3000000);
}

/* No second pair past E, or an overflow: the nominal answer, kept. */
TEST(launch_falls_back)
{
	CHECK(il_launch_tsc(10, 100, 20, 150, 100, 7) == 17);	/* not past E */
	CHECK(il_launch_tsc(10, 100, 5, 300, 100, 7) == 17);	/* TSC back */
	CHECK(il_launch_tsc(10, 100, 20, 100, 0, 7) == 17);	/* mono still */
	CHECK(il_launch_tsc(0, 0, ~0ULL / 2, 200000000ULL, 100000000ULL, 9)
	      == 9);						/* overflow */
}

int main(void)
{
	RUN(median_ignores_outliers);
	RUN(noop_threshold_follows_the_trap);
	RUN(launch_rescaled_by_the_clock_rate);
	RUN(launch_same_rate_unchanged);
	RUN(launch_falls_back);
	return tap_done();
}
