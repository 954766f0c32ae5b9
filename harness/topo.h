/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * topo.h - topology (hwloc), CPU placement, binding and NUMA-local memory.
 *
 * The topology is loaded once per process.  Tests point it at a synthetic
 * or XML topology: il_topo_open() honours IDLELAB_TOPO_SYNTHETIC (an hwloc
 * synthetic description such as "pack:2 l3:2 core:4 pu:2") and hwloc's own
 * HWLOC_XMLFILE, so placement logic runs in CI without the hardware.
 *
 * Placement specs (the --cpus argument and a campaign's "placement" key):
 *   all                   every online CPU
 *   0,2,4-7               explicit lists and ranges of OS CPU numbers
 *   one-per-core          the first PU of every core
 *   one-per-l3            the first PU under every L3 cache
 *   pairs:smt             PU pairs sharing a core
 *   pairs:l3              PU pairs on different cores sharing an L3
 *   pairs:cross-l3        PU pairs in one package, different L3s
 *   pairs:cross-package   PU pairs in different packages
 *   pairs:A-B[,C-D...]    explicit pairs
 *
 * Errors follow err.h: -EINVAL for a malformed spec, -ENODEV for a CPU that
 * does not exist or is offline, -ENOENT when a relation has no pair on this
 * machine; each with a message naming the spec.
 */
#ifndef IDLELAB_TOPO_H
#define IDLELAB_TOPO_H

#include <stddef.h>

#define IL_MAX_CPUS	4096

struct il_topo;

enum il_place_kind {
	IL_PLACE_CPUS,
	IL_PLACE_PAIRS,
};

struct il_pair {
	int a;
	int b;
};

/* The relation between two CPUs, closest first. */
enum il_relation {
	IL_REL_SAME,		/* the same PU */
	IL_REL_SMT,		/* same core */
	IL_REL_L3,		/* different cores, same L3 */
	IL_REL_CROSS_L3,	/* same package, different L3 (or no L3) */
	IL_REL_CROSS_PACKAGE,
};

struct il_placement {
	enum il_place_kind kind;
	int ncpus;
	int *cpus;		/* IL_PLACE_CPUS: sorted, unique */
	int npairs;
	struct il_pair *pairs;	/* IL_PLACE_PAIRS */
	char spec[128];		/* the spec as given */
};

int il_topo_open(struct il_topo **out);
/** il_topo_open_synthetic() - a topology from an hwloc synthetic string. */
int il_topo_open_synthetic(const char *desc, struct il_topo **out);
void il_topo_close(struct il_topo *t);

/** il_topo_hwloc() - the underlying hwloc_topology_t (as void *). */
void *il_topo_hwloc(struct il_topo *t);

/*
 * "Online" is hwloc's topology cpuset intersected with its allowed cpuset:
 * a CPU the cgroup forbids counts as offline, since no thread can use it.
 */
int il_topo_ncpus_online(struct il_topo *t);
/** il_topo_cpu_online() - 1 if OS CPU @cpu exists and is online, else 0. */
int il_topo_cpu_online(struct il_topo *t, int cpu);
/**
 * il_topo_online_list() - online CPUs, ascending, into @cpus (at most @max).
 * Return: the number of online CPUs, which may exceed @max.
 */
int il_topo_online_list(struct il_topo *t, int *cpus, int max);

/**
 * il_cpulist_parse() - a kernel CPU list ("0-3,8", as in
 * /sys/devices/system/cpu/online) into @cpus, ascending and unique.
 * Return: the number of CPUs in the list (may exceed @max; only @max are
 * written), or -EINVAL with a message for a malformed list.
 */
int il_cpulist_parse(const char *s, int *cpus, int max);

/**
 * il_place_parse() - expand a placement spec; free with il_place_free().
 *
 * pairs:RELATION is a bounded sample, not every pair: for each online CPU
 * a (ascending), its first online partner b of exactly that relation gives
 * the pair (min(a,b), max(a,b)); duplicates are dropped, at most 64 pairs
 * are kept, sorted by (a, b).  pairs:A-B,... keeps the order given.
 * @out->spec holds the spec, or its first 124 bytes and "..." if longer.
 * On error @out holds no allocation.
 */
int il_place_parse(struct il_topo *t, const char *spec,
		   struct il_placement *out);
void il_place_free(struct il_placement *p);
/**
 * il_place_cpus() - every distinct CPU of a placement, sorted.
 * Return: the number of distinct CPUs (may exceed @max; @max are written).
 */
int il_place_cpus(const struct il_placement *p, int *cpus, int max);

/**
 * il_topo_relation() - how @a and @b relate, from their hwloc ancestors.
 * A CPU missing from the topology is classed IL_REL_CROSS_PACKAGE (the
 * farthest); check il_topo_cpu_online() first where that matters.
 */
enum il_relation il_topo_relation(struct il_topo *t, int a, int b);
const char *il_relation_name(enum il_relation r);

/**
 * il_bind_self() - bind the calling thread strictly to OS CPU @cpu and check
 * with hwloc_get_cpubind() and hwloc_get_last_cpu_location() that it holds.
 * Return: 0; -ENODEV for an offline CPU; -EOPNOTSUPP for a synthetic or
 * XML topology (not this system); -errno if hwloc refuses; -EIO if the
 * binding or the last location does not match afterwards.
 */
int il_bind_self(struct il_topo *t, int cpu);

/** il_topo_cpu_node() - the NUMA node of @cpu, or -1 if unknown. */
int il_topo_cpu_node(struct il_topo *t, int cpu);

/**
 * il_alloc_local() - @size bytes bound to @cpu's NUMA node, zeroed, touched.
 * @node: set to the node the memory is on (or -1 if binding was impossible;
 *        the memory is still usable).
 * Free with il_free_local().
 */
void *il_alloc_local(struct il_topo *t, int cpu, size_t size, int *node);
void il_free_local(void *p, size_t size);

/** il_topo_xml() - the topology as hwloc XML; free() the result. */
char *il_topo_xml(struct il_topo *t);

#endif
