// SPDX-License-Identifier: GPL-2.0-only
/*
 * publish_site_compare.c - the comparison site's tables that put
 * machines side by side (publish_site.h).  Both are built from what the
 * reports already compute: the side-by-side table from the results
 * table's JSON rows (report.c), the A/B tables from compare.c with one
 * side per machine, so the site's figures are the report's figures.
 */
#include "analysis.h"
#include "err.h"
#include "groups.h"
#include "publish_site.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* A figure of a results row as the table prints it: "-" where none. */
static void figure(json_t *row, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(row, key);

	if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%.1f", json_real_value(v));
	else if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else
		snprintf(buf, len, "-");
}

/* The row's key columns: benchmark, parameters, metric, CPU, targets. */
static void row_key(json_t *row, char key[5][256])
{
	const char *bench = json_string_value(json_object_get(row, "benchmark"));
	char *params = json_dumps(json_object_get(row, "params"), JSON_COMPACT | JSON_SORT_KEYS);
	json_int_t t = json_integer_value(json_object_get(row, "targets"));

	snprintf(key[0], 256, "%s", bench ? bench : "-");
	if (!params || il_params_label(key[0], params, IL_PARAMS_KEEP_LISTS, key[1], 256))
		snprintf(key[1], 256, "%s", params ? params : "-");
	if (!key[1][0])
		snprintf(key[1], 256, "-");
	snprintf(key[2], 256, "%s (%s)",
		 json_string_value(json_object_get(row, "metric")) ?: "-",
		 json_string_value(json_object_get(row, "unit")) ?: "-");
	il_cpu_label((int)json_integer_value(json_object_get(row, "cpu")),
		     (int)json_integer_value(json_object_get(row, "cpu2")), key[3], 256);
	if (t >= 0)
		snprintf(key[4], 256, "%lld", (long long)t);
	else
		snprintf(key[4], 256, "-");
	free(params);
}

static int same_key(const struct il_table *t, int r, char key[5][256])
{
	int c;

	for (c = 0; c < 5; c++)
		if (strcmp(t->cells[r * t->ncols + c], key[c]))
			return 0;
	return 1;
}

/*
 * The picker above the side-by-side table: a box per machine showing or
 * hiding its two columns (the page's script, html_page.c), so a reader
 * compares any set of machines on the one page.
 */
static void pick_machines(const struct site_machine *m, int n, FILE *f)
{
	int c;

	if (n < 3)
		return;		/* two machines are the only set */
	fputs("<form class=\"pick\" data-table=\"sbs\" data-first=\"5\"><b>Machines shown:</b>", f);
	for (c = 0; c < n; c++) {
		fprintf(f, " <label><input type=\"checkbox\" checked data-cols=\"%d,%d\"> ",
			5 + 2 * c, 6 + 2 * c);
		il_html_text(f, m[c].label);
		fputs("</label>", f);
	}
	fputs("</form>\n", f);
}

