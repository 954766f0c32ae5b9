// SPDX-License-Identifier: GPL-2.0-only
/*
 * ab_table.c - the A/B table's columns, cells and notes (ab_table.h): the
 * numbers compare.c computed, formatted, and what each column means said
 * in words under the table, so that md, csv, json and html (table.c) all
 * carry the explanation with the figures.  The words are careful: a CI
 * that contains 0 is "no evidence of a change", never "no change".
 */
#include "ab_table.h"
#include "err.h"
#include "groups.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fmt_p(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else if (p >= 0.0001)
		snprintf(buf, len, "%.4f", p);
	else
		snprintf(buf, len, "%.1e", p);
}

/* The verdict of side @s in row @w, in words. */
static void verdict(const struct ab_row *w, int s, char *buf, size_t len)
{
	const struct il_ab_result *r = &w->res[s];

	if (!w->runs[0] || !w->runs[s])
		snprintf(buf, len, "missing on a side");
	else if (w->thin)
		snprintf(buf, len, "p99 not estimable: a run holds %" PRIu64 " samples (needs 1000)",
			 w->thin);
	else if (w->ref)
		snprintf(buf, len, "reference figures: no interval");
	else if (!r->positive)
		snprintf(buf, len, "a run's value is not positive: no ratio");
	else if (r->all_equal)
		snprintf(buf, len, "no difference: every run of both sides has the same value");
	else if (!r->s.ci_ok)
		snprintf(buf, len, "too few runs (%d vs %d) for a 95%% interval",
			 w->runs[0], w->runs[s]);
	else if (w->holm[s] < 0.05)
		snprintf(buf, len, "%s than S1 (Holm p < 0.05)",
			 r->s.est > 0 ? "higher" : "lower");
	else if (r->lo_pct <= 0 && r->hi_pct >= 0)
		snprintf(buf, len, "no evidence of a change (CI contains 0)");
	else
		snprintf(buf, len, "CI excludes 0 but not significant after Holm");
}

/*
 * Append the flag of a row whose sides drop at different rates to its
 * verdict @buf: the samples an arm drops are often its slow ones (an
 * overrun, a call a target slept through), so its tail looks better.
 */
static void drop_flag(const struct ab_row *w, int s, char *buf, size_t len)
{
	size_t n = strlen(buf);
	char p[16];

	if (!(w->drop_p[s] < AB_DROP_FLAG_P) || n >= len)
		return;
	fmt_p(p, sizeof(p), w->drop_p[s]);
	snprintf(buf + n, len - n, "; drop rates differ (p %s)", p);
}

/*
 * Append to verdict @buf where the row's Harrell-Davis deciles came from
 * bucket midpoints: up to half a bucket (0.05 %) off the samples' own, so
 * such a decile and the run's exact median may disagree that much.
 */
static void hd_flag(const struct ab_row *w, int s, char *buf, size_t len)
{
	size_t n = strlen(buf);
	int mid = w->hd_mid[0] + w->hd_mid[s];

	if (!mid || n >= len)
		return;
	snprintf(buf + n, len - n, "; HD of %d of %d runs from bucket midpoints (not kept raw)",
		 mid, w->runs[0] + w->runs[s]);
}

static void equiv_words(const struct ab_row *w, int s, double margin,
			char *buf, size_t len)
{
	const struct il_ab_result *r = &w->res[s];

	if (!w->runs[0] || !w->runs[s] || w->ref || !r->positive)
		snprintf(buf, len, "-");
	else if (r->equiv == IL_AB_EQUIV_SHOWN)
		snprintf(buf, len, "equivalent within +-%g%% (%.4g%% CI [%+.2f, %+.2f])",
			 margin, r->eq_level * 100, r->eq_lo_pct, r->eq_hi_pct);
	else if (!r->eq_ci_ok)
		snprintf(buf, len, "not shown equivalent: too few runs for a %.4g%% interval",
			 r->eq_level * 100);
	else
		snprintf(buf, len, "not shown equivalent (%.4g%% CI [%+.2f, %+.2f])",
			 r->eq_level * 100, r->eq_lo_pct, r->eq_hi_pct);
}

#define FIXED_COLS 6
#define SIDE_COLS 4

static int side_cols(const struct il_analysis_opts *o)
{
	return o->equivalence_pct > 0 ? 7 : 6;
}

