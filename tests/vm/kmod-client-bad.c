// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmod-client-bad.c - the guest client's generic bad-input suite
 * (kmod-client.c's "bad" mode): random and malformed requests to both
 * devices, unknown commands, offline CPUs, -EBUSY against a run in
 * progress, a fatal signal during a run, and a non-root open.  Each kind
 * is tallied (struct tally) and printed as one {"op":"bad",...} line; the
 * host (tests/vm/asserts.sh, vm_assert_bad_input) judges them.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kmod-client.h"

#define DEV(n) "/dev/" n


void tally(struct tally *t, int got, int want)
{
	t->total++;
	if (got == want)
		t->ok++;
	else
		t->last = got;
}

static void tally_print(struct tally *t)
{
	printf("{\"op\":\"bad\",\"name\":\"%s\",\"want\":\"%s\",\"total\":%u,"
	       "\"ok\":%u,\"last_wrong\":\"%s\"}\n", t->name, t->want,
	       t->total, t->ok, t->ok == t->total ? "" : ename(t->last));
}

static uint64_t rng = 0x1234567887654321ULL;

uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void rnd_fill(void *p, size_t n)
{
	unsigned char *c = p;

	while (n--)
		*c++ = (unsigned char)rnd();
}

static void bad_random(struct tally *t, unsigned int n)
{
	unsigned char buf[256];
	unsigned int i;

	/* Random bytes with a wrong version or size: always -EINVAL. */
	for (i = 0; i < n; i++) {
		static const unsigned long cmds[] = {
			IDLELAB_IOC_CSTATE_WAKE, IDLELAB_IOC_WBINVD,
			IDLELAB_IOC_GAPS, IDLELAB_IOC_IPI_STORM,
			IDLELAB_IOC_APIC_MAP, IDLELAB_IOC_GET_INFO,
		};
		unsigned long cmd = cmds[i % 6];
		uint32_t *hdr = (uint32_t *)buf;

		rnd_fill(buf, sizeof(buf));
		if (i & 1)
			hdr[0] = IDLELAB_ABI_VERSION;	/* size is random */
		else
			hdr[1] = _IOC_SIZE(cmd);	/* version random */
		if (hdr[0] == IDLELAB_ABI_VERSION && hdr[1] == _IOC_SIZE(cmd))
			hdr[0] = 0;
		tally(t, xioctl(cmd == IDLELAB_IOC_IPI_STORM ||
				cmd == IDLELAB_IOC_APIC_MAP ? fd_i : fd_c,
				cmd, buf), EINVAL);
	}
}

static void bad_others(struct tally *t, unsigned int n)
{
	uint32_t targets[4] = { 1, 2, 3, 3 };
	uint64_t fp[2] = { 1 << 20, IDLELAB_MAX_DIRTY_BYTES + 1 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct idlelab_gaps_req g = gaps_base();
		struct idlelab_wbinvd_req w = wbinvd_base();
		struct idlelab_ipi_req p = ipi_base(i % 4, targets, 3, 5);
		struct idlelab_gap_sample gs[4];

		g.samples = (uintptr_t)gs;
		switch (i % 8) {
		case 0: g.width_us = 0; break;
		case 1: g.window_us = g.width_us - 1; break;
		case 2: g.width_us = IDLELAB_MAX_WIDTH_US + 1;
			g.window_us = IDLELAB_MAX_WINDOW_US; break;
		case 3: g.nr_windows = 0; break;
		case 4: g.nr_windows = IDLELAB_MAX_WINDOWS + 1; break;
		case 5: g.cpu = 0xffffffff; break;
		case 6: g.reserved[3] = 1; break;
		default: g.threshold_ns = 2ULL * 1000000000ULL; break;
		}
		tally(t, xioctl(fd_c, IDLELAB_IOC_GAPS, &g), EINVAL);

		w.samples = (uintptr_t)gs;
		w.nr_samples = 4;
		w.footprints = (uintptr_t)fp;
		w.nr_footprints = 1;
		w.reps = 1;
		switch (i % 8) {
		case 0: w.mode = 2 + (uint32_t)(rnd() % 50); break;
		case 1: w.nr_footprints = 0; break;
		case 2: w.nr_footprints = IDLELAB_MAX_FOOTPRINTS + 1; break;
		case 3: w.reps = 0; break;
		case 4: w.nr_footprints = 2; w.reps = 1;
			break;	/* 2nd footprint too big: checked in run */
		case 5: w.mode = IDLELAB_WBINVD_BLAST; w.nr_footprints = 0;
			w.footprints = 0; w.nr_victims = 0; break;
		case 6: w.flags = 4; break;
		default: w.reps = 5; break;	/* 5 samples > capacity 4 */
		}
		tally(t, xioctl(fd_c, IDLELAB_IOC_WBINVD, &w), EINVAL);

		p.rounds = (uintptr_t)gs;
		p.arrivals = (uintptr_t)gs;
		switch (i % 8) {
		case 0: p.nr_targets = 4; break;	/* duplicate 3 */
		case 1: p.sender_cpu = 1; break;	/* sender is a target */
		case 2: p.nr_rounds = 0; break;
		case 3: p.nr_rounds = IDLELAB_MAX_ROUNDS + 1; break;
		case 4: p.timeout_us = 0; break;
		case 5: p.mode = 4 + (uint32_t)(rnd() % 10); break;
		case 6: p.nr_targets = 0; break;
		default: targets[0] = ncpu + 5; break;
		}
		tally(t, xioctl(fd_i, IDLELAB_IOC_IPI_STORM, &p), EINVAL);
		targets[0] = 1;
	}
}

static void bad_enotty(struct tally *t)
{
	static const unsigned long cmds[] = {
		_IOWR(IDLELAB_IOC_MAGIC, 0x40, struct idlelab_info),
		_IOWR(IDLELAB_IOC_MAGIC, 0x01, struct idlelab_info),
		_IOW(IDLELAB_IOC_MAGIC, 0x00, struct idlelab_info),
		_IOWR('x', 0x00, struct idlelab_info),
		_IO(IDLELAB_IOC_MAGIC, 0x02),
		0, 1, 0x5401 /* TCGETS */,
	};
	char buf[256] = { 0 };
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		tally(t, xioctl(fd_c, cmds[i], buf), ENOTTY);
		tally(t, xioctl(fd_i, cmds[i], buf), ENOTTY);
	}
	/* The IPI commands on the cstate device and the other way round. */
	tally(t, xioctl(fd_c, IDLELAB_IOC_IPI_STORM, buf), ENOTTY);
	tally(t, xioctl(fd_i, IDLELAB_IOC_GAPS, buf), ENOTTY);
}

