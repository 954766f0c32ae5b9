// SPDX-License-Identifier: GPL-2.0-only
/*
 * counters.c - event counts around one benchmark run: libpfm4 encodes event
 * names into perf_event_attr and perf_event_open() counts them; PAPI is an
 * optional second backend for its portable presets.  The runner opens the
 * counters before run(), brackets run() with start/stop, and stores every
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
#include "sysfs.h"
#include "topo.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifdef IL_HAVE_PAPI
#include <papi.h>
#endif

#define PMU_DIR "/sys/bus/event_source/devices"
#define MAX_CPUS 8192		/* upper bound for CPU numbers we accept */

static const char *const pfm_defaults[] = {
	"context-switches", "cpu-migrations", "page-faults",
	"cycles", "instructions",
	"msr/smi/", "power/energy-*/",
};

#ifdef IL_HAVE_PAPI
static const char *const papi_defaults[] = {
	"PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L1_DCM",
};
#endif

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

/* A PAPI event set: one CPU (or, cpu == -1, the opening thread) x one
 * component, since PAPI runs one set per context and component at a time. */
struct pset {
	int es;
	int cpu;
	int cidx;
	int nev;
	bool running;
};

struct il_counters {
	bool papi;
	bool started;
	int n, cap;
	struct cnt *c;
	int nps;
	struct pset *ps;
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

static pthread_mutex_t cnt_lock = PTHREAD_MUTEX_INITIALIZER;

/* vsnprintf() truncates silently; a reason cut short is still a reason. */
static __attribute__((format(printf, 3, 4)))
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
static int fs_line(const char *path, char *buf, size_t len)
{
	int ret = il_fs_read(path, buf, len);

	if (!ret && !buf[0])
		ret = -ENODATA;
	return ret;
}

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

/* ---- the result table ------------------------------------------------ */

static struct cnt *add_row(struct il_counters *c, const char *event, int cpu)
{
	struct cnt *n;

	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 16;

		n = realloc(c->c, (size_t)cap * sizeof(*n));
		if (!n)
			return NULL;
		c->c = n;
		c->cap = cap;
	}
	n = &c->c[c->n++];
	memset(n, 0, sizeof(*n));
	setf(n->res.event, sizeof(n->res.event), "%s", event);
	n->res.cpu = cpu;
	n->res.value = NAN;
	setf(n->res.unit, sizeof(n->res.unit), "count");
	n->fd = -1;
	n->scale = 1.0;
	n->pset = n->pidx = -1;
	return n;
}

static void set_pending(struct cnt *n)
{
	n->live = true;
	n->res.status = IL_CNT_UNAVAILABLE;
	setf(n->res.reason, sizeof(n->res.reason),
	     "not measured: il_counters_stop() was not reached");
}

/* ---- event lists ----------------------------------------------------- */

/*
 * Split @list at commas, except inside a sysfs "pmu/.../" name, whose terms
 * are comma-separated too.  Tokens are trimmed; an empty one is an error.
 */
static int split_events(const char *list, char ***out, int *nout)
{
	char **v = NULL, *tok;
	const char *s = list;
	int n = 0, ret = 0;

	for (;;) {
		const char *b = s, *e;
		int slashes = 0;
		char **nv;

		while (*s && !(*s == ',' && !(slashes & 1)))
			slashes += *s++ == '/';
		for (e = s; e > b && isspace((unsigned char)e[-1]); e--)
			;
		while (b < e && isspace((unsigned char)*b))
			b++;
		if (b == e) {
			ret = il_errorf(-EINVAL, "empty event name in list '%s'",
					list);
			break;
		}
		if ((size_t)(e - b) >= sizeof(((struct rev *)0)->name)) {
			ret = il_errorf(-EINVAL, "event name too long: '%.*s'",
					(int)(e - b), b);
			break;
		}
		tok = strndup(b, (size_t)(e - b));
		nv = tok ? realloc(v, (size_t)(n + 1) * sizeof(*v)) : NULL;
		if (!nv) {
			free(tok);
			ret = il_errorf(-ENOMEM, "out of memory");
			break;
		}
		v = nv;
		v[n++] = tok;
		if (!*s)
			break;
		s++;
	}
	if (ret) {
		while (n--)
			free(v[n]);
		free(v);
		return ret;
	}
	*out = v;
	*nout = n;
	return 0;
}

