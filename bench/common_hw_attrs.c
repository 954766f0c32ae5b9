// SPDX-License-Identifier: GPL-2.0-only
/*
 * common_hw_attrs.c - the run attributes the idlelab_cstate benchmarks
 * (cstate_wake, wbinvd, gaps_irqoff) take from the module's IDLELAB_HW_*
 * reply flags and, for cstate_wake, from its idle-residency counter
 * deltas: whether the run was measured under a hypervisor, whether the
 * kernel trusts the TSC, C1E promotion, WBINVD's reach, and which idle
 * state the hardware says it entered as against the one requested.  One
 * home, so the three store the same keys with the same values.
 */
#include "bench.h"
#include "common.h"
#include "kclient.h"

#include <inttypes.h>
#include <stdio.h>

_Static_assert(sizeof(((struct il_khw_res *)0)->sum) ==
	       IDLELAB_RES_NR * sizeof(uint64_t), "one sum per counter");

static const char *const khw_res_name[IDLELAB_RES_NR] = {
	"core_c1", "core_c3", "core_c6", "core_c7", "pkg_c3", "pkg_c6",
	"pkg_c7", "mperf", "aperf", "pkg_c2",
};
static const unsigned int khw_res_msr[IDLELAB_RES_NR] = {
	0x660, 0x3fc, 0x3fd, 0x3fe, 0x3f8, 0x3f9, 0x3fa, 0xe7, 0xe8, 0x60d,
};

/* Why the module's vendor/model gate left counter @k unread. */
static const char *khw_gate_why(uint32_t why, int k)
{
	if (k == 7 || k == 8)
		return "CPUID.6:ECX[0] does not enumerate APERF/MPERF";
	switch (why) {
	case IDLELAB_GATE_NOT_INTEL:
		return "an Intel model-specific MSR, and this CPU is not Intel's: never read here";
	case IDLELAB_GATE_MODEL:
		return "an Intel model-specific MSR this CPU model does not document: never read here";
	default:
		return "left unread by the module's vendor/model gate";
	}
}

void il_khw_attrs(struct il_run *run, uint32_t hw, bool wbinvd)
{
	il_run_attr(run, -1, "hypervisor", "%d", !!(hw & IDLELAB_HW_HYPERVISOR));
	if (hw & IDLELAB_HW_XEN_PV)
		il_run_attr(run, -1, "xen_pv", "1");
	il_run_attr(run, -1, "tsc_unstable", "%d",
		    !!(hw & IDLELAB_HW_TSC_UNSTABLE));
	/* A flag the report lists: the kernel gave up on the TSC mid-run. */
	if (hw & IDLELAB_HW_TSC_UNSTABLE_DURING)
		il_run_attr(run, -1, "tsc_unstable_during_run",
			    "the kernel marked the TSC unstable while the run measured: its TSC times are suspect");
	il_run_attr(run, -1, "nonstop_tsc", "%d",
		    !!(hw & IDLELAB_HW_NONSTOP_TSC));
	if (hw & IDLELAB_HW_C1E_KNOWN)
		il_run_attr(run, -1, "c1e_promotion", "%s",
			    hw & IDLELAB_HW_C1E_ON ? "enabled" : "disabled");
	else
		il_run_attr(run, -1, "c1e_promotion",
			    "unavailable: MSR 0x1FC (POWER_CTL) not readable");
	if (!wbinvd)
		return;
	if (hw & IDLELAB_HW_WBINVD_INFO)
		il_run_attr(run, -1, "wbinvd_reaches_sharers", "%d",
			    !!(hw & IDLELAB_HW_WBINVD_SHARERS));
	else
		il_run_attr(run, -1, "wbinvd_reaches_sharers",
			    "unavailable: no CPUID leaf 4 / 0x8000001D cache enumeration");
}

void il_khw_calib_attrs(struct il_run *run, int cpu, uint32_t cpuid_cycles,
			uint32_t noop_cycles, uint32_t hw)
{
	if (!cpuid_cycles)
		return;
	il_run_attr(run, cpu, "cpuid_roundtrip_cycles", "%u", cpuid_cycles);
	if (hw & IDLELAB_HW_HYPERVISOR)
		il_run_attr(run, cpu, "noop_threshold_cycles", "%u",
			    noop_cycles);
	else
		il_run_attr(run, cpu, "noop_threshold_cycles",
			    "not applied: no hypervisor, every WBINVD and MWAIT is the CPU's own");
}

