// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_err.c - the error convention (harness/err.c): a message that wraps
 * the one it replaces keeps it whole (issue 20: "corrupt histogram: run
 * ...: corrupt histogram: " came from vsnprintf() writing over the
 * il_errmsg() it was quoting), a message past the buffer is cut, not
 * overrun, and il_errclear() leaves "unknown error".
 */
#include "err.h"
#include "tap.h"

#include <string.h>

TEST(wraps_its_own_message)
{
	CHECK(il_errorf(-EPROTO, "not an idlelab histogram BLOB") == -EPROTO);
	CHECK(il_errorf(-EIO, "run %s: corrupt histogram: %s", "u-1",
			il_errmsg()) == -EIO);
	CHECKF(!strcmp(il_errmsg(),
		       "run u-1: corrupt histogram: not an idlelab histogram BLOB"),
	       "got '%s'", il_errmsg());
	/* Quoted twice, from the front of the buffer it replaces. */
	il_errorf(-EIO, "%s / %s", il_errmsg(), il_errmsg());
	CHECK(!strncmp(il_errmsg(), "run u-1: corrupt", 16));
	CHECK(strstr(il_errmsg(), " / run u-1: corrupt") != NULL);
}

TEST(long_message_cut)
{
	char big[2000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	il_errorf(-EINVAL, "%s", big);
	CHECK(strlen(il_errmsg()) > 100 && strlen(il_errmsg()) < sizeof(big));
	il_errorf(-EINVAL, "again: %s", il_errmsg());
	CHECK(!strncmp(il_errmsg(), "again: xxx", 10));
}

TEST(cleared)
{
	il_errorf(-EINVAL, "something");
	il_errclear();
	CHECK(!strcmp(il_errmsg(), "unknown error"));
}

int main(void)
{
	RUN(wraps_its_own_message);
	RUN(long_message_cut);
	RUN(cleared);
	return tap_done();
}
