// SPDX-License-Identifier: GPL-2.0-only
/*
 * publish_site.c - a bundle's index.html, the comparison site (issue 25):
 * one page that stands alone (html_page.h: no file beside it, no request,
 * opened from file:// anywhere) with, in order, the machines; a section
 * per machine with its fingerprint summarised, its runs and its states
 * table; the machines side by side and their A/B tables
 * (publish_site_compare.c); the results table; the plots, inline.
 *
 * Every table goes through table.c's one HTML renderer, as the report's
 * do.  The page is read from the bundle's own database, so it shows what
 * was published, redacted as it was.
 */
#include "analysis.h"
#include "err.h"
#include "groups.h"
#include "html_page.h"
#include "machine_label.h"
#include "outfile.h"
#include "publish_bundle.h"
#include "publish_site.h"
#include "store.h"
#include "store_sqlite.h"

#include <errno.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The fingerprint summary: this many rows, values this long at most. */
#define FP_ROWS 40
#define FP_VALUE 160

static const char *col_text(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? s : "-";
}

static int load_machines(sqlite3 *db, struct site_machine **out, int *nout)
{
	static const char sql[] =
		"SELECT " IL_MACHINE_LABEL_M ", m.uuid, m.fingerprint, m.is_reference "
		"FROM machines m ORDER BY 1, m.uuid";
	struct site_machine *v = NULL;
	sqlite3_stmt *st;
	int n = 0, ret = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return il_errorf(-EIO, "site: %s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct site_machine *w = realloc(v, (n + 1) * sizeof(*v));

		if (!w) {
			ret = il_errorf(-ENOMEM, "out of memory");
			break;
		}
		v = w;
		v[n].label = strdup(col_text(st, 0));
		v[n].uuid = strdup(col_text(st, 1));
		v[n].fingerprint = sqlite3_column_text(st, 2) ?
				   strdup((const char *)sqlite3_column_text(st, 2)) : NULL;
		v[n].is_reference = sqlite3_column_int(st, 3);
		n++;
	}
	sqlite3_finalize(st);
	*out = v;
	*nout = n;
	return ret;
}

static void free_machines(struct site_machine *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(v[i].label);
		free(v[i].uuid);
		free(v[i].fingerprint);
	}
	free(v);
}

/* The machines, one row each. */
static int overview(sqlite3 *db, FILE *f)
{
	static const char *const cols[] = {
		"Machine", "Machine UUID", "Kind", "Runs", "Runs ok", "Benchmarks",
		"First run (UTC)", "Last run (UTC)",
	};
	static const char sql[] =
		"SELECT " IL_MACHINE_LABEL_M ", m.uuid, "
		"CASE m.is_reference WHEN 1 THEN 'published figures: ' || coalesce(m.source, '?') ELSE 'measured' END, "
		"count(r.uuid), sum(r.status = 'ok'), "
		"(SELECT group_concat(b, ' ') FROM (SELECT DISTINCT bench AS b FROM runs WHERE machine_uuid = m.uuid ORDER BY b)), "
		"strftime('%Y-%m-%d %H:%M', min(r.start_ns) / 1000000000, 'unixepoch'), "
		"strftime('%Y-%m-%d %H:%M', max(r.start_ns) / 1000000000, 'unixepoch') "
		"FROM machines m LEFT JOIN runs r ON r.machine_uuid = m.uuid "
		"GROUP BY m.uuid ORDER BY 1, m.uuid";
	struct il_table *t = il_table_new("Machines", 8, (const char *const *)cols);
	const char *cells[8];
	sqlite3_stmt *st;
	int i, ret = 0;

	if (!t)
		return il_errorf(-ENOMEM, "out of memory");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		il_table_free(t);
		return il_errorf(-EIO, "site: %s", sqlite3_errmsg(db));
	}
	while (!ret && sqlite3_step(st) == SQLITE_ROW) {
		for (i = 0; i < 8; i++)
			cells[i] = col_text(st, i);
		ret = il_table_add(t, cells);
	}
	sqlite3_finalize(st);
	if (!ret)
		il_table_print(t, IL_FMT_HTML, f);
	il_table_free(t);
	return ret;
}

