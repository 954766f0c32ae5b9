/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_causes.h - storing a --causes run's capture and attribution
 * (schemas/005_causes.sql) with the run itself.  Errors follow err.h.
 */
#ifndef IDLELAB_STORE_CAUSES_H
#define IDLELAB_STORE_CAUSES_H

#include "causes.h"
#include "store.h"

/**
 * il_store_save_run_causes() - il_store_save_run(@r), and @c's rows
 * (trace_captures, trace_cpus, cause_samples, causes, cause_totals) in the
 * same transaction, so a run never exists without the causes it asked for.
 * @c: NULL stores the run alone.
 * Return: 0 or -errno (nothing of the run is stored then).
 */
int il_store_save_run_causes(struct il_store *s, const struct il_run_rec *r,
			     const struct il_causes_run *c);

/**
 * il_store_causes_merge() - inside a merge's transaction, with the input
 * attached as il_src and its new runs in temp.il_new_runs (store_merge.c):
 * copy those runs' causes rows.  An input older than schema 5 has none.
 * Return: 0 or -EIO (message set, naming @in_path).
 */
int il_store_causes_merge(void *db, const char *in_path);

/**
 * il_store_causes_check() - `db check`'s consistency of the causes tables
 * (store_check.c): rows of a run that does not exist, causes of a sample
 * that does not exist, a share outside [0, 1], a cause longer than its
 * sample.  Each problem found is one message through @report.
 * Return: the number of problems, or -EIO.
 */
int il_store_causes_check(void *db, void (*report)(void *ctx, const char *msg),
			  void *ctx);

#endif
