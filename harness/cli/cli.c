// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli.c - main() of idlelab: the subcommand table, in the manner of perf's
 * cmd_struct, and the few helpers every command shares.
 *
 * Only the CLI decides how the process ends: the library returns errors,
 * the commands turn them into exit codes (cli.h), and main() checks that
 * stdout was really written, so a full disk is an error, not a silent
 * truncation.
 */
#include "cli.h"
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

static char il_cmdline_buf[4096];

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
	{ NULL, NULL, NULL },
};

/* Whatever was printed on stdout goes first, so the message comes last. */
static void vmessage(const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs("idlelab: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cli_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	return code;
}

void cli_warn_damaged(const char *cmd, const char *uuid, const char *why)
{
	cli_error(0, "%s: left out run %s, its stored data is damaged: %s (idlelab db check lists every finding)",
		  cmd, uuid, why);
}

void cli_warn_left_out(const char *cmd, struct il_store *store)
{
	const struct il_damaged_run *v;
	size_t n, i;

	if (il_store_damaged_runs(store, &v, &n))
		return;
	for (i = 0; i < n; i++)
		if (v[i].left_out)
			cli_warn_damaged(cmd, v[i].uuid, v[i].why);
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	return IL_EXIT_USAGE;
}

int cli_exit_for_status(const char *status)
{
	enum il_run_status s;

	if (il_run_status_parse(status, &s))
		return IL_EXIT_FAIL;
	switch (s) {
	case IL_RUN_OK:
		return IL_EXIT_OK;
	case IL_RUN_UNSUPPORTED:
		return IL_EXIT_UNSUPPORTED;
	case IL_RUN_INTERRUPTED:
		return IL_EXIT_INTERRUPTED;
	default:
		return IL_EXIT_FAIL;
	}
}

int cli_bad_option(const char *cmd, int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";

	if (optopt && optopt != '?')
		return cli_usage_error("%s: option -%c: invalid or missing argument (see idlelab %s --help)",
				       cmd, optopt, cmd);
	return cli_usage_error("%s: unrecognised option '%s' (see idlelab %s --help)",
			       cmd, arg, cmd);
}

const char *cli_default_db(void)
{
	const char *db = getenv("IDLELAB_DB");

	return db && *db ? db : "idlelab.db";
}

int cli_check_output(const char *cmd, const char *output,
		     const char *const *inputs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (il_outfile_guard(inputs[i]))
			return cli_error(IL_EXIT_FAIL, "%s: %s", cmd, il_errmsg());
	if (output && il_outfile_check(output))
		return cli_usage_error("%s: %s", cmd, il_errmsg());
	return IL_EXIT_OK;
}

const char *cli_cmdline(void)
{
	return il_cmdline_buf;
}

static void on_signal(int sig)
{
	(void)sig;
	il_request_stop();
}

void cli_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* A second Ctrl-C while a run is stopping still kills the process. */
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static void save_cmdline(int argc, char **argv)
{
	size_t used = 0;
	int i;

	for (i = 0; i < argc && used < sizeof(il_cmdline_buf) - 1; i++)
		used += snprintf(il_cmdline_buf + used,
				 sizeof(il_cmdline_buf) - used, "%s%s",
				 i ? " " : "", argv[i]);
}

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
		if (!strcmp(c->name, argv[0]))
			return finish(c->fn(argc, argv));
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

	save_cmdline(argc, argv);
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
