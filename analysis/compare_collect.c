// SPDX-License-Identifier: GPL-2.0-only
/*
 * compare_collect.c - the runs of the A/B table (compare_collect.h), read
 * side by side from the dataset and reduced to the values the table
 * compares.
 *
 * Memory stays a few doubles per run and row (issue 23): the rows come
 * run by run (il_rows_foreach_by_run()), each run's histogram is merged
 * only while its rows arrive, reduced to the statistics the table shows
 * and freed, so at most two histograms are decoded at any time (the run
 * on one CPU, and the run over all its CPUs, kept for a key whose sides
 * measured different CPUs).  Holding every run's histogram decoded cost
 * about 0.5 MB a run: 1.15 GB at 1 000 runs against 1 000.
 *
 * A run's median and p99 are the exact order statistics of its raw
 * samples where every series the row takes kept them all (issue 22, item
 * 3): one series' stored values, or, for a run's CPUs merged, those of
 * the merged samples, read back (ab_raw.c) only for the runs of the rows
 * shown; a histogram's midpoint, clamped, otherwise.  Its Harrell-Davis
 * deciles likewise come from its samples where all are kept, and from its
 * histogram's bucket midpoints otherwise, which the row then says.
 */
#include "compare_collect.h"
#include "err.h"
#include "groups.h"
#include "grow.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The item whose rows are arriving now (key -1: none) with its histogram
 * merged so far, and where the items of the run arriving now start in
 * its key's list (indices: the arrays grow).
 */
struct open_item {
	int key, idx;
	int run_key, first;
	struct il_hist *hist;
};

struct collect {
	struct ab_keys *keys;
	int side;
	int nstats;		/* the statistics the table shows */
	struct open_item cpu, all;	/* per CPU label, and all CPUs */
	struct il_hist *empty;	/* the histogram of an item without one */
};

struct ab_item *ab_item_new(struct ab_items *s, const struct il_srow *r,
			    const char *cpu)
{
	struct ab_item *it;

	if (IL_GROW(s->v, s->cap, (size_t)s->n + 1, 16))
		return NULL;
	it = &s->v[s->n];
	memset(it, 0, sizeof(*it));
	it->run = strdup(r->run_uuid);
	snprintf(it->cpu, sizeof(it->cpu), "%s", cpu);
	il_summary_init(&it->sum);
	it->ref = r->is_ref;
	it->p50 = r->p50;
	it->p99 = r->p99;
	if (!it->run)
		return NULL;
	s->n++;
	return it;
}

int ab_item_count(struct ab_item *it, const struct il_srow *r)
{
	/* One series exact; several (another CPU in "all") are exact only
	 * from their samples merged, read if a row uses the run. */
	il_ab_exact_add(&it->exact, r->exact, r->p50, r->p99);
	il_summary_merge(&it->sum, &r->sum);
	if (it->exact.all_raw && !it->ref)
		return ab_raw_ids_add(&it->raw, r->raw_id);
	return 0;
}

static void items_free(struct ab_items *s)
{
	int i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].run);
		ab_raw_ids_free(&s->v[i].raw);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

struct ab_key *ab_key_get(struct ab_keys *k, const struct il_srow *r)
{
	char buf[256];
	struct ab_key *p;
	int i;

	snprintf(buf, sizeof(buf), "%s\x1f%s\x1f%010" PRId64, r->bench, r->metric, r->grp);
	for (i = k->n - 1; i >= 0; i--)
		if (!strcmp(k->v[i].key, buf))
			return &k->v[i];
	if (IL_GROW(k->v, k->cap, (size_t)k->n + 1, 16))
		return NULL;
	p = &k->v[k->n];
	memset(p, 0, sizeof(*p));
	p->key = strdup(buf);
	p->bench = strdup(r->bench);
	p->metric = strdup(r->metric);
	p->unit = strdup(r->unit);
	p->grp = r->grp;
	k->n++;
	if (!p->key || !p->bench || !p->metric || !p->unit)
		return NULL;
	return p;
}

double ab_run_value(const struct ab_item *it, const struct il_hist *h,
		    enum il_ab_stat st)
{
	if (it->ref)
		return st == IL_AB_MEDIAN ? (double)it->p50 :
		       st == IL_AB_P99 ? (double)it->p99 :
		       st == IL_AB_MEAN ? it->sum.mean : NAN;
	return il_ab_run_value(st, h, &it->sum, &it->exact);
}

/*
 * Reduce the open item of @o to its values.  A run's histogram over all
 * its CPUs is the sum of its per-CPU ones, so a per-CPU item hands its
 * histogram on to the open all-CPU item, which is the same run's (rows
 * of a run arrive together, per-CPU items close first), instead of every
 * row being merged twice: each merge and each new histogram touches
 * every bucket, the cost of a row.
 */
static int item_close(struct collect *c, struct open_item *o, bool all)
{
	struct il_hist *h = o->hist ? o->hist : c->empty;
	struct ab_key *k;
	struct ab_item *it;
	int st, ret = 0;

	if (o->key >= 0) {
		k = &c->keys->v[o->key];
		it = &(all ? k->all : k->side)[c->side].v[o->idx];
		for (st = 0; st < IL_AB_NALL; st++)
			it->val[st] = st < c->nstats ? ab_run_value(it, h, st) : NAN;
	}
	if (!all && o->key >= 0 && !c->all.hist) {
		c->all.hist = o->hist;
	} else {
		if (!all && o->key >= 0 && o->hist)
			ret = il_hist_merge(c->all.hist, o->hist);
		il_hist_free(o->hist);
	}
	o->hist = NULL;
	o->key = -1;
	return ret;
}

