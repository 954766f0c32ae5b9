/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cstate_wake.h - what cstate_wake.c takes from cstate_wake_states.c (the
 * name of the idle state a run asks for, and what the module says it
 * entered for an ACPI state, IDLELAB_METHOD_ACPI) and from
 * cstate_wake_lead.c (each on-time sample's t_entry judged against its
 * wake, the entry_lead_* attributes).
 */
#ifndef IDLELAB_CSTATE_WAKE_H
#define IDLELAB_CSTATE_WAKE_H

#include "bench.h"
#include <uapi/idlelab.h>

#include <stddef.h>
#include <stdint.h>

/* The bm parameter's choices, in the UAPI's IDLELAB_ACPI_BM_* order. */
extern const char *const cw_bm_choices[];

void cw_state_name(int cpu, unsigned int hint, char *out, size_t len);
void cw_acpi_attrs(struct il_run *run, int cpu, unsigned int index, int bm,
		   uint32_t acpi_out);

/* What bounds a run's leads: its wake source and longest launch, ns. */
struct cw_lead_rule {
	int wake_source;	/* IDLELAB_WAKE_* */
	uint64_t l_max;
};

/* One measured CPU's leads (t_launch - t_entry, ns) of on-time samples. */
struct cw_lead {
	uint64_t n, out;	/* judged, and outside their bound */
	int64_t min, max;
};

/* The bound [*lo, *hi] (ns) on an on-time sample's lead under rule @r. */
void cw_lead_bound(const struct cw_lead_rule *r, int64_t *lo, int64_t *hi);
/* Judge on-time sample @s and add its lead to @l. */
void cw_lead_add(struct cw_lead *l, const struct cw_lead_rule *r,
		 const struct idlelab_cstate_sample *s, uint64_t khz);
/* entry_lead_samples, _out_of_bounds, _min_ns and _max_ns of @cpu. */
void cw_lead_attrs(struct il_run *run, int cpu, const struct cw_lead *l);

#endif /* IDLELAB_CSTATE_WAKE_H */
