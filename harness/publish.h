/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * publish.h - the database of an `idlelab publish` bundle (issue 25): a
 * working copy of the input made with merge (merge.h), cut down to the
 * selected runs and their machines, redacted (redact.h), and written to
 * the bundle with VACUUM INTO.
 *
 * VACUUM INTO is what makes redaction hold in the file itself: the
 * working copy's free pages and its WAL still hold the rows and values
 * that were deleted or rewritten, and a vacuumed copy has only live rows.
 * The working copy is removed afterwards (il_store_remove()).
 *
 * Errors follow err.h.
 */
#ifndef IDLELAB_PUBLISH_H
#define IDLELAB_PUBLISH_H

#include <jansson.h>

struct il_store;
struct il_redact_key;

/**
 * il_publish_copy() - a new database at @work_path (which must not exist)
 * holding every run of @src_path, read-only as merge reads its inputs.
 * Runs merge would leave out (damaged) are left out here too and counted
 * in *@damaged.  The copy is of the whole input, cut down afterwards: it
 * costs the input's size once, on the bundle's disk, and in exchange merge
 * stays the one place that knows how to copy every table.  Return: 0 with *@work open, or -errno.
 */
int il_publish_copy(const char *src_path, const char *work_path,
		    struct il_store **work, int *damaged);

/**
 * il_publish_keep() - delete from @work every run whose UUID is not in
 * the temporary table temp.il_publish_runs (uuid TEXT), which the caller
 * fills, then every machine left with no run, and with each the rows of
 * every table that references it (found from the schema's foreign keys,
 * so a table added by a later migration is covered).
 */
int il_publish_keep(struct il_store *work);

/**
 * il_publish_redact() - rewrite @work's measured machines (reference
 * machines, published figures, stay as they are) under @key: UUID and
 * hostname pseudonyms (in every table that references a machine), the
 * fingerprint and hwloc XML redacted, and the directories taken out of
 * runs' command lines and campaigns' file paths.  What was removed is
 * appended to @report (a JSON object, redactions.json's body).
 */
int il_publish_redact(struct il_store *work, const struct il_redact_key *key,
		      json_t *report);

/**
 * il_publish_vacuum() - VACUUM INTO @tmp_path, then set the copy to
 * rollback journaling (a bundle is read from media that may be read-only,
 * where WAL needs a -shm) and rename it to @path.
 */
int il_publish_vacuum(struct il_store *work, const char *tmp_path,
		      const char *path);

#endif