int site_side_by_side(struct il_store *s, const struct site_machine *m, int n,
		      FILE *f)
{
	struct il_report_opts ro = { .format = IL_FMT_JSON };
	const char **cols = calloc(5 + 2 * n, sizeof(*cols)), **cells = NULL;
	char *js = NULL, **names = calloc(2 * n, sizeof(*names)), key[5][256];
	struct il_table *t = NULL;
	size_t len = 0, i;
	json_t *doc = NULL, *row;
	FILE *mf;
	int ret, c, r;

	if (!cols || !names)
		goto nomem;
	mf = open_memstream(&js, &len);
	if (!mf)
		goto nomem;
	ret = il_report(s, &ro, mf);
	fclose(mf);
	if (ret)
		goto out;
	doc = json_loads(js, 0, NULL);
	cols[0] = "Benchmark";
	cols[1] = "Parameters";
	cols[2] = "Metric";
	cols[3] = "CPU";
	cols[4] = "Targets";
	for (c = 0; c < n; c++) {
		if (asprintf(&names[2 * c], "%s median", m[c].label) < 0 ||
		    asprintf(&names[2 * c + 1], "%s p99", m[c].label) < 0)
			goto nomem;
		cols[5 + 2 * c] = names[2 * c];
		cols[6 + 2 * c] = names[2 * c + 1];
	}
	t = il_table_new("Machines side by side: median and p99 per machine", 5 + 2 * n, cols);
	cells = calloc(5 + 2 * n, sizeof(*cells));
	if (!t || !cells)
		goto nomem;
	json_array_foreach(json_object_get(doc, "rows"), i, row) {
		const char *mach = json_string_value(json_object_get(row, "machine"));
		char med[32], p99[32];

		row_key(row, key);
		for (r = 0; r < t->nrows && !same_key(t, r, key); r++)
			;
		if (r == t->nrows) {
			for (c = 0; c < 5; c++)
				cells[c] = key[c];
			for (c = 5; c < 5 + 2 * n; c++)
				cells[c] = "-";
			ret = il_table_add(t, cells);
			if (ret)
				goto out;
		}
		figure(row, "median", med, sizeof(med));
		figure(row, "p99", p99, sizeof(p99));
		for (c = 0; c < n; c++) {
			if (!mach || strcmp(mach, m[c].label))
				continue;
			free(t->cells[r * t->ncols + 5 + 2 * c]);
			t->cells[r * t->ncols + 5 + 2 * c] = strdup(med);
			free(t->cells[r * t->ncols + 6 + 2 * c]);
			t->cells[r * t->ncols + 6 + 2 * c] = strdup(p99);
		}
	}
	il_table_note(t, "Each machine's median and p99 of the samples pooled over its runs, as in the results table below; \"-\" where the machine has no such row or too few samples for a p99.  Differences here are not tests: the A/B tables below test them.");
	pick_machines(m, n, f);
	fputs("<div id=\"sbs\">\n", f);
	il_table_print(t, IL_FMT_HTML, f);
	fputs("</div>\n", f);
	ret = 0;
	goto out;
nomem:
	ret = il_errorf(-ENOMEM, "out of memory");
out:
	for (c = 0; names && c < 2 * n; c++)
		free(names[c]);
	free(names);
	free(cols);
	free(cells);
	il_table_free(t);
	json_decref(doc);
	free(js);
	return ret;
}

int site_ab(struct il_store *s, const struct site_machine *m, int n, FILE *f)
{
	struct il_filter **sides = calloc(n, sizeof(*sides));
	char **text = calloc(n, sizeof(*text));
	struct il_analysis_opts o = { 0 };
	struct il_table *t;
	int i, k = 0, ret = 0;

	if (!sides || !text) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; !ret && i < n; i++) {
		char *spec = NULL;

		if (m[i].is_reference)
			continue;
		if (asprintf(&spec, "machine=%s", m[i].uuid) < 0 ||
		    asprintf(&text[k], "machine %s", m[i].label) < 0)
			ret = il_errorf(-ENOMEM, "out of memory");
		else
			ret = il_filter_parse(spec, &sides[k++]);
		free(spec);
	}
	if (ret)
		goto out;
	fputs("<h2 id=\"ab\">A/B: each machine against the first</h2>\n", f);
	if (k < 2) {
		fputs("<p class=\"note\">Not shown: the bundle holds fewer than two measured machines.</p>\n", f);
		goto out;
	}
	o.ncompare = k;
	o.compare = sides;
	o.compare_text = (const char *const *)text;
	/* A selection with no common rows is shown as such, not a failure. */
	if (il_report_compare(s, &o, &t)) {
		fputs("<p class=\"note\">Not shown: ", f);
		il_html_text(f, il_errmsg());
		fputs("</p>\n", f);
		goto out;
	}
	il_table_print(t, IL_FMT_HTML, f);
	il_table_free(t);
out:
	for (i = 0; i < n; i++) {
		if (sides)
			il_filter_free(sides[i]);
		if (text)
			free(text[i]);
	}
	free(sides);
	free(text);
	return ret;
}
