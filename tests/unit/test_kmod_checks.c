// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_kmod_checks.c - the modules' request checks (the plain-C
 * idlelab_*_check.h headers of kmod/include) at the edges of the limits
 * they enforce.
 *
 * The fuzz targets prove that what the checks accept satisfies the UAPI's
 * limits; these cases pin the limits themselves at their boundaries, so
 * that a formula that forgets a term (the storm's ICR-idle waits were left
 * out of its worst case once) fails here with the request that shows it.
 */
#include "tap.h"
#include "idlelab_cstate_check.h"
#include "idlelab_storm_check.h"

#include <string.h>

static __u32 tgt[4];
static struct idlelab_ipi_round rounds[1];
static struct idlelab_ipi_arrival arr[1];

/* A valid one-target storm on a 4-CPU machine, with @rounds x @timeout. */
static struct idlelab_ipi_req storm(__u32 nr_rounds, __u32 timeout_us)
{
	struct idlelab_ipi_req r;

	memset(&r, 0, sizeof(r));
	r.abi_version = IDLELAB_ABI_VERSION;
	r.size = sizeof(r);
	r.mode = IDLELAB_IPI_PHYSICAL;
	r.sender_cpu = 1;
	r.nr_targets = 1;
	r.nr_rounds = nr_rounds;
	r.targets = (__u64)(unsigned long)tgt;
	r.rounds = (__u64)(unsigned long)rounds;
	r.arrivals = (__u64)(unsigned long)arr;
	r.timeout_us = timeout_us;
	return r;
}

/*
 * Four waits of timeout_us a round (send, acknowledgments, close, drain)
 * and a final drain: 149 rounds of 1 s fit in 600 s, 150 do not.  With
 * three waits a round, as before the send was bounded, 150 passed.
 */
TEST(storm_worst_case_counts_the_send)
{
	struct idlelab_ipi_req ok = storm(149, 1000000);
	struct idlelab_ipi_req over = storm(150, 1000000);

	CHECK(IDLELAB_STORM_WORST_US(149, 1000000) == 597000000ULL);
	CHECK(IDLELAB_STORM_WORST_US(150, 1000000) == 601000000ULL);
	CHECK(il_storm_req_check(&ok, 4) == 0);
	CHECK(il_storm_req_check(&over, 4) == -IL_REQ_EINVAL);
}

/* The product is taken in 64 bits: the largest request cannot wrap it. */
TEST(storm_worst_case_does_not_wrap)
{
	struct idlelab_ipi_req big = storm(IDLELAB_MAX_ROUNDS,
					   IDLELAB_MAX_ROUND_TIMEOUT_US);

	CHECK(IDLELAB_STORM_WORST_US(IDLELAB_MAX_ROUNDS,
				     IDLELAB_MAX_ROUND_TIMEOUT_US) ==
	      400001000000ULL);
	CHECK(il_storm_req_check(&big, 4) == -IL_REQ_EINVAL);
}

/* Only the known flag (CPU 0 asked for) and a zero pad are accepted. */
TEST(storm_flags)
{
	struct idlelab_ipi_req r = storm(10, 1000);

	CHECK(il_storm_req_check(&r, 4) == 0);
	r.flags = IDLELAB_IPI_F_CPU0;
	CHECK(il_storm_req_check(&r, 4) == 0);
	r.flags = IDLELAB_IPI_F_CPU0 << 1;
	CHECK(il_storm_req_check(&r, 4) == -IL_REQ_EINVAL);
	r.flags = 0;
	r.pad2 = 1;
	CHECK(il_storm_req_check(&r, 4) == -IL_REQ_EINVAL);
}

static __u32 victims[4];
static struct idlelab_gap_sample gaps[16];

/* A valid blast from CPU 0 with @n victims. */
static struct idlelab_wbinvd_req blast(__u32 n)
{
	struct idlelab_wbinvd_req r;

	memset(&r, 0, sizeof(r));
	r.abi_version = IDLELAB_ABI_VERSION;
	r.size = sizeof(r);
	r.mode = IDLELAB_WBINVD_BLAST;
	r.reps = 2;
	r.interval_us = 100;
	r.nr_victims = n;
	r.victims = (__u64)(unsigned long)victims;
	r.width_us = 1000;
	r.window_us = 2000;
	r.threshold_ns = 2000;
	r.nr_samples = 16;
	r.samples = (__u64)(unsigned long)gaps;
	return r;
}

