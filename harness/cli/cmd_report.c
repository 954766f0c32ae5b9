// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_report.c - `idlelab report`: the tables of analysis/ from a
 * database: the results table (the default kind), seed 002's per-state
 * table, the A/B comparison, the IPI scaling table and the futex pair
 * matrix; with --format html, one page with the plots inline: PATH itself when it
 * ends in .html, else PATH/index.html with the plots' sources beside it.
 * Opens the database read-only: a report never changes the dataset, and
 * --output may not name it (outfile.h).
 */
#include "cli.h"
#include "cli_opts.h"
#include "analysis.h"
#include "err.h"
#include "progress.h"
#include "outfile.h"
#include "store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_COMPARE 8

static const char report_usage[] =
	"usage: idlelab report [--db FILE] [--format md|csv|json|html] [--output PATH]\n"
	"                      [--kind table|states|compare|ipi|pairs|refs|causes|declared|all]\n"
	"                      [--compare FILTER]... [--equivalence PCT] [--deciles]\n"
	"                      [--paired] [--table N]\n"
	"                      [--bench NAME] [--run UUID|PREFIX]\n\n"
	"Print tables read from the dataset (see idlelab-report(1)).\n\n";

enum kind { K_TABLE, K_STATES, K_COMPARE, K_IPI, K_PAIRS, K_REFS, K_ALL,
	    K_CAUSES, K_DECLARED };

/* --kind, and whether it was given (--compare alone implies compare). */
struct kind_arg {
	enum kind kind;
	bool set;
};

/* The --compare sides in the order given. */
struct sides {
	struct il_filter *filters[MAX_COMPARE];
	const char *texts[MAX_COMPARE];
	int n;
};

static int parse_kind(const char *s, enum kind *k)
{
	static const char *const names[] = { "table", "states", "compare", "ipi", "pairs", "refs", "all", "causes", "declared" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*k = (enum kind)i;
			return 0;
		}
	return -EINVAL;
}

static int set_format(const struct cli_option *o, const char *arg)
{
	if (il_format_parse(arg, o->value))
		return cli_usage_error("report: --format: %s", il_errmsg());
	return 0;
}

static int set_kind(const struct cli_option *o, const char *arg)
{
	struct kind_arg *k = o->value;

	if (parse_kind(arg, &k->kind))
		return cli_usage_error("report: --kind: unknown kind '%s' (use table, states, compare, ipi, pairs, refs, causes, declared or all)", arg);
	k->set = true;
	return 0;
}

static int add_side(const struct cli_option *o, const char *arg)
{
	struct sides *s = o->value;

	if (s->n == MAX_COMPARE)
		return cli_usage_error("report: --compare: at most %d sides", MAX_COMPARE);
	if (il_filter_parse(arg, &s->filters[s->n]))
		return cli_usage_error("report: --compare: %s", il_errmsg());
	s->texts[s->n++] = arg;
	return 0;
}

/* --equivalence PCT[%]: the TOST margin, in (0, 100). */
static int set_equivalence(const struct cli_option *o, const char *arg)
{
	double *d = o->value;
	char *end;

	errno = 0;
	*d = strtod(arg, &end);
	if (end != arg && *end == '%')
		end++;
	if (errno || end == arg || *end || !(*d > 0 && *d < 100))
		return cli_usage_error("report: --equivalence: '%s' is not a margin in %% between 0 and 100 (e.g. 2%%)", arg);
	return 0;
}

static int set_table(const struct cli_option *o, const char *arg)
{
	int *n = o->value;
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > 1000)
		return cli_usage_error("report: --table: '%s' is not a table number (1, 2, ... in the order md prints them)", arg);
	*n = (int)v;
	return 0;
}

/* A selection that is valid but selects nothing, or a design that can
 * mislead (a message starting "warning: "): said, not an error. */
static void report_notice(const char *msg, void *arg)
{
	(void)arg;
	if (!strncmp(msg, "warning: ", 9))
		fprintf(stderr, "idlelab: report: %s\n", msg);
	else
		fprintf(stderr, "idlelab: report: notice: %s\n", msg);
}

