/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlelab_apicdest.h - APIC destination arithmetic for the IPI storm.
 *
 * Given the targets of one IPI round and the local APIC's destination model,
 * compute the ICR destination writes that reach every target exactly once:
 * one per target in physical mode, one per cluster in x2APIC or xAPIC
 * cluster mode, one for the whole set in xAPIC flat mode.  It is plain C with
 * no library calls, shared by idlelab_ipi.ko and by the user-space unit test
 * (tests/unit/test_apic_dest.c), which is where the x2APIC paths are checked:
 * no machine here can run an x2APIC guest.
 *
 * The input IDs depend on the model:
 *   IL_APICDEST_XAPIC_PHYS     APIC IDs, 0..0xfe (0xff is broadcast);
 *   IL_APICDEST_X2APIC_PHYS    x2APIC IDs, 0..0xfffffffe;
 *   IL_APICDEST_XAPIC_FLAT     logical IDs, LDR[31:24], one bit set each;
 *   IL_APICDEST_XAPIC_CLUSTER  logical IDs, LDR[31:24]: cluster in bits 7:4
 *                              (0..14, 15 is broadcast), one member bit in
 *                              bits 3:0;
 *   IL_APICDEST_X2APIC_CLUSTER x2APIC IDs; the logical ID is derived as the
 *                              hardware does (SDM Vol. 3A 10.12.10.2):
 *                              cluster = id >> 4, bit = 1 << (id & 15).
 * IDs must be sorted strictly ascending (il_apicdest_sort()), which makes
 * duplicates detectable and keeps each cluster contiguous, so building the
 * writes is one linear pass.
 *
 * Errors are negative errno values (-EINVAL, -ENOSPC), spelled out here so
 * the header needs neither libc nor kernel errno headers.
 */
#ifndef IDLELAB_APICDEST_H
#define IDLELAB_APICDEST_H

#ifdef __KERNEL__
#include <linux/types.h>
typedef u32 il_u32;
typedef u64 il_u64;
#else
#include <stdint.h>
typedef uint32_t il_u32;
typedef uint64_t il_u64;
#endif

/* Same numbers as IDLELAB_DEST_* in uapi/idlelab.h. */
#define IL_APICDEST_XAPIC_PHYS		0
#define IL_APICDEST_XAPIC_FLAT		1
#define IL_APICDEST_XAPIC_CLUSTER	2
#define IL_APICDEST_X2APIC_PHYS		3
#define IL_APICDEST_X2APIC_CLUSTER	4
#define IL_APICDEST_NR_MODELS		5

#define IL_APICDEST_MAX_IDS		32768
#define IL_APICDEST_EINVAL		22
#define IL_APICDEST_ENOSPC		28

/* ICR bit 11: destination mode logical (SDM Vol. 3A 10.6.1). */
#define IL_ICR_DEST_LOGICAL		0x800U

/**
 * struct il_icr_dest - one ICR write
 * @dest:	destination field: xAPIC ICR[63:56] (8 bits) or x2APIC
 *		ICR[63:32]; for x2APIC cluster, cluster << 16 | member mask
 * @logical:	1 when ICR.DM must be logical
 * @first:	index in the sorted ID array of the first target reached
 * @nr_targets:	number of targets this write reaches
 */
struct il_icr_dest {
	il_u32 dest;
	il_u32 logical;
	il_u32 first;
	il_u32 nr_targets;
};

/* The x2APIC logical ID (the read-only LDR) of an x2APIC ID. */
static inline il_u32 il_x2apic_ldr(il_u32 apic_id)
{
	return ((apic_id >> 4) << 16) | (1U << (apic_id & 15));
}

static inline int il_is_one_bit(il_u32 v)
{
	return v && !(v & (v - 1));
}

/**
 * il_apicdest_valid_id - is @id a valid target ID in @model?
 * Return: 1 or 0.
 */
static inline int il_apicdest_valid_id(il_u32 model, il_u32 id)
{
	switch (model) {
	case IL_APICDEST_XAPIC_PHYS:
		return id < 0xff;
	case IL_APICDEST_X2APIC_PHYS:
		return id != 0xffffffffU;
	case IL_APICDEST_XAPIC_FLAT:
		return id <= 0xff && il_is_one_bit(id);
	case IL_APICDEST_XAPIC_CLUSTER:
		return id <= 0xff && (id >> 4) != 0xf &&
		       il_is_one_bit(id & 0xf);
	case IL_APICDEST_X2APIC_CLUSTER:
		/* The cluster field is 16 bits; 0xffff is broadcast. */
		return (id >> 4) < 0xffff;
	}
	return 0;
}

static inline int il_apicdest_logical(il_u32 model)
{
	return model == IL_APICDEST_XAPIC_FLAT ||
	       model == IL_APICDEST_XAPIC_CLUSTER ||
	       model == IL_APICDEST_X2APIC_CLUSTER;
}

/* The group a target belongs to: targets of one group share one write. */
static inline il_u32 il_apicdest_group(il_u32 model, il_u32 id)
{
	switch (model) {
	case IL_APICDEST_XAPIC_FLAT:
		return 0;
	case IL_APICDEST_XAPIC_CLUSTER:
		return id >> 4;
	case IL_APICDEST_X2APIC_CLUSTER:
		return id >> 4;
	}
	return id;
}

