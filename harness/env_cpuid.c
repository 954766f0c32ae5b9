// SPDX-License-Identifier: GPL-2.0-only
/*
 * env_cpuid.c - what CPUID says, for the fingerprint: the "cpu" section
 * (vendor, family/model/stepping, brand, hypervisor leaves, and the
 * microcode revision the kernel reports beside them), and CPUID's own
 * view of the TSC and the APIC, recorded next to the kernel's flags.
 *
 * CPUID is x86-only and cannot come from a fixture tree; this is the one
 * environment file that knows about the architecture, so elsewhere every
 * CPUID value is just JSON, "unknown" on other machines.
 */
#include "env_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define IL_HAVE_CPUID 1
#endif

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

int il_env_hypervisor(char *sig, size_t len)
{
#ifdef IL_HAVE_CPUID
	unsigned int a, b, c, d;
	char s[13];

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
		return 0;
	__cpuid(0x40000000, a, b, c, d);
	regs_str(s, b, c, d);
	trim(s);
	snprintf(sig, len, "%s", s[0] ? s : "unnamed");
	return 1;
#else
	(void)sig;
	(void)len;
	return 0;
#endif
}

json_t *env_cpu_section(struct cpuinfo *ci, unsigned int *ecx1_out)
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
		mc = env_cpuinfo_field(ci->text, "microcode");
		set(cpu, "microcode", mc && *mc ? jstr(mc) :
		    il_unknown("/proc/cpuinfo has no microcode line (not reported by this kernel or hypervisor)"));
		free(mc);
	}
	return cpu;
}

json_t *env_cpuid_tsc_invariant(void)
{
#ifdef IL_HAVE_CPUID
	if (cpuid_max_ext() >= 0x80000007) {
		unsigned int a, b, c, d;

		/* CPUID.80000007H:EDX[8], "Invariant TSC" (SDM vol. 3B
		 * 18.17.1); hypervisors often hide it even when the host
		 * TSC is invariant, so read it next to the kernel's flags. */
		__cpuid(0x80000007, a, b, c, d);
		return json_boolean(d & (1u << 8));
	}
	return il_unknown("CPUID leaf 0x80000007 is not available");
#else
	return il_unknown("CPUID is x86-only");
#endif
}

json_t *env_cpuid_x2apic(unsigned int ecx1)
{
#ifdef IL_HAVE_CPUID
	return json_boolean(ecx1 & (1u << 21));
#else
	(void)ecx1;
	return il_unknown("CPUID is x86-only");
#endif
}