static void free_tokens(char **v, int n)
{
	while (n-- > 0)
		free(v[n]);
	free(v);
}

static struct rev *add_rev(struct rev **v, int *n, const char *name)
{
	struct rev *nv = realloc(*v, (size_t)(*n + 1) * sizeof(**v));

	if (!nv)
		return NULL;
	*v = nv;
	nv = &nv[(*n)++];
	memset(nv, 0, sizeof(*nv));
	setf(nv->name, sizeof(nv->name), "%s", name);
	nv->scale = 1.0;
	setf(nv->unit, sizeof(nv->unit), "count");
	nv->st = IL_CNT_OK;
	return nv;
}

/* ---- sysfs "pmu/event/" names ----------------------------------------- */

static bool valid_name(const char *s, bool glob)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s) &&
		    !(glob && strchr("*?", *s)))
			return false;
	return true;
}

/*
 * Apply "term=value" through the PMU's format file ("config:0-7,32-35"):
 * the value's bits go, lowest first, into the listed bit ranges.
 */
static int apply_term(const char *pmu, const char *term, uint64_t val,
		      struct perf_event_attr *a, char *why, size_t wlen)
{
	char p[512], fmt[128], *s, *end;
	uint64_t *field;

	if (!strcmp(term, "config") || !strcmp(term, "config1") ||
	    !strcmp(term, "config2")) {
		field = term[6] == '1' ? &a->config1 :
			term[6] == '2' ? &a->config2 : &a->config;
		*field |= val;
		return 0;
	}
	snprintf(p, sizeof(p), PMU_DIR "/%s/format/%s", pmu, term);
	if (!valid_name(term, false) || fs_line(p, fmt, sizeof(fmt))) {
		setf(why, wlen, "the '%s' event source has no format term '%s'",
		     pmu, term);
		return -EINVAL;
	}
	s = strchr(fmt, ':');
	if (!s)
		goto bad;
	*s++ = '\0';
	if (!strcmp(fmt, "config"))
		field = &a->config;
	else if (!strcmp(fmt, "config1"))
		field = &a->config1;
	else if (!strcmp(fmt, "config2"))
		field = &a->config2;
	else
		goto bad;
	while (*s) {
		unsigned long lo = strtoul(s, &end, 10), hi = lo;

		if (end == s)
			goto bad;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (hi > 63 || hi < lo)
			goto bad;
		for (; lo <= hi; lo++, val >>= 1)
			*field |= (val & 1) << lo;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			goto bad;
	}
	if (val) {
		setf(why, wlen, "value too wide for term '%s' of '%s'", term,
		     pmu);
		return -ERANGE;
	}
	return 0;
bad:
	setf(why, wlen, "cannot parse format of term '%s' of '%s'", term, pmu);
	return -EINVAL;
}

/* "event=0x02,umask=0x1" (sysfs or user-written) into @a. */
static int apply_terms(const char *pmu, const char *terms,
		       struct perf_event_attr *a, char *why, size_t wlen)
{
	char *dup = strdup(terms), *save = NULL, *t;
	int ret = 0;

	if (!dup)
		return -ENOMEM;
	for (t = strtok_r(dup, ",", &save); t && !ret;
	     t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '='), *end;
		uint64_t val = 1;	/* a bare term is a flag, as in perf */

		while (isspace((unsigned char)*t))
			t++;
		if (eq) {
			*eq = '\0';
			errno = 0;
			val = strtoull(eq + 1, &end, 0);
			if (errno || end == eq + 1 || *end) {
				setf(why, wlen, "bad value for term '%s'", t);
				ret = -EINVAL;
				break;
			}
		}
		ret = apply_term(pmu, t, val, a, why, wlen);
	}
	free(dup);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The event source's type and scope. */
static int sysfs_source(struct rev *r, const char *pmu)
{
	char p[512];
	uint64_t type;

	setf(r->pmu, sizeof(r->pmu), "%s", pmu);
	snprintf(p, sizeof(p), PMU_DIR "/%s/cpumask", pmu);
	r->pkg_scope = il_fs_exists(p);
	snprintf(p, sizeof(p), PMU_DIR "/%s/type", pmu);
	if (il_fs_read_u64(p, &type)) {
		r->st = IL_CNT_UNSUPPORTED;
		setf(r->why, sizeof(r->why), "cannot read the type of '%s'",
		     pmu);
		return -EINVAL;
	}
	r->attr.type = (uint32_t)type;
	return 0;
}

