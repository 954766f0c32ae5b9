// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_opts.c - the option-table parser of the idlelab CLI (cli_opts.h).
 *
 * getopt_long() stays the engine, so option syntax is exactly what it was
 * when every command wrote its own loop (clustered short options,
 * --name=VALUE, "--" ends the options, operands may come before options);
 * this file only derives getopt's arrays from the table and dispatches
 * each result to the entry it belongs to.  An entry with a short letter
 * reports as that letter, as before; a long-only entry reports as
 * CLI_LONG_BASE plus its index, which no character can collide with.
 */
#include "cli_opts.h"
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define CLI_LONG_BASE	256
#define CLI_HELP_COL_GAP	2

static int count_options(const struct cli_option *o)
{
	int n = 0;

	while (o && o[n].type != CLI_OPT_END)
		n++;
	return n;
}

/* "  -d, --db FILE" or "      --counters NAME", the left column of --help. */
static int option_head(const struct cli_option *o, char *buf, size_t len)
{
	char shortpart[8] = "    ";

	if (o->short_name)
		snprintf(shortpart, sizeof(shortpart), "-%c, ", o->short_name);
	return snprintf(buf, len, "  %s--%s%s%s", shortpart, o->long_name,
			o->argh ? " " : "", o->argh ? o->argh : "");
}

static void print_option(FILE *f, const char *head, const char *help, int col)
{
	const char *line = help, *nl;

	fprintf(f, "%-*s", col, head);
	for (;;) {
		nl = strchr(line, '\n');
		if (!nl) {
			fprintf(f, "%s\n", line);
			return;
		}
		fprintf(f, "%.*s\n%*s", (int)(nl - line), line, col, "");
		line = nl + 1;
	}
}

void cli_usage(const struct cli_command *cmd, FILE *f)
{
	static const struct cli_option help =
		CLI_FLAG('h', "help", NULL, "this text");
	const struct cli_option *o;
	char head[128];
	int col, w;

	col = option_head(&help, head, sizeof(head));
	for (o = cmd->options; o && o->type != CLI_OPT_END; o++) {
		w = option_head(o, head, sizeof(head));
		if (w > col)
			col = w;
	}
	col += CLI_HELP_COL_GAP;
	fputs(cmd->usage, f);
	for (o = cmd->options; o && o->type != CLI_OPT_END; o++) {
		option_head(o, head, sizeof(head));
		print_option(f, head, o->help, col);
	}
	option_head(&help, head, sizeof(head));
	print_option(f, head, help.help, col);
}

/* Each long name, one a line: what a man page must mention (the test). */
static void list_options(const struct cli_command *cmd)
{
	const struct cli_option *o;

	for (o = cmd->options; o && o->type != CLI_OPT_END; o++)
		printf("%s\n", o->long_name);
}

static const struct cli_option *find_option(const struct cli_command *cmd,
					    int n, int code)
{
	int i;

	if (code >= CLI_LONG_BASE && code < CLI_LONG_BASE + n)
		return &cmd->options[code - CLI_LONG_BASE];
	for (i = 0; i < n; i++)
		if (cmd->options[i].short_name && cmd->options[i].short_name == code)
			return &cmd->options[i];
	return NULL;
}

/* getopt's '?' for an entry of ours: only a missing argument does that. */
static int bad_option(const struct cli_command *cmd, int n, int argc, char **argv)
{
	const struct cli_option *o = optopt >= CLI_LONG_BASE ?
		find_option(cmd, n, optopt) : NULL;

	if (o)
		return cli_usage_error("%s: option --%s: missing argument (see idlelab %s --help)",
				       cmd->name, o->long_name, cmd->name);
	return cli_bad_option(cmd->name, argc, argv);
}

static int apply(const struct cli_option *o, const char *arg)
{
	switch (o->type) {
	case CLI_OPT_FLAG:
		*(bool *)o->value = true;
		return 0;
	case CLI_OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case CLI_OPT_CALLBACK:
		return o->callback(o, arg);
	case CLI_OPT_END:
		break;
	}
	return cli_error(IL_EXIT_FAIL, "internal error: option --%s has no type",
			 o->long_name);
}

int cli_parse_options(const struct cli_command *cmd, int argc, char **argv,
		      int *first_arg)
{
	int n = count_options(cmd->options), i, opt, ret = CLI_CONTINUE;
	const int list_code = CLI_LONG_BASE + n;
	/* "h" plus up to two characters ("x:") per entry, and the NUL. */
	char *shortopts = malloc(2 + 2 * (size_t)n + 1), *s;
	struct option *longopts = calloc((size_t)n + 3, sizeof(*longopts));
	const struct cli_option *o;

	if (!shortopts || !longopts) {
		free(shortopts);
		free(longopts);
		return cli_error(IL_EXIT_FAIL, "out of memory");
	}
	s = shortopts;
	for (i = 0; i < n; i++) {
		o = &cmd->options[i];
		longopts[i].name = o->long_name;
		longopts[i].has_arg = o->argh ? required_argument : no_argument;
		longopts[i].val = o->short_name ? o->short_name : CLI_LONG_BASE + i;
		if (o->short_name) {
			*s++ = (char)o->short_name;
			if (o->argh)
				*s++ = ':';
		}
	}
	*s++ = 'h';
	*s = '\0';
	longopts[n] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n + 1] = (struct option){ "list-options", no_argument, NULL, list_code };

	opterr = 0;
	/*
	 * 0, not 1: glibc then forgets where the last parse stopped.  With
	 * 1 it resumes inside the previous argv's last word when that parse
	 * ended mid-cluster ("-hpK=V" stops at -h), and hands out a pointer
	 * into it as the next optarg.
	 */
	optind = 0;
	while (ret == CLI_CONTINUE &&
	       (opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (opt == 'h') {
			cli_usage(cmd, stdout);
			ret = IL_EXIT_OK;
		} else if (opt == list_code) {
			list_options(cmd);
			ret = IL_EXIT_OK;
		} else if ((o = find_option(cmd, n, opt))) {
			ret = apply(o, optarg);
			if (ret == 0)
				ret = CLI_CONTINUE;
		} else {
			ret = bad_option(cmd, n, argc, argv);
		}
	}
	*first_arg = optind;
	free(shortopts);
	free(longopts);
	return ret;
}

int cli_parse_options_only(const struct cli_command *cmd, int argc, char **argv)
{
	int argi, ret = cli_parse_options(cmd, argc, argv, &argi);

	if (ret == CLI_CONTINUE && argi != argc)
		return cli_usage_error("%s: unexpected argument '%s'", cmd->name,
				       argv[argi]);
	return ret;
}
