// SPDX-License-Identifier: GPL-2.0-only
/*
 * env.c - the machine fingerprint, the per-run environment snapshots and
 * their deltas, and the host and run UUIDs.
 *
 * The fingerprint says what the machine is: it is stored once per machine
 * and is what lets two datasets be compared honestly.  Snapshots say what
 * moved during a run (cpuidle usage and residency, interrupt counts per
 * CPU); one is taken before and one after every run, and il_env_delta()
 * subtracts them.
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
 *
 * The APIC driver has no sysfs file.  The kernel logs its choice once at
 * boot ("APIC: Switched APIC routing to: physical x2apic"), so when the
 * log is readable (/dev/kmsg, root, and the line not yet rotated out) it is
 * taken from there, along with the paravirtual overrides the kernel logs
 * ("kvm-guest: APIC: send_IPI_mask() replaced with kvm_send_ipi_mask()"),
 * which decide what an IPI benchmark is really measuring in a guest.
 */
#include "env.h"
#include "err.h"
#include "pmqos.h"
#include "sysfs.h"
#include "topo.h"
#include "tsc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define IL_HAVE_CPUID 1
#endif

#define CPU_SYS		"/sys/devices/system/cpu"
/* The kernel log is a few MiB at most; bound what we buffer anyway. */
#define IL_KMSG_MAX	(16u << 20)

json_t *il_unknown(const char *reason)
{
	return json_pack("{s:s}", "unknown",
			 reason && *reason ? reason : "no reason recorded");
}

/* ---- small JSON helpers ---------------------------------------------- */

/*
 * json_string() refuses invalid UTF-8, and a command line or a firmware
 * string may hold anything; replace what is not printable ASCII.
 */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	char *copy, *p;

	if (j)
		return j;
	copy = strdup(s);
	if (!copy)
		return NULL;
	for (p = copy; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

static json_t *unknownf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static json_t *unknownf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return il_unknown(buf);
}

static void set(json_t *obj, const char *key, json_t *val)
{
	json_object_set_new(obj, key, val);
}

static int is_unknown(json_t *j)
{
	return json_is_object(j) && json_object_get(j, "unknown");
}

/* A sysfs string, or unknown naming the failure; empty counts as unread. */
static json_t *fs_str(const char *path)
{
	char buf[4096], p[4096];

	size_t n;

	if (il_fs_read(path, buf, sizeof(buf)))
		return il_unknown(il_errmsg());
	/* Some lists end in a blank ("tsc hpet acpi_pm \n"). */
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	if (!buf[0])
		return unknownf("%s is empty", il_fs_path(path, p, sizeof(p)));
	return jstr(buf);
}

static json_t *fs_u64(const char *path)
{
	uint64_t v;

	if (il_fs_read_u64(path, &v))
		return il_unknown(il_errmsg());
	return json_integer((json_int_t)v);
}

static json_t *fs_bool(const char *path)
{
	uint64_t v;

	if (il_fs_read_u64(path, &v))
		return il_unknown(il_errmsg());
	return json_boolean(v != 0);
}

static int fs_isdir(const char *path)
{
	char p[4096];
	struct stat st;

	return !stat(il_fs_path(path, p, sizeof(p)), &st) && S_ISDIR(st.st_mode);
}

/* ---- /proc/cpuinfo --------------------------------------------------- */

/*
 * The value of @key in the first processor block, malloc()ed, or NULL.
 * Lines look like "flags\t\t: fpu vme ..."; the key is padded with tabs.
 */
static char *cpuinfo_field(const char *info, const char *key)
{
	size_t klen = strlen(key);
	const char *line = info, *end, *colon, *k;

	while (line && *line) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (end == line)
			break;	/* blank line: end of the first processor */
		colon = memchr(line, ':', (size_t)(end - line));
		if (colon) {
			k = colon;
			while (k > line && isspace((unsigned char)k[-1]))
				k--;
			if ((size_t)(k - line) == klen &&
			    !strncmp(line, key, klen)) {
				colon++;
				while (colon < end && *colon == ' ')
					colon++;
				return strndup(colon, (size_t)(end - colon));
			}
		}
		line = *end ? end + 1 : end;
	}
	return NULL;
}

