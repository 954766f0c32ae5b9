// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_topo_bind.c - NUMA nodes of a synthetic topology, then binding and
 * NUMA-local allocation on the real machine, using CPU 0 and whatever else
 * is online (split from test_topo.c, which keeps placement and relations).
 */
#include "err.h"
#include "tap.h"
#include "topo.h"
#include "topo_fixture.h"

#include <errno.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TEST(numa_nodes_synthetic)
{
	struct il_topo *t = syn_open("pack:2 numa:1 l3:2 core:4 pu:2");
	void *p;
	int node = 7;

	if (!t)
		return;
	CHECK(il_topo_cpu_node(t, 0) == 0);
	CHECK(il_topo_cpu_node(t, 15) == 0);
	CHECK(il_topo_cpu_node(t, 16) == 1);
	CHECK(il_topo_cpu_node(t, 31) == 1);
	CHECK(il_topo_cpu_node(t, 32) == -1);
	/* Not this system: the memory is usable, the node unknown. */
	p = il_alloc_local(t, 16, 4096, &node);
	CHECK(p != NULL && node == -1);
	if (p) {
		memset(p, 1, 4096);
		il_free_local(p, 4096);
	}
	/* Binding a synthetic topology would bind to fiction. */
	CHECK(il_bind_self(t, 0) == -EOPNOTSUPP);
	CHECK(strstr(il_errmsg(), "CPU 0") != NULL);
	il_topo_close(t);
}

struct bind_result {
	struct il_topo *t;
	int ncpus, bound, on_cpu, bad_ret, last_ret;
	char msg[512];
};

/* Bound in a thread of its own so the test process keeps its affinity. */
static void *bind_thread(void *arg)
{
	struct bind_result *r = arg;
	int cpus[IL_MAX_CPUS], n, i;

	n = il_topo_online_list(r->t, cpus, IL_MAX_CPUS);
	r->ncpus = n;
	r->last_ret = il_bind_self(r->t, 0);
	if (r->last_ret)
		snprintf(r->msg, sizeof(r->msg), "%s", il_errmsg());
	r->on_cpu = sched_getcpu();
	r->bound = 0;
	for (i = 0; i < n && i < 64; i++)
		if (!il_bind_self(r->t, cpus[i]) && sched_getcpu() == cpus[i])
			r->bound++;
	r->bad_ret = il_bind_self(r->t, IL_MAX_CPUS - 1);
	if (r->bad_ret == -ENODEV && !strstr(il_errmsg(), "offline"))
		r->bad_ret = -1;
	return NULL;
}

TEST(bind_real_machine)
{
	struct bind_result r = { 0 };
	pthread_t th;

	if (il_topo_open(&r.t)) {
		CHECKF(0, "il_topo_open: %s", il_errmsg());
		return;
	}
	CHECK(il_topo_ncpus_online(r.t) >= 1);
	CHECK(pthread_create(&th, NULL, bind_thread, &r) == 0);
	pthread_join(th, NULL);
	CHECKF(r.last_ret == 0, "bind to CPU 0: %d %s", r.last_ret, r.msg);
	CHECK(r.on_cpu == 0);
	CHECKF(r.bound == (r.ncpus < 64 ? r.ncpus : 64), "bound to %d of %d",
	       r.bound, r.ncpus);
	CHECK(r.bad_ret == -ENODEV);
	il_topo_close(r.t);
}

TEST(alloc_local_real_machine)
{
	struct il_topo *t;
	size_t size = (1u << 20) + 123, i;
	unsigned char *p;
	int node = -7, zero = 1, want;

	if (il_topo_open(&t)) {
		CHECKF(0, "il_topo_open: %s", il_errmsg());
		return;
	}
	want = il_topo_cpu_node(t, 0);
	CHECK(want >= 0);
	p = il_alloc_local(t, 0, size, &node);
	CHECK(p != NULL);
	if (p) {
		for (i = 0; i < size; i++)
			zero &= p[i] == 0;
		CHECK(zero);
		memset(p, 0xa5, size);
		CHECK(p[size - 1] == 0xa5);
		/* Where libnuma works the buffer is on CPU 0's node. */
		if (numa_available() >= 0)
			CHECKF(node == want, "node %d, want %d", node, want);
		else
			CHECK(node == -1);
		il_free_local(p, size);
	}
	CHECK(il_alloc_local(t, 0, 0, &node) == NULL && node == -1);
	CHECK(strstr(il_errmsg(), "zero size") != NULL);
	il_free_local(NULL, 0);
	il_topo_close(t);
}

int main(void)
{
	RUN(numa_nodes_synthetic);
	RUN(bind_real_machine);
	RUN(alloc_local_real_machine);
	return tap_done();
}
