// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_counters.c - the counters against this machine's real kernel: the
 * default set opens, software events count what we provoke on a pinned CPU,
 * hardware events without a PMU are stored with a reason instead of 0,
 * unknown names and backends are refused, the sysfs "pmu/event/" path
 * (scale, unit, package scope, globs) runs against a fixture tree, and the
 * PAPI backend stores PAPI's own reason where it cannot count.
 *
 * System-wide counting needs root; as anyone else the whole file is one
 * skipped case.  Every result is echoed as a TAP comment, so a CI log shows
 * what this machine could count and why not.
 */
#include "counters.h"
#include "err.h"
#include "tap.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int cpu0[] = { 0 };

static void dump(const struct il_counters *c)
{
	int i;

	for (i = 0; i < il_counters_nresults(c); i++) {
		const struct il_counter_result *r = il_counters_result(c, i);

		printf("#   %-28s cpu %2d %-11s %14.6g %-7s %s\n", r->event,
		       r->cpu, il_counter_status_name(r->status), r->value,
		       r->unit, r->reason);
	}
}

static const struct il_counter_result *find(const struct il_counters *c,
					    const char *event, int cpu)
{
	int i;

	for (i = 0; i < il_counters_nresults(c); i++) {
		const struct il_counter_result *r = il_counters_result(c, i);

		if (!strcmp(r->event, event) && r->cpu == cpu)
			return r;
	}
	return NULL;
}

