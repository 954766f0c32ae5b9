// SPDX-License-Identifier: GPL-2.0-only
/*
 * ab_raw.c - a run's raw samples, read back for the A/B table's exact
 * values (ab_raw.h).  A BLOB is little-endian u64 values (layout 1) or
 * (t_ns, value) pairs (layout 2, schemas/001_init.sql); only the values
 * count here.  The samples of one run are read, reduced to the few
 * values the table shows and freed, so the A/B kinds' memory stays what
 * issue 23 bounded it to, plus one run's samples at a time.
 */
#include "ab_raw.h"
#include "err.h"
#include "grow.h"
#include "store_sqlite.h"

#include <endian.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

int ab_raw_ids_add(struct ab_raw_ids *ids, int64_t id)
{
	if (IL_GROW(ids->v, ids->cap, (size_t)ids->n + 1, 4))
		return il_errorf(-ENOMEM, "out of memory");
	ids->v[ids->n++] = id;
	return 0;
}

void ab_raw_ids_free(struct ab_raw_ids *ids)
{
	free(ids->v);
	memset(ids, 0, sizeof(*ids));
}

/* Append the values of the row @st stands on to @v (@n of @cap). */
static int append_row(sqlite3_stmt *st, int64_t id, uint64_t **v, size_t *n,
		      size_t *cap)
{
	int layout = sqlite3_column_int(st, 0);
	int64_t count = sqlite3_column_int64(st, 1);
	const unsigned char *blob = sqlite3_column_blob(st, 2);
	size_t len = (size_t)sqlite3_column_bytes(st, 2), k;

	if ((layout != 1 && layout != 2) || count < 0 ||
	    len != (size_t)count * 8 * (size_t)layout || (count && !blob))
		return il_errorf(-EIO, "raw samples of summary %lld: a BLOB of %zu bytes for %lld samples, layout %d",
				 (long long)id, len, (long long)count, layout);
	if (IL_GROW(*v, *cap, *n + (size_t)count, 1024))
		return il_errorf(-ENOMEM, "out of memory for %lld raw samples",
				 (long long)count);
	for (k = 0; k < (size_t)count; k++) {
		uint64_t w;

		/* The value is the last word of a sample. */
		memcpy(&w, blob + (k * (size_t)layout + (size_t)layout - 1) * 8,
		       sizeof(w));
		(*v)[(*n)++] = le64toh(w);
	}
	return 0;
}

int ab_raw_exact(struct il_store *s, const struct ab_raw_ids *ids,
		 struct il_ab_exact *e, double *hd)
{
	sqlite3 *db = il_store_db(s);
	sqlite3_stmt *st = NULL;
	uint64_t *v = NULL;
	size_t n = 0, cap = 0;
	int i, rc, ret = 0;

	if (sqlite3_prepare_v2(db, "SELECT layout, count, blob FROM raw_samples WHERE summary_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return il_errorf(-EIO, "reading raw samples: %s", sqlite3_errmsg(db));
	for (i = 0; !ret && i < ids->n; i++) {
		sqlite3_bind_int64(st, 1, ids->v[i]);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			ret = append_row(st, ids->v[i], &v, &n, &cap);
		else
			ret = il_errorf(-EIO, "raw samples of summary %lld: %s",
					(long long)ids->v[i],
					rc == SQLITE_DONE ? "none stored" : sqlite3_errmsg(db));
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (!ret)
		il_ab_exact_set(e, v, n, hd);
	free(v);
	return ret;
}
