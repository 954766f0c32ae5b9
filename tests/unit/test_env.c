// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_env.c - the fingerprint against fixture trees, the sysfs.h
 * accessors, the UUIDs and the TSC calibration (snapshots and their deltas
 * are in test_env_snapshot.c).
 *
 * IDLELAB_SYSFS_ROOT points at tests/fixtures/sysfs-intel (a 4-CPU
 * intel_idle machine) or tests/fixtures/sysfs-empty (nothing at all), so
 * the tests run with the repository root as the working directory, as
 * tests/run.sh does.  Tests that change counters work on a copy in /tmp.
 */
#include "env.h"
#include "env_fixture.h"
#include "err.h"
#include "sysfs.h"
#include "tap.h"
#include "topo.h"
#include "tsc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

TEST(unknown_json)
{
	json_t *u = il_unknown("no such file");

	CHECK(!strcmp(jstrv(u, "unknown"), "no such file"));
	CHECK(json_object_size(u) == 1);
	json_decref(u);
	u = il_unknown(NULL);
	CHECK(json_string_value(json_object_get(u, "unknown"))[0] != '\0');
	json_decref(u);
	u = il_unknown("");
	CHECK(json_string_value(json_object_get(u, "unknown"))[0] != '\0');
	json_decref(u);
}

TEST(sysfs_accessors)
{
	char tmp[] = "/tmp/idlelab-fs-XXXXXX", buf[256], small[8];
	uint64_t v = 0;
	int32_t qos = 0;
	char *all = NULL;
	int fd;

	setenv("IDLELAB_SYSFS_ROOT", INTEL, 1);
	CHECK(!strcmp(il_fs_path("/proc/cmdline", buf, sizeof(buf)),
		      INTEL "/proc/cmdline"));
	CHECK(!strcmp(il_fs_path("relative/x", buf, sizeof(buf)), "relative/x"));
	CHECK(il_fs_read("/sys/devices/system/cpu/cpuidle/current_driver", buf,
			 sizeof(buf)) == 0);
	CHECK(!strcmp(buf, "intel_idle"));
	CHECK(il_fs_read_u64("/sys/devices/system/cpu/cpu0/cpuidle/state3/latency",
			     &v) == 0 && v == 133);
	CHECK(il_fs_read_u64("/sys/devices/system/cpu/cpu0/cpuidle/state3/name",
			     &v) == -EINVAL);
	CHECK(strstr(il_errmsg(), INTEL "/sys/devices/system/cpu/cpu0/cpuidle/state3/name"));
	CHECK(strstr(il_errmsg(), "'C6'"));
	CHECK(il_fs_read("/sys/nonexistent", buf, sizeof(buf)) == -ENOENT);
	CHECK(strstr(il_errmsg(), INTEL "/sys/nonexistent") != NULL);
	CHECK(il_fs_read("/proc/cmdline", small, sizeof(small)) == -EOVERFLOW);
	/* "intel_idle" + NUL fits 11 bytes exactly: not an overflow. */
	CHECK(il_fs_read("/sys/devices/system/cpu/cpuidle/current_driver", buf,
			 11) == 0 && !strcmp(buf, "intel_idle"));
	CHECK(il_fs_read("/sys/devices/system/cpu/cpuidle/current_driver", buf,
			 10) == -EOVERFLOW);
	CHECK(il_fs_read_all("/proc/interrupts", &all) == 0);
	CHECK(all && !strncmp(all, "           CPU0", 15) &&
	      strstr(all, "PIW:") != NULL);
	free(all);
	CHECK(il_fs_read_all("/proc/nope", &all) == -ENOENT && !all);
	CHECK(il_fs_read_bin("/dev/cpu_dma_latency", &qos, sizeof(qos)) == 4);
	CHECK(qos == 20);
	CHECK(il_fs_open("/dev/nope", O_RDONLY) == -ENOENT);
	fd = il_fs_open("/proc/cmdline", O_RDONLY);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);

	/* Writes, on a copy. */
	CHECK(mkdtemp(tmp) != NULL);
	copy_tree(INTEL, tmp);
	setenv("IDLELAB_SYSFS_ROOT", tmp, 1);
	CHECK(il_fs_write("/sys/devices/system/cpu/cpu1/cpuidle/state2/disable",
			  "1") == 0);
	CHECK(il_fs_read_u64("/sys/devices/system/cpu/cpu1/cpuidle/state2/disable",
			     &v) == 0 && v == 1);
	CHECK(il_fs_write("/sys/no/such/file", "1") == -ENOENT);
	CHECK(strstr(il_errmsg(), "/sys/no/such/file") != NULL);
	rm_tree(tmp);

	/* No root: paths are themselves. */
	unsetenv("IDLELAB_SYSFS_ROOT");
	CHECK(!strcmp(il_fs_path("/proc/cmdline", buf, sizeof(buf)),
		      "/proc/cmdline"));
	setenv("IDLELAB_SYSFS_ROOT", "", 1);
	CHECK(!strcmp(il_fs_path("/proc/cmdline", buf, sizeof(buf)),
		      "/proc/cmdline"));
	unsetenv("IDLELAB_SYSFS_ROOT");
}

