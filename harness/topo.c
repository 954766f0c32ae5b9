// SPDX-License-Identifier: GPL-2.0-only
/*
 * topo.c - the topology (hwloc): opening it, the online CPUs, the
 * relation between two CPUs, and the topology as XML.  CPU lists,
 * placement specs, binding and NUMA-local buffers have their own files
 * (see topo_internal.h).
 *
 * The topology is hwloc's.  "Online" here means hwloc's topology cpuset
 * intersected with its allowed cpuset: hwloc already reads
 * /sys/devices/system/cpu/online and the cgroup cpuset, and a CPU that the
 * cgroup forbids is as unusable for a benchmark thread as an offline one.
 * /sys is deliberately not consulted directly: IDLELAB_SYSFS_ROOT may point
 * at a fixture tree from another machine, which must not change where real
 * threads are placed.
 *
 * Relations between two CPUs come from their hwloc ancestors
 * (core, L3 cache, package), looked up through a table indexed by OS CPU
 * number built once at open, so classifying is O(depth), not O(CPUs).
 */
#include "topo.h"
#include "err.h"
#include "topo_internal.h"

#include <errno.h>
#include <hwloc.h>
#include <hwloc/export.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- open / close ---------------------------------------------------- */

static int topo_load(const char *synthetic, struct il_topo **out)
{
	struct il_topo *t;
	hwloc_obj_t obj = NULL;
	int last;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return il_errorf(-ENOMEM, "out of memory loading the topology");
	if (hwloc_topology_init(&t->h)) {
		free(t);
		return il_errorf(-ENOMEM, "hwloc_topology_init failed");
	}
	if (synthetic && hwloc_topology_set_synthetic(t->h, synthetic)) {
		hwloc_topology_destroy(t->h);
		free(t);
		return il_errorf(-EINVAL, "bad synthetic topology '%s'",
				 synthetic);
	}
	if (hwloc_topology_load(t->h)) {
		int e = errno ? errno : EIO;

		hwloc_topology_destroy(t->h);
		free(t);
		return il_errorf(-e, "cannot load the hwloc topology: %s",
				 strerror(e));
	}
	t->online = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(t->h));
	if (!t->online)
		goto nomem;
	hwloc_bitmap_and(t->online, t->online,
			 hwloc_topology_get_allowed_cpuset(t->h));
	last = hwloc_bitmap_last(hwloc_topology_get_topology_cpuset(t->h));
	t->npu = last < 0 ? 0 : last + 1;
	t->pu = calloc(t->npu ? (size_t)t->npu : 1, sizeof(*t->pu));
	if (!t->pu)
		goto nomem;
	while ((obj = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_PU, obj)))
		if ((int)obj->os_index < t->npu)
			t->pu[obj->os_index] = obj;
	*out = t;
	return 0;
nomem:
	il_topo_close(t);
	return il_errorf(-ENOMEM, "out of memory loading the topology");
}

int il_topo_open(struct il_topo **out)
{
	const char *syn = getenv("IDLELAB_TOPO_SYNTHETIC");

	/* HWLOC_XMLFILE needs nothing from us: hwloc honours it in load. */
	return topo_load(syn && *syn ? syn : NULL, out);
}

int il_topo_open_synthetic(const char *desc, struct il_topo **out)
{
	if (!desc || !*desc) {
		*out = NULL;
		return il_errorf(-EINVAL, "empty synthetic topology");
	}
	return topo_load(desc, out);
}

void il_topo_close(struct il_topo *t)
{
	if (!t)
		return;
	hwloc_bitmap_free(t->online);
	free(t->pu);
	hwloc_topology_destroy(t->h);
	free(t);
}

void *il_topo_hwloc(struct il_topo *t)
{
	return t->h;
}

/* ---- online CPUs ----------------------------------------------------- */

int il_topo_ncpus_online(struct il_topo *t)
{
	return hwloc_bitmap_weight(t->online);
}

int il_topo_cpu_online(struct il_topo *t, int cpu)
{
	return cpu >= 0 && cpu < IL_MAX_CPUS &&
	       hwloc_bitmap_isset(t->online, (unsigned int)cpu);
}

int il_topo_online_list(struct il_topo *t, int *cpus, int max)
{
	int n = 0, i;

	hwloc_bitmap_foreach_begin(i, t->online) {
		if (n < max)
			cpus[n] = i;
		n++;
	} hwloc_bitmap_foreach_end();
	return n;
}

/* ---- relations ------------------------------------------------------- */

enum il_relation il_topo_relation(struct il_topo *t, int a, int b)
{
	hwloc_obj_t pa = pu_obj(t, a), pb = pu_obj(t, b), x, y;

	if (!pa || !pb)
		return IL_REL_CROSS_PACKAGE;
	if (pa == pb)
		return IL_REL_SAME;
	x = ancestor(t, HWLOC_OBJ_CORE, pa);
	y = ancestor(t, HWLOC_OBJ_CORE, pb);
	if (x && x == y)
		return IL_REL_SMT;
	x = ancestor(t, HWLOC_OBJ_L3CACHE, pa);
	y = ancestor(t, HWLOC_OBJ_L3CACHE, pb);
	if (x && x == y)
		return IL_REL_L3;
	x = ancestor(t, HWLOC_OBJ_PACKAGE, pa);
	y = ancestor(t, HWLOC_OBJ_PACKAGE, pb);
	/* No package objects at all (some synthetic or XML topologies):
	 * the whole machine is one package. */
	if (x == y)
		return IL_REL_CROSS_L3;
	return IL_REL_CROSS_PACKAGE;
}

const char *il_relation_name(enum il_relation r)
{
	switch (r) {
	case IL_REL_SAME:
		return "same";
	case IL_REL_SMT:
		return "smt";
	case IL_REL_L3:
		return "l3";
	case IL_REL_CROSS_L3:
		return "cross-l3";
	case IL_REL_CROSS_PACKAGE:
		return "cross-package";
	}
	return "unknown";
}

/* ---- NUMA ------------------------------------------------------------ */

int il_topo_cpu_node(struct il_topo *t, int cpu)
{
	hwloc_obj_t pu = pu_obj(t, cpu);

	if (!pu || !pu->nodeset || hwloc_bitmap_iszero(pu->nodeset))
		return -1;
	return hwloc_bitmap_first(pu->nodeset);
}

/* ---- XML ------------------------------------------------------------- */

char *il_topo_xml(struct il_topo *t)
{
	char *buf = NULL, *copy;
	int len = 0;

	if (hwloc_topology_export_xmlbuffer(t->h, &buf, &len, 0) || !buf) {
		il_errorf(-EIO, "cannot export the topology as XML");
		return NULL;
	}
	copy = strdup(buf);
	hwloc_free_xmlbuffer(t->h, buf);
	if (!copy)
		il_errorf(-ENOMEM, "out of memory exporting the topology");
	return copy;
}
