// SPDX-License-Identifier: GPL-2.0-only
/*
 * env_snapshot.c - the per-run environment snapshots and their deltas.
 * Snapshots say what moved during a run (cpuidle usage and residency,
 * interrupt counts, thermal-throttle events and APERF/MPERF per CPU; the
 * boost state);
 * one is taken before and one after every run,
 * and il_env_delta() subtracts them.
 */
#include "env_internal.h"
#include "tsc.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- snapshots ------------------------------------------------------- */

static json_t *snap_cpuidle(int cpu)
{
	char path[256], name[128], key[160];
	json_t *out, *st;
	int k;

	out = cpuidle_absent(cpu);
	if (out)
		return out;
	out = json_object();
	for (k = 0;; k++) {
#define SNAP_FILE(f) cpuidle_file(path, sizeof(path), cpu, k, f)
		if (il_fs_read(SNAP_FILE("name"), name, sizeof(name)))
			break;
		/* Names are unique in every driver we know; if not, the
		 * index keeps both. */
		snprintf(key, sizeof(key), "%s", name);
		if (!name[0] || json_object_get(out, key))
			snprintf(key, sizeof(key), "state%d", k);
		st = json_object();
		set(st, "usage", fs_u64(SNAP_FILE("usage")));
		set(st, "time_us", fs_u64(SNAP_FILE("time")));
		set(st, "above", fs_u64(SNAP_FILE("above")));
		set(st, "below", fs_u64(SNAP_FILE("below")));
#undef SNAP_FILE
		set(out, key, st);
	}
	if (!k) {
		json_decref(out);
		return unknownf("%s has no readable state0/name", path);
	}
	return out;
}

/*
 * The thermal-throttle event counters of @cpu (the therm_throt driver's
 * sysfs files): a run during which they rose ran on a CPU slowed by heat,
 * which no latency figure shows by itself (issue 22, item 9).  Unknown,
 * with the reason, where the driver is absent (AMD, VMs).
 */
static json_t *snap_thermal(int cpu)
{
	char dir[128], path[192];
	json_t *out;

	snprintf(dir, sizeof(dir), CPU_SYS "/cpu%d/thermal_throttle", cpu);
	if (!il_fs_exists(dir))
		return unknownf("no %s: no thermal-throttle counters (not an Intel CPU with the therm_throt driver, or a VM)",
				dir);
	out = json_object();
	snprintf(path, sizeof(path), "%s/core_throttle_count", dir);
	set(out, "core_throttle_count", fs_u64(path));
	snprintf(path, sizeof(path), "%s/package_throttle_count", dir);
	set(out, "package_throttle_count", fs_u64(path));
	return out;
}

/*
 * APERF (MSR 0xE8) and MPERF (MSR 0xE7) of @cpu through the msr driver:
 * their deltas over a run give its effective frequency, tsc_khz x
 * APERF / MPERF (Intel SDM vol. 3B, 15.2 "Hardware coordination feedback":
 * MPERF counts at the invariant TSC rate in C0, APERF at the actual one).
 * Unknown, with why, without root or the msr module.
 */
static json_t *snap_aperf_mperf(int cpu)
{
	uint64_t a, m;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = il_fs_open(path, O_RDONLY);
	if (fd < 0)
		return unknownf("cannot open %s (%s): APERF/MPERF need root and the msr module",
				path, strerror(-fd));
	if (pread(fd, &a, sizeof(a), 0xE8) != (ssize_t)sizeof(a) ||
	    pread(fd, &m, sizeof(m), 0xE7) != (ssize_t)sizeof(m)) {
		close(fd);
		return unknownf("%s: APERF/MPERF not readable (not an x86 CPU with them, or a VM that hides them)",
				path);
	}
	close(fd);
	/* jansson's integers are signed 64-bit: keep the counters below. */
	return json_pack("{s:I,s:I}", "aperf", (json_int_t)(a & INT64_MAX),
			 "mperf", (json_int_t)(m & INT64_MAX));
}

/* Turbo/boost as the cpufreq driver states it, or unknown with why. */
static json_t *snap_boost(void)
{
	if (il_fs_exists(CPU_SYS "/cpufreq/boost"))
		return fs_str(CPU_SYS "/cpufreq/boost");
	if (il_fs_exists(CPU_SYS "/intel_pstate/no_turbo"))
		return json_pack("{s:o}", "intel_pstate_no_turbo",
				 fs_str(CPU_SYS "/intel_pstate/no_turbo"));
	return unknownf("no " CPU_SYS "/cpufreq/boost nor intel_pstate/no_turbo: the cpufreq driver says nothing of boost");
}

/*
 * The fleet runner's own settings (fleet/): every environment
 * variable IDLELAB_FLEET_<KEY>=<value> becomes "fleet": {"<key>": "<value>"}
 * (key lower-cased) in the snapshot, so a run records how it was driven,
 * e.g. the Ansible async_status polling interval (IDLELAB_FLEET_POLL_S),
 * whose SSH sessions wake CPUs and send IPIs during the measurement.
 * Absent when no such variable is set.
 */
