// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_report.c - `idlelab report`: the results table from a database.
 * Opens the database read-only: a report never changes the dataset.
 */
#include "cli.h"
#include "analysis.h"
#include "err.h"
#include "store.h"

#include <getopt.h>

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: idlelab report [--db FILE] [--format md|csv|json]\n"
		"                      [--bench NAME] [--run UUID]\n\n"
		"Print one row per machine x benchmark x configuration x metric x CPU\n"
		"(or pair) with Nr samples, Min, Max, Median, Avg, Stddev, p99, p99.9.\n\n"
		"  -d, --db FILE        database (default $IDLELAB_DB or ./idlelab.db)\n"
		"  -f, --format FMT     md (default), csv or json\n"
		"  -b, --bench NAME     only this benchmark\n"
		"  -u, --run UUID       only this run\n"
		"  -h, --help           this text\n");
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "bench", required_argument, NULL, 'b' },
		{ "run", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct il_report_opts ro = { .format = IL_FMT_MD };
	const char *db = cli_default_db();
	struct il_store *store;
	int opt, ret;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "d:f:b:u:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 'f':
			if (il_format_parse(optarg, &ro.format))
				return cli_usage_error("report: --format: %s", il_errmsg());
			break;
		case 'b':
			ro.bench = optarg;
			break;
		case 'u':
			ro.run_uuid = optarg;
			break;
		case 'h':
			report_usage(stdout);
			return IL_EXIT_OK;
		default:
			return cli_bad_option("report", argc, argv);
		}
	}
	if (optind != argc)
		return cli_usage_error("report: unexpected argument '%s'", argv[optind]);
	ret = il_store_open(db, IL_STORE_READONLY, &store);
	if (ret)
		return cli_usage_error("report: %s", il_errmsg());
	ret = il_report(store, &ro, stdout);
	il_store_close(store);
	if (ret)
		return cli_error(IL_EXIT_FAIL, "report: %s", il_errmsg());
	return IL_EXIT_OK;
}
