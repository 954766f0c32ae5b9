// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_campaign_order.c - the campaign `order:` key (harness/
 * campaign_order.c): blocks, the default, runs each repetition of every
 * arm in a seeded order per block (B A | A B | ...); sequential keeps the
 * expansion order (A A A B B B),
 * interleaved alternates the arms repetition by repetition (A B A B A B),
 * random is a seeded permutation that is the same for the same seed and
 * holds every run exactly once; the order and seed reach every plan entry;
 * bad values fail with FILE:LINE: key 'order'.  And seed 003's campaign:
 * at least 10 interleaved repetitions per arm, its long-run variant
 * several shorter runs per arm rather than one.
 */
#include "campaign.h"
#include "err.h"
#include "tap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define HEAD "name: o\ngroups:\n  - bench: timer_wake\n    cpus: \"0\"\n" \
	     "    repetitions: 3\n    matrix: {interval_us: [200, 300]}\n"

static struct il_campaign *parse(const char *text)
{
	struct il_campaign *c = NULL;

	if (il_campaign_parse_scaled("t.yaml", text, strlen(text), NULL, 1.0, &c))
		printf("# parse failed: %s\n", il_errmsg());
	return c;
}

/* Whether the display text of @e's set parameters contains @kv. */
static bool shows(const struct il_plan_entry *e, const char *kv)
{
	char *s = il_plan_entry_params(e, ";");
	bool found = s && strstr(s, kv);

	free(s);
	return found;
}

/* The interval_us of each plan entry as 'A' (200) or 'B' (300). */
static void arms(const struct il_campaign *c, char *buf)
{
	int i;

	for (i = 0; i < c->nplan; i++)
		buf[i] = shows(&c->plan[i], "interval_us=200") ? 'A' : 'B';
	buf[c->nplan] = '\0';
}

/*
 * Randomised blocks by default (issue 22): block k holds every arm's k-th
 * repetition once, in a seeded order; the same file plans alike, and over
 * ten blocks both orders of the two arms occur.  Sequential on request.
 */
TEST(blocks_by_default)
{
	struct il_campaign *c = parse(HEAD), *c2 = parse(HEAD);
	struct il_campaign *t = parse("name: o\ngroups:\n  - bench: timer_wake\n"
				      "    cpus: \"0\"\n    repetitions: 10\n"
				      "    matrix: {interval_us: [200, 300]}\n");
	char a[32], a2[32];
	int i, ab = 0, ba = 0;

	CHECK(c && c2 && t && c->nplan == 6 && t->nplan == 20);
	if (!c || !c2 || !t)
		goto out;
	arms(c, a);
	arms(c2, a2);
	CHECKF(!strcmp(a, a2), "%s %s: not deterministic", a, a2);
	for (i = 0; i < c->nplan; i++) {
		CHECK(c->plan[i].index == i);
		CHECK(c->plan[i].repetition == i / 2 + 1);
		CHECK(c->plan[i].order == IL_ORDER_BLOCKS);
		CHECK(c->plan[i].order_seed == IL_ORDER_SEED_DEFAULT);
	}
	for (i = 0; i < 6; i += 2)
		CHECKF(a[i] != a[i + 1], "%s: block %d lacks an arm", a, i / 2);
	arms(t, a);
	for (i = 0; i < 20; i += 2) {
		CHECKF(a[i] != a[i + 1], "%s: block %d lacks an arm", a, i / 2);
		ab += a[i] == 'A';
		ba += a[i] == 'B';
	}
	CHECKF(ab && ba, "%s: every block in one order", a);
	il_campaign_free(c);
	c = parse(HEAD "    order: sequential\n");
	CHECK(c != NULL);
	if (!c)
		goto out;
	arms(c, a);
	CHECKF(!strcmp(a, "AAABBB"), "%s", a);
	CHECK(c->plan[0].order == IL_ORDER_SEQUENTIAL);
out:
	il_campaign_free(c);
	il_campaign_free(c2);
	il_campaign_free(t);
}

TEST(interleaved)
{
	struct il_campaign *c = parse(HEAD "    order: interleaved\n");
	char a[16];
	int i;

	CHECK(c && c->nplan == 6);
	if (!c)
		return;
	arms(c, a);
	CHECKF(!strcmp(a, "ABABAB"), "%s", a);
	for (i = 0; i < c->nplan; i++) {
		CHECK(c->plan[i].index == i);
		CHECK(c->plan[i].repetition == i / 2 + 1);
		CHECK(c->plan[i].order == IL_ORDER_INTERLEAVED);
	}
	il_campaign_free(c);
	/* From the defaults too. */
	c = parse("name: o\ndefaults:\n  order: interleaved\n  repetitions: 2\n"
		  "groups:\n  - bench: timer_wake\n    cpus: \"0\"\n"
		  "    matrix: {interval_us: [200, 300]}\n");
	CHECK(c != NULL);
	if (!c)
		return;
	arms(c, a);
	CHECKF(!strcmp(a, "ABAB"), "%s", a);
	il_campaign_free(c);
}

