// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_declarations.c - what a stored row's benchmark declares for the
 * reports (bench.h's struct il_bench_report), so the ipi, pairs and states
 * kinds select rows by declaration, never by a benchmark's name.
 *
 * Why from this build's registry and not from flags stored with each run:
 * the declaration says what a benchmark's metric means, which belongs to
 * the benchmark's code, not to one run of it.  Runs from other machines and
 * from older builds then read the same once merged, including every
 * database written before the declarations existed, with nothing to
 * migrate.  A run whose benchmark this build does not know (a newer build's
 * benchmark, an import) gets no declaration: it is left out of these three
 * kinds and still appears in the plain report.  Producers that are not
 * benchmarks record what a report needs as run attributes instead (the
 * cyclictest import stores wake_source=timer).
 */
#include "groups.h"

#include "bench.h"
#include "bench_registry.h"

const struct il_bench_report *il_bench_report_of(const char *bench)
{
	static const struct il_bench_report none;
	const struct il_bench_ops *ops = bench ? il_bench_find(bench) : NULL;

	return ops ? &ops->report : &none;
}
