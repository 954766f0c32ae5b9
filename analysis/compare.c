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
 * The runs come from compare_collect.c, each reduced to its values (a
 * few doubles per run and row, issue 23; exact where its samples were
 * kept raw, issue 22); here they become the rows.
 */
#include "ab.h"
#include "ab_table.h"
#include "analysis.h"
#include "compare_collect.h"
#include "err.h"
#include "groups.h"
#include "grow.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIDES AB_MAX_SIDES

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The sorted distinct CPU labels of @s into @out (at most @max), or -1
 * when there are more.
 */
static int cpu_set(const struct ab_key *k, const struct ab_items *s,
		   const char **out, int max)
{
	int i, j, n = 0;

	for (i = 0; i < s->n; i++) {
		const char *cpu = k->labels.v[s->v[i].cpu];

		for (j = 0; j < n && strcmp(out[j], cpu); j++)
			;
		if (j < n)
			continue;
		if (n == max)
			return -1;
		out[n++] = cpu;
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

/* The items of one side for one row: indices into one of a key's lists. */
struct runs {
	int n;
	const struct ab_items *list;
	int *v;
};

static inline const struct ab_item *run_item(const struct runs *r, int i)
{
	return &r->list->v[r->v[i]];
}

/*
 * The runs of side @s of key @k for CPU label @cpu (NULL: every CPU,
 * each run's merged) into @out, in run order.
 */
static int side_runs(const struct ab_key *k, int s, const char *cpu,
		     struct runs *out)
{
	const struct ab_items *from = cpu ? &k->side[s] : &k->all[s];
	int i;

	out->n = 0;
	out->list = from;
	out->v = malloc((from->n + 1) * sizeof(*out->v));
	if (!out->v)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; i < from->n; i++)
		if (!cpu || !strcmp(k->labels.v[from->v[i].cpu], cpu))
			out->v[out->n++] = i;
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
			const struct ab_item *it = run_item(&r[s], i);
			uint64_t all = it->count + it->dropped;

			dropped[s] += it->dropped;
			rate[s][i] = all ? (double)it->dropped / (double)all : 0;
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

/*
 * The fewest samples in a run of the p99 row @w, where that is too few
 * for the run's p99 to be estimable (ab_table.h).
 */
static void thin_runs(const struct runs *r, int ns, struct ab_row *w)
{
	int s, i;

	for (s = 0; s < ns; s++)
		for (i = 0; i < r[s].n; i++) {
			const struct ab_item *it = run_item(&r[s], i);

			if (!it->ref && !il_tail_estimable(it->count, 99) &&
			    (!w->thin || it->count < w->thin))
				w->thin = it->count ? it->count : 1;
		}
}

/* The statistics' rows of key @k and CPU label @cpu (NULL: all). */
static int key_rows(const struct ab_key *k, const char *cpu, int ns,
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
				const struct ab_item *it = run_item(&r[s], i);

				vals[s][i] = ab_item_val(r[s].list, r[s].v[i])[st];
				w->samples[s] += it->count;
				w->ref |= it->ref;
				w->hd_mid[s] += st >= IL_AB_HD10 &&
					!it->ref && !it->hd_raw;
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
			thin_runs(r, ns, w);
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


/* The rows of key @k: per CPU when every side has the same CPU set. */
static int add_key(struct il_store *db, struct ab_key *k, int ns,
		   const struct il_analysis_opts *o, struct ab_rows *rows,
		   bool *pooled)
{
	const char *set0[MAX_CPUS], *set[MAX_CPUS];
	int n0 = -2, s, i, n, ret = 0;
	bool same = true;

	for (s = 0; s < ns && same; s++) {
		if (!k->side[s].n)
			continue;
		n = cpu_set(k, &k->side[s], n0 == -2 ? set0 : set, MAX_CPUS);
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
		ret = ab_raw_values(db, !same || n0 < 1 ? &k->all[s] : &k->side[s],
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
	struct ab_keys keys = { 0 };
	struct ab_rows rows = { 0 };
	struct il_table *t = NULL;
	int ns = o->ncompare, i, ntests = 0, ntost = 0, ret = 0;
	bool pooled = false, reference;

	*out = NULL;
	if (ns < 2 || ns > MAX_SIDES)
		return il_errorf(-EINVAL, "compare needs 2 to %d --compare filters, got %d",
				 MAX_SIDES, ns);
	/* The brute-force reference the streaming path is tested against
	 * (compare_reference.c, test_compare_reference.sh). */
	reference = getenv("IDLELAB_COMPARE_REFERENCE") &&
		    !strcmp(getenv("IDLELAB_COMPARE_REFERENCE"), "1");
	il_ab_set_brute(reference);
	ret = reference ? ab_collect_reference(s, o, &keys) :
			  ab_collect(s, o, &keys);
	if (ret)
		goto out;
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
	ab_keys_free(&keys);
	rows_free(&rows);
	return ret;
}
