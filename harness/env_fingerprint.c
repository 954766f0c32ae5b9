// SPDX-License-Identifier: GPL-2.0-only
/*
 * env_fingerprint.c - il_fingerprint(): what the machine is.  It is stored
 * once per machine and is what lets two datasets be compared honestly:
 * CPU and microcode, kernel and clocksource, TSC, APIC, cpuidle, cpufreq,
 * SMT, CPUs, NUMA and the PM QoS limit.
 *
 * Every /sys, /proc and /dev read goes through sysfs.h, so a fixture tree
 * under IDLELAB_SYSFS_ROOT stands in for the machine.  What cannot come
 * from a file cannot be redirected: CPUID, uname(), gethostname(), libnuma
 * and the TSC calibration always describe the machine the code runs on.
 *
 * A value that cannot be read is {"unknown": "<reason>"} in its place,
 * never 0 or "", so a report can tell "zero" from "not measured".  The
 * reason is the error of the read that failed (which names the path) or,
 * where the cause is known, a sentence saying what is missing.
 */
#include "env_internal.h"
#include "pmqos.h"
#include "topo.h"
#include "tsc.h"

#include <errno.h>
#include <numa.h>
#include <sys/utsname.h>
#include <unistd.h>

/* ---- kernel, TSC ----------------------------------------------------- */

/*
 * The kernel release: /proc/sys/kernel/osrelease, which is uname's, read
 * through sysfs.h so that a fixture tree can name the kernel it stands
 * for (two trees, one machine: an in-place upgrade); uname's where the
 * file cannot be read.
 */
static json_t *kernel_release(void)
{
	struct utsname u;
	char r[sizeof(u.release)];

	if (!il_fs_read("/proc/sys/kernel/osrelease", r, sizeof(r)) && r[0])
		return jstr(r);
	if (uname(&u))
		return unknownf("uname: %s", strerror(errno));
	return jstr(u.release);
}

static json_t *kernel_section(void)
{
	json_t *k = json_object();
	struct utsname u;
	char *cmd;

	set(k, "release", kernel_release());
	if (!uname(&u)) {
		set(k, "version", jstr(u.version));
		set(k, "machine", jstr(u.machine));
	} else {
		set(k, "version", unknownf("uname: %s", strerror(errno)));
		set(k, "machine", unknownf("uname: %s", strerror(errno)));
	}
	/* cmdline can exceed any fixed line buffer: read it whole. */
	if (il_fs_read_all("/proc/cmdline", &cmd)) {
		set(k, "cmdline", il_unknown(il_errmsg()));
	} else {
		cmd[strcspn(cmd, "\n")] = '\0';
		set(k, "cmdline", jstr(cmd));
		free(cmd);
	}
	set(k, "clocksource",
	    fs_str("/sys/devices/system/clocksource/clocksource0/current_clocksource"));
	set(k, "clocksources_available",
	    fs_str("/sys/devices/system/clocksource/clocksource0/available_clocksource"));
	return k;
}

static const char *const tsc_flag_names[] = {
	"tsc", "rdtscp", "constant_tsc", "nonstop_tsc", "nonstop_tsc_s3",
	"tsc_known_freq", "tsc_reliable", "tsc_deadline_timer", "tsc_adjust",
};

static json_t *tsc_section(struct cpuinfo *ci)
{
	json_t *tsc = json_object(), *flags;
	uint64_t khz;
	size_t i;

	if (ci->flags) {
		flags = json_array();
		for (i = 0; i < sizeof(tsc_flag_names) / sizeof(*tsc_flag_names); i++)
			if (env_has_word(ci->flags, tsc_flag_names[i]))
				json_array_append_new(flags,
						      json_string(tsc_flag_names[i]));
		set(tsc, "flags", flags);
	} else {
		set(tsc, "flags", il_unknown(ci->reason));
	}
	set(tsc, "constant", env_cpuinfo_flag(ci, "constant_tsc"));
	set(tsc, "nonstop", env_cpuinfo_flag(ci, "nonstop_tsc"));
	set(tsc, "invariant", env_cpuid_tsc_invariant());
	khz = il_tsc_khz();
	set(tsc, "khz_measured", khz ? json_integer((json_int_t)khz) :
	    il_unknown("the TSC is absent or did not advance against CLOCK_MONOTONIC_RAW"));
	set(tsc, "khz_method",
	    json_string("median of 3 x 20 ms against CLOCK_MONOTONIC_RAW"));
	return tsc;
}

