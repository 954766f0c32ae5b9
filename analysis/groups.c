// SPDX-License-Identifier: GPL-2.0-only
/*
 * groups.c - the summaries query shared by every report kind, and the
 * exact merge of rows into groups (see groups.h).  Reference rows
 * (machines.is_reference) carry only published statistics: their
 * histograms are placeholders, so their percentiles come from the stored
 * summary, and they never merge with measured rows (the key a kind builds
 * always holds the machine).
 */
#include "groups.h"
#include "bench.h"
#include "bench_registry.h"
#include "drops.h"
#include "err.h"
#include "machine_label.h"
#include "filter.h"
#include "store.h"
#include "store_sqlite.h"
#include "grow.h"
#include "progress.h"

#include <inttypes.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *txt(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : NULL;
}

static int64_t opt_i64(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

/*
 * Columns 1 to 31 of il_rows_foreach()'s query into @r, whose run_uuid
 * (column 0) is read already.  Return: 0, or il_hist_decode()'s error.
 */
static int read_row(sqlite3_stmt *st, struct il_srow *r)
{
	double sd = sqlite3_column_double(st, 16);
	const void *blob = sqlite3_column_blob(st, 22);
	int ret;

	r->machine_uuid = txt(st, 1);
	r->host = txt(st, 2);
	r->is_ref = sqlite3_column_int(st, 3);
	r->source = txt(st, 4);
	r->bench = txt(st, 5);
	r->params = txt(st, 6);
	r->metric = txt(st, 7);
	r->unit = txt(st, 8);
	r->cpu = sqlite3_column_int(st, 9);
	r->cpu2 = sqlite3_column_int(st, 10);
	r->grp = sqlite3_column_int64(st, 11);
	il_summary_init(&r->sum);
	r->sum.count = (uint64_t)sqlite3_column_int64(st, 12);
	if (r->sum.count) {
		r->sum.min = (uint64_t)sqlite3_column_int64(st, 13);
		r->sum.max = (uint64_t)sqlite3_column_int64(st, 14);
		r->sum.mean = sqlite3_column_double(st, 15);
		r->sum.m2 = r->sum.count > 1 ? sd * sd * (double)(r->sum.count - 1) : 0;
	}
	r->sum.dropped = (uint64_t)sqlite3_column_int64(st, 17);
	r->sum.early = (uint64_t)sqlite3_column_int64(st, 18);
	r->raw_id = opt_i64(st, 28);
	r->exact = r->raw_id >= 0;
	il_drop_read(st, 29, &r->sum);
	r->p50 = opt_i64(st, 19);
	r->p99 = opt_i64(st, 20);
	r->p999 = opt_i64(st, 21);
	/* The damaged-run check decoded it already: it decodes. */
	if (blob) {
		ret = il_hist_decode(blob, (size_t)sqlite3_column_bytes(st, 22), &r->hist);
		if (ret)
			return ret;
	}
	r->idle_state = txt(st, 23);
	r->wake_source = txt(st, 24);
	r->envctl = txt(st, 25);
	r->mode = txt(st, 26);
	r->hw_state = txt(st, 27);
	return 0;
}

/* The two orders of il_rows_foreach() and il_rows_foreach_by_run(). */
static const char *const order_by[] = {
	" ORDER BY m.hostname, m.uuid, r.bench, s.metric, s.grp, s.cpu, s.cpu2,"
	" r.start_ns, r.uuid",
	" ORDER BY r.bench, s.metric, s.grp, m.hostname, m.uuid, r.start_ns,"
	" r.uuid, s.cpu, s.cpu2",
};

static int rows_foreach(struct il_store *s, const char *bench,
			const struct il_filter *filter, const char *tail,
			int (*fn)(const struct il_srow *r, void *arg), void *arg)
{
	static const char head[] =
		"SELECT r.uuid, m.uuid, " IL_MACHINE_LABEL_M ", m.is_reference, coalesce(m.source, ''),"
		" r.bench, r.params, s.metric, s.unit, s.cpu, s.cpu2, s.grp,"
		" s.count, s.min, s.max, s.mean, s.stddev, s.dropped, s.early,"
		" s.p50, s.p99, s.p999, h.blob,"
		" (SELECT a.value FROM run_attrs a WHERE a.run_uuid = r.uuid AND a.key = 'idle_state'"
		"  AND a.cpu IN (-1, s.cpu) ORDER BY a.cpu DESC LIMIT 1),"
		" (SELECT a.value FROM run_attrs a WHERE a.run_uuid = r.uuid AND a.key = 'wake_source'"
		"  AND a.cpu IN (-1, s.cpu) ORDER BY a.cpu DESC LIMIT 1),"
		" (SELECT a.value FROM run_attrs a WHERE a.run_uuid = r.uuid AND a.key = 'envctl'"
		"  AND a.cpu = s.cpu LIMIT 1),"
		" coalesce(CAST(json_extract(r.params, '$.mode') AS TEXT), ''),"
		" (SELECT a.value FROM run_attrs a WHERE a.run_uuid = r.uuid AND a.key = 'hw_state'"
		"  AND a.cpu IN (-1, s.cpu) ORDER BY a.cpu DESC LIMIT 1),"
		" (SELECT x.summary_id FROM raw_samples x WHERE x.summary_id = s.id"
		"  AND x.count = s.count), ";
	/* Then the drop reasons (drops.h), columns 29 to 33. */
	static const char from[] =
		" FROM summaries s JOIN runs r ON r.uuid = s.run_uuid"
		" JOIN machines m ON m.uuid = r.machine_uuid"
		" LEFT JOIN histograms h ON h.summary_id = s.id"
		" WHERE r.status = 'ok' AND (? IS NULL OR r.bench = ?)";
	sqlite3 *db = il_store_db(s);
	char cond[4096], cols[IL_DROP_COLS_LEN], *sql;
	sqlite3_stmt *st;
	struct il_srow r;
	uint64_t nread = 0;
	int rc, ret;

	ret = il_filter_sql(filter, cond, sizeof(cond));
	if (ret)
		return ret;
	if (asprintf(&sql, "%s%s%s%s%s", head, il_drop_cols(s, "s.", cols, sizeof(cols)),
		     from, cond, tail) < 0)
		return il_errorf(-ENOMEM, "out of memory");
	ret = il_filter_prepare(db, sql, bench, filter, &st);
	if (ret)
		return ret;
	ret = 0;
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&r, 0, sizeof(r));
		r.run_uuid = txt(st, 0);
		/* A damaged run is left out whole (store_damaged.c). */
		ret = il_store_run_damaged(s, r.run_uuid);
		if (ret) {
			ret = ret < 0 ? ret : 0;
			continue;
		}
		ret = read_row(st, &r);
		if (ret)
			break;
		ret = fn(&r, arg);
		il_hist_free(r.hist);
		il_progress_count(++nread, "rows read");
	}
	if (!ret && rc != SQLITE_DONE)
		ret = il_errorf(-EIO, "report query failed: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return ret;
}

