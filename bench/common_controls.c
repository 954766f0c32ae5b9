// SPDX-License-Identifier: GPL-2.0-only
/*
 * common_controls.c - what a user-space benchmark sets around its
 * measurement the way cyclictest does (SCHED_FIFO, timer slack, mlockall,
 * a PM QoS hold), each recorded with what was actually obtained, plus the
 * clock choice, the placed CPUs a benchmark works on with the state frame
 * that holds them, and the parameter checks several benchmarks share
 * (common.h).
 */
#include "common.h"
#include "err.h"
#include "pmqos.h"
#include "sysfs.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/klog.h>
#include <sys/prctl.h>
#include <unistd.h>

#define IL_QOS_PATH	IL_PM_QOS_PATH
#define IL_CLOCKSOURCE	"/sys/devices/system/clocksource/clocksource0/current_clocksource"

static const char *policy_name(int pol)
{
	switch (pol) {
	case SCHED_OTHER:
		return "SCHED_OTHER";
	case SCHED_FIFO:
		return "SCHED_FIFO";
	case SCHED_RR:
		return "SCHED_RR";
	case SCHED_BATCH:
		return "SCHED_BATCH";
	case SCHED_IDLE:
		return "SCHED_IDLE";
	}
	return "unknown";
}

int il_sched_fifo(struct il_run *run, int cpu, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int err = 0, pol = -1;

	if (prio > 0)
		err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (pthread_getschedparam(pthread_self(), &pol, &sp)) {
		pol = -1;
		sp.sched_priority = 0;
	}
	if (prio <= 0)
		il_run_attr(run, cpu, "sched_policy", "%s %d (SCHED_FIFO not requested)",
			    policy_name(pol), sp.sched_priority);
	else if (err)
		il_run_attr(run, cpu, "sched_policy", "%s %d (SCHED_FIFO %d refused: %s)",
			    policy_name(pol), sp.sched_priority, prio,
			    strerror(err));
	else
		il_run_attr(run, cpu, "sched_policy", "%s %d",
			    policy_name(pol), sp.sched_priority);
	if (prio <= 0 || (!err && pol == SCHED_FIFO))
		return 0;
	return err ? -err : -EPERM;
}

int il_timer_slack(struct il_run *run, int cpu, unsigned long ns)
{
	int ret = 0;
	int got;

	if (prctl(PR_SET_TIMERSLACK, ns, 0, 0, 0))
		ret = -errno;
	got = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	if (got < 0)
		il_run_attr(run, cpu, "timer_slack_ns", "unknown: %s",
			    strerror(errno));
	else if (ret)
		il_run_attr(run, cpu, "timer_slack_ns", "%d (setting %lu refused: %s)",
			    got, ns, strerror(-ret));
	else
		il_run_attr(run, cpu, "timer_slack_ns", "%d", got);
	return ret;
}

#if !defined(__SANITIZE_ADDRESS__)
/*
 * Locked memory of this process in kB from /proc/self/status, or -1 if
 * unknown.  Non-zero means someone (a campaign's envctl mlockall, say)
 * locked memory before us, and it is not ours to unlock afterwards.
 */
static long locked_kb(void)
{
	char *buf = NULL, *p;
	long kb = -1;

	if (il_fs_read_all("/proc/self/status", &buf)) {
		il_errclear();
		return -1;
	}
	p = strstr(buf, "\nVmLck:");
	if (p)
		kb = strtol(p + 8, NULL, 10);
	free(buf);
	return kb;
}
#endif

bool il_mlock_all(struct il_run *run)
{
#if defined(__SANITIZE_ADDRESS__)
	/* ASan reserves terabytes of shadow memory and ignores mlockall. */
	il_run_attr(run, -1, "mlockall", "no: not done under AddressSanitizer");
	return false;
#else
	long before = locked_kb();

	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		il_run_attr(run, -1, "mlockall", "no: %s", strerror(errno));
		return false;
	}
	if (before) {
		/* Locked already (or unknown): leave it so afterwards. */
		il_run_attr(run, -1, "mlockall", before > 0 ?
			    "yes (memory was already locked; left so)" :
			    "yes (left locked: the lock state before is unknown)");
		return false;
	}
	il_run_attr(run, -1, "mlockall", "yes");
	return true;
