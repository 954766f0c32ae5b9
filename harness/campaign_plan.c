// SPDX-License-Identifier: GPL-2.0-only
/*
 * campaign_plan.c - the expansion of parsed groups into numbered plan
 * entries (campaign.h gives the order), the resume hash, and the rough
 * duration estimates of --dry-run and the ETA.
 *
 * Design notes: one parameter from the campaign file to runs.params.
 * Follow `interval_us: [200, 1000]` under a timer_wake group's matrix
 * (data/campaigns/quick.yaml).  It is parsed once and rendered once:
 *
 *   1. text in: cy_value_text() (campaign_yaml.c) takes the YAML scalar
 *      as written;
 *   2. parsed, once: cs_parse_param() (campaign_schema.c) runs
 *      il_opts_set() from the benchmark's option table on it, at the
 *      value's own line, into a typed_val: a params block holding the
 *      uint64_t at offsetof(struct tw_params, interval_us).  The table's
 *      defaults are parsed once per group by cs_inherit() into g->base;
 *   3. carried as a field: combo_build() here copies the typed field over
 *      g->base (memcpy at the option's offset, no text), add_entry() gives
 *      each plan entry its own block (il_plan_entry.block);
 *   4. rendered, once: combo_build() calls il_run_params_json() (run_execute.c,
 *      il_opts_to_json() through the same table) once per matrix
 *      combination; add_entry() keeps a copy of that text in
 *      il_plan_entry.params_json and takes the resume hash over it;
 *   5. checked and estimated on the block: run_prevalidate() in cmd_run calls
 *      il_run_prepare() (run_execute.c), which copies the block into the run
 *      and calls the benchmark's .check op (tw_check()); the estimate is
 *      the benchmark's .estimate_ns op (tw_estimate_ns()) on the block;
 *   6. read as a field: run_entry() passes the block in il_run_request.block;
 *      il_run_prepare() copies it into run->params, which tw_setup() and
 *      the workers read as p->interval_us;
 *   7. stored as it was rendered: run_entry() also passes the entry's text
 *      in il_run_request.params_json, and store_run() (run_execute.c) writes
 *      it to runs.params unchanged.  `idlelab bench` has no plan: it parses
 *      its --param strings into a block at the command line
 *      (il_opts_parse_kvs()) and renders that once, so the runner takes a
 *      block from both.
 *
 * So the resume hash and runs.params are the same bytes (every parameter,
 * defaults included); tests/unit/test_params_once.c holds quick.yaml to
 * that.  The plan entry keeps which options the file set
 * (il_plan_entry.set), not their text: the "k=v" strings of dry-run, the
 * progress lines and the stored plan's "set" are formatted from the block
 * when they are shown (il_plan_entry_param()) and never parsed again.
 */
#include "campaign_internal.h"
#include "err.h"
#include "run_execute.h"
#include "topo.h"
#include "grow.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- expansion --------------------------------------------------------- */

uint64_t il_fnv1a64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * The order of two set options: that of their "name=value" strings under
 * strcmp(), which the stored plans' "set" arrays and the display have
 * always used.  Two names differ before either string's '=' ends it, so
 * a name's end compares as '='; the values never decide.
 */
static int cmp_set(const void *a, const void *b)
{
	const char *x = (*(const struct il_opt *const *)a)->name;
	const char *y = (*(const struct il_opt *const *)b)->name;

	for (;; x++, y++) {
		int cx = *x ? (unsigned char)*x : '=';
		int cy = *y ? (unsigned char)*y : '=';

		if (cx != cy)
			return cx - cy;
		if (!*x)
			return 0;
	}
}

/* The bytes of one option's field in a params block. */
static size_t opt_size(const struct il_opt *o)
{
	switch (o->type) {
	case IL_OPT_U64:
		return sizeof(uint64_t);
	case IL_OPT_BOOL:
		return sizeof(bool);
	case IL_OPT_ENUM:
		return sizeof(int);
	case IL_OPT_LIST:
		return sizeof(struct il_u64_list);
	}
	return 0;
}

/* One matrix combination of a group, before it is repeated. */
struct combo {
	void *blk;		/* every parameter, typed */
	int nkeys;
	const struct il_opt **keys;	/* the options the file set, cmp_set() order */
	char *json;		/* il_run_params_json(): what the store writes */
};

static void combo_free(struct combo *cb)
{
	free(cb->keys);
	free(cb->json);
	free(cb->blk);
	memset(cb, 0, sizeof(*cb));
}

/* Copy @v's field into @blk and note its option in @keys, once. */
static void apply(const struct typed_val *v, void *blk,
		  const struct il_opt **keys, int *nkeys)
{
	int i;

	memcpy((char *)blk + v->o->offset, (const char *)v->blk + v->o->offset,
	       opt_size(v->o));
	for (i = 0; i < *nkeys; i++)
		if (keys[i] == v->o)
			return;
	keys[(*nkeys)++] = v->o;
}