static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

struct cpuinfo {
	char *text;		/* NULL if unreadable */
	char *flags;		/* first processor's flags, or NULL */
	char reason[512];	/* why text or flags is missing */
};

static void cpuinfo_load(struct cpuinfo *ci)
{
	memset(ci, 0, sizeof(*ci));
	if (il_fs_read_all("/proc/cpuinfo", &ci->text)) {
		snprintf(ci->reason, sizeof(ci->reason), "%s", il_errmsg());
		return;
	}
	ci->flags = cpuinfo_field(ci->text, "flags");
	if (!ci->flags)
		snprintf(ci->reason, sizeof(ci->reason),
			 "/proc/cpuinfo has no flags line");
}

static void cpuinfo_free(struct cpuinfo *ci)
{
	free(ci->text);
	free(ci->flags);
}

static json_t *cpuinfo_flag(struct cpuinfo *ci, const char *flag)
{
	if (!ci->flags)
		return il_unknown(ci->reason);
	return json_boolean(has_word(ci->flags, flag));
}

/* ---- CPUID ----------------------------------------------------------- */

#ifdef IL_HAVE_CPUID
static unsigned int cpuid_max_ext(void)
{
	return __get_cpuid_max(0x80000000, NULL);
}

/* Twelve register bytes to a printable, trimmed string. */
static void regs_str(char *out, unsigned int r0, unsigned int r1,
		     unsigned int r2)
{
	unsigned int r[3] = { r0, r1, r2 };
	int i;

	memcpy(out, r, 12);
	out[12] = '\0';
	for (i = 0; i < 12; i++)
		if (out[i] && !isprint((unsigned char)out[i]))
			out[i] = '?';
}

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
}

static json_t *cpuid_hypervisor(unsigned int ecx1)
{
	unsigned int a, b, c, d;
	char sig[13];
	json_t *h = json_object();

	/* CPUID.1:ECX[31] is reserved for hypervisors to set. */
	set(h, "present", json_boolean(ecx1 & (1u << 31)));
	if (!(ecx1 & (1u << 31)))
		return h;
	/* __get_cpuid() would check 0x40000000 against the basic range and
	 * refuse; the hypervisor range is outside both. */
	__cpuid(0x40000000, a, b, c, d);
	regs_str(sig, b, c, d);
	trim(sig);
	set(h, "vendor", sig[0] ? jstr(sig) :
	    il_unknown("CPUID leaf 0x40000000 has an empty signature"));
	snprintf(sig, sizeof(sig), "0x%x", a);
	set(h, "max_leaf", jstr(sig));
	return h;
}
#endif

