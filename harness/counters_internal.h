/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * counters_internal.h - what the counter files share.
 *
 * counters.c          the public API and the backend table
 * counters_table.c    the result table's rows and the lock the backends share
 * counters_events.c   event lists and their resolution (sysfs PMUs, libpfm4)
 * counters_perf.c     the perf_event backend (libpfm4 encodings)
 * counters_papi.c     the PAPI backend, built only where PAPI is installed
 * counters_nopapi.c   its stand-in otherwise, which says why it cannot count
 *
 * A backend is one struct cnt_backend; il_counters_open() looks it up by
 * name, so no other file knows which backends exist or how they count.
 */
#ifndef IDLELAB_COUNTERS_INTERNAL_H
#define IDLELAB_COUNTERS_INTERNAL_H

#include "counters.h"
#include "sysfs.h"

#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PMU_DIR "/sys/bus/event_source/devices"

/* One row of the result table and what is needed to fill it. */
struct cnt {
	struct il_counter_result res;
	char note[160];		/* kept in the reason once the value is OK */
	bool live;		/* opened: start/stop apply to it */
	int fd;			/* pfm: the perf_event fd, else -1 */
	double scale;		/* sysfs .scale, 1 otherwise */
	uint64_t base[3];	/* value, time enabled, time running at start */
	int pset, pidx;		/* PAPI: event set and index in it */
};

struct il_counters {
	const struct cnt_backend *be;
	bool started;
	int n, cap;
	struct cnt *c;
	void *priv;		/* the backend's own state, freed by its close */
};

/* An event resolved to an encoding, before it is opened on any CPU. */
struct rev {
	char name[sizeof(((struct il_counter_result *)0)->event)];
	struct perf_event_attr attr;
	double scale;
	char unit[24];
	char pmu[64];		/* sysfs source, "" for libpfm4 events */
	bool pkg_scope;
	enum il_counter_status st;	/* IL_CNT_OK: can be opened */
	char why[160];
};


/*
 * One counter backend.  open() resolves @events (NULL: its defaults) and
 * adds one result row per event and CPU, with the rows it could not open
 * already marked; start() and stop() bracket the run and fill the rows'
 * values; close() releases whatever open() took, also after a failed open.
 * Each returns or records errors as err.h says.
 */
struct cnt_backend {
	const char *name;
	/* Why this build cannot count with it, or NULL when it can. */
	const char *unavailable;
	int (*open)(struct il_counters *c, const char *events,
		    const int *cpus, int ncpus);
	void (*start)(struct il_counters *c);
	void (*stop)(struct il_counters *c);
	void (*close)(struct il_counters *c);
};

extern const struct cnt_backend cnt_perf_backend;
extern const struct cnt_backend cnt_papi_backend;

/* Every libpfm4 and PAPI call runs under it (see counters.c's notes);
 * counters_table.c. */
extern pthread_mutex_t cnt_lock;

/* vsnprintf() truncates silently; a reason cut short is still a reason. */
static inline __attribute__((format(printf, 3, 4)))
void setf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/*
 * il_fs_read(), with an empty file an error as well: no file read here (an
 * event's encoding, a format term, a cpumask) says anything when empty.
 */
static inline int fs_line(const char *path, char *buf, size_t len)
{
	int ret = il_fs_read(path, buf, len);

	if (!ret && !buf[0])
		ret = -ENODATA;
	return ret;
}

/* A new result row, not yet measured (NaN, unit "count", no fd);
 * counters_table.c. */
struct cnt *cnt_add_row(struct il_counters *c, const char *event, int cpu);
/* Mark @n opened: start/stop apply, and it reads "not measured" till then. */
void cnt_set_pending(struct cnt *n);
/* @list split at commas outside "pmu/.../" names; 0 or -errno. */
int cnt_split_events(const char *list, char ***out, int *nout);
void cnt_free_tokens(char **v, int n);
/*
 * The event names a backend opens: @events split (cnt_split_events()), or
 * a copy of the backend's @ndefs defaults @defs when @events is NULL, so
 * the backend frees either the same way.  0 or -errno.
 */
int cnt_event_tokens(const char *events, const char *const *defs, int ndefs,
		     char ***out, int *nout);
/* A "pmu/event/" name into one or more resolved events appended to @v. */
int cnt_resolve_sysfs(const char *name, struct rev **v, int *n);
/* A libpfm4 name into @v; @dfl: a default, so unknown is a row, not an error.
 * Called with cnt_lock held and pfm_initialize() done. */
int cnt_resolve_pfm(const char *name, bool dfl, struct rev **v, int *n);

#endif
