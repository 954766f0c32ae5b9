// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_apic_dest.c - exhaustive checks of the APIC destination arithmetic
 * (kmod/include/idlelab_apicdest.h) that idlelab_ipi.ko uses for its
 * physical and logical IPI storms.  x2APIC runs on no machine here, so this
 * is where its cluster arithmetic is proven: for every subset of small ID
 * universes, and for dense, sparse and 32768-CPU sets, the writes must reach
 * every target exactly once, reach no other ID, and be as few as the model
 * allows.  Needs only libc: it builds standalone with -Ikmod/include.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "idlelab_apicdest.h"

#define MAXN IL_APICDEST_MAX_IDS

static struct il_icr_dest out[MAXN];
static il_u32 ids[MAXN];

/* Number of distinct groups (writes a logical model needs) in sorted ids. */
static int groups(il_u32 model, const il_u32 *v, il_u32 n)
{
	il_u32 i;
	int g = 0;

	if (!il_apicdest_logical(model))
		return (int)n;
	for (i = 0; i < n; i++)
		if (!i || il_apicdest_group(model, v[i]) !=
			  il_apicdest_group(model, v[i - 1]))
			g++;
	return g;
}

/*
 * Build the writes for the sorted targets v[0..n) and check them against the
 * receiving side: each target hit exactly once, each non-target of the
 * universe u[0..nu) never, write count minimal.  Returns 0 when all hold.
 */
static int verify(il_u32 model, const il_u32 *v, il_u32 n,
		  const il_u32 *u, il_u32 nu)
{
	il_u32 i, w;
	int nw, bad = 0;

	nw = il_apicdest_build(model, v, n, out, MAXN);
	if (nw != groups(model, v, n)) {
		printf("# model %u n %u: %d writes, want %d\n", model, n, nw,
		       groups(model, v, n));
		return 1;
	}
	for (i = 0; i < n; i++) {
		unsigned int hits = 0;

		for (w = 0; w < (il_u32)nw; w++)
			hits += il_apicdest_hits(model, out[w].dest, v[i]);
		if (hits != 1) {
			printf("# model %u id %#x hit %u times\n", model, v[i],
			       hits);
			bad = 1;
		}
	}
	for (i = 0; i < nu; i++) {
		il_u32 k;
		int target = 0;

		for (k = 0; k < n; k++)
			if (v[k] == u[i])
				target = 1;
		if (target)
			continue;
		for (w = 0; w < (il_u32)nw; w++)
			if (il_apicdest_hits(model, out[w].dest, u[i])) {
				printf("# model %u non-target %#x hit\n",
				       model, u[i]);
				bad = 1;
			}
	}
	for (w = 0, i = 0; w < (il_u32)nw; w++) {
		if (out[w].first != i ||
		    out[w].logical != (il_u32)il_apicdest_logical(model))
			bad = 1;
		i += out[w].nr_targets;
	}
	return bad || i != n;
}

/* Every non-empty subset of a sorted universe of at most 16 IDs. */
static int all_subsets(il_u32 model, const il_u32 *u, il_u32 nu)
{
	il_u32 mask, i, n;
	il_u32 v[16];
	int failures = 0;

	for (mask = 1; mask < (1U << nu); mask++) {
		for (i = 0, n = 0; i < nu; i++)
			if (mask & (1U << i))
				v[n++] = u[i];
		failures += verify(model, v, n, u, nu);
		if (failures > 5)
			break;
	}
	return failures;
}

TEST(x2apic_ldr_formula)
{
	CHECK(il_x2apic_ldr(0) == 0x00000001);
	CHECK(il_x2apic_ldr(15) == 0x00008000);
	CHECK(il_x2apic_ldr(16) == 0x00010001);
	CHECK(il_x2apic_ldr(0x23) == 0x00020008);
	CHECK(il_x2apic_ldr(32767) == ((32767U >> 4) << 16 | 0x8000));
	CHECK(il_x2apic_ldr(0xffffe) == 0xffff4000);
}

