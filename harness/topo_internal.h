/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * topo_internal.h - what the topology files share: the handle's layout
 * and the small lookups built on it.
 *
 * topo.c          the hwloc topology, online CPUs, relations, XML
 * topo_cpulist.c  "0,2,4-7" CPU lists
 * topo_place.c    placement specs (CPU sets and pairs)
 * topo_bind.c     strict thread binding and NUMA-local buffers
 */
#ifndef IDLELAB_TOPO_INTERNAL_H
#define IDLELAB_TOPO_INTERNAL_H

#include "topo.h"

#include <hwloc.h>
#include <stdio.h>

struct il_topo {
	hwloc_topology_t h;
	hwloc_bitmap_t online;	/* topology cpuset & allowed cpuset */
	hwloc_obj_t *pu;	/* PU object by OS index, NULL if none */
	int npu;		/* length of @pu */
};


static inline void online_str(struct il_topo *t, char *buf, size_t len)
{
	if (hwloc_bitmap_iszero(t->online))
		snprintf(buf, len, "none");
	else
		hwloc_bitmap_list_snprintf(buf, len, t->online);
}

static inline hwloc_obj_t pu_obj(struct il_topo *t, int cpu)
{
	return cpu >= 0 && cpu < t->npu ? t->pu[cpu] : NULL;
}

static inline hwloc_obj_t ancestor(struct il_topo *t, hwloc_obj_type_t type,
			    hwloc_obj_t pu)
{
	return hwloc_get_ancestor_obj_by_type(t->h, type, pu);
}

/* A decimal CPU number at *pp, digits only; 0, -EINVAL or -ERANGE. */
int topo_parse_cpu_num(const char **pp, int *out);
/* "0,2,4-7" into @set; @what and @spec shape the message.  0 or -errno. */
int topo_parse_list(const char *s, hwloc_bitmap_t set, const char *what,
		    const char *spec);

#endif
