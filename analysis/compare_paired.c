// SPDX-License-Identifier: GPL-2.0-only
/*
 * compare_paired.c - `report --compare ... --paired`: the A/B comparison
 * over the blocks of a randomised-block campaign (order: blocks,
 * harness/campaign_order.c).  Each block ran every arm once, close in
 * time, so side k's run and S1's run of one block form a pair, and the
 * test is on the per-block differences of log values (ab_paired.c).  A
 * slow drift moves both runs of a block alike and cancels; the unpaired
 * table (compare.c) pays for it in width.
 *
 * A run's block is its campaign, machine and repetition, read from the
 * plan its campaign stored (schemas/006_campaigns.sql); only entries
 * planned in blocks order pair.  A run's CPUs are merged (CPU "all"):
 * its median is exact where every series kept its samples raw, from the
 * merged samples (ab_raw.c) when it has several.
 */
#include "ab.h"
#include "ab_paired.h"
#include "ab_raw.h"
#include "ab_table.h"
#include "analysis.h"
#include "err.h"
#include "groups.h"
#include "grow.h"
#include "store_sqlite.h"

#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSIDES AB_MAX_SIDES

/* One run of one key, its CPUs merged, and the block it ran in. */
struct prun {
	char *run, *block;	/* block NULL: not planned in blocks */
	struct il_summary sum;
	struct il_hist *hist;
	struct il_ab_exact exact;	/* ab.h: kept raw */
	struct ab_raw_ids raw;		/* its series, while all kept raw */
};

struct pkey {
	char *key, *bench, *metric, *unit;
	int64_t grp;
	int n[NSIDES], cap[NSIDES];
	struct prun *v[NSIDES];
};

struct pctx {
	int n, cap, side;
	struct pkey *k;
	sqlite3_stmt *block;	/* run uuid -> block label */
};

static struct pkey *pkey_get(struct pctx *c, const struct il_srow *r)
{
	char buf[256];
	struct pkey *k;
	int i;

	snprintf(buf, sizeof(buf), "%s\x1f%s\x1f%010" PRId64, r->bench, r->metric, r->grp);
	for (i = c->n - 1; i >= 0; i--)
		if (!strcmp(c->k[i].key, buf))
			return &c->k[i];
	if (IL_GROW(c->k, c->cap, (size_t)c->n + 1, 16))
		return NULL;
	k = &c->k[c->n];
	memset(k, 0, sizeof(*k));
	k->key = strdup(buf);
	k->bench = strdup(r->bench);
	k->metric = strdup(r->metric);
	k->unit = strdup(r->unit);
	k->grp = r->grp;
	if (!k->key || !k->bench || !k->metric || !k->unit)
		return NULL;
	c->n++;
	return k;
}

/* The block label of @run, or NULL when its entry was not in blocks. */
static char *block_of(sqlite3_stmt *st, const char *run)
{
	const unsigned char *t;
	char *b = NULL;

	sqlite3_bind_text(st, 1, run, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && (t = sqlite3_column_text(st, 0)))
		b = strdup((const char *)t);
	sqlite3_reset(st);
	return b;
}

static int collect(const struct il_srow *r, void *arg)
{
	struct pctx *c = arg;
	struct pkey *k;
	struct prun *p = NULL;
	int s = c->side, i;

	if (r->is_ref || !r->hist)
		return 0;
	k = pkey_get(c, r);
	if (!k)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = k->n[s] - 1; i >= 0 && !p; i--)
		if (!strcmp(k->v[s][i].run, r->run_uuid))
			p = &k->v[s][i];
	if (!p) {
		if (IL_GROW(k->v[s], k->cap[s], (size_t)k->n[s] + 1, 16))
			return il_errorf(-ENOMEM, "out of memory");
		p = &k->v[s][k->n[s]++];
		memset(p, 0, sizeof(*p));
		p->run = strdup(r->run_uuid);
		p->block = block_of(c->block, r->run_uuid);
		p->hist = il_hist_new();
		il_summary_init(&p->sum);
		if (!p->run || !p->hist)
			return il_errorf(-ENOMEM, "out of memory");
	}
	il_ab_exact_add(&p->exact, r->exact, r->p50, r->p99);
	il_summary_merge(&p->sum, &r->sum);
	if (p->exact.all_raw) {
		int ret = ab_raw_ids_add(&p->raw, r->raw_id);

		if (ret)
			return ret;
	}
	return il_hist_merge(p->hist, r->hist);
}

