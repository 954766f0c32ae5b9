/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlelab_msr_gate.h - which of Intel's model-specific idle MSRs
 * idlelab_cstate.ko may read on a CPU, decided from its vendor, family and
 * model alone, as plain C.
 *
 * rdmsr_safe() only says whether a read faults, not what the number means:
 * MSRs 0x34, 0x1FC, 0x3F8-0x3FE, 0x60D and 0x660 are defined by Intel's
 * SDM (Vol. 4) for family 6 models, and another vendor's CPU, or a
 * hypervisor posing as one, may answer a read of them with anything.  So
 * the module asks this gate first and reads only what it allows; the
 * probe then says whether the CPU really has it.  MPERF and APERF are
 * architectural on both Intel and AMD (CPUID.6:ECX[0]) and are allowed on
 * any vendor that enumerates them.
 *
 * Free of kernel headers so that tests/unit/test_msr_gate.c runs the same
 * code; the module maps boot_cpu_data's vendor to IL_CPU_*.
 */
#ifndef IDLELAB_MSR_GATE_H
#define IDLELAB_MSR_GATE_H

#include "uapi/idlelab.h"

#define IL_CPU_INTEL		0
#define IL_CPU_AMD		1	/* and Hygon, a Zen derivative */
#define IL_CPU_OTHER		2

/* The gate's answer: IDLELAB_RES_* bits, and these two. */
#define IL_GATE_SMI_COUNT	(1U << 16)	/* MSR 0x34 */
#define IL_GATE_POWER_CTL	(1U << 17)	/* MSR 0x1FC */
#define IL_GATE_INTEL_ONLY	(0x7fU | IDLELAB_RES_PKG_C2 |		\
				 IL_GATE_SMI_COUNT | IL_GATE_POWER_CTL)
#define IL_GATE_APERFMPERF	(IDLELAB_RES_MPERF | IDLELAB_RES_APERF)

struct il_cpu_ident {
	unsigned int vendor;		/* IL_CPU_* */
	unsigned int family;		/* displayed family */
	unsigned int model;		/* displayed model */
	int aperfmperf;			/* CPUID.6:ECX[0] */
};

/*
 * The first Atoms (Bonnell, Saltwell) are family 6 models after Nehalem's
 * first, yet have none of Nehalem's residency or SMI MSRs.
 */
static inline int il_gate_is_bonnell(unsigned int model)
{
	return model == 0x1c || model == 0x26 || model == 0x27 ||
	       model == 0x35 || model == 0x36;
}

/*
 * Models numbered after Sandy Bridge's first (0x2A) without its package C2
 * counter: Westmere-EP and Nehalem/Westmere-EX, and the Silvermont and
 * Airmont Atoms.
 */
static inline int il_gate_no_pkg_c2(unsigned int model)
{
	return model == 0x2c || model == 0x2e || model == 0x2f ||
	       model == 0x37 || model == 0x4a || model == 0x4c ||
	       model == 0x4d || model == 0x5a || model == 0x5d;
}

/*
 * il_msr_gate - the MSRs that may be read on @c
 * @c:		the CPU
 * @why:	out: IDLELAB_GATE_* for whatever of IL_GATE_INTEL_ONLY is left
 *		out (IDLELAB_GATE_NONE when nothing is)
 *
 * Intel family 6 from Nehalem (model 0x1A) on, the first Atoms excepted,
 * documents the SMI count, POWER_CTL and the core and package C3/C6/C7
 * and core C1 residencies; package C2 from Sandy Bridge (0x2A) on, the
 * later Nehalem-class servers and the Silvermont-class Atoms excepted.
 * Other Intel families (NetBurst, or ones newer than this list) are left
 * out until their documentation is checked.
 *
 * Return: the IDLELAB_RES_* and IL_GATE_* bits that may be read.
 */
static inline __u32 il_msr_gate(const struct il_cpu_ident *c, __u32 *why)
{
	__u32 m = c->aperfmperf ? IL_GATE_APERFMPERF : 0;

	*why = IDLELAB_GATE_NONE;
	if (c->vendor != IL_CPU_INTEL) {
		*why = IDLELAB_GATE_NOT_INTEL;
		return m;
	}
	if (c->family != 6 || c->model < 0x1a ||
	    il_gate_is_bonnell(c->model)) {
		*why = IDLELAB_GATE_MODEL;
		return m;
	}
	m |= IL_GATE_INTEL_ONLY & ~IDLELAB_RES_PKG_C2;
	if (c->model >= 0x2a && !il_gate_no_pkg_c2(c->model))
		m |= IDLELAB_RES_PKG_C2;
	else
		*why = IDLELAB_GATE_MODEL;
	return m;
}

#endif /* IDLELAB_MSR_GATE_H */
