/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlelab_cstate_check.h - the argument checks of idlelab_cstate.ko's
 * requests (the wake, WBINVD and gaps ioctls), as plain C.
 *
 * Each check looks at the request alone and at @nr_cpus, the number of
 * possible CPU ids (the module passes nr_cpu_ids), and says whether the
 * module may start on it: fields in range, padding and reserved words
 * zero, and the worst case within IDLELAB_MAX_RUN_US.  What needs the
 * running machine (a CPU online, MWAIT supported, the footprints read from
 * user memory) stays in the module, after these.  Being free of kernel
 * headers, the same code is fuzzed in user space (tests/fuzz/fuzz_cstate.c).
 *
 * Return: 0, or -IL_REQ_EINVAL.
 */
#ifndef IDLELAB_CSTATE_CHECK_H
#define IDLELAB_CSTATE_CHECK_H

#include "idlelab_reqcheck.h"

/*
 * The ACPI word: zero unless METHOD_ACPI; there, an index in 1..7 (the
 * module compares it with the CPU's power.count), a known bus-master
 * choice and no other bit, and no F_WBINVD, whose timing the ACPI flush
 * takes over (the UAPI's acpi_req).
 */
static inline int il_cstate_acpi_check(const struct idlelab_cstate_req *req)
{
	__u32 r = req->acpi_req;

	if (req->method != IDLELAB_METHOD_ACPI)
		return r ? -IL_REQ_EINVAL : 0;
	if ((r & ~IDLELAB_ACPI_REQ_ALL) || IDLELAB_ACPI_REQ_INDEX(r) == 0 ||
	    IDLELAB_ACPI_REQ_INDEX(r) >= IDLELAB_ACPI_MAX_STATES ||
	    IDLELAB_ACPI_REQ_BM(r) > IDLELAB_ACPI_BM_FLUSH ||
	    (req->flags & IDLELAB_CSTATE_F_WBINVD))
		return -IL_REQ_EINVAL;
	return 0;
}

static inline int il_cstate_req_check(const struct idlelab_cstate_req *req,
				      __u32 nr_cpus)
{
	if (req->abi_version != IDLELAB_ABI_VERSION ||
	    req->size != sizeof(*req) || req->pad || req->acpi_out ||
	    req->res_gated || req->gate_why || req->cpuid_cycles ||
	    req->noop_cycles || req->dirty_node || req->dirty_flags)
		return -IL_REQ_EINVAL;
	if (req->cpu >= nr_cpus || req->method > IDLELAB_METHOD_ACPI ||
	    req->wake_source > IDLELAB_WAKE_IPI ||
	    req->irq_mode > IDLELAB_IRQ_LATE ||
	    (req->flags & ~IDLELAB_CSTATE_F_ALL))
		return -IL_REQ_EINVAL;
	/* IRQ late is MWAIT's interrupt-break extension only. */
	if (req->irq_mode == IDLELAB_IRQ_LATE &&
	    req->method != IDLELAB_METHOD_MWAIT)
		return -IL_REQ_EINVAL;
	if (req->method != IDLELAB_METHOD_MWAIT ? req->mwait_hint != 0 :
	    req->mwait_hint > 0xff)
		return -IL_REQ_EINVAL;
	if (il_cstate_acpi_check(req))
		return -IL_REQ_EINVAL;
	if (req->wake_source == IDLELAB_WAKE_IPI &&
	    (req->sender_cpu >= nr_cpus || req->sender_cpu == req->cpu))
		return -IL_REQ_EINVAL;
	if (req->wake_source != IDLELAB_WAKE_IPI && req->sender_cpu)
		return -IL_REQ_EINVAL;
	if (req->launch_min_ns < 1000 ||
	    req->launch_min_ns > req->launch_max_ns ||
	    req->launch_max_ns > IDLELAB_MAX_LAUNCH_NS)
		return -IL_REQ_EINVAL;
	if (req->dirty_bytes > IDLELAB_MAX_DIRTY_BYTES ||
	    (req->dirty_bytes && !(req->flags & IDLELAB_CSTATE_F_WBINVD)))
		return -IL_REQ_EINVAL;
	if (req->nr_samples == 0 || req->nr_samples > IDLELAB_MAX_SAMPLES ||
	    !req->samples)
		return -IL_REQ_EINVAL;
	if (req->pad2)
		return -IL_REQ_EINVAL;
	/* Every sample may wait its full bound for an event that never came. */
	if ((__u64)req->nr_samples *
	    ((req->launch_max_ns + IDLELAB_CSTATE_WAIT_NS) /
	     IL_REQ_NSEC_PER_USEC) > IDLELAB_MAX_RUN_US)
		return -IL_REQ_EINVAL;
	return 0;
}

