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

#endif