/* The exact median of every run that merges several series, each kept
 * raw, from their samples: one series' stored one is not the merge's. */
static int raw_values(struct il_store *db, struct pctx *c)
{
	int i, s, j, ret;

	for (i = 0; i < c->n; i++)
		for (s = 0; s < NSIDES; s++)
			for (j = 0; j < c->k[i].n[s]; j++) {
				struct prun *p = &c->k[i].v[s][j];

				if (!p->exact.all_raw || p->exact.nseries < 2)
					continue;
				ret = ab_raw_exact(db, &p->raw, &p->exact, NULL);
				if (ret)
					return ret;
			}
	return 0;
}

/* A paired row: key @k, statistic @st, side @s against S1. */
struct prow {
	const struct pkey *k;
	enum il_ab_stat st;
	int pairs[NSIDES], unblocked[NSIDES];
	bool positive[NSIDES];
	struct il_ab_paired r[NSIDES];
	double holm[NSIDES];
};

/*
 * The per-block differences log(Sk) - log(S1) of @k for statistic @st:
 * blocks where each side has exactly one run pair; the rest are counted
 * in *@unblocked.  Return: the number of pairs, or -ENOMEM.
 */
static int differences(const struct pkey *k, int s, enum il_ab_stat st,
		       double **out, int *unblocked, bool *positive)
{
	double *d = calloc((size_t)k->n[s] + 1, sizeof(double));
	int i, j, n = 0;

	*out = d;
	*unblocked = 0;
	*positive = true;
	if (!d)
		return -ENOMEM;
	for (i = 0; i < k->n[s]; i++) {
		const struct prun *b = &k->v[s][i], *a = NULL;
		double va, vb;

		for (j = 0; b->block && j < k->n[0]; j++)
			if (k->v[0][j].block && !strcmp(k->v[0][j].block, b->block))
				a = &k->v[0][j];
		if (!a) {
			++*unblocked;
			continue;
		}
		va = il_ab_run_value(st, a->hist, &a->sum, &a->exact);
		vb = il_ab_run_value(st, b->hist, &b->sum, &b->exact);
		if (!(va > 0) || !(vb > 0)) {
			*positive = false;
			continue;
		}
		d[n++] = log(vb) - log(va);
	}
	return n;
}

static void verdict(const struct prow *w, int s, char *buf, size_t len)
{
	const struct il_ab_paired *r = &w->r[s];

	if (!w->positive[s])
		snprintf(buf, len, "a run's value is not positive: no ratio");
	else if (!w->pairs[s])
		snprintf(buf, len, "no block holds runs of both sides (plan them in one campaign with order: blocks)");
	else if (r->p == 1 && r->est == 0 && r->lo == 0 && r->hi == 0)
		snprintf(buf, len, "no difference: every pair has the same value");
	else if (!r->ci_ok)
		snprintf(buf, len, "too few blocks (%d) for a 95%% interval", w->pairs[s]);
	else if (w->holm[s] < 0.05)
		snprintf(buf, len, "%s than S1 (Holm p < 0.05)", r->est > 0 ? "higher" : "lower");
	else if (r->lo <= 0 && r->hi >= 0)
		snprintf(buf, len, "no evidence of a change (CI contains 0)");
	else
		snprintf(buf, len, "CI excludes 0 but not significant after Holm");
}