TEST(fingerprint_fixture)
{
	static const struct {
		const char *name, *desc;
		int lat, res;
	} st[] = {
		{ "POLL", "CPUIDLE CORE POLL IDLE", 0, 0 },
		{ "C1", "MWAIT 0x00", 2, 2 },
		{ "C1E", "MWAIT 0x01", 10, 20 },
		{ "C6", "MWAIT 0x20", 133, 600 },
	};
	json_t *fp, *states, *s, *flags;
	struct il_topo *t = NULL;
	size_t i;
	int has_ctsc = 0;

	setenv("IDLELAB_SYSFS_ROOT", INTEL, 1);
	CHECK(il_topo_open(&t) == 0);
	fp = il_fingerprint(t);
	unsetenv("IDLELAB_SYSFS_ROOT");
	CHECK(fp != NULL);
	if (!fp)
		goto out;
	CHECK(!strcmp(jstrv(fp, "cpuidle.driver"), "intel_idle"));
	CHECK(!strcmp(jstrv(fp, "cpuidle.governor"), "menu"));
	states = jget(fp, "cpuidle.states");
	CHECK(json_is_array(states) && json_array_size(states) == 4);
	for (i = 0; json_is_array(states) && i < json_array_size(states) &&
		    i < 4; i++) {
		s = json_array_get(states, i);
		CHECKF(!strcmp(jstrv(s, "name"), st[i].name), "state %zu name %s",
		       i, jstrv(s, "name"));
		CHECK(!strcmp(jstrv(s, "desc"), st[i].desc));
		CHECK(jint(s, "latency_us") == st[i].lat);
		CHECK(jint(s, "residency_us") == st[i].res);
		CHECK(json_is_false(jget(s, "disabled")));
		CHECK(jint(s, "index") == (long long)i);
	}
	CHECK(!strcmp(jstrv(fp, "cpufreq.driver"), "intel_pstate"));
	CHECK(!strcmp(jstrv(fp, "cpufreq.governor"), "powersave"));
	CHECK(jint(fp, "cpufreq.min_khz") == 1000000);
	CHECK(jint(fp, "cpufreq.max_khz") == 3900000);
	CHECK(jint(fp, "cpufreq.scaling_min_khz") == 1000000);
	CHECK(jint(fp, "cpufreq.scaling_max_khz") == 3900000);
	CHECK(!strcmp(jstrv(fp, "smt.control"), "on"));
	CHECK(jint(fp, "smt.active") == 1);
	CHECK(!strcmp(jstrv(fp, "cpus.online"), "0-3"));
	CHECK(!strcmp(jstrv(fp, "cpus.possible"), "0-3"));
	CHECK(jint(fp, "cpus.count") == 4);
	CHECK(!strcmp(jstrv(fp, "kernel.clocksource"), "tsc"));
	CHECK(!strcmp(jstrv(fp, "kernel.clocksources_available"),
		      "tsc hpet acpi_pm"));
	CHECK(!strcmp(jstrv(fp, "kernel.cmdline"),
		      "BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 root=UUID=6f1c2b7e-0d4a-4a55-9a1e-3c2f8e5b9d10 ro quiet intel_idle.max_cstate=6"));
	CHECK(!strcmp(jstrv(fp, "cpu.microcode"), "0x5003604"));
	flags = jget(fp, "tsc.flags");
	CHECK(json_is_array(flags));
	json_array_foreach(flags, i, s)
		has_ctsc |= !strcmp(json_string_value(s), "constant_tsc");
	CHECK(has_ctsc);
	CHECK(json_is_true(jget(fp, "tsc.constant")));
	CHECK(json_is_true(jget(fp, "tsc.nonstop")));
	CHECK(json_is_true(jget(fp, "apic.x2apic")));
	/* The 6.1 form of the routing line, trailing period dropped. */
	CHECK(!strcmp(jstrv(fp, "apic.driver"), "cluster x2apic"));
	CHECK(!strcmp(jstrv(fp, "apic.driver_source"), "kernel log"));
	CHECK(jint(fp, "pm_qos_us") == 20);
	/* The real machine's parts are there and well-formed. */
	CHECK(json_is_string(jget(fp, "cpu.vendor")));
	CHECK(json_is_string(jget(fp, "hostname")));
	CHECK(json_is_string(jget(fp, "kernel.release")));
	CHECK(jint(fp, "tsc.khz_measured") > 0);
	CHECK(json_is_object(jget(fp, "numa")));
	walk(fp, "fp");
out:
	json_decref(fp);
	il_topo_close(t);
}

