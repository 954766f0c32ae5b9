// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmod-client-ipi.c - the guest's checks of the IPI module's hazards
 * (issue 9), one JSON line each for tests/vm/test_qemu.sh:
 *
 *  nmi_inject    storms while the host injects NMIs through QMP
 *                (tests/vm/nmi-inject.sh): the module must claim only its
 *                own NMIs, so the kernel still reports the injected ones as
 *                unknown (the host counts them in dmesg), and the storms'
 *                counts must stay exact;
 *  ipi_sender_death  the sender thread exits without finishing (the module's
 *                test_sender_exit parameter): the ioctl must return EIO at
 *                once, joined on the thread's exit, not hang; the device
 *                must work afterwards and the module still unload (the
 *                rig's rmmod step);
 *  late_acks     a target whose handler claims every NMI after its round
 *                timed out (the module's test_late_us, which refuses
 *                more than 200 ms): each late acknowledgment must count
 *                in no round;
 *  stragglers    runs that end owing NMIs (1 us rounds): the NMIs that
 *                arrive after the run must be claimed, none reported to
 *                the kernel's log as unknown;
 *  preempt_guard a task spinning on the sender's CPU through rounds of
 *                about 3 ms: no round may be preempted;
 *  bad           storms whose worst case, every round timing out, is over
 *                IDLELAB_MAX_RUN_US: EINVAL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uapi/idlelab.h"
#include "kmod-client.h"
#include "kmod-client-ipi.h"

static const char *ni_ename(int e)
{
	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EIO: return "EIO";
	case EBUSY: return "EBUSY";
	case EINTR: return "EINTR";
	case ENOENT: return "ENOENT";
	}
	return "other";
}

double ni_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The NMIs CPU @cpu has taken, from /proc/interrupts; -1 if unreadable. */
long long ni_nmi_count(unsigned int cpu)
{
	char line[4096], *p, *end;
	long long v = -1;
	unsigned int i;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "NMI:", 4))
			continue;
		p += 4;
		for (i = 0; i <= cpu; i++) {
			v = strtoll(p, &end, 10);
			if (end == p) {
				v = -1;
				break;
			}
			p = end;
		}
		break;
	}
	fclose(f);
	return v;
}

/* A bool module parameter: 1 for Y, 0 for N, -1 if unreadable. */
static int ni_read_bool(const char *path)
{
	int c = EOF;
	FILE *f = fopen(path, "r");

	if (f) {
		c = fgetc(f);
		fclose(f);
	}
	return c == 'Y' ? 1 : c == 'N' ? 0 : -1;
}

/* A physical storm from CPU 0 to CPUs 1..ncpu-1, @rounds of @timeout_us. */
void ni_storm_init(struct ni_storm *s, unsigned int ncpu, uint32_t rounds,
		   uint32_t timeout_us)
{
	uint32_t i, n = 0;

	memset(s, 0, sizeof(*s));
	for (i = 1; i < ncpu && n < NI_MAX_TARGETS; i++)
		s->targets[n++] = i;
	s->rd = calloc(rounds, sizeof(*s->rd));
	s->ar = calloc((size_t)rounds * n, sizeof(*s->ar));
	if (!s->rd || !s->ar) {
		perror("calloc");
		exit(1);
	}
	s->r.abi_version = IDLELAB_ABI_VERSION;
	s->r.size = sizeof(s->r);
	s->r.mode = IDLELAB_IPI_PHYSICAL;
	s->r.nr_targets = n;
	s->r.nr_rounds = rounds;
	s->r.targets = (uintptr_t)s->targets;
	s->r.timeout_us = timeout_us;
	s->r.rounds = (uintptr_t)s->rd;
	s->r.arrivals = (uintptr_t)s->ar;
}

void ni_storm_free(struct ni_storm *s)
{
	free(s->rd);
	free(s->ar);
}

/*
 * One storm into @t: a round is exact when every target acknowledged once,
 * with its own CPU number, within the round (a round a foreign NMI hit may
 * have taken the foreign one for ours, so its arrival may precede t_issue:
 * only the count is asserted there).
 */
