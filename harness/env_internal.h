/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * env_internal.h - what the environment files share: the small JSON and
 * sysfs helpers every section is built from (static inline, so each file
 * stays self-contained), /proc/cpuinfo as read once per fingerprint, and
 * the sections one file builds for another.
 *
 * env_read.c        /proc/cpuinfo and the online CPU list
 * env_cpuid.c       CPUID: the cpu section, and CPUID's say on TSC and APIC
 * env_apic.c        the APIC section, from the flags and the kernel log
 * env_fingerprint.c il_fingerprint()
 * env_irq.c         the /proc/interrupts parser
 * env_snapshot.c    il_env_snapshot() and il_env_delta()
 * env_uuid.c        host and run UUIDs
 */
#ifndef IDLELAB_ENV_INTERNAL_H
#define IDLELAB_ENV_INTERNAL_H

#include "env.h"
#include "err.h"
#include "sysfs.h"

#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CPU_SYS		"/sys/devices/system/cpu"

/* ---- small JSON helpers ---------------------------------------------- */

/*
 * json_string() refuses invalid UTF-8, and a command line or a firmware
 * string may hold anything; replace what is not printable ASCII.
 */
static inline json_t *jstr(const char *s)
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

static inline json_t *unknownf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static inline json_t *unknownf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return il_unknown(buf);
}

static inline void set(json_t *obj, const char *key, json_t *val)
{
	json_object_set_new(obj, key, val);
}

static inline int is_unknown(json_t *j)
{
	return json_is_object(j) && json_object_get(j, "unknown");
}

/* A sysfs string, or unknown naming the failure; empty counts as unread. */
static inline json_t *fs_str(const char *path)
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

static inline json_t *fs_u64(const char *path)
{
	uint64_t v;

	if (il_fs_read_u64(path, &v))
		return il_unknown(il_errmsg());
	return json_integer((json_int_t)v);
}

static inline json_t *fs_bool(const char *path)
{
	uint64_t v;

	if (il_fs_read_u64(path, &v))
		return il_unknown(il_errmsg());
	return json_boolean(v != 0);
}

static inline int fs_isdir(const char *path)
{
	char p[4096];
	struct stat st;

	return !stat(il_fs_path(path, p, sizeof(p)), &st) && S_ISDIR(st.st_mode);
}

/*
 * The path of file @f of cpuidle state @k of @cpu, into @buf; for the
 * per-state reads of the fingerprint and the snapshots.
 */
static inline const char *cpuidle_file(char *buf, size_t len, int cpu, int k,
				       const char *f)
{
	snprintf(buf, len, CPU_SYS "/cpu%d/cpuidle/state%d/%s", cpu, k, f);
	return buf;
}

/*
 * Whether @cpu has cpuidle states: NULL if it has, else the unknown value
 * that says why not, for the caller to return in their place.
 */
static inline json_t *cpuidle_absent(int cpu)
{
	char path[256];

	snprintf(path, sizeof(path), CPU_SYS "/cpu%d/cpuidle", cpu);
	if (fs_isdir(path))
		return NULL;
	return unknownf("no %s: no cpuidle driver has registered states for cpu%d",
			path, cpu);
}

struct cpuinfo {
	char *text;		/* NULL if unreadable */
	char *flags;		/* first processor's flags, or NULL */
	char reason[512];	/* why text or flags is missing */
};

/* The value of @key in the first processor block, malloc()ed, or NULL. */
char *env_cpuinfo_field(const char *info, const char *key);
/* 1 if @word is one of the blank-separated words of @list. */
int env_has_word(const char *list, const char *word);
void env_cpuinfo_load(struct cpuinfo *ci);
void env_cpuinfo_free(struct cpuinfo *ci);
/* A cpuinfo flag as a JSON boolean, or unknown when the flags are not read. */
json_t *env_cpuinfo_flag(struct cpuinfo *ci, const char *flag);
/* The online CPUs from sysfs (fixture-aware), malloc()ed; count or -errno. */

/* The fingerprint's "cpu" section; @ecx1_out gets CPUID.1:ECX (0 if none). */
json_t *env_cpu_section(struct cpuinfo *ci, unsigned int *ecx1_out);
/* CPUID.80000007H:EDX[8], "Invariant TSC", or unknown. */
json_t *env_cpuid_tsc_invariant(void);
/* CPUID.1:ECX[21], x2APIC offered by the CPU, or unknown. */
json_t *env_cpuid_x2apic(unsigned int ecx1);
/* The fingerprint's "apic" section. */
json_t *env_apic_section(struct cpuinfo *ci, unsigned int ecx1);

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

/*
 * Parse /proc/interrupts' @text into @ic; machine-wide lines go to @global.
 * Return: 0, or -errno with the reason in @why.
 */
int env_irq_parse(const char *text, struct irq_cols *ic, json_t *global,
		  char *why, size_t wlen);
void env_irq_free(struct irq_cols *ic);
/* @cpu's column of a parse (@ok), or unknown with @why. */
json_t *env_snap_irq(struct irq_cols *ic, int ok, const char *why, int cpu);

#endif