static int paired_rows(struct pctx *c, int ns, struct prow **out, int *nrows)
{
	static const enum il_ab_stat stats[] = { IL_AB_MEDIAN, IL_AB_MEAN };
	struct prow *w = calloc((size_t)c->n * 2 + 1, sizeof(*w));
	double *p = calloc((size_t)c->n * 2 * ns + 1, sizeof(double));
	int i, t, s, n = 0, np = 0, ret = 0;

	*out = w;
	if (!w || !p) {
		free(p);
		return il_errorf(-ENOMEM, "out of memory");
	}
	for (i = 0; !ret && i < c->n; i++)
		for (t = 0; !ret && t < 2; t++, n++) {
			w[n].k = &c->k[i];
			w[n].st = stats[t];
			for (s = 1; !ret && s < ns; s++) {
				double *d;
				int m = differences(&c->k[i], s, stats[t], &d,
						    &w[n].unblocked[s], &w[n].positive[s]);

				if (m < 0)
					ret = il_errorf(-ENOMEM, "out of memory");
				else
					ret = il_ab_signed_rank(d, m, 0.95, &w[n].r[s]);
				w[n].pairs[s] = m < 0 ? 0 : m;
				free(d);
			}
		}
	for (i = 0; i < n; i++)
		for (s = 1; s < ns; s++)
			p[np++] = w[i].r[s].ci_ok || w[i].pairs[s] ? w[i].r[s].p : NAN;
	il_ab_holm(p, np, p);
	for (i = 0, np = 0; i < n; i++)
		for (s = 1; s < ns; s++)
			w[i].holm[s] = p[np++];
	free(p);
	*nrows = n;
	return ret;
}

static int add_row(struct il_table *t, const struct prow *w, int ns)
{
	char v[5 + 7 * NSIDES][160];
	const char *cells[5 + 7 * NSIDES];
	int i = 0, s, k;

	snprintf(v[i++], 160, "%s", w->k->bench);
	snprintf(v[i++], 160, "%s", w->k->metric);
	il_fmt_u64(v[i++], 160, w->k->grp);
	snprintf(v[i++], 160, "%s", il_ab_stat_name(w->st));
	snprintf(v[i++], 160, "%s", w->k->unit);
	for (s = 1; s < ns; s++) {
		const struct il_ab_paired *r = &w->r[s];

		snprintf(v[i++], 160, "%d", w->pairs[s]);
		snprintf(v[i++], 160, "%d", w->unblocked[s]);
		if (w->pairs[s])
			snprintf(v[i++], 160, "%+.2f", expm1(r->est) * 100);
		else
			snprintf(v[i++], 160, "-");
		if (r->ci_ok)
			snprintf(v[i++], 160, "[%+.2f, %+.2f]", expm1(r->lo) * 100,
				 expm1(r->hi) * 100);
		else
			snprintf(v[i++], 160, "-");
		if (isnan(r->p))
			snprintf(v[i++], 160, "-");
		else
			snprintf(v[i++], 160, "%.4f", r->p);
		if (isnan(w->holm[s]))
			snprintf(v[i++], 160, "-");
		else
			snprintf(v[i++], 160, "%.4f", w->holm[s]);
		verdict(w, s, v[i], 160);
		/* Said here, not in the p column, which stays a number for
		 * csv readers (issue 20). */
		if (!isnan(r->p) && !r->exact)
			strncat(v[i], "; p from the normal approximation",
				159 - strlen(v[i]));
		i++;
	}
	for (k = 0; k < i; k++)
		cells[k] = v[k];
	return il_table_add(t, cells);
}

