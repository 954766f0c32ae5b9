/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * merge.h - merging idlelab datasets (`idlelab merge`).
 *
 * Machines and runs are keyed by UUID, so a merge is a union: a run
 * already in the output (same UUID) is skipped with everything below it,
 * a machine already there keeps its row (first_seen/last_seen widen), and
 * merging the same input twice changes nothing.  Inputs are attached one
 * at a time, read-only (an SQLite URI with mode=ro, or immutable=1 where
 * il_store_open() needed it: il_store_uri()), and detached before
 * the next, so any number of inputs works despite SQLite's limit of 10
 * attached databases.  Each input is copied in one transaction.
 *
 * Errors follow err.h.
 */
#ifndef IDLELAB_MERGE_H
#define IDLELAB_MERGE_H

struct il_store;

struct il_merge_stats {
	int machines_new;
	int runs_new;
	int runs_present;
	int runs_damaged;	/* new to the output, left out: damaged */
};

/* A run of the input left out because its histograms are damaged. */
typedef void (*il_merge_left_out_fn)(const char *uuid, const char *why,
				     void *arg);

/**
 * il_merge_check_input() - refuse what cannot be merged, writing nothing:
 * a missing file (-ENOENT), a foreign file (-EPROTO), a newer schema
 * (-EPROTONOSUPPORT), or @out_path itself (-EINVAL).
 */
int il_merge_check_input(const char *in_path, const char *out_path);

/**
 * il_merge_one() - copy the runs of @in_path missing from @out into it,
 * in one transaction.  A run whose campaign key (campaign, plan index,
 * parameter hash) is held by another run already in @out cannot be
 * stored (the schema keeps one run per key): -EEXIST, nothing copied.
 * A run new to @out whose histograms fail db check's checks
 * (il_store_run_damaged()) is not copied: it is counted in
 * @st->runs_damaged and, once the merge is committed, handed to
 * @left_out (may be NULL) with what is wrong.
 */
int il_merge_one(struct il_store *out, const char *in_path,
		 struct il_merge_stats *st, il_merge_left_out_fn left_out,
		 void *arg);

#endif
