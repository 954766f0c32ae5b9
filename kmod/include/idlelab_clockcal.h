/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlelab_clockcal.h - the arithmetic of idlelab_cstate.ko's two run-time
 * calibrations, as plain C so that tests/unit/test_clockcal.c runs it:
 *
 * - the hypervisor no-op threshold: under a hypervisor a WBINVD or MWAIT
 *   that the host ignores still costs one trapped round trip, so "a no-op"
 *   is "not much more than a trap".  The module times a CPUID (which
 *   every hypervisor traps) several times on the measuring CPU and takes
 *   the median, robust against the odd interrupt or host preemption; a
 *   WBINVD or MWAIT under IL_NOOP_CPUID_MULT times that is flagged;
 * - t_launch of an hrtimer wake: the timer is due when CLOCK_MONOTONIC
 *   reaches E = mono0 + L, and the TSC value at that instant is wanted.
 *   Converting L with tsc_khz is wrong by L times the gap between the
 *   monotonic clock's rate and tsc_khz (NTP slew, calibration error: up
 *   to 50 us at L = 100 ms and 500 ppm).  Both clocks are read again,
 *   adjacently, once E has passed, and L is scaled by the rate they show.
 */
#ifndef IDLELAB_CLOCKCAL_H
#define IDLELAB_CLOCKCAL_H

#include "uapi/idlelab.h"

/* CPUIDs timed per calibration, and the no-op threshold's multiple. */
#define IL_CALIB_N		15
#define IL_NOOP_CPUID_MULT	3

/* The median of @v[0..@n) (@n >= 1), sorting @v in place. */
static inline __u32 il_median_u32(__u32 *v, unsigned int n)
{
	unsigned int i, j;
	__u32 x;

	for (i = 1; i < n; i++) {
		x = v[i];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return v[n / 2];
}

/*
 * The no-op threshold in cycles for a median CPUID of @cpuid_cycles,
 * saturated rather than wrapped.
 */
static inline __u32 il_noop_cycles(__u32 cpuid_cycles)
{
	if (cpuid_cycles > 0xffffffffU / IL_NOOP_CPUID_MULT)
		return 0xffffffffU;
	return cpuid_cycles * IL_NOOP_CPUID_MULT;
}

/*
 * il_launch_tsc - the TSC when the monotonic clock reached @mono0 + @l_ns
 * @tsc0, @mono0:	adjacent reads when the timer was armed
 * @tsc1, @mono1:	adjacent reads after it fired (@mono1 >= the expiry)
 * @l_ns:		the launch distance L
 * @nominal:		L in cycles at tsc_khz, the answer without a rate
 *
 * Interpolates between the two pairs, never extrapolates: with a second
 * pair that is not past the expiry, or a product that would overflow
 * (not within IDLELAB_MAX_LAUNCH_NS and the sample's wait), the nominal
 * conversion is kept.
 */
static inline __u64 il_launch_tsc(__u64 tsc0, __u64 mono0, __u64 tsc1,
				  __u64 mono1, __u64 l_ns, __u64 nominal)
{
	__u64 dm = mono1 - mono0, dt = tsc1 - tsc0;

	if (mono1 <= mono0 || tsc1 <= tsc0 || dm < l_ns ||
	    (l_ns && dt > ~0ULL / l_ns))
		return tsc0 + nominal;
	return tsc0 + dt * l_ns / dm;
}

#endif /* IDLELAB_CLOCKCAL_H */