/* Every result is a value or a reason, never an unexplained 0. */
static void check_sane(const struct il_counters *c)
{
	int i;

	for (i = 0; i < il_counters_nresults(c); i++) {
		const struct il_counter_result *r = il_counters_result(c, i);

		CHECK(r->event[0]);
		CHECK(r->unit[0]);
		if (r->status == IL_CNT_OK)
			CHECKF(isfinite(r->value) && r->value >= 0, "%s: %g",
			       r->event, r->value);
		else
			CHECKF(r->reason[0] && isnan(r->value), "%s",
			       r->event);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleep, yield and fault in fresh pages, all on CPU 0. */
static void provoke(void)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = 64 * pg, off;
	char *m;
	int i;

	for (i = 0; i < 20; i++) {
		sched_yield();
		usleep(500);
	}
	m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	for (off = 0; off < len; off += pg)
		((volatile char *)m)[off] = 1;
	munmap(m, len);
}

TEST(default_set_opens_on_cpu0)
{
	struct il_counters *c = NULL;
	int ret = il_counters_open(&c, NULL, NULL, cpu0, 1);

	CHECKF(ret == 0, "%d: %s", ret, il_errmsg());
	if (ret)
		return;
	/* 3 software + 2 hardware + msr/smi + at least one power row */
	CHECK(il_counters_nresults(c) >= 7);
	CHECK(find(c, "context-switches", 0) && find(c, "cycles", 0));
	CHECK(find(c, "msr/smi/", 0) || access(
		"/sys/bus/event_source/devices/msr/events/smi", F_OK) == 0);
	CHECK(il_counters_start(c) == 0);
	usleep(1000);
	CHECK(il_counters_stop(c) == 0);
	check_sane(c);
	CHECK(il_counters_result(c, -1) == NULL);
	CHECK(il_counters_result(c, il_counters_nresults(c)) == NULL);
	dump(c);
	il_counters_close(c);
}

TEST(software_events_count_on_pinned_cpu)
{
	const struct il_counter_result *cs, *mig, *pf;
	struct il_counters *c = NULL;
	cpu_set_t old, one;
	int ret;

	CHECK(sched_getaffinity(0, sizeof(old), &old) == 0);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	CHECK(sched_setaffinity(0, sizeof(one), &one) == 0);
	ret = il_counters_open(&c, "pfm",
			       "context-switches,cpu-migrations,page-faults",
			       cpu0, 1);
	CHECKF(ret == 0, "%d: %s", ret, il_errmsg());
	if (!ret) {
		CHECK(il_counters_start(c) == 0);
		provoke();
		CHECK(il_counters_stop(c) == 0);
		dump(c);
		cs = find(c, "context-switches", 0);
		mig = find(c, "cpu-migrations", 0);
		pf = find(c, "page-faults", 0);
		CHECK(cs && mig && pf && il_counters_nresults(c) == 3);
		if (cs && mig && pf) {
			CHECK(cs->status == IL_CNT_OK && mig->status ==
			      IL_CNT_OK && pf->status == IL_CNT_OK);
			/* 20 sleeps on CPU 0 switch to idle and back. */
			CHECKF(cs->value >= 20, "%g", cs->value);
			CHECKF(mig->value >= 0 && mig->value < 1e6, "%g",
			       mig->value);
			CHECKF(pf->value >= 64, "%g", pf->value);
			/* Software counters are never multiplexed. */
			CHECK(cs->value == floor(cs->value));
			CHECK(!strcmp(cs->unit, "count"));
			CHECK(cs->reason[0] == '\0');
		}
		il_counters_close(c);
	}
	CHECK(sched_setaffinity(0, sizeof(old), &old) == 0);
}

TEST(hardware_events_have_a_value_or_a_reason)
{
	const struct il_counter_result *r;
	struct il_counters *c = NULL;
	bool pmu = access("/sys/bus/event_source/devices/cpu", F_OK) == 0;
	int ret = il_counters_open(&c, NULL, "cycles,instructions", cpu0, 1);
	int i;

	CHECKF(ret == 0, "%d: %s", ret, il_errmsg());
	if (ret)
		return;
	CHECK(il_counters_start(c) == 0);
	for (i = 0; i < 1000000; i++)
		__asm__ volatile("" ::: "memory");
	CHECK(il_counters_stop(c) == 0);
	dump(c);
	CHECK(il_counters_nresults(c) == 2);
	for (i = 0; i < il_counters_nresults(c); i++) {
		r = il_counters_result(c, i);
		if (r->status == IL_CNT_OK) {
			CHECKF(r->value > 0, "%s: %g", r->event, r->value);
		} else {
			CHECK(r->reason[0]);
			CHECK(isnan(r->value));
		}
		/* No PMU (this workplace's VM): the source is named. */
		if (!pmu)
			CHECKF(r->status == IL_CNT_UNAVAILABLE &&
			       strstr(r->reason, "no PMU"), "%s: %s",
			       r->event, r->reason);
	}
	il_counters_close(c);
}

TEST(unknown_event_is_an_error)
{
	struct il_counters *c = (struct il_counters *)&c;
	int ret;

	il_errclear();
	ret = il_counters_open(&c, NULL, "context-switches,no_such_event_xyz",
			       cpu0, 1);
	CHECK(ret == -EINVAL);
	CHECK(c == NULL);
	CHECKF(strstr(il_errmsg(), "unknown event 'no_such_event_xyz'") &&
	       strstr(il_errmsg(), "libpfm4"), "%s", il_errmsg());
	CHECK(il_counters_open(&c, NULL, "cycles:nosuchmod", cpu0, 1) ==
	      -EINVAL);
	CHECK(il_counters_open(&c, NULL, "msr/nosuchterm=1/", cpu0, 1) ==
	      -EINVAL || access("/sys/bus/event_source/devices/msr", F_OK));
	CHECK(il_counters_open(&c, NULL, "msr//", cpu0, 1) == -EINVAL);
	CHECK(il_counters_open(&c, NULL, "../x/", cpu0, 1) == -EINVAL);
	CHECK(il_counters_open(&c, NULL, "page-faults,,cycles", cpu0, 1) ==
	      -EINVAL);
	CHECK(il_counters_open(&c, NULL, "", cpu0, 1) == -EINVAL);
	CHECK(c == NULL);
}

TEST(explicit_list_on_every_cpu)
{
	int cpus[2] = { 0, 1 }, n = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
	struct il_counters *c = NULL;
	int ret, i;

	ret = il_counters_open(&c, "pfm",
			       " perf::CONTEXT-SWITCHES , page-faults,"
			       "nosuchpmu/foo/", cpus, n);
	CHECKF(ret == 0, "%d: %s", ret, il_errmsg());
	if (ret)
		return;
	CHECK(il_counters_nresults(c) == 3 * n);
	/* Opened but never stopped: not measured, so not OK. */
	CHECK(il_counters_result(c, 0)->status != IL_CNT_OK);
	CHECK(il_counters_stop(c) == -EINVAL);
	CHECK(il_counters_start(c) == 0);
	provoke();
	CHECK(il_counters_stop(c) == 0);
	dump(c);
	for (i = 0; i < n; i++) {
		const struct il_counter_result *a, *b, *x;

		a = find(c, "perf::CONTEXT-SWITCHES", cpus[i]);
		b = find(c, "page-faults", cpus[i]);
		x = find(c, "nosuchpmu/foo/", cpus[i]);
		CHECK(a && a->status == IL_CNT_OK);
		CHECK(b && b->status == IL_CNT_OK);
		CHECK(x && x->status == IL_CNT_UNAVAILABLE &&
		      strstr(x->reason, "'nosuchpmu' event source is absent"));
	}
	/* start/stop can bracket a second run. */
	CHECK(il_counters_start(c) == 0);
	CHECK(il_counters_stop(c) == 0);
	check_sane(c);
	il_counters_close(c);

	CHECK(il_counters_open(&c, NULL, NULL, (int[]){ 0, 0 }, 2) ==
	      -EINVAL);
	CHECK(il_counters_open(&c, NULL, NULL, (int[]){ -1 }, 1) == -EINVAL);
	CHECK(il_counters_open(&c, NULL, NULL, cpu0, 0) == -EINVAL);
}

/* The msr source, where this kernel has one: tsc counts, smi may not. */
TEST(msr_source)
{
	const struct il_counter_result *r;
	struct il_counters *c = NULL;
	int ret;

	if (access("/sys/bus/event_source/devices/msr/events/tsc", F_OK)) {
		printf("# no msr/tsc here\n");
		return;
	}
	ret = il_counters_open(&c, NULL, "msr/tsc/,msr/event=0x00/,msr/smi/",
			       cpu0, 1);
	CHECKF(ret == 0, "%d: %s", ret, il_errmsg());
	if (ret)
		return;
	CHECK(il_counters_start(c) == 0);
	usleep(2000);
	CHECK(il_counters_stop(c) == 0);
	dump(c);
	r = find(c, "msr/tsc/", 0);
	CHECK(r && r->status == IL_CNT_OK && r->value > 1e5);
	r = find(c, "msr/event=0x00/", 0);
	CHECK(r && r->status == IL_CNT_OK && r->value > 1e5);
	r = find(c, "msr/smi/", 0);
	CHECK(r && (r->status == IL_CNT_OK ||
		    access("/sys/bus/event_source/devices/msr/events/smi",
			   F_OK)));
	check_sane(c);
	il_counters_close(c);
}

static void put(const char *root, const char *rel, const char *text)
{
	char p[512], *s;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fprintf(f, "%s\n", text);
		fclose(f);
	}
}