/* A Xen PV dom0 names its hypervisor and version in /sys/hypervisor. */
TEST(fingerprint_xen)
{
	json_t *fp;

	setenv("IDLELAB_SYSFS_ROOT", XEN, 1);
	fp = il_fingerprint(NULL);
	unsetenv("IDLELAB_SYSFS_ROOT");
	CHECK(fp != NULL);
	if (!fp)
		return;
	CHECK(!strcmp(jstrv(fp, "hypervisor.type"), "xen"));
	CHECK(!strcmp(jstrv(fp, "hypervisor.guest_type"), "PV"));
	CHECKF(!strcmp(jstrv(fp, "hypervisor.version"), "4.17.7"),
	       "version %s", jstrv(fp, "hypervisor.version"));
	json_decref(fp);
}

TEST(fingerprint_empty_tree)
{
	static const char *const must_be_unknown[] = {
		"cpuidle.driver", "cpuidle.governor", "cpuidle.states",
		"cpufreq.driver", "cpufreq.governor", "cpufreq.min_khz",
		"cpufreq.max_khz", "smt.control", "smt.active", "cpus.online",
		"cpus.possible", "cpus.count", "kernel.cmdline",
		"kernel.clocksource", "cpu.microcode", "tsc.flags",
		"tsc.constant", "tsc.nonstop", "apic.x2apic", "apic.driver",
		"pm_qos_us", "hypervisor.type",
	};
	json_t *fp;
	size_t i;
	int n;

	setenv("IDLELAB_SYSFS_ROOT", EMPTY, 1);
	fp = il_fingerprint(NULL);
	unsetenv("IDLELAB_SYSFS_ROOT");
	CHECK(fp != NULL);
	if (!fp)
		return;
	for (i = 0; i < sizeof(must_be_unknown) / sizeof(*must_be_unknown); i++)
		CHECKF(is_unknown_at(fp, must_be_unknown[i]),
		       "%s is not {\"unknown\": reason}", must_be_unknown[i]);
	CHECK(strstr(jstrv(fp, "cpuidle.driver.unknown"), "cpuidle") != NULL);
	CHECK(strstr(jstrv(fp, "kernel.cmdline.unknown"), EMPTY "/proc/cmdline"));
	n = walk(fp, "fp");
	CHECKF(n >= (int)(sizeof(must_be_unknown) / sizeof(*must_be_unknown)),
	       "only %d unknowns", n);
	json_decref(fp);
}

