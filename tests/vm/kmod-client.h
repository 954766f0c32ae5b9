/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kmod-client.h - what the files of the guest client share
 * (kmod-client.c: the devices, the IPI module and main();
 * kmod-client-bad.c: the generic bad inputs; kmod-client-cstate.c: the
 * cstate module's requests and checks; kmod-client-noop.c: the WBINVD
 * no-op threshold):
 * the open devices, the ioctl and buffer helpers and the bad-input tally.
 */
#ifndef KMOD_CLIENT_H
#define KMOD_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "uapi/idlelab.h"

#define POISON 0xa5

extern int fd_c, fd_i;		/* /dev/idlelab_cstate, /dev/idlelab_ipi */
extern unsigned int ncpu;	/* CPUs the requests may name */

/* ename() - an errno's name, "0" for none. */
const char *ename(int e);
/* xioctl() - ioctl returning 0 or the errno. */
int xioctl(int fd, unsigned long cmd, void *arg);
/* param_read() - a sysctl or module parameter as a number; -1 if unreadable. */
long param_read(const char *path);
/* param_write() - write @v to the module parameter @path: 0 or errno. */
int param_write(const char *path, const char *v);
/* poisoned() - @n bytes of POISON, or exit. */
void *poisoned(size_t n);
double now_s(void);
/* rnd() - the bad-input suite's reproducible random numbers. */
uint64_t rnd(void);

/* How many of a kind of bad request got the answer they should. */
struct tally {
	const char *name;
	const char *want;
	unsigned int total, ok;
	int last;
};

void tally(struct tally *t, int got, int want);

/* kmod-client.c: the IPI request every storm starts from. */
struct idlelab_ipi_req ipi_base(uint32_t mode, uint32_t *targets,
				uint32_t n, uint32_t rounds);

/*
 * kmod-client-bad.c: bad_suite() - the whole bad-input suite, one
 * {"op":"bad",...} line per kind of request (kmod-client "bad").
 */
void bad_suite(void);

/* kmod-client-cstate.c */
struct idlelab_cstate_req cstate_base(void);
void cstate(const char *name, struct idlelab_cstate_req r);
struct idlelab_gaps_req gaps_base(void);
void gaps(void);
struct idlelab_wbinvd_req wbinvd_base(void);
void wbinvd_sweep(const char *name, uint32_t flags);
void wbinvd_blast(void);
/* A small valid blast: cpu 0 against @n @victims, IRQs off half the time. */
struct idlelab_wbinvd_req blast_base(uint32_t *victims, uint32_t n,
				     uint32_t width_us);
void bad_cstate(struct tally *t, unsigned int n);
void bad_bounds(struct tally *t, unsigned int n);
void stale_ipi(void);
void worker_death(void);
void tsc_unstable(void);
void bad_hint(void);

/* kmod-client-noop.c: the WBINVD no-op threshold from both sides. */
void wbinvd_noop(void);
/* kmod-client-limits.c: issue 21's bounds. */
void bad_limits(struct tally *t);
void run_limit(void);
void pair_death(void);
void kernel_timeout(void);
/* kmod-client-hotplug.c: a CPU of a run taken offline mid-run. */
void hotplug(void);

#endif /* KMOD_CLIENT_H */
