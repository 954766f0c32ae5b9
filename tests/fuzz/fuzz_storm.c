// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_storm.c - idlelab_ipi.ko's storm request check
 * (kmod/include/idlelab_storm_check.h).
 *
 * Input: byte 0 says whether abi_version and size are kept as given (bit
 * 0; otherwise they are set right, so that the fuzzer spends its time
 * past them) and which reserved byte to set later (bits 1-7); bytes 1-2
 * are the number of possible CPUs less one; the rest is the request,
 * zero-filled when short.
 *
 * What the check accepts must satisfy the UAPI's limits as stated in
 * uapi/idlelab.h, with the arrival records and the run's worst case
 * recomputed in 128-bit arithmetic, so that a product that wrapped in the
 * check's 64 bits shows up as an accepted request past
 * IDLELAB_MAX_SAMPLES or IDLELAB_MAX_RUN_US.  An accepted request must
 * stay accepted with more CPUs and be refused once a reserved byte is
 * set; every refusal is -EINVAL and nothing else.
 */
#include "fuzz.h"
#include "idlelab_storm_check.h"

#include <string.h>

typedef unsigned __int128 u128;

#define ACCEPT_IF(cond, ...) do {					\
		if (!(cond))						\
			fuzz_fail(__VA_ARGS__);				\
	} while (0)

static void storm_accepted(const struct idlelab_ipi_req *r, __u32 nr)
{
	ACCEPT_IF(r->mode <= IDLELAB_IPI_KERNEL, "mode %u", r->mode);
	ACCEPT_IF(r->sender_cpu < nr, "sender %u of %u", r->sender_cpu, nr);
	/* The sender is not a target: at most nr - 1 of them. */
	ACCEPT_IF(r->nr_targets >= 1 && r->nr_targets <= nr - 1 &&
		  r->nr_targets <= IDLELAB_MAX_CPUS,
		  "%u targets of %u CPUs", r->nr_targets, nr);
	ACCEPT_IF(r->nr_rounds >= 1 && r->nr_rounds <= IDLELAB_MAX_ROUNDS,
		  "%u rounds", r->nr_rounds);
	ACCEPT_IF((u128)r->nr_rounds * r->nr_targets <= IDLELAB_MAX_SAMPLES,
		  "%u rounds of %u arrivals", r->nr_rounds, r->nr_targets);
	ACCEPT_IF(r->timeout_us >= 1 &&
		  r->timeout_us <= IDLELAB_MAX_ROUND_TIMEOUT_US,
		  "timeout %u us", r->timeout_us);
	ACCEPT_IF(r->targets && r->rounds && r->arrivals, "a buffer missing");
	ACCEPT_IF(!(r->flags & ~IDLELAB_IPI_F_ALL) && !r->pad2,
		  "flags %#x pad2 %#x", r->flags, r->pad2);
	ACCEPT_IF(((u128)3 * r->nr_rounds + 1) * r->timeout_us <=
		  IDLELAB_MAX_RUN_US, "worst case past the run limit");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct idlelab_ipi_req req;
	unsigned char *reserved = (unsigned char *)req.reserved;
	size_t len;
	__u32 nr;
	int rc;

	if (size < 3)
		return 0;
	nr = (__u32)(data[1] | data[2] << 8) + 1;
	memset(&req, 0, sizeof(req));
	len = size - 3 < sizeof(req) ? size - 3 : sizeof(req);
	memcpy(&req, data + 3, len);
	if (!(data[0] & 1)) {
		req.abi_version = IDLELAB_ABI_VERSION;
		req.size = sizeof(req);
	}
	rc = il_storm_req_check(&req, nr);
	if (rc && rc != -IL_REQ_EINVAL)
		fuzz_fail("il_storm_req_check returned %d", rc);
	if (rc)
		return 0;
	storm_accepted(&req, nr);
	if (il_storm_req_check(&req, nr + 1) ||
	    il_storm_req_check(&req, 0xffffffffU))
		fuzz_fail("refused with more CPUs");
	reserved[(data[0] >> 1) % sizeof(req.reserved)] = 1;
	if (il_storm_req_check(&req, nr) != -IL_REQ_EINVAL)
		fuzz_fail("a reserved byte accepted");
	return 0;
}
