// SPDX-License-Identifier: GPL-2.0-only
/*
 * counters_perf.c - the perf_event backend ("pfm"): every resolved event is
 * opened system-wide with perf_event_open() on each measured CPU (once per
 * package for a package-scope PMU), and counted as deltas of value, time
 * enabled and time running between start and stop.  See counters.c's
 * design notes for why.
 */
#include "counters.h"
#include "err.h"
#include "counters_internal.h"
#include "topo.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const char *const pfm_defaults[] = {
	"context-switches", "cpu-migrations", "page-faults",
	"cycles", "instructions",
	"msr/smi/", "power/energy-*/",
};

static int cpu_package(int cpu)
{
	char p[512];
	long v;

	snprintf(p, sizeof(p),
		 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
		 cpu);
	return il_fs_read_long(p, &v) ? -1 : (int)v;
}

/*
 * The event source registered under @type, or false.  The core PMU ("cpu",
 * or cpu_core/cpu_atom on hybrids) serves PERF_TYPE_HARDWARE and HW_CACHE
 * as well as its own PERF_TYPE_RAW, so those map to RAW.
 */
static bool source_of_type(uint32_t type, char *name, size_t len)
{
	char p[4096];
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE)
		type = PERF_TYPE_RAW;
	d = opendir(il_fs_path(PMU_DIR, p, sizeof(p)));
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		uint64_t t;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), PMU_DIR "/%s/type", de->d_name);
		if (!il_fs_read_u64(p, &t) && t == type) {
			setf(name, len, "%s", de->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

static const char *errno_why(int err)
{
	switch (err) {
	case ENOENT:
		return "the event source does not implement this event";
	case EOPNOTSUPP:
		return "the PMU cannot count this event in this mode";
	case EINVAL:
		return "the kernel rejected the encoding for this PMU";
	case ENODEV:
		return "the CPU is offline or not covered by this PMU";
	case EBUSY:
		return "the PMU is held exclusively by another user";
	case EMFILE:
	case ENFILE:
		return "out of file descriptors";
	case ENOSPC:
		return "no free counter for this event";
	case E2BIG:
		return "this kernel does not take our perf_event_attr size";
	default:
		return "perf_event_open refused the event";
	}
}

/* Fill @c's status and reason for a perf_event_open() that failed. */
static void open_failed(struct cnt *c, const struct rev *r, int cpu, int err)
{
	char src[64];
	long par;

	if (!source_of_type(r->attr.type, src, sizeof(src))) {
		c->res.status = IL_CNT_UNAVAILABLE;
		if (r->attr.type <= PERF_TYPE_RAW &&
		    r->attr.type != PERF_TYPE_SOFTWARE &&
		    r->attr.type != PERF_TYPE_TRACEPOINT)
			setf(c->res.reason, sizeof(c->res.reason),
			     "no PMU: the 'cpu' event source is absent (perf_event_open: errno %d, %s)",
			     err, strerror(err));
		else
			setf(c->res.reason, sizeof(c->res.reason),
			     "no PMU: no event source of type %u (perf_event_open: errno %d, %s)",
			     r->attr.type, err, strerror(err));
		return;
	}
	c->res.status = IL_CNT_UNSUPPORTED;
	if (err == EACCES || err == EPERM) {
		if (il_fs_read_long("/proc/sys/kernel/perf_event_paranoid", &par))
			par = -99;
		setf(c->res.reason, sizeof(c->res.reason),
		     "errno %d (%s): not permitted on CPU %d (need root or perf_event_paranoid <= 0, it is %ld)",
		     err, strerror(err), cpu, par);
		return;
	}
	setf(c->res.reason, sizeof(c->res.reason), "errno %d (%s): %s on '%s'",
	     err, strerror(err), errno_why(err), src);
}

/* ---- the pfm backend ------------------------------------------------- */

/* The CPU that a package-scope PMU accepts for measured CPU @cpu. */
static int pkg_reader(const char *pmu, int cpu, int *pkg)
{
	char p[512], buf[512];
	int mask[256], n, i;

	*pkg = cpu_package(cpu);
	snprintf(p, sizeof(p), PMU_DIR "/%s/cpumask", pmu);
	if (fs_line(p, buf, sizeof(buf)))
		return cpu;
	n = il_cpulist_parse(buf, mask, 256);
	if (n <= 0)
		return cpu;
	if (n > 256)		/* the count is of the whole list */
		n = 256;
	for (i = 0; i < n; i++)
		if (mask[i] == cpu)
			return cpu;
	for (i = 0; *pkg >= 0 && i < n; i++)
		if (cpu_package(mask[i]) == *pkg)
			return mask[i];
	return mask[0];
}

static int open_one(struct il_counters *c, const struct rev *r, int row_cpu,
		    int cpu, const char *note)
{
	struct perf_event_attr attr = r->attr;
	struct cnt *n = cnt_add_row(c, r->name, row_cpu);

	if (!n)
		return il_errorf(-ENOMEM, "out of memory");
	setf(n->res.unit, sizeof(n->res.unit), "%s", r->unit);
	n->scale = r->scale;
	if (note)
		setf(n->note, sizeof(n->note), "%s", note);
	if (r->st != IL_CNT_OK) {
		n->res.status = r->st;
		setf(n->res.reason, sizeof(n->res.reason), "%s", r->why);
		return 0;
	}
	attr.size = sizeof(attr);
	attr.disabled = 1;
	attr.inherit = 0;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	n->fd = perf_event_open(&attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (n->fd < 0) {
		open_failed(n, r, cpu, errno);
		n->fd = -1;
		return 0;
	}
	cnt_set_pending(n);
	return 0;
}

static int pfm_open(struct il_counters *c, const char *events,
		    const int *cpus, int ncpus)
{
	char **tok = NULL;
	struct rev *rv = NULL;
	int ntok = 0, nrv = 0, i, j, ret = 0;
	int *rd = NULL, *pkg = NULL;	/* package-scope reader, package */
	bool dfl = !events;

	ret = cnt_event_tokens(events, pfm_defaults,
			       (int)(sizeof(pfm_defaults) /
				     sizeof(pfm_defaults[0])), &tok, &ntok);
	if (ret)
		return ret;

	/* Resolve every name before anything is opened. */
	pthread_mutex_lock(&cnt_lock);
	ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		pthread_mutex_unlock(&cnt_lock);
		cnt_free_tokens(tok, ntok);
		return il_errorf(-ENOTSUP, "libpfm4 initialisation failed: %s",
				 pfm_strerror(ret));
	}
	ret = 0;
	for (i = 0; !ret && i < ntok; i++) {
		if (strchr(tok[i], '/'))
			ret = cnt_resolve_sysfs(tok[i], &rv, &nrv);
		else
			ret = cnt_resolve_pfm(tok[i], dfl, &rv, &nrv);
	}
	pthread_mutex_unlock(&cnt_lock);
	cnt_free_tokens(tok, ntok);

	for (i = 0; !ret && i < nrv; i++) {
		const struct rev *r = &rv[i];

		if (!r->pkg_scope || r->st != IL_CNT_OK) {
			for (j = 0; !ret && j < ncpus; j++)
				ret = open_one(c, r, cpus[j], cpus[j], NULL);
			continue;
		}
		if (!rd) {
			rd = calloc((size_t)ncpus, sizeof(*rd));
			pkg = calloc((size_t)ncpus, sizeof(*pkg));
			if (!rd || !pkg) {
				ret = il_errorf(-ENOMEM, "out of memory");
				break;
			}
		}
		for (j = 0; j < ncpus; j++)
			rd[j] = pkg_reader(r->pmu, cpus[j], &pkg[j]);
		for (j = 0; !ret && j < ncpus; j++) {
			char note[96];
			int k;

			/* Once per package: the first measured CPU holds it. */
			for (k = 0; k < j && rd[k] != rd[j]; k++)
				;
			if (k < j)
				continue;
			setf(note, sizeof(note),
			     "package %d total, read on CPU %d", pkg[j], rd[j]);
			ret = open_one(c, r, cpus[j], rd[j], note);
		}
	}
	free(rd);
	free(pkg);
	free(rv);
	return ret;
}

static void pfm_start(struct il_counters *c)
{
	int i;

	for (i = 0; i < c->n; i++) {
		struct cnt *n = &c->c[i];
		int err;

		if (!n->live || n->fd < 0)
			continue;
		if (ioctl(n->fd, PERF_EVENT_IOC_RESET, 0) == 0 &&
		    read(n->fd, n->base, sizeof(n->base)) ==
		    (ssize_t)sizeof(n->base))
			continue;
		err = errno;
		n->live = false;
		n->res.status = IL_CNT_UNSUPPORTED;
		setf(n->res.reason, sizeof(n->res.reason),
		     "errno %d (%s): reading the counter at start failed",
		     err, strerror(err));
	}
	for (i = 0; i < c->n; i++)
		if (c->c[i].live && c->c[i].fd >= 0)
			ioctl(c->c[i].fd, PERF_EVENT_IOC_ENABLE, 0);
}

static void pfm_stop(struct il_counters *c)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (c->c[i].live && c->c[i].fd >= 0)
			ioctl(c->c[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	for (i = 0; i < c->n; i++) {
		struct cnt *n = &c->c[i];
		struct il_counter_result *res = &n->res;
		uint64_t now[3], dv, de, dr;
		int err;

		if (!n->live || n->fd < 0)
			continue;
		if (read(n->fd, now, sizeof(now)) != (ssize_t)sizeof(now)) {
			err = errno;
			res->status = IL_CNT_UNSUPPORTED;
			res->value = NAN;
			setf(res->reason, sizeof(res->reason),
			     "errno %d (%s): reading the counter at stop failed",
			     err, strerror(err));
			continue;
		}
		dv = now[0] - n->base[0];
		de = now[1] - n->base[1];
		dr = now[2] - n->base[2];
		if (dr == 0) {
			res->status = IL_CNT_UNSUPPORTED;
			res->value = NAN;
			setf(res->reason, sizeof(res->reason),
			     "never scheduled on the PMU during the run (%llu ns enabled): multiplexed out",
			     (unsigned long long)de);
			continue;
		}
		res->status = IL_CNT_OK;
		res->value = (double)dv * n->scale;
		if (dr < de) {
			res->value *= (double)de / (double)dr;
			setf(res->reason, sizeof(res->reason),
			     "scaled x%.3f: on the PMU %.1f%% of the run (multiplexed)%s%s",
			     (double)de / (double)dr,
			     100.0 * (double)dr / (double)de,
			     n->note[0] ? "; " : "", n->note);
		} else {
			setf(res->reason, sizeof(res->reason), "%s", n->note);
		}
	}
}

static void pfm_close(struct il_counters *c)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (c->c[i].fd >= 0)
			close(c->c[i].fd);
}

const struct cnt_backend cnt_perf_backend = {
	.name = "pfm",
	.open = pfm_open,
	.start = pfm_start,
	.stop = pfm_stop,
	.close = pfm_close,
};