void ni_storm_tally(int fd, struct ni_storm *s, struct ni_tally *t)
{
	uint32_t n = s->r.nr_targets, i, k;
	struct idlelab_ipi_req r = s->r;

	t->storms++;
	if (ioctl(fd, IDLELAB_IOC_IPI_STORM, &r)) {
		t->errors++;
		return;
	}
	t->rounds += r.nr_done;
	t->late += r.late_nmis;
	t->lost += r.lost_nmis;
	t->foreign += r.foreign_nmis;
	t->run_flags |= r.run_flags;
	t->undrained += !!(r.run_flags & IDLELAB_RUN_UNDRAINED);
	if (r.nr_done != r.nr_rounds || r.unsupported)
		t->errors++;
	for (i = 0; i < r.nr_done; i++) {
		const struct idlelab_ipi_round *o = &s->rd[i];
		int foreign = !!(o->flags & IDLELAB_ROUND_FOREIGN_NMI);
		int good = o->acks == n && !(o->flags & IDLELAB_ROUND_TIMEOUT) &&
			   o->stray == 0;

		for (k = 0; k < n; k++) {
			const struct idlelab_ipi_arrival *a = &s->ar[i * n + k];

			if (a->count != 1 || a->cpu != s->targets[k] ||
			    a->t > o->t_complete ||
			    (!foreign && a->t < o->t_issue))
				good = 0;
		}
		t->exact += good;
		t->timeouts += !!(o->flags & IDLELAB_ROUND_TIMEOUT);
		t->flagged += foreign;
	}
}

/*
 * nmi_inject() - storms back to back while the host injects NMIs, 3 s
 * apart, at most @inject (each reaches every CPU; CPU 0 sends and is never
 * owed one, so every injected NMI must reach the kernel there).  The host
 * starts once it reads the READY marker on the console and stops when it
 * reads DONE, which is printed once CPU 0 has taken an NMI and the storms
 * have passed one on (an NMI may also fall between two storms), or after
 * 60 s.  Then 3 s more of storms, for an NMI the host sent meanwhile.
 */
void ni_console(const char *msg, unsigned int n)
{
	FILE *con = fopen("/dev/console", "w");

	if (con) {
		fprintf(con, "%s %u\n", msg, n);
		fclose(con);
	}
}

static void nmi_inject(int fd, unsigned int ncpu, unsigned int inject)
{
	struct ni_tally t;
	struct ni_storm s;
	long long nmi0 = ni_nmi_count(0), nmi = nmi0;
	double t0, t1;

	memset(&t, 0, sizeof(t));
	/*
	 * 500 rounds of up to 250 ms: within the run limit, (4 x 500 + 1) x
	 * 250 ms = 500 s (300 ms went over once the send's wait counted),
	 * and long enough.
	 */
	ni_storm_init(&s, ncpu, 500, 250000);
	ni_storm_tally(fd, &s, &t);	/* under way before the marker */
	ni_console("IDLELAB-NMI-READY", inject);
	t0 = ni_now();
	/*
	 * Until one has landed in a round (flagged): a storm also counts the
	 * foreign NMIs that hit while its sender starts or ends, which no
	 * round was running to be flagged for.
	 */
	while (nmi0 >= 0 && (nmi == nmi0 || !t.flagged) &&
	       ni_now() - t0 < 60) {
		ni_storm_tally(fd, &s, &t);
		nmi = ni_nmi_count(0);
	}
	ni_console("IDLELAB-NMI-DONE", t.storms);
	t1 = ni_now();
	while (ni_now() - t1 < 3)
		ni_storm_tally(fd, &s, &t);
	nmi = ni_nmi_count(0);
	printf("{\"op\":\"nmi_inject\",\"inject\":%u,\"cpu0_nmis\":%lld,"
	       "\"storms\":%u,\"rounds\":%u,\"exact_rounds\":%u,"
	       "\"timeouts\":%u,\"foreign_rounds\":%u,\"errors\":%u,"
	       "\"late\":%llu,\"lost\":%llu,\"foreign\":%llu,"
	       "\"undrained\":%u,\"run_flags\":%u,\"unknown_nmi_panic\":%ld,"
	       "\"panic_on_unrecovered_nmi\":%ld,\"secs\":%.1f}\n",
	       inject, nmi0 >= 0 && nmi >= 0 ? nmi - nmi0 : -1, t.storms,
	       t.rounds, t.exact, t.timeouts, t.flagged, t.errors, t.late,
	       t.lost, t.foreign, t.undrained, t.run_flags,
	       param_read("/proc/sys/kernel/unknown_nmi_panic"),
	       param_read("/proc/sys/kernel/panic_on_unrecovered_nmi"),
	       ni_now() - t0);
	ni_storm_free(&s);
}

