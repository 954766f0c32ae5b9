// SPDX-License-Identifier: GPL-2.0-only
/*
 * envctl_apply.c - applying a campaign's environment controls (envctl.h):
 * read the controlled state, plan every change (envctl_plan.c), hand the
 * plan to the journal (envctl_journal.c), then change the files, hold the
 * PM QoS request and set the process's scheduling and memory locking; and
 * undo it all at the end.
 *
 * The PM QoS request needs no undo: the kernel drops it when its
 * descriptor closes, including at SIGKILL.  It is journalled all the same,
 * so that against a fake tree (where dev/cpu_dma_latency is a regular
 * file) the bytes written into it are put back too.
 *
 * SCHED_FIFO and mlockall() are per process and die with it; they are
 * undone at restore only so a process that goes on after a campaign is
 * left as it was.
 */
#include "envctl.h"
#include "envctl_internal.h"
#include "bench.h"
#include "err.h"
#include "pmqos.h"
#include "sysfs.h"
#include "topo.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CPU_DIR		IL_ENVCTL_CPU_DIR
#define QOS_PATH	IL_PM_QOS_PATH
#define MAX_STATES	IL_ENVCTL_MAX_STATES

struct il_envctl {
	int lock_fd;
	int nent;
	struct jentry *ent;
	int napplied;		/* entries [0, napplied) were changed */
	bool journal_written;
	int qos_fd;
	int32_t qos_us;
	char *qos_before;
	int sched_fifo;
	bool sched_set;
	int old_policy;
	struct sched_param old_param;
	bool mem_locked;
	int ncpus;
	int *cpus;
	char **before;		/* per CPU, the state before the campaign */
	char *unavail;		/* the controls left out, and why; NULL: none */
};

/* ---- reading the controlled state -------------------------------------- */

/* "governor=G min_khz=A max_khz=B disabled=S1,S2" for @cpu; parts that
 * cannot be read say "unknown". */
static void cpu_state(int cpu, char *out, size_t len)
{
	char p[256], gov[64], lo[32], hi[32], name[64], dis[8];
	char disabled[160] = "";
	size_t used = 0;
	int k;

	snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpufreq/scaling_governor", cpu);
	if (il_fs_read(p, gov, sizeof(gov)))
		snprintf(gov, sizeof(gov), "unknown");
	snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpufreq/scaling_min_freq", cpu);
	if (il_fs_read(p, lo, sizeof(lo)))
		snprintf(lo, sizeof(lo), "unknown");
	snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpufreq/scaling_max_freq", cpu);
	if (il_fs_read(p, hi, sizeof(hi)))
		snprintf(hi, sizeof(hi), "unknown");
	for (k = 0; k < MAX_STATES; k++) {
		snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpuidle/state%d/name", cpu, k);
		if (il_fs_read(p, name, sizeof(name)))
			break;
		snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpuidle/state%d/disable", cpu, k);
		if (il_fs_read(p, dis, sizeof(dis)))
			snprintf(dis, sizeof(dis), "?");
		if (strcmp(dis, "0") && used < sizeof(disabled) - 1)
			used += snprintf(disabled + used, sizeof(disabled) - used,
					 "%s%s%s", used ? "," : "", name,
					 strcmp(dis, "1") ? "?" : "");
	}
	if (!k)
		snprintf(disabled, sizeof(disabled), "unknown");
	else if (!used)
		snprintf(disabled, sizeof(disabled), "none");
	snprintf(out, len, "governor=%s min_khz=%s max_khz=%s disabled=%s",
		 gov, lo, hi, disabled);
	il_errclear();
}

static char *qos_now(void)
{
	unsigned char b[64];
	int32_t v;
	char *s;
	int n = il_fs_read_bin(QOS_PATH, b, sizeof(b));

	il_errclear();
	if (n != 4)
		return strdup("unknown");
	memcpy(&v, b, 4);
	if (asprintf(&s, "%" PRId32, v) < 0)
		return NULL;
	return s;
}

/* ---- apply / restore --------------------------------------------------- */

static void envctl_free(struct il_envctl *c)
{
	int i;

	il_envctl_entries_free(c->ent, c->nent);
	for (i = 0; c->before && i < c->ncpus; i++)
		free(c->before[i]);
	free(c->before);
	free(c->cpus);
	free(c->qos_before);
	free(c->unavail);
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	free(c);
}