/*
 * Count @r in its item of the per-label list (@all: the list of runs
 * over all their CPUs, @cpu "all"): the open one when the same, else a
 * new one, after closing the open one.  A per-CPU item takes the row's
 * histogram as its own when it opens.
 */
static int item_add(struct collect *c, struct open_item *o, bool all,
		    int key, const struct il_srow *r, const char *cpu)
{
	struct ab_key *k = &c->keys->v[key];
	struct ab_items *s = &(all ? k->all : k->side)[c->side];
	struct ab_item *it = NULL;
	int i, ret;

	/* A new key, or a new run of it: the run's items start here. */
	if (o->run_key != key || strcmp(s->v[o->first].run, r->run_uuid)) {
		o->run_key = key;
		o->first = s->n;
	}
	for (i = s->n - 1; i >= o->first && !it; i--)
		if (!strcmp(s->v[i].cpu, cpu))
			it = &s->v[i];
	/* Reduced items cannot take more rows: the order must hold. */
	if (it && (o->key != key || it != &s->v[o->idx]))
		return il_errorf(-EIO, "compare: the rows of run %s arrived out of order",
				 r->run_uuid);
	if (!it) {
		ret = item_close(c, o, all);
		if (ret)
			return ret;
		it = ab_item_new(s, r, cpu);
		if (!it)
			return il_errorf(-ENOMEM, "out of memory");
		o->key = key;
		o->idx = s->n - 1;
		if (!all)
			o->hist = il_srow_take_hist(r);
	} else if (!all && r->hist) {
		if (!o->hist)
			o->hist = il_srow_take_hist(r);
		else if ((ret = il_hist_merge(o->hist, r->hist)))
			return ret;
	}
	return ab_item_count(it, r);
}

static int add(const struct il_srow *r, void *arg)
{
	struct collect *c = arg;
	struct ab_key *k;
	char cpu[32];
	int ret;

	if (r->is_ref && !r->hist)
		return 0;
	k = ab_key_get(c->keys, r);
	if (!k)
		return il_errorf(-ENOMEM, "out of memory");
	il_cpu_label(r->cpu, r->cpu2, cpu, sizeof(cpu));
	ret = item_add(c, &c->cpu, false, (int)(k - c->keys->v), r, cpu);
	return ret ? ret : item_add(c, &c->all, true, (int)(k - c->keys->v), r, "all");
}

int ab_key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ab_key *)a)->key, ((const struct ab_key *)b)->key);
}

void ab_keys_free(struct ab_keys *k)
{
	int i, j;

	for (i = 0; i < k->n; i++) {
		free(k->v[i].key);
		free(k->v[i].bench);
		free(k->v[i].metric);
		free(k->v[i].unit);
		for (j = 0; j < AB_MAX_SIDES; j++) {
			items_free(&k->v[i].side[j]);
			items_free(&k->v[i].all[j]);
		}
	}
	free(k->v);
}

/* Only the runs whose value the stored percentiles do not give. */
int ab_raw_values(struct il_store *db, struct ab_items *list, bool deciles)
{
	double hd[IL_AB_NDECILES];
	int i, d, ret;

	for (i = 0; i < list->n; i++) {
		struct ab_item *it = &list->v[i];

		if (it->ref || !it->exact.all_raw ||
		    (it->exact.nseries < 2 && !deciles))
			continue;
		ret = ab_raw_exact(db, &it->raw, &it->exact, deciles ? hd : NULL);
		if (ret)
			return ret;
		it->val[IL_AB_MEDIAN] = (double)it->exact.p50;
		it->val[IL_AB_P99] = (double)it->exact.p99;
		for (d = 0; deciles && d < IL_AB_NDECILES; d++)
			it->val[IL_AB_HD10 + d] = hd[d];
		it->hd_raw = deciles;
	}
	return 0;
}

int ab_collect(struct il_store *s, const struct il_analysis_opts *o,
	       struct ab_keys *keys)
{
	struct il_hist *empty = il_hist_new();
	int i, ret = 0;

	if (!empty)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; !ret && i < o->ncompare; i++) {
		struct collect c = {
			.keys = keys, .side = i, .empty = empty,
			.nstats = o->deciles ? IL_AB_NALL : IL_AB_NSTATS,
			.cpu = { .key = -1, .run_key = -1 },
			.all = { .key = -1, .run_key = -1 },
		};

		ret = il_rows_foreach_by_run(s, o->bench, o->compare[i], add, &c);
		/* The last run's items, or on error their histograms. */
		if (ret)
			c.cpu.key = c.all.key = -1;
		ret = item_close(&c, &c.cpu, false) ?: ret;
		ret = item_close(&c, &c.all, true) ?: ret;
	}
	il_hist_free(empty);
	if (!ret && keys->n)
		qsort(keys->v, keys->n, sizeof(*keys->v), ab_key_cmp);
	return ret;
}
