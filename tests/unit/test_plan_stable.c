// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_plan_stable.c - a campaign planned today is the plan that older
 * idlelabs stored, byte for byte.
 *
 * `idlelab run` keeps a campaign's plan (il_campaign_plan_json(): every
 * entry's resume hash, its runs.params text and the "key=value" of what the
 * file set) in the campaigns table, and on resume compares a new expansion
 * with it entry by entry.  A change to how plan entries carry their
 * parameters that moved one byte would make every stored campaign resume
 * as "changed".  tests/fixtures/plans/plan-sha256.txt holds the SHA-256 of
 * that JSON for each campaign file there (frozen copies of
 * data/campaigns/) at --scale 1 and 0.01, made before issue 19 reworked
 * the entries; the same files must plan to the same digests today.  Each
 * plan must also survive a replay (what resume does with a stored plan)
 * and be written back to the same bytes, with the same display text.
 * The test runs from the repository root, as tests/run.sh starts it.
 */
#include "tap.h"

#include "campaign.h"
#include "campaign_stored.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURES "tests/fixtures/plans/"

/* Every entry's display text joined, to compare two plans by it. */
static char *display(const struct il_campaign *c)
{
	char *all = strdup(""), *p, *t;
	int i;

	for (i = 0; all && i < c->nplan; i++) {
		p = il_plan_entry_params(&c->plan[i], ";");
		if (!p || asprintf(&t, "%s%s\n", all, p) < 0)
			t = NULL;
		free(p);
		free(all);
		all = t;
	}
	return all;
}

/* @file at @scale plans to the digest @want, and replays to itself. */
static void check_plan(const char *file, double scale, const char *want)
{
	struct il_campaign *c = NULL;
	char path[512], got[65], *json, *again = NULL, *shown, *reshown = NULL;

	snprintf(path, sizeof(path), FIXTURES "%s", file);
	if (il_campaign_load_scaled(path, NULL, scale, &c)) {
		CHECKF(0, "%s at %g: %s", file, scale, il_errmsg());
		return;
	}
	json = il_campaign_plan_json(c);
	shown = display(c);
	CHECK(json && shown);
	if (!json || !shown)
		goto out;
	il_sha256_hex(json, strlen(json), got);
	CHECKF(!strcmp(got, want), "%s at %g: plan sha256 %s, stored %s",
	       file, scale, got, want);
	/* Resume replays the stored plan; it must write the same bytes. */
	CHECKF(!il_campaign_replay(c, json), "%s at %g: replay: %s", file,
	       scale, il_errmsg());
	again = il_campaign_plan_json(c);
	reshown = display(c);
	CHECKF(again && !strcmp(again, json), "%s at %g: replayed plan differs",
	       file, scale);
	CHECKF(reshown && !strcmp(reshown, shown),
	       "%s at %g: replayed display differs", file, scale);
out:
	free(json);
	free(again);
	free(shown);
	free(reshown);
	il_campaign_free(c);
}

TEST(plans_match_the_stored_digests)
{
	FILE *f = fopen(FIXTURES "plan-sha256.txt", "r");
	char line[512], file[256], want[65];
	double scale;
	int n = 0;

	CHECKF(f, "cannot open " FIXTURES "plan-sha256.txt");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%255s %lf %64s", file, &scale, want) != 3) {
			CHECKF(0, "bad fixture line: %s", line);
			continue;
		}
		check_plan(file, scale, want);
		n++;
	}
	fclose(f);
	/* Eight files at two scales: a truncated fixture must not pass. */
	CHECKF(n == 16, "%d fixture lines", n);
}

int main(void)
{
	RUN(plans_match_the_stored_digests);
	return tap_done();
}
