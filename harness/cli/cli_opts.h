/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli_opts.h - one declarative option table per command, in the shape of
 * perf's parse-options: each entry names its long and short spelling, its
 * argument, where the value goes and its help line, and from that one
 * table come getopt_long()'s option array and optstring, the parsing
 * loop, the option part of `--help`, and the hidden `--list-options`
 * that tests/integration/test_man_options.sh compares with the man page.
 *
 * Every command gets -h/--help and --list-options without listing them.
 *
 * Adopting it in a command (cmd_run_campaign.c is the plain case sketched
 * here; cmd_bench.c and cmd_report.c are worked examples with callbacks):
 *
 *	const char *db = cli_default_db(), *name = NULL;
 *	bool resume = false;
 *	const struct cli_option options[] = {
 *		CLI_STRING('d', "db", &db, "FILE",
 *			   "database (default $IDLELAB_DB or ./idlelab.db)"),
 *		CLI_FLAG('r', "resume", &resume,
 *			 "run only the entries not yet stored with a final\n"
 *			 "status (ok, failed, unsupported)"),
 *		CLI_STRING(0, "name", &name, "NAME", "store under ..."),
 *		CLI_END
 *	};
 *	const struct cli_command cmd = {
 *		"run", "usage: idlelab run FILE [--db FILE] ...\n\n...\n\n",
 *		options,
 *	};
 *	int argi, code = cli_parse_options(&cmd, argc, argv, &argi);
 *
 *	if (code != CLI_CONTINUE)
 *		return code;	(IL_EXIT_OK after --help; else the message is out)
 *	... argv[argi] is the first operand; cli_usage(&cmd, stderr) ...
 *
 * Then add the command to the loop of tests/integration/test_cli.sh that
 * compares --help with --list-options; tests/integration/
 * test_man_options.sh finds it by itself and checks that its man page
 * names every option of the table.
 *
 * The value pointers may point at locals, as above: the table is then a
 * local (non-static) array built in the command.  The `value` of a callback is
 * its own context.  A help text with '\n' continues on a line indented
 * to the help column.
 */
#ifndef IDLELAB_CLI_OPTS_H
#define IDLELAB_CLI_OPTS_H

#include <stdbool.h>
#include <stdio.h>

enum cli_opt_type {
	CLI_OPT_END,
	CLI_OPT_FLAG,		/* bool *value set to true */
	CLI_OPT_STRING,		/* const char **value set to the argument */
	CLI_OPT_CALLBACK,	/* callback(opt, arg) checks and stores */
};

struct cli_option {
	enum cli_opt_type type;
	int short_name;		/* 0: long only */
	const char *long_name;
	void *value;
	const char *argh;	/* the argument in --help; NULL: takes none */
	const char *help;
	/*
	 * CLI_OPT_CALLBACK: @arg is the argument (NULL when @argh is NULL).
	 * Return 0, or an exit code once the message is printed (normally
	 * cli_usage_error()'s IL_EXIT_USAGE).
	 */
	int (*callback)(const struct cli_option *opt, const char *arg);
};

#define CLI_FLAG(s, l, v, h) \
	{ CLI_OPT_FLAG, (s), (l), (v), NULL, (h), NULL }
#define CLI_STRING(s, l, v, a, h) \
	{ CLI_OPT_STRING, (s), (l), (v), (a), (h), NULL }
#define CLI_CALLBACK(s, l, v, a, h, cb) \
	{ CLI_OPT_CALLBACK, (s), (l), (v), (a), (h), (cb) }
#define CLI_END { CLI_OPT_END, 0, NULL, NULL, NULL, NULL, NULL }

struct cli_command {
	const char *name;	/* as typed after idlelab; used in messages */
	const char *usage;	/* the synopsis and prose before the options,
				 * ending in a blank line */
	const struct cli_option *options;
};

/* cli_parse_options()'s "no exit: go on with the operands". */
#define CLI_CONTINUE	(-1)

/**
 * cli_parse_options() - parse @argv (argv[0] is the command's name)
 * against @cmd's table, storing each value as it comes.
 * @first_arg: set to the index of the first operand.
 * Return: CLI_CONTINUE; IL_EXIT_OK after printing --help or
 * --list-options; or the exit code of the message it (or a callback)
 * printed for an unknown option, a missing argument or a bad value.
 */
int cli_parse_options(const struct cli_command *cmd, int argc, char **argv,
		      int *first_arg);

/**
 * cli_parse_options_only() - cli_parse_options() for a command that takes
 * no operands: one is refused with "CMD: unexpected argument 'X'".
 * Return: CLI_CONTINUE, or the exit code.
 */
int cli_parse_options_only(const struct cli_command *cmd, int argc, char **argv);

/** cli_usage() - the usage text and the generated option list on @f. */
void cli_usage(const struct cli_command *cmd, FILE *f);

#endif
