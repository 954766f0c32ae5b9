// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_run_args.c - the command line of `idlelab run`, both ways: parsed
 * once into struct run_opts, and written back as the command that
 * finishes a stopped campaign, with every flag that decides its plan or
 * its destination, quoted for a shell (issue 20, defect 7).
 */
#include "campaign.h"
#include "cli.h"
#include "cli_opts.h"
#include "cmd_run_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char run_usage[] =
	"usage: idlelab run FILE [--db FILE] [--resume] [--dry-run]\n"
	"                        [--only GLOB] [--name NAME] [--scale F]\n"
	"                        [--env-missing unsupported|abort|run]\n"
	"                        [--json] [--quiet]\n\n"
	"Run the campaign FILE (see idlelab-run(1) for the format): every\n"
	"benchmark x parameter matrix x placement x repetition, one\n"
	"transaction per run, with the environment controls restored at\n"
	"the end, on SIGINT/SIGTERM/SIGHUP and on any error.\n\n";

/* --env-missing, by name; the first is the default. */
static const char *const env_missing_names[] = {
	[ENV_MISSING_UNSUPPORTED] = "unsupported",
	[ENV_MISSING_ABORT] = "abort",
	[ENV_MISSING_RUN] = "run",
};

/* The command line into @o.  Return: CLI_CONTINUE, else the exit code. */
int run_parse(int argc, char **argv, struct run_opts *o)
{
	/* A local table: its value pointers are fields of @o. */
	const struct cli_option options[] = {
		CLI_STRING('d', "db", &o->db, "FILE",
			   "database (default $IDLELAB_DB or ./idlelab.db)"),
		CLI_FLAG('r', "resume", &o->resume,
			 "run only the entries not yet stored with a final\n"
			 "status (ok, failed, unsupported)"),
		CLI_FLAG('n', "dry-run", &o->dry,
			 "print the expanded plan and its estimated\n"
			 "duration; run and change nothing"),
		CLI_STRING('o', "only", &o->only, "GLOB",
			   "only the entries whose benchmark or group name\n"
			   "matches GLOB (fnmatch); plan indices are kept"),
		CLI_STRING(0, "name", &o->name, "NAME",
			   "store under campaign NAME instead of the file's"),
		CLI_STRING(0, "scale", &o->scale_s, "F",
			   "multiply repetitions and every count and run\n"
			   "length by F (0 < F <= 1; a smoke test)"),
		CLI_STRING(0, "env-missing", &o->env_missing_s, "ACTION",
			   "an environment control that does not exist here\n"
			   "(no cpufreq, no cpuidle, ...): 'unsupported'\n"
			   "(default) stores every run as unsupported with\n"
			   "the reason, 'abort' refuses the campaign (exit 3),\n"
			   "'run' measures anyway, the reason kept per run"),
		CLI_FLAG('j', "json", &o->json,
			 "one JSON line per run, whatever its status, and\n"
			 "the tally as a last one (idlelab-run(1), JSON output)"),
		CLI_FLAG('q', "quiet", &o->quiet,
			 "no line per run; the tally and errors only"),
		CLI_END
	};
	const struct cli_command cmd = { "run", run_usage, options };
	int argi, code;

	o->db = cli_default_db();
	code = cli_parse_options(&cmd, argc, argv, &argi);
	if (code != CLI_CONTINUE)
		return code;
	if (argi != argc - 1) {
		cli_usage(&cmd, stderr);
		return cli_usage_error("run: expected exactly one campaign file");
	}
	o->file = argv[argi];
	/* The plan has no JSON form yet: a script would read text as JSON. */
	if (o->json && o->dry)
		return cli_usage_error("run: --dry-run prints the plan as text only; leave --json out");
	o->env_missing = ENV_MISSING_UNSUPPORTED;
	if (o->env_missing_s) {
		int i;

		for (i = 0; i < ENV_MISSING_N; i++)
			if (!strcmp(o->env_missing_s, env_missing_names[i]))
				break;
		if (i == ENV_MISSING_N)
			return cli_usage_error("run: --env-missing '%s': expected unsupported, abort or run",
					       o->env_missing_s);
		o->env_missing = (enum env_missing)i;
	}
	o->scale = 1.0;
	if (o->scale_s) {
		char *end;

		errno = 0;
		o->scale = strtod(o->scale_s, &end);
		if (errno || end == o->scale_s || *end ||
		    !il_scale_valid(o->scale))
			return cli_usage_error("run: --scale '%s': expected a number from %g to %g",
					       o->scale_s, IL_SCALE_MIN,
					       IL_SCALE_MAX);
	}
	return CLI_CONTINUE;
}

/*
 * Append " --FLAG VALUE" to @buf, VALUE in single quotes unless it is
 * plainly safe, so that the hint pastes back into a shell as it is.
 */
static void hint_arg(char *buf, size_t size, const char *flag,
		     const char *value)
{
	size_t n = strlen(buf);
	const char *p;

	if (!value || n + 1 >= size)
		return;
	if (flag)
		n += (size_t)snprintf(buf + n, size - n, " %s", flag);
	if (n + 1 >= size)
		return;
	if (*value && strspn(value, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./=:,+@%") == strlen(value)) {
		snprintf(buf + n, size - n, " %s", value);
		return;
	}
	n += (size_t)snprintf(buf + n, size - n, " '");
	for (p = value; *p && n + 5 < size; p++) {
		if (*p == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			buf[n++] = *p;
		}
	}
	if (n + 2 <= size) {
		buf[n++] = '\'';
		buf[n] = '\0';
	}
}

/*
 * The command that finishes an interrupted campaign: every flag that
 * decides its plan (--scale, --only), where it goes (--db, --name) and
 * what an absent control means (--env-missing).  --resume would read the
 * stored scale anyway; it is spelled out so the line says what it does.
 */
void run_resume_hint(const char *file, const struct run_opts *o, char *buf,
		     size_t size)
{
	char scale[32];

	snprintf(buf, size, "idlelab run");
	hint_arg(buf, size, NULL, file);
	hint_arg(buf, size, NULL, "--resume");
	hint_arg(buf, size, "--db", o->db);
	if (o->name)
		hint_arg(buf, size, "--name", o->name);
	if (o->scale != 1.0) {
		snprintf(scale, sizeof(scale), "%.17g", o->scale);
		hint_arg(buf, size, "--scale", scale);
	}
	if (o->only)
		hint_arg(buf, size, "--only", o->only);
	if (o->env_missing_s)
		hint_arg(buf, size, "--env-missing", o->env_missing_s);
}

