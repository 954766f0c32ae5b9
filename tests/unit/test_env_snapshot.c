// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_env_snapshot.c - environment snapshots and their deltas against the
 * fixture trees, and the /proc/interrupts columns matched by CPU name
 * (split from test_env.c, which keeps the fingerprint, the sysfs
 * accessors, the UUIDs and the TSC).
 *
 * IDLELAB_SYSFS_ROOT points at a fixture tree (env_fixture.h), so the
 * tests run with the repository root as the working directory, as
 * tests/run.sh does.  Tests that change counters work on a copy in /tmp.
 */
#include "env.h"
#include "env_fixture.h"
#include "err.h"
#include "sysfs.h"
#include "tap.h"
#include "topo.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TEST(snapshot_fixture)
{
	json_t *s;

	setenv("IDLELAB_SYSFS_ROOT", INTEL, 1);
	s = il_env_snapshot();
	unsetenv("IDLELAB_SYSFS_ROOT");
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(json_object_size(jget(s, "cpus")) == 4);
	CHECK(jint(s, "cpus.0.cpuidle.C6.usage") == 433201);
	CHECK(jint(s, "cpus.0.cpuidle.C6.time_us") == 5123456789ll);
	CHECK(jint(s, "cpus.0.cpuidle.C6.above") == 1201);
	CHECK(jint(s, "cpus.3.cpuidle.POLL.usage") == 7734);
	CHECK(jint(s, "cpus.2.cpuidle.C1E.below") == 133021);
	/* /proc/interrupts: named lines kept, device lines summed. */
	CHECK(jint(s, "cpus.0.irq.LOC") == 4120334);
	CHECK(jint(s, "cpus.3.irq.LOC") == 3887221);
	CHECK(jint(s, "cpus.1.irq.RES") == 120334);
	CHECK(jint(s, "cpus.2.irq.CAL") == 21003);
	CHECK(jint(s, "cpus.3.irq.TLB") == 3890);
	CHECK(jint(s, "cpus.0.irq.NMI") == 212);
	CHECK(jint(s, "cpus.0.irq.IWI") == 3);
	CHECK(jint(s, "cpus.0.irq.devices") == 31 + 12034);
	CHECK(jint(s, "cpus.0.irq.total") == 4260110);
	/* Thermal-throttle counters per CPU, the boost state (issue 22). */
	CHECK(jint(s, "cpus.2.thermal.core_throttle_count") == 20);
	CHECK(jint(s, "cpus.3.thermal.package_throttle_count") == 7);
	CHECK(json_is_string(jget(s, "boost.intel_pstate_no_turbo")));
	CHECK(jint(s, "cpus.1.irq.total") == 4230891);
	CHECK(jget(s, "cpus.0.irq.ERR") == NULL);
	CHECK(jint(s, "irq_global.ERR") == 0 && jint(s, "irq_global.MIS") == 0);
	CHECK(!strcmp(jstrv(s, "governors.cpuidle"), "menu"));
	CHECK(json_is_integer(jget(s, "mono_ns")));
	/* Known, but for APERF/MPERF of each of the 4 CPUs: no file tree
	 * holds the msr device, and it says why. */
	CHECK(is_unknown_at(s, "cpus.0.aperf_mperf"));
	CHECK(walk(s, "snap") == 4);
	json_decref(s);

	/* The empty tree: every part unknown, with its reason. */
	setenv("IDLELAB_SYSFS_ROOT", EMPTY, 1);
	s = il_env_snapshot();
	unsetenv("IDLELAB_SYSFS_ROOT");
	CHECK(is_unknown_at(s, "cpus"));
	CHECK(is_unknown_at(s, "irq_global"));
	CHECK(is_unknown_at(s, "governors.cpuidle"));
	CHECK(is_unknown_at(s, "boost"));
	walk(s, "snap");
	json_decref(s);
}