/* Resolve one sysfs event @ev of @pmu (a file in events/) into @r. */
static void sysfs_event(struct rev *r, const char *pmu, const char *ev)
{
	char p[512], fp[4096], enc[256], buf[64];

	if (sysfs_source(r, pmu))
		return;
	snprintf(p, sizeof(p), PMU_DIR "/%s/events/%s", pmu, ev);
	if (fs_line(p, enc, sizeof(enc))) {
		r->st = IL_CNT_UNSUPPORTED;
		setf(r->why, sizeof(r->why), "cannot read %s",
		     il_fs_path(p, fp, sizeof(fp)));
		return;
	}
	if (apply_terms(pmu, enc, &r->attr, r->why, sizeof(r->why))) {
		r->st = IL_CNT_UNSUPPORTED;
		return;
	}
	snprintf(p, sizeof(p), PMU_DIR "/%s/events/%s.unit", pmu, ev);
	if (!fs_line(p, buf, sizeof(buf)))
		setf(r->unit, sizeof(r->unit), "%s", buf);
	snprintf(p, sizeof(p), PMU_DIR "/%s/events/%s.scale", pmu, ev);
	if (!fs_line(p, buf, sizeof(buf))) {
		double s = strtod(buf, NULL);

		if (s > 0)
			r->scale = s;
	}
}

/*
 * A "pmu/event/", "pmu/<glob>/" or "pmu/term=v,.../" name.  Returns -EINVAL
 * only for a name that cannot mean anything; an absent source or event is
 * an UNAVAILABLE result.
 */
static int resolve_sysfs(const char *name, struct rev **v, int *n)
{
	char pmu[64], body[96], p[512], fp[4096], why[160] = "";
	const char *slash = strchr(name, '/');
	size_t len = strlen(name), plen = (size_t)(slash - name);
	struct rev *r;
	char **names = NULL;
	int nn = 0, i, ret = 0;
	struct dirent *de;
	DIR *d;

	if (plen == 0 || plen >= sizeof(pmu) || len < plen + 3 ||
	    name[len - 1] != '/')
		return il_errorf(-EINVAL,
				 "malformed event '%s' (expected pmu/event/)",
				 name);
	memcpy(pmu, name, plen);
	pmu[plen] = '\0';
	setf(body, sizeof(body), "%.*s", (int)(len - plen - 2), slash + 1);
	if (!valid_name(pmu, false) || strchr(body, '/') ||
	    (!strchr(body, '=') && !valid_name(body, true)))
		return il_errorf(-EINVAL,
				 "malformed event '%s' (expected pmu/event/)",
				 name);

	snprintf(p, sizeof(p), PMU_DIR "/%s", pmu);
	if (!il_fs_exists(p)) {
		r = add_rev(v, n, name);
		if (!r)
			return il_errorf(-ENOMEM, "out of memory");
		r->st = IL_CNT_UNAVAILABLE;
		setf(r->why, sizeof(r->why),
		     "no PMU: the '%s' event source is absent", pmu);
		return 0;
	}

	if (strchr(body, '=')) {
		r = add_rev(v, n, name);
		if (!r)
			return il_errorf(-ENOMEM, "out of memory");
		if (sysfs_source(r, pmu))
			return 0;
		if (apply_terms(pmu, body, &r->attr, why, sizeof(why))) {
			(*n)--;
			return il_errorf(-EINVAL, "unknown event '%s' (%s)",
					 name, why);
		}
		return 0;
	}

	/* Event names, maybe a glob; the sorted order keeps runs comparable. */
	snprintf(p, sizeof(p), PMU_DIR "/%s/events", pmu);
	d = opendir(il_fs_path(p, fp, sizeof(fp)));
	while (d && (de = readdir(d))) {
		char **nv;

		if (de->d_name[0] == '.' || strchr(de->d_name, '.') ||
		    fnmatch(body, de->d_name, 0))
			continue;
		nv = realloc(names, (size_t)(nn + 1) * sizeof(*names));
		if (!nv || !(nv[nn] = strdup(de->d_name))) {
			names = nv ? nv : names;
			ret = il_errorf(-ENOMEM, "out of memory");
			break;
		}
		names = nv;
		nn++;
	}
	if (d)
		closedir(d);
	if (!ret && nn == 0) {
		r = add_rev(v, n, name);
		if (!r) {
			ret = il_errorf(-ENOMEM, "out of memory");
		} else {
			r->st = IL_CNT_UNAVAILABLE;
			setf(r->why, sizeof(r->why),
			     "the '%s' event source has no '%s' event here",
			     pmu, body);
		}
	}
	if (!ret && nn)
		qsort(names, (size_t)nn, sizeof(*names), cmp_str);
	for (i = 0; !ret && i < nn; i++) {
		char full[96];

		setf(full, sizeof(full), "%s/%s/", pmu, names[i]);
		r = add_rev(v, n, full);
		if (!r)
			ret = il_errorf(-ENOMEM, "out of memory");
		else
			sysfs_event(r, pmu, names[i]);
	}
	free_tokens(names, nn);
	return ret;
}

