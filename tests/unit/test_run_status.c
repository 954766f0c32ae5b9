// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_run_status.c - the run status name table: every status has a
 * distinct name that parses back to it, unknown names are refused, and
 * exactly ok, failed and unsupported are final for --resume.
 */
#include "err.h"
#include "run_status.h"
#include "tap.h"

#include <string.h>

TEST(round_trip)
{
	enum il_run_status s, back;
	int i, j;

	for (i = 0; i < IL_RUN_NSTATUS; i++) {
		s = (enum il_run_status)i;
		CHECK(il_run_status_parse(il_run_status_name(s), &back) == 0 && back == s);
		for (j = 0; j < i; j++)
			CHECK(strcmp(il_run_status_name(s),
				     il_run_status_name((enum il_run_status)j)));
	}
	/* The names the database and the man pages use. */
	CHECK(!strcmp(il_run_status_name(IL_RUN_OK), "ok"));
	CHECK(!strcmp(il_run_status_name(IL_RUN_INTERRUPTED), "interrupted"));
	CHECK(!strcmp(il_run_status_name(IL_RUN_NSTATUS), "?"));
}

TEST(unknown_refused)
{
	enum il_run_status s = IL_RUN_OK;

	CHECK(il_run_status_parse("OK", &s) == -EINVAL);
	CHECK(strstr(il_errmsg(), "'OK'"));
	CHECK(il_run_status_parse("", &s) == -EINVAL);
	CHECK(il_run_status_parse(NULL, &s) == -EINVAL);
	CHECK(s == IL_RUN_OK);
}

TEST(final)
{
	CHECK(il_run_status_final(IL_RUN_OK));
	CHECK(il_run_status_final(IL_RUN_FAILED));
	CHECK(il_run_status_final(IL_RUN_UNSUPPORTED));
	CHECK(!il_run_status_final(IL_RUN_INTERRUPTED));
	CHECK(!il_run_status_final(IL_RUN_SKIPPED));
}

int main(void)
{
	RUN(round_trip);
	RUN(unknown_refused);
	RUN(final);
	return tap_done();
}
