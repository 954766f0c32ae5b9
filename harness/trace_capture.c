// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_capture.c - setting up and tearing down the tracefs instance of a
 * --causes run (trace_capture.h); reading it back is trace_read.c.
 *
 * Design notes:
 *  - an instance of our own, not the top-level buffer: nothing anybody
 *    else set in tracefs changes, and one rmdir undoes all of ours;
 *  - tracefs is mounted by us only where it is not mounted, and only after
 *    the journal says so; libtracefs is then pointed at that directory, so
 *    it never mounts anything on its own (tracefs_tracing_dir() would);
 *  - the buffer is read after the run, not during it: a reader thread
 *    would itself be noise on a machine with few CPUs.  So the per-CPU
 *    buffer is sized for the whole run (il_trace_buffer_kb()), and what it
 *    could not hold is counted by the kernel and stored, never silent;
 *  - the instance is created with tracing on; it is switched off before
 *    anything else, so no event of a half-configured instance is kept.
 */
#include "err.h"
#include "trace_capture.h"
#include "trace_journal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <tracefs.h>
#include <unistd.h>

#define TRACEFS_DIR	"/sys/kernel/tracing"
#define RECORD_CMD	"options/record-cmd"
#define TRACEFS_MAGIC_NR 0x74726163

/*
 * What is recorded: system, event (NULL: the whole system), and whether a
 * lean capture (--causes-lean) keeps it.  Lean leaves out the two events
 * that sit on every wake's own path without naming a cause: sched_wakeup
 * (the attribution reads none; sched_switch says who held the CPU) and
 * cpu_idle (only the per-sample idle state needs it): two ring-buffer
 * writes fewer between a timer's expiry and the woken thread.
 */
static const struct {
	const char *sys, *name;
	bool lean;
} trace_events[] = {
	{ "irq", "irq_handler_entry", true },
	{ "irq", "irq_handler_exit", true },
	{ "irq", "softirq_entry", true },
	{ "irq", "softirq_exit", true },
	{ "irq_vectors", NULL, true },
	{ "nmi", "nmi_handler", true },
	{ "sched", "sched_switch", true },
	{ "sched", "sched_wakeup", false },
	{ "power", "cpu_idle", false },
};

const char *il_trace_events_name(bool lean)
{
	return lean ? "lean: no sched_wakeup, no power:cpu_idle" : "full";
}

const char *il_trace_clock_name(enum il_trace_clock c)
{
	return c == IL_TRACE_CLOCK_TSC ? "x86-tsc" : "mono";
}

static int tracefs_mounted(void)
{
	struct statfs sf;

	return !statfs(TRACEFS_DIR, &sf) &&
	       (unsigned long)sf.f_type == TRACEFS_MAGIC_NR;
}

const char *il_trace_unavailable(void)
{
	struct stat st;

	if (geteuid() != 0)
		return "--causes needs root: tracefs and its events are root-only";
	if (stat(TRACEFS_DIR, &st) || !S_ISDIR(st.st_mode))
		return "no " TRACEFS_DIR " (kernel without CONFIG_TRACING)";
	return NULL;
}

uint64_t il_trace_buffer_kb(uint64_t duration_ns, uint64_t events_per_s)
{
	/* 40 bytes a kept event, twice over for bursts, plus a second. */
	double kb = ((double)duration_ns / 1e9 + 1.0) * (double)events_per_s *
		    40.0 * 2.0 / 1024.0;

	if (kb < 256)
		return 256;
	if (kb > 256 * 1024)
		return 256 * 1024;
	return (uint64_t)kb;
}

static int cpu_list(const int *cpus, int n, char *buf, size_t len)
{
	size_t off = 0;
	int i, w;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		w = snprintf(buf + off, len - off, "%s%d", i ? "," : "", cpus[i]);
		if (w < 0 || (size_t)w >= len - off)
			return il_errorf(-ENOSPC, "CPU list too long");
		off += (size_t)w;
	}
	return 0;
}

/* @file of instance @inst (NULL: the top level), in @dir, for the message. */
static int file_write(struct tracefs_instance *inst, const char *dir,
		      const char *file, const char *val)
{
	if (tracefs_instance_file_write(inst, file, val) < 0)
		return il_errorf(errno ? -errno : -EIO,
				 "cannot write '%s' to %s/%s: %s", val,
				 dir, file, strerror(errno ? errno : EIO));
	return 0;
}

static int inst_write(struct il_trace *t, const char *file, const char *val)
{
	return file_write(t->inst, t->inst_dir, file, val);
}

