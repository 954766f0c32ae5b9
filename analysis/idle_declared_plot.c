// SPDX-License-Identifier: GPL-2.0-only
/*
 * idle_declared_plot.c - the plots of `report --kind declared` (issue
 * 24), per machine and wake source of the idle_sweep runs: the wake
 * latency against the idle time d (p50 and p99 of the samples that
 * entered each state alone at that d), and the CDF of each state's
 * samples over every d.  One series per state that has samples; a state
 * nothing entered has no series rather than a line at 0.  The data comes
 * from il_dcl_load(), the table's own reader, so plot and table agree.
 */
#include "err.h"
#include "idle_declared.h"
#include "plot_internal.h"
#include "stats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cdf_ctx {
	FILE *f;
	uint64_t total, acc;
};

static int cdf_visit(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
{
	struct cdf_ctx *c = arg;

	(void)lo;
	c->acc += count;
	fprintf(c->f, "%.3f %.6f\n", (double)hi / 1000,
		(double)c->acc / (double)c->total);
	return 0;
}

/* The slots of @b's idle times, shortest first, into @ord. */
static void d_order(const struct dcl_block *b, int *ord)
{
	int i, j, t;

	for (i = 0; i < b->nd; i++)
		ord[i] = i;
	for (i = 1; i < b->nd; i++)
		for (j = i; j > 0 && b->d[ord[j - 1]] > b->d[ord[j]]; j--) {
			t = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = t;
		}
}

/*
 * One data set per state with samples, in the data file @f: for @cdf the
 * CDF of its pooled samples, else p50 and p99 at each d.  Each set is a
 * gnuplot index (two blank lines apart); @idx gets each one's state.
 */
static int write_sets(FILE *f, const struct dcl_block *b, bool cdf, int *idx)
{
	int ord[IL_DCL_MAX_D], k, i, n = 0;

	d_order(b, ord);
	for (k = 0; k < b->nstates; k++) {
		if (!b->h[k] || !il_hist_count(b->h[k]))
			continue;
		fprintf(f, "%s# %s\n", n ? "\n\n" : "", b->st[k].name);
		if (cdf) {
			struct cdf_ctx c = { f, il_hist_count(b->h[k]), 0 };

			il_hist_foreach(b->h[k], cdf_visit, &c);
		}
		for (i = 0; !cdf && i < b->nd; i++) {
			const struct il_hist *h = b->hd[ord[i]][k];

			if (h && il_hist_count(h))
				fprintf(f, "%" PRId64 " %.3f %.3f\n", b->d[ord[i]],
					(double)il_hist_percentile(h, 50) / 1000,
					(double)il_hist_percentile(h, 99) / 1000);
		}
		idx[n++] = k;
	}
	return n;
}

/* The script body of block @b's plot @kind from @data (@n sets). */
static char *plot_body(const struct dcl_block *b, bool cdf, const char *data,
		       const int *idx, int n)
{
	char *body = NULL, title[512];
	size_t len = 0;
	FILE *f = open_memstream(&body, &len);
	int i;

	if (!f)
		return NULL;
	snprintf(title, sizeof(title), "%s wake=%s (kernel %s): %s, per idle state entered",
		 b->host, b->wake, b->kernel,
		 cdf ? "CDF of the wake latency" : "wake latency against idle time");
	fputs("set title ", f);
	il_plot_str(f, title);
	fprintf(f, " noenhanced\nset grid\nset key outside right noenhanced\n"
		   "set logscale x\n%s\nplot ",
		cdf ? "set xlabel 'wake latency (us), log scale'\n"
		      "set ylabel 'fraction of samples <= x'\nset yrange [0:1.02]" :
		      "set xlabel 'idle time d (us), log scale'\n"
		      "set ylabel 'wake latency (us), log scale: p50 solid, p99 dashed'\nset logscale y");
	for (i = 0; i < n; i++) {
		fprintf(f, "%s'%s' index %d using 1:2 with %s lw 2 lc %d title ",
			i ? ", " : "", data, i, cdf ? "steps" : "linespoints",
			i + 1);
		il_plot_str(f, b->st[idx[i]].name);
		if (!cdf)
			fprintf(f, ", '%s' index %d using 1:3 with linespoints dt 2 lc %d notitle",
				data, i, i + 1);
	}
	fputc('\n', f);
	fclose(f);
	return body;
}

/* Plot @kind of block @b, number @i, if any state has samples. */
static int plot_one(const struct dcl_block *b, int i, bool cdf,
		    const char *dir, struct il_plot_names *nm)
{
	char name[64], data[80], *body;
	int idx[IL_ADV_MAX_STATES], n, ret;
	FILE *f;

	for (n = 0; n < b->nstates; n++)
		if (b->h[n] && il_hist_count(b->h[n]))
			break;
	if (n == b->nstates)	/* nothing entered a known state: no plot */
		return 0;
	snprintf(name, sizeof(name), "declared%02d-%s", i, cdf ? "cdf" : "latency");
	snprintf(data, sizeof(data), "%s.dat", name);
	f = il_plot_open(dir, data);
	if (!f)
		return il_plot_open_err(dir, data);
	fprintf(f, "# %s wake=%s kernel %s\n# %s\n", b->host, b->wake, b->kernel,
		cdf ? "wake_latency_us cumulative_fraction, one index per state" :
		      "idle_us p50_us p99_us, one index per state");
	n = write_sets(f, b, cdf, idx);
	if (fclose(f))
		return il_errorf(-EIO, "%s/%s: write error", dir, data);
	body = plot_body(b, cdf, data, idx, n);
	if (!body)
		return il_errorf(-ENOMEM, "out of memory");
	ret = il_plot_render(dir, name, body, nm);
	free(body);
	return ret;
}

int il_plot_declared(struct il_store *s, const char *dir,
		     struct il_plot_names *nm)
{
	struct dcl_block *v;
	int n = il_dcl_load(s, &v), i, ret = 0;

	if (n < 0)
		return n;
	for (i = 0; i < n && !ret; i++)
		if (v[i].nstates)
			ret = plot_one(&v[i], i, false, dir, nm) ?:
			      plot_one(&v[i], i, true, dir, nm);
	il_dcl_free(v, n);
	return ret;
}
