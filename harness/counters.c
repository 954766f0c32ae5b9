// SPDX-License-Identifier: GPL-2.0-only
/*
 * counters.c - event counts around one benchmark run: libpfm4 encodes event
 * names into perf_event_attr and perf_event_open() counts them; PAPI is an
 * optional second backend for its portable presets.  The runner opens the
 * counters before run(), brackets run() with start/stop, and stores every
 *
 * The work is split by concern (see counters_internal.h): this file is the
 * API, and dispatches to a backend's ops; counters_table.c holds the
 * result table and the lock the backends share.
 *
 * result, with its status and reason, next to the run's samples.
 *
 * Design notes
 *
 * Why system-wide per CPU.  Benchmarks measure what happens on a CPU (idle
 * entries, IPIs, SMIs, interrupts), much of it outside our threads: the idle
 * task, interrupt handlers, kthreads.  So each event is opened with pid = -1
 * on every measured CPU, which counts everything that runs there.  We run as
 * root; anything the kernel refuses is stored as UNSUPPORTED with its errno.
 *
 * Why deltas.  Counters are opened disabled at il_counters_open(), reset and
 * read at start, enabled together, disabled together at stop and read again.
 * The value is the difference, so the opening cost (seconds, for many CPUs)
 * never lands inside the run, and start/stop can bracket repeated runs.  The
 * enable and disable loops are tight and separate from the reads so that the
 * skew between the first and the last counter stays at a few microseconds.
 *
 * Multiplexing.  Every counter reads TOTAL_TIME_ENABLED and RUNNING.  When
 * the kernel time-shared a PMU counter, running < enabled and the value is
 * scaled by enabled/running, which says so in the result's reason.  A counter
 * that never ran is UNSUPPORTED, never an extrapolated 0.
 *
 * Event names.  A name is either libpfm4's (cycles, perf::PAGE-FAULTS,
 * amd64_fam19h_zen4::RETIRED_INSTRUCTIONS, ...) or the kernel's own sysfs
 * form "pmu/event/" or "pmu/term=val,.../": the msr and power event sources
 * are not known to libpfm4 4.13, so their encoding is read from
 * /sys/bus/event_source/devices/<pmu>/{type,events,format}, which is the
 * kernel's published ABI for exactly this.  The event part of a sysfs name
 * may be a glob, as in the default "power/energy-<glob>/" set, which takes
 * every energy counter the kernel lists.  An event source absent here makes
 * its events
 * UNAVAILABLE rather than an error, because campaign files are shared by a
 * whole fleet; a name libpfm4 does not know is an error.
 *
 * Package scope.  A PMU with a cpumask file (power, uncore) counts for the
 * whole package and accepts events only on the CPU its cpumask names.  Such an
 * event is opened once per package touched by the measured CPUs, on that
 * CPU, and stored under the first measured CPU of the package.
 *
 * Results before stop.  A counter that opened but has not been read yet is
 * UNAVAILABLE ("not measured"), so a run that fails between open and stop
 * stores no fake value.  Non-OK values are NaN.
 *
 * Locking.  libpfm4 keeps global state, and PAPI uses the same shared
 * libpfm4 and calls pfm_terminate() from PAPI_shutdown().  All libpfm4 and
 * PAPI library calls therefore run under cnt_lock, every open re-runs the
 * idempotent pfm_initialize(), and we never call pfm_terminate() ourselves.
 * A PAPI counter set is started and stopped by the thread that opened it.
 */
#include "counters.h"
#include "err.h"
#include "counters_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS 8192		/* upper bound for CPU numbers we accept */

/* Looked up by name; "pfm" is the default. */
static const struct cnt_backend *const backends[] = {
	&cnt_perf_backend,
	&cnt_papi_backend,
};

/* ---- public API ------------------------------------------------------ */

int il_counters_open(struct il_counters **out, const char *backend,
		     const char *events, const int *cpus, int ncpus)
{
	const struct cnt_backend *be = NULL;
	struct il_counters *c;
	size_t k;
	int i, j, ret;

	if (!out)
		return il_errorf(-EINVAL, "il_counters_open: no result pointer");
	*out = NULL;
	for (k = 0; k < sizeof(backends) / sizeof(backends[0]); k++)
		if (!strcmp(backend ? backend : "pfm", backends[k]->name))
			be = backends[k];
	if (!be)
		return il_errorf(-EINVAL,
				 "unknown counter backend '%s' (expected pfm or papi)",
				 backend);
	if (be->unavailable)
		return il_errorf(-ENOTSUP, "counter backend '%s': %s",
				 be->name, be->unavailable);
	if (!cpus || ncpus <= 0)
		return il_errorf(-EINVAL, "no CPUs to count on");
	for (i = 0; i < ncpus; i++) {
		if (cpus[i] < 0 || cpus[i] >= MAX_CPUS)
			return il_errorf(-EINVAL, "CPU %d out of range",
					 cpus[i]);
		for (j = 0; j < i; j++)
			if (cpus[j] == cpus[i])
				return il_errorf(-EINVAL,
						 "CPU %d listed twice",
						 cpus[i]);
	}
	if (events && !*events)
		return il_errorf(-EINVAL, "empty event list");

	c = calloc(1, sizeof(*c));
	if (!c)
		return il_errorf(-ENOMEM, "out of memory");
	c->be = be;
	ret = be->open(c, events, cpus, ncpus);
	if (ret) {
		il_counters_close(c);
		return ret;
	}
	*out = c;
	return 0;
}

int il_counters_start(struct il_counters *c)
{
	if (!c)
		return il_errorf(-EINVAL, "il_counters_start: no counters");
	c->be->start(c);
	c->started = true;
	return 0;
}

int il_counters_stop(struct il_counters *c)
{
	if (!c)
		return il_errorf(-EINVAL, "il_counters_stop: no counters");
	if (!c->started)
		return il_errorf(-EINVAL,
				 "il_counters_stop: counters were not started");
	c->be->stop(c);
	c->started = false;
	return 0;
}

int il_counters_nresults(const struct il_counters *c)
{
	return c ? c->n : 0;
}

const struct il_counter_result *il_counters_result(const struct il_counters *c,
						   int i)
{
	if (!c || i < 0 || i >= c->n)
		return NULL;
	return &c->c[i].res;
}

void il_counters_close(struct il_counters *c)
{
	if (!c)
		return;
	c->be->close(c);
	free(c->c);
	free(c);
}
