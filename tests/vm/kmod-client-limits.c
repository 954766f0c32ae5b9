// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmod-client-limits.c - issue 21's bounds, in the guest client
 * (kmod-client.c), each printed as one JSON line for tests/vm/test_qemu.sh:
 *  - requests the cstate module must refuse whatever else they say: an
 *    IRQs-off detector with IRQs off more than half of each window, a blast
 *    with interval_us 0, a blast or sweep whose dirtying and write-back
 *    alone are over IDLELAB_MAX_RUN_US (a tally of the bad-input suite);
 *  - runs stopped at the module's wall-clock limit although their
 *    parameters are within it (the module's run_limit_us, lowered here):
 *    the limit is checked inside every worker loop, not only by the
 *    formula of the request's check;
 *  - a two-worker run (an IPI wake) whose sender dies: the workers are
 *    joined all at once, so the ioctl fails with EIO at once instead of
 *    after the measured worker has waited out every sample;
 *  - a kernel-mode storm whose target has IRQs off for 100 ms at a time:
 *    each round waits no longer than its timeout_us for the acks.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kmod-client.h"

#define KL_LIMIT "/sys/module/idlelab_cstate/parameters/run_limit_us"
#define KL_INJECT "/sys/module/idlelab_cstate/parameters/inject"

/* The housekeeping rules of issue 21: a CPU left out, CPU 0 spared. */
static void bad_housekeeping(struct tally *t, struct idlelab_gap_sample *gs)
{
	uint32_t cpus[64], n = 0, i;
	struct idlelab_wbinvd_req w;
	struct idlelab_ipi_req p;

	for (i = 1; i < ncpu && n < 64; i++)
		cpus[n++] = i;
	w = blast_base(cpus, n, 100);
	w.nr_samples = 64;
	w.samples = (uintptr_t)gs;
	tally(t, xioctl(fd_c, IDLELAB_IOC_WBINVD, &w), EINVAL);
	cpus[0] = 0;
	p = ipi_base(IDLELAB_IPI_PHYSICAL, cpus, 1, 2);
	p.sender_cpu = 1;
	p.rounds = (uintptr_t)gs;
	p.arrivals = (uintptr_t)gs;
	tally(t, xioctl(fd_i, IDLELAB_IOC_IPI_STORM, &p), EINVAL);
}

/*
 * bad_limits() - each request would run without issue 21's checks (the
 * first four for milliseconds, the next two for hours, the last two for
 * milliseconds: a blast with every CPU but the aggressor a victim, a storm
 * targeting CPU 0 without IDLELAB_IPI_F_CPU0); each must be EINVAL.
 */
void bad_limits(struct tally *t)
{
	struct idlelab_gap_sample *gs = poisoned(64 * sizeof(*gs));
	uint64_t big[1] = { 256ULL << 20 };
	uint32_t victims[1] = { 1 };
	struct idlelab_gaps_req g;
	struct idlelab_wbinvd_req w, b;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		g = gaps_base();
		g.samples = (uintptr_t)gs;
		g.nr_samples = 64;
		/* IRQs off all of each window, or just over half of it. */
		g.window_us = i ? 2 * g.width_us - 1 : g.width_us;
		tally(t, xioctl(fd_c, IDLELAB_IOC_GAPS, &g), EINVAL);
	}
	b = blast_base(victims, 1, 100);
	b.nr_samples = 64;
	b.samples = (uintptr_t)gs;
	w = b;
	w.interval_us = 0;
	tally(t, xioctl(fd_c, IDLELAB_IOC_WBINVD, &w), EINVAL);
	w = b;
	w.window_us = 2 * w.width_us - 1;
	tally(t, xioctl(fd_c, IDLELAB_IOC_WBINVD, &w), EINVAL);
	/* 45 s of intervals, but 20000 x 256 MiB dirtied and written back. */
	w = b;
	w.reps = 20000;
	w.interval_us = 2000;
	w.dirty_bytes = big[0];
	w.nr_samples = w.reps + 1;
	tally(t, xioctl(fd_c, IDLELAB_IOC_WBINVD, &w), EINVAL);
	/* A sweep had no bound at all: 2000 x 256 MiB. */
	w = wbinvd_base();
	w.footprints = (uintptr_t)big;
	w.nr_footprints = 1;
	w.reps = 2000;
	w.nr_samples = 2000;
	w.samples = (uintptr_t)gs;
	tally(t, xioctl(fd_c, IDLELAB_IOC_WBINVD, &w), EINVAL);
	bad_housekeeping(t, gs);
	free(gs);
}