#endif
}

void il_munlock_all(void)
{
	munlockall();
}

int il_pm_qos_hold(struct il_run *run, uint64_t us)
{
	int32_t v = us > INT32_MAX ? INT32_MAX : (int32_t)us, cur;
	int fd, ret;

	fd = il_fs_open(IL_QOS_PATH, O_WRONLY);
	if (fd < 0) {
		il_run_attr(run, -1, "pm_qos_us", "unavailable: %s", il_errmsg());
		return fd;
	}
	if (write(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		ret = -errno;
		il_run_attr(run, -1, "pm_qos_us", "unavailable: writing %s: %s",
			    IL_QOS_PATH, strerror(errno));
		close(fd);
		return ret ? ret : -EIO;
	}
	il_run_attr(run, -1, "pm_qos_us", "%" PRId32, v);
	/* The kernel takes the minimum of every open request; what it
	 * enforces is what matters for the figures. */
	if (il_fs_read_bin(IL_QOS_PATH, &cur, sizeof(cur)) == (int)sizeof(cur))
		il_run_attr(run, -1, "pm_qos_effective_us", "%" PRId32, cur);
	return fd;
}

void il_pm_qos_release(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* ---- clock ----------------------------------------------------------- */

void il_clock_pick(struct il_run *run, struct il_clock *c, bool cross_cpu)
{
	uint64_t khz = il_tsc_khz();
	char cs[64] = "";

	c->tsc = false;
	if (!khz) {
		il_run_attr(run, -1, "clock",
			    "CLOCK_MONOTONIC (no calibrated TSC)");
		return;
	}
	if (cross_cpu && (il_fs_read(IL_CLOCKSOURCE, cs, sizeof(cs)) ||
			  strcmp(cs, "tsc"))) {
		il_run_attr(run, -1, "clock",
			    "CLOCK_MONOTONIC (clocksource '%s' is not tsc, so TSCs across CPUs are not trusted)",
			    cs[0] ? cs : "unknown");
		return;
	}
	c->tsc = true;
	run->tsc_khz = khz;
	il_run_attr(run, -1, "clock", "tsc %" PRIu64 " kHz", khz);
}

/* ---- is the TSC comparable across CPUs -------------------------------- */

enum il_tsc_trust il_tsc_verdict(const char *clocksource, const char *kmsg,
				 const char *kmsg_why, char *why, size_t len)
{
	if (!clocksource) {
		snprintf(why, len, "unverified: the clocksource could not be read");
		return IL_TSC_UNVERIFIED;
	}
	if (strcmp(clocksource, "tsc")) {
		snprintf(why, len, "unreliable: the kernel's clocksource is '%s', not tsc",
			 clocksource);
		return IL_TSC_UNRELIABLE;
	}
	if (kmsg && strstr(kmsg, "Marking TSC unstable")) {
		snprintf(why, len, "unreliable: the kernel log says 'Marking TSC unstable'");
		return IL_TSC_UNRELIABLE;
	}
	if (!kmsg) {
		snprintf(why, len, "unverified: clocksource tsc, but the kernel log is unavailable (%s)",
			 kmsg_why ? kmsg_why : "unreadable");
		return IL_TSC_UNVERIFIED;
	}
	snprintf(why, len, "reliable: clocksource tsc, no 'Marking TSC unstable' in the kernel log");
	return IL_TSC_RELIABLE;
}

/* syslog(2)'s actions; glibc's <sys/klog.h> has no names for them. */
#define IL_SYSLOG_READ_ALL	3
#define IL_SYSLOG_SIZE_BUFFER	10

/* The kernel log as one string (free() it), or NULL with @why set. */
static char *read_kmsg(char *why, size_t len)
{
	int size = klogctl(IL_SYSLOG_SIZE_BUFFER, NULL, 0), n;
	char *buf;

	if (size <= 0) {
		snprintf(why, len, "syslog(2) SIZE_BUFFER: %s",
			 size < 0 ? strerror(errno) : "empty");
		return NULL;
	}
	buf = malloc((size_t)size + 1);
	if (!buf) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	n = klogctl(IL_SYSLOG_READ_ALL, buf, size);
	if (n < 0) {
		snprintf(why, len, "syslog(2) READ_ALL: %s", strerror(errno));
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

enum il_tsc_trust il_tsc_cross_cpu(char *why, size_t len)
{
	char cs[64], kwhy[160];
	char *kmsg = read_kmsg(kwhy, sizeof(kwhy));
	bool have_cs = il_fs_read(IL_CLOCKSOURCE, cs, sizeof(cs)) == 0;
	enum il_tsc_trust v;

	v = il_tsc_verdict(have_cs ? cs : NULL, kmsg, kwhy, why, len);
	free(kmsg);
	return v;
}

/* ---- placement ------------------------------------------------------- */

int il_bench_cpus(struct il_run *run, int **cpus)
{
	int n = il_place_cpus(&run->place, NULL, 0);

	*cpus = NULL;
	if (n < 0)
		return n;
	if (n == 0)
		return il_errorf(-EINVAL, "placement '%s' has no CPU",
				 run->place.spec);
	*cpus = malloc((size_t)n * sizeof(**cpus));
	if (!*cpus)
		return il_errorf(-ENOMEM, "out of memory");
	return il_place_cpus(&run->place, *cpus, n);
}

int il_bench_state_new(struct il_run *run, size_t size,
		       int (*check_cpus)(const void *params, int ncpus))
{
	struct il_bench_placed *pl;
	int ret;

	if (run->ops->check) {
		ret = run->ops->check(run->params, &run->place);
		if (ret)
			return ret;
	}
	pl = calloc(1, size);
	if (!pl)
		return il_errorf(-ENOMEM, "out of memory");
	ret = il_bench_cpus(run, &pl->cpus);
	if (ret >= 0) {
		pl->n = ret;
		ret = check_cpus ? check_cpus(run->params, pl->n) : 0;
	}
	if (ret < 0) {
		free(pl->cpus);
		free(pl);
		return ret;
	}
	run->priv = pl;
	return 0;
}

void il_bench_state_free(struct il_run *run)
{
	struct il_bench_placed *pl = run->priv;

	if (!pl)
		return;
	free(pl->cpus);
	free(pl);
	run->priv = NULL;
}

int il_check_not_below(const char *name, uint64_t v, const char *lo_name,
		       uint64_t lo)
{
	if (v < lo)
		return il_errorf(-EINVAL, "parameter '%s': %" PRIu64 " is below %s %" PRIu64,
				 name, v, lo_name, lo);
	return 0;
}

int il_check_targets(const struct il_placement *place,
		     const struct il_u64_list *t)
{
	int n = place ? il_place_cpus(place, NULL, 0) : 0;
	int i, j;

	if (n < 0)
		n = 0;
	if (t->n <= 0)
		return il_errorf(-EINVAL, "parameter 'targets': empty list");
	for (i = 0; i < t->n; i++) {
		/* One of the n placed CPUs is the timer's. */
		if (place && t->v[i] >= (uint64_t)n)
			return il_errorf(-EINVAL,
					 "parameter 'targets': %" PRIu64 " targets need %" PRIu64 " placed CPUs (one timer + the targets), but --cpus '%s' places %d",
					 t->v[i], t->v[i] + 1, place->spec, n);
		for (j = 0; j < i; j++)
			if (t->v[j] == t->v[i])
				return il_errorf(-EINVAL,
						 "parameter 'targets': %" PRIu64 " is listed twice",
						 t->v[i]);
	}
	return 0;
}
