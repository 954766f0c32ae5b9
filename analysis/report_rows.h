/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report_rows.h - the results table's rows, as report.c prints them and
 * report_rows.c builds them from v_report_hist: runs that measured the
 * same thing merged into one row (the rules are at the top of report.c).
 */
#ifndef IDLELAB_ANALYSIS_REPORT_ROWS_H
#define IDLELAB_ANALYSIS_REPORT_ROWS_H

#include "drops.h"
#include "stats.h"
#include "store.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

struct row {
	char *host;
	char *bench;
	char *params;
	char *config;
	char *metric;
	char *unit;
	int cpu;
	int cpu2;
	int64_t grp;
	int runs;
	struct il_summary sum;
	struct il_hist *hist;
	/* The range of the runs' own medians, over the runs with samples. */
	int nmed;
	uint64_t med_lo, med_hi;
	/* One summary whose every sample is stored raw: its stored p50,
	 * p99 and p999 are exact order statistics (store_series.c), which the
	 * table prints instead of the histogram's clamped midpoints. */
	bool exact;
	uint64_t p50, p99, p999;
};

/* Columns after the drop reasons: p50, p99, p999, every sample raw. */
#define COL_STORED_P	(17 + IL_DROP_NREASONS)

struct rows {
	int n;
	int cap;
	struct row *v;
};

/* The row of il_report()'s query at @st into @rows: merged into the last
 * row when it measured the same thing, else a new one.  A damaged run is
 * left out.  Return: 0 or a negative errno. */
int report_rows_add(struct il_store *s, struct rows *rows, sqlite3_stmt *st);
/* Each row's Config: the parameters that differ between rows of its
 * benchmark. */
void report_rows_configs(struct rows *rows);
void report_rows_free(struct rows *rows);

#endif /* IDLELAB_ANALYSIS_REPORT_ROWS_H */
