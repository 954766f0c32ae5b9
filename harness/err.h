/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * err.h - the one error convention of the idlelab library.
 *
 * Every library function returns 0 (or a non-negative count) on success and
 * a negative errno on failure.  Where the errno alone would not tell a user
 * what went wrong, the function also leaves a one-line, human-readable
 * message with il_errorf(); the CLI prints il_errmsg().  The message is
 * thread-local, so benchmark threads cannot clobber each other's.
 *
 * Library code never calls exit() and never prints; only harness/cli/
 * decides how a failure ends the process.
 */
#ifndef IDLELAB_ERR_H
#define IDLELAB_ERR_H

#include <errno.h>

/**
 * il_errorf() - remember a message for the current thread's last error.
 * @err: a negative errno, returned unchanged so callers can write
 *       "return il_errorf(-EINVAL, ...)".
 * @fmt: printf-style message, no trailing newline.  Its arguments may
 *       include il_errmsg(), to wrap the message being replaced.
 */
int il_errorf(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * il_errmsg() - the current thread's last message, or "unknown error" if
 * none was left.  There is no strerror() fallback: only the message is
 * kept, not the errno, so a function whose errno needs words must say
 * them with il_errorf().
 */
const char *il_errmsg(void);

/** il_errclear() - forget the current thread's message. */
void il_errclear(void);

#endif
