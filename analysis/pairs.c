// SPDX-License-Identifier: GPL-2.0-only
/*
 * pairs.c - the pair matrix, printed the way core-to-core-latency prints
 * its tables: per machine, one row per waker CPU, one column per sleeper
 * CPU, the merged median wake latency (ns) in each cell and "-" where the
 * pair was not measured.  Rows are those of the metric a benchmark declares
 * as its pair metric (bench.h's report.pairs_metric; futex_wake's
 * wake_latency), one matrix per machine, benchmark and configuration: the
 * run parameters except the sample counts (il_params_label()), so runs
 * with different idle_us, which wake from different idle depths, are
 * never merged into one median.
 */
#include "analysis.h"
#include "bench.h"
#include "err.h"
#include "groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add(const struct il_srow *r, void *arg)
{
	const struct il_bench_report *d = il_bench_report_of(r->bench);
	char key[1024], a[16], b[16], cfg[512], what[600];
	const char *labels[6];

	if (!d->pairs_metric || strcmp(r->metric, d->pairs_metric) ||
	    r->cpu < 0 || r->cpu2 < 0)
		return 0;
	if (il_params_label(r->bench, r->params, IL_PARAMS_KEEP_LISTS, cfg,
			    sizeof(cfg)))
		return il_errorf(-EINVAL, "run %s: %s", r->run_uuid, il_errmsg());
	/* The benchmark and its configuration are in the key: two that
	 * declare a pair metric, or one run two ways, get a matrix each,
	 * never one merged. */
	snprintf(what, sizeof(what), "%s%s%s", r->bench, *cfg ? " " : "", cfg);
	snprintf(key, sizeof(key), "%s\x1f%s\x1f%s\x1f%06d\x1f%06d", r->host,
		 r->machine_uuid, what, r->cpu, r->cpu2);
	snprintf(a, sizeof(a), "%d", r->cpu);
	snprintf(b, sizeof(b), "%d", r->cpu2);
	labels[0] = r->host;
	labels[1] = r->machine_uuid;
	labels[2] = a;
	labels[3] = b;
	labels[4] = what;
	labels[5] = NULL;
	return il_grps_add(arg, key, labels, r);
}

static int int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The sorted distinct values of label @l over groups [i, j). */
static int distinct(const struct il_grps *g, int i, int j, int l, int *out)
{
	int k, m, n = 0;

	for (k = i; k < j; k++) {
		int v = atoi(g->v[k].label[l]);

		for (m = 0; m < n && out[m] != v; m++)
			;
		if (m == n)
			out[n++] = v;
	}
	qsort(out, n, sizeof(*out), int_cmp);
	return n;
}

static int matrix(const struct il_grps *g, int i, int j, struct il_table **out)
{
	int *rows = calloc(j - i, sizeof(int)), *cols = calloc(j - i, sizeof(int));
	int nr, nc, r, c, k, runs, ret = 0;
	const char **names = NULL, **cells = NULL;
	char (*buf)[24] = NULL, (*vals)[24] = NULL, title[400];
	struct il_table *t = NULL;

	nr = distinct(g, i, j, 2, rows);
	nc = distinct(g, i, j, 3, cols);
	names = calloc(nc + 1, sizeof(*names));
	cells = calloc(nc + 1, sizeof(*cells));
	buf = calloc(nc + 1, sizeof(*buf));
	vals = calloc(nc + 1, sizeof(*vals));
	if (!rows || !cols || !names || !cells || !buf || !vals) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	names[0] = "waker\\sleeper";
	for (c = 0; c < nc; c++) {
		snprintf(buf[c + 1], sizeof(buf[0]), "%d", cols[c]);
		names[c + 1] = buf[c + 1];
	}
	snprintf(title, sizeof(title),
		 "%s median wake latency (ns), waker -> sleeper: %s",
		 g->v[i].label[4], g->v[i].label[0]);
	t = il_table_new(title, nc + 1, names);
	if (!t) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	for (r = 0; !ret && r < nr; r++) {
		snprintf(buf[0], sizeof(buf[0]), "%d", rows[r]);
		cells[0] = buf[0];
		for (c = 0; c < nc; c++) {
			char *cb = vals[c];

			snprintf(cb, 24, "-");
			for (k = i; k < j; k++)
				if (atoi(g->v[k].label[2]) == rows[r] &&
				    atoi(g->v[k].label[3]) == cols[c])
					il_fmt_u64(cb, 24, il_grp_pct(&g->v[k], 50));
			cells[c + 1] = cb;
		}
		ret = il_table_add(t, cells);
	}
	for (k = i, runs = 0; k < j; k++)
		if (g->v[k].runs > runs)
			runs = g->v[k].runs;
	if (!ret)
		ret = il_table_note(t, "Row: the waking CPU; column: the sleeping CPU; cell: the median of every "
				    "sample of the runs that measured the pair with these parameters (at most %d "
				    "run%s per cell); '-' where the pair was not measured.", runs, runs == 1 ? "" : "s");
out:
	if (ret)
		il_table_free(t);
	else
		*out = t;
	free(rows);
	free(cols);
	free(names);
	free(cells);
	free(buf);
	free(vals);
	return ret;
}

int il_report_pairs(struct il_store *s, const struct il_analysis_opts *o,
		    struct il_table ***out, int *nout)
{
	struct il_grps g = { 0 };
	struct il_table **v = NULL;
	int i, j, n = 0, ret;

	*out = NULL;
	*nout = 0;
	ret = il_rows_foreach(s, o->bench, NULL, add, &g);
	if (ret)
		goto out;
	il_grps_sort(&g);
	for (i = 0; !ret && i < g.n; i = j) {
		struct il_table **nv;

		for (j = i; j < g.n && !strcmp(g.v[j].label[1], g.v[i].label[1]) &&
		     !strcmp(g.v[j].label[4], g.v[i].label[4]); j++)
			;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			ret = il_errorf(-ENOMEM, "out of memory");
			break;
		}
		v = nv;
		ret = matrix(&g, i, j, &v[n]);
		if (!ret)
			n++;
	}
	if (ret) {
		for (i = 0; i < n; i++)
			il_table_free(v[i]);
		free(v);
	} else {
		*out = v;
		*nout = n;
	}
out:
	il_grps_free(&g);
	return ret;
}