int il_rows_foreach(struct il_store *s, const char *bench,
		    const struct il_filter *filter,
		    int (*fn)(const struct il_srow *r, void *arg), void *arg)
{
	return rows_foreach(s, bench, filter, order_by[0], fn, arg);
}

int il_rows_foreach_by_run(struct il_store *s, const char *bench,
			   const struct il_filter *filter,
			   int (*fn)(const struct il_srow *r, void *arg),
			   void *arg)
{
	return rows_foreach(s, bench, filter, order_by[1], fn, arg);
}

struct il_hist *il_srow_take_hist(const struct il_srow *r)
{
	/* The row is the loop's own non-const local: taking is allowed. */
	struct il_srow *w = (struct il_srow *)r;
	struct il_hist *h = w->hist;

	w->hist = NULL;
	return h;
}

int il_grps_add(struct il_grps *g, const char *key, const char *const *labels,
		const struct il_srow *r)
{
	struct il_grp *p = NULL;
	int i;

	/* Rows arrive sorted, so the group is nearly always the last one. */
	for (i = g->n - 1; i >= 0; i--)
		if (!strcmp(g->v[i].key, key)) {
			p = &g->v[i];
			break;
		}
	if (!p) {
		if (IL_GROW(g->v, g->cap, (size_t)g->n + 1, 32))
			return il_errorf(-ENOMEM, "out of memory");
		p = &g->v[g->n++];
		memset(p, 0, sizeof(*p));
		p->key = strdup(key);
		for (i = 0; i < 6 && labels[i]; i++)
			p->label[i] = strdup(labels[i]);
		for (; i < 6; i++)
			p->label[i] = strdup("");
		p->hist = il_hist_new();
		il_summary_init(&p->sum);
		p->ref = r->is_ref;
		p->p50 = r->p50;
		p->p99 = r->p99;
		p->p999 = r->p999;
		if (!p->key || !p->hist)
			return il_errorf(-ENOMEM, "out of memory");
	} else if (p->ref) {
		/* Published figures cannot be merged: keep the first. */
		return 0;
	}
	p->runs++;
	il_summary_merge(&p->sum, &r->sum);
	if (r->hist)
		return il_hist_merge(p->hist, r->hist);
	return 0;
}

