// SPDX-License-Identifier: GPL-2.0-only
/*
 * cstate_wake_lead.c - where each cstate_wake sample's t_entry was taken,
 * judged against the other side of the wake.  The lead of a sample is
 * t_launch - t_entry: how long before its wake event the CPU was in the
 * idle instruction.  What the module does (kmod/cstate/wake.c,
 * il_wake_one()) bounds it, so a t_entry read in the wrong place shows up
 * as a lead outside the bound, counted per measured CPU:
 *
 * - hrtimer wake: the module reads T0 and arms the timer for L later, with
 *   t_launch = T0 + L (rescaled by the monotonic clock's own rate once it
 *   fired, il_launch_tsc()); then it arms the backstop, runs the WBINVD if
 *   asked, and only then reads t_entry.  So 0 <= lead <= L, all on the
 *   measured CPU.  L is random per sample with launch_max_ns and is not in
 *   the sample, so the bound is the run's largest L.  The allowance over it
 *   (IL_CW_LEAD_SLACK_PCT) is for the rate t_launch was scaled by: an
 *   emulator may stall a vCPU inside the module's pairs of clock reads
 *   (QEMU's TCG, with the HPET as clocksource, put one correct sample
 *   954 ns past L = 50 us when each pair was two adjacent reads; the
 *   module now keeps the tightest of several TSC brackets), and tsc_khz,
 *   which turns cycles into ns here, may differ from that rate.
 *   A t_entry taken before the arming gives a lead over L.
 * - IPI wake: the measured CPU publishes the sample as armed, then arms
 *   the backstop, runs the WBINVD if asked, executes the idle VERW (and
 *   MONITOR) and reads t_entry.  The sender, on another CPU, sees the
 *   publication, spins L cycles of its own TSC, reads t_launch and sends.
 *   So lead = L + (the sender's delay in seeing the publication) - (the
 *   measured CPU's time from publishing to t_entry), on two CPUs' TSCs.
 *   Neither time has a bound a sample could be held to: under QEMU's TCG
 *   the backstop's arming alone stretched a timer wake's arming-to-entry
 *   to 37 us of L = 50 us, and the same path precedes an IPI's t_entry.
 *   So a sample is held only to 0 <= lead (the sender sent after t_entry)
 *   <= L + IDLELAB_CSTATE_WAIT_NS (the wake ended the idle before the
 *   backstop, armed for that before t_entry); the run's largest lead,
 *   stored, shows whether the sender waited L at all (a rig asserts it
 *   is over L / 2, tests/vm/test_qemu.sh).
 *
 * Only on-time samples are judged (not early, late, other-interrupt,
 * backstop, preempted or unsupported: cw_account() drops those first),
 * and none taken while the TSC was marked unstable, since the IPI bound
 * compares two CPUs' counters.
 */
#include "cstate_wake.h"
#include "kclient.h"

#include <inttypes.h>

/* A timer lead's allowance over L, in percent of L (see above). */
#define IL_CW_LEAD_SLACK_PCT	10

void cw_lead_bound(const struct cw_lead_rule *r, int64_t *lo, int64_t *hi)
{
	*lo = 0;
	if (r->wake_source == IDLELAB_WAKE_HRTIMER)
		*hi = (int64_t)(r->l_max + r->l_max * IL_CW_LEAD_SLACK_PCT /
				100);
	else
		*hi = (int64_t)(r->l_max + IDLELAB_CSTATE_WAIT_NS);
}

/* Signed: a bug may put t_entry after t_launch. */
static int64_t cw_lead_ns(const struct idlelab_cstate_sample *s, uint64_t khz)
{
	if (s->t_launch >= s->t_entry)
		return (int64_t)il_kcyc_ns(s->t_launch - s->t_entry, khz);
	return -(int64_t)il_kcyc_ns(s->t_entry - s->t_launch, khz);
}

void cw_lead_add(struct cw_lead *l, const struct cw_lead_rule *r,
		 const struct idlelab_cstate_sample *s, uint64_t khz)
{
	int64_t lead, lo, hi;

	if (s->flags & IDLELAB_SAMPLE_TSC_UNSTABLE)
		return;
	lead = cw_lead_ns(s, khz);
	cw_lead_bound(r, &lo, &hi);
	if (!l->n || lead < l->min)
		l->min = lead;
	if (!l->n || lead > l->max)
		l->max = lead;
	l->n++;
	l->out += lead < lo || lead > hi;
}

void cw_lead_attrs(struct il_run *run, int cpu, const struct cw_lead *l)
{
	il_run_attr(run, cpu, "entry_lead_samples", "%" PRIu64, l->n);
	il_run_attr(run, cpu, "entry_lead_out_of_bounds", "%" PRIu64, l->out);
	if (!l->n) {
		il_run_attr(run, cpu, "entry_lead_min_ns",
			    "unavailable: no on-time sample");
		il_run_attr(run, cpu, "entry_lead_max_ns",
			    "unavailable: no on-time sample");
		return;
	}
	il_run_attr(run, cpu, "entry_lead_min_ns", "%" PRId64, l->min);
	il_run_attr(run, cpu, "entry_lead_max_ns", "%" PRId64, l->max);
}