static json_t *cpu_section(struct cpuinfo *ci, unsigned int *ecx1_out)
{
	json_t *cpu = json_object();
	char *mc;
#ifdef IL_HAVE_CPUID
	unsigned int a, b, c, d, max, fam, model;
	char vendor[13], brand[49], sig[16];
#endif

	*ecx1_out = 0;
#ifdef IL_HAVE_CPUID
	max = __get_cpuid_max(0, NULL);
	__cpuid(0, a, b, c, d);
	regs_str(vendor, b, d, c);
	set(cpu, "vendor", jstr(vendor));
	if (max >= 1) {
		__cpuid(1, a, b, c, d);
		*ecx1_out = c;
		/* SDM vol. 2A, CPUID leaf 1: the extended family is added
		 * only when the base family is 0xf, and the extended model
		 * is prepended for families 6 and 0xf. */
		fam = (a >> 8) & 0xf;
		model = (a >> 4) & 0xf;
		if (fam == 0xf || fam == 0x6)
			model |= ((a >> 16) & 0xf) << 4;
		if (fam == 0xf)
			fam += (a >> 20) & 0xff;
		set(cpu, "family", json_integer(fam));
		set(cpu, "model", json_integer(model));
		set(cpu, "stepping", json_integer(a & 0xf));
		snprintf(sig, sizeof(sig), "0x%x", a);
		set(cpu, "signature", jstr(sig));
	} else {
		set(cpu, "family", il_unknown("CPUID leaf 1 is not available"));
		set(cpu, "model", il_unknown("CPUID leaf 1 is not available"));
		set(cpu, "stepping", il_unknown("CPUID leaf 1 is not available"));
	}
	if (cpuid_max_ext() >= 0x80000004) {
		unsigned int r[12];
		int i;

		for (i = 0; i < 3; i++)
			__cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1],
				r[4 * i + 2], r[4 * i + 3]);
		memcpy(brand, r, 48);
		brand[48] = '\0';
		trim(brand);
		set(cpu, "brand", brand[0] ? jstr(brand) :
		    il_unknown("CPUID brand string is empty"));
	} else {
		set(cpu, "brand",
		    il_unknown("CPUID leaves 0x80000002-4 are not available"));
	}
	set(cpu, "hypervisor", cpuid_hypervisor(*ecx1_out));
#else
	set(cpu, "vendor", il_unknown("CPUID is x86-only"));
	set(cpu, "family", il_unknown("CPUID is x86-only"));
	set(cpu, "model", il_unknown("CPUID is x86-only"));
	set(cpu, "stepping", il_unknown("CPUID is x86-only"));
	set(cpu, "brand", il_unknown("CPUID is x86-only"));
	set(cpu, "hypervisor", il_unknown("CPUID is x86-only"));
#endif
	/* The kernel prints the microcode revision it loaded; no CPUID
	 * leaf or unprivileged MSR gives it. */
	if (!ci->text) {
		set(cpu, "microcode", il_unknown(ci->reason));
	} else {
		mc = cpuinfo_field(ci->text, "microcode");
		set(cpu, "microcode", mc && *mc ? jstr(mc) :
		    il_unknown("/proc/cpuinfo has no microcode line (not reported by this kernel or hypervisor)"));
		free(mc);
	}
	return cpu;
}

/* ---- kernel, TSC, APIC ----------------------------------------------- */

static json_t *kernel_section(void)
{
	json_t *k = json_object();
	struct utsname u;
	char *cmd;

	if (!uname(&u)) {
		set(k, "release", jstr(u.release));
		set(k, "version", jstr(u.version));
		set(k, "machine", jstr(u.machine));
	} else {
		set(k, "release", unknownf("uname: %s", strerror(errno)));
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
			if (has_word(ci->flags, tsc_flag_names[i]))
				json_array_append_new(flags,
						      json_string(tsc_flag_names[i]));
		set(tsc, "flags", flags);
	} else {
		set(tsc, "flags", il_unknown(ci->reason));
	}
	set(tsc, "constant", cpuinfo_flag(ci, "constant_tsc"));
	set(tsc, "nonstop", cpuinfo_flag(ci, "nonstop_tsc"));
#ifdef IL_HAVE_CPUID
	if (cpuid_max_ext() >= 0x80000007) {
		unsigned int a, b, c, d;

		/* CPUID.80000007H:EDX[8], "Invariant TSC" (SDM vol. 3B
		 * 18.17.1); hypervisors often hide it even when the host
		 * TSC is invariant, so read it next to the kernel's flags. */
		__cpuid(0x80000007, a, b, c, d);
		set(tsc, "invariant", json_boolean(d & (1u << 8)));
	} else {
		set(tsc, "invariant",
		    il_unknown("CPUID leaf 0x80000007 is not available"));
	}
#else
	set(tsc, "invariant", il_unknown("CPUID is x86-only"));
#endif
	khz = il_tsc_khz();
	set(tsc, "khz_measured", khz ? json_integer((json_int_t)khz) :
	    il_unknown("the TSC is absent or did not advance against CLOCK_MONOTONIC_RAW"));
	set(tsc, "khz_method",
	    json_string("median of 3 x 20 ms against CLOCK_MONOTONIC_RAW"));
	return tsc;
}