/* ---- libpfm4 names --------------------------------------------------- */

/* Called with cnt_lock held and pfm_initialize() done. */
static int resolve_pfm(const char *name, bool dfl, struct rev **v, int *n)
{
	pfm_perf_encode_arg_t arg;
	struct perf_event_attr attr;
	struct rev *r;
	int ret;

	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
					PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS && !dfl) {
		if (ret == PFM_ERR_NOTFOUND)
			return il_errorf(-EINVAL,
					 "unknown event '%s' (libpfm4: %s)",
					 name, pfm_strerror(ret));
		return il_errorf(-EINVAL, "invalid event '%s' (libpfm4: %s)",
				 name, pfm_strerror(ret));
	}
	r = add_rev(v, n, name);
	if (!r)
		return il_errorf(-ENOMEM, "out of memory");
	if (ret != PFM_SUCCESS) {
		r->st = IL_CNT_UNSUPPORTED;
		setf(r->why, sizeof(r->why), "libpfm4 cannot encode it: %s",
		     pfm_strerror(ret));
		return 0;
	}
	r->attr = attr;
	return 0;
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
	struct cnt *n = add_row(c, r->name, row_cpu);

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
	set_pending(n);
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

	if (dfl) {
		ntok = (int)(sizeof(pfm_defaults) / sizeof(pfm_defaults[0]));
		tok = calloc((size_t)ntok, sizeof(*tok));
		for (i = 0; tok && i < ntok; i++)
			if (!(tok[i] = strdup(pfm_defaults[i])))
				break;
		if (!tok || i < ntok) {
			free_tokens(tok, tok ? i : 0);
			return il_errorf(-ENOMEM, "out of memory");
		}
	} else {
		ret = split_events(events, &tok, &ntok);
		if (ret)
			return ret;
	}

	/* Resolve every name before anything is opened. */
	pthread_mutex_lock(&cnt_lock);
	ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		pthread_mutex_unlock(&cnt_lock);
		free_tokens(tok, ntok);
		return il_errorf(-ENOTSUP, "libpfm4 initialisation failed: %s",
				 pfm_strerror(ret));
	}
	ret = 0;
	for (i = 0; !ret && i < ntok; i++) {
		if (strchr(tok[i], '/'))
			ret = resolve_sysfs(tok[i], &rv, &nrv);
		else
			ret = resolve_pfm(tok[i], dfl, &rv, &nrv);
	}
	pthread_mutex_unlock(&cnt_lock);
	free_tokens(tok, ntok);

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

/* ---- the PAPI backend ------------------------------------------------ */

#ifdef IL_HAVE_PAPI
static int papi_users;		/* under cnt_lock */

static const char *papi_err(int ret)
{
	const char *s = PAPI_strerror(ret);

	return s ? s : "unknown PAPI error";
}

/* Holds cnt_lock.  0, or the failing PAPI_library_init() return. */
static int papi_get(void)
{
	int ret;

	if (papi_users > 0) {
		papi_users++;
		return 0;
	}
	ret = PAPI_library_init(PAPI_VER_CURRENT);
	if (ret != PAPI_VER_CURRENT)
		return ret < 0 ? ret : PAPI_EINVAL;
	papi_users = 1;
	return 0;
}

static void papi_put(void)
{
	if (papi_users > 0 && --papi_users == 0)
		PAPI_shutdown();
}