TEST(xapic_flat_all_255_subsets)
{
	il_u32 u[8], i;

	for (i = 0; i < 8; i++)
		u[i] = 1U << i;
	CHECK(all_subsets(IL_APICDEST_XAPIC_FLAT, u, 8) == 0);
	/* The whole set is one write whose mask is the OR of the LDRs. */
	CHECK(il_apicdest_build(IL_APICDEST_XAPIC_FLAT, u, 8, out, 8) == 1);
	CHECK(out[0].dest == 0xff && out[0].nr_targets == 8);
	CHECK(il_apicdest_build(IL_APICDEST_XAPIC_FLAT, u + 1, 3, out, 8) == 1);
	CHECK(out[0].dest == 0x0e && out[0].logical == 1);
}

TEST(xapic_cluster_all_subsets)
{
	/* Three clusters, four members each, not all dense. */
	static const il_u32 u[] = { 0x01, 0x02, 0x04, 0x08, 0x31, 0x32, 0x34,
				    0x38, 0xe1, 0xe2, 0xe4, 0xe8 };

	CHECK(all_subsets(IL_APICDEST_XAPIC_CLUSTER, u, 12) == 0);
	CHECK(il_apicdest_build(IL_APICDEST_XAPIC_CLUSTER, u, 12, out, 12)
	      == 3);
	CHECK(out[0].dest == 0x0f && out[1].dest == 0x3f &&
	      out[2].dest == 0xef);
}

TEST(x2apic_cluster_all_subsets_dense_and_sparse)
{
	static const il_u32 dense[] = { 0, 1, 2, 3, 4, 5, 14, 15, 16, 17,
					31, 32 };
	static const il_u32 sparse[] = { 0, 2, 15, 16, 33, 255, 256, 4095,
					 4096, 32767, 65536, 0xfffef };

	CHECK(all_subsets(IL_APICDEST_X2APIC_CLUSTER, dense, 12) == 0);
	CHECK(all_subsets(IL_APICDEST_X2APIC_CLUSTER, sparse, 12) == 0);
}

TEST(physical_all_subsets)
{
	static const il_u32 u[] = { 0, 1, 2, 7, 8, 15, 16, 100, 200, 254 };
	static const il_u32 u2[] = { 0, 1, 255, 256, 70000, 0xfffffffe };

	CHECK(all_subsets(IL_APICDEST_XAPIC_PHYS, u, 10) == 0);
	CHECK(all_subsets(IL_APICDEST_X2APIC_PHYS, u2, 6) == 0);
}

TEST(dense_96_cpus_6_cluster_writes_vs_96_physical)
{
	il_u32 i;

	for (i = 0; i < 96; i++)
		ids[i] = i;
	CHECK(il_apicdest_build(IL_APICDEST_X2APIC_CLUSTER, ids, 96, out,
				MAXN) == 6);
	for (i = 0; i < 6; i++)
		CHECKF(out[i].dest == (i << 16 | 0xffff) &&
		       out[i].nr_targets == 16, "write %u dest %#x", i,
		       out[i].dest);
	CHECK(il_apicdest_build(IL_APICDEST_X2APIC_PHYS, ids, 96, out,
				MAXN) == 96);
	CHECK(il_apicdest_build(IL_APICDEST_XAPIC_PHYS, ids, 96, out,
				MAXN) == 96);
	CHECK(verify(IL_APICDEST_X2APIC_CLUSTER, ids, 96, ids, 96) == 0);
}