/*
 * The kernel log, whole.  /dev/kmsg returns one record per read() and
 * -EAGAIN at the end (O_NONBLOCK), or -EPIPE when a record was overwritten
 * while we read; a fixture's regular file returns plain chunks and 0 at the
 * end.  Both come out as newline-separated text.
 */
static int kmsg_read(char **out)
{
	size_t cap = 1 << 16, got = 0;
	char *buf = malloc(cap + 1), *nb;
	ssize_t n;
	int fd;

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	fd = il_fs_open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		free(buf);
		return fd;
	}
	for (;;) {
		if (cap - got < 8192) {
			if (cap >= IL_KMSG_MAX)
				break;
			nb = realloc(buf, cap * 2 + 1);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + got, cap - got);
		if (n < 0 && (errno == EINTR || errno == EPIPE))
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*out = buf;
	return 0;
}

/* The message part of a kmsg record ("6,1,2,-;text") or a dmesg line
 * ("[    0.25] text"). */
static const char *log_text(const char *line)
{
	const char *semi = strchr(line, ';');

	if (line[0] == '[') {
		const char *rb = strchr(line, ']');

		return rb ? rb + 1 + (rb[1] == ' ') : line;
	}
	if (semi && isdigit((unsigned char)line[0]))
		return semi + 1;
	return line;
}

static void apic_from_log(json_t *apic)
{
	static const char *const routing[] = {
		"APIC routing to: ", "APIC routing to ",
		"APIC routing finalized to ",
	};
	char *log, *line, *next, *drv = NULL, *p;
	json_t *overrides;
	const char *text;
	size_t i;
	int ret;

	ret = kmsg_read(&log);
	if (ret) {
		set(apic, "driver",
		    unknownf("the APIC driver is not exported in sysfs, and the kernel log is unreadable (%s)",
			     il_errmsg()));
		set(apic, "overrides", il_unknown("the kernel log is unreadable"));
		return;
	}
	overrides = json_array();
	for (line = log; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (line[0] == ' ')
			continue;	/* kmsg continuation (KEY=value) */
		text = log_text(line);
		for (i = 0; i < sizeof(routing) / sizeof(*routing); i++) {
			p = strstr(text, routing[i]);
			if (!p)
				continue;
			free(drv);
			drv = strdup(p + strlen(routing[i]));
			break;
		}
		if (strstr(text, "APIC: ") && strstr(text, " replaced with "))
			json_array_append_new(overrides, jstr(text));
	}
	free(log);
	if (drv) {
		size_t n = strlen(drv);

		while (n && (drv[n - 1] == '.' || isspace((unsigned char)drv[n - 1])))
			drv[--n] = '\0';
		set(apic, "driver", jstr(drv));
		set(apic, "driver_source", json_string("kernel log"));
		free(drv);
	} else {
		set(apic, "driver",
		    il_unknown("the APIC driver is not exported by this kernel, and no 'APIC routing' line is left in the kernel log"));
	}
	set(apic, "overrides", overrides);
}

static json_t *apic_section(struct cpuinfo *ci, unsigned int ecx1)
{
	json_t *apic = json_object();

	/* The kernel clears the x2apic flag when it does not use x2APIC
	 * mode (nox2apic, no interrupt remapping), so the flag is the
	 * kernel's mode; CPUID.1:ECX[21] is what the CPU offers. */
	set(apic, "x2apic", cpuinfo_flag(ci, "x2apic"));
#ifdef IL_HAVE_CPUID
	set(apic, "x2apic_cpuid", json_boolean(ecx1 & (1u << 21)));
#else
	(void)ecx1;
	set(apic, "x2apic_cpuid", il_unknown("CPUID is x86-only"));
#endif
	apic_from_log(apic);
	return apic;
}

/* ---- CPUs, cpuidle, cpufreq, SMT, NUMA ------------------------------- */

