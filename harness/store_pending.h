/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_pending.h - a finished measurement the database refused (locked
 * past the busy timeout, disk full, a read-only file system) is kept in
 * a database of its own beside it, DB.pending/RUN.db, with the machine
 * row it needs, so that `idlelab import pending` can merge it in later.
 * The measurement is the expensive part of a run; a store that fails
 * must not throw it away.
 */
#ifndef IDLELAB_STORE_PENDING_H
#define IDLELAB_STORE_PENDING_H

#include "causes.h"
#include "store.h"

#include <stddef.h>

/**
 * il_store_pending_dir() - the directory pending runs of @db_path go to:
 * "@db_path.pending".  Return: @out, or NULL if @size is too small.
 */
char *il_store_pending_dir(const char *db_path, char *out, size_t size);

/**
 * il_store_pending_save() - keep run @r (and @c, NULL for none) that @s
 * refused in il_store_pending_dir(@s's path)/@r->uuid.db.  The machine
 * row is the one @s last stored with il_store_put_machine(), so the
 * pending file merges like any other dataset.  On success @path (of
 * @size bytes) names the file and the error message of the refused store
 * is kept as it was.  Return: 0, or -errno with nothing left behind.
 */
int il_store_pending_save(struct il_store *s, const struct il_run_rec *r,
			  const struct il_causes_run *c, char *path,
			  size_t size);

#endif
