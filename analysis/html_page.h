/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * html_page.h - the pieces every idlelab HTML page shares (issue 25):
 * `report --format html` (html.c) and the publish bundle's comparison
 * site (publish_site.c) are written with these, so both stand alone the
 * same way: one file, no request that leaves it (a Content-Security-Policy
 * forbids any), tables through table.c's one HTML renderer, sortable by a
 * few lines of inline script, and the plots inlined as SVG.
 */
#ifndef IDLELAB_HTML_PAGE_H
#define IDLELAB_HTML_PAGE_H

#include "analysis.h"

#include <stdio.h>

/** il_html_begin() - doctype, head (policy, style, script) and the <h1>. */
void il_html_begin(FILE *f, const char *title);
/** il_html_end() - close the page. */
void il_html_end(FILE *f);

/**
 * il_html_md() - the Markdown a report kind printed (@md) as HTML: each
 * "| a | b |" table becomes an il_table printed by table.c, titled by the
 * paragraph before it when that ends in ':' (else @title); the other
 * paragraphs are notes.  The Markdown is the one source, so the page
 * shows the very cells `--format md` does.
 */
int il_html_md(FILE *f, const char *title, const char *md);

/* The plots of one page, made before the page is opened (html_plots.c). */
struct il_html_plots {
	char *dir;		/* where gnuplot wrote them */
	char *tmpdir;		/* dir, when it is ours to remove */
	char **names;		/* il_plots()'s basenames */
	int err;		/* il_plots()'s return */
	char *msg;		/* and its message, for the page */
};

/**
 * il_html_plots_make() - run il_plots() for @o into @dir, or, with @dir
 * NULL, into a temporary directory removed by il_html_plots_free().
 * Return: 0 or -errno with a message (the temporary directory); the
 * plots' own failure is kept in @p->err and @p->msg for the page.
 */
int il_html_plots_make(struct il_store *s, const struct il_analysis_opts *o,
		       const char *dir, struct il_html_plots *p);
/**
 * il_html_plots_write() - a "Plots" section: every SVG inline, or the
 * message that says why there are none.
 */
void il_html_plots_write(const struct il_html_plots *p, FILE *f);
void il_html_plots_free(struct il_html_plots *p);

#endif