static inline int il_gaps_req_check(const struct idlelab_gaps_req *req,
				    __u32 nr_cpus)
{
	if (req->abi_version != IDLELAB_ABI_VERSION ||
	    req->size != sizeof(*req) || req->pad ||
	    !il_req_all_zero(req->reserved, sizeof(req->reserved)))
		return -IL_REQ_EINVAL;
	if (req->threshold_ns < IDLELAB_MIN_THRESHOLD_NS)
		return -IL_REQ_EINVAL;
	if (req->cpu >= nr_cpus || req->width_us == 0 ||
	    req->width_us > IDLELAB_MAX_WIDTH_US ||
	    req->width_us > req->window_us / 2 ||
	    req->window_us > IDLELAB_MAX_WINDOW_US ||
	    req->nr_windows == 0 || req->nr_windows > IDLELAB_MAX_WINDOWS ||
	    req->nr_samples == 0 || req->nr_samples > IDLELAB_MAX_SAMPLES ||
	    !req->samples || req->threshold_ns > IL_REQ_NSEC_PER_SEC ||
	    (__u64)req->nr_windows * req->window_us > IDLELAB_MAX_RUN_US)
		return -IL_REQ_EINVAL;
	return 0;
}

/* The sweep's fields; the footprints themselves are checked once read. */
static inline int il_wbinvd_sweep_check(const struct idlelab_wbinvd_req *req)
{
	if (req->nr_footprints == 0 ||
	    req->nr_footprints > IDLELAB_MAX_FOOTPRINTS ||
	    !req->footprints || req->nr_victims || req->victims ||
	    req->interval_us || req->dirty_bytes || req->width_us ||
	    req->threshold_ns || req->window_us)
		return -IL_REQ_EINVAL;
	if ((__u64)req->nr_footprints * req->reps > req->nr_samples)
		return -IL_REQ_EINVAL;
	return 0;
}

static inline int il_wbinvd_blast_check(const struct idlelab_wbinvd_req *req,
					__u32 nr_cpus)
{
	/* A CPU besides the aggressor stays out (the module: online ones). */
	if (req->nr_footprints || req->footprints ||
	    req->nr_victims == 0 || (__u64)req->nr_victims + 2 > nr_cpus ||
	    !req->victims ||
	    req->interval_us == 0 ||
	    req->interval_us > IDLELAB_MAX_INTERVAL_US ||
	    req->dirty_bytes > IDLELAB_MAX_DIRTY_BYTES ||
	    req->width_us == 0 ||
	    req->width_us > IDLELAB_MAX_WIDTH_US ||
	    req->width_us > req->window_us / 2 ||
	    req->window_us > IDLELAB_MAX_WINDOW_US ||
	    req->threshold_ns < IDLELAB_MIN_THRESHOLD_NS ||
	    req->threshold_ns > IL_REQ_NSEC_PER_SEC)
		return -IL_REQ_EINVAL;
	/*
	 * Worst case: the wait for the victims, each repetition's memset and
	 * write-back and its interval with 1/8 of slack, and the victims'
	 * last window.
	 */
	if (IDLELAB_BLAST_START_US + (__u64)req->reps *
	    (req->interval_us + req->interval_us / 8 + 1 +
	     IDLELAB_DIRTY_REP_US(req->dirty_bytes)) +
	    req->window_us > IDLELAB_MAX_RUN_US)
		return -IL_REQ_EINVAL;
	/* Room for every event and at least one gap per victim. */
	if ((__u64)req->reps + req->nr_victims > req->nr_samples)
		return -IL_REQ_EINVAL;
	return 0;
}

static inline int il_wbinvd_req_check(const struct idlelab_wbinvd_req *req,
				      __u32 nr_cpus)
{
	if (req->abi_version != IDLELAB_ABI_VERSION ||
	    req->size != sizeof(*req) || req->pad || req->pad2 ||
	    !il_req_all_zero(req->reserved, sizeof(req->reserved)) ||
	    req->cpuid_cycles || req->noop_cycles || req->mem_node ||
	    req->mem_flags)
		return -IL_REQ_EINVAL;
	if (req->cpu >= nr_cpus || (req->flags & ~IDLELAB_WBINVD_F_ALL) ||
	    req->reps == 0 || req->reps > IDLELAB_MAX_REPS ||
	    req->nr_samples == 0 || req->nr_samples > IDLELAB_MAX_SAMPLES ||
	    !req->samples)
		return -IL_REQ_EINVAL;
	switch (req->mode) {
	case IDLELAB_WBINVD_SWEEP:
		return il_wbinvd_sweep_check(req);
	case IDLELAB_WBINVD_BLAST:
		return il_wbinvd_blast_check(req, nr_cpus);
	}
	return -IL_REQ_EINVAL;
}

#endif /* IDLELAB_CSTATE_CHECK_H */
