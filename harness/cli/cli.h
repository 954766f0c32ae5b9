/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.h - shared by the idlelab CLI's command files (cmd_*.c) only.
 *
 * Exit codes.  This is the one statement of them; idlelab(1), the README
 * and HACKING.md repeat it for readers and must agree with it:
 *   0  success
 *   1  a run failed, or an internal error
 *   2  usage error or bad input (flag, value, file, database)
 *   3  the measurement (or an environment control) is unsupported on this
 *      machine; the run is stored as unsupported, with the reason
 *   4  interrupted by SIGINT, SIGTERM or SIGHUP; what was measured up to
 *      then is stored as interrupted (resume a campaign with --resume)
 *   5  advise --verify: the budget was not shown to be met under the
 *      advised setting (above it, or too few samples for a bound)
 */
#ifndef IDLELAB_CLI_H
#define IDLELAB_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

enum {
	IL_EXIT_OK = 0,
	IL_EXIT_FAIL = 1,
	IL_EXIT_USAGE = 2,
	IL_EXIT_UNSUPPORTED = 3,
	IL_EXIT_INTERRUPTED = 4,
	IL_EXIT_NOT_MET = 5,
};

struct il_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_info(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_publish(int argc, char **argv);
int cmd_advise(int argc, char **argv);
/**
 * cli_envctl_recover() - replay a restore journal left by a killed
 * campaign (envctl.h), with a notice on stderr; every command that
 * measures calls it first (cmd_run_campaign.c).  Return: 0, or an exit code.
 */
int cli_envctl_recover(const char *cmd);

/* The helpers below are in cli_common.c. */
/** cli_usage_error() - print "idlelab: <msg>" and return IL_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** cli_error() - print "idlelab: <msg>" and return @code. */
int cli_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/**
 * cli_exit_for_status() - the exit code of one run that ended with the
 * run status named @status (run_status.h): ok 0, unsupported 3,
 * interrupted 4, anything else 1.
 */
int cli_exit_for_status(const char *status);
struct il_store;
/**
 * cli_warn_left_out() - one line on stderr for each damaged run that a
 * report or export of @store left out (il_store_run_damaged()), with
 * what is wrong.  The exit status stays 0: what was printed is right.
 */
void cli_warn_left_out(const char *cmd, struct il_store *store);
/** cli_warn_damaged() - that one line, for damaged run @uuid: @why. */
void cli_warn_damaged(const char *cmd, const char *uuid, const char *why);
/** cli_default_db() - $IDLELAB_DB or ./idlelab.db. */
const char *cli_default_db(void);
/**
 * cli_check_output() - list the @n input databases @inputs as paths no
 * output may name, then check @output (NULL: none yet) against them
 * (outfile.h), before anything is opened.  Return: 0, or the exit code
 * after the message: 2 for an output that names an input.
 */
int cli_check_output(const char *cmd, const char *output,
		     const char *const *inputs, int n);
/**
 * cli_fmt_duration() - @ns rounded to the second as MM:SS, or H:MM:SS
 * from an hour on: the ETAs and durations of run and bench.
 */
void cli_fmt_duration(uint64_t ns, char *buf, size_t len);

/** cli_cmdline() - the command line as given, saved before getopt. */
const char *cli_cmdline(void);
/** cli_save_cmdline() - save @argv for cli_cmdline(); main() only. */
void cli_save_cmdline(int argc, char **argv);
/** cli_bad_option() - the message for getopt's '?' (unknown or missing arg). */
int cli_bad_option(const char *cmd, int argc, char **argv);
/** cli_install_signals() - SIGINT/SIGTERM/SIGHUP ask the run to stop. */
void cli_install_signals(void);

#endif
