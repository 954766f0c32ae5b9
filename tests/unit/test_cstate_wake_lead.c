// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_cstate_wake_lead.c - cstate_wake's judgement of where t_entry was
 * taken (bench/cstate_wake_lead.c): each on-time sample's lead, t_launch -
 * t_entry, against the bound its wake source sets.  An hrtimer wake's lead
 * is at most L (a t_entry read before the arming is over it); an IPI
 * wake's is at least 0 (the sender sent after t_entry) and at most L plus
 * the sample's wait.  The TSC runs at 1 GHz here, so a cycle is a ns.
 */
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "../../bench/cstate_wake.h"

#define KHZ	1000000u	/* 1 GHz */
#define L	50000u		/* ns */

static const struct cw_lead_rule timer = {
	.wake_source = IDLELAB_WAKE_HRTIMER, .l_max = L,
};
static const struct cw_lead_rule ipi = {
	.wake_source = IDLELAB_WAKE_IPI, .l_max = L,
};

/* A sample whose t_entry came @lead ns before t_launch (< 0: after). */
static struct idlelab_cstate_sample at(int64_t lead)
{
	struct idlelab_cstate_sample s;

	memset(&s, 0, sizeof(s));
	s.t_launch = 1000000000;
	s.t_entry = (uint64_t)((int64_t)s.t_launch - lead);
	s.t_exit = s.t_launch + 3000;
	return s;
}

/* Judge one sample alone: 1 if outside its bound. */
static uint64_t out1(const struct cw_lead_rule *r,
		     struct idlelab_cstate_sample s)
{
	struct cw_lead l = { 0 };

	cw_lead_add(&l, r, &s, KHZ);
	return l.n == 1 ? l.out : 99;
}

/* Timer: t_entry after the arming is in; 20 us before it is not. */
TEST(timer_entry_before_arming_is_out)
{
	CHECK(out1(&timer, at(49000)) == 0);
	CHECK(out1(&timer, at(1)) == 0);
	CHECK(out1(&timer, at(0)) == 0);
	CHECK(out1(&timer, at(L + L / 10)) == 0);	/* clock allowance */
	CHECK(out1(&timer, at(L + L / 10 + 1)) == 1);
	CHECK(out1(&timer, at(49000 + 20000)) == 1);
	CHECK(out1(&timer, at(-5)) == 1);	/* t_entry after t_launch */
}

/* Timer: with random distances the run's largest L bounds every sample. */
TEST(timer_random_distance_uses_the_largest)
{
	struct cw_lead_rule r = timer;

	r.l_max = 4 * L;
	CHECK(out1(&r, at(3 * L)) == 0);
	CHECK(out1(&r, at(5 * L)) == 1);
}

/*
 * IPI: on two CPUs' TSCs, sent after t_entry and before the backstop; the
 * sender or the measured CPU may be slow, so the lead is not held to L.
 */
TEST(ipi_sent_before_entry_is_out)
{
	CHECK(out1(&ipi, at(48000)) == 0);
	CHECK(out1(&ipi, at(800)) == 0);
	CHECK(out1(&ipi, at(3 * L)) == 0);
	CHECK(out1(&ipi, at(-800)) == 1);
	CHECK(out1(&ipi, at(L + IDLELAB_CSTATE_WAIT_NS)) == 0);
	CHECK(out1(&ipi, at(L + IDLELAB_CSTATE_WAIT_NS + 1)) == 1);
}

TEST(bound_values)
{
	int64_t lo, hi;

	cw_lead_bound(&timer, &lo, &hi);
	CHECK(lo == 0 && hi == L + L / 10);
	cw_lead_bound(&ipi, &lo, &hi);
	CHECK(lo == 0 && hi == (int64_t)(L + IDLELAB_CSTATE_WAIT_NS));
}

/* Min, max and counts over samples; an unstable TSC is not judged. */
TEST(tally)
{
	struct idlelab_cstate_sample s;
	struct cw_lead l = { 0 };

	s = at(30000);
	cw_lead_add(&l, &timer, &s, KHZ);
	s = at(-7);
	cw_lead_add(&l, &timer, &s, KHZ);
	s = at(45000);
	cw_lead_add(&l, &timer, &s, KHZ);
	s = at(90000);
	s.flags |= IDLELAB_SAMPLE_TSC_UNSTABLE;
	cw_lead_add(&l, &timer, &s, KHZ);
	CHECKF(l.n == 3 && l.out == 1, "n %llu out %llu",
	       (unsigned long long)l.n, (unsigned long long)l.out);
	CHECKF(l.min == -7 && l.max == 45000, "min %lld max %lld",
	       (long long)l.min, (long long)l.max);
}

int main(void)
{
	RUN(timer_entry_before_arming_is_out);
	RUN(timer_random_distance_uses_the_largest);
	RUN(ipi_sent_before_entry_is_out);
	RUN(bound_values);
	RUN(tally);
	return tap_done();
}