/*
 * run_limit() - the module's run limit lowered to 0.3 s (it refuses to be
 * raised past IDLELAB_MAX_RUN_US): a gap detector, a sweep, a blast and a
 * wake run of about 1 s or more each, all within the formula, must each
 * end with ETIME; with the limit back at 0 the same gap run succeeds.
 */
void run_limit(void)
{
	struct idlelab_gap_sample *gs = poisoned(8192 * sizeof(*gs));
	struct idlelab_wbinvd_sample *ws = poisoned(2000 * sizeof(*ws));
	struct idlelab_cstate_sample *cs = poisoned(100 * sizeof(*cs));
	uint64_t fp[1] = { 16 << 20 };
	uint32_t victims[1] = { 1 };
	struct idlelab_gaps_req g = gaps_base();
	struct idlelab_wbinvd_req w = wbinvd_base();
	struct idlelab_wbinvd_req b = blast_base(victims, 1, 1000);
	struct idlelab_cstate_req c = cstate_base();
	int over, eg, ew, eb, ec, after;
	double t0;

	over = param_write(KL_LIMIT, "600000001");
	if (param_write(KL_LIMIT, "300000")) {
		printf("{\"op\":\"run_limit\",\"skip\":\"cannot write %s\"}\n",
		       KL_LIMIT);
		goto out;
	}
	t0 = now_s();
	g.width_us = 10000;
	g.window_us = 20000;
	g.nr_windows = 50;
	g.nr_samples = 8192;
	g.samples = (uintptr_t)gs;
	eg = xioctl(fd_c, IDLELAB_IOC_GAPS, &g);
	w.footprints = (uintptr_t)fp;
	w.nr_footprints = 1;
	w.reps = 2000;
	w.nr_samples = 2000;
	w.samples = (uintptr_t)ws;
	ew = xioctl(fd_c, IDLELAB_IOC_WBINVD, &w);
	b.reps = 100;
	b.interval_us = 10000;
	b.nr_samples = 8192;
	b.samples = (uintptr_t)gs;
	eb = xioctl(fd_c, IDLELAB_IOC_WBINVD, &b);
	c.launch_min_ns = 10000000;
	c.launch_max_ns = 10000000;
	c.nr_samples = 100;
	c.samples = (uintptr_t)cs;
	ec = xioctl(fd_c, IDLELAB_IOC_CSTATE_WAKE, &c);
	param_write(KL_LIMIT, "0");
	g = gaps_base();
	g.samples = (uintptr_t)gs;
	after = xioctl(fd_c, IDLELAB_IOC_GAPS, &g);
	printf("{\"op\":\"run_limit\",\"over_cap\":\"%s\",\"gaps\":\"%s\","
	       "\"sweep\":\"%s\",\"blast\":\"%s\",\"wake\":\"%s\","
	       "\"after\":\"%s\",\"secs\":%.3f}\n", ename(over), ename(eg),
	       ename(ew), ename(eb), ename(ec), ename(after), now_s() - t0);
out:
	free(gs);
	free(ws);
	free(cs);
}

/*
 * pair_death() - an IPI wake of 500 samples (each may wait 1 s for its
 * IPI) whose sender exits at once without completing.  The run is in a
 * child, given 20 s before SIGKILL: a join that waited for the measured
 * worker first would still be running its samples then (killed, rc
 * "signal" or EINTR), a parallel join fails the run with EIO at once.
 */