static int grp_cmp(const void *a, const void *b)
{
	return strcmp(((const struct il_grp *)a)->key, ((const struct il_grp *)b)->key);
}

void il_grps_sort(struct il_grps *g)
{
	if (g->n)
		qsort(g->v, g->n, sizeof(*g->v), grp_cmp);
}

void il_grps_free(struct il_grps *g)
{
	int i, j;

	for (i = 0; i < g->n; i++) {
		free(g->v[i].key);
		for (j = 0; j < 6; j++)
			free(g->v[i].label[j]);
		il_hist_free(g->v[i].hist);
	}
	free(g->v);
	memset(g, 0, sizeof(*g));
}

void il_fmt_u64(char *buf, size_t len, int64_t v)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%" PRId64, v);
}

void il_fmt_f1(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.1f", v);
}

int64_t il_grp_pct(const struct il_grp *g, double p)
{
	if (g->ref)
		return p == 50 ? g->p50 : p == 99 ? g->p99 : p == 99.9 ? g->p999 : -1;
	if (!il_hist_count(g->hist))
		return -1;
	/* A tail with fewer than 10 samples beyond it is the max renamed. */
	if (p > 50 && !il_tail_estimable(il_hist_count(g->hist), p))
		return -1;
	return (int64_t)il_hist_percentile_in(g->hist, p, g->sum.min, g->sum.max);
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One JSON value as the text a reader would type after "key=". */
static void value_text(const json_t *v, char *buf, size_t len)
{
	size_t used = 0, i;

	buf[0] = '\0';
	if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
	} else if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	} else if (json_is_boolean(v)) {
		snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
	} else if (json_is_array(v)) {
		for (i = 0; i < json_array_size(v) && used + 1 < len; i++) {
			char one[64];

			value_text(json_array_get(v, i), one, sizeof(one));
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 i ? "," : "", one);
		}
	} else {
		char *d = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

		snprintf(buf, len, "%s", d ? d : "?");
		free(d);
	}
}

int il_params_label(const char *bench, const char *params, int flags,
		    char *buf, size_t len)
{
	const struct il_bench_ops *ops = bench ? il_bench_find(bench) : NULL;
	const char **keys = NULL;
	size_t n = 0, i, used = 0;
	const char *k;
	json_t *root, *v;

	buf[0] = '\0';
	root = params ? json_loads(params, 0, NULL) : NULL;
	if (!json_is_object(root)) {
		json_decref(root);
		return il_errorf(-EINVAL, "stored parameters are not a JSON object: %s",
				 params ? params : "(null)");
	}
	keys = calloc(json_object_size(root) + 1, sizeof(*keys));
	if (!keys) {
		json_decref(root);
		return il_errorf(-ENOMEM, "out of memory");
	}
	json_object_foreach(root, k, v) {
		const struct il_opt *o = ops ? il_opts_find(ops->opts, k) : NULL;

		if (o && (o->scale ||
			  (o->type == IL_OPT_LIST && (flags & IL_PARAMS_DROP_LISTS))))
			continue;
		keys[n++] = k;
	}
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (i = 0; i < n && used + 1 < len; i++) {
		char val[256];

		value_text(json_object_get(root, keys[i]), val, sizeof(val));
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%s",
					 i ? " " : "", keys[i], val);
	}
	free(keys);
	json_decref(root);
	return 0;
}

void il_cpu_label(int cpu, int cpu2, char *buf, size_t len)
{
	if (cpu < 0)
		snprintf(buf, len, "-");
	else if (cpu2 >= 0)
		snprintf(buf, len, "%d->%d", cpu, cpu2);
	else
		snprintf(buf, len, "%d", cpu);
}