/*
 * A fake package-scope "power" source whose events are really the
 * software cpu-clock (type 1, config 0, in ns), scaled to seconds and
 * labelled Joules: the glob, .scale, .unit and cpumask paths run on a
 * machine without RAPL, against the real kernel.
 */
TEST(power_source_from_fixture)
{
	char root[] = "/tmp/cnt-fixture-XXXXXX", cmd[128];
	const struct il_counter_result *r;
	struct il_counters *c = NULL;
	const char *d = "sys/bus/event_source/devices/power";
	char rel[256];
	double t0, dt;
	int ret, n = 0, i;

	if (!mkdtemp(root)) {
		CHECK(0);
		return;
	}
#define PUT(f, t) do { snprintf(rel, sizeof(rel), "%s/" f, d); \
		       put(root, rel, t); } while (0)
	PUT("type", "1");
	PUT("cpumask", "0");
	PUT("format/event", "config:0-7");
	PUT("events/energy-pkg", "event=0x00");
	PUT("events/energy-pkg.scale", "1e-9");
	PUT("events/energy-pkg.unit", "Joules");
	PUT("events/energy-cores", "event=0x00");
	PUT("events/energy-cores.scale", "1e-9");
	PUT("events/energy-cores.unit", "Joules");
#undef PUT
	put(root, "sys/devices/system/cpu/cpu0/topology/physical_package_id",
	    "0");
	put(root, "sys/devices/system/cpu/cpu1/topology/physical_package_id",
	    "0");
	setenv("IDLELAB_SYSFS_ROOT", root, 1);

	/* Two CPUs of one package: one row, on the first measured CPU. */
	ret = il_counters_open(&c, NULL, "power/energy-*/", (int[]){ 1, 0 },
			       2);
	CHECKF(ret == 0, "%d: %s", ret, il_errmsg());
	if (!ret) {
		t0 = now_s();
		CHECK(il_counters_start(c) == 0);
		usleep(20000);
		CHECK(il_counters_stop(c) == 0);
		dt = now_s() - t0;
		dump(c);
		CHECK(il_counters_nresults(c) == 2);
		for (i = 0; i < il_counters_nresults(c); i++) {
			r = il_counters_result(c, i);
			CHECK(r->cpu == 1);
			CHECK(!strcmp(r->unit, "Joules"));
			CHECKF(r->status == IL_CNT_OK && r->value > 0.01 &&
			       r->value < dt + 0.01, "%g in %g s", r->value,
			       dt);
			CHECK(strstr(r->reason, "package 0 total, read on CPU 0"));
		}
		/* Sorted, so runs on every machine list them alike. */
		CHECK(!strcmp(il_counters_result(c, 0)->event,
			      "power/energy-cores/"));
		il_counters_close(c);
	}

	/* No power source: the default set says so, per CPU. */
	snprintf(cmd, sizeof(cmd), "%s/%s", root, d);
	snprintf(rel, sizeof(rel), "rm -rf '%s'", cmd);
	CHECK(system(rel) == 0);
	ret = il_counters_open(&c, NULL, NULL, cpu0, 1);
	CHECKF(ret == 0, "%d: %s", ret, il_errmsg());
	if (!ret) {
		r = find(c, "power/energy-*/", 0);
		CHECK(r && r->status == IL_CNT_UNAVAILABLE &&
		      strstr(r->reason, "'power' event source is absent"));
		for (i = 0; i < il_counters_nresults(c); i++)
			n += il_counters_result(c, i)->status ==
			     IL_CNT_UNAVAILABLE;
		CHECK(n >= 1);
		il_counters_close(c);
	}
	unsetenv("IDLELAB_SYSFS_ROOT");
	snprintf(rel, sizeof(rel), "rm -rf '%s'", root);
	CHECK(system(rel) == 0);
}