/* Our process's threads now: the benchmark's workers exist after setup. */
static int own_tids(struct il_trace *t)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	pid_t *p;

	if (!d)
		return il_errorf(-errno, "cannot list /proc/self/task: %s",
				 strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		p = realloc(t->tids, (size_t)(t->ntids + 1) * sizeof(*p));
		if (!p) {
			closedir(d);
			return il_errorf(-ENOMEM, "out of memory");
		}
		t->tids = p;
		t->tids[t->ntids++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return 0;
}

static int configure(struct il_trace *t, const int *cpus, int ncpus)
{
	char buf[4096];
	size_t i;
	int ret;

	ret = inst_write(t, "tracing_on", "0");
	if (!ret) {
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)t->buffer_kb);
		ret = inst_write(t, "buffer_size_kb", buf);
	}
	if (!ret)
		ret = inst_write(t, "trace_clock", il_trace_clock_name(t->clock));
	if (!ret)
		ret = cpu_list(cpus, ncpus, buf, sizeof(buf));
	if (!ret && tracefs_instance_set_affinity(t->inst, buf) < 0)
		ret = il_errorf(-EIO, "cannot set %s/tracing_cpumask to %s",
				t->inst_dir, buf);
	for (i = 0; !ret && i < sizeof(trace_events) / sizeof(trace_events[0]); i++) {
		if (t->lean && !trace_events[i].lean)
			continue;
		if (tracefs_event_enable(t->inst, trace_events[i].sys,
					 trace_events[i].name) < 0)
			ret = il_errorf(-EOPNOTSUPP, "trace event %s:%s is not available in this kernel",
					trace_events[i].sys,
					trace_events[i].name ? trace_events[i].name : "*");
	}
	/* What the kernel really gave (it rounds to whole pages). */
	if (!ret) {
		long long kb;

		if (!tracefs_instance_file_read_number(t->inst, "buffer_size_kb", &kb))
			t->buffer_kb = (uint64_t)kb;
	}
	if (!ret)
		ret = own_tids(t);
	if (!ret && tracefs_trace_on(t->inst) < 0)
		ret = il_errorf(-EIO, "cannot turn %s/tracing_on on", t->inst_dir);
	return ret;
}

/*
 * Make the instance with record-cmd off.  An instance takes the top
 * level's options when it is made, and record-cmd (a top-level option: an
 * instance has no file for it) hooks a probe on sched_switch and
 * sched_wakeup that saves the comm of the tasks a CPU switches between
 * once that CPU has recorded an event: work on the measured CPU's wake
 * path, for comms this capture reads from the events' own fields.
 * Measured within one run (BENCHMARKS.md section 6), that probe was about
 * 2 % of timer_wake's median.  The top level's option is off only around
 * the mkdir, journalled before, and put back at once.
 */
static int instance_make(struct il_trace *t, const char *name)
{
	char *v = tracefs_instance_file_read(NULL, RECORD_CMD, NULL);
	bool on = v && v[0] == '1';
	int ret = 0;

	free(v);
	if (on) {
		ret = il_trace_journal_record_cmd(t->mounted ? TRACEFS_DIR : NULL,
						  t->inst_dir,
						  TRACEFS_DIR "/" RECORD_CMD);
		if (ret)
			return ret;
		t->record_cmd_off = 1;
		ret = file_write(NULL, TRACEFS_DIR, RECORD_CMD, "0");
		if (ret)
			return ret;
	}
	t->inst = tracefs_instance_create(name);
	if (!t->inst)
		ret = il_errorf(errno ? -errno : -EIO, "cannot create the tracefs instance %s: %s",
				t->inst_dir, strerror(errno ? errno : EIO));
	/* Back at once, even when the mkdir failed; its error comes first. */
	if (on) {
		int back = file_write(NULL, TRACEFS_DIR, RECORD_CMD, "1");

		if (!ret)
			ret = back;
	}
	return ret;
}

int il_trace_start(struct il_trace **out, const int *cpus, int ncpus,
		   enum il_trace_clock clock, uint64_t buffer_kb, bool lean)
{
	const char *why = il_trace_unavailable();
	char name[64];
	struct il_trace *t;
	int i, ret;

	*out = NULL;
	if (why)
		return il_errorf(geteuid() ? -EACCES : -EOPNOTSUPP, "%s", why);
	t = calloc(1, sizeof(*t));
	if (t)
		t->cpu = calloc((size_t)ncpus, sizeof(*t->cpu));
	if (!t || !t->cpu) {
		free(t);
		return il_errorf(-ENOMEM, "out of memory");
	}
	t->clock = clock;
	t->buffer_kb = buffer_kb;
	t->lean = lean;
	t->ncpus = ncpus;
	t->lock_fd = -1;
	for (i = 0; i < ncpus; i++) {
		t->cpu[i].cpu = cpus[i];
		t->cpu[i].lost = -1;
	}
	snprintf(name, sizeof(name), "idlelab-%ld", (long)getpid());
	snprintf(t->inst_dir, sizeof(t->inst_dir), "%s/instances/%s",
		 TRACEFS_DIR, name);
	t->mounted = !tracefs_mounted();
	ret = il_trace_journal_begin(t->mounted ? TRACEFS_DIR : NULL,
				     t->inst_dir, &t->lock_fd);
	if (ret) {
		free(t->cpu);
		free(t);
		return ret;
	}
	if (t->mounted && mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL)) {
		ret = il_errorf(-errno, "cannot mount tracefs on %s: %s",
				TRACEFS_DIR, strerror(errno));
		goto fail;
	}
	tracefs_set_tracing_dir((char *)TRACEFS_DIR);
	ret = instance_make(t, name);
	if (!ret)
		ret = configure(t, cpus, ncpus);
	if (ret)
		goto fail;
	*out = t;
	return 0;
fail:
	il_trace_free(t);
	return ret;
}

int il_trace_close(struct il_trace *t)
{
	if (!t || t->closed)
		return 0;
	t->closed = 1;
	if (t->inst)
		tracefs_instance_free(t->inst);
	t->inst = NULL;
	return il_trace_journal_end(t->mounted ? TRACEFS_DIR : NULL,
				    t->inst_dir, t->record_cmd_off ?
				    TRACEFS_DIR "/" RECORD_CMD : NULL, t->lock_fd);
}

int il_trace_free(struct il_trace *t)
{
	int i, ret;

	if (!t)
		return 0;
	ret = il_trace_close(t);
	for (i = 0; i < t->ncpus; i++)
		free(t->cpu[i].ev);
	free(t->cpu);
	free(t->tids);
	free(t);
	return ret;
}
