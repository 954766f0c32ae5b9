// SPDX-License-Identifier: GPL-2.0-only
/*
 * table.c - the one renderer every report kind shares.  A kind builds a
 * table of strings (its numbers already formatted, so md, csv, json and
 * html show the same digits and golden files compare one format only);
 * this file prints it.  JSON cells that parse as numbers are emitted as
 * numbers, "-" as null, an interval "[lo, hi]" as {"lo": lo, "hi": hi}
 * and an estimate with its interval as {"est", "lo", "hi"}, so a
 * consumer never parses "-" or a bracketed pair; csv gives "-"
 * as an empty field and an interval column (il_table_col_kind()) as
 * numeric lo and hi columns, for the same reason.
 */
#include "analysis.h"
#include "csv.h"
#include "err.h"
#include "grow.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct il_table *il_table_new(const char *title, int ncols, const char *const *cols)
{
	struct il_table *t = calloc(1, sizeof(*t));
	int i;

	if (!t)
		return NULL;
	t->title = strdup(title);
	t->ncols = ncols;
	t->cols = calloc(ncols, sizeof(*t->cols));
	t->kinds = calloc(ncols, sizeof(*t->kinds));
	if (!t->title || !t->cols || !t->kinds) {
		il_table_free(t);
		return NULL;
	}
	for (i = 0; i < ncols; i++)
		t->cols[i] = strdup(cols[i]);
	return t;
}