static void bad_offline(void)
{
	struct tally t = { "offline_cpu", "EINVAL", 0, 0, 0 };
	struct idlelab_cstate_req r = cstate_base();
	struct idlelab_gaps_req g = gaps_base();
	struct idlelab_cstate_sample s[4];
	struct idlelab_gap_sample gs[4];
	uint32_t targets[1];
	uint32_t cpu = ncpu - 1;
	struct idlelab_ipi_req p = ipi_base(IDLELAB_IPI_PHYSICAL, targets, 1,
					    2);
	char path[96];
	int f;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%u/online", cpu);
	f = open(path, O_WRONLY);
	if (f < 0 || write(f, "0", 1) != 1) {
		printf("{\"op\":\"bad\",\"name\":\"offline_cpu\","
		       "\"skip\":\"cannot offline cpu%u: %s\"}\n", cpu,
		       strerror(errno));
		if (f >= 0)
			close(f);
		return;
	}
	r.cpu = cpu;
	r.nr_samples = 4;
	r.samples = (uintptr_t)s;
	tally(&t, xioctl(fd_c, IDLELAB_IOC_CSTATE_WAKE, &r), EINVAL);
	g.cpu = cpu;
	g.nr_samples = 4;
	g.samples = (uintptr_t)gs;
	tally(&t, xioctl(fd_c, IDLELAB_IOC_GAPS, &g), EINVAL);
	targets[0] = cpu;
	p.rounds = (uintptr_t)gs;
	p.arrivals = (uintptr_t)gs;
	tally(&t, xioctl(fd_i, IDLELAB_IOC_IPI_STORM, &p), EINVAL);
	r = cstate_base();
	r.nr_samples = 4;
	r.samples = (uintptr_t)s;
	r.wake_source = IDLELAB_WAKE_IPI;
	r.sender_cpu = cpu;
	tally(&t, xioctl(fd_c, IDLELAB_IOC_CSTATE_WAKE, &r), EINVAL);
	/*
	 * The offline CPU, with an MWAIT hint (C2) that no emulator here
	 * enumerates: still -EINVAL, never "unsupported", so the answer to a
	 * bad request does not depend on the machine.
	 */
	r = cstate_base();
	r.cpu = cpu;
	r.nr_samples = 4;
	r.samples = (uintptr_t)s;
	r.method = IDLELAB_METHOD_MWAIT;
	r.mwait_hint = 0x10;
	tally(&t, xioctl(fd_c, IDLELAB_IOC_CSTATE_WAKE, &r), EINVAL);
	if (lseek(f, 0, SEEK_SET) < 0 || write(f, "1", 1) != 1)
		printf("{\"op\":\"note\",\"msg\":\"cpu%u not back online\"}\n",
		       cpu);
	close(f);
	tally_print(&t);
}

