/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report_notes.h - what the results table leaves out or qualifies, listed
 * under it (report.c): the runs that were not measured and why, the
 * counters that could not be counted, and the runs flagged as possibly
 * not measuring what they claim (thermal throttling rose during them, the
 * TSC was marked unstable), and the runs measured under a hypervisor.
 */
#ifndef IDLELAB_REPORT_NOTES_H
#define IDLELAB_REPORT_NOTES_H

#include "analysis.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>

struct report_notes {
	json_t *runs;		/* not measured: machine, benchmark, status, ... */
	json_t *counters;	/* not counted: machine, event, status, ... */
	json_t *flagged;	/* machine, run, benchmark, cpu, flag, detail */
	json_t *hypervisor;	/* machine, hypervisor, runs */
};

/* Read all four for @o's selection.  Return: 0 or -EIO (message set). */
int report_notes_read(sqlite3 *db, const struct il_report_opts *o,
		      struct report_notes *n);
/* The non-empty ones as Markdown tables, each after its title. */
void report_notes_md(const struct report_notes *n, FILE *out);
void report_notes_free(struct report_notes *n);

#endif
