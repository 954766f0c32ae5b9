// SPDX-License-Identifier: GPL-2.0-only
/*
 * html_plots.c - the plots of an HTML page, inline (html_page.h).  gnuplot
 * (plot.c) writes each plot as an SVG file; the page copies each file's
 * <svg> element into itself, so the page needs nothing beside it.
 *
 * Every gnuplot SVG defines the same ids (gnuplot_canvas, gpPt0, ...),
 * and one HTML document has one namespace of ids: each plot's ids and the
 * references to them (href="#...", url(#...)) get the plot's own prefix,
 * or the second plot would draw with the first one's definitions.
 */
#include "html_page.h"
#include "err.h"
#include "outfile.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int il_html_plots_make(struct il_store *s, const struct il_analysis_opts *o,
		       const char *dir, struct il_html_plots *p)
{
	const char *tmp = getenv("TMPDIR");
	char *d;

	memset(p, 0, sizeof(*p));
	if (!dir) {
		if (asprintf(&d, "%s/idlelab-plots.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
			return il_errorf(-ENOMEM, "out of memory");
		if (!mkdtemp(d)) {
			int e = errno;

			free(d);
			return il_errorf(-e, "plots: temporary directory: %s", strerror(e));
		}
		p->tmpdir = d;
		dir = d;
	}
	p->dir = strdup(dir);
	p->err = il_plots(s, o, dir, &p->names);
	if (p->err)
		p->msg = strdup(il_errmsg());
	return p->dir ? 0 : il_errorf(-ENOMEM, "out of memory");
}

/* The markers of an id and of a reference to one, in gnuplot's SVG. */
static const char *const id_marks[] = {
	"id='", "id=\"", "href='#", "href=\"#", "url(#", NULL,
};

/*
 * The title gnuplot gives every SVG document.  Inline, a browser shows it
 * as the hover text of the whole plot, "Gnuplot" over every figure; the
 * plot's own title is drawn in it, so the element is dropped.
 */
static const char gnuplot_title[] = "<title>Gnuplot</title>";

/* Copy the line @p, each id and reference prefixed by @pre. */
static void svg_line(FILE *f, const char *p, const char *pre)
{
	int i;

	while (*p) {
		if (!strncmp(p, gnuplot_title, sizeof(gnuplot_title) - 1)) {
			p += sizeof(gnuplot_title) - 1;
			if (*p == '\n')
				p++;
			continue;
		}
		for (i = 0; id_marks[i]; i++)
			if (!strncmp(p, id_marks[i], strlen(id_marks[i])))
				break;
		if (id_marks[i]) {
			fprintf(f, "%s%s-", id_marks[i], pre);
			p += strlen(id_marks[i]);
		} else {
			fputc(*p++, f);
		}
	}
}

/*
 * Copy the SVG @in from its <svg> on, line by line: no mark spans a
 * line, and a plot's SVG grows with what it draws (the causes plot has a
 * bar per --causes run and CPU: 64 MB at 10^5 runs, issue 23), so it is
 * never held whole.
 */
static void svg_inline(FILE *f, FILE *in, const char *pre)
{
	char *line = NULL, *p = NULL;
	size_t cap = 0;

	while (!p && getline(&line, &cap, in) > 0)
		p = strstr(line, "<svg");
	if (p)
		do
			svg_line(f, p, pre);
		while (getline(&line, &cap, in) > 0 && (p = line));
	free(line);
}

void il_html_plots_write(const struct il_html_plots *p, FILE *f)
{
	char path[4096];
	int i;

	fputs("<h2>Plots</h2>\n", f);
	if (p->err)
		fprintf(f, "<p class=\"note\">%s</p>\n", p->msg ? p->msg : "plots failed");
	for (i = 0; p->names && p->names[i]; i++) {
		FILE *in;

		snprintf(path, sizeof(path), "%s/%s.svg", p->dir, p->names[i]);
		in = fopen(path, "r");
		if (!in) {
			fprintf(f, "<p class=\"note\">plot %s: could not read %s.svg</p>\n",
				p->names[i], p->names[i]);
			continue;
		}
		fprintf(f, "<figure id=\"%s\">\n", p->names[i]);
		svg_inline(f, in, p->names[i]);
		fputs("</figure>\n", f);
		fclose(in);
	}
}

/* Remove the temporary directory: every file in it is gnuplot's or ours. */
void il_html_plots_free(struct il_html_plots *p)
{
	int i;

	if (p->tmpdir)
		il_outfile_remove_dir(p->tmpdir, 1);
	for (i = 0; p->names && p->names[i]; i++)
		free(p->names[i]);
	free(p->names);
	free(p->tmpdir);
	free(p->dir);
	free(p->msg);
	memset(p, 0, sizeof(*p));
}
