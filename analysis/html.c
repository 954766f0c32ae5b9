// SPDX-License-Identifier: GPL-2.0-only
/*
 * html.c - `idlelab report --format html --output PATH`: one page that
 * stands alone (html_page.h), with every table of the other kinds and the
 * plots (plot.c) inline as SVG.  PATH ending in .html is the page itself,
 * its plots made in a temporary directory; any other PATH is a directory
 * that gets index.html and keeps the plots' sources (data, gnuplot
 * scripts, PNG and SVG) beside it, to restyle by hand.  Without gnuplot
 * the page still holds the tables and says why there are no plots.  No
 * file written may be an input database (outfile.h); the page is written
 * to a temporary name and renamed into place when complete.
 */
#include "analysis.h"
#include "err.h"
#include "html_page.h"
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void tables(struct il_store *s, const struct il_analysis_opts *o, FILE *f)
{
	struct il_table *t, **v;
	struct il_report_opts ro = { .format = IL_FMT_HTML, .bench = o->bench };
	int n, i;

	if (!il_report_states(s, o, &t)) {
		il_table_print(t, IL_FMT_HTML, f);
		il_table_free(t);
	}
	if (o->ncompare >= 2 && !il_report_compare(s, o, &t)) {
		il_table_print(t, IL_FMT_HTML, f);
		il_table_free(t);
	}
	if (!il_report_ipi(s, o, &t)) {
		il_table_print(t, IL_FMT_HTML, f);
		il_table_free(t);
	}
	if (!il_report_ipi_fit(s, o, &t)) {
		il_table_print(t, IL_FMT_HTML, f);
		il_table_free(t);
	}
	if (!il_report_ipi_modes(s, o, &t) && t) {
		il_table_print(t, IL_FMT_HTML, f);
		il_table_free(t);
	}
	if (!il_report_refs(s, o, &t)) {
		il_table_print(t, IL_FMT_HTML, f);
		il_table_free(t);
	}
	/* Only a dataset with idle_sweep rows: the others' pages stay as
	 * they were. */
	if (!il_report_declared(s, o, &t)) {
		if (t->nrows)
			il_table_print(t, IL_FMT_HTML, f);
		il_table_free(t);
	}
	if (!il_report_pairs(s, o, &v, &n)) {
		for (i = 0; i < n; i++) {
			il_table_print(v[i], IL_FMT_HTML, f);
			il_table_free(v[i]);
		}
		free(v);
	}
	il_report(s, &ro, f);
}

/* Whether --output names the page itself rather than a directory. */
static int is_page(const char *output)
{
	size_t n = strlen(output);

	return n > 5 && !strcmp(output + n - 5, ".html");
}

int il_report_html(struct il_store *s, const struct il_analysis_opts *o,
		   const char *output)
{
	struct il_html_plots plots = { 0 };
	char path[4096];
	const char *dir = NULL;
	struct il_outfile of;
	int ret;

	if (is_page(output)) {
		snprintf(path, sizeof(path), "%s", output);
	} else {
		snprintf(path, sizeof(path), "%s/index.html", output);
		dir = output;
	}
	ret = il_outfile_check(path);
	if (ret)
		return ret;
	if (dir && mkdir(dir, 0777) && errno != EEXIST)
		return il_errorf(-errno, "--output %s: %s", dir, strerror(errno));
	ret = il_html_plots_make(s, o, dir, &plots);
	/* A plot that would overwrite an input: stop before the page. */
	if (!ret && plots.err == -EEXIST)
		ret = plots.err;
	if (ret)
		goto out;
	ret = il_outfile_open(&of, path);
	if (ret)
		goto out;
	il_html_begin(of.f, "idlelab report");
	tables(s, o, of.f);
	il_html_plots_write(&plots, of.f);
	il_html_end(of.f);
	ret = il_outfile_commit(&of);
	if (!ret && plots.err)
		ret = il_errorf(plots.err, "%s", plots.msg ? plots.msg : "plots failed");
out:
	il_html_plots_free(&plots);
	return ret;
}