static struct pset *papi_new_set(struct il_counters *c, int cpu, int cidx,
				 int *err)
{
	struct pset *ps = realloc(c->ps, (size_t)(c->nps + 1) * sizeof(*ps));
	PAPI_option_t opt;

	if (!ps) {
		*err = PAPI_ENOMEM;
		return NULL;
	}
	c->ps = ps;
	ps = &ps[c->nps];
	memset(ps, 0, sizeof(*ps));
	ps->es = PAPI_NULL;
	ps->cpu = cpu;
	ps->cidx = cidx;
	*err = PAPI_create_eventset(&ps->es);
	if (*err == PAPI_OK)
		*err = PAPI_assign_eventset_component(ps->es, cidx);
	if (*err == PAPI_OK && cpu >= 0) {
		memset(&opt, 0, sizeof(opt));
		opt.cpu.eventset = ps->es;
		opt.cpu.cpu_num = (unsigned int)cpu;
		*err = PAPI_set_opt(PAPI_CPU_ATTACH, &opt);
	}
	if (*err != PAPI_OK) {
		if (ps->es != PAPI_NULL)
			PAPI_destroy_eventset(&ps->es);
		return NULL;
	}
	c->nps++;
	return ps;
}

/*
 * Count as the pfm backend does (user and kernel); PAPI defaults to user
 * only.  Where PAPI refuses, the note says the count is user-only.
 */
static void papi_domain(struct pset *ps, char *note, size_t len)
{
	PAPI_option_t opt;
	int ret;

	memset(&opt, 0, sizeof(opt));
	opt.domain.eventset = ps->es;
	opt.domain.domain = PAPI_DOM_USER | PAPI_DOM_KERNEL;
	ret = PAPI_set_opt(PAPI_DOMAIN, &opt);
	if (ret != PAPI_OK)
		setf(note, len, "user mode only (PAPI_DOMAIN: %s)",
		     papi_err(ret));
}

/* Why PAPI could not add @code: its own words, plus the component's. */
static void papi_why(char *buf, size_t len, int code, int ret,
		     const char *attach)
{
	const PAPI_component_info_t *ci;
	PAPI_event_info_t info;
	char extra[96] = "";
	int cidx = PAPI_get_event_component(code);

	ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
	if (ci && ci->disabled)
		setf(extra, sizeof(extra), "; component '%s' disabled: %s",
		     ci->name, ci->disabled_reason);
	else if (PAPI_get_event_info(code, &info) == PAPI_OK &&
		 IS_PRESET(code) && info.count == 0)
		setf(extra, sizeof(extra),
		     "; no native event behind this preset here");
	if (attach[0])
		setf(buf, len, "PAPI_add_event: %s%s (per-thread set: %s)",
		     papi_err(ret), extra, attach);
	else
		setf(buf, len, "PAPI_add_event: %s%s", papi_err(ret), extra);
}

/* Add the events of component @cidx to one set per CPU, or to a per-thread
 * set where PAPI cannot attach to a CPU. */
static int papi_component(struct il_counters *c, char **tok, const int *code,
			  const int *comp, int ntok, int cidx,
			  const int *cpus, int ncpus)
{
	char attach[96] = "", note[96] = "";	/* attach: why per-thread */
	int first = c->nps, i, j, err = PAPI_OK;
	struct pset *ps;

	for (j = 0; j < ncpus; j++) {
		if (papi_new_set(c, cpus[j], cidx, &err))
			continue;
		setf(attach, sizeof(attach),
		     "PAPI_CPU_ATTACH to CPU %d failed: %s", cpus[j],
		     papi_err(err));
		break;
	}
	if (err != PAPI_OK) {
		/* All or nothing: a mix of attached and per-thread sets
		 * would not add up to anything. */
		while (c->nps > first) {
			c->nps--;
			PAPI_destroy_eventset(&c->ps[c->nps].es);
		}
		if (!papi_new_set(c, -1, cidx, &err)) {
			for (i = 0; i < ntok; i++) {
				struct cnt *n;

				if (comp[i] != cidx)
					continue;
				for (j = 0; j < ncpus; j++) {
					n = add_row(c, tok[i], cpus[j]);
					if (!n)
						return il_errorf(-ENOMEM,
								 "out of memory");
					n->res.status = IL_CNT_UNSUPPORTED;
					setf(n->res.reason,
					     sizeof(n->res.reason),
					     "PAPI_create_eventset: %s; %s",
					     papi_err(err), attach);
				}
			}
			return 0;
		}
	}
	for (j = first; j < c->nps; j++) {
		ps = &c->ps[j];
		note[0] = '\0';
		papi_domain(ps, note, sizeof(note));
		for (i = 0; i < ntok; i++) {
			struct cnt *n;
			int ret, k;

			if (comp[i] != cidx)
				continue;
			ret = PAPI_add_event(ps->es, code[i]);
			if (ret == PAPI_OK) {
				n = add_row(c, tok[i], ps->cpu);
				if (!n)
					return il_errorf(-ENOMEM,
							 "out of memory");
				n->pset = j;
				n->pidx = ps->nev++;
				if (ps->cpu < 0)
					setf(n->note, sizeof(n->note),
					     "per-thread, opening thread only (%s)%s%s",
					     attach, note[0] ? "; " : "", note);
				else
					setf(n->note, sizeof(n->note), "%s",
					     note);
				set_pending(n);
				continue;
			}
			/* A per-thread set stands for every measured CPU. */
			for (k = 0; k < (ps->cpu < 0 ? ncpus : 1); k++) {
				n = add_row(c, tok[i],
					    ps->cpu < 0 ? cpus[k] : ps->cpu);
				if (!n)
					return il_errorf(-ENOMEM,
							 "out of memory");
				n->res.status = IL_CNT_UNSUPPORTED;
				papi_why(n->res.reason, sizeof(n->res.reason),
					 code[i], ret, attach);
			}
		}
	}
	return 0;
}