TEST(sparse_ids_smt_siblings_and_sockets)
{
	il_u32 i, n = 0;

	/* Even IDs only (one SMT sibling each): 8 per cluster. */
	for (i = 0; i < 96; i++)
		ids[n++] = 2 * i;
	CHECK(il_apicdest_build(IL_APICDEST_X2APIC_CLUSTER, ids, n, out,
				MAXN) == 12);
	CHECK(out[0].dest == 0x5555 && out[0].nr_targets == 8);
	CHECK(verify(IL_APICDEST_X2APIC_CLUSTER, ids, n, ids, n) == 0);
	/* Two sockets with IDs at 0.. and 256..; 20 each. */
	for (i = 0, n = 0; i < 20; i++)
		ids[n++] = i;
	for (i = 0; i < 20; i++)
		ids[n++] = 256 + i;
	CHECK(il_apicdest_build(IL_APICDEST_X2APIC_CLUSTER, ids, n, out,
				MAXN) == 4);
	CHECK(out[1].dest == (1U << 16 | 0xf) && out[2].dest == (16U << 16 |
	      0xffff));
}

TEST(cpus_32768_dense_and_strided)
{
	il_u32 i;
	int nw;

	for (i = 0; i < MAXN; i++)
		ids[i] = i;
	nw = il_apicdest_build(IL_APICDEST_X2APIC_CLUSTER, ids, MAXN, out,
			       MAXN);
	CHECK(nw == MAXN / 16);
	CHECK(out[nw - 1].dest == ((MAXN / 16 - 1) << 16 | 0xffff));
	CHECK(il_apicdest_build(IL_APICDEST_X2APIC_PHYS, ids, MAXN, out,
				MAXN) == MAXN);
	/* Stride 3: every cluster holds 5 or 6 targets. */
	for (i = 0; i < MAXN; i++)
		ids[i] = 3 * i;
	nw = il_apicdest_build(IL_APICDEST_X2APIC_CLUSTER, ids, MAXN, out,
			       MAXN);
	CHECK(nw == (int)((3U * (MAXN - 1)) / 16 + 1));
	CHECK(verify(IL_APICDEST_X2APIC_CLUSTER, ids, MAXN, NULL, 0) == 0);
	/* One too many. */
	CHECK(il_apicdest_build(IL_APICDEST_X2APIC_PHYS, ids, MAXN + 1, out,
				MAXN) == -IL_APICDEST_EINVAL);
}

TEST(sort_matches_qsort)
{
	il_u32 i, n, trial;
	unsigned int seed = 12345;

	for (trial = 0; trial < 200; trial++) {
		n = trial * 37 % 1000;
		for (i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			ids[i] = (seed >> 8) % (trial % 3 ? 100000 : 50);
		}
		il_apicdest_sort(ids, n);
		for (i = 1; i < n; i++)
			if (ids[i - 1] > ids[i])
				break;
		CHECKF(n < 2 || i == n, "trial %u unsorted at %u", trial, i);
	}
	/* Shuffled 32768 IDs sort back to identity, then build. */
	for (i = 0; i < MAXN; i++)
		ids[i] = (i * 7919U) % MAXN;
	il_apicdest_sort(ids, MAXN);
	for (i = 0; i < MAXN; i++)
		if (ids[i] != i)
			break;
	CHECK(i == MAXN);
}