struct il_table *ab_table_new(int ns, const struct il_analysis_opts *o)
{
	static const char *const fixed[FIXED_COLS] = {
		"Benchmark", "Metric", "Targets", "CPU", "Statistic", "Unit",
	};
	int sc = side_cols(o), ncols = FIXED_COLS + SIDE_COLS * ns + sc * (ns - 1);
	char (*buf)[80] = calloc(ncols, sizeof(*buf));
	const char **cols = calloc(ncols, sizeof(*cols));
	struct il_table *t = NULL;
	int i, k;

	if (!buf || !cols)
		goto out;
	for (i = 0; i < FIXED_COLS; i++)
		snprintf(buf[i], 80, "%s", fixed[i]);
	for (k = 0; k < ns; k++, i += SIDE_COLS) {
		snprintf(buf[i], 80, "S%d runs", k + 1);
		snprintf(buf[i + 1], 80, "S%d samples", k + 1);
		snprintf(buf[i + 2], 80, "S%d median of runs", k + 1);
		snprintf(buf[i + 3], 80, "S%d dropped %%", k + 1);
	}
	for (k = 1; k < ns; k++, i += sc) {
		snprintf(buf[i], 80, "S%d vs S1 shift %%", k + 1);
		snprintf(buf[i + 1], 80, "S%d shift 95%% CI", k + 1);
		snprintf(buf[i + 2], 80, "S%d p", k + 1);
		snprintf(buf[i + 3], 80, "S%d test", k + 1);
		snprintf(buf[i + 4], 80, "S%d p (Holm)", k + 1);
		if (sc == 7)
			snprintf(buf[i + 5], 80, "S%d TOST +-%g%%", k + 1, o->equivalence_pct);
		snprintf(buf[i + sc - 1], 80, "S%d verdict", k + 1);
	}
	for (i = 0; i < ncols; i++)
		cols[i] = buf[i];
	t = il_table_new("A/B comparison", ncols, cols);
	/* Each "Sk shift 95% CI": csv splits it into lo and hi. */
	for (k = 1, i = FIXED_COLS + SIDE_COLS * ns; t && k < ns; k++, i += sc)
		il_table_col_kind(t, i + 1, IL_COL_INTERVAL);
out:
	free(buf);
	free(cols);
	return t;
}

int ab_table_row(struct il_table *t, const struct ab_row *w, int ns,
		   const struct il_analysis_opts *o)
{
	int sc = side_cols(o), ncols = t->ncols, i, k, ret;
	char (*v)[160] = calloc(ncols, sizeof(*v));
	const char **cells = calloc(ncols, sizeof(*cells));

	if (!v || !cells) {
		free(v);
		free(cells);
		return il_errorf(-ENOMEM, "out of memory");
	}
	for (i = 0; i < ncols; i++)
		snprintf(v[i], 160, "-");
	snprintf(v[0], 160, "%s", w->bench);
	snprintf(v[1], 160, "%s", w->metric);
	il_fmt_u64(v[2], 160, w->grp);
	snprintf(v[3], 160, "%s", w->cpu);
	snprintf(v[4], 160, "%s", il_ab_stat_name(w->st));
	snprintf(v[5], 160, "%s", w->unit);
	for (k = 0, i = FIXED_COLS; k < ns; k++, i += SIDE_COLS) {
		snprintf(v[i], 160, "%d", w->runs[k]);
		if (!w->runs[k])
			continue;
		snprintf(v[i + 1], 160, "%" PRIu64, w->samples[k]);
		if (!isnan(w->value[k]))
			snprintf(v[i + 2], 160, "%.1f", w->value[k]);
		if (w->samples[k] + w->dropped[k])
			snprintf(v[i + 3], 160, "%.2f", 100.0 * (double)w->dropped[k] /
				 (double)(w->samples[k] + w->dropped[k]));
	}
	for (k = 1; k < ns; k++, i += sc) {
		const struct il_ab_result *r = &w->res[k];

		if (w->thin) {
			verdict(w, k, v[i + sc - 1], 160);
			drop_flag(w, k, v[i + sc - 1], 160);
			continue;
		}
		if (r->positive && !isnan(r->pct))
			snprintf(v[i], 160, "%+.2f", r->pct);
		if (r->positive && r->s.ci_ok)
			snprintf(v[i + 1], 160, "[%+.2f, %+.2f]", r->lo_pct, r->hi_pct);
		else if (r->positive)
			snprintf(v[i + 1], 160, "not possible with %d vs %d runs",
				 w->runs[0], w->runs[k]);
		fmt_p(v[i + 2], 160, r->s.p);
		if (!isnan(r->s.p) && !r->all_equal)
			snprintf(v[i + 3], 160, "%s", il_ab_path_name(r->s.path));
		fmt_p(v[i + 4], 160, w->holm[k]);
		if (sc == 7)
			equiv_words(w, k, o->equivalence_pct, v[i + 5], 160);
		verdict(w, k, v[i + sc - 1], 160);
		drop_flag(w, k, v[i + sc - 1], 160);
		hd_flag(w, k, v[i + sc - 1], 160);
	}
	for (i = 0; i < ncols; i++)
		cells[i] = v[i];
	ret = il_table_add(t, cells);
	free(v);
	free(cells);
	return ret;
}