int il_envctl_restore(struct il_envctl *c)
{
	int n, ret = 0, r;

	if (!c)
		return 0;
	if (c->qos_fd >= 0) {
		close(c->qos_fd);
		c->qos_fd = -1;
	}
	if (c->mem_locked)
		munlockall();
	if (c->sched_set &&
	    sched_setscheduler(0, c->old_policy, &c->old_param) && !ret)
		ret = il_errorf(-errno, "cannot restore the scheduling policy: %s",
				strerror(errno));
	if (c->journal_written) {
		/* In this process we know exactly what changed: a write that
		 * failed changed nothing, and what follows it never ran.  (A
		 * recovery after a crash cannot know, so it writes them all.) */
		r = il_envctl_restore_entries(c->ent, c->napplied, &n);
		if (!r)
			r = il_envctl_journal_remove();
		if (r)
			ret = r;
	}
	envctl_free(c);
	return ret;
}

/*
 * After planning one control: with @lenient, a control that does not exist
 * on this machine (@ret -ENOENT or -EOPNOTSUPP: no cpuidle or cpufreq, no
 * such state or governor) is dropped from the plan, entries it had already
 * planned for other CPUs included, so that it changes nothing, and its
 * reason is kept in @c.  Return: @ret, or 0 for a control left out.
 */
static int plan_left_out(struct il_envctl *c, struct envctl_plan *pl,
			 bool lenient,
			 int ret)
{
	char *why;

	if (!ret)
		pl->kept = pl->n;
	if (!ret || !lenient || (ret != -ENOENT && ret != -EOPNOTSUPP))
		return ret;
	while (pl->n > pl->kept) {
		struct jentry *e = &pl->e[--pl->n];

		free(e->path);
		free(e->file);
		free(e->orig);
		free(e->val);
	}
	if (asprintf(&why, "%s%s%s", c->unavail ? c->unavail : "",
		     c->unavail ? "; " : "", il_errmsg()) < 0)
		return il_errorf(-ENOMEM, "out of memory");
	free(c->unavail);
	c->unavail = why;
	il_errclear();
	return 0;
}

/* Take the lock, refuse a leftover journal, and note each CPU's state. */
static int envctl_take(struct il_envctl *c)
{
	int i, ret;

	ret = il_envctl_lock_take(&c->lock_fd);
	if (ret == -EBUSY)
		ret = il_envctl_busy_error();
	if (ret)
		return ret;
	if (il_envctl_journal_pending()) {
		char p[PATH_MAX];

		return il_errorf(-EEXIST, "a leftover restore journal %s exists; run 'idlelab restore' first",
				 il_envctl_journal_path(p, sizeof(p)));
	}
	ret = il_fs_online_cpus(&c->cpus);
	if (ret < 0)
		return ret;
	c->ncpus = ret;
	c->before = calloc(c->ncpus ? c->ncpus : 1, sizeof(char *));
	if (!c->before)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; i < c->ncpus; i++) {
		char st[256];

		cpu_state(c->cpus[i], st, sizeof(st));
		c->before[i] = strdup(st);
	}
	c->qos_before = qos_now();
	return 0;
}

/* Plan every control of @s into c->ent; @lenient as plan_left_out(). */
static int envctl_plan(struct il_envctl *c, const struct il_envctl_spec *s,
		       bool lenient)
{
	struct envctl_plan pl = { 0 };
	int ret = 0;

	if (s->ncpuidle_only)
		ret = plan_left_out(c, &pl, lenient,
				    il_envctl_plan_cpuidle(&pl, s, c->cpus, c->ncpus));
	if (!ret && s->governor)
		ret = plan_left_out(c, &pl, lenient,
				    il_envctl_plan_governor(&pl, s->governor, c->cpus,
						  c->ncpus));
	if (!ret && s->pin != IL_PIN_NONE)
		ret = plan_left_out(c, &pl, lenient,
				    il_envctl_plan_pin(&pl, s, c->cpus, c->ncpus));
	if (!ret && s->pm_qos)
		ret = plan_left_out(c, &pl, lenient,
				    il_envctl_plan_qos(&pl, s->pm_qos_us));
	c->ent = pl.e;
	c->nent = pl.n;
	return ret;
}

/* Make the journalled changes in order, counting them in c->napplied. */
static int envctl_write_entries(struct il_envctl *c,
				const struct il_envctl_spec *s)
{
	int i, ret;

	for (i = 0; i < c->nent; i++) {
		struct jentry *e = &c->ent[i];

		if (e->pm_qos) {
			int32_t v = s->pm_qos_us;

			/* The request lives as long as this descriptor. */
			c->qos_fd = il_fs_open(QOS_PATH, O_RDWR);
			if (c->qos_fd < 0)
				return c->qos_fd;
			errno = 0;
			if (write(c->qos_fd, &v, sizeof(v)) != sizeof(v))
				return il_errorf(-errno ? -errno : -EIO,
						 "cannot write the PM QoS request to %s: %s",
						 QOS_PATH, strerror(errno));
			c->qos_us = v;
			c->napplied = i + 1;
			continue;
		}
		ret = il_fs_write(e->path, e->val);
		if (ret)
			return ret;
		c->napplied = i + 1;
	}
	return 0;
}