TEST(fingerprint_real_machine)
{
	struct il_topo *t = NULL;
	struct utsname u;
	json_t *fp;
	char *s;

	CHECK(il_topo_open(&t) == 0);
	fp = il_fingerprint(t);
	CHECK(fp != NULL);
	if (!fp)
		goto out;
	uname(&u);
	CHECK(!strcmp(jstrv(fp, "kernel.release"), u.release));
	CHECK(json_is_string(jget(fp, "cpu.vendor")));
	CHECK(json_is_integer(jget(fp, "cpu.family")));
	CHECK(jint(fp, "cpus.count") == il_topo_ncpus_online(t) ||
	      json_is_string(jget(fp, "cpus.allowed")));
	walk(fp, "fp");
	s = json_dumps(jget(fp, "cpu"), JSON_COMPACT | JSON_SORT_KEYS);
	printf("# cpu: %s\n", s);
	free(s);
	s = json_dumps(jget(fp, "apic"), JSON_COMPACT | JSON_SORT_KEYS);
	printf("# apic: %s\n", s);
	free(s);
	printf("# tsc khz: %lld, cpuidle driver: %s\n",
	       jint(fp, "tsc.khz_measured"),
	       json_is_string(jget(fp, "cpuidle.driver")) ?
	       jstrv(fp, "cpuidle.driver") : "unknown");
out:
	json_decref(fp);
	il_topo_close(t);
}

static int uuid_v4_ok(const char *u)
{
	return il_uuid_valid(u) && u[14] == '4' && strchr("89ab", u[19]) &&
	       strspn(u, "0123456789abcdef-") == 36;
}

TEST(uuid_v4_format)
{
	char u[100][37];
	int i, j, ok = 1, distinct = 1;

	for (i = 0; i < 100; i++) {
		il_uuid_v4(u[i]);
		ok &= uuid_v4_ok(u[i]);
		for (j = 0; j < i; j++)
			distinct &= strcmp(u[i], u[j]) != 0;
	}
	CHECKF(ok, "bad uuid, e.g. %s", u[0]);
	CHECK(distinct);
	CHECK(il_uuid_valid("123e4567-e89b-12d3-a456-426614174000"));
	CHECK(il_uuid_valid("123E4567-E89B-12D3-A456-426614174000"));
	CHECK(!il_uuid_valid("123e4567e89b12d3a456426614174000"));
	CHECK(!il_uuid_valid("123e4567-e89b-12d3-a456-42661417400"));
	CHECK(!il_uuid_valid("123e4567-e89b-12d3-a456-4266141740000"));
	CHECK(!il_uuid_valid("g23e4567-e89b-12d3-a456-426614174000"));
	CHECK(!il_uuid_valid(NULL));
}