/*
 * The parameters of one matrix combination @idx[]: the table's defaults,
 * then the sched_fifo pass-through, the defaults block, the group's params
 * and the matrix values copied over them as typed fields.  Inheritance
 * (cs_inherit()) already left out what a later source sets, so the order
 * only documents precedence.  The set keys are kept for display only.
 */
static int combo_build(const struct group_src *g, const int *idx,
		       double scale, struct combo *cb)
{
	const struct il_bench_ops *ops = g->ops;
	size_t size = ops->params_size ? ops->params_size : 1;
	const struct il_opt *o;
	int nopts = 0, i;

	memset(cb, 0, sizeof(*cb));
	for (o = ops->opts; o && o->name; o++)
		nopts++;
	cb->keys = calloc(nopts + 1, sizeof(*cb->keys));
	cb->blk = malloc(size);
	if (!cb->keys || !cb->blk)
		goto nomem;
	memcpy(cb->blk, g->base, size);
	if (g->prio.o)
		apply(&g->prio, cb->blk, cb->keys, &cb->nkeys);
	for (i = 0; i < g->ndset; i++)
		apply(&g->dset[i], cb->blk, cb->keys, &cb->nkeys);
	for (i = 0; i < g->nset; i++)
		apply(&g->set[i], cb->blk, cb->keys, &cb->nkeys);
	for (i = 0; i < g->ndims; i++)
		apply(&g->dims[i].tv[idx[i]], cb->blk, cb->keys, &cb->nkeys);
	/* --scale acts on the finished block, so a count set in the file and
	 * a default shrink alike. */
	if (scale != 1.0)
		il_opts_scale(ops->opts, cb->blk, scale);
	if (cb->nkeys)
		qsort(cb->keys, cb->nkeys, sizeof(*cb->keys), cmp_set);
	cb->json = il_run_params_json(ops, cb->blk);
	if (!cb->json)
		goto nomem;
	return 0;
nomem:
	combo_free(cb);
	return il_errorf(-ENOMEM, "out of memory");
}

int il_plan_entry_param(const struct il_plan_entry *e, int i, char *buf,
			size_t len)
{
	const struct il_opt *o = e->set[i];
	int k = snprintf(buf, len, "%s=", o->name);

	if (k < 0 || (size_t)k >= len)
		return -EINVAL;
	return il_opts_format(o, e->block, buf + k, len - k) < 0 ? -EINVAL : 0;
}

char *il_plan_entry_params(const struct il_plan_entry *e, const char *sep)
{
	char kv[1024], *s = strdup(""), *t;
	int i;

	for (i = 0; s && i < e->nset; i++) {
		if (il_plan_entry_param(e, i, kv, sizeof(kv)) ||
		    asprintf(&t, "%s%s%s", s, i ? sep : "", kv) < 0)
			t = NULL;
		free(s);
		s = t;
	}
	return s;
}

void cp_entry_free(struct il_plan_entry *e)
{
	free(e->group);
	free(e->cpus);
	free(e->events);
	free(e->set);
	free(e->params_json);
	free(e->block);
}

static int add_entry(struct ctx *x, const struct group_src *g, int gno,
		     int reps, const char *cpus, const struct combo *cb,
		     int rep)
{
	struct il_campaign *c = x->c;
	size_t size = g->ops->params_size ? g->ops->params_size : 1;
	struct il_plan_entry *e;
	char *canon;
	uint64_t h;

	if (c->nplan >= IL_PLAN_MAX)
		return cy_fail(x, g->line, NULL, "the plan has more than %d runs; split the campaign",
			       IL_PLAN_MAX);
	if (!(c->nplan & (c->nplan - 1))) {
		/* Full exactly when nplan is 0 or a power of two: double. */
		size_t cap = (size_t)c->nplan;

		if (IL_GROW(c->plan, cap, cap + 1, 1))
			return il_errorf(-ENOMEM, "out of memory");
	}
	e = &c->plan[c->nplan];
	memset(e, 0, sizeof(*e));
	c->nplan++;
	e->index = c->nplan - 1;
	e->ops = g->ops;
	e->group_no = gno;
	e->line = g->line;
	e->raw = g->s.raw;
	e->causes = g->causes;
	e->causes_lean = g->causes_lean;
	e->repetition = rep;
	e->repetitions = reps;
	e->group = strdup(g->name);
	e->cpus = strdup(cpus);
	e->events = g->s.events ? strdup(g->s.events) : NULL;
	e->set = calloc(cb->nkeys ? cb->nkeys : 1, sizeof(*e->set));
	e->block = malloc(size);
	/* A copy of the combination's one rendering, not a second one. */
	e->params_json = strdup(cb->json);
	if (!e->group || !e->cpus || (g->s.events && !e->events) ||
	    !e->set || !e->block || !e->params_json)
		return il_errorf(-ENOMEM, "out of memory");
	memcpy(e->block, cb->blk, size);
	memcpy(e->set, cb->keys, cb->nkeys * sizeof(*e->set));
	e->nset = cb->nkeys;
	/* Every parameter, defaults included: a changed default is a new
	 * configuration, never a finished one (issue 8). */
	if (asprintf(&canon, "%s|%s|%s%s%s", e->ops->name, e->cpus, e->params_json,
		     e->events ? "|events=" : "", e->events ? e->events : "") < 0)
		return il_errorf(-ENOMEM, "out of memory");
	h = il_fnv1a64(canon, strlen(canon));
	free(canon);
	snprintf(e->hash, sizeof(e->hash), "%016" PRIx64, h);
	return 0;
}