TEST(snapshot_delta)
{
	char tmp[] = "/tmp/idlelab-snap-XXXXXX";
	json_t *a, *b, *c, *d;

	CHECK(mkdtemp(tmp) != NULL);
	copy_tree(INTEL, tmp);
	setenv("IDLELAB_SYSFS_ROOT", tmp, 1);
	a = il_env_snapshot();
	/* A run: cpu2 enters C6 17 more times for 12345 us, cpu1 takes 100
	 * timer interrupts and cpu3 five NIC interrupts. */
	CHECK(il_fs_write("/sys/devices/system/cpu/cpu2/cpuidle/state3/usage",
			  "601240\n") == 0);
	CHECK(il_fs_write("/sys/devices/system/cpu/cpu2/cpuidle/state3/time",
			  "6012346901\n") == 0);
	edit_file("/proc/interrupts", "4120334    3998012", "4120334    3998112");
	edit_file("/proc/interrupts", "69331   IR-PCI", "69336   IR-PCI");
	/* cpu1 throttled 3 times for heat during the run, cpu0 not. */
	CHECK(il_fs_write("/sys/devices/system/cpu/cpu1/thermal_throttle/core_throttle_count",
			  "13\n") == 0);
	b = il_env_snapshot();
	d = il_env_delta(a, b);
	CHECK(d != NULL);
	{
		long long core, pkg;

		CHECK(il_env_thermal_rose(jget(d, "cpus.1"), &core, &pkg) &&
		      core == 3 && pkg == 0);
		CHECK(!il_env_thermal_rose(jget(d, "cpus.0"), &core, &pkg));
	}
	{
		/* APERF/MPERF: 2.4e9 actual cycles in 2e9 reference ones at
		 * a 2 GHz TSC is 2.4 GHz (issue 22).  A file tree cannot
		 * hold the msr device (its offsets are register numbers, 8
		 * bytes each, overlapping), so the delta is written here. */
		json_t *c0 = json_pack("{s:{s:I,s:I}}", "aperf_mperf",
				       "aperf", (json_int_t)2400000000LL,
				       "mperf", (json_int_t)2000000000LL);
		double khz = 0;

		CHECKF(il_env_effective_khz(c0, 2000000, &khz) &&
		       khz > 2399999 && khz < 2400001, "khz %g", khz);
		CHECK(!il_env_effective_khz(c0, 0, &khz));
		/* Unreadable here: no entry in the delta, no frequency. */
		CHECK(!il_env_effective_khz(jget(d, "cpus.1"), 2000000, &khz));
		CHECK(jget(d, "cpus.1.aperf_mperf") == NULL);
		json_decref(c0);
	}
	CHECK(jint(d, "cpus.2.cpuidle.C6.usage") == 17);
	CHECK(jint(d, "cpus.2.cpuidle.C6.time_us") == 12345);
	CHECK(jint(d, "cpus.2.cpuidle.C1.usage") == 0);
	CHECK(jint(d, "cpus.0.cpuidle.C6.usage") == 0);
	CHECK(jint(d, "cpus.1.irq.LOC") == 100);
	CHECK(jint(d, "cpus.1.irq.total") == 100);
	CHECK(jint(d, "cpus.1.irq.devices") == 0);
	CHECK(jint(d, "cpus.3.irq.devices") == 5);
	CHECK(jint(d, "cpus.3.irq.total") == 5);
	CHECK(jint(d, "cpus.0.irq.total") == 0);
	CHECK(jint(d, "elapsed_ns") >= 0);
	CHECK(jget(d, "mono_ns") == NULL);
	CHECK(jget(d, "governors") == NULL);	/* unchanged strings drop out */
	json_decref(d);

	/* A governor switch shows; a counter that went backwards is unknown,
	 * never negative; a counter unreadable afterwards is left out. */
	CHECK(il_fs_write("/sys/devices/system/cpu/cpuidle/current_governor_ro",
			  "teo\n") == 0);
	CHECK(il_fs_write("/sys/devices/system/cpu/cpu0/cpuidle/state1/usage",
			  "5\n") == 0);
	CHECK(il_fs_write("/sys/devices/system/cpu/cpu3/cpuidle/state0/time",
			  "garbage\n") == 0);
	c = il_env_snapshot();
	d = il_env_delta(b, c);
	CHECK(!strcmp(jstrv(d, "governors.cpuidle.before"), "menu"));
	CHECK(!strcmp(jstrv(d, "governors.cpuidle.after"), "teo"));
	CHECK(is_unknown_at(d, "cpus.0.cpuidle.C1.usage"));
	CHECK(strstr(jstrv(d, "cpus.0.cpuidle.C1.usage.unknown"), "backwards"));
	CHECK(is_unknown_at(c, "cpus.3.cpuidle.POLL.time_us"));
	CHECK(jget(d, "cpus.3.cpuidle.POLL.time_us") == NULL);
	CHECK(jint(d, "cpus.3.cpuidle.POLL.usage") == 0);
	json_decref(d);
	CHECK(il_env_delta(NULL, c) == NULL);
	CHECK(il_env_delta(a, NULL) == NULL);
	json_decref(a);
	json_decref(b);
	json_decref(c);
	unsetenv("IDLELAB_SYSFS_ROOT");
	rm_tree(tmp);
}

