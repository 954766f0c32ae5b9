// SPDX-License-Identifier: GPL-2.0-only
/*
 * ipi.c - the IPI scaling tables.  Rows are those of the metric each
 * benchmark declares as its IPI round (bench.h's report.ipi_metric, group =
 * the target count N): ipi_storm's rounds in every mode and the user-space
 * twins membarrier_ipi and tlb_shootdown, so seed 001's physical-against-
 * cluster question and its user-space view sit side by side.
 *
 * Two tables:
 *  - scaling: one row per machine x benchmark x configuration x N, with
 *    the number of runs and samples merged, the median round, and the
 *    marginal cost per target (median(N) - median(0)) / N.  Dividing the
 *    median by N, as this table once did, charged the fixed cost of the
 *    call (the syscall, the first send) to the targets;
 *  - fit: one row per machine x benchmark x configuration, the Theil-Sen
 *    slope of the per-run medians against N, in ns per added target, with
 *    Sen's 95 % interval (theilsen.h).  The run is the unit: one point per
 *    run and N, never per sample, because samples within a run are not
 *    independent.
 *
 * The configuration is every stored parameter except the sample counts
 * and the targets list (il_params_label()): madvise and mprotect runs of
 * tlb_shootdown, or two baselines, measure different things and get rows
 * of their own, never one merged median.
 */
#include "analysis.h"
#include "bench.h"
#include "err.h"
#include "groups.h"
#include "theilsen.h"
#include "grow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One run's median at one N, a point of the fit. */
struct ipi_point {
	char *cfg;		/* machine \x1f bench \x1f configuration */
	double n, med;
};

struct ipi_ctx {
	struct il_grps g;
	struct ipi_point *pt;
	int npt, cappt;
};

/* The machine, benchmark and configuration of @r, or 0 to skip it. */
static int row_config(const struct il_srow *r, char *cfg, size_t cfglen,
		      char *label, size_t lablen)
{
	const struct il_bench_report *d;

	if (r->grp < 0)
		return 0;
	d = il_bench_report_of(r->bench);
	if (!d->ipi_metric || strcmp(r->metric, d->ipi_metric))
		return 0;
	if (il_params_label(r->bench, r->params, IL_PARAMS_DROP_LISTS, label, lablen))
		return il_errorf(-EINVAL, "run %s: %s", r->run_uuid, il_errmsg());
	snprintf(cfg, cfglen, "%s\x1f%s\x1f%s\x1f%s", r->host, r->machine_uuid,
		 r->bench, label);
	return 1;
}

static int add_point(struct ipi_ctx *c, const char *cfg, const struct il_srow *r)
{
	int64_t med = r->hist && il_hist_count(r->hist) ?
		(int64_t)il_hist_percentile_in(r->hist, 50, r->sum.min, r->sum.max) : r->p50;

	if (med < 0 || r->is_ref)
		return 0;
	if (IL_GROW(c->pt, c->cappt, (size_t)c->npt + 1, 64))
		return il_errorf(-ENOMEM, "out of memory");
	c->pt[c->npt].cfg = strdup(cfg);
	if (!c->pt[c->npt].cfg)
		return il_errorf(-ENOMEM, "out of memory");
	c->pt[c->npt].n = (double)r->grp;
	c->pt[c->npt].med = (double)med;
	c->npt++;
	return 0;
}

static int add(const struct il_srow *r, void *arg)
{
	struct ipi_ctx *c = arg;
	char cfg[1024], label[512], key[1100], n[24];
	const char *labels[6];
	int ret = row_config(r, cfg, sizeof(cfg), label, sizeof(label));

	if (ret <= 0)
		return ret;
	/* Zero-padded N so the sorted keys put 2 before 10. */
	snprintf(key, sizeof(key), "%s\x1f%010" PRId64, cfg, r->grp);
	snprintf(n, sizeof(n), "%" PRId64, r->grp);
	labels[0] = r->host;
	labels[1] = r->bench;
	labels[2] = label;
	labels[3] = n;
	labels[4] = cfg;
	labels[5] = NULL;
	return il_grps_add(&c->g, key, labels, r) ?: add_point(c, cfg, r);
}

