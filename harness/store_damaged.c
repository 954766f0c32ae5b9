// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_damaged.c - the histogram checks of `idlelab db check`
 * (store_hist_check(), store_internal.h), and the runs they find damaged
 * (il_store_run_damaged(), store.h), which reports, export and merge
 * leave out instead of failing whole (issue 20, defect 10).
 *
 * A run is damaged when any of its summaries has a histogram that db check
 * would report: missing, of another layout, not decoding, or holding a
 * count or extremes that disagree with the summary.  The figures of a run
 * are all or nothing: a report that kept its other CPUs would count a
 * run that lost a part, so the whole run is left out.  Its rows are not
 * contiguous in any report's order, so the file's histograms are checked
 * once, on the first question, and the damaged runs kept, sorted, in the
 * handle until it closes.
 */
#include "store.h"
#include "err.h"
#include "grow.h"
#include "stats.h"
#include "store_internal.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void store_series_label(sqlite3_stmt *st, int col, char *buf, size_t len)
{
	int cpu2 = sqlite3_column_int(st, col + 3);
	int64_t grp = sqlite3_column_int64(st, col + 4);
	size_t n;

	n = (size_t)snprintf(buf, len, "%s cpu %d",
			     sqlite3_column_text(st, col + 1),
			     sqlite3_column_int(st, col + 2));
	if (cpu2 >= 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, "->%d", cpu2);
	if (grp >= 0 && n < len)
		snprintf(buf + n, len - n, " grp %" PRId64, grp);
}

int store_hist_check(sqlite3_stmt *st, int col,
		     void (*fn)(void *ctx, const char *msg), void *ctx)
{
	uint64_t count = (uint64_t)sqlite3_column_int64(st, col);
	struct il_hist *h = NULL;
	char msg[320];
	int n = 0;

	if (!sqlite3_column_int(st, col + 3)) {
		fn(ctx, "summary has no histogram");
		return 1;
	}
	if (sqlite3_column_int64(st, col + 4) != IL_HIST_LAYOUT) {
		snprintf(msg, sizeof(msg), "histogram layout %" PRId64 ", expected %d",
			 (int64_t)sqlite3_column_int64(st, col + 4), IL_HIST_LAYOUT);
		fn(ctx, msg);
		n++;
	}
	if (il_hist_decode(sqlite3_column_blob(st, col + 5),
			   (size_t)sqlite3_column_bytes(st, col + 5), &h)) {
		snprintf(msg, sizeof(msg), "histogram does not decode: %s",
			 il_errmsg());
		fn(ctx, msg);
		return n + 1;
	}
	if (il_hist_count(h) != count) {
		snprintf(msg, sizeof(msg), "histogram holds %" PRIu64 " samples, summary says %" PRIu64,
			 il_hist_count(h), count);
		fn(ctx, msg);
		n++;
	} else if (count) {
		/* The exact extremes lie in the histogram's end buckets,
		 * except a Max among samples dropped past it (a cyclictest
		 * overflow keeps cyclictest's own max). */
		uint64_t min = (uint64_t)sqlite3_column_int64(st, col + 1);
		uint64_t max = (uint64_t)sqlite3_column_int64(st, col + 2);
		bool over = sqlite3_column_int64(st, col + 6) > 0;

		if (min < il_hist_min(h) || (max > il_hist_max(h) && !over) ||
		    min > max) {
			snprintf(msg, sizeof(msg), "min %" PRIu64 " / max %" PRIu64 " outside the histogram's range %" PRIu64 "..%" PRIu64,
				 min, max, il_hist_min(h), il_hist_max(h));
			fn(ctx, msg);
			n++;
		}
	}
	il_hist_free(h);
	return n;
}

/* The first finding of a row, kept by the scan below. */
struct first {
	char msg[320];
	bool set;
};

static void keep_first(void *ctx, const char *msg)
{
	struct first *f = ctx;

	if (!f->set)
		snprintf(f->msg, sizeof(f->msg), "%s", msg);
	f->set = true;
}

/* Run @uuid's entry, appended for its first damaged summary. */
static int add_damaged(struct il_store *s, const char *uuid, const char *why)
{
	struct il_damaged_run *d;

	if (s->ndamaged && !strcmp(s->damaged[s->ndamaged - 1].uuid, uuid))
		return 0;	/* rows come by run: already named */
	if (IL_GROW(s->damaged, s->damaged_cap, s->ndamaged + 1, 8))
		return il_errorf(-ENOMEM, "out of memory");
	d = &s->damaged[s->ndamaged];
	d->uuid = strdup(uuid);
	d->why = strdup(why);
	d->left_out = false;
	if (!d->uuid || !d->why) {
		free(d->uuid);
		free(d->why);
		return il_errorf(-ENOMEM, "out of memory");
	}
	s->ndamaged++;
	return 0;
}

/* Every summary's histogram, once; run order, so a run's rows are together. */
static int scan(struct il_store *s)
{
	sqlite3_stmt *st;
	struct first f;
	char label[256], why[600];
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(s->db, STORE_HIST_SELECT " ORDER BY s.run_uuid, s.id",
				-1, &st, NULL);
	while (!ret && rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		f.set = false;
		if (!store_hist_check(st, 5, keep_first, &f))
			continue;
		store_series_label(st, 0, label, sizeof(label));
		snprintf(why, sizeof(why), "%s: %s", label, f.msg);
		ret = add_damaged(s, (const char *)sqlite3_column_text(st, 0), why);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = il_errorf(store_sql_errno(rc), "%s: checking the histograms: %s",
				s->path, sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	if (!ret)
		s->damaged_scanned = true;
	return ret;
}

void store_damaged_free(struct il_store *s)
{
	size_t i;

	for (i = 0; i < s->ndamaged; i++) {
		free(s->damaged[i].uuid);
		free(s->damaged[i].why);
	}
	free(s->damaged);
	s->damaged = NULL;
	s->ndamaged = 0;
	s->damaged_cap = 0;
	s->damaged_scanned = false;
}

int il_store_damaged_runs(struct il_store *s, const struct il_damaged_run **v,
			  size_t *n)
{
	int ret;

	if (!s->damaged_scanned) {
		store_damaged_free(s);
		ret = scan(s);
		if (ret) {
			store_damaged_free(s);
			return ret;
		}
	}
	*v = s->damaged;
	*n = s->ndamaged;
	return 0;
}

static int uuid_cmp(const void *key, const void *elt)
{
	return strcmp(key, ((const struct il_damaged_run *)elt)->uuid);
}

int il_store_run_damaged(struct il_store *s, const char *uuid)
{
	const struct il_damaged_run *v;
	struct il_damaged_run *d;
	size_t n;
	int ret;

	ret = il_store_damaged_runs(s, &v, &n);
	if (ret)
		return ret;
	/* SQLite's BINARY order of the scan is strcmp()'s. */
	d = n && uuid ? bsearch(uuid, s->damaged, n, sizeof(*d), uuid_cmp) : NULL;
	if (!d)
		return 0;
	d->left_out = true;
	return 1;
}
