// SPDX-License-Identifier: GPL-2.0-only
/*
 * report_rows.c - building the results table's rows (report_rows.h): each
 * stored summary back into its running form, merged exactly with the
 * others of its row (counts, min and max, Chan's mean and variance, the
 * histograms), the range of the runs' own medians, and the Config column.
 */
#include "report_rows.h"
#include "err.h"
#include "grow.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One more run's median into @r's range. */
static void note_run_median(struct row *r, const struct il_hist *h,
			    const struct il_summary *sum)
{
	uint64_t m;

	if (!h || !sum->count)
		return;
	m = il_hist_percentile_in(h, 50, sum->min, sum->max);
	if (!r->nmed++ || m < r->med_lo)
		r->med_lo = m;
	if (r->nmed == 1 || m > r->med_hi)
		r->med_hi = m;
}

static char *dup_col(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return strdup(t ? (const char *)t : "");
}

static int same_key(const struct row *r, sqlite3_stmt *st)
{
	return !strcmp(r->host, (const char *)sqlite3_column_text(st, 0)) &&
	       !strcmp(r->bench, (const char *)sqlite3_column_text(st, 1)) &&
	       !strcmp(r->params, (const char *)sqlite3_column_text(st, 2)) &&
	       !strcmp(r->metric, (const char *)sqlite3_column_text(st, 3)) &&
	       !strcmp(r->unit, (const char *)sqlite3_column_text(st, 4)) &&
	       r->cpu == sqlite3_column_int(st, 5) &&
	       r->cpu2 == sqlite3_column_int(st, 6) &&
	       r->grp == sqlite3_column_int64(st, 7);
}

/* A stored summary back into the running form, so it can be merged. */
static void stored_summary(sqlite3_stmt *st, struct il_summary *s)
{
	double sd = sqlite3_column_double(st, 12);

	il_summary_init(s);
	s->count = (uint64_t)sqlite3_column_int64(st, 8);
	if (s->count) {
		s->min = (uint64_t)sqlite3_column_int64(st, 9);
		s->max = (uint64_t)sqlite3_column_int64(st, 10);
		s->mean = sqlite3_column_double(st, 11);
		s->m2 = s->count > 1 ? sd * sd * (double)(s->count - 1) : 0;
	}
	s->dropped = (uint64_t)sqlite3_column_int64(st, 13);
	s->early = (uint64_t)sqlite3_column_int64(st, 14);
	il_drop_read(st, 17, s);
}

int report_rows_add(struct il_store *s, struct rows *rows, sqlite3_stmt *st)
{
	const void *blob = sqlite3_column_blob(st, 15);
	int len = sqlite3_column_bytes(st, 15);
	struct il_summary sum;
	struct il_hist *h = NULL;
	struct row *r;
	int ret;

	/* A damaged run is left out whole (store_damaged.c). */
	ret = il_store_run_damaged(s, (const char *)sqlite3_column_text(st, 16));
	if (ret)
		return ret < 0 ? ret : 0;
	if (blob) {
		ret = il_hist_decode(blob, (size_t)len, &h);
		if (ret)
			return ret;
	}
	stored_summary(st, &sum);
	if (rows->n && same_key(&rows->v[rows->n - 1], st)) {
		r = &rows->v[rows->n - 1];
		r->exact = false;	/* pooled: the histograms' turn */
		note_run_median(r, h, &sum);
		il_summary_merge(&r->sum, &sum);
		if (h) {
			ret = il_hist_merge(r->hist, h);
			il_hist_free(h);
			if (ret)
				return ret;
		}
		r->runs++;
		return 0;
	}
	if (IL_GROW(rows->v, rows->cap, (size_t)rows->n + 1, 64)) {
		il_hist_free(h);
		return il_errorf(-ENOMEM, "out of memory");
	}
	r = &rows->v[rows->n++];
	memset(r, 0, sizeof(*r));
	r->host = dup_col(st, 0);
	r->bench = dup_col(st, 1);
	r->params = dup_col(st, 2);
	r->metric = dup_col(st, 3);
	r->unit = dup_col(st, 4);
	r->cpu = sqlite3_column_int(st, 5);
	r->cpu2 = sqlite3_column_int(st, 6);
	r->grp = sqlite3_column_int64(st, 7);
	r->runs = 1;
	r->sum = sum;
	r->exact = sum.count && sqlite3_column_int(st, COL_STORED_P + 3) &&
		   sqlite3_column_type(st, COL_STORED_P) != SQLITE_NULL &&
		   sqlite3_column_type(st, COL_STORED_P + 1) != SQLITE_NULL &&
		   sqlite3_column_type(st, COL_STORED_P + 2) != SQLITE_NULL;
	r->p50 = (uint64_t)sqlite3_column_int64(st, COL_STORED_P);
	r->p99 = (uint64_t)sqlite3_column_int64(st, COL_STORED_P + 1);
	r->p999 = (uint64_t)sqlite3_column_int64(st, COL_STORED_P + 2);
	note_run_median(r, h, &sum);
	r->hist = h ? h : il_hist_new();
	return r->hist ? 0 : il_errorf(-ENOMEM, "out of memory");
}

void report_rows_free(struct rows *rows)
{
	int i;

	for (i = 0; i < rows->n; i++) {
		free(rows->v[i].host);
		free(rows->v[i].bench);
		free(rows->v[i].params);
		free(rows->v[i].config);
		free(rows->v[i].metric);
		free(rows->v[i].unit);
		il_hist_free(rows->v[i].hist);
	}
	free(rows->v);
}

/* Config: the parameters whose value differs between rows of a benchmark. */
void report_rows_configs(struct rows *rows)
{
	int i, j;

	for (i = 0; i < rows->n; i++) {
		json_t *pi = json_loads(rows->v[i].params, 0, NULL), *v;
		char buf[256] = "";
		const char *key;
		size_t used = 0;

		json_object_foreach(pi, key, v) {
			int varies = 0;
			char *vs;

			for (j = 0; j < rows->n && !varies; j++) {
				json_t *pj, *w;

				if (strcmp(rows->v[j].bench, rows->v[i].bench))
					continue;
				pj = json_loads(rows->v[j].params, 0, NULL);
				w = json_object_get(pj, key);
				varies = !w || !json_equal(v, w);
				json_decref(pj);
			}
			if (!varies)
				continue;
			vs = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
			if (vs && used < sizeof(buf))
				used += snprintf(buf + used, sizeof(buf) - used, "%s%s=%s",
						 used ? " " : "", key, vs);
			free(vs);
		}
		json_decref(pi);
		rows->v[i].config = strdup(buf);
	}
}
