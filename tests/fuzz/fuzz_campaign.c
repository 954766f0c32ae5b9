// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_campaign.c - a campaign file through the YAML reader, the schema
 * (every benchmark's option table) and the expansion into a plan, as
 * `idlelab run` loads it (il_campaign_parse_scaled()).  Placements are
 * checked against a fixed synthetic topology of 2 packages x 2 cores x 2
 * threads, so what a run finds on any machine is the same.  A plan that
 * is accepted must name a registered benchmark at every entry, and its
 * indices must be 0..n-1, each once, whatever order the plan runs them in.
 */
#include "fuzz.h"
#include "campaign.h"
#include "topo.h"

static struct il_topo *topo;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct il_campaign *c = NULL;
	unsigned char *seen;
	int i;

	if (!topo && il_topo_open_synthetic("pack:2 core:2 pu:2", &topo))
		fuzz_fail("cannot open the synthetic topology");
	if (il_campaign_parse_scaled("fuzz.yaml", (const char *)data, size,
				     topo, 1.0, &c))
		return 0;
	seen = calloc(c->nplan ? c->nplan : 1, 1);
	if (!seen)
		fuzz_fail("out of memory");
	for (i = 0; i < c->nplan; i++) {
		int64_t x = c->plan[i].index;

		if (!c->plan[i].ops || !c->plan[i].ops->name)
			fuzz_fail("plan entry %d has no benchmark", i);
		if (x < 0 || x >= c->nplan || seen[x]++)
			fuzz_fail("plan entry %d has index %lld of %d", i,
				  (long long)x, c->nplan);
	}
	free(seen);
	il_campaign_free(c);
	return 0;
}