TEST(random_seeded)
{
	struct il_campaign *c1 = parse(HEAD "    order: random\n    order_seed: 7\n");
	struct il_campaign *c2 = parse(HEAD "    order: random\n    order_seed: 7\n");
	struct il_campaign *c3 = parse(HEAD "    order: random\n");
	char a1[16], a2[16];
	int i, seen[6] = { 0 };

	CHECK(c1 && c2 && c3);
	if (!c1 || !c2 || !c3)
		goto out;
	arms(c1, a1);
	arms(c2, a2);
	CHECKF(!strcmp(a1, a2), "%s %s", a1, a2);
	CHECKF(strcmp(a1, "AAABBB"), "%s: not shuffled", a1);
	for (i = 0; i < 6; i++) {
		int k = (a1[i] == 'B') * 3 + c1->plan[i].repetition - 1;

		seen[k]++;
		CHECK(c1->plan[i].index == i);
		CHECK(c1->plan[i].order == IL_ORDER_RANDOM);
		CHECK(c1->plan[i].order_seed == 7);
		CHECK(c3->plan[i].order_seed == IL_ORDER_SEED_DEFAULT);
	}
	for (i = 0; i < 6; i++)
		CHECKF(seen[i] == 1, "run %d planned %d times", i, seen[i]);
out:
	il_campaign_free(c1);
	il_campaign_free(c2);
	il_campaign_free(c3);
}

TEST(bad_values)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ HEAD "    order: interleave\n",
		  "t.yaml:7: key 'order': unknown order 'interleave' (did you mean 'interleaved'?" },
		{ HEAD "    order: [random]\n", "t.yaml:7: key 'order'" },
		{ HEAD "    order: interleaved\n    order_seed: 3\n",
		  "t.yaml:8: key 'order_seed': only with order: blocks or random" },
		{ HEAD "    order: random\n    order_seed: x\n", "t.yaml:8: key 'order_seed'" },
		{ "name: o\ndefaults:\n  order: sequential\n  order_seed: 2\ngroups:\n  - bench: timer_wake\n",
		  "t.yaml:4: key 'order_seed': only with order: blocks or random" },
	};
	struct il_campaign *c;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = NULL;
		CHECK(il_campaign_parse_scaled("t.yaml", bad[i].text, strlen(bad[i].text),
					NULL, 1.0, &c) == -EINVAL);
		CHECKF(strstr(il_errmsg(), bad[i].msg) != NULL, "'%s' lacks '%s'",
		       il_errmsg(), bad[i].msg);
		il_campaign_free(c);
	}
}

/* Seed 003: >= 10 repetitions per arm, alternating; long runs split. */
TEST(seed003)
{
	struct il_campaign *c = NULL;
	int i, ab = 0, long_ab = 0, alternate = 1;
	const char *prev = NULL;

	CHECK(il_campaign_load_scaled("data/campaigns/seed003-c1-irq-early.yaml", NULL, 1.0, &c) == 0);
	if (!c) {
		printf("# %s\n", il_errmsg());
		return;
	}
	for (i = 0; i < c->nplan; i++) {
		const struct il_plan_entry *e = &c->plan[i];
		const char *arm = shows(e, "irq_mode=early") ? "early" : "late";

		if (strcmp(e->ops->name, "cstate_wake"))
			continue;
		CHECK(e->order == IL_ORDER_INTERLEAVED);
		if (!strcmp(e->group, "c1-ab")) {
			ab++;
			CHECK(e->repetitions >= 10);
		} else {
			long_ab++;
		}
		alternate &= !prev || strcmp(prev, arm) != 0;
		prev = arm;
	}
	CHECKF(ab >= 20, "%d runs in c1-ab", ab);
	CHECKF(long_ab >= 8, "%d runs in long-c1-ab: not several per arm", long_ab);
	CHECK(alternate);
	il_campaign_free(c);
}

/*
 * Every seed campaign can test its claim (issue 22): at least 10 runs of
 * every configuration, in blocks or interleaved, never sequential.
 */
TEST(seed_runs_testable)
{
	static const char *const files[] = {
		"data/campaigns/seed000-c3-wbinvd.yaml",
		"data/campaigns/seed001-ipi-modes.yaml",
		"data/campaigns/seed002-wake-per-state.yaml",
		"data/campaigns/seed003-c1-irq-early.yaml",
	};
	size_t f;
	int i;

	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct il_campaign *c = NULL;
		int few = 0, seq = 0;

		if (il_campaign_load_scaled(files[f], NULL, 1.0, &c)) {
			/* A kmod benchmark not built here cannot expand. */
			printf("# %s: not checked: %s\n", files[f], il_errmsg());
			continue;
		}
		for (i = 0; i < c->nplan; i++) {
			few += c->plan[i].repetitions < 10;
			seq += c->plan[i].order == IL_ORDER_SEQUENTIAL;
		}
		CHECKF(!few, "%s: %d entries with fewer than 10 repetitions", files[f], few);
		CHECKF(!seq, "%s: %d entries planned sequentially", files[f], seq);
		il_campaign_free(c);
	}
}

int main(void)
{
	RUN(blocks_by_default);
	RUN(interleaved);
	RUN(random_seeded);
	RUN(bad_values);
	RUN(seed003);
	RUN(seed_runs_testable);
	return tap_done();
}