/* ---- CPUs, cpuidle, cpufreq, SMT, NUMA ------------------------------- */

static json_t *cpuidle_states(int cpu)
{
	char path[256], name[128];
	json_t *states, *st;
	int k;

	states = cpuidle_absent(cpu);
	if (states)
		return states;
	states = json_array();
	for (k = 0;; k++) {
		snprintf(path, sizeof(path), CPU_SYS "/cpu%d/cpuidle/state%d",
			 cpu, k);
		if (!fs_isdir(path))
			break;
#define STATE_FILE(f) cpuidle_file(path, sizeof(path), cpu, k, f)
		st = json_object();
		set(st, "index", json_integer(k));
		if (il_fs_read(STATE_FILE("name"), name, sizeof(name)))
			set(st, "name", il_unknown(il_errmsg()));
		else
			set(st, "name", jstr(name));
		set(st, "desc", fs_str(STATE_FILE("desc")));
		set(st, "latency_us", fs_u64(STATE_FILE("latency")));
		set(st, "residency_us", fs_u64(STATE_FILE("residency")));
		set(st, "disabled", fs_bool(STATE_FILE("disable")));
		set(st, "default_status", fs_str(STATE_FILE("default_status")));
#undef STATE_FILE
		json_array_append_new(states, st);
	}
	return states;
}

static json_t *cpuidle_section(int cpu)
{
	json_t *ci = json_object(), *gov;
	const char *why;

	if (!fs_isdir(CPU_SYS "/cpuidle")) {
		why = "no " CPU_SYS "/cpuidle: this kernel has no cpuidle support";
		set(ci, "driver", il_unknown(why));
		set(ci, "governor", il_unknown(why));
		set(ci, "states", il_unknown(why));
		return ci;
	}
	set(ci, "driver", fs_str(CPU_SYS "/cpuidle/current_driver"));
	/* current_governor exists only with cpuidle_sysfs_switch on older
	 * kernels; current_governor_ro is always there. */
	gov = fs_str(CPU_SYS "/cpuidle/current_governor");
	if (is_unknown(gov)) {
		json_decref(gov);
		gov = fs_str(CPU_SYS "/cpuidle/current_governor_ro");
	}
	set(ci, "governor", gov);
	if (cpu < 0) {
		set(ci, "states", il_unknown("no online CPU is known"));
	} else {
		set(ci, "states_cpu", json_integer(cpu));
		set(ci, "states", cpuidle_states(cpu));
	}
	return ci;
}

static json_t *cpufreq_section(int cpu)
{
	json_t *cf = json_object();
	char base[128], path[256], why[300];
	static const struct {
		const char *key, *file;
		int num;
	} f[] = {
		{ "driver", "scaling_driver", 0 },
		{ "governor", "scaling_governor", 0 },
		{ "min_khz", "cpuinfo_min_freq", 1 },
		{ "max_khz", "cpuinfo_max_freq", 1 },
		{ "scaling_min_khz", "scaling_min_freq", 1 },
		{ "scaling_max_khz", "scaling_max_freq", 1 },
	};
	size_t i;

	snprintf(base, sizeof(base), CPU_SYS "/cpu%d/cpufreq", cpu < 0 ? 0 : cpu);
	if (cpu < 0 || !fs_isdir(base)) {
		if (cpu < 0)
			snprintf(why, sizeof(why),
				 "no online CPU is known, so no cpufreq policy can be read");
		else
			snprintf(why, sizeof(why),
				 "no %s: no cpufreq driver is loaded (or the hypervisor owns frequency)",
				 base);
		for (i = 0; i < sizeof(f) / sizeof(*f); i++)
			set(cf, f[i].key, il_unknown(why));
		return cf;
	}
	set(cf, "cpu", json_integer(cpu));
	for (i = 0; i < sizeof(f) / sizeof(*f); i++) {
		snprintf(path, sizeof(path), "%s/%s", base, f[i].file);
		set(cf, f[i].key, f[i].num ? fs_u64(path) : fs_str(path));
	}
	return cf;
}

