// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_mwait_policy.c - the cstate module's refusal of an MWAIT hint the
 * kernel's cpuidle policy forbids (IDLELAB_UNSUP_STATE_DISABLED, 20), on
 * the cpuidle tables of machines this workplace has none of: intel_idle on
 * Sapphire Rapids and acpi_idle's FFH and I/O-port states on EPYC.  The
 * guests have no MWAIT cpuidle state at all, which the last cases cover.
 * The function is the module's own (kmod/include/idlelab_mwait_policy.h).
 */
#include <stdio.h>

#include "tap.h"
#include "idlelab_mwait_policy.h"

#define POLL_DESC	"CPUIDLE CORE POLL IDLE"
#define NOK		IDLELAB_UNSUP_NONE
#define OFF		IDLELAB_UNSUP_STATE_DISABLED
#define N(t)		((__u32)(sizeof(t) / sizeof((t)[0])))

/* intel_idle's spr_cstates: C1, C1E, C6, behind the poll state. */
static struct il_idle_state spr[] = {
	{ POLL_DESC, 0 },
	{ "MWAIT 0x00", 0 },
	{ "MWAIT 0x01", 0 },
	{ "MWAIT 0x20", 0 },
};

/* acpi_idle on a Zen 4 EPYC: C1 by FFH MWAIT, C2 by an I/O-port read. */
static struct il_idle_state epyc[] = {
	{ POLL_DESC, 0 },
	{ "ACPI FFH MWAIT 0x0", 0 },
	{ "ACPI IOPORT 0x814", 0 },
};

static void spr_reset(void)
{
	__u32 i;

	for (i = 0; i < N(spr); i++)
		spr[i].disabled = 0;
}

TEST(desc_hints)
{
	CHECK(il_desc_mwait_hint("MWAIT 0x00") == 0);
	CHECK(il_desc_mwait_hint("MWAIT 0x20") == 0x20);
	CHECK(il_desc_mwait_hint("ACPI FFH MWAIT 0x0") == 0);
	CHECK(il_desc_mwait_hint("ACPI FFH MWAIT 0x31") == 0x31);
	CHECK(il_desc_mwait_hint("MWAIT 0xF0") == 0xf0);
	CHECK(il_desc_mwait_hint(POLL_DESC) == -1);
	CHECK(il_desc_mwait_hint("ACPI IOPORT 0x814") == -1);
	CHECK(il_desc_mwait_hint("ACPI HLT") == -1);
	CHECK(il_desc_mwait_hint("MWAIT 0x") == -1);
	CHECK(il_desc_mwait_hint("MWAIT 0x123") == -1);
	CHECK(il_desc_mwait_hint("") == -1);
}

/* Every state enabled: each listed hint is allowed. */
TEST(spr_all_enabled)
{
	spr_reset();
	CHECK(il_mwait_policy(spr, N(spr), 0x00) == NOK);
	CHECK(il_mwait_policy(spr, N(spr), 0x01) == NOK);
	CHECK(il_mwait_policy(spr, N(spr), 0x20) == NOK);
	/* Not a state of the table, but shallower than C6: no policy. */
	CHECK(il_mwait_policy(spr, N(spr), 0x10) == NOK);
	/* Deeper than anything the kernel enters here. */
	CHECK(il_mwait_policy(spr, N(spr), 0x21) == OFF);
	CHECK(il_mwait_policy(spr, N(spr), 0x30) == OFF);
}

/* A state disabled on this CPU refuses its own hint and no other. */
TEST(spr_one_disabled)
{
	__u32 s, h, want;
	static const __u32 hint[] = { 0, 0x00, 0x01, 0x20 };

	for (s = 1; s < N(spr); s++) {
		spr_reset();
		spr[s].disabled = 1;
		for (h = 1; h < N(spr); h++) {
			want = h == s ? OFF : NOK;
			CHECKF(il_mwait_policy(spr, N(spr), hint[h]) == want,
			       "state %u disabled, hint 0x%02x", s, hint[h]);
		}
	}
	spr_reset();
}

/*
 * intel_idle.max_cstate=N registers the first N states of the model's
 * table (behind the poll state): whatever lies past them is refused.
 */
TEST(spr_max_cstate)
{
	spr_reset();
	/* max_cstate=1: POLL, C1. */
	CHECK(il_mwait_policy(spr, 2, 0x00) == NOK);
	CHECK(il_mwait_policy(spr, 2, 0x01) == OFF);
	CHECK(il_mwait_policy(spr, 2, 0x20) == OFF);
	/* max_cstate=2: POLL, C1, C1E. */
	CHECK(il_mwait_policy(spr, 3, 0x01) == NOK);
	CHECK(il_mwait_policy(spr, 3, 0x20) == OFF);
}

TEST(epyc)
{
	CHECK(il_mwait_policy(epyc, N(epyc), 0x00) == NOK);
	/* Zen's only MWAIT state is C1: deeper hints, never by MWAIT. */
	CHECK(il_mwait_policy(epyc, N(epyc), 0x10) == OFF);
	epyc[1].disabled = 1;
	CHECK(il_mwait_policy(epyc, N(epyc), 0x00) == OFF);
	/* The I/O-port state's own disable says nothing about MWAIT. */
	epyc[1].disabled = 0;
	epyc[2].disabled = 1;
	CHECK(il_mwait_policy(epyc, N(epyc), 0x00) == NOK);
	epyc[2].disabled = 0;
}

/* Two states on one hint: refused only when both are disabled. */
TEST(shared_hint)
{
	struct il_idle_state t[] = {
		{ "MWAIT 0x00", 1 },
		{ "ACPI FFH MWAIT 0x0", 0 },
	};

	CHECK(il_mwait_policy(t, 2, 0) == NOK);
	t[1].disabled = 1;
	CHECK(il_mwait_policy(t, 2, 0) == OFF);
}

/* The rig's guests: no cpuidle state names a hint, so none is refused. */
TEST(no_mwait_states)
{
	struct il_idle_state poll[] = { { POLL_DESC, 0 } };
	struct il_idle_state hlt[] = { { POLL_DESC, 0 }, { "ACPI HLT", 1 },
				       { "ACPI IOPORT 0x414", 1 } };
	__u32 h, bad = 0;

	for (h = 0; h <= 0xff; h++)
		bad += il_mwait_policy(poll, 1, h) != NOK ||
		       il_mwait_policy(hlt, 3, h) != NOK ||
		       il_mwait_policy(NULL, 0, h) != NOK;
	CHECKF(bad == 0, "%u hints refused", bad);
}

int main(void)
{
	RUN(desc_hints);
	RUN(spr_all_enabled);
	RUN(spr_one_disabled);
	RUN(spr_max_cstate);
	RUN(epyc);
	RUN(shared_hint);
	RUN(no_mwait_states);
	return tap_done();
}
