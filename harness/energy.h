/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * energy.h - the package energy counters (RAPL) through powercap:
 * /sys/class/powercap/intel-rapl:N/energy_uj, one top-level zone per
 * package (the intel_rapl driver names AMD's the same way), read through
 * sysfs.h so a fixture tree can stand in.  The counters wrap at
 * max_energy_range_uj; il_energy_read() adds each zone's delta since the
 * last read, so a wrap between two reads is counted, not subtracted.
 *
 * Where they cannot be read (no zone: no driver, a guest without RAPL;
 * energy_uj is root-only since Linux 5.10), the reason says so; a caller
 * stores it as unavailable, never as 0 J.  Errors follow err.h.
 */
#ifndef IDLELAB_ENERGY_H
#define IDLELAB_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#define IL_ENERGY_ZONES	8

struct il_energy {
	int n;					/* zones; 0: unavailable */
	uint64_t range[IL_ENERGY_ZONES];	/* max_energy_range_uj */
	uint64_t last[IL_ENERGY_ZONES];
	uint64_t total;				/* uJ since il_energy_open() */
};

/**
 * il_energy_open() - find the package zones and read each once.
 * Return: the number of zones, or 0 with the reason in @why ("no RAPL
 * powercap zone ...", "... Permission denied ...").
 */
int il_energy_open(struct il_energy *e, char *why, size_t len);

/**
 * il_energy_read() - the energy of every zone since il_energy_open(), in
 * uJ, into *@uj.  Return: 0, or -errno from the read.
 */
int il_energy_read(struct il_energy *e, uint64_t *uj);

#endif