static json_t *cpuidle_states(int cpu)
{
	char path[256], name[128];
	json_t *states, *st;
	int k;

	snprintf(path, sizeof(path), CPU_SYS "/cpu%d/cpuidle", cpu);
	if (!fs_isdir(path))
		return unknownf("no %s: no cpuidle driver has registered states for cpu%d",
				path, cpu);
	states = json_array();
	for (k = 0;; k++) {
		snprintf(path, sizeof(path), CPU_SYS "/cpu%d/cpuidle/state%d",
			 cpu, k);
		if (!fs_isdir(path))
			break;
#define STATE_FILE(f) (snprintf(path, sizeof(path), \
		CPU_SYS "/cpu%d/cpuidle/state%d/" f, cpu, k), path)
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
	cpuinfo_load(&ci);
	n = il_fs_online_cpus(&cpus);
	snprintf(why, sizeof(why), "%s", n < 0 ? il_errmsg() : "");
	set(fp, "cpu", cpu_section(&ci, &ecx1));
	set(fp, "kernel", kernel_section());
	set(fp, "tsc", tsc_section(&ci));
	set(fp, "apic", apic_section(&ci, ecx1));
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
	cpuinfo_free(&ci);
	return fp;
}

/* ---- snapshots ------------------------------------------------------- */

static json_t *snap_cpuidle(int cpu)
{
	char path[256], name[128], key[160];
	json_t *out, *st;
	int k;

	snprintf(path, sizeof(path), CPU_SYS "/cpu%d/cpuidle", cpu);
	if (!fs_isdir(path))
		return unknownf("no %s: no cpuidle driver has registered states for cpu%d",
				path, cpu);
	out = json_object();
	for (k = 0;; k++) {
#define SNAP_FILE(f) (snprintf(path, sizeof(path), \
		CPU_SYS "/cpu%d/cpuidle/state%d/" f, cpu, k), path)
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
 * /proc/interrupts, one object per column: "total", "devices" (the sum of
 * the numbered device IRQs, which are too many to keep one by one) and one
 * key per named line (LOC, RES, CAL, TLB, NMI, IWI, ...).  Lines with a
 * single machine-wide count (ERR, MIS) go to @global.
 *
 * The header names the columns ("CPU0 CPU1 ..."): only online CPUs have
 * one, so columns are matched by name, not position.
 */
struct irq_cols {
	int n;
	int *cpu;		/* column -> CPU number */
	json_t **obj;		/* column -> its object */
	uint64_t *total, *dev;
};