static int push(struct il_table ***v, int *n, struct il_table *t)
{
	struct il_table **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv) {
		il_table_free(t);
		return il_errorf(-ENOMEM, "out of memory");
	}
	*v = nv;
	(*v)[(*n)++] = t;
	return 0;
}

/*
 * Which of the @n tables of a report to print: -ERANGE for a --table
 * past the last one, -E2BIG for csv of several without --table (csv is
 * one table per file), each naming the tables by number and title.
 */
static int pick_tables(struct il_table **v, int n, int table, enum il_format f)
{
	char list[1024];
	size_t len = 0;
	int i;

	if ((table <= n) && (table || f != IL_FMT_CSV || n <= 1))
		return 0;
	list[0] = '\0';
	for (i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d '%s'",
					i ? ", " : "", i + 1, v[i]->title);
	if (table > n)
		return il_errorf(-ERANGE, "--table %d: this report has %d table%s: %s",
				 table, n, n == 1 ? "" : "s", list);
	return il_errorf(-E2BIG, "--format csv writes one table, and this report has %d: %s; choose one with --table N",
			 n, list);
}

static int run_kind(struct il_store *store, enum kind k,
		    const struct il_analysis_opts *ao, enum il_format f,
		    int table, FILE *out)
{
	struct il_table **v = NULL, *t, **pv;
	int n = 0, np, i, ret = 0;

	if (k == K_STATES || k == K_ALL) {
		ret = il_report_states(store, ao, &t) ?: push(&v, &n, t);
	}
	if (!ret && (k == K_IPI || k == K_ALL)) {
		ret = il_report_ipi(store, ao, &t) ?: push(&v, &n, t);
		if (!ret)
			ret = il_report_ipi_fit(store, ao, &t) ?: push(&v, &n, t);
		/* Seed 001's modes side by side; none where no storm ran. */
		if (!ret)
			ret = il_report_ipi_modes(store, ao, &t);
		if (!ret && t)
			ret = push(&v, &n, t);
	}
	if (!ret && (k == K_PAIRS || k == K_ALL)) {
		ret = il_report_pairs(store, ao, &pv, &np);
		for (i = 0; !ret && i < np; i++)
			ret = push(&v, &n, pv[i]);
		if (!ret)
			free(pv);
	}
	if (!ret && (k == K_REFS || k == K_ALL)) {
		ret = il_report_refs(store, ao, &t) ?: push(&v, &n, t);
	}
	/* Not in all: its table is idle_sweep's alone. */
	if (!ret && k == K_DECLARED)
		ret = il_report_declared(store, ao, &t) ?: push(&v, &n, t);
	if (!ret && k == K_CAUSES) {
		struct il_table *t2;

		ret = il_report_causes(store, ao, &t, &t2);
		if (!ret && push(&v, &n, t)) {
			il_table_free(t2);
			ret = -ENOMEM;
		}
		if (!ret)
			ret = push(&v, &n, t2);
	}
	if (!ret && (k == K_COMPARE || (k == K_ALL && ao->ncompare))) {
		ret = il_report_compare(store, ao, &t) ?: push(&v, &n, t);
		if (!ret && ao->paired)
			ret = il_report_paired(store, ao, &t) ?: push(&v, &n, t);
	}
	if (!ret)
		ret = pick_tables(v, n, table, f);
	if (!ret)
		il_tables_print(table ? &v[table - 1] : v, table ? 1 : n, f, out);
	for (i = 0; i < n; i++)
		il_table_free(v[i]);
	free(v);
	return ret;
}

/*
 * --run as the start of a UUID: run and bench print 8 digits, so that is
 * what a user pastes back.  One match becomes the whole UUID in @buf; none
 * is left for il_report_check() to refuse with its nearest name; several
 * are a usage error naming them, since picking one would report a run the
 * user may not have meant.  Return: 0 or an exit code.
 */
