// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_merge.c - `idlelab merge OUT.db IN.db...`: the union of datasets.
 * Every input is checked before anything is written, so a foreign or
 * newer-schema input refuses the whole merge with OUT untouched; inputs
 * are only ever opened read-only.
 */
#include "cli.h"
#include "err.h"
#include "merge.h"
#include "store.h"

#include <getopt.h>

static void merge_usage(FILE *f)
{
	fprintf(f,
		"usage: idlelab merge [--quiet] OUT.db IN.db...\n\n"
		"Copy into OUT.db (created if missing) every machine and run of the\n"
		"inputs that OUT.db does not hold yet, keyed by UUID; running it twice\n"
		"changes nothing.  Inputs are opened read-only.  A foreign or\n"
		"newer-schema input refuses the whole merge before anything is written.\n\n"
		"  -q, --quiet   no per-input line\n"
		"  -h, --help    this text\n");
}

int cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct il_merge_stats st;
	struct il_store *out;
	bool quiet = false;
	int opt, i, ret;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'q':
			quiet = true;
			break;
		case 'h':
			merge_usage(stdout);
			return IL_EXIT_OK;
		default:
			return cli_bad_option("merge", argc, argv);
		}
	}
	if (argc - optind < 2)
		return cli_usage_error("merge: need OUT.db and at least one IN.db (see idlelab merge --help)");
	for (i = optind + 1; i < argc; i++) {
		ret = il_merge_check_input(argv[i], argv[optind]);
		if (ret)
			return cli_usage_error("merge: refusing input %s, nothing merged: %s",
					       argv[i], il_errmsg());
	}
	ret = il_store_open(argv[optind], IL_STORE_CREATE, &out);
	if (ret)
		return cli_usage_error("merge: output: %s", il_errmsg());
	for (i = optind + 1; i < argc; i++) {
		ret = il_merge_one(out, argv[i], &st);
		if (ret) {
			il_store_close(out);
			return cli_error(IL_EXIT_FAIL, "merge: %s (inputs before it are merged)",
					 il_errmsg());
		}
		if (!quiet)
			printf("%s: %d new runs, %d already present, %d new machines\n",
			       argv[i], st.runs_new, st.runs_present, st.machines_new);
	}
	il_store_close(out);
	return IL_EXIT_OK;
}