/* A long gaps run in a thread; the main thread probes -EBUSY meanwhile. */
/*
 * xioctl_hold() - the holder's run: retried while the device is busy, so a
 * probe of wait_busy() that found the device free and ran for a moment
 * cannot make the holder itself fail with EBUSY.
 */
static int xioctl_hold(int fd, unsigned long cmd, void *arg)
{
	int e;

	while ((e = xioctl(fd, cmd, arg)) == EBUSY)
		usleep(1000);
	return e;
}

/*
 * wait_busy() - probe with @cmd until the device says EBUSY: the holder the
 * caller started is inside its run.  A fixed sleep was not enough on a
 * loaded host (once 10 of 15 probes found the device still free).  A probe
 * that finds it free just runs its small request.  Gives up after 30 s.
 */
static void wait_busy(int fd, unsigned long cmd, void *req)
{
	int i;

	for (i = 0; i < 3000 && xioctl(fd, cmd, req) != EBUSY; i++)
		usleep(10000);
}

static void *long_gaps(void *arg)
{
	struct idlelab_gaps_req r = gaps_base();
	struct idlelab_gap_sample *s = poisoned(r.nr_samples * sizeof(*s));

	r.nr_windows = 300;	/* about 1 s: longer than the probes need */
	r.width_us = 1000;
	r.window_us = 3000;
	r.samples = (uintptr_t)s;
	*(int *)arg = xioctl_hold(fd_c, IDLELAB_IOC_GAPS, &r);
	free(s);
	return NULL;
}

/* The longest storm there is; its process is SIGKILLed when done with. */
static void long_storm(void)
{
	uint32_t targets[1] = { 1 }, n = IDLELAB_MAX_ROUNDS;
	struct idlelab_ipi_req r = ipi_base(IDLELAB_IPI_KERNEL, targets, 1, n);
	void *rd = poisoned(n * sizeof(struct idlelab_ipi_round));
	void *ar = poisoned(n * sizeof(struct idlelab_ipi_arrival));

	r.rounds = (uintptr_t)rd;
	r.arrivals = (uintptr_t)ar;
	/* Every round timing out must fit in IDLELAB_MAX_RUN_US. */
	r.timeout_us = 1000;
	_exit(xioctl_hold(fd_i, IDLELAB_IOC_IPI_STORM, &r));
}

