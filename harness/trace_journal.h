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
 * il_trace_journal_record_cmd() - write the journal again, durably, with
 * one change more: tracefs's top-level options/record-cmd @cmd_file, now
 * "1", is about to be turned off for a while (restored to "1", after the
 * instance is removed and before tracefs is unmounted).
 * Return: 0, or -errno (message set) with nothing changed yet.
 */
int il_trace_journal_record_cmd(const char *mount_dir, const char *inst_dir,
				const char *cmd_file);

/**
 * il_trace_journal_end() - undo them all (remove @inst_dir, put
 * @cmd_file back to "1" when it is not NULL, unmount @mount_dir), then
 * remove the journal and release @lock_fd.
 * Return: 0, or -errno with the journal kept for `idlelab restore`.
 */
int il_trace_journal_end(const char *mount_dir, const char *inst_dir,
			 const char *cmd_file, int lock_fd);

#endif
