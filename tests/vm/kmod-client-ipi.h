/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kmod-client-ipi.h - the IPI module's hazard checks in the guest
 * (kmod-client-ipi.c), called by kmod-client.c's main().
 */
#ifndef KMOD_CLIENT_IPI_H
#define KMOD_CLIENT_IPI_H

/*
 * ipi_hazards() - on the open /dev/idlelab_ipi @fd with @ncpu CPUs: storms
 * during the NMIs the host injects (as many as idlelab.nmi_inject= on the
 * kernel command line promises), a sender that dies, and the storms over
 * the run limit.  One JSON line each on stdout.
 */
void ipi_hazards(int fd, unsigned int ncpu);

#endif