/* The controls on this process, not in the journal: SCHED_FIFO, mlockall. */
static int envctl_set_process(struct il_envctl *c,
			      const struct il_envctl_spec *s)
{
	if (s->sched_fifo) {
		struct sched_param sp = { .sched_priority = s->sched_fifo };

		c->old_policy = sched_getscheduler(0);
		sched_getparam(0, &c->old_param);
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			return il_errorf(-errno, "sched_fifo: cannot set SCHED_FIFO priority %d: %s",
					 s->sched_fifo, strerror(errno));
		c->sched_set = true;
		c->sched_fifo = s->sched_fifo;
	}
	if (s->mlockall) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE))
			return il_errorf(-errno, "mlockall: %s", strerror(errno));
		c->mem_locked = true;
	}
	return 0;
}

static int envctl_apply(const struct il_envctl_spec *s, struct il_envctl **out,
			bool lenient)
{
	struct il_envctl *c;
	int ret;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return il_errorf(-ENOMEM, "out of memory");
	c->lock_fd = -1;
	c->qos_fd = -1;
	ret = envctl_take(c);
	if (ret)
		goto fail;
	/* Plan everything, then journal everything, then change anything. */
	ret = envctl_plan(c, s, lenient);
	if (ret)
		goto fail;
	if (c->nent) {
		ret = il_envctl_journal_write(c->ent, c->nent);
		if (ret)
			goto fail;
		c->journal_written = true;
	}
	ret = envctl_write_entries(c, s);
	if (!ret)
		ret = envctl_set_process(c, s);
	if (ret)
		goto fail;
	*out = c;
	return 0;
fail:
	{
		char msg[512];

		/* Keep the first error's message over the restore's. */
		snprintf(msg, sizeof(msg), "%s", il_errmsg());
		if (il_envctl_restore(c))
			il_errorf(ret, "%s (and the restore failed: %s)", msg,
				  il_errmsg());
		else
			il_errorf(ret, "%s", msg);
	}
	return ret;
}

int il_envctl_apply(const struct il_envctl_spec *s, struct il_envctl **out)
{
	return envctl_apply(s, out, false);
}

int il_envctl_apply_available(const struct il_envctl_spec *s,
			      struct il_envctl **out)
{
	return envctl_apply(s, out, true);
}

int il_envctl_probe(const struct il_envctl_spec *s, char **why)
{
	struct il_envctl *c = calloc(1, sizeof(*c));
	int ret;

	*why = NULL;
	if (!c)
		return il_errorf(-ENOMEM, "out of memory");
	c->lock_fd = -1;
	c->qos_fd = -1;
	/* The plan only reads: no lock, no journal, nothing written. */
	ret = il_fs_online_cpus(&c->cpus);
	if (ret >= 0) {
		c->ncpus = ret;
		ret = envctl_plan(c, s, true);
	}
	if (!ret) {
		*why = c->unavail;
		c->unavail = NULL;
	}
	envctl_free(c);
	return ret < 0 ? ret : 0;
}

const char *il_envctl_unavailable(const struct il_envctl *c)
{
	return c ? c->unavail : NULL;
}

int il_envctl_run_attrs(struct il_envctl *c, struct il_run *run)
{
	char st[256];
	int *cpus = NULL, n, i;

	if (c) {
		for (i = 0; i < c->ncpus; i++) {
			cpu_state(c->cpus[i], st, sizeof(st));
			il_run_attr(run, c->cpus[i], "envctl", "%s", st);
			il_run_attr(run, c->cpus[i], "envctl.before", "%s",
				    c->before[i] ? c->before[i] : "unknown");
		}
		if (c->qos_fd >= 0)
			il_run_attr(run, -1, "envctl.pm_qos_us", "%" PRId32, c->qos_us);
		il_run_attr(run, -1, "envctl.pm_qos_us.before", "%s",
			    c->qos_before ? c->qos_before : "unknown");
		il_run_attr(run, -1, "envctl.sched_fifo", "%d", c->sched_fifo);
		il_run_attr(run, -1, "envctl.mlockall", "%d", c->mem_locked);
		if (c->unavail)
			il_run_attr(run, -1, "envctl.not_applied", "%s",
				    c->unavail);
		return 0;
	}
	n = il_fs_online_cpus(&cpus);
	if (n < 0) {
		il_errclear();
		return 0;
	}
	for (i = 0; i < n; i++) {
		cpu_state(cpus[i], st, sizeof(st));
		il_run_attr(run, cpus[i], "envctl", "%s", st);
	}
	free(cpus);
	return 0;
}