static void ctx_free(struct ipi_ctx *c)
{
	int i;

	for (i = 0; i < c->npt; i++)
		free(c->pt[i].cfg);
	free(c->pt);
	il_grps_free(&c->g);
}

static int collect(struct il_store *s, const struct il_analysis_opts *o,
		   struct ipi_ctx *c)
{
	int ret;

	memset(c, 0, sizeof(*c));
	ret = il_rows_foreach(s, o->bench, NULL, add, c);
	if (ret)
		ctx_free(c);
	else
		il_grps_sort(&c->g);
	return ret;
}

static const char *const scale_cols[] = {
	"Machine", "Benchmark", "Configuration", "Targets", "Runs", "Samples",
	"Round median (ns)", "Marginal per target (ns)",
};

static int scaling_table(const struct ipi_ctx *c, struct il_table **out)
{
	struct il_table *t;
	int i, base = -1, ret = 0;

	t = il_table_new("IPI cost against the number of targets", 8, scale_cols);
	if (!t)
		return il_errorf(-ENOMEM, "out of memory");
	/* Sorted by configuration, then N: N = 0 comes first in each. */
	for (i = 0; !ret && i < c->g.n; i++) {
		const struct il_grp *p = &c->g.v[i];
		int64_t med = il_grp_pct(p, 50), n = atoll(p->label[3]);
		char runs[24], cnt[24], m[32], marg[32];
		const char *cells[8];

		if (base < 0 || strcmp(c->g.v[base].label[4], p->label[4]))
			base = n == 0 ? i : -1;
		snprintf(runs, sizeof(runs), "%d", p->runs);
		snprintf(cnt, sizeof(cnt), "%" PRIu64, p->sum.count);
		il_fmt_u64(m, sizeof(m), med);
		snprintf(marg, sizeof(marg), "-");
		if (n > 0 && base >= 0 && med >= 0 && il_grp_pct(&c->g.v[base], 50) >= 0)
			snprintf(marg, sizeof(marg), "%.1f",
				 (double)(med - il_grp_pct(&c->g.v[base], 50)) / (double)n);
		cells[0] = p->label[0];
		cells[1] = p->label[1];
		cells[2] = *p->label[2] ? p->label[2] : "-";
		cells[3] = p->label[3];
		cells[4] = runs;
		cells[5] = cnt;
		cells[6] = m;
		cells[7] = marg;
		ret = il_table_add(t, cells);
	}
	if (!ret)
		ret = il_table_note(t, "One row per machine, benchmark, configuration and target count N. "
				    "Configuration: the run parameters except sample counts and the targets list; "
				    "runs that differ in it are never merged. Runs: how many runs were merged into the row; "
				    "Samples: how many timed rounds they hold together. "
				    "Round median: the median of all those rounds, from the first send to the last target's "
				    "acknowledgement (ipi_storm) or around one membarrier()/madvise()/mprotect() call. "
				    "Marginal per target = (median(N) - median(0)) / N, the cost of the targets without the "
				    "fixed cost of the call; '-' where the configuration has no N = 0 row. "
				    "The fit table gives the slope with its interval.");
	if (ret) {
		il_table_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

static const char *const fit_cols[] = {
	"Machine", "Benchmark", "Configuration", "Runs", "Points", "Targets",
	"Slope (ns/target)", "95% CI low", "95% CI high",
};

/* The fit of configuration @cfg (label of group @p) into one row of @t. */
static int fit_row(const struct ipi_ctx *c, const struct il_grp *p, int runs,
		   struct il_table *t)
{
	double *x = malloc((size_t)(c->npt + 1) * sizeof(*x));
	double *y = malloc((size_t)(c->npt + 1) * sizeof(*y));
	char nr[24], np[24], range[48], sl[32], lo[48], hi[48];
	const char *cells[9];
	struct il_theilsen f;
	double xmin = 0, xmax = 0;
	int i, n = 0, ret;

	if (!x || !y) {
		free(x);
		free(y);
		return il_errorf(-ENOMEM, "out of memory");
	}
	for (i = 0; i < c->npt; i++) {
		if (strcmp(c->pt[i].cfg, p->label[4]))
			continue;
		if (!n || c->pt[i].n < xmin)
			xmin = c->pt[i].n;
		if (!n || c->pt[i].n > xmax)
			xmax = c->pt[i].n;
		x[n] = c->pt[i].n;
		y[n++] = c->pt[i].med;
	}
	snprintf(nr, sizeof(nr), "%d", runs);
	snprintf(np, sizeof(np), "%d", n);
	snprintf(range, sizeof(range), "%.0f-%.0f", xmin, xmax);
	snprintf(sl, sizeof(sl), "-");
	snprintf(lo, sizeof(lo), "-");
	snprintf(hi, sizeof(hi), "-");
	ret = n ? il_theilsen(x, y, n, &f) : -EINVAL;
	if (!ret) {
		snprintf(sl, sizeof(sl), "%.1f", f.slope);
		if (f.has_ci) {
			snprintf(lo, sizeof(lo), "%.1f", f.lo);
			snprintf(hi, sizeof(hi), "%.1f", f.hi);
		} else {
			snprintf(lo, sizeof(lo), "n/a: too few points");
			snprintf(hi, sizeof(hi), "n/a: too few points");
		}
	} else if (ret == -EINVAL) {
		snprintf(sl, sizeof(sl), "n/a: one target count");
	}
	free(x);
	free(y);
	if (ret && ret != -EINVAL)
		return ret;
	cells[0] = p->label[0];
	cells[1] = p->label[1];
	cells[2] = *p->label[2] ? p->label[2] : "-";
	cells[3] = nr;
	cells[4] = np;
	cells[5] = range;
	cells[6] = sl;
	cells[7] = lo;
	cells[8] = hi;
	return il_table_add(t, cells);
}

/* The distinct runs behind configuration @cfg: the most of any N's row. */
static int config_runs(const struct ipi_ctx *c, int i, int *next)
{
	int j, runs = 0;

	for (j = i; j < c->g.n && !strcmp(c->g.v[j].label[4], c->g.v[i].label[4]); j++)
		if (c->g.v[j].runs > runs)
			runs = c->g.v[j].runs;
	*next = j;
	return runs;
}

static int fit_table(const struct ipi_ctx *c, struct il_table **out)
{
	struct il_table *t;
	int i, j, ret = 0;

	t = il_table_new("IPI cost per added target: fit against N", 9, fit_cols);
	if (!t)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; !ret && i < c->g.n; i = j) {
		int runs = config_runs(c, i, &j);

		ret = fit_row(c, &c->g.v[i], runs, t);
	}
	if (!ret)
		ret = il_table_note(t, "One row per machine, benchmark and configuration. "
				    "Slope: the Theil-Sen estimate (the median of the slopes between every two points "
				    "with different N) of the round median against the target count N, in ns per added "
				    "target. Points: one per run and target count, that run's own median, so the run is "
				    "the unit; Runs: the most runs behind any one N; Targets: the range of N fitted. "
				    "95%% CI: Sen's distribution-free interval, from the ranks of the pairwise slopes at "
				    "(pairs -/+ 1.96 sd of Kendall's S) / 2 with ties in N accounted for; "
				    "'n/a: too few points' when those ranks fall outside the slopes. "
				    "It assumes the points are independent: runs that drift together make it too narrow.");
	if (ret) {
		il_table_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

/* Collect the rows once and build one of the two tables from them. */
static int report(struct il_store *s, const struct il_analysis_opts *o,
		  int (*build)(const struct ipi_ctx *c, struct il_table **out),
		  struct il_table **out)
{
	struct ipi_ctx c;
	int ret;

	*out = NULL;
	ret = collect(s, o, &c);
	if (ret)
		return ret;
	ret = build(&c, out);
	ctx_free(&c);
	return ret;
}

int il_report_ipi(struct il_store *s, const struct il_analysis_opts *o,
		  struct il_table **out)
{
	return report(s, o, scaling_table, out);
}

int il_report_ipi_fit(struct il_store *s, const struct il_analysis_opts *o,
		      struct il_table **out)
{
	return report(s, o, fit_table, out);
}
