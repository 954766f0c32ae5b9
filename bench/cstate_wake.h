/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cstate_wake.h - what cstate_wake.c takes from cstate_wake_states.c: the
 * name of the idle state a run asks for, and what the module says it
 * entered for an ACPI state (IDLELAB_METHOD_ACPI).
 */
#ifndef IDLELAB_CSTATE_WAKE_H
#define IDLELAB_CSTATE_WAKE_H

#include "bench.h"

#include <stddef.h>
#include <stdint.h>

/* The bm parameter's choices, in the UAPI's IDLELAB_ACPI_BM_* order. */
extern const char *const cw_bm_choices[];

void cw_state_name(int cpu, unsigned int hint, char *out, size_t len);
void cw_acpi_attrs(struct il_run *run, int cpu, unsigned int index, int bm,
		   uint32_t acpi_out);

#endif /* IDLELAB_CSTATE_WAKE_H */
