/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * run_context.h - the harness's side of a run context (struct il_run,
 * bench.h): making one for a benchmark, reading back what the benchmark
 * recorded in it, and releasing it; and the stop flag's setter, for the
 * signal handlers.
 *
 * bench.h holds what a benchmark calls (il_run_series(), il_run_attr(),
 * il_stop_requested()); this header holds what only the harness and the
 * tests call (run_execute.c, the CLI, tests/unit/), so a benchmark never
 * sees the lifecycle it must not drive.  Implemented in run_context.c.
 */
#ifndef IDLELAB_RUN_CONTEXT_H
#define IDLELAB_RUN_CONTEXT_H

#include "bench.h"

struct il_run_attr;

/**
 * il_run_init() - prepare a run context for @ops (params zeroed).
 * Return: 0, or -ENOMEM; il_run_release() is safe after either.
 */
int il_run_init(struct il_run *r, const struct il_bench_ops *ops);
/*
 * What the benchmark recorded through il_run_series() and il_run_attr(),
 * in the order it recorded it; read once the benchmark's threads are done
 * (they take no lock).
 */
/** il_run_nseries() - the number of series the run holds. */
int il_run_nseries(const struct il_run *r);
/** il_run_series_at() - series @i, 0 <= @i < il_run_nseries(). */
struct il_series *il_run_series_at(const struct il_run *r, int i);
/** il_run_series_all() - all il_run_nseries() series, for il_run_rec. */
struct il_series *const *il_run_series_all(const struct il_run *r);
/** il_run_nattrs() - the number of attributes the run holds. */
int il_run_nattrs(const struct il_run *r);
/** il_run_attr_get() - attribute @i as a store.h record. */
void il_run_attr_get(const struct il_run *r, int i, struct il_run_attr *out);
/** il_run_attr_find() - the value of attribute @key on @cpu, or NULL. */
const char *il_run_attr_find(const struct il_run *r, int cpu, const char *key);
/** il_run_release() - free what the run holds (series, attributes, ...). */
void il_run_release(struct il_run *r);

/** il_request_stop() - make il_stop_requested() true (async-signal-safe). */
void il_request_stop(void);

#endif
