/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drops.h - the summaries' drop reasons (stats.h enum il_drop_reason) as
 * the reports read and show them.  A database older than schema 4 has no
 * reason columns (one of 4 to 6 no slept column, derived instead), and reports open databases read-only, unmigrated: there
 * every query selects NULL instead, and a row's reasons are "not
 * recorded" unless its total is 0.
 */
#ifndef IDLELAB_DROPS_H
#define IDLELAB_DROPS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

#include "stats.h"

struct il_store;

/**
 * il_drop_cols() - the select list of the reason columns, in enum order
 * and named dropped_range .. dropped_slept, each read from @prefix ("s.",
 * or the view's name: a qualified name, as schema 4 to 6 derive slept in
 * a subquery), or NULL where the database predates them.  Written to
 * @buf (IL_DROP_COLS_LEN bytes suffice); returns @buf.
 */
#define IL_DROP_COLS_LEN	1536
const char *il_drop_cols(struct il_store *s, const char *prefix, char *buf,
			 size_t len);

/**
 * il_drop_read() - the reasons from columns @col .. @col + 4 of @st into
 * @sum, whose dropped total is already read; drop_split says whether
 * they are known.
 */
void il_drop_read(sqlite3_stmt *st, int col, struct il_summary *sum);

/**
 * il_drop_text() - "overrun 12, race 3" (reasons that are not 0), "none",
 * or "not recorded (stored before schema 4)".  Written to @buf; returns it.
 */
const char *il_drop_text(const struct il_summary *sum, char *buf, size_t len);

#endif