static int irq_parse(const char *text, struct irq_cols *ic, json_t *global,
		     char *why, size_t wlen)
{
	const char *line = text, *p, *eol;
	char name[64], *end;
	uint64_t *vals;
	int i, nv, cap = 16;

	memset(ic, 0, sizeof(*ic));
	eol = strchr(line, '\n');
	if (!eol) {
		snprintf(why, wlen, "/proc/interrupts has no header line");
		return -EINVAL;
	}
	ic->cpu = malloc((size_t)cap * sizeof(int));
	for (p = line; ic->cpu && p < eol;) {
		while (p < eol && *p == ' ')
			p++;
		if (p >= eol)
			break;
		if (strncmp(p, "CPU", 3) || !isdigit((unsigned char)p[3])) {
			snprintf(why, wlen, "/proc/interrupts header has an unexpected column");
			return -EINVAL;
		}
		if (ic->n == cap) {
			int *nc = realloc(ic->cpu, (size_t)cap * 2 * sizeof(int));

			if (!nc)
				break;
			ic->cpu = nc;
			cap *= 2;
		}
		ic->cpu[ic->n++] = (int)strtol(p + 3, &end, 10);
		p = end;
	}
	if (!ic->n) {
		snprintf(why, wlen, "/proc/interrupts header names no CPU");
		return -EINVAL;
	}
	ic->obj = calloc((size_t)ic->n, sizeof(*ic->obj));
	ic->total = calloc((size_t)ic->n, sizeof(uint64_t));
	ic->dev = calloc((size_t)ic->n, sizeof(uint64_t));
	vals = calloc((size_t)ic->n, sizeof(uint64_t));
	if (!ic->cpu || !ic->obj || !ic->total || !ic->dev || !vals) {
		free(vals);
		snprintf(why, wlen, "out of memory parsing /proc/interrupts");
		return -ENOMEM;
	}
	for (i = 0; i < ic->n; i++)
		ic->obj[i] = json_object();
	for (line = eol + 1; *line; line = *eol ? eol + 1 : eol) {
		const char *colon;
		size_t nl;

		eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		while (line < eol && *line == ' ')
			line++;
		colon = memchr(line, ':', (size_t)(eol - line));
		if (!colon)
			continue;
		nl = (size_t)(colon - line);
		if (!nl || nl >= sizeof(name))
			continue;
		memcpy(name, line, nl);
		name[nl] = '\0';
		p = colon + 1;
		for (nv = 0; nv < ic->n; nv++) {
			while (p < eol && *p == ' ')
				p++;
			if (p >= eol || !isdigit((unsigned char)*p))
				break;
			vals[nv] = strtoull(p, &end, 10);
			if (end < eol && *end != ' ')
				break;	/* "0-edge" and the like */
			p = end;
		}
		if (nv == 1 && ic->n > 1) {
			set(global, name, json_integer((json_int_t)vals[0]));
			continue;
		}
		if (nv != ic->n)
			continue;
		for (i = 0; i < ic->n; i++) {
			ic->total[i] += vals[i];
			if (isdigit((unsigned char)name[0]))
				ic->dev[i] += vals[i];
			else
				set(ic->obj[i], name,
				    json_integer((json_int_t)vals[i]));
		}
	}
	for (i = 0; i < ic->n; i++) {
		set(ic->obj[i], "total", json_integer((json_int_t)ic->total[i]));
		set(ic->obj[i], "devices", json_integer((json_int_t)ic->dev[i]));
	}
	free(vals);
	return 0;
}

static void irq_free(struct irq_cols *ic)
{
	int i;

	for (i = 0; ic->obj && i < ic->n; i++)
		json_decref(ic->obj[i]);
	free(ic->obj);
	free(ic->cpu);
	free(ic->total);
	free(ic->dev);
}

static json_t *snap_irq(struct irq_cols *ic, int ok, const char *why, int cpu)
{
	int i;

	if (!ok)
		return il_unknown(why);
	for (i = 0; i < ic->n; i++)
		if (ic->cpu[i] == cpu)
			return json_incref(ic->obj[i]);
	return unknownf("CPU %d has no column in /proc/interrupts", cpu);
}

/*
 * The fleet runner's own settings (harness/fleet/): every environment
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
		irq_ok = !irq_parse(text, &ic, global, irq_why, sizeof(irq_why));
		free(text);
	}
	set(snap, "irq_global", irq_ok ? global : il_unknown(irq_why));
	if (!irq_ok)
		json_decref(global);

	gov = json_object();
	set(gov, "cpuidle", fs_str(CPU_SYS "/cpuidle/current_governor_ro"));
	set(snap, "governors", gov);

	n = il_fs_online_cpus(&list);
	snprintf(why, sizeof(why), "%s", n < 0 ? il_errmsg() : "");
	if (n < 0) {
		set(snap, "cpus", il_unknown(why));
	} else {
		cpus = json_object();
		for (i = 0; i < n; i++) {
			c = json_object();
			set(c, "cpuidle", snap_cpuidle(list[i]));
			set(c, "irq", snap_irq(&ic, irq_ok, irq_why, list[i]));
			snprintf(key, sizeof(key), "%d", list[i]);
			set(cpus, key, c);
		}
		set(snap, "cpus", cpus);
	}
	irq_free(&ic);
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

/* ---- UUIDs ----------------------------------------------------------- */