static json_t *smt_section(void)
{
	json_t *smt = json_object();

	set(smt, "control", fs_str(CPU_SYS "/smt/control"));
	set(smt, "active", fs_u64(CPU_SYS "/smt/active"));
	return smt;
}

/* "0-3,8" from a sorted array, for the allowed set. */
static void list_str(const int *c, int n, char *buf, size_t len)
{
	size_t off = 0;
	int i = 0, j;

	buf[0] = '\0';
	while (i < n && off < len) {
		for (j = i; j + 1 < n && c[j + 1] == c[j] + 1; j++)
			;
		off += (size_t)snprintf(buf + off, len - off, "%s%d", i ? "," : "",
					c[i]);
		if (j > i && off < len)
			off += (size_t)snprintf(buf + off, len - off, "-%d", c[j]);
		i = j + 1;
	}
}

static json_t *cpus_section(struct il_topo *t, int ncpus, const char *why)
{
	json_t *c = json_object();

	set(c, "online", fs_str(CPU_SYS "/online"));
	set(c, "possible", fs_str(CPU_SYS "/possible"));
	set(c, "present", fs_str(CPU_SYS "/present"));
	set(c, "count", ncpus >= 0 ? json_integer(ncpus) : il_unknown(why));
	if (t) {
		int *l = malloc(IL_MAX_CPUS * sizeof(*l)), n;
		char *s = malloc(16384);

		if (l && s) {
			n = il_topo_online_list(t, l, IL_MAX_CPUS);
			list_str(l, n < IL_MAX_CPUS ? n : IL_MAX_CPUS, s, 16384);
			/* What this process may use (cgroups, affinity) as
			 * hwloc sees it; can be narrower than "online". */
			set(c, "allowed", jstr(s));
		}
		free(l);
		free(s);
	}
	return c;
}

static json_t *numa_section(void)
{
	json_t *numa = json_object(), *nodes, *dist, *row;
	int max, i, j, d, *ids, n = 0;

	if (numa_available() < 0) {
		set(numa, "nodes", il_unknown("libnuma: NUMA is not available on this system (numa_available() < 0)"));
		set(numa, "distances", il_unknown("libnuma: NUMA is not available on this system"));
		return numa;
	}
	max = numa_max_node();
	ids = calloc((size_t)max + 1, sizeof(*ids));
	nodes = json_array();
	for (i = 0; ids && i <= max; i++) {
		if (!numa_bitmask_isbitset(numa_nodes_ptr, (unsigned int)i))
			continue;
		ids[n++] = i;
		json_array_append_new(nodes, json_integer(i));
	}
	set(numa, "nodes", nodes);
	dist = json_array();
	for (i = 0; i < n; i++) {
		row = json_array();
		for (j = 0; j < n; j++) {
			d = numa_distance(ids[i], ids[j]);
			json_array_append_new(row, d > 0 ? json_integer(d) :
					      il_unknown("libnuma has no distance for this pair"));
		}
		json_array_append_new(dist, row);
	}
	set(numa, "distances", dist);
	free(ids);
	return numa;
}

/*
 * /dev/cpu_dma_latency reads as a binary s32: the CPU latency limit now
 * in force, in microseconds (2000000000 means no constraint).  Opening it
 * adds a request at the default value for as long as it is open, which
 * constrains nothing.
 */
static json_t *pm_qos(void)
{
	int32_t v;
	int n;

	n = il_fs_read_bin(IL_PM_QOS_PATH, &v, sizeof(v));
	if (n < 0)
		return il_unknown(il_errmsg());
	if (n != (int)sizeof(v))
		return unknownf(IL_PM_QOS_PATH ": read %d bytes, expected 4", n);
	return json_integer(v);
}

