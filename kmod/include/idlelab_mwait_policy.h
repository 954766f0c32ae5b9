/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlelab_mwait_policy.h - does the kernel's cpuidle policy on a CPU
 * forbid the MWAIT hint a raw request names?  Plain C with no kernel or
 * libc include, built into idlelab_cstate.ko (wake_run.c) and into the
 * user-space unit test (tests/unit/test_mwait_policy.c), which walks
 * tables no machine here has: Sapphire Rapids, EPYC.
 *
 * cpuidle's policy is per state: a state is disabled on one CPU (sysfs
 * stateN/disable, by the user or by its driver), and the states past the
 * driver's max_cstate are not registered at all (intel_idle.max_cstate,
 * processor.max_cstate).  A raw request names a hint, not a state, and the
 * drivers do not export their hints; but each states it in the state's
 * description: intel_idle "MWAIT 0x20", acpi_idle's FFH states "ACPI FFH
 * MWAIT 0x20".  So a CPU's registered states, in index order, are matched
 * to the hint through their descriptions:
 *  - a hint some state enters is refused when every state that enters it
 *    is disabled;
 *  - a hint deeper than every MWAIT state listed is refused too: the
 *    kernel never goes that deep by MWAIT here, and that is what a lower
 *    max_cstate leaves (intel_idle.max_cstate=1 on Sapphire Rapids lists
 *    C1 0x00 alone, so C6 0x20 is refused);
 *  - any other hint is left alone, and so is every hint when no state
 *    names an MWAIT hint (no cpuidle driver, HLT or I/O-port states only,
 *    the rig's guests): the kernel's policy says nothing about it.
 * Depth is the hint's order: bits 7:4 the C-state minus 1, 3:0 the
 * sub-state.  Refused means IDLELAB_UNSUP_STATE_DISABLED, unless the
 * request sets IDLELAB_CSTATE_F_POLICY_OVERRIDE (the caller's test).
 */
#ifndef IDLELAB_MWAIT_POLICY_H
#define IDLELAB_MWAIT_POLICY_H

#include "uapi/idlelab.h"

/* One registered cpuidle state of a CPU, as its sysfs directory shows it. */
struct il_idle_state {
	const char *desc;	/* stateN/desc, NUL-terminated */
	int disabled;		/* stateN/disable read as nonzero */
};

/*
 * The MWAIT hint a state's description names ("MWAIT 0x" and up to two
 * hex digits, anywhere in it), or -1 when it names none.
 */
static inline int il_desc_mwait_hint(const char *desc)
{
	static const char key[] = "MWAIT 0x";
	int i, k, v, d, n;

	for (i = 0; desc[i]; i++) {
		for (k = 0; key[k] && desc[i + k] == key[k]; k++)
			;
		if (key[k])
			continue;
		for (v = 0, n = 0; n < 3; n++) {
			char c = desc[i + k + n];

			if (c >= '0' && c <= '9')
				d = c - '0';
			else if (c >= 'a' && c <= 'f')
				d = c - 'a' + 10;
			else if (c >= 'A' && c <= 'F')
				d = c - 'A' + 10;
			else
				break;
			v = v * 16 + d;
		}
		/* No digit, or more than a byte: not a hint. */
		return n == 0 || n > 2 ? -1 : v;
	}
	return -1;
}

/*
 * il_mwait_policy - may MWAIT(@hint) be entered on a CPU whose registered
 * cpuidle states are @st[0..@n)?
 *
 * Return: IDLELAB_UNSUP_NONE or IDLELAB_UNSUP_STATE_DISABLED.
 */
static inline __u32 il_mwait_policy(const struct il_idle_state *st,
				    __u32 n, __u32 hint)
{
	int deepest = -1, matched = 0, allowed = 0, h;
	__u32 i;

	for (i = 0; i < n; i++) {
		h = il_desc_mwait_hint(st[i].desc);
		if (h < 0)
			continue;
		if (h > deepest)
			deepest = h;
		if ((__u32)h == hint) {
			matched = 1;
			allowed |= !st[i].disabled;
		}
	}
	if (deepest < 0)
		return IDLELAB_UNSUP_NONE;
	if (matched)
		return allowed ? IDLELAB_UNSUP_NONE :
				 IDLELAB_UNSUP_STATE_DISABLED;
	return hint > (__u32)deepest ? IDLELAB_UNSUP_STATE_DISABLED :
				       IDLELAB_UNSUP_NONE;
}

#endif /* IDLELAB_MWAIT_POLICY_H */