void il_plan_request(const struct il_plan_entry *e, const char *campaign,
		     struct il_run_request *req)
{
	memset(req, 0, sizeof(*req));
	req->ops = e->ops;
	req->cpus = e->cpus;
	/* Parsed once, when the plan was made; never text again. */
	req->block = e->block;
	/* Rendered once too: the resume hash was taken over this text. */
	req->params_json = e->params_json;
	req->events = e->events;
	req->keep_raw = e->raw;
	req->causes = e->causes;
	req->causes_lean = e->causes_lean;
	req->campaign = campaign;
	req->plan_index = e->index;
	req->param_hash = e->hash;
}

int cp_expand_group(struct ctx *x, const struct group_src *g, int gno)
{
	int *idx = calloc(g->ndims + 1, sizeof(int));
	double d = g->s.repetitions * x->scale + 0.5;
	int reps = d < 1 ? 1 : (int)d;
	struct combo cb;
	int first = x->c->nplan, p, i, r, ret = 0;

	if (!idx)
		return il_errorf(-ENOMEM, "out of memory");
	for (p = 0; p < g->s.ncpus && !ret; p++) {
		memset(idx, 0, (g->ndims + 1) * sizeof(int));
		for (;;) {
			ret = combo_build(g, idx, x->scale, &cb);
			for (r = 1; !ret && r <= reps; r++)
				ret = add_entry(x, g, gno, reps, g->s.cpus[p],
						&cb, r);
			combo_free(&cb);
			if (ret)
				break;
			/* Odometer: the last key turns fastest. */
			for (i = g->ndims - 1; i >= 0; i--) {
				if (++idx[i] < g->dims[i].n)
					break;
				idx[i] = 0;
			}
			if (i < 0)
				break;
		}
	}
	free(idx);
	if (!ret)
		cp_order_group(x->c->plan + first, x->c->nplan - first,
			       g->s.order, g->s.order_seed, gno);
	return ret;
}

/* A default parameter that no group's benchmark knows is a typo. */
int cp_check_default_params(struct ctx *x)
{
	const char *names[256];
	int i, j, n = 0;

	for (i = 0; i < x->defaults.nparams; i++) {
		const struct raw_kv *d = &x->defaults.params[i];
		const char *near;

		for (j = 0; j < x->ngroups; j++)
			if (il_opts_find(x->groups[j].ops->opts, d->key))
				break;
		if (j < x->ngroups)
			continue;
		for (j = 0; j < x->ngroups && n < 255; j++) {
			const struct il_opt *o;

			for (o = x->groups[j].ops->opts; o && o->name && n < 255; o++)
				names[n++] = o->name;
		}
		names[n] = NULL;
		near = il_suggest(d->key, names);
		if (near)
			return cy_fail(x, d->key_line, d->key,
				       "no benchmark of this campaign has this parameter (did you mean '%s'?)",
				       near);
		return cy_fail(x, d->key_line, d->key,
			       "no benchmark of this campaign has this parameter");
	}
	return 0;
}

bool il_plan_matches(const struct il_plan_entry *e, const char *glob)
{
	return !fnmatch(glob, e->ops->name, 0) || !fnmatch(glob, e->group, 0);
}

/* ---- estimates --------------------------------------------------------- */

/* Snapshots, counters and the commit: measured at a few tens of ms. */
#define IL_RUN_OVERHEAD_NS	(50ULL * 1000 * 1000)

/* A benchmark that declares no estimate is guessed at one second. */
#define IL_RUN_UNKNOWN_NS	(1000ULL * 1000 * 1000)

uint64_t il_plan_estimate_placed_ns(const struct il_plan_entry *e,
				    struct il_topo *topo)
{
	struct il_placement pl, *place = NULL;
	uint64_t ns = IL_RUN_UNKNOWN_NS;

	if (topo && !il_place_parse(topo, e->cpus, &pl))
		place = &pl;
	if (e->ops->estimate_ns)
		ns = e->ops->estimate_ns(e->block, place);
	if (place)
		il_place_free(place);
	return ns + IL_RUN_OVERHEAD_NS;
}
