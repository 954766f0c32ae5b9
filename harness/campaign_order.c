// SPDX-License-Identifier: GPL-2.0-only
/*
 * campaign_order.c - the order in which a group's runs are planned, the
 * `order:` and `order_seed:` keys of a campaign's defaults and groups
 * (campaign.h):
 *
 *   blocks       (the default) randomised complete blocks: block k runs
 *                every configuration's k-th repetition once, in an order
 *                drawn from order_seed (default IL_ORDER_SEED_DEFAULT):
 *                B A | A B | B A.  A drift of the machine over time
 *                (temperature, other tenants) then falls on every arm
 *                alike, and no arm always runs first in its block
 *   sequential   every repetition of one configuration before the next:
 *                A A A B B B.  Only on request: a slow drift becomes a
 *                difference between the arms (issue 22 measured +21 % in
 *                an A/A test, Holm p 0.021)
 *   interleaved  repetition by repetition in expansion order: A B A B
 *   random       a random permutation of the whole group's runs, from
 *                order_seed; arms may bunch up in time, unlike blocks
 *
 * The order is applied per group, after the group is expanded, and the
 * plan indices are renumbered, so plan order is run order; `idlelab run`
 * stores it with every run (run attribute plan_order, e.g. "random
 * seed=7") and --dry-run prints it.  The permutation is Fisher-Yates
 * driven by splitmix64 seeded with order_seed + the group's number, so
 * the same file gives the same plan everywhere and two groups with one
 * seed are not shuffled alike.
 */
#include "campaign_internal.h"
#include "err.h"
#include "splitmix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const order_names[] = {
	[IL_ORDER_SEQUENTIAL] = "sequential",
	[IL_ORDER_INTERLEAVED] = "interleaved",
	[IL_ORDER_RANDOM] = "random",
	[IL_ORDER_BLOCKS] = "blocks",
	NULL,
};

const char *il_plan_order_name(enum il_plan_order o)
{
	return o <= IL_ORDER_LAST ? order_names[o] : "?";
}

int cs_parse_order(struct ctx *x, const yaml_node_t *n, const char *key,
		   struct settings *s)
{
	const char *v, *near;
	int ret, i;

	if (!strcmp(key, "order_seed")) {
		s->seed_set = true;
		s->seed_line = cy_line_of(n);
		return cy_get_uint(x, n, key, 0, UINT64_MAX >> 1, &s->order_seed);
	}
	ret = cy_want_scalar(x, n, key, "blocks, sequential, interleaved or random");
	if (ret)
		return ret;
	v = cy_scalar(n);
	for (i = 0; order_names[i]; i++)
		if (!strcmp(v, order_names[i])) {
			s->order = (enum il_plan_order)i;
			s->order_set = true;
			return 0;
		}
	near = il_suggest(v, order_names);
	if (near)
		return cy_fail(x, cy_line_of(n), key,
			       "unknown order '%s' (did you mean '%s'? use blocks, sequential, interleaved or random)",
			       v, near);
	return cy_fail(x, cy_line_of(n), key,
		       "unknown order '%s' (use blocks, sequential, interleaved or random)", v);
}

int cs_check_order(struct ctx *x, const struct settings *s)
{
	enum il_plan_order o = s->order_set ? s->order : IL_ORDER_DEFAULT;

	if (s->seed_set && !il_plan_order_seeded(o))
		return cy_fail(x, s->seed_line, "order_seed",
			       "only with order: blocks or random (the order here is %s)",
			       il_plan_order_name(o));
	return 0;
}

void cs_inherit_order(const struct settings *d, struct settings *g)
{
	if (!g->order_set)
		g->order = d->order_set ? d->order : IL_ORDER_DEFAULT;
	g->order_set = true;	/* decided: cs_check_order() reads it */
	if (!g->seed_set)
		g->order_seed = d->seed_set ? d->order_seed : IL_ORDER_SEED_DEFAULT;
}

/* Stable: equal repetitions keep their expansion order. */
static int by_repetition(const void *a, const void *b)
{
	const struct il_plan_entry *x = a, *y = b;

	if (x->repetition != y->repetition)
		return x->repetition - y->repetition;
	return (x->index > y->index) - (x->index < y->index);
}

/* Fisher-Yates over @n entries, drawing from *@st. */
static void shuffle(struct il_plan_entry *v, int n, uint64_t *st)
{
	int i;

	for (i = n - 1; i > 0; i--) {
		/* Rejection sampling: no modulo bias. */
		uint64_t lim = UINT64_MAX - UINT64_MAX % (uint64_t)(i + 1), r;
		struct il_plan_entry t;
		int j;

		do
			r = il_splitmix64(st);
		while (r >= lim);
		j = (int)(r % (uint64_t)(i + 1));
		t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

void cp_order_group(struct il_plan_entry *v, int n, enum il_plan_order order,
		    uint64_t seed, int gno)
{
	int64_t first = n ? v[0].index : 0;
	uint64_t st = seed + (uint64_t)gno;
	int i;

	if (order == IL_ORDER_INTERLEAVED || order == IL_ORDER_BLOCKS)
		qsort(v, n, sizeof(*v), by_repetition);
	if (order == IL_ORDER_RANDOM) {
		shuffle(v, n, &st);
	} else if (order == IL_ORDER_BLOCKS) {
		int b, e;

		/* Each run of equal repetitions is one block. */
		for (b = 0; b < n; b = e) {
			for (e = b + 1; e < n && v[e].repetition == v[b].repetition; e++)
				;
			shuffle(v + b, e - b, &st);
		}
	}
	for (i = 0; i < n; i++) {
		v[i].index = first + i;
		v[i].order = order;
		v[i].order_seed = seed;
	}
}