static void fill_random(unsigned char *b, size_t n)
{
	static uint64_t ctr;
	size_t got = 0;
	ssize_t r;
	int fd;

	while (got < n) {
		r = getrandom(b + got, n - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got == n)
		return;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while (got < n && (r = read(fd, b + got, n - got)) > 0)
			got += (size_t)r;
		close(fd);
	}
	/* Last resort, never expected on Linux >= 3.17: splitmix64 over the
	 * clock, the pid and a counter, so two calls still differ. */
	while (got < n) {
		uint64_t z = il_now_ns(CLOCK_REALTIME) ^ ((uint64_t)getpid() << 32) ^
			     (__atomic_add_fetch(&ctr, 1, __ATOMIC_RELAXED) *
			      0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		for (int i = 0; i < 8 && got < n; i++)
			b[got++] = (unsigned char)(z >> (8 * i));
	}
}

void il_uuid_v4(char out[37])
{
	unsigned char b[16];

	fill_random(b, sizeof(b));
	b[6] = (b[6] & 0x0f) | 0x40;	/* version 4 (RFC 9562 5.4) */
	b[8] = (b[8] & 0x3f) | 0x80;	/* variant 10 */
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
		 b[10], b[11], b[12], b[13], b[14], b[15]);
}

int il_uuid_valid(const char *s)
{
	int i;

	if (!s || strlen(s) != 36)
		return 0;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
		} else if (!isxdigit((unsigned char)s[i])) {
			return 0;
		}
	}
	return 1;
}

/* 0, -ENOENT if the file is missing, -EINVAL if it holds no UUID. */
static int uuid_file_read(const char *path, char out[37])
{
	char buf[64];
	ssize_t n;
	int fd, i;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (!il_uuid_valid(buf))
		return -EINVAL;
	for (i = 0; i < 36; i++)
		out[i] = (char)tolower((unsigned char)buf[i]);
	out[36] = '\0';
	return 0;
}

/*
 * Write a fresh UUID to a temporary file and link() it into place: link
 * fails if another process got there first, so concurrent first runs
 * agree on one identity instead of the last rename winning.
 */
static int uuid_file_create(const char *dir, const char *path, char out[37])
{
	char tmp[4200], id[37], line[38];
	int fd, ret = 0;

	ret = il_mkdir_p(dir);
	if (ret)
		return ret;
	snprintf(tmp, sizeof(tmp), "%s/.host-uuid.XXXXXX", dir);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	il_uuid_v4(id);
	snprintf(line, sizeof(line), "%s\n", id);
	/* mkstemp() gives 0600; the identity is no secret. */
	if (fchmod(fd, 0644) || write(fd, line, 37) != 37 || fsync(fd))
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -EIO;
	if (!ret && link(tmp, path)) {
		ret = errno == EEXIST ? uuid_file_read(path, out) : -errno;
		unlink(tmp);
		return ret;
	}
	unlink(tmp);
	if (!ret)
		memcpy(out, id, 37);
	return ret;
}

int il_host_uuid(char out[37])
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char fallback[37];
	const char *dir = getenv("IDLELAB_STATE_DIR");
	char path[4200];
	int ret;

	if (!dir || !*dir)
		dir = "/var/lib/idlelab";
	snprintf(path, sizeof(path), "%s/host-uuid", dir);
	ret = uuid_file_read(path, out);
	if (!ret)
		return 0;
	/* Rewriting a damaged identity would silently split one machine's
	 * data in two; make the user decide. */
	if (ret == -EINVAL)
		return il_errorf(-EINVAL,
				 "%s does not hold a UUID; remove it to give this host a new identity",
				 path);
	if (ret == -ENOENT && !uuid_file_create(dir, path, out))
		return 0;
	/* Unwritable state directory: one identity for this process, so
	 * at least its runs agree with each other. */
	pthread_mutex_lock(&lock);
	if (!fallback[0])
		il_uuid_v4(fallback);
	memcpy(out, fallback, 37);
	pthread_mutex_unlock(&lock);
	return 0;
}
