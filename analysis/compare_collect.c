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
 * about 0.5 MB a run: 1.15 GB at 1 000 runs against 1 000.  What stays of
 * a run is its values and a few words (struct ab_item, 32 bytes): its
 * summary, UUID and exact percentiles are only held while it is open
 * (struct ab_acc); keeping them in every item cost 1 KB a run.
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
 * The item whose rows are arriving now (key -1: none): its label, what
 * its rows add up to so far with their histogram merged, the run it is
 * of, and where the items of that run start in its key's list (indices:
 * the arrays grow).
 */
struct open_item {
	int key, cpu;
	int run_key, first;
	char *run;
	size_t run_cap;
	struct ab_acc acc;
	struct il_hist *hist;
};

struct collect {
	struct ab_keys *keys;
	int side;
	int nstats;		/* the statistics the table shows */
	struct open_item cpu, all;	/* per CPU label, and all CPUs */
	struct il_hist *empty;	/* the histogram of an item without one */
};

int ab_label_get(struct ab_key *k, const char *cpu)
{
	int i;

	for (i = k->labels.n - 1; i >= 0; i--)
		if (!strcmp(k->labels.v[i], cpu))
			return i;
	if (k->labels.n > UINT16_MAX ||
	    IL_GROW(k->labels.v, k->labels.cap, (size_t)k->labels.n + 1, 8))
		return -ENOMEM;
	snprintf(k->labels.v[k->labels.n], sizeof(k->labels.v[0]), "%s", cpu);
	return k->labels.n++;
}

void ab_acc_start(struct ab_acc *a, const struct il_srow *r)
{
	struct ab_raw_ids raw = a->raw;

	memset(a, 0, sizeof(*a));
	raw.n = 0;
	a->raw = raw;
	il_summary_init(&a->sum);
	a->ref = r->is_ref;
	a->p50 = r->p50;
	a->p99 = r->p99;
}

int ab_acc_count(struct ab_acc *a, const struct il_srow *r)
{
	/* One series exact; several (another CPU in "all") are exact only
	 * from their samples merged, read if a row uses the run. */
	il_ab_exact_add(&a->exact, r->exact, r->p50, r->p99);
	il_summary_merge(&a->sum, &r->sum);
	if (a->exact.all_raw && !a->ref)
		return ab_raw_ids_add(&a->raw, r->raw_id);
	return 0;
}

static double run_value(const struct ab_acc *a, const struct il_hist *h,
			enum il_ab_stat st)
{
	if (a->ref)
		return st == IL_AB_MEDIAN ? (double)a->p50 :
		       st == IL_AB_P99 ? (double)a->p99 :
		       st == IL_AB_MEAN ? a->sum.mean : NAN;
	return il_ab_run_value(st, h, &a->sum, &a->exact);
}

/*
 * The values of an item whose median, p99 and deciles ab_raw_values()
 * reads from its raw samples, if a row uses it, are not worked out of
 * its histogram here, only to be replaced: they stand as they would
 * where the samples read are none, the stored p50 and p99 (the last
 * series') and no deciles.  The deciles of the histogram were the most
 * of --deciles' time.
 */
int ab_item_put(struct ab_items *s, int cpu, const struct ab_acc *a,
		const struct il_hist *h)
{
	bool deciles = s->nval > IL_AB_NSTATS;
	struct ab_item *it;
	double *val;
	int st;

	if (IL_GROW(s->v, s->cap, (size_t)s->n + 1, 16) ||
	    IL_GROW(s->val, s->vcap, ((size_t)s->n + 1) * s->nval, 64))
		return il_errorf(-ENOMEM, "out of memory");
	it = &s->v[s->n];
	memset(it, 0, sizeof(*it));
	it->cpu = (uint16_t)cpu;
	it->ref = a->ref;
	it->count = a->sum.count;
	it->dropped = a->sum.dropped;
	it->merged = a->exact.nseries > 1;
	it->raw = !a->ref && a->exact.all_raw && (it->merged || deciles);
	val = &s->val[(size_t)s->n * s->nval];
	for (st = 0; st < IL_AB_NSTATS; st++)
		val[st] = !it->raw ? run_value(a, h, st) :
			  st == IL_AB_MEDIAN ? (double)a->exact.p50 :
			  st == IL_AB_P99 ? (double)a->exact.p99 :
			  run_value(a, h, st);
	for (st = IL_AB_HD10; st < s->nval; st++)
		val[st] = NAN;
	/* The nine deciles in one pass over the histogram, not nine. */
	if (deciles && !it->raw && !a->ref)
		il_ab_hd_deciles(h, &val[IL_AB_HD10]);
	if (it->raw) {
		if (s->ids.n > INT32_MAX - a->raw.n)
			return il_errorf(-ENOMEM, "out of memory");
		it->raw_off = (uint32_t)s->ids.n;
		it->raw_n = (uint32_t)a->raw.n;
		for (st = 0; st < a->raw.n; st++)
			if (ab_raw_ids_add(&s->ids, a->raw.v[st]))
				return il_errorf(-ENOMEM, "out of memory");
	}
	s->n++;
	return 0;
}