TEST(papi_backend)
{
	struct il_counters *c = NULL;
	int ret, i, round;

#ifndef IL_HAVE_PAPI
	ret = il_counters_open(&c, "papi", NULL, cpu0, 1);
	CHECK(ret == -ENOTSUP && strstr(il_errmsg(), "built without PAPI"));
	return;
#endif
	/* Twice: PAPI_shutdown() on close must leave PAPI re-usable. */
	for (round = 0; round < 2; round++) {
		ret = il_counters_open(&c, "papi", NULL, cpu0, 1);
		CHECKF(ret == 0, "%d: %s", ret, il_errmsg());
		if (ret)
			return;
		CHECK(il_counters_nresults(c) >= 3);
		CHECK(il_counters_start(c) == 0);
		for (i = 0; i < 1000000; i++)
			__asm__ volatile("" ::: "memory");
		CHECK(il_counters_stop(c) == 0);
		if (round == 0)
			dump(c);
		for (i = 0; i < il_counters_nresults(c); i++) {
			const struct il_counter_result *r =
				il_counters_result(c, i);

			CHECKF((r->status == IL_CNT_OK && r->value > 0) ||
			       (r->status == IL_CNT_UNSUPPORTED &&
				r->reason[0]), "%s: %s %g %s", r->event,
			       il_counter_status_name(r->status), r->value,
			       r->reason);
		}
		il_counters_close(c);
	}
	CHECK(il_counters_open(&c, "papi", "PAPI_TOT_CYC,PAPI_NO_SUCH", cpu0,
			       1) == -EINVAL);
	CHECKF(strstr(il_errmsg(), "unknown event 'PAPI_NO_SUCH'"), "%s",
	       il_errmsg());
	CHECK(c == NULL);
	/* The pfm backend still works after PAPI shut its libpfm4 down. */
	ret = il_counters_open(&c, NULL, "page-faults", cpu0, 1);
	CHECKF(ret == 0, "%d: %s", ret, il_errmsg());
	il_counters_close(c);
}

TEST(bad_backend_and_status_names)
{
	struct il_counters *c = NULL;

	CHECK(il_counters_open(&c, "perfmon", NULL, cpu0, 1) == -EINVAL);
	CHECK(strstr(il_errmsg(), "'perfmon'") != NULL);
	CHECK(c == NULL);
	CHECK(il_counters_open(NULL, NULL, NULL, cpu0, 1) == -EINVAL);
	CHECK(!strcmp(il_counter_status_name(IL_CNT_OK), "ok"));
	CHECK(!strcmp(il_counter_status_name(IL_CNT_UNSUPPORTED),
		      "unsupported"));
	CHECK(!strcmp(il_counter_status_name(IL_CNT_UNAVAILABLE),
		      "unavailable"));
	CHECK(il_counters_nresults(NULL) == 0);
	il_counters_close(NULL);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("ok 1 - counters # SKIP not root\n1..1\n");
		return 0;
	}
	RUN(default_set_opens_on_cpu0);
	RUN(software_events_count_on_pinned_cpu);
	RUN(hardware_events_have_a_value_or_a_reason);
	RUN(unknown_event_is_an_error);
	RUN(explicit_list_on_every_cpu);
	RUN(msr_source);
	RUN(power_source_from_fixture);
	RUN(papi_backend);
	RUN(bad_backend_and_status_names);
	return tap_done();
}
