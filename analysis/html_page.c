// SPDX-License-Identifier: GPL-2.0-only
/*
 * html_page.c - the frame of every idlelab HTML page (html_page.h): the
 * head, the style, the sort script, and the Markdown of a report kind
 * turned into real tables.
 *
 * The page forbids itself every request (default-src 'none'): what it
 * needs is inline, so opened from file:// on a machine with no network it
 * shows all, and a page that tried to load something would show a
 * console error the Chromium check (test_html_chromium.sh) catches.
 */
#include "html_page.h"
#include "err.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char page_style[] =
	"body{font-family:sans-serif;margin:1.5em;max-width:1400px;line-height:1.35}\n"
	"h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em}\n"
	/* A table wider than the page scrolls inside itself, its first
	 * column (what the row is) held in view; the borders are drawn per
	 * cell, as collapsed ones would scroll away from a sticky cell. */
	"table{border-collapse:separate;border-spacing:0;margin:.6em 0;display:block;"
	"overflow-x:auto;width:fit-content;max-width:100%;border-top:1px solid #bbb;border-left:1px solid #bbb}\n"
	"td,th{border-right:1px solid #bbb;border-bottom:1px solid #bbb;padding:2px 6px;"
	"text-align:left;vertical-align:top}\n"
	/* Text wraps at spaces, so one long value (a command line, a list)
	 * makes its row taller, not the table wider than a laptop's screen. */
	"td{white-space:normal;overflow-wrap:break-word;max-width:44em}\n"
	"td.n{text-align:right;white-space:nowrap}\n"
	"th{background:#eee;cursor:pointer;white-space:normal;min-width:3em}th:hover{background:#ddd}\n"
	"tr>:first-child{position:sticky;left:0;background:#fff;white-space:nowrap}\n"
	"tr>th:first-child{background:#eee}\n"
	".note{color:#555;max-width:70em}\n"
	"figure{margin:1em 0}svg{max-width:100%;height:auto}\n"
	"nav a{margin-right:1em}\n"
	"form.pick{margin:.5em 0}form.pick label{margin-right:1em;white-space:nowrap}\n";

/*
 * A column of numbers aligns right, so their digits line up; a column
 * that mixes text and numbers (the Value of a key/value table) stays
 * left, or a short number would sit at the far edge of a wide column,
 * off a laptop's screen.  "-" is a number's absence and does not count.
 * Click a header to sort its table by that column,
 * numbers as numbers (a leading number: "12.5", ">300"; text after
 * them), again to reverse.
 *
 * A `form.pick` (the site's machine picker) shows or hides the columns
 * its boxes name (data-cols) in the table inside #data-table, and hides a
 * row with nothing but "-" in the shown columns from data-first on: any
 * set of machines side by side, with no request and no page per set.
 */
static const char sort_script[] =
	"document.querySelectorAll('table').forEach(function (t) {\n"
	"  var b = t.tBodies[0];\n"
	"  if (!b || !t.tHead) return;\n"
	"  var num = [];\n"
	"  Array.prototype.forEach.call(b.rows, function (r) {\n"
	"    Array.prototype.forEach.call(r.cells, function (c, i) {\n"
	"      var s = c.textContent;\n"
	"      if (s === '-' || s === '') return;\n"
	"      num[i] = num[i] !== false && /^[<>]?[-+]?[0-9.]+$/.test(s); });\n"
	"  });\n"
	"  Array.prototype.forEach.call(b.rows, function (r) {\n"
	"    Array.prototype.forEach.call(r.cells, function (c, i) {\n"
	"      if (num[i]) c.className = 'n'; });\n"
	"  });\n"
	"  Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th, i) {\n"
	"    th.title = 'sort by ' + th.textContent;\n"
	"    th.addEventListener('click', function () {\n"
	"      var up = th.getAttribute('data-up') !== '1', rows = Array.prototype.slice.call(b.rows);\n"
	"      th.setAttribute('data-up', up ? '1' : '0');\n"
	"      function key(r) { var s = r.cells[i] ? r.cells[i].textContent : '';\n"
	"        var n = parseFloat(s.replace(/^[<>]/, '')); return isNaN(n) ? s : n; }\n"
	"      rows.sort(function (x, y) { var a = key(x), c = key(y), d;\n"
	"        if (typeof a === typeof c) d = typeof a === 'number' ? a - c : a.localeCompare(c);\n"
	"        else d = typeof a === 'number' ? -1 : 1;\n"
	"        return up ? d : -d; });\n"
	"      rows.forEach(function (r) { b.appendChild(r); });\n"
	"    });\n"
	"  });\n"
	"});\n"
	"document.querySelectorAll('form.pick').forEach(function (f) {\n"
	"  var t = document.querySelector('#' + f.getAttribute('data-table') + ' table');\n"
	"  var first = +f.getAttribute('data-first');\n"
	"  if (!t) return;\n"
	"  function apply() {\n"
	"    var hide = {};\n"
	"    f.querySelectorAll('input').forEach(function (box) {\n"
	"      box.getAttribute('data-cols').split(',').forEach(function (c) {\n"
	"        hide[c] = !box.checked; }); });\n"
	"    Array.prototype.forEach.call(t.rows, function (r) {\n"
	"      var any = false;\n"
	"      Array.prototype.forEach.call(r.cells, function (c, i) {\n"
	"        c.style.display = hide[i] ? 'none' : '';\n"
	"        if (i >= first && !hide[i] && c.textContent !== '-') any = true; });\n"
	"      if (r.parentNode !== t.tHead) r.style.display = any ? '' : 'none';\n"
	"    });\n"
	"  }\n"
	"  f.addEventListener('change', apply);\n"
	"});\n";

