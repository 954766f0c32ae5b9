// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_msr_gate.c - the vendor/model gate of idlelab_cstate.ko's Intel
 * model-specific MSRs (kmod/include/idlelab_msr_gate.h).  No AMD, Zen or
 * Sapphire Rapids machine is at hand, and QEMU's TCG implements none of
 * these MSRs, so this is where "never read an Intel MSR's number on
 * another vendor's CPU" and "package C2 on the models that have it" are
 * shown: for every family and model, the module's own function.
 */
#include <stdio.h>

#include "tap.h"
#include "idlelab_msr_gate.h"

static __u32 gate(unsigned int vendor, unsigned int family,
		  unsigned int model, int aperfmperf, __u32 *why)
{
	struct il_cpu_ident c = { vendor, family, model, aperfmperf };

	return il_msr_gate(&c, why);
}

/* No Intel-only MSR on AMD, Hygon or any other vendor, whatever model. */
TEST(never_intel_msrs_elsewhere)
{
	unsigned int v, fam, mod, bad = 0;
	__u32 m, why;

	for (v = IL_CPU_AMD; v <= IL_CPU_OTHER; v++)
		for (fam = 0; fam < 0x20; fam++)
			for (mod = 0; mod < 0x100; mod++) {
				m = gate(v, fam, mod, 1, &why);
				if ((m & IL_GATE_INTEL_ONLY) ||
				    m != IL_GATE_APERFMPERF ||
				    why != IDLELAB_GATE_NOT_INTEL)
					bad++;
			}
	CHECKF(bad == 0, "%u vendor/family/model triples leaked", bad);
}

/* Zen 4 (family 0x19): APERF/MPERF only, and only where CPUID says so. */
TEST(zen4_aperf_mperf_only)
{
	__u32 why;

	CHECK(gate(IL_CPU_AMD, 0x19, 0x61, 1, &why) ==
	      (IDLELAB_RES_MPERF | IDLELAB_RES_APERF));
	CHECK(why == IDLELAB_GATE_NOT_INTEL);
	CHECK(gate(IL_CPU_AMD, 0x19, 0x61, 0, &why) == 0);
	/* QEMU TCG's -cpu max: AuthenticAMD family 6 model 6. */
	CHECK(gate(IL_CPU_AMD, 6, 6, 0, &why) == 0);
	CHECK(why == IDLELAB_GATE_NOT_INTEL);
}

/* Sapphire Rapids (6/0x8F) and Sandy Bridge on: everything, PC2 too. */
TEST(spr_has_pkg_c2)
{
	static const unsigned int models[] = {
		0x2a, 0x2d, 0x3c, 0x4f, 0x55, 0x6a, 0x8f, 0xad, 0xcf, 0xba,
	};
	unsigned int i;
	__u32 m, why;

	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		m = gate(IL_CPU_INTEL, 6, models[i], 1, &why);
		CHECKF(m == (IL_GATE_INTEL_ONLY | IL_GATE_APERFMPERF),
		       "model 0x%x: 0x%x", models[i], m);
		CHECKF(why == IDLELAB_GATE_NONE, "model 0x%x", models[i]);
	}
}

/* Nehalem/Westmere and the Silvermont Atoms: all but package C2. */
TEST(pkg_c2_model_gated)
{
	static const unsigned int models[] = {
		0x1a, 0x1e, 0x25, 0x2c, 0x2e, 0x2f, 0x37, 0x4c, 0x4d,
	};
	unsigned int i;
	__u32 m, why;

	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		m = gate(IL_CPU_INTEL, 6, models[i], 1, &why);
		CHECKF(!(m & IDLELAB_RES_PKG_C2), "model 0x%x", models[i]);
		CHECKF(m & IDLELAB_RES_CORE_C6, "model 0x%x", models[i]);
		CHECK(m & IL_GATE_SMI_COUNT);
		CHECK(why == IDLELAB_GATE_MODEL);
	}
}

/* Before Nehalem, the first Atoms, and other Intel families: none. */
TEST(old_intel_none)
{
	static const unsigned int models[] = { 0x0f, 0x17, 0x1c, 0x26, 0x36 };
	unsigned int i;
	__u32 m, why;

	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		m = gate(IL_CPU_INTEL, 6, models[i], 1, &why);
		CHECKF(m == IL_GATE_APERFMPERF, "model 0x%x: 0x%x", models[i],
		       m);
		CHECK(why == IDLELAB_GATE_MODEL);
	}
	CHECK(gate(IL_CPU_INTEL, 15, 4, 0, &why) == 0);
	CHECK(why == IDLELAB_GATE_MODEL);
}

/* The 32-bit package C2 field is bit IDLELAB_RES_NR64, the last one. */
TEST(pkg_c2_after_res_array)
{
	struct idlelab_cstate_sample s;

	CHECK(IDLELAB_RES_PKG_C2 == 1U << IDLELAB_RES_NR64);
	CHECK(IDLELAB_RES_NR == IDLELAB_RES_NR64 + 1);
	CHECK(sizeof(s.res) / sizeof(s.res[0]) == IDLELAB_RES_NR64);
	CHECK(sizeof(s) == 152);
	CHECK(sizeof(struct idlelab_cstate_req) == 144);
	CHECK(sizeof(struct idlelab_wbinvd_req) == 152);
}

int main(void)
{
	RUN(never_intel_msrs_elsewhere);
	RUN(zen4_aperf_mperf_only);
	RUN(spr_has_pkg_c2);
	RUN(pkg_c2_model_gated);
	RUN(old_intel_none);
	RUN(pkg_c2_after_res_array);
	return tap_done();
}
