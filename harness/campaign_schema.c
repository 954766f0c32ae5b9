// SPDX-License-Identifier: GPL-2.0-only
/*
 * campaign_schema.c - the campaign schema below the top level: the
 * defaults block, each group (bench, placement, repetitions, params,
 * matrix) and what a group inherits from the defaults.  Parameter values
 * are checked with the benchmark's own option table (opts.h), the same
 * code that checks `idlelab bench --param`, and placements with
 * il_place_parse() against the real topology, so a campaign that cannot
 * run here fails before anything runs.
 */
#include "campaign_internal.h"
#include "bench_registry.h"
#include "err.h"
#include "topo.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- settings (defaults and groups) ------------------------------------ */

void cs_settings_free(struct settings *s)
{
	int i;

	for (i = 0; i < s->ncpus; i++)
		free(s->cpus[i]);
	free(s->cpus);
	free(s->cpus_lines);
	free(s->events);
	for (i = 0; i < s->nparams; i++) {
		free(s->params[i].key);
		free(s->params[i].val);
	}
	free(s->params);
	memset(s, 0, sizeof(*s));
}

/* How one value of a scalar-or-list node is read (cy_value_text()'s shape):
 * @in_list is true for an element of the list. */
typedef int (*value_fn)(struct ctx *x, const yaml_node_t *n, const char *key,
			bool in_list, char **out);

/*
 * The values of @n under @key, a scalar or a non-empty list of them (@empty
 * says why an empty one is refused), each read by @read, into *@vals with
 * their lines in *@lines.  *@nout counts what was read so far, so that the
 * caller frees it the same way after a failure.
 */
