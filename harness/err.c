// SPDX-License-Identifier: GPL-2.0-only
/*
 * err.c - thread-local error messages (see err.h for the convention).
 */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static __thread char il_msg[512];

int il_errorf(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(il_msg, sizeof(il_msg), fmt, ap);
	va_end(ap);
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
