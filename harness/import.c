// SPDX-License-Identifier: GPL-2.0-only
/*
 * import.c - `idlelab import cyclictest` (import.h): cyclictest's JSON
 * histogram into one run.  The seeds' reference figures are
 * import_reference.c's.
 *
 * Idempotent without any bookkeeping table: the run's UUID is a hash of
 * the file's bytes, so a second import finds it present and adds nothing.
 */
#include "import.h"
#include "env.h"
#include "err.h"
#include "run_status.h"
#include "series.h"
#include "stats.h"
#include "store.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A version-8 (RFC 9562 "custom") UUID from two FNV-1a hashes of @p. */
static void hash_uuid(const void *p, size_t n, const char *salt, char out[37])
{
	uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
	const unsigned char *c = p;
	size_t i;

	for (i = 0; salt[i]; i++) {
		a = (a ^ (unsigned char)salt[i]) * 0x100000001b3ULL;
		b = (b ^ (unsigned char)salt[i]) * 0x100000001b3ULL;
	}
	for (i = 0; i < n; i++) {
		a = (a ^ c[i]) * 0x100000001b3ULL;
		b = (b ^ c[n - 1 - i]) * 0x100000001b3ULL;
	}
	snprintf(out, 37, "%08" PRIx64 "-%04" PRIx64 "-8%03" PRIx64 "-%04" PRIx64 "-%012" PRIx64,
		 a >> 32, (a >> 16) & 0xffff, a & 0xfff,
		 (uint64_t)(0x8000 | ((b >> 48) & 0x3fff)), b & (uint64_t)0xffffffffffff);
}

static int read_file(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0, r;
	char *b;

	if (!f)
		return il_errorf(-errno, "%s: %s", path, strerror(errno));
	b = malloc(cap + 1);
	while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			char *nb = cap < (256u << 20) ? realloc(b, cap * 2 + 1) : NULL;

			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!b)
		return il_errorf(-EINVAL, "%s: too large or out of memory", path);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* "Mon, 30 Nov 2026 21:15:55 +0000", as rt-tests writes it. */
static uint64_t rt_time(json_t *v)
{
	struct tm tm;
	const char *s = json_string_value(v), *end;
	time_t t;

	if (!s)
		return 0;
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%a, %d %b %Y %H:%M:%S %z", &tm);
	if (!end)
		return 0;
	t = timegm(&tm) - tm.tm_gmtoff;
	return t > 0 ? (uint64_t)t * 1000000000ULL : 0;
}

/* rt-tests writes some keys with a trailing colon ("cmdline:"). */
static json_t *get2(json_t *o, const char *k)
{
	char buf[64];
	json_t *v = json_object_get(o, k);

	if (v)
		return v;
	snprintf(buf, sizeof(buf), "%s:", k);
	return json_object_get(o, buf);
}

struct attrs {
	int n;
	struct il_run_attr v[512];
	char *owned[512];
	int nowned;
};

