// SPDX-License-Identifier: GPL-2.0-only
/*
 * run_status.c - the one name table of run statuses (run_status.h).
 */
#include "run_status.h"
#include "err.h"

#include <string.h>

static const char *const il_run_status_names[IL_RUN_NSTATUS] = {
	[IL_RUN_OK] = "ok",
	[IL_RUN_FAILED] = "failed",
	[IL_RUN_UNSUPPORTED] = "unsupported",
	[IL_RUN_INTERRUPTED] = "interrupted",
	[IL_RUN_SKIPPED] = "skipped",
};

const char *il_run_status_name(enum il_run_status s)
{
	return (unsigned int)s < IL_RUN_NSTATUS ? il_run_status_names[s] : "?";
}

int il_run_status_parse(const char *name, enum il_run_status *out)
{
	int i;

	for (i = 0; name && i < IL_RUN_NSTATUS; i++)
		if (!strcmp(name, il_run_status_names[i])) {
			*out = (enum il_run_status)i;
			return 0;
		}
	return il_errorf(-EINVAL, "unknown run status '%s'", name ? name : "(null)");
}

bool il_run_status_final(enum il_run_status s)
{
	return s == IL_RUN_OK || s == IL_RUN_FAILED || s == IL_RUN_UNSUPPORTED;
}
