/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * topo_fixture.h - what the topology tests share (test_topo.c: placement
 * and relations; test_topo_bind.c: NUMA nodes, binding and allocation): the
 * main synthetic topology, and opening a synthetic one with a failed check
 * when hwloc refuses it.  Include it once, in a test's own file, after
 * tap.h.
 */
#ifndef IDLELAB_TOPO_FIXTURE_H
#define IDLELAB_TOPO_FIXTURE_H

#include "err.h"
#include "tap.h"
#include "topo.h"

#define SYN	"pack:2 l3:2 core:4 pu:2"

static inline struct il_topo *syn_open(const char *desc)
{
	struct il_topo *t = NULL;
	int ret = il_topo_open_synthetic(desc, &t);

	CHECKF(ret == 0 && t, "open '%s': %d %s", desc, ret, il_errmsg());
	return t;
}

#endif
