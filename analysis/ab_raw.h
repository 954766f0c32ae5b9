/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ab_raw.h - internal to analysis/: the raw samples behind the A/B
 * table's exact values.  A run's value that merges several series (its
 * CPUs, for a row over every CPU) is exact only from the merge of their
 * samples, and a Harrell-Davis decile only from the samples themselves;
 * the stored p50 and p99 of one series are neither.  The A/B kinds keep
 * the summary ids of a run's series while its rows arrive and read the
 * samples only for the runs a row uses (ab_raw.c).
 */
#ifndef IDLELAB_ANALYSIS_AB_RAW_H
#define IDLELAB_ANALYSIS_AB_RAW_H

#include "ab.h"

#include <stdint.h>

struct il_store;

/* The summaries whose raw samples make up one run's value. */
struct ab_raw_ids {
	int n, cap;
	int64_t *v;
};

/** ab_raw_ids_add() - one more summary id.  Return: 0 or -ENOMEM. */
int ab_raw_ids_add(struct ab_raw_ids *ids, int64_t id);
void ab_raw_ids_free(struct ab_raw_ids *ids);

/**
 * ab_raw_exact() - read the raw samples of every summary in @ids, merged,
 * into @e (il_ab_exact_set()) and, when @hd is not NULL, the run's
 * Harrell-Davis deciles into @hd (IL_AB_NDECILES).  Only for a run whose
 * series all kept every sample raw (@e->all_raw).  The samples are held
 * only during the call: one run's, 8 bytes each.
 * Return: 0 or -errno (err.h); -EIO when a BLOB is not what its row says.
 */
int ab_raw_exact(struct il_store *s, const struct ab_raw_ids *ids,
		 struct il_ab_exact *e, double *hd);

#endif