static int resolve_run(struct il_store *store, const char **run, char buf[37])
{
	enum { SHOWN = 8 };
	char cand[SHOWN][37], list[SHOWN * 40 + 16];
	size_t len = 0;
	int i, n;

	if (!*run || !**run)
		return 0;
	n = il_store_runs_by_prefix(store, *run, cand, SHOWN);
	if (n < 0)
		return cli_error(IL_EXIT_FAIL, "report: %s", il_errmsg());
	if (n == 1) {
		memcpy(buf, cand[0], 37);
		*run = buf;
	}
	if (n <= 1)
		return 0;
	list[0] = '\0';
	for (i = 0; i < n && i < SHOWN; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					i ? ", " : "", cand[i]);
	if (n > SHOWN)
		snprintf(list + len, sizeof(list) - len, ", ...");
	return cli_usage_error("report: --run '%s' is the start of %d runs: %s; give more of the UUID",
			       *run, n, list);
}

/*
 * The option combinations that are usage errors, once the kind is known.
 * Return: 0, or the exit code after the message.
 */
static int check_options(enum kind kind, const struct il_analysis_opts *ao,
			 enum il_format format, const char *output, int table)
{
	if (kind == K_COMPARE && ao->ncompare < 2)
		return cli_usage_error("report: --kind compare needs at least two --compare FILTER");
	if (ao->ncompare == 1)
		return cli_usage_error("report: --compare: give at least two sides");
	if (ao->paired && ao->ncompare < 2)
		return cli_usage_error("report: --paired compares --compare sides: give at least two");
	if (table && (format == IL_FMT_HTML || kind == K_TABLE))
		return cli_usage_error(format == IL_FMT_HTML ?
				       "report: --table picks a table of md, csv or json; html shows them all" :
				       "report: --table picks one of a kind's tables; the table kind has one (leave --table out)");
	if (format == IL_FMT_HTML && !output)
		return cli_usage_error("report: --format html needs --output FILE.html or DIR");
	return IL_EXIT_OK;
}

/*
 * The report of @kind into @output (html: a page or a directory; otherwise a file
 * written through @of, or stdout), then the damaged runs it left out.
 * Return: the exit code, after the message.
 */