static void items_free(struct ab_items *s)
{
	free(s->v);
	free(s->val);
	ab_raw_ids_free(&s->ids);
	memset(s, 0, sizeof(*s));
}

struct ab_key *ab_key_get(struct ab_keys *k, const struct il_srow *r,
			  int nval)
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
	for (i = 0; i < AB_MAX_SIDES; i++)
		p->side[i].nval = p->all[i].nval = nval;
	k->n++;
	if (!p->key || !p->bench || !p->metric || !p->unit)
		return NULL;
	return p;
}

/*
 * Reduce the open item of @o into its list.  A run's histogram over all
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
	int ret = 0;

	if (o->key >= 0) {
		k = &c->keys->v[o->key];
		ret = ab_item_put(&(all ? k->all : k->side)[c->side], o->cpu,
				  &o->acc, h);
	}
	if (!all && o->key >= 0 && !c->all.hist) {
		c->all.hist = o->hist;
	} else {
		if (!ret && !all && o->key >= 0 && o->hist)
			ret = il_hist_merge(c->all.hist, o->hist);
		il_hist_free(o->hist);
	}
	o->hist = NULL;
	o->key = -1;
	return ret;
}

/* @o's run is @run from now on. */
static int open_run(struct open_item *o, int key, const char *run,
		    int first)
{
	size_t len = strlen(run) + 1;

	if (IL_GROW(o->run, o->run_cap, len, 40))
		return il_errorf(-ENOMEM, "out of memory");
	memcpy(o->run, run, len);
	o->run_key = key;
	o->first = first;
	return 0;
}

/*
 * Count @r in its item of the per-label list (@all: the list of runs
 * over all their CPUs, label "all"): the open one when the same, else a
 * new one, after closing the open one.  A per-CPU item takes the row's
 * histogram as its own when it opens.
 */
static int item_add(struct collect *c, struct open_item *o, bool all,
		    int key, const struct il_srow *r, int cpu)
{
	struct ab_key *k = &c->keys->v[key];
	struct ab_items *s = &(all ? k->all : k->side)[c->side];
	int i, ret;

	if (o->key == key && o->cpu == cpu && !strcmp(o->run, r->run_uuid)) {
		if (!all && r->hist) {
			if (!o->hist)
				o->hist = il_srow_take_hist(r);
			else if ((ret = il_hist_merge(o->hist, r->hist)))
				return ret;
		}
		return ab_acc_count(&o->acc, r);
	}
	ret = item_close(c, o, all);
	/* A new key, or a new run of it: the run's items start here. */
	if (!ret && (o->run_key != key || strcmp(o->run, r->run_uuid)))
		ret = open_run(o, key, r->run_uuid, s->n);
	if (ret)
		return ret;
	/* Reduced items cannot take more rows: the order must hold. */
	for (i = o->first; i < s->n; i++)
		if (s->v[i].cpu == cpu)
			return il_errorf(-EIO, "compare: the rows of run %s arrived out of order",
					 r->run_uuid);
	o->key = key;
	o->cpu = cpu;
	ab_acc_start(&o->acc, r);
	if (!all)
		o->hist = il_srow_take_hist(r);
	return ab_acc_count(&o->acc, r);
}

static void open_free(struct open_item *o)
{
	free(o->run);
	ab_raw_ids_free(&o->acc.raw);
}

static int add(const struct il_srow *r, void *arg)
{
	struct collect *c = arg;
	struct ab_key *k;
	char cpu[32];
	int ret, label, all;

	if (r->is_ref && !r->hist)
		return 0;
	k = ab_key_get(c->keys, r, c->nstats);
	if (!k)
		return il_errorf(-ENOMEM, "out of memory");
	il_cpu_label(r->cpu, r->cpu2, cpu, sizeof(cpu));
	label = ab_label_get(k, cpu);
	all = ab_label_get(k, "all");
	if (label < 0 || all < 0)
		return il_errorf(-ENOMEM, "out of memory");
	ret = item_add(c, &c->cpu, false, (int)(k - c->keys->v), r, label);
	return ret ? ret : item_add(c, &c->all, true, (int)(k - c->keys->v), r, all);
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
		free(k->v[i].labels.v);
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
		struct ab_raw_ids ids = {
			.n = (int)it->raw_n, .v = list->ids.v + it->raw_off,
		};
		struct il_ab_exact e = { .all_raw = true };
		double *val = ab_item_val(list, i);

		if (!it->raw)
			continue;
		ret = ab_raw_exact(db, &ids, &e, deciles ? hd : NULL);
		if (ret)
			return ret;
		it->hd_raw = deciles;
		/* None read: the stored values ab_item_put() left stand. */
		if (!e.ok)
			continue;
		val[IL_AB_MEDIAN] = (double)e.p50;
		val[IL_AB_P99] = (double)e.p99;
		for (d = 0; deciles && d < IL_AB_NDECILES; d++)
			val[IL_AB_HD10 + d] = hd[d];
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
		open_free(&c.cpu);
		open_free(&c.all);
	}
	il_hist_free(empty);
	if (!ret && keys->n)
		qsort(keys->v, keys->n, sizeof(*keys->v), ab_key_cmp);
	return ret;
}
