// SPDX-License-Identifier: GPL-2.0-only
/*
 * common_housekeeping.c - the CPUs a kernel-module benchmark leaves alone
 * unless the user names them (issue 21): CPU 0, where the platform's NMIs
 * land and much of the machine's housekeeping runs, and the CPU the
 * harness's main thread is on, which must stay free to reap the run.  The
 * WBINVD blast's victims, the gap detector's CPUs and the IPI storm's
 * targets hold interrupts off (or take NMIs) for long stretches, so an
 * implicit set (all, one-per-core, one-per-l3, pairs:RELATION) loses
 * these CPUs; a CPU list or pairs:A-B the user wrote keeps every CPU it
 * names.
 */
#include "bench.h"
#include "common.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

bool il_housekeeping_named(const struct il_run *run)
{
	const char *s = run->place.spec;

	if (!strncmp(s, "pairs:", 6))
		s += 6;
	return *s >= '0' && *s <= '9';
}

int il_housekeeping_drop(struct il_run *run, struct il_bench_placed *pl,
			 int from)
{
	int main_cpu = sched_getcpu(), i, n = from, dropped = 0;

	if (il_housekeeping_named(run)) {
		il_run_attr(run, -1, "housekeeping_cpus", "named in --cpus");
		return 0;
	}
	if (main_cpu < 0 || main_cpu == 0)
		il_run_attr(run, -1, "housekeeping_cpus", "0");
	else
		il_run_attr(run, -1, "housekeeping_cpus", "0,%d", main_cpu);
	for (i = from; i < pl->n; i++) {
		if (pl->cpus[i] == 0 || pl->cpus[i] == main_cpu) {
			dropped++;
			continue;
		}
		pl->cpus[n++] = pl->cpus[i];
	}
	pl->n = n;
	return dropped;
}
