// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_db.c - `idlelab db check|migrate`: database maintenance.
 *
 * check opens read-only and never writes; migrate is the one command that
 * upgrades an older idlelab schema in place (each migration in its own
 * transaction), and it still refuses foreign or newer files.
 */
#include "cli.h"
#include "cli_opts.h"
#include "err.h"
#include "progress.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

static const char db_usage[] =
	"usage: idlelab db check [--db FILE]\n"
	"       idlelab db migrate [--db FILE]\n\n"
	"  check    integrity, schema version and per-run consistency;\n"
	"           exit 0 if healthy, 1 with the findings otherwise\n"
	"  migrate  apply the missing schema migrations\n\n";

int cmd_db(int argc, char **argv)
{
	const char *db = cli_default_db(), *action;
	const struct cli_option options[] = {
		CLI_STRING('d', "db", &db, "FILE",
			   "database (default $IDLELAB_DB or ./idlelab.db)"),
		CLI_END
	};
	const struct cli_command cmd = { "db", db_usage, options };
	struct il_store *store;
	char *report = NULL;
	int argi, ret, before, version;

	ret = cli_parse_options(&cmd, argc, argv, &argi);
	if (ret != CLI_CONTINUE)
		return ret;
	if (argi != argc - 1) {
		cli_usage(&cmd, stderr);
		return cli_usage_error("db: expected one action: check or migrate");
	}
	action = argv[argi];
	if (!strcmp(action, "check")) {
		ret = il_store_open(db, IL_STORE_READONLY, &store);
		if (ret)
			return cli_usage_error("db check: %s", il_errmsg());
		il_progress_begin("db check");
		ret = il_store_check(store, &report);
		il_progress_end();
		version = il_store_schema_version(store);
		/* Never a negative errno as a version (issue 20: "-30"). */
		if (version < 0)
			printf("%s: schema version unreadable: %s\n%s", db,
			       il_errmsg(), report ? report : "");
		else
			printf("%s: schema version %d\n%s", db, version,
			       report ? report : "");
		if (report && report[0] && report[strlen(report) - 1] != '\n')
			putchar('\n');
		free(report);
		il_store_close(store);
		return ret ? IL_EXIT_FAIL : IL_EXIT_OK;
	}
	if (!strcmp(action, "migrate")) {
		/* Open without migrating so we can say what changed. */
		ret = il_store_open(db, 0, &store);
		if (ret == -ESTALE || ret == 0) {
			if (ret == -ESTALE)
				ret = il_store_open(db, IL_STORE_CREATE, &store);
			if (ret)
				return cli_usage_error("db migrate: %s", il_errmsg());
		} else {
			return cli_usage_error("db migrate: %s", il_errmsg());
		}
		before = il_store_schema_version(store);
		il_progress_begin("db migrate");
		ret = il_store_migrate(store);
		il_progress_end();
		if (ret) {
			il_store_close(store);
			return cli_error(IL_EXIT_FAIL, "db migrate: %s", il_errmsg());
		}
		printf("%s: schema version %d -> %d\n", db, before,
		       il_store_schema_version(store));
		il_store_close(store);
		return IL_EXIT_OK;
	}
	return cli_usage_error("db: unknown action '%s' (use check or migrate)", action);
}
