// SPDX-License-Identifier: GPL-2.0-only
/*
 * plot.c - plots through gnuplot: for every run group (machine x benchmark
 * x parameters x metric x target count, all CPUs merged) a latency
 * histogram and a CDF; per machine the IPI cost against the target count,
 * one line per mode; per machine the futex pair-matrix heatmap; the
 * declared kind's plots (idle_declared_plot.c).  Each plot
 * is a data file plus a gnuplot script left in the output directory (so a
 * figure can be restyled by hand and rerun), rendered to PNG and SVG by
 * running gnuplot, whose exit status is checked.
 *
 * The histogram's buckets are 0.1 % wide, far too narrow to see, so the
 * histogram plot rebins them onto 60 logarithmic bins between the group's
 * min and max; the CDF uses every bucket.
 */
#include "analysis.h"
#include "err.h"
#include "groups.h"
#include "outfile.h"
#include "plot_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBINS 60
#define MAX_PLOTS 200

/*
 * Tics at 1, 2 and 5 per decade: gnuplot labels only whole decades on a
 * log axis, which leaves a narrow range with one label or none.
 */
static void log_tics(FILE *f, double lo, double hi)
{
	static const int m[] = { 1, 2, 5 };
	double d;
	int i, n = 0;

	fputs("set xtics (", f);
	for (d = pow(10, floor(log10(lo))); d <= hi; d *= 10)
		for (i = 0; i < 3; i++)
			if (d * m[i] >= lo && d * m[i] <= hi)
				fprintf(f, "%s'%.0f' %.0f", n++ ? ", " : "", d * m[i], d * m[i]);
	fputs(")\n", f);
}

/* The widest title line, in characters, a 900-pixel plot shows whole. */
#define TITLE_WIDTH 100

/*
 * The title: what was measured, then its parameters ("key=value ..."),
 * broken between words into lines that fit rather than cut off.
 */
static void group_title(FILE *f, const char *what, const char *params)
{
	const char *p = params;

	fputs("set title ", f);
	il_plot_str(f, what);
	while (*p) {
		char line[TITLE_WIDTH + 1];
		size_t n = strlen(p), cut;

		if (n > TITLE_WIDTH) {
			for (cut = TITLE_WIDTH; cut > 0 && p[cut] != ' '; cut--)
				;
			n = cut ? cut : TITLE_WIDTH;
		}
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		fputs(" . \"\\n\" . ", f);
		il_plot_str(f, line);
		p += n;
		while (*p == ' ')
			p++;
	}
	fputs(" noenhanced\n", f);
}

struct hist_ctx {
	FILE *f;
	double lo, hi;
	uint64_t total, acc;
	uint64_t bins[NBINS];
};

