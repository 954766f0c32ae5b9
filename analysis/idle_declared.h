/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idle_declared.h - what `report --kind declared` reads, shared by its
 * table (idle_declared.c) and its plots (idle_declared_plot.c): per
 * machine, kernel and wake source, the declared cpuidle states the runs
 * kept (IL_DCL_FP) and idle_sweep's samples that entered each state alone,
 * pooled over the ok runs, per idle time d and over all of them.
 */
#ifndef IDLELAB_IDLE_DECLARED_H
#define IDLELAB_IDLE_DECLARED_H

#include "advise.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct il_store;
struct il_hist;

#define IL_DCL_MAX_D	64

/*
 * A run's declared table: the one idle_sweep kept with it (attribute
 * declared_idle, JSON shaped as the fingerprint's kernel and cpuidle
 * sections), else its machine's fingerprint (runs stored before the
 * attribute).  A machine upgraded in place keeps only its latest
 * fingerprint, so the run's own is what tells its kernels apart.  The
 * join needs runs r; IL_DCL_FP is the JSON, IL_DCL_KERNEL its release.
 */
#define IL_DCL_JOIN \
	" JOIN machines m ON m.uuid = r.machine_uuid" \
	" LEFT JOIN run_attrs dcl ON dcl.run_uuid = r.uuid" \
	" AND dcl.key = 'declared_idle' AND dcl.cpu = -1" \
	" AND json_valid(dcl.value)"
#define IL_DCL_FP	" coalesce(dcl.value, m.fingerprint)"
#define IL_DCL_KERNEL \
	" CASE json_type(" IL_DCL_FP ", '$.kernel.release')" \
	" WHEN 'text' THEN json_extract(" IL_DCL_FP ", '$.kernel.release')" \
	" ELSE 'unknown' END"

/* One state's energy sums (idle_sweep's energy_in_STATE attributes). */
struct dcl_energy {
	uint64_t n;
	double sd, se, sdd, sde;	/* d in us, E in uJ */
};

struct dcl_block {
	char uuid[37], host[128], kernel[96], model[96], wake[16];
	char why[256];			/* no states: why */
	int nstates;
	struct il_adv_state st[IL_ADV_MAX_STATES];
	struct il_hist *h[IL_ADV_MAX_STATES];	/* every d */
	int nd;
	int64_t d[IL_DCL_MAX_D];
	uint64_t total[IL_DCL_MAX_D];		/* every sample at d */
	/* The samples at d that entered state k alone, and their counts. */
	struct il_hist *hd[IL_DCL_MAX_D][IL_ADV_MAX_STATES];
	uint64_t in[IL_DCL_MAX_D][IL_ADV_MAX_STATES];
	/* Energy (idle_declared_energy.c): read on some run, or why not. */
	bool en_ok;
	char en_why[256];
	struct dcl_energy en[IL_ADV_MAX_STATES];
};

/**
 * il_dcl_load() - every (machine, kernel, wake source) block of @s's ok
 * idle_sweep runs, ordered by machine label, UUID, kernel release and
 * wake source.
 * Return: the number of blocks in *@out (il_dcl_free() it), or -errno.
 */
int il_dcl_load(struct il_store *s, struct dcl_block **out);

/**
 * il_dcl_energy_load() - the energy attributes of @n blocks' runs into
 * each block (idle_declared_energy.c).  Return: 0 or -errno.
 */
int il_dcl_energy_load(struct il_store *s, struct dcl_block *v, int n);

/**
 * il_dcl_energy_fit() - the least-squares line E = @a + @b * d of @e.
 * Return: false when it has fewer than two distinct idle times.
 */
bool il_dcl_energy_fit(const struct dcl_energy *e, double *a, double *b);

/**
 * il_dcl_energy_cells() - state @k of @b's energy per wake (uJ) and its
 * energy break-even against the nearest shallower state with a fit (us),
 * or "unavailable: why", or "-" with nothing to show.
 */
void il_dcl_energy_cells(const struct dcl_block *b, int k, char *wake,
			 size_t wlen, char *be, size_t blen);

/** il_dcl_free() - the histograms of @n blocks and the array. */
void il_dcl_free(struct dcl_block *b, int n);

#endif
