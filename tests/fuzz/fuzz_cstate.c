// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_cstate.c - idlelab_cstate.ko's request checks
 * (kmod/include/idlelab_cstate_check.h): the wake, gaps and WBINVD ioctls.
 *
 * Input: byte 0 picks the request (bits 0-1: wake, gaps, WBINVD) and
 * whether its abi_version and size are kept as given (bit 2; otherwise
 * they are set right, so that the fuzzer spends its time past them);
 * bytes 1-2 are the number of possible CPUs less one; the rest is the
 * request, zero-filled when short.
 *
 * The check is the oracle's subject, not its copy: what it accepts must
 * satisfy the UAPI's limits as stated in uapi/idlelab.h, with each run's
 * worst case recomputed in 128-bit arithmetic so that a product that
 * wrapped in the check's 64 bits shows up as an accepted run past
 * IDLELAB_MAX_RUN_US.  An accepted request must stay accepted with more
 * CPUs and be refused once any reserved byte is set; every refusal is
 * -EINVAL and nothing else.
 */
#include "fuzz.h"
#include "idlelab_cstate_check.h"

#include <string.h>

typedef unsigned __int128 u128;

#define ACCEPT_IF(cond, ...) do {					\
		if (!(cond))						\
			fuzz_fail(__VA_ARGS__);				\
	} while (0)

/* What an accepted wake request must be. */
static void wake_accepted(const struct idlelab_cstate_req *r, __u32 nr)
{
	u128 worst_ns;

	ACCEPT_IF(!r->pad && !r->pad2, "wake: padding accepted");
	ACCEPT_IF(r->cpu < nr, "wake: cpu %u of %u", r->cpu, nr);
	ACCEPT_IF(r->method <= IDLELAB_METHOD_ACPI &&
		  r->wake_source <= IDLELAB_WAKE_IPI &&
		  r->irq_mode <= IDLELAB_IRQ_LATE, "wake: an enum out of range");
	ACCEPT_IF(!(r->flags & ~IDLELAB_CSTATE_F_ALL), "wake: unknown flag");
	ACCEPT_IF(r->irq_mode != IDLELAB_IRQ_LATE ||
		  r->method == IDLELAB_METHOD_MWAIT, "wake: IRQ late without MWAIT");
	ACCEPT_IF(r->method == IDLELAB_METHOD_MWAIT ? r->mwait_hint <= 0xff :
		  !r->mwait_hint, "wake: hint %#x", r->mwait_hint);
	ACCEPT_IF(!r->acpi_out, "wake: an ACPI out word on input");
	if (r->method == IDLELAB_METHOD_ACPI)
		ACCEPT_IF(IDLELAB_ACPI_REQ_INDEX(r->acpi_req) >= 1 &&
			  IDLELAB_ACPI_REQ_INDEX(r->acpi_req) <
			  IDLELAB_ACPI_MAX_STATES &&
			  IDLELAB_ACPI_REQ_BM(r->acpi_req) <=
			  IDLELAB_ACPI_BM_FLUSH &&
			  !(r->acpi_req & ~IDLELAB_ACPI_REQ_ALL) &&
			  !(r->flags & IDLELAB_CSTATE_F_WBINVD),
			  "wake: ACPI word %#x", r->acpi_req);
	else
		ACCEPT_IF(!r->acpi_req, "wake: an ACPI word without ACPI");
	if (r->wake_source == IDLELAB_WAKE_IPI)
		ACCEPT_IF(r->sender_cpu < nr && r->sender_cpu != r->cpu,
			  "wake: sender %u, cpu %u", r->sender_cpu, r->cpu);
	else
		ACCEPT_IF(!r->sender_cpu, "wake: a sender without IPIs");
	ACCEPT_IF(r->launch_min_ns >= 1000 &&
		  r->launch_min_ns <= r->launch_max_ns &&
		  r->launch_max_ns <= IDLELAB_MAX_LAUNCH_NS, "wake: launch range");
	ACCEPT_IF(r->dirty_bytes <= IDLELAB_MAX_DIRTY_BYTES &&
		  (!r->dirty_bytes || (r->flags & IDLELAB_CSTATE_F_WBINVD)),
		  "wake: dirty bytes %llu", (unsigned long long)r->dirty_bytes);
	ACCEPT_IF(r->nr_samples >= 1 && r->nr_samples <= IDLELAB_MAX_SAMPLES &&
		  r->samples, "wake: samples");
	/* The check counts whole microseconds per sample: allow that. */
	worst_ns = (u128)r->nr_samples *
		   (r->launch_max_ns + IDLELAB_CSTATE_WAIT_NS);
	ACCEPT_IF(worst_ns < ((u128)IDLELAB_MAX_RUN_US + r->nr_samples) * 1000,
		  "wake: worst case past the run limit");
}