void pair_death(void)
{
	struct idlelab_cstate_req r = cstate_base();
	int st = 0, e, killed = 0, hung = 1, i;
	double t0;
	pid_t pid;

	e = param_write(KL_INJECT, "4");
	if (e) {
		printf("{\"op\":\"pair_death\",\"skip\":\"inject: %s\"}\n",
		       ename(e));
		return;
	}
	t0 = now_s();
	pid = fork();
	if (pid == 0) {
		struct idlelab_cstate_sample *s;

		r.wake_source = IDLELAB_WAKE_IPI;
		r.sender_cpu = 2;
		r.nr_samples = 500;
		s = poisoned(r.nr_samples * sizeof(*s));
		r.samples = (uintptr_t)s;
		_exit(xioctl(fd_c, IDLELAB_IOC_CSTATE_WAKE, &r));
	}
	for (i = 0; i < 3000; i++) {
		if (i == 2000) {
			kill(pid, SIGKILL);
			killed = 1;
		}
		if (waitpid(pid, &st, WNOHANG) == pid) {
			hung = 0;
			break;
		}
		usleep(10000);
	}
	/* The bit stays set if the sender never started: clear it. */
	param_write(KL_INJECT, "0");
	r.nr_samples = 4;
	r.samples = (uintptr_t)poisoned(4 * sizeof(struct idlelab_cstate_sample));
	e = hung ? EBUSY : xioctl(fd_c, IDLELAB_IOC_CSTATE_WAKE, &r);
	free((void *)(uintptr_t)r.samples);
	printf("{\"op\":\"pair_death\",\"hung\":%d,\"killed\":%d,\"rc\":\"%s\","
	       "\"secs\":%.3f,\"next_run\":\"%s\"}\n", hung, killed,
	       hung ? "" : WIFEXITED(st) ? ename(WEXITSTATUS(st)) : "signal",
	       now_s() - t0, ename(e));
}

/*
 * kernel_timeout() - a kernel-mode storm (CPU 1 to CPUs 2 and 3, rounds
 * timing out after 1 ms) while a gap detector holds CPU 3's IRQs off
 * 100 ms out of every 200.  smp_call_function_many() with wait used to
 * wait out each IRQs-off window, whatever timeout_us said; now a round
 * with an ack missing at its timeout is flagged and closed, the csd stays
 * owed and the run stops at the next drain (undrained).  A second storm
 * once the gaps run is over shows the device usable and every round exact.
 */
void kernel_timeout(void)
{
	uint32_t targets[2] = { 2, 3 }, rounds = 5000, timeouts = 0, i;
	struct idlelab_ipi_req r = ipi_base(IDLELAB_IPI_KERNEL, targets, 2,
					    rounds);
	struct idlelab_ipi_round *rd = poisoned(rounds * sizeof(*rd));
	void *ar = poisoned(rounds * 2 * sizeof(struct idlelab_ipi_arrival));
	double span, max_ms = 0;
	int e, e2, st;
	pid_t pid = fork();

	if (pid == 0) {
		struct idlelab_gaps_req g = gaps_base();

		g.cpu = 3;
		g.width_us = 100000;
		g.window_us = 200000;
		g.nr_windows = 25;
		g.samples = (uintptr_t)poisoned(g.nr_samples *
					sizeof(struct idlelab_gap_sample));
		_exit(xioctl(fd_c, IDLELAB_IOC_GAPS, &g));
	}
	usleep(500000);
	r.sender_cpu = 1;
	r.timeout_us = 1000;
	r.rounds = (uintptr_t)rd;
	r.arrivals = (uintptr_t)ar;
	e = xioctl(fd_i, IDLELAB_IOC_IPI_STORM, &r);
	for (i = 0; !e && i < r.nr_done; i++) {
		timeouts += !!(rd[i].flags & IDLELAB_ROUND_TIMEOUT);
		span = (double)(rd[i].t_complete - rd[i].t_issue) /
		       (r.tsc_khz ? r.tsc_khz : 1);
		if (span > max_ms)
			max_ms = span;
	}
	printf("{\"op\":\"kernel_timeout\",\"rc\":\"%s\",\"nr_done\":%u,"
	       "\"timeouts\":%u,\"max_round_ms\":%.3f,\"undrained\":%d,",
	       ename(e), e ? 0 : r.nr_done, timeouts, max_ms,
	       !e && (r.run_flags & IDLELAB_RUN_UNDRAINED));
	waitpid(pid, &st, 0);
	/* Every csd idle again: a storm with the rig's long rounds. */
	r = ipi_base(IDLELAB_IPI_KERNEL, targets, 2, 20);
	r.sender_cpu = 1;
	r.rounds = (uintptr_t)rd;
	r.arrivals = (uintptr_t)ar;
	e2 = xioctl(fd_i, IDLELAB_IOC_IPI_STORM, &r);
	for (i = 0, timeouts = 0; !e2 && i < r.nr_done; i++)
		timeouts += rd[i].acks != 2 || rd[i].flags;
	printf("\"next\":\"%s\",\"next_done\":%u,\"next_bad\":%u}\n",
	       ename(e2), e2 ? 0 : r.nr_done, timeouts);
	free(rd);
	free(ar);
}
