/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlelab_storm_check.h - the argument check of idlelab_ipi.ko's storm
 * request, as plain C.
 *
 * It looks at the request alone and at @nr_cpus, the number of possible
 * CPU ids (the module passes nr_cpu_ids): mode and counts in range, the
 * buffers given, reserved words zero, and the worst case within
 * IDLELAB_MAX_RUN_US.  The target list itself (online, unique, not the
 * sender) needs the machine and stays in the module (dest.c).  Free of
 * kernel headers, the same code is fuzzed in user space
 * (tests/fuzz/fuzz_storm.c).
 *
 * Return: 0, or -IL_REQ_EINVAL.
 */
#ifndef IDLELAB_STORM_CHECK_H
#define IDLELAB_STORM_CHECK_H

#include "idlelab_reqcheck.h"

static inline int il_storm_req_check(const struct idlelab_ipi_req *req,
				     __u32 nr_cpus)
{
	if (req->abi_version != IDLELAB_ABI_VERSION ||
	    req->size != sizeof(*req) || req->pad2 ||
	    (req->flags & ~IDLELAB_IPI_F_ALL) ||
	    !il_req_all_zero(req->reserved, sizeof(req->reserved)))
		return -IL_REQ_EINVAL;
	if (req->mode > IDLELAB_IPI_KERNEL || req->sender_cpu >= nr_cpus ||
	    req->nr_targets == 0 || req->nr_targets >= nr_cpus ||
	    req->nr_targets > IDLELAB_MAX_CPUS ||
	    req->nr_rounds == 0 || req->nr_rounds > IDLELAB_MAX_ROUNDS ||
	    (__u64)req->nr_rounds * req->nr_targets > IDLELAB_MAX_SAMPLES ||
	    req->timeout_us == 0 ||
	    req->timeout_us > IDLELAB_MAX_ROUND_TIMEOUT_US ||
	    !req->targets || !req->rounds || !req->arrivals)
		return -IL_REQ_EINVAL;
	/* The worst case within the run limit (IDLELAB_STORM_WORST_US). */
	if (IDLELAB_STORM_WORST_US(req->nr_rounds, req->timeout_us) >
	    IDLELAB_MAX_RUN_US)
		return -IL_REQ_EINVAL;
	return 0;
}

#endif /* IDLELAB_STORM_CHECK_H */
