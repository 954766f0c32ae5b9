// SPDX-License-Identifier: GPL-2.0-only
/*
 * err.c - thread-local error messages (see err.h for the convention).
 */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static __thread char il_msg[512];

/*
 * Formatted into a local buffer first: a caller may quote the message it
 * replaces ("run %s: %s", ..., il_errmsg()), and vsnprintf() writing into
 * the buffer it reads from truncates the quote at the first byte written
 * (issue 20: "corrupt histogram: run ...: corrupt histogram: ").
 */
int il_errorf(int err, const char *fmt, ...)
{
	char buf[sizeof(il_msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	memcpy(il_msg, buf, sizeof(il_msg));
	return err;
}

const char *il_errmsg(void)
{
	return il_msg[0] ? il_msg : "unknown error";
}

void il_errclear(void)
{
	il_msg[0] = '\0';
}
