/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import.h - data from elsewhere into the dataset (`idlelab import`):
 * rt-tests' cyclictest JSON, and the seeds' published figures
 * (data/reference/seeds.json).
 *
 * Errors follow err.h.
 */
#ifndef IDLELAB_IMPORT_H
#define IDLELAB_IMPORT_H

#include <stdbool.h>

struct il_store;

/**
 * il_import_cyclictest() - one run (bench "cyclictest", metric
 * wake_latency, one series per thread keyed by its CPU) from the file
 * cyclictest --json wrote.
 * @machine_uuid: the machine to file it under; NULL derives one from the
 *        JSON's uname (nodename + machine), marked source "cyclictest import".
 * @run_uuid: set to the run's UUID, which is derived from the file's bytes,
 *        so importing one file twice stores it once.
 * @already: set when the run was already in the dataset.
 *
 * cyclictest counts whole units, truncated: microseconds, or nanoseconds
 * with -N, which its JSON says as resolution_in_ns (0 or 1).  Its
 * histogram has one bucket per unit, bucket k holding [k, k + 1) units,
 * so each bucket's count is stored at its midpoint, (k + 1/2) units in ns;
 * one sample of each end bucket sits at cyclictest's exact min and max
 * instead, and the summary's min, max and mean are cyclictest's own.
 * Samples beyond the histogram (its overflow) have no value: they are
 * counted as dropped (reason range), and then the summary is that of the
 * histogram's samples while cyclictest's figures over every cycle are run
 * attributes (cyclictest.min_ns, .max_ns, .avg_ns, .unit_ns, .cycles,
 * .overflows).
 *
 * Return: 0; -EINVAL (with the reason) for a file that is not cyclictest
 * JSON or has no histogram (run cyclictest with -h/--histogram).
 */
int il_import_cyclictest(struct il_store *s, const char *path,
			 const char *machine_uuid, char run_uuid[37],
			 bool *already);

/**
 * il_import_reference() - load reference machines and their runs.
 * @nruns: set to the number of runs stored now (0 when all were there).
 * Return: 0, or -EINVAL for a malformed file (nothing stored from it).
 */
int il_import_reference(struct il_store *s, const char *path, int *nruns);

#endif
