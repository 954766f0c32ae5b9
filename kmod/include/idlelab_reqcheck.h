/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlelab_reqcheck.h - what the modules' request checks share, in plain C.
 *
 * The argument checks of the ioctl requests (idlelab_cstate_check.h,
 * idlelab_storm_check.h) are pure functions of the request and the number
 * of possible CPUs, so they are written once here, with no kernel or libc
 * include beyond the UAPI header, and built twice: into the modules, and
 * into the user-space fuzz targets (tests/fuzz/fuzz_cstate.c,
 * fuzz_storm.c), which could not reach them inside the kernel.  Only the
 * UAPI's own types are used, so both builds see the same layout.
 *
 * Errors are negative errno values, spelled out here (as in
 * idlelab_apicdest.h) so that no errno header is needed; the modules
 * assert that the number is the kernel's.
 */
#ifndef IDLELAB_REQCHECK_H
#define IDLELAB_REQCHECK_H

#include "uapi/idlelab.h"

#define IL_REQ_EINVAL		22

/* The kernel's NSEC_PER_SEC and NSEC_PER_USEC, for user space as well. */
#define IL_REQ_NSEC_PER_SEC	1000000000ULL
#define IL_REQ_NSEC_PER_USEC	1000ULL

/*
 * Are all @len bytes at @p zero?  A plain loop rather than memchr_inv():
 * the reserved fields are a few words and the check runs once a request.
 */
static inline int il_req_all_zero(const void *p, unsigned long len)
{
	const unsigned char *b = p;
	unsigned long i;

	for (i = 0; i < len; i++)
		if (b[i])
			return 0;
	return 1;
}

#endif /* IDLELAB_REQCHECK_H */
