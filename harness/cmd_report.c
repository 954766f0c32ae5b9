// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_report.c - `idlelab report`: the tables of analysis/ from a
 * database: the results table (the default kind), seed 002's per-state
 * table, the A/B comparison, the IPI scaling table and the futex pair
 * matrix; with --format html, a directory with index.html and the plots.
 * Opens the database read-only: a report never changes the dataset.
 */
#include "cli.h"
#include "analysis.h"
#include "err.h"
#include "store.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COMPARE 8

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: idlelab report [--db FILE] [--format md|csv|json|html] [--output PATH]\n"
		"                      [--kind table|states|compare|ipi|pairs|refs|all]\n"
		"                      [--compare FILTER]... [--seed N] [--resamples N]\n"
		"                      [--bench NAME] [--run UUID]\n\n"
		"Print tables read from the dataset (see idlelab-report(1)).\n\n"
		"  -d, --db FILE        database (default $IDLELAB_DB or ./idlelab.db)\n"
		"  -f, --format FMT     md (default), csv, json or html (needs --output DIR)\n"
		"  -o, --output PATH    write to PATH (a directory for html)\n"
		"  -k, --kind KIND      table (default; compare when --compare is given),\n"
		"                       states, compare, ipi, pairs, refs or all\n"
		"  -c, --compare FILTER one side of an A/B comparison, KEY=VALUE[,KEY=VALUE]\n"
		"                       (host, machine, source, reference, bench, metric,\n"
		"                       campaign, run, params.NAME, attr.NAME, fp.PATH)\n"
		"  -s, --seed N         bootstrap seed (default 1)\n"
		"  -r, --resamples N    bootstrap replicates (default 1000)\n"
		"  -b, --bench NAME     only this benchmark\n"
		"  -u, --run UUID       only this run (table kind)\n"
		"  -h, --help           this text\n");
}

enum kind { K_TABLE, K_STATES, K_COMPARE, K_IPI, K_PAIRS, K_REFS, K_ALL };

