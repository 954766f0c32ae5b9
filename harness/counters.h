/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * counters.h - event counting around a run: libpfm4 + perf_event_open, or
 * PAPI as an optional second backend.
 *
 * Counters are opened per measured CPU (system-wide on that CPU, pid = -1)
 * before the benchmark starts and read after it stops, so every event is a
 * delta over exactly the run.
 *
 * Default event set (events == NULL):
 *   software: context-switches, cpu-migrations, page-faults
 *   cycles, instructions              where a PMU exists
 *   msr/smi/                          where the msr event source exists
 *   power/energy-pkg/, energy-cores.. where the power event source exists
 * Each one that cannot be opened becomes a result with status UNSUPPORTED
 * (the kernel refused it: errno and reason) or UNAVAILABLE (the event
 * source does not exist here), never a value of 0.
 *
 * An explicitly requested event name that libpfm4 (or PAPI) does not know
 * is an error: -EINVAL with a message naming it, before anything is opened.
 * Besides libpfm4's names, the kernel's sysfs form "pmu/event/" (the event
 * part may be a glob) and "pmu/term=val,.../" are accepted; an event source
 * that does not exist here makes such an event UNAVAILABLE, not an error.
 *
 * Results are final after il_counters_stop(); until then an opened counter
 * reads UNAVAILABLE ("not measured").  A PAPI counter set must be started
 * and stopped by the thread that opened it.
 *
 * Errors follow err.h.
 */
#ifndef IDLELAB_COUNTERS_H
#define IDLELAB_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

enum il_counter_status {
	IL_CNT_OK,
	IL_CNT_UNSUPPORTED,
	IL_CNT_UNAVAILABLE,
};

struct il_counter_result {
	char event[96];
	int cpu;		/* counted on; -1: per-thread (PAPI fallback) */
	double value;		/* meaningful only when status == IL_CNT_OK */
	char unit[24];		/* "count", "Joules", ... */
	enum il_counter_status status;
	char reason[160];
};

struct il_counters;

/**
 * il_counters_open() - prepare counters.
 * @backend: "pfm" (default when NULL) or "papi".
 * @events: comma-separated event names, or NULL for the default set.
 * @cpus, @ncpus: the CPUs to count on.
 */
int il_counters_open(struct il_counters **out, const char *backend,
		     const char *events, const int *cpus, int ncpus);
int il_counters_start(struct il_counters *c);
int il_counters_stop(struct il_counters *c);
int il_counters_nresults(const struct il_counters *c);
const struct il_counter_result *il_counters_result(const struct il_counters *c,
						   int i);
void il_counters_close(struct il_counters *c);

/*
 * il_counter_status_name() - the name counters.status stores for @s, or
 * NULL for a value outside the enum.  Inline here, beside the enum, so that
 * the store (which refuses such a value) links without the counter
 * backends and both read the one table.
 */
static inline const char *il_counter_status_name(enum il_counter_status s)
{
	switch (s) {
	case IL_CNT_OK:
		return "ok";
	case IL_CNT_UNSUPPORTED:
		return "unsupported";
	case IL_CNT_UNAVAILABLE:
		return "unavailable";
	}
	return NULL;
}

#endif