#define NI_PARAM "/sys/module/idlelab_ipi/parameters/test_sender_exit"

/*
 * sender_death() - a storm whose sender exits abnormally, in a child the
 * parent gives 20 s before SIGKILL and 10 s more: a child still there
 * then is stuck in the kernel (the old uninterruptible wait), reported as
 * hung.  Then a normal storm must run.
 */
static void sender_death(int fd, unsigned int ncpu)
{
	struct ni_storm s;
	struct ni_tally t;
	int e, st = 0, hung = 0, killed = 0, rc = -1;
	double t0 = ni_now(), dt;
	pid_t pid;

	e = param_write(NI_PARAM, "1");
	if (e) {
		printf("{\"op\":\"ipi_sender_death\",\"skip\":\"cannot write %s: %s\"}\n",
		       NI_PARAM, strerror(e));
		return;
	}
	ni_storm_init(&s, ncpu, 20, 100000);
	pid = fork();
	if (pid == 0) {
		struct idlelab_ipi_req r = s.r;

		_exit(ioctl(fd, IDLELAB_IOC_IPI_STORM, &r) ? errno : 0);
	}
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (!killed && ni_now() - t0 > 20) {
			kill(pid, SIGKILL);
			killed = 1;
		} else if (killed && ni_now() - t0 > 30) {
			hung = 1;
			break;
		}
		usleep(20000);
	}
	dt = ni_now() - t0;
	if (!hung && WIFEXITED(st))
		rc = WEXITSTATUS(st);
	param_write(NI_PARAM, "0");
	memset(&t, 0, sizeof(t));
	if (!hung)
		ni_storm_tally(fd, &s, &t);
	printf("{\"op\":\"ipi_sender_death\",\"rc\":\"%s\",\"killed\":%d,"
	       "\"hung\":%d,\"secs\":%.2f,\"param_after\":%d,"
	       "\"next_exact\":%u,\"next_rounds\":%u}\n",
	       rc >= 0 ? ni_ename(rc) : "signal", killed, hung, dt,
	       ni_read_bool(NI_PARAM), t.exact, s.r.nr_rounds);
	ni_storm_free(&s);
}

#define NI_LATE "/sys/module/idlelab_ipi/parameters/test_late_us"

/*
 * late_acks() - the first target's handler made to claim each NMI 150 ms
 * after its arrival (the module's test_late_us), with 100 ms rounds: the
 * round times out for that target, and its acknowledgment arrives during
 * the drain (another 100 ms) before the next round, as long as the NMI took
 * under 50 ms to arrive (seen: over 25 ms on a loaded host under TCG).
 * Each must be counted late, in no round: the round has exactly the other
 * targets' acks, each within the round, and target 0 none.  A sender vCPU
 * the host did not run for 50 ms closes its round after the late claim, so
 * that round is simply exact; either way every NMI is counted once.
 */
static void late_acks(int fd, unsigned int ncpu)
{
	struct ni_storm s;
	uint32_t n, i, k, as_expected = 0, in_round = 0, stray = 0;
	struct idlelab_ipi_req r;
	int e, over;

	/* Capped at 200 ms (storm.c): a busy wait inside an NMI handler. */
	over = param_write(NI_LATE, "200001");
	e = param_write(NI_LATE, "150000");
	if (e) {
		printf("{\"op\":\"late_acks\",\"skip\":\"cannot write %s: %s\"}\n",
		       NI_LATE, strerror(e));
		return;
	}
	ni_storm_init(&s, ncpu, 10, 100000);
	r = s.r;
	n = r.nr_targets;
	e = ioctl(fd, IDLELAB_IOC_IPI_STORM, &r) ? errno : 0;
	param_write(NI_LATE, "0");
	for (i = 0; !e && i < r.nr_done; i++) {
		const struct idlelab_ipi_round *o = &s.rd[i];
		int late = o->acks == n - 1 &&
			   (o->flags & IDLELAB_ROUND_TIMEOUT) &&
			   s.ar[i * n].count == 0 && s.ar[i * n].t == 0;
		int exact = o->acks == n && !(o->flags & IDLELAB_ROUND_TIMEOUT) &&
			    s.ar[i * n].count == 1 &&
			    s.ar[i * n].t >= o->t_issue &&
			    s.ar[i * n].t <= o->t_complete;
		int good = 1;

		for (k = 1; k < n; k++) {
			const struct idlelab_ipi_arrival *a = &s.ar[i * n + k];

			if (a->count != 1 || a->cpu != s.targets[k] ||
			    a->t < o->t_issue || a->t > o->t_complete)
				good = 0;
		}
		as_expected += good && late;
		in_round += good && exact;
		stray += o->stray;
	}
	printf("{\"op\":\"late_acks\",\"over_cap\":\"%s\",\"rc\":\"%s\","
	       "\"rounds\":%u,"
	       "\"nr_done\":%u,\"as_expected\":%u,\"in_round\":%u,"
	       "\"late\":%u,"
	       "\"stray\":%u,\"lost\":%u,\"undrained\":%u}\n",
	       ni_ename(over), ni_ename(e), s.r.nr_rounds, e ? 0 : r.nr_done, as_expected,
	       in_round,
	       e ? 0 : r.late_nmis, stray, e ? 0 : r.lost_nmis,
	       e ? 0 : !!(r.run_flags & IDLELAB_RUN_UNDRAINED));
	ni_storm_free(&s);
}

