// SPDX-License-Identifier: GPL-2.0-only
/*
 * compare.c - the A/B table: two or more sides, each chosen by a filter
 * (filter.c); for every side after the first, the shift of each per-run
 * statistic against the first side, with its distribution-free interval,
 * its p-value and a verdict in words.  This is how the seeds' "-5.1 %"
 * and "~10 %" claims are made or refuted.
 *
 * The run is the unit (issue 12).  Samples within a run are autocorrelated
 * and the spread between runs dominates, so pooling every sample of a side
 * and resampling them as independent draws made intervals about 30x too
 * narrow.  Here each run contributes one value per row: its median, p99
 * or mean (ab_stats.c does the statistics; tools/ab-sim.c checks their
 * coverage by simulation).
 *
 * Rows are benchmark x metric x target count x CPU x statistic.  A run's
 * summaries for one benchmark, metric and target count are kept per CPU
 * (or per pair) when every side measured the same set of CPUs, so that
 * CPUs that differ are not mixed; otherwise (e.g. two hosts measured on
 * different CPUs) a run's CPUs are merged into one histogram first and
 * the CPU column says "all".
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
#include "ab.h"
#include "ab_raw.h"
#include "ab_table.h"
#include "analysis.h"
#include "err.h"
#include "groups.h"
#include "grow.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIDES AB_MAX_SIDES

/* One run's summaries for one key and CPU label (or all), merged. */
struct item {
	char *run;
	char cpu[32];
	bool ref;
	struct il_summary sum;
	int64_t p50, p99;		/* reference rows: as published */
	double val[IL_AB_NALL];		/* run_value() of each statistic */
	struct il_ab_exact exact;	/* measured rows kept raw */
	struct ab_raw_ids raw;		/* their summaries, while all_raw */
	bool hd_raw;			/* HD deciles from the raw samples */
};

struct items {
	int n, cap;
	struct item *v;
};

/* Benchmark x metric x target count, and what each side holds of it. */
struct key {
	char *key;
	char *bench, *metric, *unit;
	int64_t grp;
	struct items side[MAX_SIDES];	/* per run and CPU label */
	struct items all[MAX_SIDES];	/* per run, its CPUs merged */
};

struct keys {
	int n, cap;
	struct key *v;
};

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
	struct keys *keys;
	int side;
	int nstats;		/* the statistics the table shows */
	struct open_item cpu, all;	/* per CPU label, and all CPUs */
	struct il_hist *empty;	/* the histogram of an item without one */
};

static struct item *item_new(struct items *s, const char *run, const char *cpu)
{
	struct item *it;

	if (IL_GROW(s->v, s->cap, (size_t)s->n + 1, 16))
		return NULL;
	it = &s->v[s->n];
	memset(it, 0, sizeof(*it));
	it->run = strdup(run);
	snprintf(it->cpu, sizeof(it->cpu), "%s", cpu);
	il_summary_init(&it->sum);
	if (!it->run)
		return NULL;
	s->n++;
	return it;
}

static void items_free(struct items *s)
{
	int i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].run);
		ab_raw_ids_free(&s->v[i].raw);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static struct key *key_get(struct keys *k, const struct il_srow *r)
{
	char buf[256];
	struct key *p;
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

static double run_value(const struct item *it, const struct il_hist *h,
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
	struct key *k;
	struct item *it;
	int st, ret = 0;

	if (o->key >= 0) {
		k = &c->keys->v[o->key];
		it = &(all ? k->all : k->side)[c->side].v[o->idx];
		for (st = 0; st < IL_AB_NALL; st++)
			it->val[st] = st < c->nstats ? run_value(it, h, st) : NAN;
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
	struct key *k = &c->keys->v[key];
	struct items *s = &(all ? k->all : k->side)[c->side];
	struct item *it = NULL;
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
		it = item_new(s, r->run_uuid, cpu);
		if (!it)
			return il_errorf(-ENOMEM, "out of memory");
		it->ref = r->is_ref;
		it->p50 = r->p50;
		it->p99 = r->p99;
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
	/* One series exact; several (another CPU in "all") are exact only
	 * from their samples merged, read if a row uses the run. */
	il_ab_exact_add(&it->exact, r->exact, r->p50, r->p99);
	il_summary_merge(&it->sum, &r->sum);
	if (it->exact.all_raw && !it->ref)
		return ab_raw_ids_add(&it->raw, r->raw_id);
	return 0;
}

static int add(const struct il_srow *r, void *arg)
{
	struct collect *c = arg;
	struct key *k;
	char cpu[32];
	int ret;

	if (r->is_ref && !r->hist)
		return 0;
	k = key_get(c->keys, r);
	if (!k)
		return il_errorf(-ENOMEM, "out of memory");
	il_cpu_label(r->cpu, r->cpu2, cpu, sizeof(cpu));
	ret = item_add(c, &c->cpu, false, (int)(k - c->keys->v), r, cpu);
	return ret ? ret : item_add(c, &c->all, true, (int)(k - c->keys->v), r, "all");
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct key *)a)->key, ((const struct key *)b)->key);
}