/* The destination-field bits that select @id within its group. */
static inline il_u32 il_apicdest_bits(il_u32 model, il_u32 id)
{
	switch (model) {
	case IL_APICDEST_XAPIC_FLAT:
		return id;
	case IL_APICDEST_X2APIC_CLUSTER:
		return il_x2apic_ldr(id);
	}
	/* xAPIC cluster: the cluster nibble repeats, the member bit ORs. */
	return id;
}

/**
 * il_apicdest_hits - does a write to @dest in @model reach target @id?
 *
 * The receiving side of the arithmetic, as the local APIC decides it (SDM
 * Vol. 3A 10.6.2.2), used by the unit test to check the writes.
 * Return: 1 or 0.
 */
static inline int il_apicdest_hits(il_u32 model, il_u32 dest, il_u32 id)
{
	il_u32 ldr;

	switch (model) {
	case IL_APICDEST_XAPIC_FLAT:
		return (dest & id & 0xff) != 0;
	case IL_APICDEST_XAPIC_CLUSTER:
		return (dest >> 4) == (id >> 4) && (dest & id & 0xf) != 0;
	case IL_APICDEST_X2APIC_CLUSTER:
		ldr = il_x2apic_ldr(id);
		return (dest >> 16) == (ldr >> 16) &&
		       (dest & ldr & 0xffff) != 0;
	}
	return dest == id;
}

/* il_apicdest_sort()'s step: sift @ids[@root] down the heap of @ids[0..@n). */
static inline void il_apicdest_sift(il_u32 *ids, il_u32 root, il_u32 n)
{
	il_u32 child, t;

	for (; (child = 2 * root + 1) < n; root = child) {
		if (child + 1 < n && ids[child] < ids[child + 1])
			child++;
		if (ids[root] >= ids[child])
			break;
		t = ids[root];
		ids[root] = ids[child];
		ids[child] = t;
	}
}

/**
 * il_apicdest_sort - sort @n IDs ascending, in place (heapsort)
 */
static inline void il_apicdest_sort(il_u32 *ids, il_u32 n)
{
	il_u32 start, end, t;

	if (n < 2)
		return;
	for (start = n / 2; start-- > 0; )
		il_apicdest_sift(ids, start, n);
	for (end = n - 1; end > 0; end--) {
		t = ids[0];
		ids[0] = ids[end];
		ids[end] = t;
		il_apicdest_sift(ids, 0, end);
	}
}

/**
 * il_apicdest_build - the ICR destination writes that reach @ids
 * @model:	IL_APICDEST_*
 * @ids:	target IDs in the form @model wants, sorted strictly ascending
 * @n:		1..IL_APICDEST_MAX_IDS
 * @out:	the writes, in ascending group order
 * @max_out:	capacity of @out
 *
 * Return: the number of writes, or -IL_APICDEST_EINVAL for a bad model, a
 * bad count, an invalid, duplicate or unsorted ID, or more than 8 targets in
 * xAPIC flat mode; -IL_APICDEST_ENOSPC when @out is too small.
 */
static inline int il_apicdest_build(il_u32 model, const il_u32 *ids,
				    il_u32 n, struct il_icr_dest *out,
				    il_u32 max_out)
{
	il_u32 i, nw = 0, group = 0;

	if (model >= IL_APICDEST_NR_MODELS || !ids || !out ||
	    n == 0 || n > IL_APICDEST_MAX_IDS)
		return -IL_APICDEST_EINVAL;
	for (i = 0; i < n; i++) {
		if (!il_apicdest_valid_id(model, ids[i]))
			return -IL_APICDEST_EINVAL;
		if (i && ids[i] <= ids[i - 1])
			return -IL_APICDEST_EINVAL;
	}
	for (i = 0; i < n; i++) {
		il_u32 g = il_apicdest_group(model, ids[i]);

		if (!il_apicdest_logical(model) || !nw || g != group) {
			if (nw == max_out)
				return -IL_APICDEST_ENOSPC;
			out[nw].dest = 0;
			out[nw].logical = il_apicdest_logical(model);
			out[nw].first = i;
			out[nw].nr_targets = 0;
			nw++;
			group = g;
		}
		out[nw - 1].dest |= il_apicdest_bits(model, ids[i]);
		out[nw - 1].nr_targets++;
	}
	return (int)nw;
}

/**
 * il_apicdest_icr - the 64-bit ICR image of a write
 * @model:	IL_APICDEST_*
 * @d:		one write from il_apicdest_build()
 * @low:	vector and delivery mode bits of ICR[31:0]
 *
 * xAPIC puts the 8-bit destination in ICR[63:56]; x2APIC uses ICR[63:32].
 */
static inline il_u64 il_apicdest_icr(il_u32 model, const struct il_icr_dest *d,
				     il_u32 low)
{
	il_u64 hi;

	if (model == IL_APICDEST_X2APIC_PHYS ||
	    model == IL_APICDEST_X2APIC_CLUSTER)
		hi = d->dest;
	else
		hi = (il_u64)(d->dest & 0xff) << 24;
	if (d->logical)
		low |= IL_ICR_DEST_LOGICAL;
	return hi << 32 | low;
}

#endif /* IDLELAB_APICDEST_H */
