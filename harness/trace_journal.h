/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace_journal.h - journalling what a trace capture makes in tracefs (see
 * trace_journal.c).  Errors follow err.h.
 */
#ifndef IDLELAB_TRACE_JOURNAL_H
#define IDLELAB_TRACE_JOURNAL_H

/**
 * il_trace_journal_begin() - take the trace journal's lock into *@lock_fd
 * (first undoing a killed run's leftover journal) and write, durably, that
 * @inst_dir will be made and, when @mount_dir is not NULL, that tracefs
 * will be mounted there.  Nothing is changed yet.
 * Return: 0; -EBUSY if another live run holds it; -errno (message set).
 */
int il_trace_journal_begin(const char *mount_dir, const char *inst_dir,
			   int *lock_fd);

/**
 * il_trace_journal_end() - undo both (remove @inst_dir, unmount
 * @mount_dir), then remove the journal and release @lock_fd.
 * Return: 0, or -errno with the journal kept for `idlelab restore`.
 */
int il_trace_journal_end(const char *mount_dir, const char *inst_dir,
			 int lock_fd);

#endif