static void keys_free(struct keys *k)
{
	int i, j;

	for (i = 0; i < k->n; i++) {
		free(k->v[i].key);
		free(k->v[i].bench);
		free(k->v[i].metric);
		free(k->v[i].unit);
		for (j = 0; j < MAX_SIDES; j++) {
			items_free(&k->v[i].side[j]);
			items_free(&k->v[i].all[j]);
		}
	}
	free(k->v);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The sorted distinct CPU labels of @s into @out (at most @max), or -1
 * when there are more.
 */
static int cpu_set(const struct items *s, const char **out, int max)
{
	int i, j, n = 0;

	for (i = 0; i < s->n; i++) {
		for (j = 0; j < n && strcmp(out[j], s->v[i].cpu); j++)
			;
		if (j < n)
			continue;
		if (n == max)
			return -1;
		out[n++] = s->v[i].cpu;
	}
	qsort(out, n, sizeof(*out), str_cmp);
	return n;
}

#define MAX_CPUS 256

struct ab_rows {
	int n, cap;
	struct ab_row *v;
};

/* Holm over every p-value of the table: one family, said in the notes. */
static int holm_all(struct ab_rows *rows, int ns, int *ntests)
{
	double *p = calloc((size_t)rows->n * ns + 1, sizeof(double));
	int i, s, k = 0;

	if (!p)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; i < rows->n; i++)
		for (s = 1; s < ns; s++)
			p[k++] = rows->v[i].res[s].s.p;
	il_ab_holm(p, k, p);
	*ntests = 0;
	for (i = 0, k = 0; i < rows->n; i++)
		for (s = 1; s < ns; s++, k++) {
			rows->v[i].holm[s] = p[k];
			*ntests += !isnan(p[k]);
		}
	free(p);
	return 0;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The items of one side for one row: pointers into a key's lists. */
struct runs {
	int n;
	const struct item **v;
};

/*
 * The runs of side @s of key @k for CPU label @cpu (NULL: every CPU,
 * each run's merged) into @out, in run order.
 */
static int side_runs(const struct key *k, int s, const char *cpu,
		     struct runs *out)
{
	const struct items *from = cpu ? &k->side[s] : &k->all[s];
	int i;

	out->n = 0;
	out->v = malloc((from->n + 1) * sizeof(*out->v));
	if (!out->v)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; i < from->n; i++)
		if (!cpu || !strcmp(from->v[i].cpu, cpu))
			out->v[out->n++] = &from->v[i];
	return 0;
}

static struct ab_row *orow_new(struct ab_rows *rows)
{
	if (IL_GROW(rows->v, rows->cap, (size_t)rows->n + 1, 32))
		return NULL;
	memset(&rows->v[rows->n], 0, sizeof(rows->v[0]));
	return &rows->v[rows->n++];
}

/* The median of @n values (n >= 1), without reordering them. */
static int median_of(const double *v, int n, double *out)
{
	double *tmp = malloc(n * sizeof(double));

	if (!tmp)
		return il_errorf(-ENOMEM, "out of memory");
	memcpy(tmp, v, n * sizeof(double));
	qsort(tmp, n, sizeof(double), dbl_cmp);
	*out = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
	free(tmp);
	return 0;
}

/*
 * The drop counts of side @s and, for s >= 1, the Mann-Whitney p of its
 * runs' drop rates (dropped / (taken + dropped)) against side 0's, into
 * @dropped and @p; NaN where a side has no runs.  @rate is scratch.
 */