/* Columns are matched by CPU name: an offline CPU has none. */
TEST(interrupts_columns)
{
	char tmp[] = "/tmp/idlelab-irq-XXXXXX";
	json_t *s;

	CHECK(mkdtemp(tmp) != NULL);
	write_file(tmp, "sys/devices/system/cpu/online", "0,2-3\n");
	write_file(tmp, "proc/interrupts",
		   "           CPU0       CPU2       \n"
		   "  1:          7         11   IO-APIC   1-edge      i8042\n"
		   " 12:          1          2   IO-APIC  12-edge      i8042\n"
		   "NMI:          3          4   Non-maskable interrupts\n"
		   "LOC:        100        200   Local timer interrupts\n"
		   "ERR:          9\n");
	setenv("IDLELAB_SYSFS_ROOT", tmp, 1);
	s = il_env_snapshot();
	unsetenv("IDLELAB_SYSFS_ROOT");
	CHECK(jint(s, "cpus.0.irq.LOC") == 100);
	CHECK(jint(s, "cpus.2.irq.LOC") == 200);
	CHECK(jint(s, "cpus.2.irq.NMI") == 4);
	CHECK(jint(s, "cpus.2.irq.devices") == 13);
	CHECK(jint(s, "cpus.2.irq.total") == 217);
	CHECK(jint(s, "irq_global.ERR") == 9);
	CHECK(is_unknown_at(s, "cpus.3.irq"));
	CHECK(strstr(jstrv(s, "cpus.3.irq.unknown"), "no column"));
	CHECK(is_unknown_at(s, "cpus.0.cpuidle"));
	CHECK(jget(s, "cpus.1") == NULL);
	walk(s, "snap");
	json_decref(s);

	/* A malformed header is unknown, not a crash or zeros. */
	write_file(tmp, "proc/interrupts", "garbage header\nLOC: 1 2\n");
	setenv("IDLELAB_SYSFS_ROOT", tmp, 1);
	s = il_env_snapshot();
	unsetenv("IDLELAB_SYSFS_ROOT");
	CHECK(is_unknown_at(s, "cpus.0.irq"));
	CHECK(is_unknown_at(s, "irq_global"));
	json_decref(s);
	rm_tree(tmp);
}

/*
 * Issue 22, item 9a: the APERF/MPERF read path itself.  The msr driver
 * reads MSR N at file offset N, and il_fs_open() honours the fixture
 * root, so a regular file in the tree stands in for /dev/cpu/0/msr: the
 * snapshot must open it and pread 8 bytes at 0xE8 (APERF) and at 0xE7
 * (MPERF), which overlap in a file as they do not in the driver; a file
 * too short for them is "not readable", with why.
 */