void il_table_free(struct il_table *t)
{
	int i;

	if (!t)
		return;
	for (i = 0; t->cols && i < t->ncols; i++)
		free(t->cols[i]);
	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	for (i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	free(t->cols);
	free(t->kinds);
	free(t->cells);
	free(t->notes);
	free(t->title);
	free(t);
}

void il_table_col_kind(struct il_table *t, int c, enum il_col_kind kind)
{
	if (t && t->kinds && c >= 0 && c < t->ncols)
		t->kinds[c] = (unsigned char)kind;
}

int il_table_add(struct il_table *t, const char *const *cells)
{
	int i;

	if (t->nrows == t->cap) {
		/* One element is a row of ncols cells. */
		void *v = t->cells;
		size_t cap = (size_t)t->cap;

		if (il_grow(&v, &cap, (size_t)t->nrows + 1,
			    (size_t)t->ncols * sizeof(*t->cells), 16, INT_MAX))
			return il_errorf(-ENOMEM, "out of memory");
		t->cells = v;
		t->cap = (int)cap;
	}
	for (i = 0; i < t->ncols; i++)
		t->cells[t->nrows * t->ncols + i] = strdup(cells[i] ? cells[i] : "-");
	t->nrows++;
	return 0;
}

int il_table_note(struct il_table *t, const char *fmt, ...)
{
	char **v = realloc(t->notes, (t->nnotes + 1) * sizeof(*v));
	va_list ap;
	int rc;

	if (!v)
		return il_errorf(-ENOMEM, "out of memory");
	t->notes = v;
	va_start(ap, fmt);
	rc = vasprintf(&t->notes[t->nnotes], fmt, ap);
	va_end(ap);
	if (rc < 0)
		return il_errorf(-ENOMEM, "out of memory");
	t->nnotes++;
	return 0;
}

static const char *cell(const struct il_table *t, int r, int c)
{
	return t->cells[r * t->ncols + c];
}

/* The characters HTML text must not hold as they are, and their entities. */
static const char *const html_entity[UCHAR_MAX + 1] = {
	['<'] = "&lt;", ['>'] = "&gt;", ['&'] = "&amp;", ['"'] = "&quot;",
};

void il_html_text(FILE *out, const char *s)
{
	const char *e;

	for (; *s; s++) {
		e = html_entity[(unsigned char)*s];
		if (e)
			fputs(e, out);
		else
			fputc(*s, out);
	}
}

/*
 * A number stays a number in JSON; "-" (does not exist) becomes null; a
 * confidence interval, which md shows as "[-16.36, +135.77]"
 * (ab_table.c, compare_paired.c), becomes {"lo": -16.36, "hi": 135.77}.
 */
static json_t *json_cell(const char *s)
{
	char *end;
	double d, lo, hi;
	long long ll;
	int n = -1;

	if (!strcmp(s, "-"))
		return json_null();
	if (sscanf(s, "[%lf, %lf]%n", &lo, &hi, &n) == 2 && n > 0 && !s[n] &&
	    isfinite(lo) && isfinite(hi))
		return json_pack("{s:f,s:f}", "lo", lo, "hi", hi);
	ll = strtoll(s, &end, 10);
	if (*s && !*end)
		return json_integer(ll);
	d = strtod(s, &end);
	if (*s && !*end)
		return json_real(d);
	return json_string(s);
}

/* A csv cell: empty where md shows "-" or "n/a: reason". */
static const char *csv_cell(const char *s)
{
	return !strcmp(s, "-") || !strncmp(s, "n/a", 3) ? "" : s;
}

/*
 * The number at the start of @s, as it is written (its digits kept, so csv
 * agrees with md), up to @stop.  Return: its end, or NULL when @s does not
 * start with a finite number that @stop follows.
 */
static const char *csv_number(const char *s, const char *stop, size_t *len)
{
	char *end;
	double d = strtod(s, &end);

	if (end == s || !isfinite(d) || strncmp(end, stop, strlen(stop)))
		return NULL;
	*len = (size_t)(end - s);
	return end + strlen(stop);
}

/*
 * An interval cell as two csv fields, lo and hi, and with @est the
 * estimate before them: "[lo, hi]" or "est [lo, hi]".  What does not
 * parse (no interval: "-", "[too few]", a reason in words) is an empty
 * field, so the columns stay numeric.
 */
static void csv_interval(FILE *out, const char *s, int est)
{
	char f[3][64] = { "", "", "" };
	const char *p = s, *q;
	size_t n[3] = { 0, 0, 0 };
	int i, nf = est ? 3 : 2;

	if (est) {
		q = csv_number(p, " ", &n[0]);
		if (q && n[0] < 64)
			memcpy(f[0], p, n[0]);
		p = q;
	}
	if (p && *p == '[') {
		q = csv_number(p + 1, ", ", &n[1]);
		if (q && csv_number(q, "]", &n[2]) && !q[n[2] + 1] &&
		    n[1] < 64 && n[2] < 64) {
			memcpy(f[1], p + 1, n[1]);
			memcpy(f[2], q, n[2]);
		}
	}
	for (i = 3 - nf; i < 3; i++) {
		if (i > 3 - nf)
			fputc(',', out);
		fputs(f[i], out);
	}
}

/*
 * One table, as csv readers take it: the header and the rows, no title or
 * notes (md and json have them), an empty field where the cell is "-"
 * (does not exist) or "n/a: why", and an interval column as two numeric
 * ones, "NAME lo" and "NAME hi" (after the estimate's own, NAME, when the
 * cell leads with one).
 */
static void table_csv(const struct il_table *t, FILE *out)
{
	static const char *const half[] = { " lo", " hi" };
	char name[256];
	int r, c, h, kind;

	for (c = 0; c < t->ncols; c++) {
		kind = t->kinds ? t->kinds[c] : IL_COL_PLAIN;
		if (c)
			fputc(',', out);
		if (kind != IL_COL_INTERVAL)
			il_csv_field(out, t->cols[c], IL_CSV_AS_NEEDED);
		for (h = 0; h < 2 && kind != IL_COL_PLAIN; h++) {
			if (h || kind == IL_COL_EST_INTERVAL)
				fputc(',', out);
			snprintf(name, sizeof(name), "%s%s", t->cols[c], half[h]);
			il_csv_field(out, name, IL_CSV_AS_NEEDED);
		}
	}
	fputc('\n', out);
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			kind = t->kinds ? t->kinds[c] : IL_COL_PLAIN;
			if (c)
				fputc(',', out);
			if (kind == IL_COL_PLAIN)
				il_csv_field(out, csv_cell(cell(t, r, c)),
					     IL_CSV_AS_NEEDED);
			else
				csv_interval(out, cell(t, r, c),
					     kind == IL_COL_EST_INTERVAL);
		}
		fputc('\n', out);
	}
}

/*
 * A cell of an IL_COL_EST_INTERVAL column, "est [lo, hi]", as {"est",
 * "lo", "hi"}; an estimate whose interval cannot be given ("est [too
 * few]") keeps lo and hi null and the words as "note".  A cell that does
 * not lead with a number ("-", a reason) is what json_cell() makes of it.
 */
