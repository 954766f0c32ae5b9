/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * run_status.h - the status of a stored run, as an enum with one name
 * table.  The names are what runs.status holds in the database and what
 * the CLI prints; code compares the enum, never the strings.
 *
 *   ok           measured and stored
 *   failed       the benchmark or its setup returned an error
 *   unsupported  cannot run on this machine (the reason is stored)
 *   interrupted  stopped by a signal; what was measured so far is kept
 *   skipped      a campaign entry not run (e.g. its module is absent)
 *
 * ok, failed and unsupported are final: `idlelab run --resume` does not
 * run such an entry again; interrupted and skipped entries it does.
 */
#ifndef IDLELAB_RUN_STATUS_H
#define IDLELAB_RUN_STATUS_H

#include <stdbool.h>

enum il_run_status {
	IL_RUN_OK,
	IL_RUN_FAILED,
	IL_RUN_UNSUPPORTED,
	IL_RUN_INTERRUPTED,
	IL_RUN_SKIPPED,
	IL_RUN_NSTATUS
};

/** il_run_status_name() - the stored name of @s ("?" if out of range). */
const char *il_run_status_name(enum il_run_status s);

/**
 * il_run_status_parse() - the status named @name into @out.
 * Return: 0, or -EINVAL (with a message) for NULL or an unknown name.
 */
int il_run_status_parse(const char *name, enum il_run_status *out);

/** il_run_status_final() - whether --resume counts the entry as done. */
bool il_run_status_final(enum il_run_status s);

#endif
