// SPDX-License-Identifier: GPL-2.0-only
/*
 * compare_reference.c - the A/B table's runs collected the brute-force
 * way (compare_collect.h), the reference of issue 23's done-when: the
 * streaming collector (compare_collect.c) reduces each run as its rows
 * arrive, hands a run's per-CPU histogram on to its all-CPU one and
 * refuses rows out of order; here every item simply keeps a histogram of
 * its own, each row is merged into the items it belongs to wherever they
 * are, and every item is reduced once all rows are in.  With
 * IDLELAB_COMPARE_REFERENCE=1 `report --compare` takes this path, and the
 * Hodges-Lehmann shift and its Moses interval the sorted m*n differences
 * (il_ab_set_brute()); test_compare_reference.sh checks that both paths
 * print the same bytes.  Memory is a histogram per run and CPU: for
 * tests, not fleets.
 */
#include "compare_collect.h"
#include "err.h"
#include "groups.h"
#include "grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An item's own histogram: where the item is, and the histogram. */
struct held {
	int key, idx;
	bool all;
	struct il_hist *h;
};

struct reference {
	struct ab_keys *keys;
	int side;
	int n, cap;
	struct held *v;
};

/* The item of run @run, label @cpu in @list (a linear search), and its
 * histogram; made when new. */
static struct il_hist **item_hist(struct reference *c, int key, bool all,
				  struct ab_items *list, const struct il_srow *r,
				  const char *cpu, struct ab_item **out)
{
	struct ab_item *it;
	int i;

	for (i = 0; i < list->n; i++)
		if (!strcmp(list->v[i].run, r->run_uuid) &&
		    !strcmp(list->v[i].cpu, cpu))
			break;
	if (i == list->n) {
		it = ab_item_new(list, r, cpu);
		if (!it || IL_GROW(c->v, c->cap, (size_t)c->n + 1, 64))
			return NULL;
		c->v[c->n] = (struct held){ .key = key, .idx = i, .all = all,
					    .h = il_hist_new() };
		if (!c->v[c->n].h)
			return NULL;
		c->n++;
	}
	*out = &list->v[i];
	for (i = 0; i < c->n; i++)
		if (c->v[i].key == key && c->v[i].all == all &&
		    c->v[i].idx == (int)(*out - list->v))
			return &c->v[i].h;
	return NULL;
}

/* Row @r into its item of @list: histogram, summary, exact values. */
static int row_into(struct reference *c, int key, bool all,
		    struct ab_items *list, const struct il_srow *r,
		    const char *cpu)
{
	struct ab_item *it = NULL;
	struct il_hist **h = item_hist(c, key, all, list, r, cpu, &it);
	int ret;

	if (!h)
		return il_errorf(-ENOMEM, "out of memory");
	if (r->hist && (ret = il_hist_merge(*h, r->hist)))
		return ret;
	return ab_item_count(it, r);
}

static int hold(const struct il_srow *r, void *arg)
{
	struct reference *c = arg;
	struct ab_key *k;
	char cpu[32];
	int key, ret;

	if (r->is_ref && !r->hist)
		return 0;
	k = ab_key_get(c->keys, r);
	if (!k)
		return il_errorf(-ENOMEM, "out of memory");
	key = (int)(k - c->keys->v);
	il_cpu_label(r->cpu, r->cpu2, cpu, sizeof(cpu));
	ret = row_into(c, key, false, &k->side[c->side], r, cpu);
	return ret ? ret : row_into(c, key, true, &k->all[c->side], r, "all");
}

int ab_collect_reference(struct il_store *s, const struct il_analysis_opts *o,
			 struct ab_keys *keys)
{
	int nstats = o->deciles ? IL_AB_NALL : IL_AB_NSTATS;
	int i, j, st, ret = 0;

	for (i = 0; !ret && i < o->ncompare; i++) {
		struct reference c = { .keys = keys, .side = i };

		ret = il_rows_foreach_by_run(s, o->bench, o->compare[i], hold, &c);
		for (j = 0; j < c.n; j++) {
			struct ab_key *k = &keys->v[c.v[j].key];
			struct ab_item *it = &(c.v[j].all ? k->all : k->side)[i].v[c.v[j].idx];

			for (st = 0; !ret && st < IL_AB_NALL; st++)
				it->val[st] = st < nstats ?
					      ab_run_value(it, c.v[j].h, st) : NAN;
			il_hist_free(c.v[j].h);
		}
		free(c.v);
	}
	if (!ret && keys->n)
		qsort(keys->v, keys->n, sizeof(*keys->v), ab_key_cmp);
	return ret;
}