/* The fingerprint's scalars (and short lists of them), path = value. */
static void fp_flatten(struct il_table *t, const char *path, json_t *v, int depth)
{
	char sub[256], val[FP_VALUE + 4];
	const char *cells[2] = { path, val };
	const char *k;
	json_t *x;
	size_t i;

	if (t->nrows >= FP_ROWS)
		return;
	if (json_is_object(v) && depth < 3) {
		json_object_foreach(v, k, x) {
			snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", k);
			fp_flatten(t, sub, x, depth + 1);
		}
		return;
	}
	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (json_is_object(x) || json_is_array(x))
				break;
		if (i < json_array_size(v)) {
			snprintf(val, sizeof(val), "%zu entries", json_array_size(v));
			il_table_add(t, cells);
			return;
		}
	}
	if (json_is_string(v)) {
		snprintf(val, sizeof(val), "%s", json_string_value(v));
	} else {
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

		snprintf(val, sizeof(val), "%s", s ? s : "?");
		free(s);
	}
	if (strlen(val) >= FP_VALUE)
		strcpy(val + FP_VALUE - 4, "...");
	il_table_add(t, cells);
}

static int fingerprint(const struct site_machine *m, FILE *f)
{
	static const char *const cols[] = { "Field", "Value" };
	struct il_table *t = il_table_new("Fingerprint (summary)", 2, (const char *const *)cols);
	json_t *fp = m->fingerprint ? json_loads(m->fingerprint, 0, NULL) : NULL;

	if (!t) {
		json_decref(fp);
		return il_errorf(-ENOMEM, "out of memory");
	}
	if (fp)
		fp_flatten(t, "", fp, 0);
	if (!fp)
		il_table_note(t, "No fingerprint stored for this machine.");
	else if (t->nrows >= FP_ROWS)
		il_table_note(t, "The first %d fields; the whole fingerprint is in machines.csv and idlelab.db.", FP_ROWS);
	il_table_print(t, IL_FMT_HTML, f);
	il_table_free(t);
	json_decref(fp);
	return 0;
}

static int runs(sqlite3 *db, const struct site_machine *m, FILE *f)
{
	static const char *const cols[] = {
		"Run", "Benchmark", "Parameters", "Status", "Started (UTC)",
		"Seconds", "Campaign",
	};
	static const char sql[] =
		"SELECT uuid, bench, params, status || coalesce(': ' || status_reason, ''), "
		"strftime('%Y-%m-%d %H:%M:%S', start_ns / 1000000000, 'unixepoch'), "
		"printf('%.1f', (end_ns - start_ns) / 1e9), coalesce(campaign, '-') "
		"FROM runs WHERE machine_uuid = ?1 ORDER BY start_ns, uuid";
	struct il_table *t = il_table_new("Runs", 7, (const char *const *)cols);
	char params[512];
	const char *cells[7];
	sqlite3_stmt *st;
	int i, ret = 0;

	if (!t)
		return il_errorf(-ENOMEM, "out of memory");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		il_table_free(t);
		return il_errorf(-EIO, "site: %s", sqlite3_errmsg(db));
	}
	sqlite3_bind_text(st, 1, m->uuid, -1, SQLITE_STATIC);
	while (!ret && sqlite3_step(st) == SQLITE_ROW) {
		for (i = 0; i < 7; i++)
			cells[i] = col_text(st, i);
		if (!il_params_label(cells[1], cells[2], IL_PARAMS_KEEP_LISTS,
				     params, sizeof(params)))
			cells[2] = *params ? params : "-";
		ret = il_table_add(t, cells);
	}
	sqlite3_finalize(st);
	if (!ret)
		il_table_print(t, IL_FMT_HTML, f);
	il_table_free(t);
	return ret;
}

/* The states table's rows and notes of machine @i alone. */
static int states(const struct il_table *all, const struct site_machine *m,
		  int n, int i, FILE *f)
{
	struct il_table *t = il_table_new("Wake latency per idle state and wake source",
					  all->ncols, (const char *const *)all->cols);
	int r, j, ret = 0;

	if (!t)
		return il_errorf(-ENOMEM, "out of memory");
	for (r = 0; !ret && r < all->nrows; r++)
		if (!strcmp(all->cells[r * all->ncols], m[i].label))
			ret = il_table_add(t, (const char *const *)&all->cells[r * all->ncols]);
	/* A note about one machine starts "label: "; keep ours and the general. */
	for (r = 0; !ret && r < all->nnotes; r++) {
		size_t len;

		for (j = 0; j < n; j++) {
			len = strlen(m[j].label);
			if (j != i && !strncmp(all->notes[r], m[j].label, len) &&
			    all->notes[r][len] == ':')
				break;
		}
		if (j == n)
			ret = il_table_note(t, "%s", all->notes[r]);
	}
	if (!ret)
		il_table_print(t, IL_FMT_HTML, f);
	il_table_free(t);
	return ret;
}

