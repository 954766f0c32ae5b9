/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kmod-client-ipi.h - the IPI module's hazard checks in the guest
 * (kmod-client-ipi.c), called by kmod-client.c's main(), and the storm
 * helpers they share with the kernel-mode NMI check
 * (kmod-client-nmik.c).
 */
#ifndef KMOD_CLIENT_IPI_H
#define KMOD_CLIENT_IPI_H

#include <stdint.h>

#include "uapi/idlelab.h"

#define NI_MAX_TARGETS	64

/* One storm's request and the buffers the module fills. */
struct ni_storm {
	struct idlelab_ipi_req r;
	struct idlelab_ipi_round *rd;
	struct idlelab_ipi_arrival *ar;
	uint32_t targets[NI_MAX_TARGETS];
};

/* What a series of storms gave, summed by ni_storm_tally(). */
struct ni_tally {
	unsigned int storms, rounds, exact, timeouts, flagged, errors;
	unsigned long long late, lost, foreign;
	unsigned int run_flags, undrained;
};

/*
 * ipi_hazards() - on the open /dev/idlelab_ipi @fd with @ncpu CPUs: storms
 * during the NMIs the host injects (as many as idlelab.nmi_inject= on the
 * kernel command line promises), a sender that dies, and the storms over
 * the run limit.  One JSON line each on stdout.
 */
void ipi_hazards(int fd, unsigned int ncpu);

/*
 * nmi_kernel() - kernel-mode storms, which owe no NMI, while the host
 * injects the NMIs idlelab.nmi_kernel= on the kernel command line names:
 * every CPU must pass each one on to the kernel (kmod-client-nmik.c).
 */
void nmi_kernel(int fd, unsigned int ncpu);

double ni_now(void);
long long ni_nmi_count(unsigned int cpu);
void ni_storm_init(struct ni_storm *s, unsigned int ncpu, uint32_t rounds,
		   uint32_t timeout_us);
void ni_storm_free(struct ni_storm *s);
void ni_storm_tally(int fd, struct ni_storm *s, struct ni_tally *t);
unsigned int ni_cmdline_uint(const char *key);
/* A line on /dev/console (the host's serial log), and one into dmesg. */
void ni_console(const char *msg, unsigned int n);
void ni_kmsg(const char *msg);

#endif
