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

/* An item while its rows arrive: where it goes, its run and label,
 * what its rows add up to, and its own histogram. */
struct held {
	int key, cpu;
	bool all;
	char *run;
	struct ab_acc acc;
	struct il_hist *h;
};

struct reference {
	struct ab_keys *keys;
	int side, nstats;
	int n, cap;
	struct held *v;
};

/* The held item of run @r, label @cpu (a linear search); made when new. */
static struct held *item_held(struct reference *c, int key, bool all,
			      const struct il_srow *r, int cpu)
{
	struct held *h;
	int i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].key == key && c->v[i].all == all &&
		    c->v[i].cpu == cpu && !strcmp(c->v[i].run, r->run_uuid))
			return &c->v[i];
	if (IL_GROW(c->v, c->cap, (size_t)c->n + 1, 64))
		return NULL;
	h = &c->v[c->n];
	memset(h, 0, sizeof(*h));
	h->key = key;
	h->cpu = cpu;
	h->all = all;
	ab_acc_start(&h->acc, r);
	h->run = strdup(r->run_uuid);
	h->h = il_hist_new();
	c->n++;
	return h->run && h->h ? h : NULL;
}

/* Row @r into its held item: histogram, summary, exact values. */
static int row_into(struct reference *c, int key, bool all,
		    const struct il_srow *r, int cpu)
{
	struct held *h = item_held(c, key, all, r, cpu);
	int ret;

	if (!h)
		return il_errorf(-ENOMEM, "out of memory");
	if (r->hist && (ret = il_hist_merge(h->h, r->hist)))
		return ret;
	return ab_acc_count(&h->acc, r);
}

static int hold(const struct il_srow *r, void *arg)
{
	struct reference *c = arg;
	struct ab_key *k;
	char cpu[32];
	int key, label, all, ret;

	if (r->is_ref && !r->hist)
		return 0;
	k = ab_key_get(c->keys, r, c->nstats);
	if (!k)
		return il_errorf(-ENOMEM, "out of memory");
	key = (int)(k - c->keys->v);
	il_cpu_label(r->cpu, r->cpu2, cpu, sizeof(cpu));
	label = ab_label_get(k, cpu);
	all = ab_label_get(k, "all");
	if (label < 0 || all < 0)
		return il_errorf(-ENOMEM, "out of memory");
	ret = row_into(c, key, false, r, label);
	return ret ? ret : row_into(c, key, true, r, all);
}

int ab_collect_reference(struct il_store *s, const struct il_analysis_opts *o,
			 struct ab_keys *keys)
{
	int i, j, ret = 0;

	for (i = 0; !ret && i < o->ncompare; i++) {
		struct reference c = {
			.keys = keys, .side = i,
			.nstats = o->deciles ? IL_AB_NALL : IL_AB_NSTATS,
		};

		ret = il_rows_foreach_by_run(s, o->bench, o->compare[i], hold, &c);
		/* Every item reduced once all its rows are in. */
		for (j = 0; j < c.n; j++) {
			struct held *h = &c.v[j];
			struct ab_key *k = &keys->v[h->key];

			if (!ret)
				ret = ab_item_put(&(h->all ? k->all : k->side)[i],
						  h->cpu, &h->acc, h->h);
			il_hist_free(h->h);
			free(h->run);
			ab_raw_ids_free(&h->acc.raw);
		}
		free(c.v);
	}
	if (!ret && keys->n)
		qsort(keys->v, keys->n, sizeof(*keys->v), ab_key_cmp);
	return ret;
}