TEST(aperf_mperf_read_path)
{
	char tmp[] = "/tmp/idlelab-msr-XXXXXX", path[256];
	uint8_t buf[0x100] = { 0 };
	uint64_t aperf = 0x0000123456789abcULL, mperf;
	json_t *s;
	FILE *f;
	int i;

	CHECK(mkdtemp(tmp) != NULL);
	copy_tree(INTEL, tmp);
	write_file(tmp, "dev/cpu/0/msr", "");
	write_file(tmp, "dev/cpu/1/msr", "too short");
	buf[0xE7] = 0x42;
	for (i = 0; i < 8; i++)
		buf[0xE8 + i] = (uint8_t)(aperf >> (8 * i));
	mperf = 0x42 | (aperf << 8);
	snprintf(path, sizeof(path), "%s/dev/cpu/0/msr", tmp);
	f = fopen(path, "w");
	CHECK(f && fwrite(buf, 1, sizeof(buf), f) == sizeof(buf));
	if (f)
		fclose(f);
	setenv("IDLELAB_SYSFS_ROOT", tmp, 1);
	s = il_env_snapshot();
	unsetenv("IDLELAB_SYSFS_ROOT");
	CHECKF(jint(s, "cpus.0.aperf_mperf.aperf") == (int64_t)aperf,
	       "aperf %lld", jint(s, "cpus.0.aperf_mperf.aperf"));
	CHECKF(jint(s, "cpus.0.aperf_mperf.mperf") == (int64_t)(mperf & INT64_MAX),
	       "mperf %lld", jint(s, "cpus.0.aperf_mperf.mperf"));
	CHECK(is_unknown_at(s, "cpus.1.aperf_mperf"));
	CHECK(jstrv(s, "cpus.1.aperf_mperf.unknown") &&
	      strstr(jstrv(s, "cpus.1.aperf_mperf.unknown"), "not readable"));
	CHECK(is_unknown_at(s, "cpus.2.aperf_mperf"));
	CHECK(jstrv(s, "cpus.2.aperf_mperf.unknown") &&
	      strstr(jstrv(s, "cpus.2.aperf_mperf.unknown"), "cannot open"));
	json_decref(s);
	rm_tree(tmp);
}

/*
 * The same on this machine's own msr driver, where it has one readable
 * (root, CONFIG_X86_MSR): both counters read, and APERF and MPERF move
 * forward between two snapshots with work in between.  Elsewhere it says
 * why it did not run.
 */
TEST(aperf_mperf_real_msr)
{
	volatile uint64_t spin = 0;
	int64_t a0, m0, a1, m1;
	json_t *s, *t;
	uint64_t k;

	if (access("/dev/cpu/0/msr", R_OK)) {
		printf("# aperf_mperf_real_msr: not run: /dev/cpu/0/msr: %s (needs the msr driver, CONFIG_X86_MSR or modprobe msr, and root)\n",
		       strerror(errno));
		return;
	}
	s = il_env_snapshot();
	for (k = 0; k < 50000000; k++)
		spin += k;
	t = il_env_snapshot();
	a0 = jint(s, "cpus.0.aperf_mperf.aperf");
	m0 = jint(s, "cpus.0.aperf_mperf.mperf");
	a1 = jint(t, "cpus.0.aperf_mperf.aperf");
	m1 = jint(t, "cpus.0.aperf_mperf.mperf");
	if (is_unknown_at(s, "cpus.0.aperf_mperf"))
		/* A VM may expose the device but refuse these two MSRs. */
		printf("# aperf_mperf_real_msr: /dev/cpu/0/msr opened, counters unknown: %s\n",
		       jstrv(s, "cpus.0.aperf_mperf.unknown"));
	else
		CHECKF(a1 > a0 && m1 > m0, "APERF %" PRId64 " -> %" PRId64
		       ", MPERF %" PRId64 " -> %" PRId64, a0, a1, m0, m1);
	json_decref(s);
	json_decref(t);
}

int main(void)
{
	RUN(snapshot_fixture);
	RUN(snapshot_delta);
	RUN(interrupts_columns);
	RUN(aperf_mperf_read_path);
	RUN(aperf_mperf_real_msr);
	return tap_done();
}
