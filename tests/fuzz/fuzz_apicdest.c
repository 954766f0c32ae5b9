// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_apicdest.c - the IPI module's request check and destination
 * arithmetic (kmod/include/idlelab_apicdest.h), the part of the modules'
 * request validation that is plain C and compiles outside the kernel.
 * The input is a model (its first byte) and up to 1024 IDs (4 bytes
 * each, little-endian), sorted as the module sorts them.  What
 * il_apicdest_build() accepts must be valid IDs whose writes reach every
 * target exactly once; what it refuses must hold an invalid ID, a
 * duplicate, or too many targets for xAPIC flat mode.
 */
#include "fuzz.h"
#include "idlelab_apicdest.h"

#include <string.h>

#define MAX_IN 1024

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static il_u32 ids[MAX_IN];
	static struct il_icr_dest out[MAX_IN];
	il_u32 model, n, i, w, hits;
	int nw, valid = 1;

	if (size < 1)
		return 0;
	model = data[0] % (IL_APICDEST_NR_MODELS + 1);
	n = (size - 1) / 4;
	if (n > MAX_IN)
		n = MAX_IN;
	for (i = 0; i < n; i++)
		memcpy(&ids[i], data + 1 + 4 * i, 4);
	if (!n)
		return 0;
	il_apicdest_sort(ids, n);
	for (i = 1; i < n; i++)
		if (ids[i] < ids[i - 1])
			fuzz_fail("il_apicdest_sort left %u before %u", ids[i - 1], ids[i]);
	nw = il_apicdest_build(model, ids, n, out, MAX_IN);
	for (i = 0; i < n && model < IL_APICDEST_NR_MODELS; i++)
		if (!il_apicdest_valid_id(model, ids[i]))
			valid = 0;
	if (nw < 0) {
		if (nw != -IL_APICDEST_EINVAL && nw != -IL_APICDEST_ENOSPC)
			fuzz_fail("unexpected error %d", nw);
		return 0;
	}
	if (model >= IL_APICDEST_NR_MODELS || !valid)
		fuzz_fail("model %u with an invalid ID was accepted", model);
	for (i = 0; i < n; i++) {
		hits = 0;
		for (w = 0; w < (il_u32)nw; w++)
			hits += il_apicdest_hits(model, out[w].dest, ids[i]) ? 1 : 0;
		if (hits != 1)
			fuzz_fail("model %u: ID %u reached by %u writes", model,
				  ids[i], hits);
	}
	for (w = 0; w < (il_u32)nw; w++)
		(void)il_apicdest_icr(model, &out[w], 0);
	return 0;
}