static int value_list(struct ctx *x, const yaml_node_t *n, const char *key,
		      const char *empty, value_fn read, char ***vals,
		      int **lines, int *nout)
{
	yaml_node_item_t *it;
	bool list = n->type == YAML_SEQUENCE_NODE;
	int i, cnt, ret;

	cnt = list ? (int)(n->data.sequence.items.top -
			   n->data.sequence.items.start) : 1;
	if (!cnt)
		return cy_fail(x, cy_line_of(n), key, "empty list: %s", empty);
	*vals = calloc(cnt, sizeof(**vals));
	*lines = calloc(cnt, sizeof(**lines));
	if (!*vals || !*lines)
		return il_errorf(-ENOMEM, "out of memory");
	if (!list) {
		*nout = 1;
		(*lines)[0] = cy_line_of(n);
		return read(x, n, key, false, &(*vals)[0]);
	}
	for (it = n->data.sequence.items.start, i = 0;
	     it < n->data.sequence.items.top; it++, i++) {
		yaml_node_t *e = cy_node(x, *it);

		*nout = i + 1;
		(*lines)[i] = cy_line_of(e);
		ret = read(x, e, key, true, &(*vals)[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* A placement spec is a string, in a list or not. */
static int read_cpus(struct ctx *x, const yaml_node_t *n, const char *key,
		     bool in_list, char **out)
{
	(void)in_list;
	return cy_get_string(x, n, key, out);
}

/* cpus: one placement spec, or a list of them (a plan dimension). */
static int parse_cpus(struct ctx *x, const yaml_node_t *n, struct settings *s)
{
	int i;

	for (i = 0; i < s->ncpus; i++)
		free(s->cpus[i]);
	free(s->cpus);
	free(s->cpus_lines);
	s->cpus = NULL;
	s->cpus_lines = NULL;
	s->ncpus = 0;
	return value_list(x, n, "cpus", "no placement to run on", read_cpus,
			  &s->cpus, &s->cpus_lines, &s->ncpus);
}

static int parse_events(struct ctx *x, const yaml_node_t *n, struct settings *s)
{
	free(s->events);
	s->events = NULL;
	s->events_set = true;
	if (cy_is_null(n))
		return 0;
	return cy_value_text(x, n, "events", true, &s->events);
}

/* params: {key: value} with values kept as text until a bench checks them. */
static int parse_params(struct ctx *x, const yaml_node_t *n, struct settings *s)
{
	yaml_node_pair_t *p;
	int ret, i = 0;

	ret = cy_check_mapping(x, n, "params", "params", NULL);
	if (ret)
		return ret;
	s->nparams = 0;
	s->params = calloc(n->data.mapping.pairs.top - n->data.mapping.pairs.start + 1,
			   sizeof(*s->params));
	if (!s->params)
		return il_errorf(-ENOMEM, "out of memory");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++, i++) {
		yaml_node_t *kn = cy_node(x, p->key), *vn = cy_node(x, p->value);
		struct raw_kv *kv = &s->params[i];

		s->nparams = i + 1;
		kv->key = strdup(cy_scalar(kn));
		kv->key_line = cy_line_of(kn);
		kv->val_line = cy_line_of(vn);
		if (!kv->key)
			return il_errorf(-ENOMEM, "out of memory");
		kv->was_list = vn->type == YAML_SEQUENCE_NODE;
		ret = cy_value_text(x, vn, kv->key, true, &kv->val);
		if (ret)
			return ret;
	}
	return 0;
}

/* A list under params is one value of a list-typed parameter; for any
 * other parameter the user almost certainly meant a matrix sweep. */
int cs_check_list_param(struct ctx *x, const struct il_bench_ops *ops,
			const struct raw_kv *kv)
{
	const struct il_opt *o = il_opts_find(ops->opts, kv->key);

	if (kv->was_list && o && o->type != IL_OPT_LIST)
		return cy_fail(x, kv->val_line, kv->key,
			       "expected one value, got a list (to run each value, put '%s' under 'matrix')",
			       kv->key);
	return 0;
}

static const char *const defaults_keys[] = {
	"cpus", "repetitions", "raw", "events", "params", "order",
	"order_seed", NULL,
};

int cs_parse_defaults(struct ctx *x, const yaml_node_t *n)
{
	struct settings *s = &x->defaults;
	yaml_node_pair_t *p;
	uint64_t v;
	int ret;

	ret = cy_check_mapping(x, n, "defaults", "defaults", defaults_keys);
	if (ret)
		return ret;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k = cy_scalar(cy_node(x, p->key));
		yaml_node_t *vn = cy_node(x, p->value);

		if (!strcmp(k, "cpus")) {
			ret = parse_cpus(x, vn, s);
		} else if (!strcmp(k, "repetitions")) {
			ret = cy_get_uint(x, vn, k, 1, 1000000, &v);
			s->repetitions = (int)v;
		} else if (!strcmp(k, "raw")) {
			ret = cy_get_bool(x, vn, k, &s->raw);
		} else if (!strcmp(k, "events")) {
			ret = parse_events(x, vn, s);
		} else if (!strncmp(k, "order", 5)) {
			ret = cs_parse_order(x, vn, k, s);
		} else {
			ret = parse_params(x, vn, s);
		}
		if (ret)
			return ret;
	}
	return cs_check_order(x, s);
}

/* ---- groups ------------------------------------------------------------ */

static const char *const group_keys[] = {
	"bench", "name", "cpus", "repetitions", "raw", "events", "params",
	"matrix", "order", "order_seed", "causes", NULL,
};

/* causes: true | false | lean (bench --causes, --causes --causes-lean). */
static int parse_causes(struct ctx *x, const yaml_node_t *vn,
			struct group_src *g)
{
	g->causes_lean = vn->type == YAML_SCALAR_NODE &&
			 !strcasecmp(cy_scalar(vn), "lean");
	if (g->causes_lean) {
		g->causes = true;
		return 0;
	}
	if (!cy_get_bool(x, vn, "causes", &g->causes))
		return 0;
	return cy_fail(x, cy_line_of(vn), "causes",
		       "expected true, false or lean, got %s%s%s",
		       vn->type == YAML_SCALAR_NODE ? "'" : "",
		       vn->type == YAML_SCALAR_NODE ? cy_scalar(vn) :
						       cy_kind_name(vn),
		       vn->type == YAML_SCALAR_NODE ? "'" : "");
}

static int fail_unknown_bench(struct ctx *x, int line, const char *name)
{
	const char *near = il_bench_suggest(name);

	if (near)
		return cy_fail(x, line, "bench", "unknown benchmark '%s' (did you mean '%s'?)",
			       name, near);
	return cy_fail(x, line, "bench", "unknown benchmark '%s' (see idlelab list)",
		       name);
}

int cs_fail_unknown_param(struct ctx *x, int line,
			  const struct il_bench_ops *ops, const char *key)
{
	const char *near = il_opts_suggest(ops->opts, key);

	if (near)
		return cy_fail(x, line, key, "benchmark %s has no parameter '%s' (did you mean '%s'?)",
			       ops->name, key, near);
	return cy_fail(x, line, key, "benchmark %s has no parameter '%s' (see idlelab list %s)",
		       ops->name, key, ops->name);
}

/*
 * Parse @val for @key with @ops's table into @out: the only place a
 * campaign's parameter text is parsed.  What comes out is typed; the plan
 * copies fields, never text (see campaign_plan.c).
 */
int cs_parse_param(struct ctx *x, const struct il_bench_ops *ops,
		   const char *key, int key_line, const char *val,
		   int val_line, struct typed_val *out)
{
	const struct il_opt *o = il_opts_find(ops->opts, key);
	char buf[1024];
	const char *msg;
	void *blk;
	size_t plen;
	int ret;

	if (!o)
		return cs_fail_unknown_param(x, key_line, ops, key);
	blk = calloc(1, ops->params_size ? ops->params_size : 1);
	if (!blk)
		return il_errorf(-ENOMEM, "out of memory");
	ret = il_opts_set(ops->opts, blk, key, val);
	if (ret) {
		char prefix[128];

		/* opts.c says "parameter 'k': ..."; the key is already named. */
		msg = il_errmsg();
		plen = (size_t)snprintf(prefix, sizeof(prefix), "parameter '%s': ", key);
		if (!strncmp(msg, prefix, plen))
			msg += plen;
		snprintf(buf, sizeof(buf), "%s", msg);
		free(blk);
		return cy_fail(x, val_line, key, "%s", buf);
	}
	out->o = o;
	out->blk = blk;
	return 0;
}

static int parse_matrix(struct ctx *x, const yaml_node_t *n, struct group_src *g)
{
	yaml_node_pair_t *p;
	int ret, i = 0, j;

	ret = cy_check_mapping(x, n, "matrix", "matrix", NULL);
	if (ret)
		return ret;
	if (n->data.mapping.pairs.start == n->data.mapping.pairs.top)
		return cy_fail(x, cy_line_of(n), "matrix",
			       "empty matrix: give at least one parameter, or leave 'matrix' out");
	g->dims = calloc(n->data.mapping.pairs.top - n->data.mapping.pairs.start,
			 sizeof(*g->dims));
	if (!g->dims)
		return il_errorf(-ENOMEM, "out of memory");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++, i++) {
		yaml_node_t *kn = cy_node(x, p->key), *vn = cy_node(x, p->value);
		struct dim *d = &g->dims[i];

		g->ndims = i + 1;
		d->key = strdup(cy_scalar(kn));
		d->key_line = cy_line_of(kn);
		if (!d->key)
			return il_errorf(-ENOMEM, "out of memory");
		if (!il_opts_find(g->ops->opts, d->key))
			return cs_fail_unknown_param(x, d->key_line, g->ops, d->key);
		for (j = 0; j < g->s.nparams; j++)
			if (!strcmp(g->s.params[j].key, d->key))
				return cy_fail(x, d->key_line, d->key,
					       "set in both params (line %d) and matrix",
					       g->s.params[j].key_line);
		/* In a list, a nested list is one value of a list-typed
		 * parameter: targets: [[1, 2, 4], [8]]. */
		ret = value_list(x, vn, d->key, "the matrix would have no runs",
				 cy_value_text, &d->vals, &d->lines, &d->n);
		if (ret)
			return ret;
		/* Parse every value now, at its own line. */
		d->tv = calloc(d->n, sizeof(*d->tv));
		if (!d->tv)
			return il_errorf(-ENOMEM, "out of memory");
		for (j = 0; j < d->n; j++) {
			ret = cs_parse_param(x, g->ops, d->key, d->key_line,
					     d->vals[j], d->lines[j], &d->tv[j]);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int cs_parse_group(struct ctx *x, const yaml_node_t *n, struct group_src *g)
{
	yaml_node_pair_t *p;
	yaml_node_t *bench = NULL, *matrix = NULL, *params = NULL;
	uint64_t v;
	int ret, i;

	g->line = cy_line_of(n);
	ret = cy_check_mapping(x, n, "groups", "a group", group_keys);
	if (ret)
		return ret;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k = cy_scalar(cy_node(x, p->key));

		if (!strcmp(k, "bench"))
			bench = cy_node(x, p->value);
		else if (!strcmp(k, "matrix"))
			matrix = cy_node(x, p->value);
		else if (!strcmp(k, "params"))
			params = cy_node(x, p->value);
	}
	if (!bench)
		return cy_fail(x, g->line, "bench", "missing: every group names a benchmark");
	ret = cy_want_scalar(x, bench, "bench", "a benchmark name");
	if (ret)
		return ret;
	g->ops = il_bench_find(cy_scalar(bench));
	if (!g->ops)
		return fail_unknown_bench(x, cy_line_of(bench), cy_scalar(bench));

	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k = cy_scalar(cy_node(x, p->key));
		yaml_node_t *vn = cy_node(x, p->value);

		ret = 0;
		if (!strcmp(k, "name")) {
			ret = cy_get_string(x, vn, k, &g->name);
		} else if (!strcmp(k, "cpus")) {
			ret = parse_cpus(x, vn, &g->s);
			g->has_cpus = true;
		} else if (!strcmp(k, "repetitions")) {
			ret = cy_get_uint(x, vn, k, 1, 1000000, &v);
			g->s.repetitions = (int)v;
			g->has_reps = true;
		} else if (!strcmp(k, "raw")) {
			ret = cy_get_bool(x, vn, k, &g->s.raw);
			g->has_raw = true;
		} else if (!strcmp(k, "events")) {
			ret = parse_events(x, vn, &g->s);
		} else if (!strncmp(k, "order", 5)) {
			ret = cs_parse_order(x, vn, k, &g->s);
		} else if (!strcmp(k, "causes")) {
			ret = parse_causes(x, vn, g);
		}
		if (ret)
			return ret;
	}
	if (!g->name) {
		g->name = strdup(g->ops->name);
		if (!g->name)
			return il_errorf(-ENOMEM, "out of memory");
	}
	if (params) {
		ret = parse_params(x, params, &g->s);
		if (ret)
			return ret;
		g->set = calloc(g->s.nparams + 1, sizeof(*g->set));
		if (!g->set)
			return il_errorf(-ENOMEM, "out of memory");
		for (i = 0; i < g->s.nparams; i++) {
			struct raw_kv *kv = &g->s.params[i];

			ret = cs_check_list_param(x, g->ops, kv);
			if (!ret)
				ret = cs_parse_param(x, g->ops, kv->key, kv->key_line,
						     kv->val, kv->val_line, &g->set[i]);
			if (ret)
				return ret;
			g->nset = i + 1;
		}
	}
	if (matrix)
		return parse_matrix(x, matrix, g);
	return 0;
}

/* Whether the group's params or matrix set @key. */
static bool group_sets(const struct group_src *g, const char *key)
{
	int i;

	for (i = 0; i < g->s.nparams; i++)
		if (!strcmp(g->s.params[i].key, key))
			return true;
	for (i = 0; i < g->ndims; i++)
		if (!strcmp(g->dims[i].key, key))
			return true;
	return false;
}

/*
 * The parameter environment.sched_fifo feeds.  Benchmarks that take a
 * SCHED_FIFO priority call it "priority" (timer_wake); a u64 of another
 * name is not guessed at.
 */
#define IL_PRIO_PARAM	"priority"

static int inherit_prio(struct ctx *x, struct group_src *g)
{
	const struct il_opt *o = il_opts_find(g->ops->opts, IL_PRIO_PARAM);
	uint64_t v = (uint64_t)x->c->env.sched_fifo;
	int i;

	if (!x->c->env.sched_fifo || !o || o->type != IL_OPT_U64 ||
	    group_sets(g, o->name))
		return 0;
	for (i = 0; i < g->ndset; i++)
		if (g->dset[i].o == o)
			return 0;
	if (v < o->min || v > o->max)
		return cy_fail(x, x->c->env_line, "sched_fifo",
			       "%" PRIu64 " is out of range [%" PRIu64 ", %" PRIu64 "] for %s's '%s'",
			       v, o->min, o->max, g->ops->name, o->name);
	g->prio.blk = calloc(1, g->ops->params_size);
	if (!g->prio.blk)
		return il_errorf(-ENOMEM, "out of memory");
	g->prio.o = o;
	*(uint64_t *)((char *)g->prio.blk + o->offset) = v;
	return 0;
}

/*
 * The typed side of inheritance: the table's defaults, parsed once per
 * group, and the defaults block's params that this benchmark has and the
 * group does not set, parsed with this benchmark's table.
 */
static int inherit_params(struct ctx *x, struct group_src *g)
{
	const struct il_bench_ops *ops = g->ops;
	int i, ret;

	g->base = calloc(1, ops->params_size ? ops->params_size : 1);
	g->dset = calloc(x->defaults.nparams + 1, sizeof(*g->dset));
	if (!g->base || !g->dset)
		return il_errorf(-ENOMEM, "out of memory");
	ret = il_opts_defaults(ops->opts, g->base);
	if (ret)
		return ret;
	for (i = 0; i < x->defaults.nparams; i++) {
		const struct raw_kv *d = &x->defaults.params[i];

		if (!il_opts_find(ops->opts, d->key) || group_sets(g, d->key))
			continue;
		ret = cs_check_list_param(x, ops, d);
		if (!ret)
			ret = cs_parse_param(x, ops, d->key, d->key_line, d->val,
					     d->val_line, &g->dset[g->ndset]);
		if (ret)
			return ret;
		g->ndset++;
	}
	return inherit_prio(x, g);
}

/* Inherit from the defaults what the group did not set. */
int cs_inherit(struct ctx *x, struct group_src *g)
{
	struct settings *d = &x->defaults;
	int i, ret;

	ret = inherit_params(x, g);
	if (ret)
		return ret;

	if (!g->has_reps)
		g->s.repetitions = d->repetitions ? d->repetitions : 1;
	if (!g->has_raw)
		g->s.raw = d->raw;
	cs_inherit_order(d, &g->s);
	ret = cs_check_order(x, &g->s);
	if (ret)
		return ret;
	if (!g->s.events_set && d->events_set && d->events) {
		g->s.events = strdup(d->events);
		if (!g->s.events)
			return il_errorf(-ENOMEM, "out of memory");
	}
	if (!g->has_cpus && d->ncpus) {
		g->s.cpus = calloc(d->ncpus, sizeof(char *));
		g->s.cpus_lines = calloc(d->ncpus, sizeof(int));
		if (!g->s.cpus || !g->s.cpus_lines)
			return il_errorf(-ENOMEM, "out of memory");
		for (i = 0; i < d->ncpus; i++) {
			g->s.ncpus = i + 1;
			g->s.cpus[i] = strdup(d->cpus[i]);
			g->s.cpus_lines[i] = d->cpus_lines[i];
			if (!g->s.cpus[i])
				return il_errorf(-ENOMEM, "out of memory");
		}
	}
	if (!g->s.ncpus) {
		/* The benchmark's own default placement, as `bench` uses. */
		g->s.cpus = calloc(1, sizeof(char *));
		g->s.cpus_lines = calloc(1, sizeof(int));
		if (!g->s.cpus || !g->s.cpus_lines)
			return il_errorf(-ENOMEM, "out of memory");
		g->s.ncpus = 1;
		g->s.cpus[0] = strdup(g->ops->default_cpus ? g->ops->default_cpus : "all");
		g->s.cpus_lines[0] = g->line;
		if (!g->s.cpus[0])
			return il_errorf(-ENOMEM, "out of memory");
	}
	return 0;
}

/* An impossible placement is an error in the file, not a failed run. */
int cs_check_placements(struct ctx *x, const struct group_src *g)
{
	struct il_placement pl;
	int i, ret;

	if (!x->topo)
		return 0;
	for (i = 0; i < g->s.ncpus; i++) {
		ret = il_place_parse(x->topo, g->s.cpus[i], &pl);
		if (ret)
			return cy_fail(x, g->s.cpus_lines[i], "cpus", "%s", il_errmsg());
		if ((g->ops->flags & IL_BF_PAIRS) && pl.kind != IL_PLACE_PAIRS)
			ret = cy_fail(x, g->s.cpus_lines[i], "cpus",
				      "'%s': %s needs CPU pairs (e.g. pairs:smt or pairs:0-1)",
				      g->s.cpus[i], g->ops->name);
		else if ((g->ops->flags & IL_BF_MULTI_CPU) &&
			 pl.kind == IL_PLACE_CPUS && pl.ncpus < 2)
			ret = cy_fail(x, g->s.cpus_lines[i], "cpus",
				      "'%s': %s needs at least two CPUs",
				      g->s.cpus[i], g->ops->name);
		il_place_free(&pl);
		if (ret)
			return ret;
	}
	return 0;
}