static int machine_sections(struct il_store *s, const struct site_machine *m,
			    int n, FILE *f)
{
	struct il_analysis_opts o = { 0 };
	struct il_table *st = NULL;
	int i, ret = 0;

	if (il_report_states(s, &o, &st))
		st = NULL;
	for (i = 0; !ret && i < n; i++) {
		fprintf(f, "<section id=\"machine-%d\">\n<h2>Machine ", i);
		il_html_text(f, m[i].label);
		fputs("</h2>\n<p class=\"note\">Machine UUID ", f);
		il_html_text(f, m[i].uuid);
		fputs(m[i].is_reference ? "; figures published elsewhere, not measured by idlelab." : ".", f);
		fputs(" <a href=\"#top\">top</a></p>\n", f);
		ret = fingerprint(&m[i], f) ?: runs(il_store_db(s), &m[i], f) ?:
		      (st ? states(st, m, n, i, f) : 0);
		fputs("</section>\n", f);
	}
	il_table_free(st);
	return ret;
}

static void nav(const struct site_machine *m, int n, FILE *f)
{
	int i;

	fputs("<nav id=\"top\"><a href=\"#machines\">Machines</a>"
	      "<a href=\"#side-by-side\">Side by side</a><a href=\"#ab\">A/B</a>"
	      "<a href=\"#results\">Results</a><a href=\"#plots\">Plots</a></nav>\n"
	      "<nav>Machine:", f);
	for (i = 0; i < n; i++) {
		fprintf(f, " <a href=\"#machine-%d\">", i);
		il_html_text(f, m[i].label);
		fputs("</a>", f);
	}
	fputs("</nav>\n<p class=\"note\">Click a column's header to sort its table.  "
	      "The data behind every table is in idlelab.db and the CSV files beside this page "
	      "(README.md, datapackage.json).</p>\n", f);
}

static int page(struct il_store *s, const struct site_machine *m, int n,
		const struct il_html_plots *plots, FILE *f)
{
	struct il_report_opts ro = { .format = IL_FMT_HTML };
	int ret;

	il_html_begin(f, "idlelab: published dataset");
	nav(m, n, f);
	fputs("<div id=\"machines\"></div>\n", f);
	ret = overview(il_store_db(s), f) ?: machine_sections(s, m, n, f);
	if (ret)
		return ret;
	fputs("<div id=\"side-by-side\"></div>\n", f);
	ret = site_side_by_side(s, m, n, f) ?: site_ab(s, m, n, f);
	if (ret)
		return ret;
	fputs("<div id=\"results\"></div>\n", f);
	ret = il_report(s, &ro, f);
	if (ret)
		return ret;
	fputs("<div id=\"plots\"></div>\n", f);
	il_html_plots_write(plots, f);
	il_html_end(f);
	return 0;
}

int il_publish_site(struct il_store *bundle, const char *dir)
{
	struct il_analysis_opts o = { 0 };
	struct il_html_plots plots;
	struct site_machine *m = NULL;
	struct il_outfile of = { NULL, NULL, NULL };
	char *path = NULL;
	int n = 0, ret;

	if (asprintf(&path, "%s/index.html", dir) < 0)
		return il_errorf(-ENOMEM, "out of memory");
	ret = load_machines(il_store_db(bundle), &m, &n);
	if (ret)
		goto out;
	/* Plots are optional: a missing gnuplot is said on the page. */
	ret = il_html_plots_make(bundle, &o, NULL, &plots);
	if (ret)
		goto out;
	ret = il_outfile_open(&of, path) ?: page(bundle, m, n, &plots, of.f) ?:
	      il_outfile_commit(&of);
	il_outfile_abort(&of);
	il_html_plots_free(&plots);
out:
	free_machines(m, n);
	free(path);
	return ret;
}
