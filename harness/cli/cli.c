// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli.c - main() of idlelab: the subcommand table, in the manner of perf's
 * cmd_struct, and `idlelab help`.  The helpers every command shares are
 * in cli_common.c, so that the commands call down into them and not back
 * into the file that calls the commands.
 *
 * Only the CLI decides how the process ends: the library returns errors,
 * the commands turn them into exit codes (cli.h), and main() checks that
 * stdout was really written, so a full disk is an error, not a silent
 * truncation.
 */
#include "cli.h"
#include "progress.h"
#include "run_context.h"
#include "envctl.h"
#include "err.h"
#include "outfile.h"
#include "run_status.h"
#include "store.h"

#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct il_cmd il_cmds[] = {
	{ "info", cmd_info, "print this machine's fingerprint" },
	{ "list", cmd_list, "list the benchmarks and their parameters" },
	{ "bench", cmd_bench, "run one benchmark into the database" },
	{ "report", cmd_report, "print the results table from a database" },
	{ "db", cmd_db, "check or migrate a database" },
	{ "run", cmd_run, "run a campaign file (resumable)" },
	{ "restore", cmd_restore, "restore settings left by a killed campaign" },
	{ "merge", cmd_merge, "merge databases into one (by UUID, idempotent)" },
	{ "import", cmd_import, "import cyclictest JSON or the seeds' reference figures" },
	{ "export", cmd_export, "export runs, summaries or histogram buckets" },
	{ "publish", cmd_publish, "write a shareable, redacted dataset bundle" },
	{ "advise", cmd_advise, "the deepest idle states that meet a latency budget" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	const struct il_cmd *c;

	fprintf(f, "usage: idlelab [-V|--version] [-h|--help] COMMAND [ARGS]\n"
		   "       idlelab help [COMMAND]\n"
		   "       idlelab help environment\n\n"
		   "Idle-state and IPI microbenchmarks into an SQLite dataset.\n\n"
		   "Commands:\n");
	for (c = il_cmds; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->summary);
	fprintf(f, "\nRun 'idlelab help COMMAND' (or 'idlelab COMMAND --help') for a\n"
		   "command's options, 'idlelab help environment' for the keys of a\n"
		   "campaign's environment: block; see idlelab(1) for exit codes.\n");
}

static int finish(int code)
{
	/* A write error on stdout (full disk, closed pipe) is a failure. */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "idlelab: error writing standard output\n");
		return code ? code : IL_EXIT_FAIL;
	}
	return code;
}

/* The command named @argv[0], with the nearest name when there is none. */
static int dispatch(int argc, char **argv)
{
	const struct il_cmd *c;
	struct il_suggester near;

	il_suggest_init(&near, argv[0]);
	for (c = il_cmds; c->name; c++) {
		if (!strcmp(c->name, argv[0])) {
			int code = c->fn(argc, argv);

			/* Whatever the command began, the line goes. */
			il_progress_end();
			return finish(code);
		}
		il_suggest_consider(&near, c->name);
	}
	il_suggest_consider(&near, "help");
	if (near.best)
		return cli_usage_error("unknown command '%s' (did you mean '%s'?)",
				       argv[0], near.best);
	return cli_usage_error("unknown command '%s' (see idlelab --help)", argv[0]);
}

int main(int argc, char **argv)
{
	char help_opt[] = "--help";

	cli_save_cmdline(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return IL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return finish(IL_EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("idlelab %s (%s)\n", IL_VERSION, IL_GIT_REV);
		return finish(IL_EXIT_OK);
	}
	/* `idlelab help CMD` is `idlelab CMD --help`, as git and perf have it. */
	if (!strcmp(argv[1], "help")) {
		char *av[] = { argv[2], help_opt, NULL };

		if (argc > 3)
			return cli_usage_error("help: expected one command, got '%s' after '%s' (see idlelab --help)",
					       argv[3], argv[2]);
		/* Not a command: the controls a campaign file may set, from
		 * the table the parser itself reads (envctl_keys.c). */
		if (!strcmp(argv[2], "environment"))
			return finish(il_envctl_keys_print(stdout) ? IL_EXIT_FAIL :
				      IL_EXIT_OK);
		return dispatch(2, av);
	}
	return dispatch(argc - 1, argv + 1);
}
