// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_campaign_order.c - the campaign `order:` key (harness/
 * campaign_order.c): sequential keeps the expansion order (A A A B B B),
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

/* The interval_us of each plan entry as 'A' (200) or 'B' (300). */
static void arms(const struct il_campaign *c, char *buf)
{
	int i;

	for (i = 0; i < c->nplan; i++)
		buf[i] = strstr(c->plan[i].params_str, "interval_us=200") ? 'A' : 'B';
	buf[c->nplan] = '\0';
}

TEST(sequential_by_default)
{
	struct il_campaign *c = parse(HEAD);
	char a[16];

	CHECK(c && c->nplan == 6);
	if (!c)
		return;
	arms(c, a);
	CHECKF(!strcmp(a, "AAABBB"), "%s", a);
	CHECK(c->plan[0].order == IL_ORDER_SEQUENTIAL);
	il_campaign_free(c);
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
		  "t.yaml:8: key 'order_seed': only with order: random" },
		{ HEAD "    order: random\n    order_seed: x\n", "t.yaml:8: key 'order_seed'" },
		{ "name: o\ndefaults:\n  order_seed: 2\ngroups:\n  - bench: timer_wake\n",
		  "t.yaml:3: key 'order_seed': only with order: random" },
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
		const char *arm = strstr(e->params_str, "irq_mode=early") ? "early" : "late";

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

int main(void)
{
	RUN(sequential_by_default);
	RUN(interleaved);
	RUN(random_seeded);
	RUN(bad_values);
	RUN(seed003);
	return tap_done();
}
