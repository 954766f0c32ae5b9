// SPDX-License-Identifier: GPL-2.0-only
/*
 * drops.c - reading and wording the drop reasons (drops.h), one home for
 * the results table, the export and the grouped reports.
 */
#include "drops.h"
#include "store.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Schema 4 (004_drop_reasons.sql) brought the columns. */
#define DROPS_SCHEMA	4

const char *il_drop_cols(struct il_store *s, const char *prefix, char *buf,
			 size_t len)
{
	int v = il_store_schema_version(s);
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < IL_DROP_NREASONS && used < len; i++) {
		const char *name = il_drop_reason_name(i);
		const char *sep = i ? ", " : "";

		if (v < DROPS_SCHEMA)
			used += (size_t)snprintf(buf + used, len - used,
						 "%sNULL AS dropped_%s", sep, name);
		else if (v >= IL_SCHEMA_SLEPT ||
			 (i != IL_DROP_RACE && i != IL_DROP_SLEPT))
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%sdropped_%s AS dropped_%s",
						 sep, prefix, name, name);
		else
			/* Schema 4 to 6 counted slept calls as race. */
			used += (size_t)snprintf(buf + used, len - used,
						 i == IL_DROP_RACE ?
						 "%3$s%1$sdropped_race - " IL_SLEPT_V4_FMT " AS dropped_race" :
						 "%3$s" IL_SLEPT_V4_FMT " AS dropped_slept",
						 prefix, "", sep);
	}
	return buf;
}

void il_drop_read(sqlite3_stmt *st, int col, struct il_summary *sum)
{
	int i;

	memset(sum->drop, 0, sizeof(sum->drop));
	sum->drop_split = true;
	for (i = 0; i < IL_DROP_NREASONS; i++) {
		if (sqlite3_column_type(st, col + i) == SQLITE_NULL)
			/* Before schema 4: a total of 0 still splits. */
			sum->drop_split = sum->drop_split && !sum->dropped;
		else
			sum->drop[i] = (uint64_t)sqlite3_column_int64(st, col + i);
	}
}

const char *il_drop_text(const struct il_summary *sum, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	if (!sum->drop_split) {
		snprintf(buf, len, "not recorded (stored before schema 4)");
		return buf;
	}
	buf[0] = '\0';
	for (i = 0; i < IL_DROP_NREASONS && used < len; i++)
		if (sum->drop[i])
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%s %" PRIu64, used ? ", " : "",
						 il_drop_reason_name(i),
						 sum->drop[i]);
	if (!used)
		snprintf(buf, len, "none");
	return buf;
}
