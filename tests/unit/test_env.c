// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_env.c - the fingerprint, snapshots and deltas against fixture trees,
 * the sysfs.h accessors, the UUIDs and the TSC calibration.
 *
 * IDLELAB_SYSFS_ROOT points at tests/fixtures/sysfs-intel (a 4-CPU
 * intel_idle machine) or tests/fixtures/sysfs-empty (nothing at all), so
 * the tests run with the repository root as the working directory, as
 * tests/run.sh does.  Tests that change counters work on a copy in /tmp.
 */
#include "env.h"
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

#define INTEL	"tests/fixtures/sysfs-intel"
#define EMPTY	"tests/fixtures/sysfs-empty"

/* j["a"]["b"]... along a dotted path; NULL if any step is missing. */
static json_t *jget(json_t *j, const char *path)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && j;
	     tok = strtok_r(NULL, ".", &save))
		j = json_object_get(j, tok);
	return j;
}

static long long jint(json_t *j, const char *path)
{
	json_t *v = jget(j, path);

	return json_is_integer(v) ? json_integer_value(v) : -424242;
}

static const char *jstrv(json_t *j, const char *path)
{
	json_t *v = jget(j, path);

	return json_is_string(v) ? json_string_value(v) : "(not a string)";
}

/* The value at @path is {"unknown": non-empty reason}. */
static int is_unknown_at(json_t *j, const char *path)
{
	json_t *u = json_object_get(jget(j, path), "unknown");

	return json_is_string(u) && json_string_value(u)[0];
}

/*
 * Walk everything: every {"unknown"} has a non-empty string reason and
 * no string is "".  Returns the number of unknowns.
 */
static int walk(json_t *j, const char *where)
{
	json_t *v, *u;
	const char *k;
	char sub[256];
	size_t i;
	int n = 0;

	if (json_is_object(j)) {
		u = json_object_get(j, "unknown");
		if (u) {
			CHECKF(json_is_string(u) && json_string_value(u)[0] &&
			       json_object_size(j) == 1,
			       "%s: malformed unknown", where);
			return 1;
		}
		json_object_foreach(j, k, v) {
			snprintf(sub, sizeof(sub), "%s.%s", where, k);
			n += walk(v, sub);
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) {
			snprintf(sub, sizeof(sub), "%s[%zu]", where, i);
			n += walk(v, sub);
		}
	} else if (json_is_string(j)) {
		CHECKF(json_string_value(j)[0], "%s: empty string", where);
	}
	return n;
}

static void copy_tree(const char *from, const char *to)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cp -a '%s/.' '%s/'", from, to);
	CHECK(system(cmd) == 0);
}

static void rm_tree(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* Replace the first @from in the file at @path (under the root). */
static void edit_file(const char *path, const char *from, const char *to)
{
	char *text, *p, *out;
	size_t n;

	CHECK(il_fs_read_all(path, &text) == 0);
	if (!text)
		return;
	p = strstr(text, from);
	CHECKF(p != NULL, "'%s' not in %s", from, path);
	if (p) {
		n = strlen(text) + strlen(to) + 1;
		out = malloc(n);
		snprintf(out, n, "%.*s%s%s", (int)(p - text), text, to,
			 p + strlen(from));
		CHECK(il_fs_write(path, out) == 0);
		free(out);
	}
	free(text);
}

static void write_file(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	CHECK(system(cmd) == 0);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

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

TEST(fingerprint_empty_tree)
{
	static const char *const must_be_unknown[] = {
		"cpuidle.driver", "cpuidle.governor", "cpuidle.states",
		"cpufreq.driver", "cpufreq.governor", "cpufreq.min_khz",
		"cpufreq.max_khz", "smt.control", "smt.active", "cpus.online",
		"cpus.possible", "cpus.count", "kernel.cmdline",
		"kernel.clocksource", "cpu.microcode", "tsc.flags",
		"tsc.constant", "tsc.nonstop", "apic.x2apic", "apic.driver",
		"pm_qos_us",
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
	CHECK(jint(s, "cpus.1.irq.total") == 4230891);
	CHECK(jget(s, "cpus.0.irq.ERR") == NULL);
	CHECK(jint(s, "irq_global.ERR") == 0 && jint(s, "irq_global.MIS") == 0);
	CHECK(!strcmp(jstrv(s, "governors.cpuidle"), "menu"));
	CHECK(json_is_integer(jget(s, "mono_ns")));
	CHECK(walk(s, "snap") == 0);
	json_decref(s);

	/* The empty tree: every part unknown, with its reason. */
	setenv("IDLELAB_SYSFS_ROOT", EMPTY, 1);
	s = il_env_snapshot();
	unsetenv("IDLELAB_SYSFS_ROOT");
	CHECK(is_unknown_at(s, "cpus"));
	CHECK(is_unknown_at(s, "irq_global"));
	CHECK(is_unknown_at(s, "governors.cpuidle"));
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
	b = il_env_snapshot();
	d = il_env_delta(a, b);
	CHECK(d != NULL);
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

TEST(host_uuid_persistence)
{
	char tmp[] = "/tmp/idlelab-state-XXXXXX", dir[200], path[300], bad[400];
	char u1[37], u2[37], u3[37], ondisk[64] = "";
	FILE *f;

	CHECK(mkdtemp(tmp) != NULL);
	snprintf(dir, sizeof(dir), "%s/nested/state", tmp);
	setenv("IDLELAB_STATE_DIR", dir, 1);
	CHECK(il_host_uuid(u1) == 0);
	CHECK(il_host_uuid(u2) == 0);
	CHECK(uuid_v4_ok(u1));
	CHECK(!strcmp(u1, u2));
	snprintf(path, sizeof(path), "%s/host-uuid", dir);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (f) {
		CHECK(fgets(ondisk, sizeof(ondisk), f) != NULL);
		fclose(f);
	}
	CHECK(!strncmp(ondisk, u1, 36) && ondisk[36] == '\n');

	/* Another state directory is another host. */
	snprintf(dir, sizeof(dir), "%s/other", tmp);
	setenv("IDLELAB_STATE_DIR", dir, 1);
	CHECK(il_host_uuid(u3) == 0 && uuid_v4_ok(u3) && strcmp(u1, u3));

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
	CHECK(il_host_uuid(u1) == 0 && uuid_v4_ok(u1));
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
	RUN(fingerprint_empty_tree);
	RUN(fingerprint_real_machine);
	RUN(snapshot_fixture);
	RUN(snapshot_delta);
	RUN(interrupts_columns);
	RUN(uuid_v4_format);
	RUN(host_uuid_persistence);
	RUN(tsc_calibration);
	return tap_done();
}