static int papi_open(struct il_counters *c, const char *events,
		     const int *cpus, int ncpus)
{
	char **tok = NULL, why[160] = "";
	int *code = NULL, *comp = NULL, ntok = 0, i, j, ret, pret;

	if (events) {
		ret = split_events(events, &tok, &ntok);
		if (ret)
			return ret;
	} else {
		ntok = (int)(sizeof(papi_defaults) / sizeof(papi_defaults[0]));
		tok = calloc((size_t)ntok, sizeof(*tok));
		for (i = 0; tok && i < ntok; i++)
			if (!(tok[i] = strdup(papi_defaults[i])))
				break;
		if (!tok || i < ntok) {
			free_tokens(tok, tok ? i : 0);
			return il_errorf(-ENOMEM, "out of memory");
		}
	}
	code = calloc((size_t)ntok, sizeof(*code));
	comp = calloc((size_t)ntok, sizeof(*comp));
	if (!code || !comp) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out_free;
	}

	pthread_mutex_lock(&cnt_lock);
	pret = papi_get();
	if (pret != PAPI_OK) {
		/* PAPI cannot count at all: say so for every event. */
		pthread_mutex_unlock(&cnt_lock);
		setf(why, sizeof(why), "PAPI_library_init: %s",
		     papi_err(pret));
		ret = 0;
		for (i = 0; !ret && i < ntok; i++)
			for (j = 0; !ret && j < ncpus; j++) {
				struct cnt *n = add_row(c, tok[i], cpus[j]);

				if (!n) {
					ret = il_errorf(-ENOMEM,
							"out of memory");
					break;
				}
				n->res.status = IL_CNT_UNSUPPORTED;
				setf(n->res.reason, sizeof(n->res.reason),
				     "%s", why);
			}
		goto out_free;
	}
	c->papi = true;
	ret = 0;
	for (i = 0; i < ntok; i++) {
		pret = PAPI_event_name_to_code(tok[i], &code[i]);
		if (pret != PAPI_OK) {
			ret = il_errorf(-EINVAL, "unknown event '%s' (PAPI: %s)",
					tok[i], papi_err(pret));
			goto out_unlock;
		}
		comp[i] = PAPI_get_event_component(code[i]);
		if (comp[i] < 0)
			comp[i] = 0;
	}
	for (i = 0; !ret && i < ntok; i++) {
		for (j = 0; j < i; j++)
			if (comp[j] == comp[i])
				break;
		if (j == i)
			ret = papi_component(c, tok, code, comp, ntok, comp[i],
					     cpus, ncpus);
	}
out_unlock:
	pthread_mutex_unlock(&cnt_lock);
out_free:
	free(code);
	free(comp);
	free_tokens(tok, ntok);
	return ret;
}

