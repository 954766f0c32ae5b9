// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_restore.c - `idlelab restore`: put back the settings a campaign
 * changed, from the restore journal it left when it was killed (kill -9,
 * a crash, a power cut during the restore itself).
 *
 * The journal protocol is in envctl.c; this command only reports.  A
 * journal held by a live campaign is left alone (exit 1), because that
 * campaign restores it itself when it ends.
 */
#include "cli.h"
#include "cli_opts.h"
#include "envctl.h"
#include "envctl_internal.h"
#include "err.h"


static const char restore_usage[] =
	"usage: idlelab restore\n\n"
	"Restore the cpuidle, cpufreq and PM QoS settings recorded in the\n"
	"restore journal ($IDLELAB_STATE_DIR/restore-journal.json, default\n"
	"/var/lib/idlelab) by a campaign that did not end normally, then\n"
	"remove the journal.  Without a journal there is nothing to do.\n\n";

/* Only the -h/--help every command has. */
static const struct cli_option restore_options[] = {
	CLI_END
};

int cmd_restore(int argc, char **argv)
{
	static const struct cli_command cmd = {
		"restore", restore_usage, restore_options
	};
	char path[4096];
	long pid;
	int argi, n, ret;

	ret = cli_parse_options(&cmd, argc, argv, &argi);
	if (ret != CLI_CONTINUE)
		return ret;
	if (argi != argc) {
		cli_usage(&cmd, stderr);
		return cli_usage_error("restore: takes no arguments");
	}
	il_envctl_journal_path(path, sizeof(path));
	/* Only a --causes run's trace journal left: name that one. */
	if (!il_envctl_journal_pending() && il_journal_pending(IL_TRACE_JOURNAL))
		il_journal_path(IL_TRACE_JOURNAL, path, sizeof(path));
	ret = il_envctl_recover(&n, &pid);
	if (ret < 0)
		return cli_error(IL_EXIT_FAIL, "restore: %s", il_errmsg());
	if (!ret) {
		printf("nothing to restore (no journal at %s)\n", path);
		return IL_EXIT_OK;
	}
	printf("restored %d setting%s from %s (left by idlelab pid %ld); journal removed\n",
	       n, n == 1 ? "" : "s", path, pid);
	return IL_EXIT_OK;
}