static int drop_rates(const struct runs *r, int ns, double **rate,
		      uint64_t *dropped, double *p)
{
	struct il_ab_shift sh;
	int s, i, ret;

	for (s = 0; s < ns; s++) {
		dropped[s] = 0;
		p[s] = NAN;
		for (i = 0; i < r[s].n; i++) {
			const struct il_summary *sum = &r[s].v[i]->sum;
			uint64_t all = sum->count + sum->dropped;

			dropped[s] += sum->dropped;
			rate[s][i] = all ? (double)sum->dropped / (double)all : 0;
		}
	}
	for (s = 1; s < ns; s++) {
		if (!r[0].n || !r[s].n)
			continue;
		ret = il_ab_shift(rate[0], r[0].n, rate[s], r[s].n, 0.95, &sh);
		if (ret)
			return ret;
		p[s] = sh.p;
	}
	return 0;
}

/* The statistics' rows of key @k and CPU label @cpu (NULL: all). */
static int key_rows(const struct key *k, const char *cpu, int ns,
		    const struct il_analysis_opts *o, struct ab_rows *rows)
{
	struct runs r[MAX_SIDES] = { 0 };
	double *vals[MAX_SIDES] = { 0 }, drop_p[MAX_SIDES];
	uint64_t dropped[MAX_SIDES];
	int s, i, st, ret = 0;

	for (s = 0; !ret && s < ns; s++) {
		ret = side_runs(k, s, cpu, &r[s]);
		vals[s] = calloc(r[s].n + 1, sizeof(double));
		if (!ret && !vals[s])
			ret = il_errorf(-ENOMEM, "out of memory");
	}
	if (!ret)
		ret = drop_rates(r, ns, vals, dropped, drop_p);
	for (st = 0; !ret && st < (o->deciles ? IL_AB_NALL : IL_AB_NSTATS); st++) {
		struct ab_row *w = orow_new(rows);

		if (!w) {
			ret = il_errorf(-ENOMEM, "out of memory");
			break;
		}
		w->bench = k->bench;
		w->metric = k->metric;
		w->unit = k->unit;
		w->grp = k->grp;
		w->st = st;
		snprintf(w->cpu, sizeof(w->cpu), "%s", cpu ? cpu : "all");
		for (s = 0; !ret && s < ns; s++) {
			w->runs[s] = r[s].n;
			w->dropped[s] = dropped[s];
			w->drop_p[s] = drop_p[s];
			w->value[s] = NAN;
			w->holm[s] = NAN;
			w->res[s].s.p = NAN;
			for (i = 0; i < r[s].n; i++) {
				vals[s][i] = r[s].v[i]->val[st];
				w->samples[s] += r[s].v[i]->sum.count;
				w->ref |= r[s].v[i]->ref;
				w->hd_mid[s] += st >= IL_AB_HD10 &&
					!r[s].v[i]->ref && !r[s].v[i]->hd_raw;
			}
			if (r[s].n)
				ret = median_of(vals[s], r[s].n, &w->value[s]);
			w->v[s] = malloc((r[s].n + 1) * sizeof(double));
			if (!w->v[s])
				ret = il_errorf(-ENOMEM, "out of memory");
			else
				memcpy(w->v[s], vals[s], r[s].n * sizeof(double));
		}
		if (st == IL_AB_P99)
			for (s = 0; s < ns; s++)
				for (i = 0; i < r[s].n; i++)
					if (!r[s].v[i]->ref &&
					    !il_tail_estimable(r[s].v[i]->sum.count, 99) &&
					    (!w->thin || r[s].v[i]->sum.count < w->thin))
						w->thin = r[s].v[i]->sum.count ? r[s].v[i]->sum.count : 1;
		for (s = 1; !ret && s < ns; s++)
			if (r[0].n && r[s].n && !w->ref && !w->thin)
				ret = il_ab_compare(vals[0], r[0].n, vals[s], r[s].n,
						    0.95, o->equivalence_pct, &w->res[s]);
	}
	for (s = 0; s < ns; s++) {
		free(r[s].v);
		free(vals[s]);
	}
	return ret;
}

/*
 * The exact values of the runs in @list that kept every sample raw, where
 * the stored ones are not: a run whose value merges several series (its
 * median and p99 of the merged samples), and with @deciles every such run
 * (its Harrell-Davis deciles of the samples, not of bucket midpoints).
 * Only for the lists a row uses, so only those runs' samples are read.
 */