static json_t *json_est_interval(const char *s)
{
	double est, lo, hi;
	int n = -1, m = -1;
	json_t *o;

	if (sscanf(s, "%lf %n", &est, &n) != 1 || n <= 0 || !isfinite(est))
		return json_cell(s);
	o = json_pack("{s:f}", "est", est);
	if (sscanf(s + n, "[%lf, %lf]%n", &lo, &hi, &m) == 2 && m > 0 &&
	    !s[n + m] && isfinite(lo) && isfinite(hi)) {
		json_object_set_new(o, "lo", json_real(lo));
		json_object_set_new(o, "hi", json_real(hi));
		return o;
	}
	json_object_set_new(o, "lo", json_null());
	json_object_set_new(o, "hi", json_null());
	if (s[n] == '[' && s[strlen(s) - 1] == ']')
		json_object_set_new(o, "note", json_stringn(s + n + 1, strlen(s + n) - 2));
	else if (s[n])
		json_object_set_new(o, "note", json_string(s + n));
	return o;
}

static json_t *table_json(const struct il_table *t)
{
	json_t *rows = json_array(), *notes = json_array();
	int r, c;

	for (r = 0; r < t->nrows; r++) {
		json_t *o = json_object();

		for (c = 0; c < t->ncols; c++)
			json_object_set_new(o, t->cols[c],
					    t->kinds && t->kinds[c] == IL_COL_EST_INTERVAL ?
					    json_est_interval(cell(t, r, c)) :
					    json_cell(cell(t, r, c)));
		json_array_append_new(rows, o);
	}
	for (r = 0; r < t->nnotes; r++)
		json_array_append_new(notes, json_string(t->notes[r]));
	return json_pack("{s:s,s:o,s:o}", "title", t->title, "rows", rows,
			 "notes", notes);
}

void il_table_print_notes(const struct il_table *t, FILE *out)
{
	int r;

	for (r = 0; r < t->nnotes; r++) {
		fputs("<p class=\"note\">", out);
		il_html_text(out, t->notes[r]);
		fputs("</p>\n", out);
	}
}

void il_table_print(const struct il_table *t, enum il_format f, FILE *out)
{
	json_t *j;
	int r, c;

	switch (f) {
	case IL_FMT_MD:
		fprintf(out, "### %s\n\n|", t->title);
		for (c = 0; c < t->ncols; c++)
			fprintf(out, " %s |", t->cols[c]);
		fputs("\n|", out);
		for (c = 0; c < t->ncols; c++)
			fputs("---|", out);
		fputc('\n', out);
		for (r = 0; r < t->nrows; r++) {
			fputc('|', out);
			for (c = 0; c < t->ncols; c++)
				fprintf(out, " %s |", cell(t, r, c));
			fputc('\n', out);
		}
		if (!t->nrows)
			fputs("\n(no data)\n", out);
		for (r = 0; r < t->nnotes; r++)
			fprintf(out, "%s%s\n", r ? "" : "\n", t->notes[r]);
		break;
	case IL_FMT_CSV:
		table_csv(t, out);
		break;
	case IL_FMT_JSON:
		j = table_json(t);
		json_dumpf(j, out, JSON_INDENT(2));
		fputc('\n', out);
		json_decref(j);
		break;
	case IL_FMT_HTML:
		fputs("<h2>", out);
		il_html_text(out, t->title);
		/* thead and tbody: the page's sort script moves body rows only. */
		fputs("</h2>\n<table>\n<thead><tr>", out);
		for (c = 0; c < t->ncols; c++) {
			fputs("<th>", out);
			il_html_text(out, t->cols[c]);
			fputs("</th>", out);
		}
		fputs("</tr></thead>\n<tbody>\n", out);
		for (r = 0; r < t->nrows; r++) {
			fputs("<tr>", out);
			for (c = 0; c < t->ncols; c++) {
				fputs("<td>", out);
				il_html_text(out, cell(t, r, c));
				fputs("</td>", out);
			}
			fputs("</tr>\n", out);
		}
		fputs("</tbody></table>\n", out);
		if (!t->nrows)
			fputs("<p>(no data)</p>\n", out);
		il_table_print_notes(t, out);
		break;
	}
}

void il_tables_print(struct il_table *const *t, int n, enum il_format f, FILE *out)
{
	json_t *a;
	int i;

	if (f == IL_FMT_JSON) {
		a = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(a, table_json(t[i]));
		json_dumpf(a, out, JSON_INDENT(2));
		fputc('\n', out);
		json_decref(a);
		return;
	}
	for (i = 0; i < n; i++) {
		if (i)
			fputc('\n', out);
		il_table_print(t[i], f, out);
	}
}