#define NI_STRAGGLERS "/sys/module/idlelab_ipi/parameters/stragglers"

/* A line into the kernel log, where the host finds it in dmesg.txt. */
void ni_kmsg(const char *msg)
{
	FILE *f = fopen("/dev/kmsg", "w");

	if (f) {
		fprintf(f, "%s\n", msg);
		fclose(f);
	}
}

/*
 * stragglers() - storms whose rounds time out after 1 us: under TCG an NMI
 * takes far longer to reach a halted vCPU, so runs end owing NMIs that
 * arrive after the run is over (issue 21).  The module must still claim
 * them (its stragglers parameter counts them) rather than leave them to
 * the kernel, which reports an NMI nobody claims as unknown: the host
 * counts those lines between the two markers, and no NMI is injected
 * then.  The last sleep outlasts every straggler's deadline (1 s).
 */
static void stragglers(int fd, unsigned int ncpu)
{
	long s0 = param_read(NI_STRAGGLERS), s1;
	unsigned int i, runs = 0, owing = 0, errors = 0;
	unsigned long long lost = 0, late = 0;
	struct ni_storm s;

	ni_kmsg("IDLELAB-STRAGGLE-BEGIN");
	ni_storm_init(&s, ncpu, 3, 1);
	for (i = 0; i < 40; i++) {
		struct idlelab_ipi_req r = s.r;

		if (ioctl(fd, IDLELAB_IOC_IPI_STORM, &r)) {
			errors++;
			continue;
		}
		runs++;
		owing += r.lost_nmis > 0;
		lost += r.lost_nmis;
		late += r.late_nmis;
	}
	usleep(1200000);
	s1 = param_read(NI_STRAGGLERS);
	ni_kmsg("IDLELAB-STRAGGLE-END");
	printf("{\"op\":\"stragglers\",\"runs\":%u,\"errors\":%u,"
	       "\"owing_runs\":%u,\"lost\":%llu,\"late\":%llu,"
	       "\"stragglers\":%ld}\n", runs, errors, owing, lost, late,
	       s0 >= 0 && s1 >= 0 ? s1 - s0 : -1);
	ni_storm_free(&s);
}

/* A child that spins on CPU 0, counting in @count, until killed. */
static pid_t ni_spinner(volatile unsigned long *count)
{
	cpu_set_t set;
	pid_t pid = fork();

	if (pid)
		return pid;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(1);
	for (;;)
		(*count)++;
}

/*
 * preempt_guard() - the storm sender's preempt_disable() tested by what it
 * protects (issue 21): a task pinned to the sender's CPU 0 spins through a
 * storm whose rounds last about 3 ms, near a tick: the first target's
 * handler waits 3 ms before it claims each NMI (test_late_us), within the
 * 5 ms timeout, so each round waits about 3 ms for that ack.  (With a
 * timeout below the delay the next round's drain, bounded by the same
 * timeout, ended the first such run undrained after 4 rounds.)  Under
 * preempt=full a tick inside a round would switch the sender out for the
 * spinner, were preemption on; no round may be flagged preempted.  The
 * spinner must have run during the storm, and between two rounds (a gap
 * of a millisecond or more), or nothing was tested.
 */
