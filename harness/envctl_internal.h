/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * envctl_internal.h - what the parts of envctl share and nothing else
 * sees: the journal entry, the planning of each control into entries
 * (envctl_plan.c), and the journal's operations (envctl_journal.c) that
 * applying the controls (envctl_apply.c) calls.  Errors follow err.h: 0 or
 * -errno with a message set.
 */
#ifndef IDLELAB_ENVCTL_INTERNAL_H
#define IDLELAB_ENVCTL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What restoring an entry does. */
enum il_jentry_op {
	IL_JE_WRITE,		/* write the original bytes back */
	IL_JE_RMDIR,		/* remove the directory the run made */
	IL_JE_UMOUNT,		/* unmount the file system the run mounted */
};

/* The trace capture's journal (trace_journal.c), beside the campaign's. */
#define IL_TRACE_JOURNAL	"trace-journal"

/* One file to change, and what to put back. */
struct jentry {
	enum il_jentry_op op;	/* IL_JE_WRITE unless a directory or mount */
	char *path;		/* as given to sysfs.h */
	char *file;		/* resolved: what is written back */
	unsigned char *orig;	/* original bytes */
	size_t orig_len;
	char *val;		/* wanted value (NULL for entries read back) */
	bool pm_qos;
};

/* Where the per-CPU cpufreq and cpuidle controls live (through sysfs.h). */
#define IL_ENVCTL_CPU_DIR	"/sys/devices/system/cpu"
/* The most cpuidle states of one CPU looked at. */
#define IL_ENVCTL_MAX_STATES	64

/* The journal entries planned so far (envctl_plan.c). */
struct envctl_plan {
	int n;
	int kept;		/* entries of the controls planned before */
	struct jentry *e;
};

/*
 * Plan one control for the online CPUs @cpus: add an entry per file to
 * change.  A control this machine lacks returns -EOPNOTSUPP (no cpuidle or
 * cpufreq, no PM QoS file) or -ENOENT (no such state or governor), which
 * il_envctl_apply_available() leaves out.
 */
struct il_envctl_spec;
int il_envctl_plan_cpuidle(struct envctl_plan *pl,
			   const struct il_envctl_spec *s, const int *cpus,
			   int ncpus);
int il_envctl_plan_governor(struct envctl_plan *pl, const char *gov,
			    const int *cpus, int ncpus);
int il_envctl_plan_pin(struct envctl_plan *pl, const struct il_envctl_spec *s,
		       const int *cpus, int ncpus);
int il_envctl_plan_qos(struct envctl_plan *pl, int32_t us);

/* Trailing whitespace aside, true if the two values are the same. */
bool il_envctl_same_value(const void *a, size_t alen, const void *b,
			  size_t blen);
void il_envctl_entries_free(struct jentry *e, int n);

/* Take the journal lock into *@fdp; -EBUSY (no message) if it is held. */
int il_envctl_lock_take(int *fdp);
/* Set the -EBUSY message naming the process that holds the journal. */
int il_envctl_busy_error(void);

/* Write the whole journal for @ent durably, before any change. */
int il_envctl_journal_write(const struct jentry *ent, int n);
int il_envctl_journal_remove(void);

/*
 * Write the originals of @e back, last first, reading each back;
 * *@nrestored counts those done.  Return: 0, or the first error.
 */
int il_envctl_restore_entries(const struct jentry *e, int n, int *nrestored);

/*
 * The same operations on the journal named @base (its files are
 * $IDLELAB_STATE_DIR/@base.json and @base.lock): the campaign's is
 * "restore-journal", a --causes run's IL_TRACE_JOURNAL.
 */
const char *il_journal_path(const char *base, char *buf, size_t len);
bool il_journal_pending(const char *base);
int il_journal_lock_take(const char *base, int *fdp);
int il_journal_write(const char *base, const struct jentry *ent, int n);
int il_journal_remove(const char *base);
/* Like il_envctl_recover() for one journal. */
int il_journal_recover(const char *base, int *nrestored, long *pid);

#endif
