/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * campaign_fixture.h - what test_campaign.c and test_campaign_bad.c share:
 * the running machine's topology (opened by each test's main()), and
 * parsing a campaign text against it as `idlelab run` does.  Include it
 * once, in a test's own file.
 */
#ifndef IDLELAB_CAMPAIGN_FIXTURE_H
#define IDLELAB_CAMPAIGN_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "campaign.h"
#include "err.h"
#include "topo.h"

static struct il_topo *topo;

/* Each test's first step: 0, or -1 with the reason printed. */
static inline int fixture_topo_open(void)
{
	if (il_topo_open(&topo)) {
		printf("# cannot open the topology: %s\n", il_errmsg());
		return -1;
	}
	return 0;
}

static inline struct il_campaign *parse(const char *text)
{
	struct il_campaign *c = NULL;
	int ret = il_campaign_parse_scaled("t.yaml", text, strlen(text), topo, 1.0, &c);

	if (ret)
		printf("# parse failed: %s\n", il_errmsg());
	return c;
}

#endif