static void papi_start(struct il_counters *c)
{
	int i, j, ret;

	pthread_mutex_lock(&cnt_lock);
	for (i = 0; i < c->nps; i++) {
		struct pset *ps = &c->ps[i];

		if (!ps->nev || ps->running)
			continue;
		ret = PAPI_start(ps->es);
		if (ret == PAPI_OK) {
			ps->running = true;
			continue;
		}
		for (j = 0; j < c->n; j++) {
			struct cnt *n = &c->c[j];

			if (n->pset != i || !n->live)
				continue;
			n->live = false;
			n->res.status = IL_CNT_UNSUPPORTED;
			setf(n->res.reason, sizeof(n->res.reason),
			     "PAPI_start: %s", papi_err(ret));
		}
	}
	pthread_mutex_unlock(&cnt_lock);
}

static void papi_stop(struct il_counters *c)
{
	long long *vals;
	int i, j, ret;

	pthread_mutex_lock(&cnt_lock);
	for (i = 0; i < c->nps; i++) {
		struct pset *ps = &c->ps[i];

		if (!ps->running)
			continue;
		ps->running = false;
		vals = calloc((size_t)ps->nev, sizeof(*vals));
		ret = vals ? PAPI_stop(ps->es, vals) : PAPI_ENOMEM;
		if (!vals)
			PAPI_stop(ps->es, NULL);
		for (j = 0; j < c->n; j++) {
			struct cnt *n = &c->c[j];

			if (n->pset != i || !n->live)
				continue;
			if (ret != PAPI_OK) {
				n->res.status = IL_CNT_UNSUPPORTED;
				n->res.value = NAN;
				setf(n->res.reason, sizeof(n->res.reason),
				     "PAPI_stop: %s", papi_err(ret));
				continue;
			}
			n->res.status = IL_CNT_OK;
			n->res.value = (double)vals[n->pidx];
			setf(n->res.reason, sizeof(n->res.reason), "%s",
			     n->note);
		}
		free(vals);
	}
	pthread_mutex_unlock(&cnt_lock);
}

static void papi_close(struct il_counters *c)
{
	int i;

	pthread_mutex_lock(&cnt_lock);
	for (i = 0; i < c->nps; i++) {
		if (c->ps[i].running)
			PAPI_stop(c->ps[i].es, NULL);
		PAPI_cleanup_eventset(c->ps[i].es);
		PAPI_destroy_eventset(&c->ps[i].es);
	}
	if (c->papi)
		papi_put();
	pthread_mutex_unlock(&cnt_lock);
}
#endif /* IL_HAVE_PAPI */

/* ---- public API ------------------------------------------------------ */

int il_counters_open(struct il_counters **out, const char *backend,
		     const char *events, const int *cpus, int ncpus)
{
	struct il_counters *c;
	bool papi = false;
	int i, j, ret;

	if (!out)
		return il_errorf(-EINVAL, "il_counters_open: no result pointer");
	*out = NULL;
	if (backend && !strcmp(backend, "papi")) {
#ifndef IL_HAVE_PAPI
		return il_errorf(-ENOTSUP,
				 "counter backend 'papi': built without PAPI");
#else
		papi = true;
#endif
	} else if (backend && strcmp(backend, "pfm")) {
		return il_errorf(-EINVAL,
				 "unknown counter backend '%s' (expected pfm or papi)",
				 backend);
	}
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
#ifdef IL_HAVE_PAPI
	ret = papi ? papi_open(c, events, cpus, ncpus) :
		     pfm_open(c, events, cpus, ncpus);
#else
	(void)papi;
	ret = pfm_open(c, events, cpus, ncpus);
#endif
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
#ifdef IL_HAVE_PAPI
	if (c->papi)
		papi_start(c);
	else
#endif
		pfm_start(c);
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
#ifdef IL_HAVE_PAPI
	if (c->papi)
		papi_stop(c);
	else
#endif
		pfm_stop(c);
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
	int i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		if (c->c[i].fd >= 0)
			close(c->c[i].fd);
#ifdef IL_HAVE_PAPI
	papi_close(c);
#endif
	free(c->ps);
	free(c->c);
	free(c);
}

const char *il_counter_status_name(enum il_counter_status s)
{
	switch (s) {
	case IL_CNT_OK:
		return "ok";
	case IL_CNT_UNSUPPORTED:
		return "unsupported";
	case IL_CNT_UNAVAILABLE:
		return "unavailable";
	}
	return "invalid";
}
