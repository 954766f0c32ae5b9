// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_common.c - the helpers every idlelab command shares (cli.h): the
 * "idlelab: " messages and the exit codes they return, the default
 * database, the output-versus-inputs check, the command line as given,
 * and the signals that ask a run to stop.  main() and the subcommand
 * table are in cli.c, which calls the commands; the commands call this
 * file, never cli.c.
 */
#include "cli.h"
#include "run_context.h"
#include "err.h"
#include "outfile.h"
#include "progress.h"
#include "run_status.h"
#include "store.h"

#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char il_cmdline_buf[4096];

/* Whatever was printed on stdout goes first, so the message comes last. */
static void vmessage(const char *fmt, va_list ap)
{
	il_progress_clear();
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

void cli_fmt_duration(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = (ns + 500000000ULL) / 1000000000ULL;

	if (s >= 3600)
		snprintf(buf, len, "%" PRIu64 ":%02" PRIu64 ":%02" PRIu64,
			 s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%02" PRIu64 ":%02" PRIu64, s / 60, s % 60);
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

void cli_save_cmdline(int argc, char **argv)
{
	size_t used = 0;
	int i;

	for (i = 0; i < argc && used < sizeof(il_cmdline_buf) - 1; i++)
		used += snprintf(il_cmdline_buf + used,
				 sizeof(il_cmdline_buf) - used, "%s%s",
				 i ? " " : "", argv[i]);
}
