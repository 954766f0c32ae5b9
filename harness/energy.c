// SPDX-License-Identifier: GPL-2.0-only
/*
 * energy.c - the RAPL package energy counters through powercap (energy.h).
 */
#include "energy.h"
#include "sysfs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ZONE "/sys/class/powercap/intel-rapl:%d/%s"

static int zone_u64(int z, const char *file, uint64_t *v)
{
	char path[128];

	snprintf(path, sizeof(path), ZONE, z, file);
	return il_fs_read_u64(path, v);
}

int il_energy_open(struct il_energy *e, char *why, size_t len)
{
	char path[128];
	int z, ret;

	memset(e, 0, sizeof(*e));
	for (z = 0; z < IL_ENERGY_ZONES; z++) {
		snprintf(path, sizeof(path), "/sys/class/powercap/intel-rapl:%d", z);
		if (!il_fs_exists(path))
			break;
		ret = zone_u64(z, "energy_uj", &e->last[z]);
		if (ret) {
			snprintf(why, len, "%s/energy_uj not readable (%s)%s", path,
				 strerror(-ret), ret == -EACCES || ret == -EPERM ?
				 ": root only since Linux 5.10" : "");
			e->n = 0;
			return 0;
		}
		/* Without its range a wrap cannot be told from a reset. */
		if (zone_u64(z, "max_energy_range_uj", &e->range[z]))
			e->range[z] = 0;
		e->n = z + 1;
	}
	if (!e->n)
		snprintf(why, len, "no RAPL powercap zone (no /sys/class/powercap/intel-rapl:0)");
	return e->n;
}

int il_energy_read(struct il_energy *e, uint64_t *uj)
{
	uint64_t v;
	int z, ret;

	for (z = 0; z < e->n; z++) {
		ret = zone_u64(z, "energy_uj", &v);
		if (ret)
			return ret;
		if (v >= e->last[z])
			e->total += v - e->last[z];
		else if (e->range[z] > e->last[z])
			e->total += e->range[z] - e->last[z] + v;
		e->last[z] = v;
	}
	*uj = e->total;
	return 0;
}