/*
 * One CPU besides the aggressor stays out of a blast: on 4 CPUs two
 * victims, not three (which the check let through before the cap).
 */
TEST(blast_leaves_a_cpu_out)
{
	struct idlelab_wbinvd_req two = blast(2), three = blast(3);

	CHECK(il_wbinvd_req_check(&two, 4) == 0);
	CHECK(il_wbinvd_req_check(&three, 4) == -IL_REQ_EINVAL);
	CHECK(il_wbinvd_req_check(&three, 5) == 0);
	CHECK(il_wbinvd_req_check(&two, 2) == -IL_REQ_EINVAL);
}

static struct idlelab_cstate_sample wake_s[1];

/* A valid one-sample timer wake of CPU 1 by @method. */
static struct idlelab_cstate_req wake(__u32 method)
{
	struct idlelab_cstate_req r;

	memset(&r, 0, sizeof(r));
	r.abi_version = IDLELAB_ABI_VERSION;
	r.size = sizeof(r);
	r.cpu = 1;
	r.method = method;
	r.launch_min_ns = 100000;
	r.launch_max_ns = 100000;
	r.nr_samples = 1;
	r.samples = (__u64)(unsigned long)wake_s;
	return r;
}

/*
 * The ACPI word: an index 1..7 with a known bus-master choice, only with
 * METHOD_ACPI; out of range, unknown bits, F_WBINVD (whose timing the
 * ACPI flush uses) or an out field set on input are refused.
 */
TEST(cstate_acpi_word)
{
	struct idlelab_cstate_req r = wake(IDLELAB_METHOD_ACPI);

	CHECK(il_cstate_req_check(&r, 4) == -IL_REQ_EINVAL);	/* index 0 */
	r.acpi_req = IDLELAB_ACPI_REQ(2, IDLELAB_ACPI_BM_KERNEL);
	CHECK(il_cstate_req_check(&r, 4) == 0);
	r.acpi_req = IDLELAB_ACPI_REQ(7, IDLELAB_ACPI_BM_FLUSH);
	CHECK(il_cstate_req_check(&r, 4) == 0);
	r.acpi_req = IDLELAB_ACPI_REQ(8, IDLELAB_ACPI_BM_NONE);
	CHECK(il_cstate_req_check(&r, 4) == -IL_REQ_EINVAL);
	r.acpi_req = IDLELAB_ACPI_REQ(3, 3);
	CHECK(il_cstate_req_check(&r, 4) == -IL_REQ_EINVAL);
	r.acpi_req = IDLELAB_ACPI_REQ(3, 0) | 1U << 10;
	CHECK(il_cstate_req_check(&r, 4) == -IL_REQ_EINVAL);
	r.acpi_req = IDLELAB_ACPI_REQ(3, IDLELAB_ACPI_BM_FLUSH);
	r.flags = IDLELAB_CSTATE_F_WBINVD;
	CHECK(il_cstate_req_check(&r, 4) == -IL_REQ_EINVAL);
	r.flags = IDLELAB_CSTATE_F_REENTER;
	CHECK(il_cstate_req_check(&r, 4) == 0);
	r.acpi_out = 0x614;
	CHECK(il_cstate_req_check(&r, 4) == -IL_REQ_EINVAL);
	/* IRQ late is MWAIT's alone. */
	r.acpi_out = 0;
	r.irq_mode = IDLELAB_IRQ_LATE;
	CHECK(il_cstate_req_check(&r, 4) == -IL_REQ_EINVAL);
	r = wake(IDLELAB_METHOD_HLT);
	CHECK(il_cstate_req_check(&r, 4) == 0);
	r.acpi_req = IDLELAB_ACPI_REQ(2, 0);
	CHECK(il_cstate_req_check(&r, 4) == -IL_REQ_EINVAL);
	r = wake(IDLELAB_METHOD_ACPI + 1);
	CHECK(il_cstate_req_check(&r, 4) == -IL_REQ_EINVAL);
}

int main(void)
{
	RUN(storm_worst_case_counts_the_send);
	RUN(storm_worst_case_does_not_wrap);
	RUN(storm_flags);
	RUN(blast_leaves_a_cpu_out);
	RUN(cstate_acpi_word);
	return tap_done();
}