/* A usable /etc/machine-id: 32 hex digits, not all zero. */
static bool have_machine_id(void)
{
	char buf[64] = "";
	FILE *f = fopen("/etc/machine-id", "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, sizeof(buf), f) && strspn(buf, "0123456789abcdefABCDEF") >= 32 &&
	     strspn(buf, "0") < 32;
	fclose(f);
	return ok;
}

/* A host's UUID: random (version 4), or from its machine ID (8). */
static int host_uuid_ok(const char *u, bool from_id)
{
	return from_id ? il_uuid_valid(u) && u[14] == '8' && strchr("89ab", u[19]) :
			 uuid_v4_ok(u);
}

TEST(host_uuid_persistence)
{
	char tmp[] = "/tmp/idlelab-state-XXXXXX", dir[200], path[300], bad[400];
	char u1[37], u2[37], u3[37], ondisk[64] = "";
	bool id = have_machine_id();
	FILE *f;

	printf("# /etc/machine-id %s: the host UUID is %s\n", id ? "present" : "absent",
	       id ? "derived from it (version 8)" : "random (version 4)");
	CHECK(mkdtemp(tmp) != NULL);
	snprintf(dir, sizeof(dir), "%s/nested/state", tmp);
	setenv("IDLELAB_STATE_DIR", dir, 1);
	CHECK(il_host_uuid(u1) == 0);
	CHECK(il_host_uuid(u2) == 0);
	CHECK(host_uuid_ok(u1, id));
	CHECK(!strcmp(u1, u2));
	snprintf(path, sizeof(path), "%s/host-uuid", dir);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (f) {
		CHECK(fgets(ondisk, sizeof(ondisk), f) != NULL);
		fclose(f);
	}
	CHECK(!strncmp(ondisk, u1, 36) && ondisk[36] == '\n');

	/* Another state directory: the same host where the machine ID says
	 * so (issue 20, defect 8), else another random identity. */
	snprintf(dir, sizeof(dir), "%s/other", tmp);
	setenv("IDLELAB_STATE_DIR", dir, 1);
	CHECK(il_host_uuid(u3) == 0 && host_uuid_ok(u3, id));
	CHECK(id ? !strcmp(u1, u3) : strcmp(u1, u3) != 0);

	/* A host-uuid file already there wins over the machine ID, so an
	 * identity stored before keeps the host's history together. */
	snprintf(dir, sizeof(dir), "%s/kept", tmp);
	CHECK(il_mkdir_p(dir) == 0);
	snprintf(path, sizeof(path), "%s/host-uuid", dir);
	f = fopen(path, "w");
	if (f) {
		fputs("123e4567-e89b-42d3-a456-426614174000\n", f);
		fclose(f);
	}
	setenv("IDLELAB_STATE_DIR", dir, 1);
	CHECK(il_host_uuid(u3) == 0 && !strcmp(u3, "123e4567-e89b-42d3-a456-426614174000"));
	snprintf(dir, sizeof(dir), "%s/other", tmp);
	setenv("IDLELAB_STATE_DIR", dir, 1);

	/* A damaged file is refused, not replaced. */
	snprintf(path, sizeof(path), "%s/host-uuid", dir);
	f = fopen(path, "w");
	if (f) {
		fputs("not-a-uuid\n", f);
		fclose(f);
	}
	CHECK(il_host_uuid(u2) == -EINVAL);
	CHECK(strstr(il_errmsg(), path) != NULL);

	/* An unwritable directory (under a regular file): a UUID in memory,
	 * the same one for the rest of the process. */
	snprintf(path, sizeof(path), "%s/other/host-uuid", tmp);
	snprintf(bad, sizeof(bad), "%s/below", path);
	setenv("IDLELAB_STATE_DIR", bad, 1);
	CHECK(il_host_uuid(u1) == 0 && host_uuid_ok(u1, id));
	CHECK(il_host_uuid(u2) == 0 && !strcmp(u1, u2));
	unsetenv("IDLELAB_STATE_DIR");
	rm_tree(tmp);
}

TEST(tsc_calibration)
{
	uint64_t khz = il_tsc_khz(), c0, c1, t0, t1, ns;
	struct timespec ts = { 0, 50000000 };
	double ratio;

	CHECK(khz > 0);
	CHECK(il_tsc_khz() == khz);	/* measured once */
	CHECK(il_tsc_to_ns(khz * 1000) == 1000000000ull);
	CHECK(il_tsc_to_ns(0) == 0);
	/* Huge deltas do not overflow: ten hours of ticks. */
	CHECK(il_tsc_to_ns(khz * 1000 * 36000) == 36000000000000ull);
	t0 = il_now_ns(CLOCK_MONOTONIC_RAW);
	c0 = il_rdtsc_ordered();
	nanosleep(&ts, NULL);
	c1 = il_rdtsc_ordered();
	t1 = il_now_ns(CLOCK_MONOTONIC_RAW);
	ns = il_tsc_to_ns(c1 - c0);
	ratio = (double)ns / (double)(t1 - t0);
	CHECKF(ratio > 0.95 && ratio < 1.05, "TSC ns / clock ns = %f", ratio);
}

int main(void)
{
	RUN(unknown_json);
	RUN(sysfs_accessors);
	RUN(fingerprint_fixture);
	RUN(fingerprint_xen);
	RUN(fingerprint_empty_tree);
	RUN(fingerprint_real_machine);
	RUN(uuid_v4_format);
	RUN(host_uuid_persistence);
	RUN(tsc_calibration);
	return tap_done();
}