static struct il_table *table_new(int ns, const struct il_analysis_opts *o,
				  int ntests)
{
	char h[5 + 7 * NSIDES][64];
	const char *cols[5 + 7 * NSIDES];
	int ci[NSIDES];
	static const char *const fixed[] = { "Benchmark", "Metric", "Targets",
					     "Statistic", "Unit" };
	struct il_table *t;
	int i, s, n = 0;

	for (i = 0; i < 5; i++)
		snprintf(h[n++], 64, "%s", fixed[i]);
	for (s = 1; s < ns; s++) {
		snprintf(h[n++], 64, "S%d blocks paired", s + 1);
		snprintf(h[n++], 64, "S%d runs unpaired", s + 1);
		snprintf(h[n++], 64, "S%d paired shift %%", s + 1);
		ci[s] = n;
		snprintf(h[n++], 64, "S%d shift 95%% CI", s + 1);
		snprintf(h[n++], 64, "S%d signed-rank p", s + 1);
		snprintf(h[n++], 64, "S%d p (Holm)", s + 1);
		snprintf(h[n++], 64, "S%d verdict", s + 1);
	}
	for (i = 0; i < n; i++)
		cols[i] = h[i];
	t = il_table_new("A/B comparison, paired over blocks", n, cols);
	if (!t)
		return NULL;
	for (s = 1; s < ns; s++)
		il_table_col_kind(t, ci[s], IL_COL_INTERVAL);
	for (s = 0; s < ns; s++)
		il_table_note(t, "S%d: %s", s + 1, o->compare_text[s]);
	il_table_note(t, "A block of a campaign planned with order: blocks ran every arm once; side k's run and S1's run of one block are a pair, and a slow drift of the machine, which moves both alike, cancels in their difference.  The unit is still the run: each run gives its median or mean (Statistic), its CPUs merged.");
	il_table_note(t, "Sk paired shift %%: Hodges-Lehmann estimate of Sk/S1 - 1 over the pairs (the median of the Walsh averages of the log ratios); Sk shift 95%% CI: its distribution-free interval from the signed-rank distribution (exact for up to %d pairs without ties, else the normal approximation, marked); Sk signed-rank p: the two-sided Wilcoxon signed-rank p; Sk p (Holm): Holm-adjusted over the %d tests of this table, which the verdict uses.",
		      IL_AB_PAIRED_EXACT_MAX, ntests);
	il_table_note(t, "Sk runs unpaired: side k's runs with no S1 run in their block (another campaign, another order, or a block an interrupted run left half); they are in the unpaired table only.");
	return t;
}

static void pctx_free(struct pctx *c)
{
	int i, s, j;

	for (i = 0; i < c->n; i++) {
		struct pkey *k = &c->k[i];

		for (s = 0; s < NSIDES; s++) {
			for (j = 0; j < k->n[s]; j++) {
				free(k->v[s][j].run);
				free(k->v[s][j].block);
				il_hist_free(k->v[s][j].hist);
				ab_raw_ids_free(&k->v[s][j].raw);
			}
			free(k->v[s]);
		}
		free(k->key);
		free(k->bench);
		free(k->metric);
		free(k->unit);
	}
	free(c->k);
	sqlite3_finalize(c->block);
}

int il_report_paired(struct il_store *s, const struct il_analysis_opts *o,
		     struct il_table **out)
{
	static const char block_sql[] =
		"SELECT r.campaign || '/' || r.machine_uuid || '/' ||"
		" json_extract(c.plan, '$[' || r.plan_index || '].repetition')"
		" FROM runs r JOIN campaigns c ON c.machine_uuid = r.machine_uuid"
		" AND c.name = r.campaign WHERE r.uuid = ?1"
		" AND json_extract(c.plan, '$[' || r.plan_index || '].order') = 'blocks'";
	struct pctx c = { 0 };
	struct prow *w = NULL;
	struct il_table *t = NULL;
	int ns = o->ncompare, i, n = 0, ntests = 0, ret = 0;
	sqlite3 *db = il_store_db(s);

	*out = NULL;
	if (ns < 2 || ns > NSIDES)
		return il_errorf(-EINVAL, "--paired needs 2 to %d --compare filters, got %d",
				 NSIDES, ns);
	/* A database older than schema 6 has no stored plans: no blocks. */
	if (sqlite3_prepare_v2(db, block_sql, -1, &c.block, NULL) != SQLITE_OK)
		return il_errorf(-EINVAL, "--paired: this database stores no campaign plans (schema 6; run idlelab db migrate): %s",
				 sqlite3_errmsg(db));
	for (i = 0; !ret && i < ns; i++) {
		c.side = i;
		ret = il_rows_foreach(s, o->bench, o->compare[i], collect, &c);
	}
	if (!ret)
		ret = raw_values(s, &c);
	if (!ret)
		ret = paired_rows(&c, ns, &w, &n);
	for (i = 0; i < n; i++)
		for (int k = 1; k < ns; k++)
			ntests += !isnan(w[i].holm[k]);
	if (!ret) {
		t = table_new(ns, o, ntests);
		if (!t)
			ret = il_errorf(-ENOMEM, "out of memory");
	}
	for (i = 0; !ret && i < n; i++)
		ret = add_row(t, &w[i], ns);
	if (ret) {
		il_table_free(t);
		t = NULL;
	}
	*out = t;
	free(w);
	pctx_free(&c);
	return ret;
}