static int parse_kind(const char *s, enum kind *k)
{
	static const char *const names[] = { "table", "states", "compare", "ipi", "pairs", "refs", "all" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*k = (enum kind)i;
			return 0;
		}
	return -EINVAL;
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

static int run_kind(struct il_store *store, enum kind k,
		    const struct il_analysis_opts *ao, enum il_format f, FILE *out)
{
	struct il_table **v = NULL, *t, **pv;
	int n = 0, np, i, ret = 0;

	if (k == K_STATES || k == K_ALL) {
		ret = il_report_states(store, ao, &t) ?: push(&v, &n, t);
	}
	if (!ret && (k == K_IPI || k == K_ALL)) {
		ret = il_report_ipi(store, ao, &t) ?: push(&v, &n, t);
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
	if (!ret && (k == K_COMPARE || (k == K_ALL && ao->ncompare))) {
		ret = il_report_compare(store, ao, &t) ?: push(&v, &n, t);
	}
	if (!ret)
		il_tables_print(v, n, f, out);
	for (i = 0; i < n; i++)
		il_table_free(v[i]);
	free(v);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "kind", required_argument, NULL, 'k' },
		{ "compare", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ "resamples", required_argument, NULL, 'r' },
		{ "bench", required_argument, NULL, 'b' },
		{ "run", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct il_report_opts ro = { .format = IL_FMT_MD };
	struct il_analysis_opts ao = { .seed = 1, .resamples = 1000 };
	struct il_filter *filters[MAX_COMPARE];
	const char *texts[MAX_COMPARE];
	const char *db = cli_default_db(), *output = NULL;
	enum kind kind = K_TABLE;
	bool kind_set = false;
	struct il_store *store = NULL;
	FILE *out = stdout;
	char *end;
	int opt, ret, code = IL_EXIT_OK, i;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "d:f:o:k:c:s:r:b:u:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 'f':
			if (il_format_parse(optarg, &ro.format)) {
				code = cli_usage_error("report: --format: %s", il_errmsg());
				goto out;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case 'k':
			if (parse_kind(optarg, &kind)) {
				code = cli_usage_error("report: --kind: unknown kind '%s' (use table, states, compare, ipi, pairs, refs or all)", optarg);
				goto out;
			}
			kind_set = true;
			break;
		case 'c':
			if (ao.ncompare == MAX_COMPARE) {
				code = cli_usage_error("report: --compare: at most %d sides", MAX_COMPARE);
				goto out;
			}
			if (il_filter_parse(optarg, &filters[ao.ncompare])) {
				code = cli_usage_error("report: --compare: %s", il_errmsg());
				goto out;
			}
			texts[ao.ncompare++] = optarg;
			break;
		case 's':
			errno = 0;
			ao.seed = strtoull(optarg, &end, 0);
			if (errno || !*optarg || *end || *optarg == '-') {
				code = cli_usage_error("report: --seed: '%s' is not a non-negative integer", optarg);
				goto out;
			}
			break;
		case 'r':
			errno = 0;
			ao.resamples = (int)strtol(optarg, &end, 10);
			if (errno || !*optarg || *end || ao.resamples < 100 || ao.resamples > 1000000) {
				code = cli_usage_error("report: --resamples: '%s' is not an integer in 100..1000000", optarg);
				goto out;
			}
			break;
		case 'b':
			ro.bench = ao.bench = optarg;
			break;
		case 'u':
			ro.run_uuid = optarg;
			break;
		case 'h':
			report_usage(stdout);
			goto out;
		default:
			code = cli_bad_option("report", argc, argv);
			goto out;
		}
	}
	ao.compare = filters;
	ao.compare_text = texts;
	if (optind != argc) {
		code = cli_usage_error("report: unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!kind_set && ao.ncompare)
		kind = K_COMPARE;
	if (kind == K_COMPARE && ao.ncompare < 2) {
		code = cli_usage_error("report: --kind compare needs at least two --compare FILTER");
		goto out;
	}
	if (ao.ncompare == 1) {
		code = cli_usage_error("report: --compare: give at least two sides");
		goto out;
	}
	if (ro.format == IL_FMT_HTML && !output) {
		code = cli_usage_error("report: --format html needs --output DIR");
		goto out;
	}
	ret = il_store_open(db, IL_STORE_READONLY, &store);
	if (ret) {
		code = cli_usage_error("report: %s", il_errmsg());
		goto out;
	}
	if (ro.format == IL_FMT_HTML) {
		ret = il_report_html(store, &ao, output);
		if (ret == -ENOENT) {
			/* The page is written; only the plots are missing. */
			fprintf(stderr, "idlelab: report: %s\n", il_errmsg());
			ret = 0;
		} else if (ret == -EINVAL || ret == -ENOTDIR || ret == -EACCES ||
			   ret == -EEXIST) {
			code = cli_usage_error("report: %s", il_errmsg());
			goto out;
		}
	} else {
		if (output) {
			out = fopen(output, "w");
			if (!out) {
				code = cli_usage_error("report: --output %s: %s", output, strerror(errno));
				out = stdout;
				goto out;
			}
		}
		if (kind == K_TABLE)
			ret = il_report(store, &ro, out);
		else
			ret = run_kind(store, kind, &ao, ro.format, out);
		if (out != stdout && fclose(out)) {
			out = stdout;
			if (!ret)
				ret = il_errorf(-EIO, "writing %s: %s", output, strerror(errno));
		}
		out = stdout;
	}
	if (ret)
		code = cli_error(IL_EXIT_FAIL, "report: %s", il_errmsg());
out:
	if (out != stdout)
		fclose(out);
	il_store_close(store);
	for (i = 0; i < ao.ncompare; i++)
		il_filter_free(filters[i]);
	return code;
}