void il_html_begin(FILE *f, const char *title)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		   "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
		   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		   "<title>%s</title>\n<style>\n%s</style></head><body>\n<h1>%s</h1>\n",
		title, page_style, title);
}

void il_html_end(FILE *f)
{
	fprintf(f, "<script>\n%s</script>\n</body></html>\n", sort_script);
}

/* "| a | b |" into its cells, trimmed, at most @max.  Return: the count. */
static int split_row(char *line, char **cells, int max)
{
	char *p = line, *end;
	int n = 0;

	if (*p == '|')
		p++;
	end = p + strlen(p);
	while (end > p && (end[-1] == ' ' || end[-1] == '|'))
		*--end = '\0';
	while (n < max) {
		char *bar = strchr(p, '|'), *e;

		if (bar)
			*bar = '\0';
		while (*p == ' ')
			p++;
		e = p + strlen(p);
		while (e > p && e[-1] == ' ')
			*--e = '\0';
		cells[n++] = p;
		if (!bar)
			break;
		p = bar + 1;
	}
	return n;
}

#define MAX_COLS 64

/* Lines @v[0..n) are one Markdown table: print it through table.c. */
static int md_table(FILE *f, const char *title, char **v, int n)
{
	char *cols[MAX_COLS], *cells[MAX_COLS];
	const char *row[MAX_COLS];
	struct il_table *t;
	int nc, i, c, ret = 0;

	nc = split_row(v[0], cols, MAX_COLS);
	t = il_table_new(title, nc, (const char *const *)cols);
	if (!t)
		return il_errorf(-ENOMEM, "out of memory");
	/* Line 1 is the |---| rule. */
	for (i = 2; !ret && i < n; i++) {
		int k = split_row(v[i], cells, MAX_COLS);

		for (c = 0; c < nc; c++)
			row[c] = c < k ? cells[c] : "-";
		ret = il_table_add(t, row);
	}
	if (!ret)
		il_table_print(t, IL_FMT_HTML, f);
	il_table_free(t);
	return ret;
}

static void note(FILE *f, const char *s)
{
	struct il_table t = { .nnotes = 1, .notes = (char **)&s };

	/* A note is what table.c prints under a table; reuse its escaping. */
	il_table_print_notes(&t, f);
}

int il_html_md(FILE *f, const char *title, const char *md)
{
	char *copy = strdup(md), *save = NULL, *line, **v = NULL, *para = NULL;
	int n = 0, ret = 0, i;

	if (!copy)
		return il_errorf(-ENOMEM, "out of memory");
	v = calloc(strlen(md) / 2 + 2, sizeof(*v));
	if (!v) {
		free(copy);
		return il_errorf(-ENOMEM, "out of memory");
	}
	/* strtok_r skips empty lines: blocks are told apart by their kind. */
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		v[n++] = line;
	for (i = 0; !ret && i < n;) {
		if (v[i][0] == '|' && i + 1 < n && !strncmp(v[i + 1], "|---", 4)) {
			int j = i + 2;

			while (j < n && v[j][0] == '|')
				j++;
			if (para) {
				/* "Title:" before a table titles it. */
				para[strlen(para) - 1] = '\0';
				ret = md_table(f, para, v + i, j - i);
				para = NULL;
			} else {
				ret = md_table(f, title, v + i, j - i);
			}
			i = j;
			continue;
		}
		if (para)
			note(f, para);
		para = NULL;
		if (!strncmp(v[i], "### ", 4))
			title = v[i] + 4;
		else if (v[i][strlen(v[i]) - 1] == ':')
			para = v[i];
		else
			note(f, v[i]);
		i++;
	}
	if (para)
		note(f, para);
	free(v);
	free(copy);
	return ret;
}