/*
 * Xen names itself to its guests in /sys/hypervisor (the kernel's
 * CONFIG_XEN_SYS_HYPERVISOR): type, version/{major,minor,extra} and
 * guest_type (PV, HVM, PVH).  CPUID cannot say it for a PV guest, dom0
 * included: its user-space CPUID is the host CPU's unless Xen enables
 * CPUID faulting, so cpu.hypervisor may name no hypervisor at all there.
 * Other hypervisors leave the directory empty: type is then unknown.
 */
#define HYP_SYS "/sys/hypervisor"
static json_t *hypervisor_section(void)
{
	json_t *h = json_object(), *type = fs_str(HYP_SYS "/type");
	char maj[32], min[32], extra[64], v[160];

	set(h, "type", type);
	if (is_unknown(type))
		return h;
	set(h, "guest_type", fs_str(HYP_SYS "/guest_type"));
	if (il_fs_read(HYP_SYS "/version/major", maj, sizeof(maj)) ||
	    il_fs_read(HYP_SYS "/version/minor", min, sizeof(min))) {
		set(h, "version", il_unknown(il_errmsg()));
		return h;
	}
	/* extra is ".7" (Xen 4.17.7) or similar, and may be absent. */
	if (il_fs_read(HYP_SYS "/version/extra", extra, sizeof(extra)))
		extra[0] = '\0';
	snprintf(v, sizeof(v), "%s.%s%s", maj, min, extra);
	set(h, "version", jstr(v));
	return h;
}

json_t *il_fingerprint_declared(int cpu)
{
	json_t *d = json_object(), *k = json_object();

	if (!d || !k) {
		json_decref(d);
		json_decref(k);
		return NULL;
	}
	set(k, "release", kernel_release());
	set(d, "kernel", k);
	set(d, "cpuidle", cpuidle_section(cpu));
	return d;
}

json_t *il_fingerprint(struct il_topo *t)
{
	json_t *fp = json_object();
	struct cpuinfo ci;
	unsigned int ecx1;
	char host[256], why[512];
	const char *override;
	int *cpus = NULL, n;

	if (!fp)
		return NULL;
	env_cpuinfo_load(&ci);
	n = il_fs_online_cpus(&cpus);
	snprintf(why, sizeof(why), "%s", n < 0 ? il_errmsg() : "");
	set(fp, "cpu", env_cpu_section(&ci, &ecx1));
	set(fp, "kernel", kernel_section());
	set(fp, "tsc", tsc_section(&ci));
	set(fp, "apic", env_apic_section(&ci, ecx1));
	set(fp, "hypervisor", hypervisor_section());
	/* cpu0 can be offline on some machines; describe the first online. */
	set(fp, "cpuidle", cpuidle_section(n > 0 ? cpus[0] : -1));
	set(fp, "cpufreq", cpufreq_section(n > 0 ? cpus[0] : -1));
	set(fp, "smt", smt_section());
	set(fp, "cpus", cpus_section(t, n, why));
	set(fp, "numa", numa_section());
	set(fp, "pm_qos_us", pm_qos());
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		set(fp, "hostname", jstr(host));
	} else {
		set(fp, "hostname", unknownf("gethostname: %s", strerror(errno)));
	}
	/* A fleet names its hosts itself (Ansible's inventory_hostname):
	 * hosts that share a UTS name (containers, network namespaces,
	 * cloned images) still show up apart in reports.  The UTS name is
	 * kept beside it. */
	override = getenv("IDLELAB_HOSTNAME");
	if (override && *override && strlen(override) < sizeof(host)) {
		set(fp, "uts_hostname", json_incref(json_object_get(fp, "hostname")));
		set(fp, "hostname", jstr(override));
		set(fp, "hostname_source", jstr("IDLELAB_HOSTNAME"));
	}
	free(cpus);
	env_cpuinfo_free(&ci);
	return fp;
}
