/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * filter.h - internal to analysis/: a parsed --compare filter as SQL
 * conditions on the aliases m (machines), r (runs), s (summaries).
 */
#ifndef IDLELAB_ANALYSIS_FILTER_H
#define IDLELAB_ANALYSIS_FILTER_H

#include <sqlite3.h>
#include <stddef.h>

struct il_filter;

/** il_filter_sql() - " AND cond" per term into @buf; "" for NULL. */
int il_filter_sql(const struct il_filter *f, char *buf, size_t len);
/** il_filter_bind() - bind the terms' values from @idx; returns next idx. */
int il_filter_bind(const struct il_filter *f, sqlite3_stmt *st, int idx);
/**
 * il_filter_prepare() - prepare @sql (freed here, whatever happens) and
 * bind the reports' usual parameters: "? IS NULL OR r.bench = ?" as 1 and
 * 2 from @bench, then @f's terms from 3.
 * Return: 0 with *@st set, or -EIO with the SQLite error (err.h).
 */
int il_filter_prepare(sqlite3 *db, char *sql, const char *bench,
		      const struct il_filter *f, sqlite3_stmt **st);
/** il_filter_nterms() - how many KEY=VALUE terms @f holds. */
int il_filter_nterms(const struct il_filter *f);
/** il_filter_term() - term @i's key and value (owned by @f). */
void il_filter_term(const struct il_filter *f, int i, const char **key,
		    const char **val);

#endif