static int cdf_visit(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
{
	struct hist_ctx *c = arg;

	(void)lo;
	c->acc += count;
	fprintf(c->f, "%" PRIu64 " %.6f\n", hi, (double)c->acc / (double)c->total);
	return 0;
}

static int bin_visit(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
{
	struct hist_ctx *c = arg;
	double mid = ((double)lo + (double)hi) / 2;
	int b = c->hi > c->lo ?
		(int)(NBINS * (log(mid) - log(c->lo)) / (log(c->hi) - log(c->lo) + 1e-12)) : 0;

	if (b < 0)
		b = 0;
	if (b >= NBINS)
		b = NBINS - 1;
	c->bins[b] += count;
	return 0;
}

static int group_add(const struct il_srow *r, void *arg)
{
	char key[2048], extra[400], shown[600], params[400], n[32] = "";
	const char *labels[6];

	if (r->is_ref || !r->hist || !il_hist_count(r->hist))
		return 0;
	if (r->grp >= 0)
		snprintf(n, sizeof(n), " targets=%" PRId64, r->grp);
	/* Runs that differ only in their idle state or wake source apart. */
	snprintf(extra, sizeof(extra), "%s%s%s%s%s%s", r->params, n,
		 r->idle_state ? " idle_state=" : "", r->idle_state ? r->idle_state : "",
		 r->wake_source ? " wake_source=" : "", r->wake_source ? r->wake_source : "");
	snprintf(key, sizeof(key), "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%010" PRId64,
		 r->host, r->machine_uuid, r->bench, extra, r->metric, r->grp);
	labels[0] = r->host;
	labels[1] = r->bench;
	labels[2] = r->metric;
	labels[3] = r->unit;
	/* The title shows the parameters as key=value, not their JSON. */
	if (il_params_label(r->bench, r->params, IL_PARAMS_KEEP_LISTS,
			    params, sizeof(params)))
		snprintf(params, sizeof(params), "%s", r->params);
	snprintf(shown, sizeof(shown), "%s%s%s%s%s%s", params, n,
		 r->idle_state ? " idle_state=" : "", r->idle_state ? r->idle_state : "",
		 r->wake_source ? " wake_source=" : "", r->wake_source ? r->wake_source : "");
	labels[4] = shown;
	labels[5] = NULL;
	return il_grps_add(arg, key, labels, r);
}

static int plot_groups(struct il_store *s, const struct il_analysis_opts *o,
		       const char *dir, struct il_plot_names *nm)
{
	struct il_grps g = { 0 };
	int i, b, ret;

	ret = il_rows_foreach(s, o->bench, NULL, group_add, &g);
	if (ret)
		goto out;
	il_grps_sort(&g);
	for (i = 0; !ret && i < g.n && i < MAX_PLOTS; i++) {
		const struct il_grp *p = &g.v[i];
		struct hist_ctx c = { .total = il_hist_count(p->hist) };
		char name[64], data[80], *body = NULL, title[1024];
		size_t len = 0;
		FILE *bf;
		/* Log scale only where it helps: gnuplot labels decades only. */
		int logx = il_hist_max(p->hist) > 20 * (il_hist_min(p->hist) + 1);

		snprintf(title, sizeof(title), "%s %s %s", p->label[0],
			 p->label[1], p->label[2]);
		/* The CDF, every bucket at its upper edge. */
		snprintf(data, sizeof(data), "group%03d-cdf.dat", i);
		c.f = il_plot_open(dir, data);
		if (!c.f) {
			ret = il_plot_open_err(dir, data);
			break;
		}
		fprintf(c.f, "# %s %s\n# value_%s cumulative_fraction\n", title, p->label[4], p->label[3]);
		il_hist_foreach(p->hist, cdf_visit, &c);
		fclose(c.f);
		bf = open_memstream(&body, &len);
		group_title(bf, title, p->label[4]);
		if (logx)
			log_tics(bf, (double)il_hist_min(p->hist), (double)il_hist_max(p->hist));
		fprintf(bf, "set xlabel '%s (%s)%s'\nset ylabel 'fraction of samples <= x'\n"
			    "%sset grid\nset key off\nset yrange [0:1.02]\n"
			    "set xrange [%.0f:%.0f]\n"
			    "plot '%s' using 1:2 with steps lw 2\n",
			p->label[2], p->label[3], logx ? ", log scale" : "",
			logx ? "set logscale x\n" : "",
			(double)il_hist_min(p->hist) * 0.98,
			(double)il_hist_max(p->hist) * 1.02 + 1, data);
		fclose(bf);
		snprintf(name, sizeof(name), "group%03d-cdf", i);
		ret = il_plot_render(dir, name, body, nm);
		free(body);
		if (ret)
			break;
		/* The histogram, rebinned on log-spaced bins. */
		c.lo = (double)(il_hist_min(p->hist) ? il_hist_min(p->hist) : 1);
		c.hi = (double)il_hist_max(p->hist) + 1;
		il_hist_foreach(p->hist, bin_visit, &c);
		snprintf(data, sizeof(data), "group%03d-hist.dat", i);
		c.f = il_plot_open(dir, data);
		if (!c.f) {
			ret = il_plot_open_err(dir, data);
			break;
		}
		fprintf(c.f, "# %s %s\n# bin_low_%s bin_high_%s samples\n", title, p->label[4], p->label[3], p->label[3]);
		for (b = 0; b < NBINS; b++) {
			double l = exp(log(c.lo) + (log(c.hi) - log(c.lo)) * b / NBINS);
			double h = exp(log(c.lo) + (log(c.hi) - log(c.lo)) * (b + 1) / NBINS);

			fprintf(c.f, "%.1f %.1f %" PRIu64 "\n", l, h, c.bins[b]);
		}
		fclose(c.f);
		body = NULL;
		bf = open_memstream(&body, &len);
		group_title(bf, title, p->label[4]);
		if (logx)
			log_tics(bf, c.lo, c.hi);
		fprintf(bf, "set xlabel '%s (%s)%s'\nset ylabel 'samples per bin'\n"
			    "%sset grid\nset key off\nset style fill solid 0.6\n"
			    "set xrange [%.0f:%.0f]\nset yrange [0:*]\n"
			    "plot '%s' using (sqrt($1*$2)):3:1:2:(0):3 with boxxyerror lc rgb '#3060a0'\n",
			p->label[2], p->label[3], logx ? ", log scale" : "",
			logx ? "set logscale x\n" : "", c.lo * 0.98, c.hi * 1.02, data);
		fclose(bf);
		snprintf(name, sizeof(name), "group%03d-hist", i);
		ret = il_plot_render(dir, name, body, nm);
		free(body);
	}
out:
	il_grps_free(&g);
	return ret;
}

/* Cell @c of row @r of the IPI scaling table (ipi.c's column order). */
#define IPI_CELL(t, r, c) ((t)->cells[(r) * (t)->ncols + (c)])

/* True if rows @a and @b of the scaling table are one configuration. */
static bool ipi_same_line(const struct il_table *t, int a, int b)
{
	return !strcmp(IPI_CELL(t, a, 1), IPI_CELL(t, b, 1)) &&
	       !strcmp(IPI_CELL(t, a, 2), IPI_CELL(t, b, 2));
}

static int plot_ipi(struct il_store *s, const struct il_analysis_opts *o,
		    const char *dir, struct il_plot_names *nm)
{
	struct il_table *t;
	int r, ret, nplot = 0;

	ret = il_report_ipi(s, o, &t);
	if (ret)
		return ret;
	/* Rows are sorted by machine, then configuration, then N: one plot
	 * per machine, one line (a data block) per configuration. */
	for (r = 0; !ret && r < t->nrows; nplot++) {
		const char *host = IPI_CELL(t, r, 0);
		char data[64], name[64], *body = NULL;
		size_t len = 0;
		FILE *f, *bf;
		int r0 = r, nlines = 0;

		snprintf(data, sizeof(data), "ipi%02d.dat", nplot);
		f = il_plot_open(dir, data);
		if (!f) {
			ret = il_plot_open_err(dir, data);
			il_table_free(t);
			return ret;
		}
		bf = open_memstream(&body, &len);
		fprintf(bf, "set title 'IPI cost against target count: ' . ");
		il_plot_str(bf, host);
		fprintf(bf, " noenhanced\nset xlabel 'target CPUs (count)'\n"
			    "set ylabel 'median time per round (ns)'\nset grid\n"
			    "set key top left noenhanced\n"
			    "set xrange [0:*]\nset yrange [0:*]\nplot ");
		fprintf(f, "# one block per benchmark and configuration: targets, round median (ns)\n");
		for (; r < t->nrows && !strcmp(IPI_CELL(t, r, 0), host); nlines++) {
			char title[600];
			int first = r;

			if (nlines)
				fputs("\n\n", f);
			for (; r < t->nrows && !strcmp(IPI_CELL(t, r, 0), host) &&
			       ipi_same_line(t, first, r); r++)
				if (strcmp(IPI_CELL(t, r, 6), "-"))
					fprintf(f, "%s %s\n", IPI_CELL(t, r, 3),
						IPI_CELL(t, r, 6));
			snprintf(title, sizeof(title), "%s%s%s", IPI_CELL(t, first, 1),
				 strcmp(IPI_CELL(t, first, 2), "-") ? " " : "",
				 strcmp(IPI_CELL(t, first, 2), "-") ? IPI_CELL(t, first, 2) : "");
			fprintf(bf, "%s'%s' index %d using 1:2 with linespoints lw 2 title ",
				nlines ? ", " : "", data, nlines);
			il_plot_str(bf, title);
		}
		fputc('\n', bf);
		fclose(bf);
		fclose(f);
		snprintf(name, sizeof(name), "ipi%02d", nplot);
		ret = r > r0 ? il_plot_render(dir, name, body, nm) : 0;
		free(body);
	}
	il_table_free(t);
	return ret;
}

static int plot_pairs(struct il_store *s, const struct il_analysis_opts *o,
		      const char *dir, struct il_plot_names *nm)
{
	struct il_table **v;
	int n, i, r, c, ret;

	ret = il_report_pairs(s, o, &v, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		struct il_table *t = v[i];
		char data[64], name[64], *body = NULL;
		size_t len = 0;
		FILE *f, *bf;

		if (!ret) {
			snprintf(data, sizeof(data), "pairs%02d.dat", i);
			f = il_plot_open(dir, data);
			if (!f) {
				ret = il_plot_open_err(dir, data);
				goto next;
			}
			fprintf(f, "# sleeper_cpu waker_cpu median_ns\n");
			for (r = 0; r < t->nrows; r++)
				for (c = 1; c < t->ncols; c++)
					if (strcmp(t->cells[r * t->ncols + c], "-"))
						fprintf(f, "%s %s %s\n", t->cols[c],
							t->cells[r * t->ncols],
							t->cells[r * t->ncols + c]);
			fclose(f);
			bf = open_memstream(&body, &len);
			fprintf(bf, "set title ");
			il_plot_str(bf, t->title);
			fprintf(bf, " noenhanced\nset xlabel 'sleeper CPU (id)'\nset ylabel 'waker CPU (id)'\n"
				    "set cblabel 'median wake latency (ns)'\nset palette defined (0 '#2c7bb6', 1 '#ffffbf', 2 '#d7191c')\n"
				    "set size ratio -1\nset key off\nset xtics 1\nset ytics 1\n"
				    "set offsets 0.5,0.5,0.5,0.5\nset style fill solid 1.0 noborder\n"
				    "plot '%s' using 1:2:(0.5):(0.5):3 with boxxyerror fc palette, "
				    "'' using 1:2:(sprintf('%%d',$3)) with labels font ',8' tc rgb 'black'\n",
				data);
			fclose(bf);
			snprintf(name, sizeof(name), "pairs%02d", i);
			ret = il_plot_render(dir, name, body, nm);
			free(body);
		}
next:
		il_table_free(t);
	}
	free(v);
	return ret;
}

/*
 * --causes runs: one stacked bar per run and CPU, the time lost per cause
 * kind (the causes report's first table, in µs), one colour per kind.
 */
/*
 * The causes plot has one stacked bar per run and CPU, which a fleet's
 * --causes runs turn into hundreds of thousands of unreadable bars and an
 * SVG of hundreds of MB (BENCHMARKS.md, section 9).  Past CAUSES_BARS
 * rows it keeps the CAUSES_BARS that lost the most time, in table order,
 * and its title says so; the table itself still lists every row.
 */
#define CAUSES_BARS 40

static double causes_row_lost(const struct il_table *t, int r)
{
	double sum = 0;
	int k;

	for (k = 0; il_cause_kinds[k]; k++)
		sum += strtod(t->cells[r * t->ncols + 7 + k], NULL);
	return sum;
}

/*
 * Mark in @keep the rows to plot: all, or the CAUSES_BARS with the most
 * time lost (ties to the earlier row).  Return: how many are kept.
 */
static int causes_pick(const struct il_table *t, bool *keep)
{
	double *lost;
	int r, i, n = 0;

	if (t->nrows <= CAUSES_BARS) {
		for (r = 0; r < t->nrows; r++)
			keep[r] = true;
		return t->nrows;
	}
	lost = calloc((size_t)t->nrows, sizeof(*lost));
	if (!lost)
		return -ENOMEM;
	for (r = 0; r < t->nrows; r++)
		lost[r] = causes_row_lost(t, r);
	/* CAUSES_BARS passes of a linear scan: bounded, no sort of all rows. */
	for (i = 0; i < CAUSES_BARS; i++) {
		int best = -1;

		for (r = 0; r < t->nrows; r++)
			if (!keep[r] && (best < 0 || lost[r] > lost[best]))
				best = r;
		keep[best] = true;
		n++;
	}
	free(lost);
	return n;
}

static int plot_causes(struct il_store *s, const struct il_analysis_opts *o,
		       const char *dir, struct il_plot_names *nm)
{
	struct il_table *tot, *top;
	char *body = NULL;
	bool *keep = NULL;
	size_t len = 0;
	FILE *f, *bf;
	int r, k, ret, kept;

	ret = il_report_causes(s, o, &tot, &top);
	if (ret)
		return ret;
	il_table_free(top);
	if (!tot->nrows || tot->ncols < 7) {
		il_table_free(tot);
		return 0;
	}
	keep = calloc((size_t)tot->nrows, sizeof(*keep));
	kept = keep ? causes_pick(tot, keep) : -ENOMEM;
	if (kept < 0) {
		free(keep);
		il_table_free(tot);
		return il_errorf(-ENOMEM, "out of memory");
	}
	f = il_plot_open(dir, "causes.dat");
	if (!f) {
		ret = il_plot_open_err(dir, "causes.dat");
		free(keep);
		il_table_free(tot);
		return ret;
	}
	/* Columns 7.. of the table are the kinds, in il_cause_kinds order. */
	fprintf(f, "# run/cpu, then time lost (us) per kind:");
	for (k = 0; il_cause_kinds[k]; k++)
		fprintf(f, " %s", il_cause_kinds[k]);
	fputc('\n', f);
	for (r = 0; r < tot->nrows; r++) {
		if (!keep[r])
			continue;
		fprintf(f, "\"%s %s cpu%s\"", tot->cells[r * tot->ncols],
			tot->cells[r * tot->ncols + 1], tot->cells[r * tot->ncols + 2]);
		for (k = 0; il_cause_kinds[k]; k++)
			fprintf(f, " %s", tot->cells[r * tot->ncols + 7 + k]);
		fputc('\n', f);
	}
	fclose(f);
	bf = open_memstream(&body, &len);
	if (kept < tot->nrows)
		fprintf(bf, "set title 'Time lost per cause and CPU: the %d of %d run/CPU pairs that lost the most (--causes runs)'\n",
			kept, tot->nrows);
	else
		fprintf(bf, "set title 'Time lost per cause and CPU (--causes runs)'\n");
	fprintf(bf, "set ylabel 'time lost over the attributed samples (us)'\n"
		    "set style data histograms\nset style histogram rowstacked\n"
		    "set style fill solid 0.8 border -1\nset boxwidth 0.7\n"
		    "set key outside right noenhanced\nset xtics rotate by -30\n"
		    "set yrange [0:*]\nset grid ytics\nplot ");
	for (k = 0; il_cause_kinds[k]; k++)
		fprintf(bf, "%s'causes.dat' using %d%s title '%s'", k ? ", " : "",
			2 + k, k ? "" : ":xtic(1)", il_cause_kinds[k]);
	fputc('\n', bf);
	fclose(bf);
	free(keep);
	il_table_free(tot);
	ret = body ? il_plot_render(dir, "causes", body, nm) :
	      il_errorf(-ENOMEM, "out of memory");
	free(body);
	return ret;
}

int il_plots(struct il_store *s, const struct il_analysis_opts *o,
	     const char *dir, char ***names)
{
	struct il_plot_names nm = { 0 };
	int ret;

	*names = NULL;
	if (!il_plot_have_gnuplot())
		return il_errorf(-ENOENT, "plots unavailable: gnuplot not installed (Debian: apt-get install gnuplot-nox)");
	ret = plot_groups(s, o, dir, &nm) ?: plot_ipi(s, o, dir, &nm) ?:
	      plot_pairs(s, o, dir, &nm) ?: plot_causes(s, o, dir, &nm) ?:
	      il_plot_declared(s, dir, &nm);
	if (!ret && nm.n)
		ret = il_plot_run(dir, nm.v, nm.n);
	if (!nm.v)
		nm.v = calloc(1, sizeof(char *));
	*names = nm.v;
	return ret;
}