void ab_table_notes(struct il_table *t, int ns, const struct il_analysis_opts *o,
		  bool pooled, int ntests, int ntost)
{
	int i;

	for (i = 0; i < ns; i++)
		il_table_note(t, "S%d: %s", i + 1, o->compare_text[i]);
	il_table_note(t, "The unit is the run: each run gives one value per row, its median, p99 or mean (Statistic) over its samples%s.",
		      pooled ? "; CPU 'all': the sides measured different CPUs, so each run's CPUs were merged first" :
		      ", per CPU (or pair)");
	il_table_note(t, "Sk runs: the runs of side k behind the row's shift, interval and p; Sk samples: the samples in them; Sk median of runs: the median of those runs' values; Sk dropped %%: the samples those runs could not take (every reason), as a share of all they tried.");
	il_table_note(t, "A verdict ending 'drop rates differ' flags a row whose runs' drop rates differ from S1's (two-sided Mann-Whitney p < %g, not adjusted): dropped samples are often the slow ones, so the side that drops more can look better in the tail; read the corrected series where the benchmark stores one.",
		      AB_DROP_FLAG_P);
	il_table_note(t, "Sk vs S1 shift %%: Hodges-Lehmann estimate of Sk/S1 - 1, the median of the ratios of every Sk run's value to every S1 run's.");
	il_table_note(t, "Sk shift 95%% CI: the distribution-free Moses interval of that shift, from the Mann-Whitney null distribution over the Sk runs and S1 runs counted in the row (exact for up to %d runs a side, else the normal approximation with tie correction); with too few runs no 95%% interval exists and the row says so.",
		      IL_AB_EXACT_MAX);
	il_table_note(t, "Sk p: two-sided Mann-Whitney (Wilcoxon rank-sum) p-value of no shift; Sk test: how it was computed: exact (no ties), exact given ties (the permutation distribution of the midranks, conditional on the tied runs) for up to %d runs a side, else normal (the approximation with tie correction); Sk p (Holm): Holm-adjusted over all %d p-values of this table; the verdict uses the adjusted p.",
		      IL_AB_EXACT_MAX, ntests);
	il_table_note(t, "p99 rows are compared only where every run holds at least 1000 samples, so that a run's p99 has 10 samples beyond it; below, the row says so and is not tested.");
	il_table_note(t, "A CI containing 0 is no evidence of a change; it does not show that the sides are equal%s.",
		      o->equivalence_pct > 0 ? "" : "; give --equivalence PCT to test for equivalence (TOST)");
	if (o->deciles)
		il_table_note(t, "HD p10 .. HD p90 (--deciles): the shift function, the Harrell-Davis decile of each run compared like the other statistics; the same shift at every decile is a shift of the whole distribution, a shift growing toward p90 a change of the tail.  A run's decile is of its samples where it kept every one raw (--raw), else of its histogram's bucket midpoints, up to half a bucket (0.05 %%) off, and the verdict then says in how many runs.");
	if (o->equivalence_pct > 0)
		/* The margin is a ratio both ways, 1/(1+d) .. 1+d (ab_stats.c):
		 * print the lower bound in use, -4.76 % for 5 %, not -5 %. */
		il_table_note(t, "Sk TOST +-%g%%: two one-sided tests at 5 %% each: equivalent when the Moses interval lies inside %+.2f%% .. %+.2f%%, the ratios 1/(1+d) .. 1+d for d = %g%%; adjusted across the %d rows tested by Bonferroni, so the interval is the %.4g%% one (1 - 0.10/%d), and every row shown equivalent is so at 5 %% for the table as a whole.",
			      o->equivalence_pct,
			      (1 / (1 + o->equivalence_pct / 100) - 1) * 100,
			      o->equivalence_pct, o->equivalence_pct, ntost,
			      (1 - 0.10 / (ntost > 1 ? ntost : 1)) * 100,
			      ntost > 1 ? ntost : 1);
}