static int raw_values(struct il_store *db, struct items *list, bool deciles)
{
	double hd[IL_AB_NDECILES];
	int i, d, ret;

	for (i = 0; i < list->n; i++) {
		struct item *it = &list->v[i];

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

/* The rows of key @k: per CPU when every side has the same CPU set. */
static int add_key(struct il_store *db, struct key *k, int ns,
		   const struct il_analysis_opts *o, struct ab_rows *rows,
		   bool *pooled)
{
	const char *set0[MAX_CPUS], *set[MAX_CPUS];
	int n0 = -2, s, i, n, ret = 0;
	bool same = true;

	for (s = 0; s < ns && same; s++) {
		if (!k->side[s].n)
			continue;
		n = cpu_set(&k->side[s], n0 == -2 ? set0 : set, MAX_CPUS);
		if (n < 0)
			same = false;
		else if (n0 == -2)
			n0 = n;
		else if (n != n0)
			same = false;
		else
			for (i = 0; i < n && same; i++)
				same = !strcmp(set0[i], set[i]);
	}
	for (s = 0; s < ns; s++) {
		ret = raw_values(db, !same || n0 < 1 ? &k->all[s] : &k->side[s],
				 o->deciles);
		if (ret)
			return ret;
	}
	if (!same || n0 < 1) {
		*pooled |= !same;
		return key_rows(k, NULL, ns, o, rows);
	}
	for (i = 0; !ret && i < n0; i++)
		ret = key_rows(k, set0[i], ns, o, rows);
	return ret;
}

/*
 * TOST across the table: each row's TOST at 5 % on its own shows
 * equivalence in some row of a long table by chance, so the family of
 * every TOST computed is adjusted by Bonferroni, the interval at
 * 1 - 0.10 / k for k tests (issue 22, item 9).  Its size into @ntost.
 */
static int tost_all(struct ab_rows *rows, int ns, double margin, int *ntost)
{
	int i, s, k = 0, ret = 0;

	*ntost = 0;
	if (margin <= 0)
		return 0;
	for (i = 0; i < rows->n; i++)
		for (s = 1; s < ns; s++)
			k += rows->v[i].res[s].equiv != IL_AB_EQUIV_NONE;
	*ntost = k;
	if (k < 2)
		return 0;
	for (i = 0; !ret && i < rows->n; i++) {
		struct ab_row *w = &rows->v[i];

		for (s = 1; !ret && s < ns; s++)
			if (w->res[s].equiv != IL_AB_EQUIV_NONE)
				ret = il_ab_tost(w->v[0], w->runs[0], w->v[s],
						 w->runs[s], margin,
						 1 - 0.10 / k, &w->res[s]);
	}
	return ret;
}

static void rows_free(struct ab_rows *rows)
{
	int i, s;

	for (i = 0; i < rows->n; i++)
		for (s = 0; s < MAX_SIDES; s++)
			free(rows->v[i].v[s]);
	free(rows->v);
}

int il_report_compare(struct il_store *s, const struct il_analysis_opts *o,
		      struct il_table **out)
{
	struct keys keys = { 0 };
	struct ab_rows rows = { 0 };
	struct il_table *t = NULL;
	struct il_hist *empty;
	int ns = o->ncompare, i, ntests = 0, ntost = 0, ret = 0;
	bool pooled = false;

	*out = NULL;
	if (ns < 2 || ns > MAX_SIDES)
		return il_errorf(-EINVAL, "compare needs 2 to %d --compare filters, got %d",
				 MAX_SIDES, ns);
	empty = il_hist_new();
	if (!empty)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; !ret && i < ns; i++) {
		struct collect c = {
			.keys = &keys, .side = i, .empty = empty,
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
	if (ret)
		goto out;
	if (keys.n)
		qsort(keys.v, keys.n, sizeof(*keys.v), key_cmp);
	for (i = 0; !ret && i < keys.n; i++)
		ret = add_key(s, &keys.v[i], ns, o, &rows, &pooled);
	if (!ret)
		ret = holm_all(&rows, ns, &ntests);
	if (!ret)
		ret = tost_all(&rows, ns, o->equivalence_pct, &ntost);
	if (ret)
		goto out;
	t = ab_table_new(ns, o);
	if (!t) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	ab_table_notes(t, ns, o, pooled, ntests, ntost);
	for (i = 0; !ret && i < rows.n; i++)
		ret = ab_table_row(t, &rows.v[i], ns, o);
out:
	if (ret) {
		il_table_free(t);
		t = NULL;
	}
	*out = t;
	il_hist_free(empty);
	keys_free(&keys);
	rows_free(&rows);
	return ret;
}
