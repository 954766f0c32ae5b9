// SPDX-License-Identifier: GPL-2.0-only
/*
 * html.c - `idlelab report --format html --output DIR`: one self-contained
 * page, DIR/index.html, with every table of the other kinds and the plots
 * (plot.c) beside it in DIR, each shown as its PNG and linked to its SVG.
 * Without gnuplot the page still holds the tables and says why there are
 * no plots.  No file in DIR may be an input database (outfile.h); the page
 * is written to a temporary name and renamed into place when complete.
 */
#include "analysis.h"
#include "err.h"
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
	if (!il_report_pairs(s, o, &v, &n)) {
		for (i = 0; i < n; i++) {
			il_table_print(v[i], IL_FMT_HTML, f);
			il_table_free(v[i]);
		}
		free(v);
	}
	il_report(s, &ro, f);
}

int il_report_html(struct il_store *s, const struct il_analysis_opts *o,
		   const char *dir)
{
	char path[4096], **names = NULL, *pmsg = NULL;
	struct il_outfile of;
	int ret, perr, i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/index.html", dir);
	ret = il_outfile_check(path);
	if (ret)
		return ret;
	if (mkdir(dir, 0777) && errno != EEXIST)
		return il_errorf(-errno, "--output %s: %s", dir, strerror(errno));
	perr = il_plots(s, o, dir, &names);
	/* A plot that would overwrite an input: stop before the page. */
	if (perr == -EEXIST) {
		ret = perr;
		goto out;
	}
	/* The tables below reset the message; keep the plots' one. */
	pmsg = strdup(perr ? il_errmsg() : "");
	ret = il_outfile_open(&of, path);
	if (ret)
		goto out;
	f = of.f;
	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
		   "<title>idlelab report</title>\n<style>\n"
		   "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}\n"
		   "td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}\n"
		   "th{background:#eee}.note{color:#555}img{max-width:900px}\n"
		   "</style></head><body>\n<h1>idlelab report</h1>\n");
	tables(s, o, f);
	fputs("<h2>Plots</h2>\n", f);
	if (perr)
		fprintf(f, "<p class=\"note\">%s</p>\n", pmsg ? pmsg : "plots failed");
	for (i = 0; names && names[i]; i++)
		fprintf(f, "<figure><a href=\"%s.svg\"><img src=\"%s.png\" alt=\"%s\"></a>"
			   "<figcaption>%s (<a href=\"%s.svg\">SVG</a>)</figcaption></figure>\n",
			names[i], names[i], names[i], names[i], names[i]);
	fputs("</body></html>\n", f);
	ret = il_outfile_commit(&of);
	if (!ret && perr)
		ret = il_errorf(perr, "%s", pmsg ? pmsg : "plots failed");
out:
	for (i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
	free(pmsg);
	return ret;
}
