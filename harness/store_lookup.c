// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_lookup.c - a run named by the start of its UUID.
 *
 * `run` and `bench` print a run's UUID as its first 8 digits, as do the
 * tables that name runs (report --kind causes), so a user pastes that
 * prefix back: il_store_runs_by_prefix() gives the CLI every run it may
 * mean, and the CLI decides what one, none or several of them mean.  It
 * uses only il_store_db() (store_sqlite.h) and the runs table, like
 * store_campaign.c, so the store keeps one owner.
 */
#include "err.h"
#include "store.h"
#include "store_sqlite.h"

#include <ctype.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

int il_store_runs_by_prefix(struct il_store *s, const char *prefix,
			    char (*out)[37], int max)
{
	sqlite3 *db = il_store_db(s);
	sqlite3_stmt *st;
	char lo[37];
	size_t i, n = strlen(prefix);
	int rc, count = 0;

	/* UUIDs are stored in lower case (env_uuid.c); longer text than a
	 * UUID is the prefix of none. */
	if (n > 36)
		return 0;
	for (i = 0; i < n; i++)
		lo[i] = (char)tolower((unsigned char)prefix[i]);
	lo[n] = '\0';
	/* A range on the primary key rather than LIKE, whose '_' and '%'
	 * would need escaping: '~' sorts after every hex digit and '-'. */
	if (sqlite3_prepare_v2(db, "SELECT uuid FROM runs WHERE uuid >= ?1"
			       " AND uuid < ?1 || '~' ORDER BY uuid",
			       -1, &st, NULL) != SQLITE_OK)
		return il_errorf(-EIO, "looking up run '%s': %s", prefix,
				 sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, lo, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *u = sqlite3_column_text(st, 0);

		if (count < max && u)
			snprintf(out[count], 37, "%s", (const char *)u);
		count++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return il_errorf(-EIO, "looking up run '%s': %s", prefix,
				 sqlite3_errmsg(db));
	return count;
}
