// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_export.c - `idlelab export`: runs, summaries or histogram buckets
 * as csv or json on standard output (analysis/export.c).  Read-only.
 */
#include "cli.h"
#include "analysis.h"
#include "err.h"
#include "store.h"

#include <getopt.h>
#include <string.h>

static void export_usage(FILE *f)
{
	fprintf(f,
		"usage: idlelab export [--db FILE] [--format csv|json]\n"
		"                      [--what runs|summaries|buckets]\n\n"
		"  -d, --db FILE      database (default $IDLELAB_DB or ./idlelab.db)\n"
		"  -f, --format FMT   csv (default) or json\n"
		"  -w, --what WHAT    runs, summaries (default) or buckets\n"
		"  -h, --help         this text\n");
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "what", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = cli_default_db(), *what = "summaries";
	enum il_format fmt = IL_FMT_CSV;
	struct il_store *store;
	int opt, ret;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "d:f:w:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "csv") && strcmp(optarg, "json"))
				return cli_usage_error("export: --format: unknown format '%s' (use csv or json)", optarg);
			fmt = strcmp(optarg, "csv") ? IL_FMT_JSON : IL_FMT_CSV;
			break;
		case 'w':
			if (strcmp(optarg, "runs") && strcmp(optarg, "summaries") &&
			    strcmp(optarg, "buckets"))
				return cli_usage_error("export: --what: unknown '%s' (use runs, summaries or buckets)", optarg);
			what = optarg;
			break;
		case 'h':
			export_usage(stdout);
			return IL_EXIT_OK;
		default:
			return cli_bad_option("export", argc, argv);
		}
	}
	if (optind != argc)
		return cli_usage_error("export: unexpected argument '%s'", argv[optind]);
	ret = il_store_open(db, IL_STORE_READONLY, &store);
	if (ret)
		return cli_usage_error("export: %s", il_errmsg());
	ret = il_export(store, what, fmt, stdout);
	il_store_close(store);
	if (ret)
		return cli_error(IL_EXIT_FAIL, "export: %s", il_errmsg());
	return IL_EXIT_OK;
}