static void fleet_section(json_t *snap)
{
	static const char pfx[] = "IDLELAB_FLEET_";
	json_t *fleet = NULL;
	char key[64];
	const char *eq;
	size_t i, n;
	char **e;

	for (e = environ; e && *e; e++) {
		if (strncmp(*e, pfx, sizeof(pfx) - 1))
			continue;
		eq = strchr(*e, '=');
		n = eq ? (size_t)(eq - *e) - (sizeof(pfx) - 1) : 0;
		if (!eq || !n || n >= sizeof(key))
			continue;
		for (i = 0; i < n; i++)
			key[i] = tolower((unsigned char)(*e)[sizeof(pfx) - 1 + i]);
		key[n] = '\0';
		if (!fleet)
			fleet = json_object();
		set(fleet, key, jstr(eq + 1));
	}
	if (fleet)
		set(snap, "fleet", fleet);
}

json_t *il_env_snapshot(void)
{
	json_t *snap = json_object(), *cpus, *c, *global, *gov;
	char why[512], irq_why[512], key[16], *text;
	struct irq_cols ic = { 0 };
	int *list = NULL, n, i, irq_ok = 0;

	if (!snap)
		return NULL;
	set(snap, "mono_ns", json_integer((json_int_t)il_now_ns(CLOCK_MONOTONIC)));
	global = json_object();
	if (il_fs_read_all("/proc/interrupts", &text)) {
		snprintf(irq_why, sizeof(irq_why), "%s", il_errmsg());
	} else {
		irq_ok = !env_irq_parse(text, &ic, global, irq_why, sizeof(irq_why));
		free(text);
	}
	set(snap, "irq_global", irq_ok ? global : il_unknown(irq_why));
	if (!irq_ok)
		json_decref(global);

	gov = json_object();
	set(gov, "cpuidle", fs_str(CPU_SYS "/cpuidle/current_governor_ro"));
	set(snap, "governors", gov);
	set(snap, "boost", snap_boost());

	n = il_fs_online_cpus(&list);
	snprintf(why, sizeof(why), "%s", n < 0 ? il_errmsg() : "");
	if (n < 0) {
		set(snap, "cpus", il_unknown(why));
	} else {
		cpus = json_object();
		for (i = 0; i < n; i++) {
			c = json_object();
			set(c, "cpuidle", snap_cpuidle(list[i]));
			set(c, "irq", env_snap_irq(&ic, irq_ok, irq_why, list[i]));
			set(c, "thermal", snap_thermal(list[i]));
			set(c, "aperf_mperf", snap_aperf_mperf(list[i]));
			snprintf(key, sizeof(key), "%d", list[i]);
			set(cpus, key, c);
		}
		set(snap, "cpus", cpus);
	}
	env_irq_free(&ic);
	free(list);
	fleet_section(snap);
	return snap;
}

/*
 * after - before for every integer present in both, recursively; objects
 * that are {"unknown": ...} on either side are skipped, a string that
 * changed (a governor switched mid-run) becomes {"before", "after"}, and a
 * counter that went backwards (a reset) becomes unknown rather than a
 * negative or wrapped number.
 */
static json_t *diff(json_t *b, json_t *a)
{
	json_t *out, *v, *bv;
	const char *key;

	if (json_is_integer(b) && json_is_integer(a)) {
		json_int_t x = json_integer_value(b), y = json_integer_value(a);

		if (y < x)
			return unknownf("counter went backwards (%lld -> %lld)",
					(long long)x, (long long)y);
		return json_integer(y - x);
	}
	if (json_is_string(b) && json_is_string(a)) {
		if (!strcmp(json_string_value(b), json_string_value(a)))
			return NULL;
		return json_pack("{s:O,s:O}", "before", b, "after", a);
	}
	if (!json_is_object(b) || !json_is_object(a) || is_unknown(a) ||
	    is_unknown(b))
		return NULL;
	out = json_object();
	json_object_foreach(a, key, v) {
		bv = json_object_get(b, key);
		if (bv)
			set(out, key, diff(bv, v));
	}
	if (!json_object_size(out)) {
		json_decref(out);
		return NULL;
	}
	return out;
}

bool il_env_thermal_rose(json_t *cpu_delta, long long *core, long long *pkg)
{
	json_t *t = json_object_get(cpu_delta, "thermal");

	*core = json_integer_value(json_object_get(t, "core_throttle_count"));
	*pkg = json_integer_value(json_object_get(t, "package_throttle_count"));
	return *core > 0 || *pkg > 0;
}

bool il_env_effective_khz(json_t *cpu_delta, uint64_t tsc_khz, double *khz)
{
	json_t *t = json_object_get(cpu_delta, "aperf_mperf");
	json_t *a = json_object_get(t, "aperf"), *m = json_object_get(t, "mperf");

	if (!tsc_khz || !json_is_integer(a) || !json_is_integer(m) ||
	    json_integer_value(m) <= 0)
		return false;
	*khz = (double)tsc_khz * (double)json_integer_value(a) /
	       (double)json_integer_value(m);
	return true;
}

json_t *il_env_delta(json_t *before, json_t *after)
{
	json_t *d, *ns;

	if (!before || !after)
		return NULL;
	d = diff(before, after);
	if (!d)
		d = json_object();
	ns = json_object_get(d, "mono_ns");
	if (ns) {
		json_object_set(d, "elapsed_ns", ns);
		json_object_del(d, "mono_ns");
	}
	if (!json_object_get(d, "cpus"))
		set(d, "cpus", json_object());
	return d;
}
