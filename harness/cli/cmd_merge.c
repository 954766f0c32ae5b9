// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_merge.c - `idlelab merge OUT.db IN.db...`: the union of datasets.
 * Every input is checked before anything is written, so a foreign or
 * newer-schema input refuses the whole merge with OUT untouched; inputs
 * are only ever opened read-only, and OUT may not name any of them, nor
 * their -wal or -shm (outfile.h).
 */
#include "cli.h"
#include "cli_opts.h"
#include "err.h"
#include "progress.h"
#include "merge.h"
#include "store.h"

static const char merge_usage[] =
	"usage: idlelab merge [--quiet] OUT.db IN.db...\n\n"
	"Copy into OUT.db (created if missing) every machine and run of the\n"
	"inputs that OUT.db does not hold yet, keyed by UUID; running it twice\n"
	"changes nothing.  Inputs are opened read-only.  A foreign or\n"
	"newer-schema input refuses the whole merge before anything is written.\n\n";

static void warn_left_out(const char *uuid, const char *why, void *arg)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "merge: %s", (const char *)arg);
	cli_warn_damaged(cmd, uuid, why);
}

int cmd_merge(int argc, char **argv)
{
	bool quiet = false;
	const struct cli_option options[] = {
		CLI_FLAG('q', "quiet", &quiet, "no per-input line"),
		CLI_END
	};
	const struct cli_command cmd = { "merge", merge_usage, options };
	struct il_merge_stats st;
	struct il_store *out;
	int argi, i, ret;

	ret = cli_parse_options(&cmd, argc, argv, &argi);
	if (ret != CLI_CONTINUE)
		return ret;
	if (argc - argi < 2)
		return cli_usage_error("merge: need OUT.db and at least one IN.db (see idlelab merge --help)");
	ret = cli_check_output("merge", argv[argi],
			       (const char *const *)argv + argi + 1, argc - argi - 1);
	if (ret)
		return ret;
	for (i = argi + 1; i < argc; i++) {
		ret = il_merge_check_input(argv[i], argv[argi]);
		if (ret)
			return cli_usage_error("merge: refusing input %s, nothing merged: %s",
					       argv[i], il_errmsg());
	}
	ret = il_store_open(argv[argi], IL_STORE_CREATE, &out);
	if (ret)
		return cli_usage_error("merge: output: %s", il_errmsg());
	il_progress_begin("merge");
	for (i = argi + 1; i < argc; i++) {
		il_progress_count((uint64_t)(i - argi - 1), "inputs merged");
		ret = il_merge_one(out, argv[i], &st, warn_left_out, argv[i]);
		if (ret) {
			il_store_close(out);
			return cli_error(IL_EXIT_FAIL, "merge: %s (inputs before it are merged)",
					 il_errmsg());
		}
		il_progress_clear();
		if (!quiet && st.runs_damaged)
			printf("%s: %d new runs, %d already present, %d new machines, %d damaged left out\n",
			       argv[i], st.runs_new, st.runs_present, st.machines_new,
			       st.runs_damaged);
		else if (!quiet)
			printf("%s: %d new runs, %d already present, %d new machines\n",
			       argv[i], st.runs_new, st.runs_present, st.machines_new);
	}
	il_store_close(out);
	return IL_EXIT_OK;
}