static void preempt_guard(int fd, unsigned int ncpu)
{
	volatile unsigned long *count;
	unsigned long before, after;
	uint32_t i, preempted = 0, gaps = 0;
	struct idlelab_ipi_req r;
	struct ni_storm s;
	pid_t pid;
	int e;

	count = mmap(NULL, sizeof(*count), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (count == MAP_FAILED || param_write(NI_LATE, "3000")) {
		printf("{\"op\":\"preempt_guard\",\"skip\":\"no shared page or %s\"}\n",
		       NI_LATE);
		return;
	}
	*count = 0;
	pid = ni_spinner(count);
	usleep(100000);		/* on CPU 0 and spinning */
	ni_storm_init(&s, ncpu, 100, 5000);
	r = s.r;
	before = *count;
	e = ioctl(fd, IDLELAB_IOC_IPI_STORM, &r) ? errno : 0;
	after = *count;
	param_write(NI_LATE, "0");
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	for (i = 0; !e && i < r.nr_done; i++) {
		preempted += !!(s.rd[i].flags & IDLELAB_ROUND_PREEMPTED);
		if (i && s.rd[i].t_issue - s.rd[i - 1].t_complete >
			 (uint64_t)r.tsc_khz)
			gaps++;
	}
	printf("{\"op\":\"preempt_guard\",\"rc\":\"%s\",\"rounds\":%u,"
	       "\"nr_done\":%u,\"preempted\":%u,\"gaps\":%u,"
	       "\"spins\":%lu}\n", ni_ename(e), s.r.nr_rounds,
	       e ? 0 : r.nr_done, preempted, gaps, after - before);
	ni_storm_free(&s);
	munmap((void *)count, sizeof(*count));
}

/* Storms over IDLELAB_MAX_RUN_US in the worst case: EINVAL, nothing run. */
static void bad_run_limit(int fd, unsigned int ncpu)
{
	static const struct { uint32_t rounds, timeout_us; } c[] = {
		{ IDLELAB_MAX_ROUNDS, IDLELAB_MAX_ROUND_TIMEOUT_US },
		{ IDLELAB_MAX_ROUNDS, 2000 },	/* 400001 x 2 ms > 600 s */
		{ 200, IDLELAB_MAX_ROUND_TIMEOUT_US },	/* 801 s */
		/* 601 s; 451 s before the send's ICR-idle wait counted */
		{ 150, IDLELAB_MAX_ROUND_TIMEOUT_US },
	};
	unsigned int i, ok = 0, total = 0;
	int last = 0;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct ni_storm s;
		int e;

		ni_storm_init(&s, ncpu, c[i].rounds, c[i].timeout_us);
		e = ioctl(fd, IDLELAB_IOC_IPI_STORM, &s.r) ? errno : 0;
		total++;
		if (e == EINVAL)
			ok++;
		else
			last = e;
		ni_storm_free(&s);
	}
	printf("{\"op\":\"bad\",\"name\":\"ipi_over_run_limit\","
	       "\"want\":\"EINVAL\",\"total\":%u,\"ok\":%u,"
	       "\"last_wrong\":\"%s\"}\n", total, ok,
	       ok == total ? "" : ni_ename(last));
}

/* N of @key=N on the kernel command line (run-qemu.sh), else 0. */
unsigned int ni_cmdline_uint(const char *key)
{
	char line[4096], *p;
	unsigned int n = 0;
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f)) {
		p = strstr(line, key);
		if (p && p[strlen(key)] == '=')
			n = (unsigned int)strtoul(p + strlen(key) + 1, NULL,
						  10);
	}
	fclose(f);
	return n;
}

void ipi_hazards(int fd, unsigned int ncpu)
{
	unsigned int inject = ni_cmdline_uint("idlelab.nmi_inject");

	if (inject)
		nmi_inject(fd, ncpu, inject);
	else
		printf("{\"op\":\"nmi_inject\",\"skip\":\"idlelab.nmi_inject=0 on the kernel command line: the host injects no NMIs (run-qemu.sh needs socat for QMP)\"}\n");
	late_acks(fd, ncpu);
	stragglers(fd, ncpu);
	preempt_guard(fd, ncpu);
	sender_death(fd, ncpu);
	bad_run_limit(fd, ncpu);
}
