/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ab_table.h - internal to analysis/: the rows of the A/B table as
 * compare.c computes them, and their rendering in words and numbers
 * (ab_table.c), so that the collection from the dataset and the wording
 * each have one home.
 */
#ifndef IDLELAB_ANALYSIS_AB_TABLE_H
#define IDLELAB_ANALYSIS_AB_TABLE_H

#include "ab.h"
#include "analysis.h"

#define AB_MAX_SIDES 8

/* One row of the table before it is formatted: p-values await Holm. */
struct ab_row {
	const char *bench, *metric, *unit;
	int64_t grp;
	char cpu[32];
	enum il_ab_stat st;
	int runs[AB_MAX_SIDES];
	uint64_t samples[AB_MAX_SIDES];
	double value[AB_MAX_SIDES];	/* median of the runs' values */
	bool ref;			/* a side holds published figures */
	struct il_ab_result res[AB_MAX_SIDES];
	double holm[AB_MAX_SIDES];
	/* p99 rows: the fewest samples in a run of the row, where that is
	 * too few for a run's p99 to be more than its largest samples
	 * (il_tail_estimable()); 0 where every run has enough.  Such a row
	 * is not tested and its p stays out of Holm's family. */
	uint64_t thin;
	/* Samples not taken, per side (every reason), and the two-sided
	 * Mann-Whitney p of the runs' drop rates, side k against S1: an
	 * arm that drops its slow samples looks better in the tail. */
	uint64_t dropped[AB_MAX_SIDES];
	double drop_p[AB_MAX_SIDES];
	/* HD rows: the runs per side whose decile is of their histogram's
	 * bucket midpoints (not every sample kept raw), within half a
	 * bucket of the samples' own. */
	int hd_mid[AB_MAX_SIDES];
	/* The runs' values per side (runs[s] each, owned), kept for TOST
	 * once the family across rows is known. */
	double *v[AB_MAX_SIDES];
};

/* Below this p the row's drop rates are flagged as differing. */
#define AB_DROP_FLAG_P	0.05

/** ab_table_new() - the empty table with its columns, for @ns sides. */
struct il_table *ab_table_new(int ns, const struct il_analysis_opts *o);
/** ab_table_row() - append row @w, formatted, to @t. */
int ab_table_row(struct il_table *t, const struct ab_row *w, int ns,
		 const struct il_analysis_opts *o);
/**
 * ab_table_notes() - what the columns mean, in words, under the table.
 * @pooled: some rows merged each run's CPUs; @ntests: the Holm family;
 * @ntost: the TOST family (Bonferroni across rows).
 */
void ab_table_notes(struct il_table *t, int ns, const struct il_analysis_opts *o,
		    bool pooled, int ntests, int ntost);

#endif