TEST(invalid_inputs_rejected)
{
	il_u32 v[4];
	il_u32 m;

	for (m = 0; m < IL_APICDEST_NR_MODELS; m++) {
		v[0] = m == IL_APICDEST_XAPIC_FLAT ||
		       m == IL_APICDEST_XAPIC_CLUSTER ? 1 : 0;
		CHECK(il_apicdest_build(m, v, 0, out, 4) ==
		      -IL_APICDEST_EINVAL);
		CHECK(il_apicdest_build(m, NULL, 1, out, 4) ==
		      -IL_APICDEST_EINVAL);
		CHECK(il_apicdest_build(m, v, 1, NULL, 4) ==
		      -IL_APICDEST_EINVAL);
		CHECK(il_apicdest_build(m, v, 1, out, 0) ==
		      -IL_APICDEST_ENOSPC);
		/* duplicates and unsorted input */
		v[1] = v[0];
		CHECK(il_apicdest_build(m, v, 2, out, 4) ==
		      -IL_APICDEST_EINVAL);
		v[0] = v[0] ? 2 : 1;
		v[1] = v[0] == 2 ? 1 : 0;
		CHECK(il_apicdest_build(m, v, 2, out, 4) ==
		      -IL_APICDEST_EINVAL);
	}
	v[0] = 0;
	CHECK(il_apicdest_build(IL_APICDEST_NR_MODELS, v, 1, out, 4) ==
	      -IL_APICDEST_EINVAL);
	v[0] = 0xff;	/* xAPIC broadcast ID */
	CHECK(il_apicdest_build(IL_APICDEST_XAPIC_PHYS, v, 1, out, 4) ==
	      -IL_APICDEST_EINVAL);
	v[0] = 0xffffffff;
	CHECK(il_apicdest_build(IL_APICDEST_X2APIC_PHYS, v, 1, out, 4) ==
	      -IL_APICDEST_EINVAL);
	v[0] = 0x03;	/* flat: two bits */
	CHECK(il_apicdest_build(IL_APICDEST_XAPIC_FLAT, v, 1, out, 4) ==
	      -IL_APICDEST_EINVAL);
	v[0] = 0x100;	/* flat: beyond 8 bits */
	CHECK(il_apicdest_build(IL_APICDEST_XAPIC_FLAT, v, 1, out, 4) ==
	      -IL_APICDEST_EINVAL);
	v[0] = 0x20;	/* cluster: no member bit */
	CHECK(il_apicdest_build(IL_APICDEST_XAPIC_CLUSTER, v, 1, out, 4) ==
	      -IL_APICDEST_EINVAL);
	v[0] = 0xf1;	/* cluster 15 is broadcast */
	CHECK(il_apicdest_build(IL_APICDEST_XAPIC_CLUSTER, v, 1, out, 4) ==
	      -IL_APICDEST_EINVAL);
	v[0] = 0xffff0;	/* x2APIC cluster 0xffff is broadcast */
	CHECK(il_apicdest_build(IL_APICDEST_X2APIC_CLUSTER, v, 1, out, 4) ==
	      -IL_APICDEST_EINVAL);
	/* ENOSPC when there are more clusters than room. */
	v[0] = 1;
	v[1] = 17;
	v[2] = 33;
	CHECK(il_apicdest_build(IL_APICDEST_X2APIC_CLUSTER, v, 3, out, 2) ==
	      -IL_APICDEST_ENOSPC);
	CHECK(il_apicdest_build(IL_APICDEST_X2APIC_CLUSTER, v, 3, out, 3) ==
	      3);
}

TEST(icr_image)
{
	struct il_icr_dest d = { .dest = 0x0f, .logical = 1 };
	struct il_icr_dest p = { .dest = 0x12345, .logical = 0 };

	/* NMI delivery mode (0x400) with the logical bit (0x800). */
	CHECK(il_apicdest_icr(IL_APICDEST_XAPIC_FLAT, &d, 0x400) ==
	      (0x0fULL << 56 | 0xc00));
	CHECK(il_apicdest_icr(IL_APICDEST_X2APIC_PHYS, &p, 0x400) ==
	      (0x12345ULL << 32 | 0x400));
	d.dest = 0x00050003;
	CHECK(il_apicdest_icr(IL_APICDEST_X2APIC_CLUSTER, &d, 0x400) ==
	      (0x00050003ULL << 32 | 0xc00));
}

int main(void)
{
	RUN(x2apic_ldr_formula);
	RUN(xapic_flat_all_255_subsets);
	RUN(xapic_cluster_all_subsets);
	RUN(x2apic_cluster_all_subsets_dense_and_sparse);
	RUN(physical_all_subsets);
	RUN(dense_96_cpus_6_cluster_writes_vs_96_physical);
	RUN(sparse_ids_smt_siblings_and_sockets);
	RUN(cpus_32768_dense_and_strided);
	RUN(sort_matches_qsort);
	RUN(invalid_inputs_rejected);
	RUN(icr_image);
	return tap_done();
}
