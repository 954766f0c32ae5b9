// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmod-client-nmik.c - the guest's half of the nmi_kernel step (issue 21):
 * does the IPI module's NMI handler pass on, on every CPU, an NMI that no
 * target is owed?
 *
 * nmi_inject (kmod-client-ipi.c) can only count the injected NMIs on CPU
 * 0, the sender: a physical storm's targets are owed NMIs, and an injected
 * one there may be taken for ours.  A kernel-mode storm (IDLELAB_IPI_KERNEL)
 * reaches its targets through smp_call_function, so no CPU is owed any NMI
 * while it runs, and every NMI the host injects must reach the kernel on
 * every CPU as an unknown NMI.  A handler that claimed the NMIs on the
 * targets would leave their "unknown reason ... on CPU n" lines missing;
 * the host (test_qemu.sh) counts those lines between this step's two
 * dmesg markers against each CPU's /proc/interrupts NMI delta, which is
 * why the deltas are read outside the markers.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "uapi/idlelab.h"
#include "kmod-client-ipi.h"

#define NK_MAX_CPUS	16
/*
 * The host spaces its NMIs 5.5 s apart after a first wait of up to 5.5 s
 * (tests/vm/nmi-inject.sh); three land within about 17 s of READY, so 40 s
 * covers a slow host and keeps the step short.
 */
#define NK_WAIT_S	40

/* Every CPU's NMI count from /proc/interrupts into @v; -1 where unread. */
static void nk_counts(long long *v, unsigned int ncpu)
{
	unsigned int c;

	for (c = 0; c < ncpu; c++)
		v[c] = ni_nmi_count(c);
}

static void nk_report(unsigned int k, const struct ni_tally *t,
		      const long long *before, const long long *after,
		      unsigned int ncpu, double secs)
{
	unsigned int c;

	printf("{\"op\":\"nmi_kernel\",\"k\":%u,\"ncpu\":%u,\"storms\":%u,"
	       "\"rounds\":%u,\"exact_rounds\":%u,\"timeouts\":%u,"
	       "\"errors\":%u,\"late\":%llu,\"lost\":%llu,\"undrained\":%u,"
	       "\"foreign\":%llu,\"foreign_rounds\":%u", k, ncpu, t->storms,
	       t->rounds, t->exact, t->timeouts, t->errors, t->late, t->lost,
	       t->undrained, t->foreign, t->flagged);
	for (c = 0; c < ncpu; c++)
		printf(",\"nmi_cpu%u\":%lld", c,
		       before[c] >= 0 && after[c] >= 0 ? after[c] - before[c] :
		       -1);
	printf(",\"secs\":%.1f}\n", secs);
}

/*
 * Kernel-mode storms from CPU 0 to CPUs 1..ncpu-1, back to back, until CPU
 * 0 has taken @k NMIs or NK_WAIT_S passed.  The host stops at @k, so no
 * NMI is due after DONE; the short sleep lets the last one's handlers on
 * the other CPUs finish before the closing marker.
 */
void nmi_kernel(int fd, unsigned int ncpu)
{
	unsigned int k = ni_cmdline_uint("idlelab.nmi_kernel");
	long long before[NK_MAX_CPUS], after[NK_MAX_CPUS], n0;
	struct ni_tally t;
	struct ni_storm s;
	double t0;

	if (!k) {
		printf("{\"op\":\"nmi_kernel\",\"skip\":\"idlelab.nmi_kernel=0 on the kernel command line: the host injects no NMIs (run-qemu.sh needs socat for QMP)\"}\n");
		return;
	}
	if (ncpu > NK_MAX_CPUS)
		ncpu = NK_MAX_CPUS;
	memset(&t, 0, sizeof(t));
	/* As nmi_inject's storms: (4 x 500 + 1) x 250 ms is in the limit. */
	ni_storm_init(&s, ncpu, 500, 250000);
	s.r.mode = IDLELAB_IPI_KERNEL;
	nk_counts(before, ncpu);
	ni_kmsg("IDLELAB-NMIK-BEGIN");
	ni_storm_tally(fd, &s, &t);	/* under way before the marker */
	ni_console("IDLELAB-NMIK-READY", k);
	t0 = ni_now();
	do {
		ni_storm_tally(fd, &s, &t);
		n0 = ni_nmi_count(0);
	} while (before[0] >= 0 && n0 >= 0 && n0 - before[0] < k &&
		 ni_now() - t0 < NK_WAIT_S);
	ni_console("IDLELAB-NMIK-DONE", t.storms);
	usleep(300000);
	ni_kmsg("IDLELAB-NMIK-END");
	nk_counts(after, ncpu);
	nk_report(k, &t, before, after, ncpu, ni_now() - t0);
	ni_storm_free(&s);
}