static void attr(struct attrs *a, int cpu, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void attr(struct attrs *a, int cpu, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *v;

	if (a->n == 512 || a->nowned == 512)
		return;
	va_start(ap, fmt);
	if (vasprintf(&v, fmt, ap) < 0)
		v = NULL;
	va_end(ap);
	if (!v)
		return;
	a->owned[a->nowned++] = v;
	a->v[a->n].cpu = cpu;
	a->v[a->n].key = key;
	a->v[a->n++].value = v;
}

/*
 * Nanoseconds per unit of cyclictest's figures.  rt-tests writes
 * "resolution_in_ns" as a flag (0: microseconds, 1: nanoseconds, -N); a
 * larger value is read as the unit itself, and an absent key (older
 * rt-tests) means microseconds.
 */
static int unit_ns(json_t *doc, const char *path, uint64_t *out)
{
	json_t *r = json_object_get(doc, "resolution_in_ns");

	*out = 1000;
	if (!r)
		return 0;
	if (!json_is_integer(r) || json_integer_value(r) < 0 ||
	    json_integer_value(r) > 1000000000)
		return il_errorf(-EINVAL, "%s: resolution_in_ns is not an integer from 0 to 10^9", path);
	if (json_integer_value(r))
		*out = (uint64_t)json_integer_value(r);
	return 0;
}

/* One value of the imported histogram and how many samples it holds. */
struct ct_point {
	uint64_t ns;
	uint64_t n;
};

static int ct_point_cmp(const void *a, const void *b)
{
	const struct ct_point *x = a, *y = b;

	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

/*
 * One thread's histogram as points, lowest first.  Bucket k holds the
 * samples in [k, k + 1) units, so its count is placed at the midpoint,
 * k * unit + unit / 2: at the lower edge every percentile would come out
 * half a unit low (0.5 us, 4 % at 13 us).  cyclictest's min and max are
 * sample values (truncated to the unit, so inside the end buckets); when
 * @ends is set, one sample of each end bucket that holds one is placed
 * there instead, so the summary can keep them exactly and still lie in
 * the histogram.
 */
static int ct_points(json_t *hist, const char *name, uint64_t unit,
		     bool ends, uint64_t min, uint64_t max,
		     struct ct_point **out, int *nout)
{
	size_t cap = 2 * json_object_size(hist) + 2;
	struct ct_point *p = calloc(cap, sizeof(*p));
	uint64_t k;
	const char *key;
	json_t *v;
	char *end;
	int n = 0, i, j;

	if (!p)
		return il_errorf(-ENOMEM, "out of memory");
	json_object_foreach(hist, key, v) {
		json_int_t c = json_integer_value(v);

		k = strtoull(key, &end, 10);
		if (*end || !*key || !json_is_integer(v) || c < 0 ||
		    k > (IL_HIST_HIGHEST - unit) / unit) {
			free(p);
			return il_errorf(-EINVAL, "thread %s: histogram bucket '%s' is not a count per %" PRIu64 " ns",
					 name, key, unit);
		}
		if (c)
			p[n++] = (struct ct_point){ k * unit + unit / 2, (uint64_t)c };
	}
	/* cyclictest writes them in order, but a JSON object has none. */
	qsort(p, (size_t)n, sizeof(*p), ct_point_cmp);
	for (i = 1; i < n; i++)
		if (p[i].ns == p[i - 1].ns) {
			k = (p[i].ns - unit / 2) / unit;
			free(p);
			return il_errorf(-EINVAL, "thread %s: histogram bucket %" PRIu64 " given twice",
					 name, k);
		}
	/* Split the end buckets (room was reserved above), each where
	 * cyclictest's extreme lies in it: an overflow puts its max past
	 * the histogram. */
	if (ends && n && min / unit == (p[0].ns - unit / 2) / unit) {
		memmove(p + 1, p, (size_t)n * sizeof(*p));
		p[0] = (struct ct_point){ min, 1 };
		p[1].n--;
		n++;
	}
	if (ends && n > 1 && p[n - 1].n &&
	    max / unit == (p[n - 1].ns - unit / 2) / unit) {
		p[n] = (struct ct_point){ max, 1 };
		p[n - 1].n--;
		n++;
	}
	/* A one-sample end bucket is now empty: drop it. */
	for (i = j = 0; i < n; i++)
		if (p[i].n)
			p[j++] = p[i];
	n = j;
	*out = p;
	*nout = n;
	return 0;
}


/*
 * The stored percentiles whose rank, over every cycle, falls in the
 * overflow (issue 22, item 7): store_run.c leaves them NULL, as their
 * value is only "above the histogram's last bucket"; this attribute says
 * so and which, so that a NULL there is never read as not measured.
 */
static void above_attr(struct attrs *a, int c, const struct il_series *s)
{
	static const double pct[] = { 50, 90, 99, 99.9, 99.99 };
	static const char *const name[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
	char buf[128];
	size_t used = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
		double p = pct[i];

		if (!il_pct_over(s->sum.count, s->sum.drop[IL_DROP_RANGE], &p))
			used += (size_t)snprintf(buf + used, sizeof(buf) - used,
						 "%s%s", used ? ", " : "", name[i]);
	}
	if (used)
		attr(a, c, "cyclictest.percentiles_above", "%s: ranked over every cycle, past the histogram (above %" PRIu64 " ns), so stored NULL",
		     buf, il_hist_max(s->hist));
}

/*
 * One thread's series.  With every cycle inside the histogram, the
 * summary's min and max are cyclictest's own (the histogram's midpoints
 * would only approximate them), and so is its mean, put on the
 * percentiles' footing: cyclictest's avg averages values truncated to the
 * unit, half a unit below the midpoints on average (-1.5 % at 32 us, issue
 * 22), so the mean is avg + unit / 2, inside [min, max].  With an
 * overflow, cyclictest's
 * avg describes samples whose values were not kept, so the summary's
 * mean is that of the histogram's samples; its min and max are still
 * cyclictest's (the max past the histogram), the overflow counts as
 * dropped (out of range), and cyclictest's figures stay run attributes.
 */
static int thread_series(json_t *th, const char *name, uint64_t unit,
			 struct il_series **out, struct attrs *a)
{
	json_t *hist = json_object_get(th, "histogram");
	json_t *cpu = json_object_get(th, "cpu");
	json_t *javg = json_object_get(th, "avg");
	uint64_t cycles = (uint64_t)json_integer_value(json_object_get(th, "cycles"));
	json_int_t jmin = json_integer_value(json_object_get(th, "min"));
	json_int_t jmax = json_integer_value(json_object_get(th, "max"));
	uint64_t min = (uint64_t)jmin * unit, max = (uint64_t)jmax * unit;
	int c = json_is_integer(cpu) ? (int)json_integer_value(cpu) : -1;
	struct ct_point *p = NULL;
	struct il_series *s;
	double sum = 0, m2 = 0;
	uint64_t count = 0;
	bool exact;
	int n = 0, i, ret;

	if (!json_is_object(hist))
		return il_errorf(-EINVAL, "thread %s has no histogram (run cyclictest with -h/--histogram)", name);
	/* cyclictest writes the non-empty buckets only: an empty histogram
	 * of a thread that ran is one every cycle overflowed, as -N -h 400
	 * does (400 buckets of 1 ns).  Say that, not "no histogram". */
	if (!json_object_size(hist) && cycles)
		return il_errorf(-EINVAL, "thread %s: all %" PRIu64 " cycles overflowed the histogram (its max %" PRIu64 " ns lies past the last bucket): -h N keeps N buckets of one unit, %s, so run cyclictest with a larger -h",
				 name, cycles, max,
				 unit == 1 ? "1 ns with -N (-h 400 covers 400 ns)" : "1 us");
	if (!json_object_size(hist))
		return il_errorf(-EINVAL, "thread %s has no histogram (run cyclictest with -h/--histogram)", name);
	exact = jmin >= 0 && jmax >= jmin && json_is_number(javg) &&
		(uint64_t)jmax <= IL_HIST_HIGHEST / unit;
	ret = ct_points(hist, name, unit, exact, min, max, &p, &n);
	if (ret)
		return ret;
	s = il_series_new("wake_latency", "ns", c, -1, -1, false, false);
	if (!s) {
		free(p);
		return il_errorf(-ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		if (!p[i].n)
			continue;
		il_hist_record_n(s->hist, p[i].ns, p[i].n);
		count += p[i].n;
		sum += (double)p[i].ns * (double)p[i].n;
	}
	s->sum.count = count;
	/* Overflow: past the histogram, value unknown. */
	il_summary_drop(&s->sum, IL_DROP_RANGE,
			cycles > count ? cycles - count : 0);
	if (count) {
		/* The end points are cyclictest's min and max where they
		 * could stand in (ct_points()). */
		s->sum.min = p[0].ns;
		s->sum.max = p[n - 1].ns;
		/* Past the histogram, cyclictest's max is still the run's:
		 * Max stays the largest cycle (issue 22: 29398 stood for
		 * 3584786).  The percentiles rank the overflow above the
		 * histogram (report.c), never at Max. */
		if (cycles > count && jmax >= 0 && max > s->sum.max)
			s->sum.max = max;
		exact = exact && cycles <= count && min == p[0].ns &&
			max == p[n - 1].ns;
		s->sum.mean = exact ? json_number_value(javg) * (double)unit +
				      (double)unit / 2 : sum / (double)count;
		if (s->sum.mean > (double)s->sum.max)
			s->sum.mean = (double)s->sum.max;
		if (s->sum.mean < (double)s->sum.min)
			s->sum.mean = (double)s->sum.min;
		for (i = 0; i < n; i++) {
			double d = (double)p[i].ns - s->sum.mean;

			m2 += d * d * (double)p[i].n;
		}
		s->sum.m2 = m2;
	}
	free(p);
	above_attr(a, c, s);
	attr(a, c, "cyclictest.thread", "%s", name);
	attr(a, c, "cyclictest.cycles", "%" PRIu64, cycles);
	attr(a, c, "cyclictest.overflows", "%" PRIu64, s->sum.dropped);
	attr(a, c, "cyclictest.unit_ns", "%" PRIu64, unit);
	attr(a, c, "cyclictest.min_ns", "%" PRIu64, min);
	attr(a, c, "cyclictest.max_ns", "%" PRIu64, max);
	attr(a, c, "cyclictest.avg_ns", "%.2f", json_number_value(javg) * (double)unit);
	*out = s;
	return 0;
}

static int put_derived_machine(struct il_store *s, json_t *sysinfo, char uuid[37])
{
	const char *node = json_string_value(json_object_get(sysinfo, "nodename"));
	const char *mach = json_string_value(json_object_get(sysinfo, "machine"));
	char key[512], *fp;
	json_t *o;
	int ret;

	snprintf(key, sizeof(key), "%s/%s", node ? node : "unknown", mach ? mach : "unknown");
	hash_uuid(key, strlen(key), "cyclictest-machine", uuid);
	o = json_pack("{s:s,s:O}", "source", "cyclictest import",
		      "uname", sysinfo ? sysinfo : json_null());
	fp = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	ret = il_store_put_machine_source(s, uuid, node ? node : "unknown", fp,
					  NULL, "cyclictest import");
	free(fp);
	return ret;
}

/*
 * One series per thread of cyclictest's "thread" object into @series
 * (256 at most), counted in *@ns so that the caller frees what was made.
 */
static int threads_series(json_t *threads, const char *path, uint64_t unit,
			  struct il_series **series, int *ns, struct attrs *a)
{
	const char *name;
	json_t *th;
	int i, ret;

	json_object_foreach(threads, name, th) {
		if (*ns == 256)
			return il_errorf(-EINVAL, "%s: more than 256 threads", path);
		ret = thread_series(th, name, unit, &series[*ns], a);
		if (ret) {
			/* il_errorf() must not format from its own buffer. */
			char why[256];

			snprintf(why, sizeof(why), "%s", il_errmsg());
			return il_errorf(ret, "%s: %s", path, why);
		}
		for (i = 0; i < *ns; i++)
			if (series[i]->cpu == series[*ns]->cpu) {
				il_series_free(series[*ns]);
				return il_errorf(-EINVAL, "%s: two threads report CPU %d; import runs with one thread per CPU (-a, -t)", path, series[i]->cpu);
			}
		(*ns)++;
	}
	return 0;
}

/* The run's parameters as JSON text: rt-tests' JSON has no parameter
 * object, so keep what it does say. */
static char *cyclictest_params(json_t *doc)
{
	json_t *params = json_object();
	char *text;

	json_object_set(params, "cmdline", get2(doc, "cmdline") ?: json_null());
	json_object_set(params, "resolution_in_ns", json_object_get(doc, "resolution_in_ns") ?: json_null());
	json_object_set(params, "num_threads", json_object_get(doc, "num_threads") ?: json_null());
	if (json_is_object(json_object_get(doc, "parameters")))
		json_object_update(params, json_object_get(doc, "parameters"));
	text = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(params);
	return text;
}

/* The run record's fields that cyclictest's JSON says (or implies). */
static void cyclictest_rec(struct il_run_rec *r, json_t *doc,
			   const char *run_uuid, const char *params_s,
			   const char *version)
{
	json_t *rc = json_object_get(doc, "return_code");

	memcpy(r->uuid, run_uuid, 37);
	r->bench = "cyclictest";
	r->params_json = params_s;
	r->placement = "cyclictest";
	r->plan_index = -1;
	r->start_ns = rt_time(json_object_get(doc, "start_time"));
	r->end_ns = rt_time(json_object_get(doc, "end_time"));
	if (r->end_ns < r->start_ns)
		r->end_ns = r->start_ns;
	r->status = il_run_status_name(!rc || json_integer_value(rc) == 0 ? IL_RUN_OK : IL_RUN_FAILED);
	r->status_reason = rc && json_integer_value(rc) ? "cyclictest returned non-zero" : NULL;
	r->tool_version = version;
	r->cmdline = json_string_value(get2(doc, "cmdline"));
}

int il_import_cyclictest(struct il_store *s, const char *path,
			 const char *machine_uuid, char run_uuid[37],
			 bool *already)
{
	struct il_series *series[256];
	struct il_run_rec r = { 0 };
	struct attrs *a = calloc(1, sizeof(*a));
	json_t *doc = NULL, *threads;
	char *buf = NULL, *params_s = NULL, version[128];
	json_error_t jerr;
	uint64_t unit;
	size_t len = 0;
	int ns = 0, i, ret;

	*already = false;
	if (!a)
		return il_errorf(-ENOMEM, "out of memory");
	ret = read_file(path, &buf, &len);
	if (ret)
		goto out;
	hash_uuid(buf, len, "cyclictest-run", run_uuid);
	doc = json_loadb(buf, len, 0, &jerr);
	if (!doc) {
		ret = il_errorf(-EINVAL, "%s:%d: not JSON: %s", path, jerr.line, jerr.text);
		goto out;
	}
	threads = json_object_get(doc, "thread");
	if (!json_is_object(threads) || !json_object_size(threads)) {
		ret = il_errorf(-EINVAL, "%s: no \"thread\" object: not cyclictest --json output", path);
		goto out;
	}
	ret = unit_ns(doc, path, &unit);
	if (ret)
		goto out;
	ret = il_store_has_run(s, run_uuid);
	if (ret < 0)
		goto out;
	if (ret) {
		ret = 0;
		*already = true;
		goto out;
	}
	ret = threads_series(threads, path, unit, series, &ns, a);
	if (ret)
		goto out;
	if (machine_uuid) {
		snprintf(r.machine_uuid, sizeof(r.machine_uuid), "%s", machine_uuid);
	} else {
		ret = put_derived_machine(s, json_object_get(doc, "sysinfo"), r.machine_uuid);
		if (ret)
			goto out;
	}
	params_s = cyclictest_params(doc);
	snprintf(version, sizeof(version), "rt-tests %s",
		 json_string_value(get2(doc, "rt_test_version")) ?: "unknown");
	cyclictest_rec(&r, doc, run_uuid, params_s, version);
	r.nseries = ns;
	r.series = series;
	attr(a, -1, "wake_source", "timer");
	attr(a, -1, "import.source", "%s", path);
	attr(a, -1, "import.note", "each cyclictest bucket [k, k+1) units placed at its midpoint; min and max are cyclictest's own when no cycle overflowed the histogram, and the mean is cyclictest's avg plus half a unit (avg averages values truncated to the unit); overflows counted as dropped (range)");
	r.nattrs = a->n;
	r.attrs = a->v;
	ret = il_store_save_run(s, &r);
out:
	for (i = 0; i < ns; i++)
		il_series_free(series[i]);
	for (i = 0; i < a->nowned; i++)
		free(a->owned[i]);
	free(a);
	json_decref(doc);
	free(params_s);
	free(buf);
	return ret;
}
