// SPDX-License-Identifier: GPL-2.0-only
/*
 * topo_bind.c - putting a thread on one CPU, strictly, and its buffers on
 * that CPU's NUMA node.
 *
 * Binding is checked after the fact with hwloc_get_cpubind() and
 * hwloc_get_last_cpu_location(), because a cgroup or a concurrent
 * sched_setaffinity() can leave a thread somewhere else without any call
 * failing.
 */
#include "topo.h"
#include "err.h"
#include "topo_internal.h"

#include <errno.h>
#include <hwloc.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- binding --------------------------------------------------------- */

int il_bind_self(struct il_topo *t, int cpu)
{
	hwloc_bitmap_t want, got;
	char s[256], on[256];
	int ret = 0;

	if (!il_topo_cpu_online(t, cpu)) {
		online_str(t, on, sizeof(on));
		return il_errorf(-ENODEV,
				 "cannot bind to CPU %d: it is offline or does not exist (online: %s)",
				 cpu, on);
	}
	if (!hwloc_topology_is_thissystem(t->h))
		return il_errorf(-EOPNOTSUPP,
				 "cannot bind to CPU %d: the topology is synthetic or from XML, not this system",
				 cpu);
	want = hwloc_bitmap_alloc();
	got = hwloc_bitmap_alloc();
	if (!want || !got) {
		ret = il_errorf(-ENOMEM, "out of memory binding to CPU %d", cpu);
		goto out;
	}
	hwloc_bitmap_only(want, (unsigned int)cpu);
	if (hwloc_set_cpubind(t->h, want,
			      HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT)) {
		ret = il_errorf(-errno, "cannot bind thread to CPU %d: %s", cpu,
				strerror(errno));
		goto out;
	}
	if (hwloc_get_cpubind(t->h, got, HWLOC_CPUBIND_THREAD)) {
		ret = il_errorf(-errno, "cannot read back the binding to CPU %d: %s",
				cpu, strerror(errno));
		goto out;
	}
	if (!hwloc_bitmap_isequal(got, want)) {
		hwloc_bitmap_list_snprintf(s, sizeof(s), got);
		ret = il_errorf(-EIO,
				"binding to CPU %d did not hold: the thread is bound to %s",
				cpu, s);
		goto out;
	}
	/* sched_setaffinity() migrates the caller before returning; a last
	 * location elsewhere means something rebound us meanwhile. */
	if (hwloc_get_last_cpu_location(t->h, got, HWLOC_CPUBIND_THREAD)) {
		ret = il_errorf(-errno, "cannot read where the thread runs: %s",
				strerror(errno));
		goto out;
	}
	if (!hwloc_bitmap_isincluded(got, want)) {
		hwloc_bitmap_list_snprintf(s, sizeof(s), got);
		ret = il_errorf(-EIO,
				"bound to CPU %d but the thread last ran on CPU %s",
				cpu, s);
	}
out:
	hwloc_bitmap_free(want);
	hwloc_bitmap_free(got);
	return ret;
}

/* ---- NUMA ------------------------------------------------------------ */

static size_t page_round(size_t size)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (size + pg - 1) / pg * pg;
}

/* The node of the page at @p per the kernel, or -1. */
static int page_node(void *p)
{
	void *pages[1] = { p };
	int status = -1;

	if (move_pages(0, 1, pages, NULL, &status, 0) || status < 0)
		return -1;
	return status;
}

void *il_alloc_local(struct il_topo *t, int cpu, size_t size, int *node)
{
	size_t len;
	int target = -1, bound = 0, n0, n1;
	void *p;

	if (node)
		*node = -1;
	if (!size) {
		il_errorf(-EINVAL, "il_alloc_local: zero size");
		return NULL;
	}
	len = page_round(size);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		il_errorf(-errno, "cannot map %zu bytes: %s", len,
			  strerror(errno));
		return NULL;
	}
	/* A synthetic topology's node numbers are fiction here. */
	if (hwloc_topology_is_thissystem(t->h))
		target = il_topo_cpu_node(t, cpu);
	/* mbind() straight from numaif.h: libnuma's allocators report
	 * failures on stderr, and the library must not print. */
	if (target >= 0 && numa_available() >= 0 &&
	    target <= numa_max_possible_node()) {
		struct bitmask *bm = numa_allocate_nodemask();

		if (bm) {
			numa_bitmask_setbit(bm, (unsigned int)target);
			bound = !mbind(p, len, MPOL_BIND, bm->maskp,
				       bm->size + 1, 0);
			numa_bitmask_free(bm);
		}
	}
	/* Touch every page now, so it is placed under the policy and the
	 * benchmark's first pass does not measure page faults. */
	memset(p, 0, len);
	if (bound && node) {
		n0 = page_node(p);
		n1 = page_node((char *)p + len - 1);
		*node = n0 == n1 ? n0 : -1;
	}
	return p;
}

void il_free_local(void *p, size_t size)
{
	if (p && size)
		munmap(p, page_round(size));
}
