// SPDX-License-Identifier: GPL-2.0-only
/*
 * states_entered.c - the rows `report --kind states` adds for --causes
 * runs: wake latency by the idle state the CPU really entered before each
 * wake (schemas/005_causes.sql's cause_states, from power:cpu_idle), not
 * by the states the campaign left enabled.  The histograms of every run
 * and CPU of one machine, benchmark, metric and state merge exactly, as
 * the rest of the table's do.  Such a row's idle state reads "C1
 * (entered)"; where the kernel has no cpuidle driver it reads "no cpuidle
 * driver: state unknown".
 */
#include "analysis.h"
#include "bench.h"
#include "err.h"
#include "machine_label.h"
#include "groups.h"
#include "stats.h"
#include "store.h"
#include "store_sqlite.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entered {
	char key[512];
	char host[128], bench[64], metric[64], state[96], unit[16];
	struct il_summary sum;
	struct il_hist *hist;
};

static struct entered *find(struct entered **v, int *n, const char *key)
{
	struct entered *x;
	int i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*v)[i].key, key))
			return &(*v)[i];
	x = realloc(*v, (size_t)(*n + 1) * sizeof(*x));
	if (!x)
		return NULL;
	*v = x;
	x = &x[(*n)++];
	memset(x, 0, sizeof(*x));
	snprintf(x->key, sizeof(x->key), "%s", key);
	il_summary_init(&x->sum);
	x->hist = il_hist_new();
	return x->hist ? x : NULL;
}

/* Merge one stored row's exact summary into @d (Chan et al.'s update). */
static void merge_sum(struct il_summary *d, uint64_t n, uint64_t mn,
		      uint64_t mx, double mean, double sd)
{
	struct il_summary s;

	il_summary_init(&s);
	s.count = n;
	s.min = mn;
	s.max = mx;
	s.mean = mean;
	s.m2 = sd * sd * (double)(n > 1 ? n - 1 : 0);
	il_summary_merge(d, &s);
}

int il_states_entered(struct il_store *s, const struct il_analysis_opts *o,
		      struct il_table *t)
{
	static const char sql[] =
		"SELECT " IL_MACHINE_LABEL_M ", m.uuid, r.bench, c.metric, c.state_name, c.unit,"
		" c.count, c.min, c.max, c.mean, c.stddev, c.hist FROM cause_states c"
		" JOIN runs r ON r.uuid = c.run_uuid JOIN machines m ON m.uuid = r.machine_uuid"
		" WHERE (?1 IS NULL OR r.bench = ?1)"
		" ORDER BY m.hostname, r.bench, c.metric, c.state_name";
	sqlite3 *db = il_store_db(s);
	struct entered *v = NULL, *e;
	struct il_hist *h;
	sqlite3_stmt *st;
	char key[512];
	int n = 0, i, rc, ret = 0;

	if (!il_causes_tables(s))
		return 0;	/* an older schema, opened read-only */
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return il_errorf(-EIO, "states query failed: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, o->bench, -1, SQLITE_STATIC);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *c[6];

		for (i = 0; i < 6; i++)
			c[i] = (const char *)sqlite3_column_text(st, i);
		snprintf(key, sizeof(key), "%s\x1f%s\x1f%s\x1f%s\x1f%s", c[1], c[2],
			 c[3], c[4], c[5]);
		e = find(&v, &n, key);
		if (!e) {
			ret = il_errorf(-ENOMEM, "out of memory");
			break;
		}
		snprintf(e->host, sizeof(e->host), "%s", c[0]);
		snprintf(e->bench, sizeof(e->bench), "%s", c[2]);
		snprintf(e->metric, sizeof(e->metric), "%s", c[3]);
		/* Only a state power:cpu_idle named was entered; the
		 * "state unknown" rows (no driver, a lean capture) and
		 * "not idle" are printed as they are. */
		snprintf(e->state, sizeof(e->state),
			 strstr(c[4], "state unknown") ||
			 !strcmp(c[4], "not idle") ? "%s" : "%s (entered)", c[4]);
		snprintf(e->unit, sizeof(e->unit), "%s", c[5]);
		merge_sum(&e->sum, (uint64_t)sqlite3_column_int64(st, 6),
			  (uint64_t)sqlite3_column_int64(st, 7),
			  (uint64_t)sqlite3_column_int64(st, 8),
			  sqlite3_column_double(st, 9), sqlite3_column_double(st, 10));
		ret = il_hist_decode(sqlite3_column_blob(st, 11),
				     (size_t)sqlite3_column_bytes(st, 11), &h);
		if (ret) {
			ret = il_errorf(ret, "a cause_states histogram is unreadable");
			break;
		}
		ret = il_hist_merge(e->hist, h);
		il_hist_free(h);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = il_errorf(-EIO, "states query failed: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	for (i = 0; !ret && i < n; i++) {
		const struct il_bench_report *br = il_bench_report_of(v[i].bench);
		char cnt[24], mn[24], mx[24], med[24], avg[24], sd[24], p99[24], p999[24];

		il_fmt_u64(cnt, sizeof(cnt), (int64_t)v[i].sum.count);
		il_fmt_u64(mn, sizeof(mn), (int64_t)v[i].sum.min);
		il_fmt_u64(mx, sizeof(mx), (int64_t)v[i].sum.max);
		il_fmt_u64(med, sizeof(med), (int64_t)il_hist_percentile_in(v[i].hist, 50, v[i].sum.min, v[i].sum.max));
		il_fmt_f1(avg, sizeof(avg), v[i].sum.mean);
		il_fmt_f1(sd, sizeof(sd), il_summary_stddev(&v[i].sum));
		il_fmt_u64(p99, sizeof(p99), il_tail_estimable(v[i].sum.count, 99) ?
			   (int64_t)il_hist_percentile_in(v[i].hist, 99, v[i].sum.min, v[i].sum.max) : -1);
		il_fmt_u64(p999, sizeof(p999), il_tail_estimable(v[i].sum.count, 99.9) ?
			   (int64_t)il_hist_percentile_in(v[i].hist, 99.9, v[i].sum.min, v[i].sum.max) : -1);
		ret = il_table_add(t, (const char *const[]){ v[i].host, v[i].bench,
			v[i].metric, v[i].state, br && br->wake_source ?
			br->wake_source : "-", v[i].unit, cnt, mn, mx, med, avg, sd,
			p99, p999 });
	}
	if (!ret && n)
		ret = il_table_note(t, "Rows whose idle state reads \"(entered)\" group the samples of --causes runs by the state power:cpu_idle says the CPU entered inside each sample's window, whatever states were enabled; \"not idle\": the CPU did not idle in it.");
	for (i = 0; i < n; i++)
		il_hist_free(v[i].hist);
	free(v);
	return ret;
}