static void bad_busy(void)
{
	struct tally t = { "concurrent_run", "EBUSY", 0, 0, 0 };
	struct tally o = { "concurrent_open_info", "0", 0, 0, 0 };
	struct idlelab_cstate_req r = cstate_base();
	struct idlelab_apic_map_req m;
	struct idlelab_apic_cpu c[64];
	struct idlelab_cstate_sample s[4];
	struct idlelab_info in;
	pthread_t th;
	int rc = -1, fd2, i, st;
	pid_t pid;

	r.nr_samples = 4;
	r.samples = (uintptr_t)s;
	pthread_create(&th, NULL, long_gaps, &rc);
	wait_busy(fd_c, IDLELAB_IOC_CSTATE_WAKE, &r);
	fd2 = open(DEV(IDLELAB_DEV_CSTATE), O_RDWR);
	for (i = 0; i < 5; i++) {
		tally(&t, xioctl(fd_c, IDLELAB_IOC_CSTATE_WAKE, &r), EBUSY);
		tally(&t, xioctl(fd2, IDLELAB_IOC_CSTATE_WAKE, &r), EBUSY);
		memset(&in, 0, sizeof(in));
		in.abi_version = IDLELAB_ABI_VERSION;
		in.size = sizeof(in);
		tally(&o, xioctl(fd2, IDLELAB_IOC_GET_INFO, &in), 0);
	}
	close(fd2);
	pthread_join(th, NULL);
	printf("{\"op\":\"busy_holder\",\"dev\":\"cstate\",\"rc\":\"%s\"}\n",
	       ename(rc));

	memset(&m, 0, sizeof(m));
	m.abi_version = IDLELAB_ABI_VERSION;
	m.size = sizeof(m);
	m.nr_cpus = 64;
	m.cpus = (uintptr_t)c;
	pid = fork();
	if (pid == 0)
		long_storm();
	wait_busy(fd_i, IDLELAB_IOC_APIC_MAP, &m);
	for (i = 0; i < 5; i++)
		tally(&t, xioctl(fd_i, IDLELAB_IOC_APIC_MAP, &m), EBUSY);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	/* Killed in the middle of its run, as it should have been. */
	printf("{\"op\":\"busy_holder\",\"dev\":\"ipi\",\"rc\":\"%s\"}\n",
	       WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? "0" :
	       WIFEXITED(st) ? ename(WEXITSTATUS(st)) : "other");
	tally_print(&t);
	tally_print(&o);
}

/* SIGKILL during a long run: the child must die promptly, device free. */
static void fatal_signal(void)
{
	double t0, dt;
	pid_t pid;
	int st, e;
	struct idlelab_cstate_req r = cstate_base();
	struct idlelab_cstate_sample s[4];

	pid = fork();
	if (pid == 0) {
		struct idlelab_gaps_req g = gaps_base();
		struct idlelab_gap_sample *gs = poisoned(4096 * sizeof(*gs));

		g.nr_windows = 10000;	/* about 100 s if not aborted */
		g.width_us = 1000;
		g.window_us = 10000;
		g.samples = (uintptr_t)gs;
		_exit(xioctl(fd_c, IDLELAB_IOC_GAPS, &g));
	}
	usleep(300000);
	t0 = now_s();
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	dt = now_s() - t0;
	r.nr_samples = 4;
	r.samples = (uintptr_t)s;
	e = xioctl(fd_c, IDLELAB_IOC_CSTATE_WAKE, &r);
	printf("{\"op\":\"fatal_signal\",\"killed\":%d,\"exit_s\":%.3f,"
	       "\"next_run\":\"%s\"}\n", WIFSIGNALED(st) &&
	       WTERMSIG(st) == SIGKILL, dt, ename(e));
}

static void nonroot_open(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(100);
		fd = open(DEV(IDLELAB_DEV_CSTATE), O_RDWR);
		_exit(fd < 0 ? errno : 0);
	}
	waitpid(pid, &st, 0);
	printf("{\"op\":\"bad\",\"name\":\"nonroot_open\",\"want\":\"EACCES\","
	       "\"total\":1,\"ok\":%d,\"last_wrong\":\"%s\"}\n",
	       WIFEXITED(st) && WEXITSTATUS(st) == EACCES,
	       WIFEXITED(st) ? ename(WEXITSTATUS(st)) : "signal");
}

void bad_suite(void)
{
	struct tally t_c = { "cstate_invalid_field", "EINVAL", 0, 0, 0 };
	struct tally t_r = { "random_header", "EINVAL", 0, 0, 0 };
	struct tally t_o = { "gaps_wbinvd_ipi_invalid", "EINVAL", 0, 0, 0 };
	struct tally t_n = { "unknown_command", "ENOTTY", 0, 0, 0 };
	struct tally t_b = { "bounds_invalid", "EINVAL", 0, 0, 0 };
	struct tally t_l = { "limits_invalid", "EINVAL", 0, 0, 0 };

	bad_cstate(&t_c, 480);
	bad_random(&t_r, 480);
	bad_others(&t_o, 80);
	bad_enotty(&t_n);
	bad_bounds(&t_b, 60);
	bad_limits(&t_l);
	tally_print(&t_b);
	tally_print(&t_l);
	tally_print(&t_c);
	tally_print(&t_r);
	tally_print(&t_o);
	tally_print(&t_n);
	bad_offline();
	bad_busy();
	fatal_signal();
	nonroot_open();
	bad_hint();
	stale_ipi();
	worker_death();
	pair_death();
	run_limit();
	kernel_timeout();
}
