/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_registry.h - the list of benchmarks (bench/registry.c) and the
 * lookups by name.
 *
 * Apart from bench.h because a benchmark never looks another one up: the
 * callers are what picks a benchmark by name (the CLI, a campaign's
 * schema and plan, the reports' per-benchmark declarations) and the tests.
 */
#ifndef IDLELAB_BENCH_REGISTRY_H
#define IDLELAB_BENCH_REGISTRY_H

#include "bench.h"

/* Every benchmark's ops table, in `idlelab list` order, NULL-terminated. */
extern const struct il_bench_ops *const il_benches[];
/** il_bench_find() - the benchmark called @name, or NULL. */
const struct il_bench_ops *il_bench_find(const char *name);
/** il_bench_suggest() - the nearest benchmark name to @name, or NULL. */
const char *il_bench_suggest(const char *name);

#endif
