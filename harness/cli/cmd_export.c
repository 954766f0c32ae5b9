// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_export.c - `idlelab export`: runs, summaries or histogram buckets
 * as csv or json on standard output or into --output (analysis/export.c).
 * Read-only: the output may not name the database (outfile.h), and is
 * written to a temporary file renamed into place only when complete.
 */
#include "cli.h"
#include "cli_opts.h"
#include "analysis.h"
#include "err.h"
#include "progress.h"
#include "outfile.h"
#include "store.h"

#include <string.h>
#include <unistd.h>

static const char export_usage[] =
	"usage: idlelab export [--db FILE] [--format csv|json] [--output FILE]\n"
	"                      [--what runs|summaries|buckets|causes]\n\n";

static int set_format(const struct cli_option *o, const char *arg)
{
	if (strcmp(arg, "csv") && strcmp(arg, "json"))
		return cli_usage_error("export: --format: unknown format '%s' (use csv or json)", arg);
	*(enum il_format *)o->value = strcmp(arg, "csv") ? IL_FMT_JSON : IL_FMT_CSV;
	return 0;
}

static int set_what(const struct cli_option *o, const char *arg)
{
	if (strcmp(arg, "runs") && strcmp(arg, "summaries") && strcmp(arg, "buckets") &&
	    strcmp(arg, "causes"))
		return cli_usage_error("export: --what: unknown '%s' (use runs, summaries, buckets or causes)", arg);
	*(const char **)o->value = arg;
	return 0;
}

int cmd_export(int argc, char **argv)
{
	const char *db = cli_default_db(), *what = "summaries", *output = NULL;
	enum il_format fmt = IL_FMT_CSV;
	const struct cli_option options[] = {
		CLI_STRING('d', "db", &db, "FILE",
			   "database (default $IDLELAB_DB or ./idlelab.db)"),
		CLI_CALLBACK('f', "format", &fmt, "FMT", "csv (default) or json",
			     set_format),
		CLI_CALLBACK('w', "what", &what, "WHAT",
			     "runs, summaries (default), buckets or causes", set_what),
		CLI_STRING('o', "output", &output, "FILE",
			   "write to FILE instead of standard output"),
		CLI_END
	};
	const struct cli_command cmd = { "export", export_usage, options };
	struct il_outfile of = { NULL, NULL, NULL };
	struct il_store *store;
	int ret;

	ret = cli_parse_options_only(&cmd, argc, argv);
	if (ret != CLI_CONTINUE)
		return ret;
	ret = cli_check_output("export", output, &db, 1);
	if (ret)
		return ret;
	ret = il_store_open(db, IL_STORE_READONLY, &store);
	if (ret)
		return cli_usage_error("export: %s", il_errmsg());
	if (output && il_outfile_open(&of, output)) {
		il_store_close(store);
		return cli_usage_error("export: --output: %s", il_errmsg());
	}
	/* Not over rows that are printing to the same terminal. */
	if (output || !isatty(STDOUT_FILENO))
		il_progress_begin("export");
	ret = il_export(store, what, fmt, of.f ?: stdout);
	if (!ret)
		cli_warn_left_out("export", store);
	il_store_close(store);
	if (output)
		ret = ret ?: il_outfile_commit(&of);
	il_outfile_abort(&of);
	if (ret)
		return cli_error(IL_EXIT_FAIL, "export: %s", il_errmsg());
	return IL_EXIT_OK;
}
