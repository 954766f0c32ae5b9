// SPDX-License-Identifier: GPL-2.0-only
/*
 * cstate_wake_states.c - the idle state a cstate_wake run asks for, named
 * as the cpuidle driver names it, and for method=acpi what the module
 * reports it entered: the _CST state's entry, I/O port and bus-master
 * handling, stored with the run.  Every sample of a request enters the
 * same state the same way (the module resolves it once, before the first
 * sample), so the run's attributes say it for every sample.
 */
#include "cstate_wake.h"
#include "kclient.h"
#include "sysfs.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *const cw_bm_choices[] = { "kernel", "none", "flush", NULL };

_Static_assert(IDLELAB_ACPI_BM_KERNEL == 0 && IDLELAB_ACPI_BM_NONE == 1 &&
	       IDLELAB_ACPI_BM_FLUSH == 2, "cw_bm_choices order");

/* Attribute @f of cpuidle state @k of @cpu into @buf; 0 or -errno. */
static int cw_state_read(int cpu, int k, const char *f, char *buf, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/%s", cpu, k, f);
	return il_fs_read(path, buf, len);
}

/*
 * The cpuidle state whose MWAIT hint is @hint on @cpu, from the "MWAIT
 * 0x.." that intel_idle and ACPI FFH put in each state's desc; else
 * "MWAIT 0x..".
 */
void cw_state_name(int cpu, unsigned int hint, char *out, size_t len)
{
	char desc[128], name[64];
	const char *m;
	unsigned int h;
	int k;

	for (k = 0; k < 16; k++) {
		if (cw_state_read(cpu, k, "desc", desc, sizeof(desc)))
			break;
		m = strstr(desc, "MWAIT 0x");
		if (!m || sscanf(m, "MWAIT 0x%x", &h) != 1 || h != hint)
			continue;
		if (!cw_state_read(cpu, k, "name", name, sizeof(name))) {
			snprintf(out, len, "%s", name);
			return;
		}
	}
	/* No cpuidle state has it (no cpuidle driver, or a hint the kernel
	 * does not use): name the hint itself, which groups the same. */
	snprintf(out, len, "MWAIT 0x%02x", hint);
}

/*
 * The desc of acpi_idle's state "C<index>" on @cpu ("ACPI IOPORT 0x614"),
 * or "" when no cpuidle state has that name.
 */
static void cw_acpi_desc(int cpu, unsigned int index, char *out, size_t len)
{
	char name[64], want[16];
	int k;

	out[0] = '\0';
	snprintf(want, sizeof(want), "C%u", index);
	for (k = 0; k < 16; k++) {
		if (cw_state_read(cpu, k, "name", name, sizeof(name)))
			return;
		if (strcmp(name, want))
			continue;
		if (cw_state_read(cpu, k, "desc", out, len))
			out[0] = '\0';
		return;
	}
}

static const char *cw_acpi_entry_name(uint32_t entry)
{
	switch (entry) {
	case IDLELAB_ACPI_ENTRY_SYSTEMIO:
		return "systemio";
	case IDLELAB_ACPI_ENTRY_FFH:
		return "ffh";
	case IDLELAB_ACPI_ENTRY_HALT:
		return "halt";
	}
	return "none";
}

/*
 * cw_acpi_attrs - store what an ACPI-state run entered, from the module's
 * acpi_out word of its measured CPU @cpu (the run's first): the state's
 * index, ACPI type and entry, its I/O port, whether each entry was
 * preceded by a cache flush and followed by the PM-timer read, and the
 * processor's bus-master flags.  The bm asked for is in the parameters.
 */
void cw_acpi_attrs(struct il_run *run, int cpu, unsigned int index, int bm,
		   uint32_t o)
{
	char desc[128];

	il_run_attr(run, -1, "acpi_state", "%u", index);
	cw_acpi_desc(cpu, index, desc, sizeof(desc));
	if (desc[0])
		il_run_attr(run, -1, "acpi_state_desc", "%s", desc);
	il_run_attr(run, -1, "acpi_bm", "%s", cw_bm_choices[bm]);
	il_run_attr(run, -1, "acpi_entry", "%s",
		    cw_acpi_entry_name(IDLELAB_ACPI_OUT_ENTRY(o)));
	il_run_attr(run, -1, "acpi_type", "C%u", IDLELAB_ACPI_OUT_TYPE(o));
	if (IDLELAB_ACPI_OUT_ENTRY(o) == IDLELAB_ACPI_ENTRY_SYSTEMIO)
		il_run_attr(run, -1, "acpi_io_port", "0x%x",
			    IDLELAB_ACPI_OUT_PORT(o));
	il_run_attr(run, -1, "acpi_flush", "%d",
		    !!(o & IDLELAB_ACPI_OUT_FLUSH));
	il_run_attr(run, -1, "acpi_pmtmr_read", "%d",
		    !!(o & IDLELAB_ACPI_OUT_PMTMR));
	il_run_attr(run, -1, "acpi_bm_check", "%d",
		    !!(o & IDLELAB_ACPI_OUT_BM_CHECK));
	il_run_attr(run, -1, "acpi_bm_control", "%d",
		    !!(o & IDLELAB_ACPI_OUT_BM_CONTROL));
}