static void gaps_accepted(const struct idlelab_gaps_req *r, __u32 nr)
{
	ACCEPT_IF(!r->pad, "gaps: padding accepted");
	ACCEPT_IF(r->cpu < nr, "gaps: cpu %u of %u", r->cpu, nr);
	ACCEPT_IF(r->width_us >= 1 && r->width_us <= IDLELAB_MAX_WIDTH_US &&
		  2 * (__u64)r->width_us <= r->window_us &&
		  r->window_us <= IDLELAB_MAX_WINDOW_US,
		  "gaps: width %u, window %u", r->width_us, r->window_us);
	ACCEPT_IF(r->nr_windows >= 1 && r->nr_windows <= IDLELAB_MAX_WINDOWS,
		  "gaps: %u windows", r->nr_windows);
	ACCEPT_IF(r->nr_samples >= 1 && r->nr_samples <= IDLELAB_MAX_SAMPLES &&
		  r->samples, "gaps: samples");
	ACCEPT_IF(r->threshold_ns >= IDLELAB_MIN_THRESHOLD_NS &&
		  r->threshold_ns <= 1000000000ULL, "gaps: threshold");
	ACCEPT_IF((u128)r->nr_windows * r->window_us <= IDLELAB_MAX_RUN_US,
		  "gaps: worst case past the run limit");
}

static void wbinvd_accepted(const struct idlelab_wbinvd_req *r, __u32 nr)
{
	u128 rep_us, worst_us;

	ACCEPT_IF(!r->pad && !r->pad2, "wbinvd: padding accepted");
	ACCEPT_IF(r->cpu < nr, "wbinvd: cpu %u of %u", r->cpu, nr);
	ACCEPT_IF(!(r->flags & ~IDLELAB_WBINVD_F_ALL), "wbinvd: unknown flag");
	ACCEPT_IF(r->reps >= 1 && r->reps <= IDLELAB_MAX_REPS, "wbinvd: reps");
	ACCEPT_IF(r->nr_samples >= 1 && r->nr_samples <= IDLELAB_MAX_SAMPLES &&
		  r->samples, "wbinvd: samples");
	if (r->mode == IDLELAB_WBINVD_SWEEP) {
		ACCEPT_IF(r->nr_footprints >= 1 &&
			  r->nr_footprints <= IDLELAB_MAX_FOOTPRINTS &&
			  r->footprints, "sweep: footprints");
		ACCEPT_IF(!r->nr_victims && !r->victims && !r->interval_us &&
			  !r->dirty_bytes && !r->width_us && !r->threshold_ns &&
			  !r->window_us, "sweep: a blast field set");
		ACCEPT_IF((u128)r->nr_footprints * r->reps <= r->nr_samples,
			  "sweep: no room for every sample");
		return;
	}
	ACCEPT_IF(r->mode == IDLELAB_WBINVD_BLAST, "wbinvd: mode %u", r->mode);
	ACCEPT_IF(!r->nr_footprints && !r->footprints, "blast: footprints");
	/* One CPU besides the aggressor is left out of every blast. */
	ACCEPT_IF(r->nr_victims >= 1 && (u128)r->nr_victims + 2 <= nr &&
		  r->victims,
		  "blast: %u victims of %u CPUs", r->nr_victims, nr);
	ACCEPT_IF(r->interval_us >= 1 &&
		  r->interval_us <= IDLELAB_MAX_INTERVAL_US, "blast: interval");
	ACCEPT_IF(r->dirty_bytes <= IDLELAB_MAX_DIRTY_BYTES, "blast: dirty");
	ACCEPT_IF(r->width_us >= 1 && r->width_us <= IDLELAB_MAX_WIDTH_US &&
		  2 * (__u64)r->width_us <= r->window_us &&
		  r->window_us <= IDLELAB_MAX_WINDOW_US, "blast: width, window");
	ACCEPT_IF(r->threshold_ns >= IDLELAB_MIN_THRESHOLD_NS &&
		  r->threshold_ns <= 1000000000ULL, "blast: threshold");
	rep_us = (u128)r->interval_us + r->interval_us / 8 + 1 +
		 2 * (r->dirty_bytes / IDLELAB_DIRTY_BYTES_PER_US) +
		 IDLELAB_WBINVD_FIXED_US;
	worst_us = IDLELAB_BLAST_START_US + r->reps * rep_us + r->window_us;
	ACCEPT_IF(worst_us <= IDLELAB_MAX_RUN_US,
		  "blast: worst case past the run limit");
	ACCEPT_IF((u128)r->reps + r->nr_victims <= r->nr_samples,
		  "blast: no room for every event and gap");
}

