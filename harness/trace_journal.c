// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_journal.c - what a --causes run changes in tracefs, journalled
 * before it changes it, through the same write-ahead journal protocol as
 * the campaign's environment controls (envctl_journal.c), in a journal of
 * its own (IL_TRACE_JOURNAL): a campaign holds its journal for all its runs,
 * while a trace capture lives inside one run.
 *
 * Two things are ever made: the tracefs mount, when tracefs was not
 * mounted (undone by unmounting it), and the run's instance directory
 * (undone by removing it, which drops its buffer, clock, cpumask and
 * enabled events with it).  One top-level setting is changed, and only
 * while the instance is made: options/record-cmd, off (put back to "1").
 * il_envctl_recover(), which `idlelab restore`, `run` and `bench` call
 * first, restores this journal too.
 */
#include "envctl_internal.h"
#include "err.h"
#include "trace_journal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* @orig: what a write entry puts back ("" for a directory or mount). */
static int add(struct jentry *e, int *n, enum il_jentry_op op,
	       const char *file, const char *orig)
{
	struct jentry *x = &e[(*n)++];

	memset(x, 0, sizeof(*x));
	x->op = op;
	x->path = strdup(file);
	x->file = strdup(file);
	x->orig = (unsigned char *)strdup(orig);
	x->orig_len = strlen(orig);
	if (!x->path || !x->file || !x->orig)
		return il_errorf(-ENOMEM, "out of memory");
	return 0;
}

static void entries_free(struct jentry *e, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(e[i].path);
		free(e[i].file);
		free(e[i].orig);
	}
}

/* The entries, in the order the changes are made (restored in reverse). */
static int entries(const char *mount_dir, const char *inst_dir,
		   const char *cmd_file, struct jentry *e, int *n)
{
	int ret = 0;

	*n = 0;
	if (mount_dir)
		ret = add(e, n, IL_JE_UMOUNT, mount_dir, "");
	if (!ret && cmd_file)
		ret = add(e, n, IL_JE_WRITE, cmd_file, "1");
	if (!ret)
		ret = add(e, n, IL_JE_RMDIR, inst_dir, "");
	return ret;
}

int il_trace_journal_begin(const char *mount_dir, const char *inst_dir,
			   int *lock_fd)
{
	struct jentry e[2];
	int n = 0, ret;

	ret = il_journal_lock_take(IL_TRACE_JOURNAL, lock_fd);
	if (ret == -EBUSY)
		return il_errorf(-EBUSY, "another idlelab run is capturing trace events (it holds the trace journal)");
	if (ret)
		return ret;
	/* A leftover journal of a killed run: undo it before making ours. */
	if (il_journal_pending(IL_TRACE_JOURNAL)) {
		int nr;
		long pid;

		close(*lock_fd);
		*lock_fd = -1;
		ret = il_journal_recover(IL_TRACE_JOURNAL, &nr, &pid);
		if (ret < 0)
			return ret;
		ret = il_journal_lock_take(IL_TRACE_JOURNAL, lock_fd);
		if (ret)
			return ret == -EBUSY ? il_errorf(ret, "another idlelab run is capturing trace events") : ret;
	}
	ret = entries(mount_dir, inst_dir, NULL, e, &n);
	if (!ret)
		ret = il_journal_write(IL_TRACE_JOURNAL, e, n);
	entries_free(e, n);
	if (ret) {
		close(*lock_fd);
		*lock_fd = -1;
	}
	return ret;
}

int il_trace_journal_record_cmd(const char *mount_dir, const char *inst_dir,
				const char *cmd_file)
{
	struct jentry e[3];
	int n = 0, ret;

	ret = entries(mount_dir, inst_dir, cmd_file, e, &n);
	if (!ret)
		ret = il_journal_write(IL_TRACE_JOURNAL, e, n);
	entries_free(e, n);
	return ret;
}

int il_trace_journal_end(const char *mount_dir, const char *inst_dir,
			 const char *cmd_file, int lock_fd)
{
	struct jentry e[3];
	int n = 0, nr = 0, ret;

	ret = entries(mount_dir, inst_dir, cmd_file, e, &n);
	if (!ret)
		ret = il_envctl_restore_entries(e, n, &nr);
	entries_free(e, n);
	if (!ret)
		ret = il_journal_remove(IL_TRACE_JOURNAL);
	if (lock_fd >= 0)
		close(lock_fd);
	return ret;
}