static int write_report(struct il_store *store,
			const struct il_report_opts *ro,
			const struct il_analysis_opts *ao, enum kind kind,
			int table, const char *output, struct il_outfile *of)
{
	int ret;

	/* Not over a table that is printing to the same terminal. */
	if (output || !isatty(STDOUT_FILENO))
		il_progress_begin("report");
	if (ro->format == IL_FMT_HTML) {
		ret = il_report_html(store, ao, output);
		if (ret == -ENOENT) {
			/* The page is written; only the plots are missing. */
			fprintf(stderr, "idlelab: report: %s\n", il_errmsg());
			ret = 0;
		} else if (ret == -EINVAL || ret == -ENOTDIR || ret == -EACCES ||
			   ret == -EEXIST) {
			return cli_usage_error("report: %s", il_errmsg());
		}
	} else {
		/* Into a temporary file, renamed over PATH only when whole. */
		if (output && il_outfile_open(of, output))
			return cli_usage_error("report: --output: %s", il_errmsg());
		if (kind == K_TABLE)
			ret = il_report(store, ro, of->f ?: stdout);
		else
			ret = run_kind(store, kind, ao, ro->format, table,
				       of->f ?: stdout);
		if (output && !ret)
			ret = il_outfile_commit(of);
	}
	if (ret == -ERANGE || ret == -E2BIG)
		return cli_usage_error("report: %s", il_errmsg());
	if (ret)
		return cli_error(IL_EXIT_FAIL, "report: %s", il_errmsg());
	cli_warn_left_out("report", store);
	return IL_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct il_report_opts ro = { .format = IL_FMT_MD };
	struct il_analysis_opts ao = { .deciles = false };
	struct sides sides = { .n = 0 };
	const char *db = cli_default_db(), *output = NULL;
	struct kind_arg ka = { K_TABLE, false };
	int table = 0;
	const struct cli_option options[] = {
		CLI_STRING('d', "db", &db, "FILE",
			   "database (default $IDLELAB_DB or ./idlelab.db)"),
		CLI_CALLBACK('f', "format", &ro.format, "FMT",
			     "md (default), csv, json or html (needs --output)",
			     set_format),
		CLI_STRING('o', "output", &output, "PATH",
			   "write to PATH (html: FILE.html, or a directory\n"
			   "that gets index.html and the plots' sources)"),
		CLI_CALLBACK('k', "kind", &ka, "KIND",
			     "table (default; compare when --compare is given),\n"
			     "states, compare, ipi, pairs, refs, causes, declared or all", set_kind),
		CLI_CALLBACK('c', "compare", &sides, "FILTER",
			     "one side of an A/B comparison, KEY=VALUE[,KEY=VALUE]\n"
			     "(host, machine, source, reference, bench, metric,\n"
			     "campaign, run, params.NAME, attr.NAME, fp.PATH)",
			     add_side),
		CLI_CALLBACK('e', "equivalence", &ao.equivalence_pct, "PCT",
			     "compare: also test equivalence within +-PCT % (TOST)",
			     set_equivalence),
		CLI_FLAG('D', "deciles", &ao.deciles,
			 "compare: also the shift of each Harrell-Davis decile"),
		CLI_FLAG('P', "paired", &ao.paired,
			 "compare: also the test paired over the blocks of a\n"
			 "campaign planned with order: blocks (signed-rank)"),
		CLI_CALLBACK('t', "table", &table, "N",
			     "only the report's table N (1, 2, ... as md prints\n"
			     "them); csv of a report of several tables needs it",
			     set_table),
		CLI_STRING('b', "bench", &ro.bench, "NAME", "only this benchmark"),
		CLI_STRING('u', "run", &ro.run_uuid, "UUID",
			   "only this run (table kind); a unique start of\n"
			   "its UUID will do (run and bench print 8 digits)"),
		CLI_END
	};
	const struct cli_command cmd = { "report", report_usage, options };
	enum kind kind;
	struct il_store *store = NULL;
	struct il_outfile of = { NULL, NULL, NULL };
	char run_buf[37];
	int argi, ret, code = IL_EXIT_OK, i;

	ret = cli_parse_options(&cmd, argc, argv, &argi);
	/* The sides parsed so far are freed at out: even after an error. */
	ao.ncompare = sides.n;
	ao.compare = sides.filters;
	ao.compare_text = sides.texts;
	ao.bench = ro.bench;
	kind = ka.kind;
	if (ret != CLI_CONTINUE) {
		code = ret;
		goto out;
	}
	if (argi != argc) {
		code = cli_usage_error("report: unexpected argument '%s'", argv[argi]);
		goto out;
	}
	if (!ka.set && ao.ncompare)
		kind = K_COMPARE;
	code = check_options(kind, &ao, ro.format, output, table);
	if (code)
		goto out;
	/* html checks each file it writes in DIR (html.c, plot.c). */
	code = cli_check_output("report", ro.format == IL_FMT_HTML ? NULL : output,
				&db, 1);
	if (code)
		goto out;
	ret = il_store_open(db, IL_STORE_READONLY, &store);
	if (ret) {
		code = cli_usage_error("report: %s", il_errmsg());
		goto out;
	}
	code = resolve_run(store, &ro.run_uuid, run_buf);
	if (code)
		goto out;
	/* A typo in --bench, --run or --compare is a usage error. */
	ret = il_report_check(store, &ro, &ao, report_notice, NULL);
	if (ret) {
		code = ret == -EINVAL ? cli_usage_error("report: %s", il_errmsg()) :
		       cli_error(IL_EXIT_FAIL, "report: %s", il_errmsg());
		goto out;
	}
	code = write_report(store, &ro, &ao, kind, table, output, &of);
out:
	il_outfile_abort(&of);
	il_store_close(store);
	for (i = 0; i < ao.ncompare; i++)
		il_filter_free(sides.filters[i]);
	return code;
}