/*
 * Run @check on the request in @buf and the properties around it; @pick
 * chooses the byte of @rsv (a reserved or padding field: the wake request
 * gave its last reserved word to the ACPI method) that must make an
 * accepted request refused.
 */
#define CHECK_ONE(type, check, accepted, buf, nr, pick, rsv) do {		\
		type *r_ = (type *)(buf);				\
		int rc_ = check(r_, nr);				\
									\
		if (rc_ && rc_ != -IL_REQ_EINVAL)			\
			fuzz_fail(#check " returned %d", rc_);		\
		if (rc_)						\
			break;						\
		accepted(r_, nr);					\
		if (check(r_, nr + 1) || (nr < 0xffffffffU &&		\
		    check(r_, 0xffffffffU)))				\
			fuzz_fail(#check ": refused with more CPUs");	\
		((unsigned char *)&r_->rsv)[(pick) % sizeof(r_->rsv)] = 1; \
		if (check(r_, nr) != -IL_REQ_EINVAL)			\
			fuzz_fail(#check ": a reserved byte accepted");	\
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* As large as the largest request, word-aligned as the module's. */
	static __u64 req[64];
	unsigned char *buf = (unsigned char *)req;
	unsigned int kind, keep;
	size_t len, want;
	__u32 nr;

	if (size < 3)
		return 0;
	kind = data[0] & 3;
	keep = data[0] & 4;
	nr = (__u32)(data[1] | data[2] << 8) + 1;
	want = kind == 0 ? sizeof(struct idlelab_cstate_req) :
	       kind == 1 ? sizeof(struct idlelab_gaps_req) :
	       sizeof(struct idlelab_wbinvd_req);
	memset(req, 0, sizeof(req));
	len = size - 3 < want ? size - 3 : want;
	memcpy(buf, data + 3, len);
	if (!keep) {
		/* abi_version and size are each request's first two words. */
		((__u32 *)buf)[0] = IDLELAB_ABI_VERSION;
		((__u32 *)buf)[1] = (__u32)want;
	}
	switch (kind) {
	case 0:
		CHECK_ONE(struct idlelab_cstate_req, il_cstate_req_check,
			  wake_accepted, buf, nr, data[0] >> 3, pad);
		break;
	case 1:
		CHECK_ONE(struct idlelab_gaps_req, il_gaps_req_check,
			  gaps_accepted, buf, nr, data[0] >> 3, reserved);
		break;
	default:
		CHECK_ONE(struct idlelab_wbinvd_req, il_wbinvd_req_check,
			  wbinvd_accepted, buf, nr, data[0] >> 3, reserved);
		break;
	}
	return 0;
}