void il_khw_node_attr(struct il_run *run, int cpu, const char *key,
		      uint32_t node, uint32_t flags)
{
	if (!(flags & IDLELAB_DIRTY_F_VALID)) {
		il_run_attr(run, cpu, key,
			    "unavailable: the module could not look the pages up");
		return;
	}
	il_run_attr(run, cpu, key, "%u%s%s", node,
		    flags & IDLELAB_DIRTY_F_FALLBACK ?
		    " (not the CPU's node: none free there)" : "",
		    flags & IDLELAB_DIRTY_F_MIXED ?
		    " (first page; the pages span several nodes)" : "");
}

void il_khw_res_add(struct il_khw_res *r, const struct idlelab_cstate_sample *s)
{
	int k;

	if (!s->res_flags)
		return;
	r->tsc += s->res_tsc;
	r->seen |= s->res_flags;
	for (k = 0; k < IDLELAB_RES_NR64; k++)
		if (s->res_flags & (1U << k))
			r->sum[k] += s->res[k];
	/* The one counter after res[]: a 32-bit delta of its own. */
	if (s->res_flags & IDLELAB_RES_PKG_C2)
		r->sum[IDLELAB_RES_NR64] += s->res_pkg_c2;
}

/* Percent of the sampled spans that counter @k counted. */
static double khw_pct(const struct il_khw_res *r, int k)
{
	return r->tsc ? 100.0 * (double)r->sum[k] / (double)r->tsc : 0.0;
}

void il_khw_res_attrs(struct il_run *run, int cpu, const struct il_khw_res *r,
		      uint32_t avail, uint32_t hw, char *state, size_t len)
{
	/* MPERF counts in C0, and every span has some: 0 is not a count. */
	bool mperf = (r->seen & IDLELAB_RES_MPERF) && r->sum[7];
	static const char *const cstate_of[] = {
		"C1", "C3", "C6", "C7", "PC3", "PC6", "PC7",
	};
	char key[48];
	int k, deepest = -1;

	for (k = 0; k < IDLELAB_RES_NR; k++) {
		snprintf(key, sizeof(key), "res_%s_pct", khw_res_name[k]);
		if (r->gated & (1U << k)) {
			il_run_attr(run, cpu, key, "unsupported: MSR 0x%X is %s",
				    khw_res_msr[k], khw_gate_why(r->gate_why, k));
			continue;
		}
		if (!(avail & (1U << k)) || !(r->seen & (1U << k))) {
			il_run_attr(run, cpu, key,
				    "unsupported: MSR 0x%X not readable on CPU %d (rdmsr faulted)",
				    khw_res_msr[k], cpu);
			continue;
		}
		/*
		 * A counter that never moved is not evidence where an
		 * emulator answers unknown MSRs with 0 (QEMU's TCG does).
		 */
		if (!r->sum[k] && ((hw & IDLELAB_HW_HYPERVISOR) ||
				   k == 7 || k == 8)) {
			il_run_attr(run, cpu, key,
				    "unavailable: MSR 0x%X read but never advanced on CPU %d%s",
				    khw_res_msr[k], cpu,
				    hw & IDLELAB_HW_HYPERVISOR ?
				    " (under a hypervisor, which may not count it)" : "");
			continue;
		}
		il_run_attr(run, cpu, key, "%.3f", khw_pct(r, k));
		/* Core states only: the package's depends on the others. */
		if (k <= 3 && r->sum[k])
			deepest = k;
	}
	if (deepest >= 0)
		snprintf(state, len, "%s (core residency %.1f%% of the idle spans)",
			 cstate_of[deepest], khw_pct(r, deepest));
	else if (mperf)
		snprintf(state, len, khw_pct(r, 7) > 90.0 ?
			 "C0 (MPERF ran through %.1f%% of the idle spans)" :
			 "not C0 (MPERF ran %.1f%% of the idle spans; no residency counter names the state)",
			 khw_pct(r, 7));
	else if (r->gate_why == IDLELAB_GATE_NOT_INTEL)
		snprintf(state, len, "unknown: the residency MSRs are Intel's and this CPU is not (never read), and MPERF 0xE7 faulted or never advanced");
	else
		snprintf(state, len, "unknown: no residency data (MSRs 0x660, 0x3F8-0x3FE, 0x60D and MPERF 0xE7 faulted, never advanced or are not this model's)");
	il_run_attr(run, cpu, "hw_state", "%s", state);
}
