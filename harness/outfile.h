/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * outfile.h - every file a command writes at a path the user named
 * (report and export --output, the html report's files, merge's
 * destination) goes through here, for two guarantees (issue 20):
 *
 *  - An output never names an input database.  A command first lists its
 *    input databases with il_outfile_guard(); il_outfile_check() then
 *    refuses a path that is one of them, its -wal or its -shm, however it
 *    is spelled: relative or absolute, through symlinks, or a hard link
 *    (same st_dev and st_ino).  A path that does not exist yet is
 *    compared as the realpath of its directory plus its name.
 *  - A failed writer never leaves half a file, nor truncates the file it
 *    would have replaced.  il_outfile_open() writes to a mkstemp() name in
 *    the target's directory; il_outfile_commit() renames it into place
 *    only once every byte is flushed without error; il_outfile_abort()
 *    (and a failed commit) unlinks it.  A target that exists and is not a
 *    regular file (/dev/null, /dev/stdout, a FIFO) cannot be replaced by
 *    a rename and is written in place, as before.  A symlink is followed,
 *    so the file it names is replaced, not the link.
 *
 * The guard list is process-wide and not locked: only the CLI, on its one
 * thread, fills it.  Errors follow err.h; a clash is -EEXIST, which the
 * commands turn into exit 2.
 */
#ifndef IDLELAB_OUTFILE_H
#define IDLELAB_OUTFILE_H

#include <stdio.h>

/**
 * il_outfile_guard() - forbid every output to name @db, @db-wal or
 * @db-shm (as spelled, and as SQLite names them beside the resolved
 * file).  Call it for each input database before checking any output.
 * Return: 0, or -ENOMEM.
 */
int il_outfile_guard(const char *db);

/** il_outfile_guard_clear() - forget every guarded path (for tests). */
void il_outfile_guard_clear(void);

/**
 * il_outfile_check() - whether @path may be written.
 * Return: 0, or -EEXIST with a one-line message naming the input file
 * @path would overwrite.  A path that cannot be resolved (a missing
 * directory) is not refused here: opening it fails with its own error.
 */
int il_outfile_check(const char *path);

/* An output file being written; @f is where the writer prints. */
struct il_outfile {
	FILE *f;
	char *path;	/* the target, symlinks resolved */
	char *tmp;	/* the temporary name, or NULL when written in place */
};

/**
 * il_outfile_open() - check @path (il_outfile_check()) and open a
 * temporary file beside it, with the mode the target has or, for a new
 * file, 0666 less the umask.  Return: 0, -EEXIST for a clash, or a
 * negative errno with a message; @o is then empty and needs no abort.
 */
int il_outfile_open(struct il_outfile *o, const char *path);

/**
 * il_outfile_commit() - flush, close and rename @o into place.  On any
 * error the temporary file is removed and the target left as it was.
 * Return: 0 or -EIO (with a message).  @o is empty afterwards either way.
 */
int il_outfile_commit(struct il_outfile *o);

/** il_outfile_abort() - close and remove @o's temporary file; idempotent. */
void il_outfile_abort(struct il_outfile *o);

/**
 * il_outfile_remove_dir() - undo a directory of outputs: remove every
 * file in @dir, then @dir itself when @rmdir_too (a directory this run
 * made).  Only for directories that held nothing of anyone else's.
 */
void il_outfile_remove_dir(const char *dir, int rmdir_too);

#endif
