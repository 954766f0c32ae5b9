// SPDX-License-Identifier: GPL-2.0-only
/*
 * campaign_plan.c - the expansion of parsed groups into numbered plan
 * entries (campaign.h gives the order), the resume hash, and the rough
 * duration estimates of --dry-run and the ETA.
 */
#include "campaign_internal.h"
#include "err.h"

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

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The "priority" parameter that environment.sched_fifo feeds, if any. */
static const char *prio_param(const struct il_bench_ops *ops)
{
	static const char *const names[] = { "priority", "rt_priority", "prio", NULL };
	int i;

	for (i = 0; names[i]; i++)
		if (il_opts_find(ops->opts, names[i]))
			return names[i];
	return NULL;
}

static bool has_key(char **kv, int n, const char *key)
{
	size_t len = strlen(key);
	int i;

	for (i = 0; i < n; i++)
		if (!strncmp(kv[i], key, len) && kv[i][len] == '=')
			return true;
	return false;
}

static int push_kv(char ***kv, int *n, const char *key, const char *val)
{
	char **v = realloc(*kv, (*n + 1) * sizeof(char *));

	if (!v)
		return il_errorf(-ENOMEM, "out of memory");
	*kv = v;
	if (asprintf(&v[*n], "%s=%s", key, val) < 0)
		return il_errorf(-ENOMEM, "out of memory");
	(*n)++;
	return 0;
}

/*
 * The parameters of one matrix combination @idx[] under placement @cpus:
 * matrix values first, then the group's params, then the defaults that
 * apply to this benchmark, then the sched_fifo pass-through; the first
 * setter of a key wins.
 */
static int combo_params(struct ctx *x, const struct group_src *g, const int *idx,
			char ***out, int *nout)
{
	char **kv = NULL, *canon;
	int n = 0, i, ret;
	const char *prio;

	for (i = 0; i < g->ndims; i++) {
		ret = push_kv(&kv, &n, g->dims[i].key, g->dims[i].vals[idx[i]]);
		if (ret)
			goto fail;
	}
	for (i = 0; i < g->s.nparams; i++) {
		ret = push_kv(&kv, &n, g->s.params[i].key, g->s.params[i].val);
		if (ret)
			goto fail;
	}
	for (i = 0; i < x->defaults.nparams; i++) {
		const struct raw_kv *d = &x->defaults.params[i];

		if (!il_opts_find(g->ops->opts, d->key) || has_key(kv, n, d->key))
			continue;
		canon = NULL;
		ret = cs_check_list_param(x, g->ops, d);
		if (!ret)
			ret = cs_canon_param(x, g->ops, d->key, d->key_line, d->val,
					  d->val_line, &canon);
		if (!ret)
			ret = push_kv(&kv, &n, d->key, canon);
		free(canon);
		if (ret)
			goto fail;
	}
	prio = prio_param(g->ops);
	if (x->c->env.sched_fifo && prio && !has_key(kv, n, prio)) {
		char v[16];

		snprintf(v, sizeof(v), "%d", x->c->env.sched_fifo);
		canon = NULL;
		ret = cs_canon_param(x, g->ops, prio, x->c->env_line, v,
				  x->c->env_line, &canon);
		if (!ret)
			ret = push_kv(&kv, &n, prio, canon);
		free(canon);
		if (ret)
			goto fail;
	}
	if (n)
		qsort(kv, n, sizeof(char *), cmp_str);
	*out = kv;
	*nout = n;
	return 0;
fail:
	for (i = 0; i < n; i++)
		free(kv[i]);
	free(kv);
	return ret;
}

static char *join_params(char **kv, int n)
{
	size_t len = 1, used = 0;
	char *s;
	int i;

	for (i = 0; i < n; i++)
		len += strlen(kv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < n; i++)
		used += snprintf(s + used, len - used, "%s%s", i ? ";" : "", kv[i]);
	return s;
}

void cp_entry_free(struct il_plan_entry *e)
{
	int i;

	free(e->group);
	free(e->cpus);
	free(e->events);
	for (i = 0; i < e->nparams; i++)
		free(e->params[i]);
	free(e->params);
	free(e->params_str);
}

static int add_entry(struct ctx *x, const struct group_src *g, int gno,
		     const char *cpus, char **kv, int nkv, int rep)
{
	struct il_campaign *c = x->c;
	struct il_plan_entry *e;
	char *canon;
	uint64_t h;
	int i;

	if (c->nplan >= IL_PLAN_MAX)
		return cy_fail(x, g->line, NULL, "the plan has more than %d runs; split the campaign",
			    IL_PLAN_MAX);
	if (!(c->nplan & (c->nplan - 1))) {
		/* Full exactly when nplan is 0 or a power of two: double. */
		size_t cap = c->nplan ? (size_t)c->nplan * 2 : 1;
		struct il_plan_entry *v = realloc(c->plan, cap * sizeof(*v));

		if (!v)
			return il_errorf(-ENOMEM, "out of memory");
		c->plan = v;
	}
	e = &c->plan[c->nplan];
	memset(e, 0, sizeof(*e));
	c->nplan++;
	e->index = c->nplan - 1;
	e->ops = g->ops;
	e->group_no = gno;
	e->line = g->line;
	e->raw = g->s.raw;
	e->repetition = rep;
	e->repetitions = g->s.repetitions;
	e->group = strdup(g->name);
	e->cpus = strdup(cpus);
	e->events = g->s.events ? strdup(g->s.events) : NULL;
	e->params = calloc(nkv ? nkv : 1, sizeof(char *));
	if (!e->group || !e->cpus || (g->s.events && !e->events) || !e->params)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; i < nkv; i++) {
		e->params[i] = strdup(kv[i]);
		if (!e->params[i])
			return il_errorf(-ENOMEM, "out of memory");
		e->nparams = i + 1;
	}
	e->params_str = join_params(kv, nkv);
	if (!e->params_str)
		return il_errorf(-ENOMEM, "out of memory");
	if (asprintf(&canon, "%s|%s|%s%s%s", e->ops->name, e->cpus,
		     e->params_str, e->events ? "|events=" : "",
		     e->events ? e->events : "") < 0)
		return il_errorf(-ENOMEM, "out of memory");
	h = il_fnv1a64(canon, strlen(canon));
	free(canon);
	snprintf(e->hash, sizeof(e->hash), "%016" PRIx64, h);
	return 0;
}

int cp_expand_group(struct ctx *x, const struct group_src *g, int gno)
{
	int *idx = calloc(g->ndims + 1, sizeof(int));
	char **kv = NULL;
	int p, i, r, nkv = 0, ret = 0;

	if (!idx)
		return il_errorf(-ENOMEM, "out of memory");
	for (p = 0; p < g->s.ncpus && !ret; p++) {
		memset(idx, 0, (g->ndims + 1) * sizeof(int));
		for (;;) {
			ret = combo_params(x, g, idx, &kv, &nkv);
			for (r = 1; !ret && r <= g->s.repetitions; r++)
				ret = add_entry(x, g, gno, g->s.cpus[p], kv, nkv, r);
			for (i = 0; i < nkv; i++)
				free(kv[i]);
			free(kv);
			kv = NULL;
			nkv = 0;
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
		near = cy_nearest(d->key, names);
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

static uint64_t jget(json_t *p, const char *key, uint64_t def)
{
	json_t *v = json_object_get(p, key);

	if (json_is_integer(v))
		return (uint64_t)json_integer_value(v);
	if (json_is_true(v))
		return 1;
	if (json_is_false(v))
		return 0;
	return def;
}

/* Sum of a list-typed parameter (target counts), or @def. */
static uint64_t jlist_len(json_t *p, const char *key, uint64_t def)
{
	json_t *v = json_object_get(p, key);

	if (json_is_array(v))
		return json_array_size(v) ? json_array_size(v) : def;
	return def;
}

/*
 * Per-benchmark rules of thumb, in ns, from the parameters the benchmark
 * would run with.  They are only for --dry-run and the ETA; the dataset's
 * own history replaces them as soon as a configuration has run once.
 */
static uint64_t estimate_params(const char *bench, json_t *p)
{
	uint64_t samples = jget(p, "samples", 1000);
	uint64_t dur_ms = jget(p, "duration_ms", 0);
	uint64_t dur_s = jget(p, "duration_s", 0);
	uint64_t interval_us, ns;

	if (!strcmp(bench, "timer_wake") || !strcmp(bench, "cstate_wake")) {
		/* A fixed interval, or the mean of a uniform range. */
		interval_us = jget(p, "interval_us", 0);
		if (jget(p, "interval_max_us", 0) > interval_us)
			interval_us = (interval_us + jget(p, "interval_max_us", 0)) / 2;
		if (!interval_us)
			interval_us = (jget(p, "launch_min_us", 0) +
				       jget(p, "launch_max_us", 0)) / 2;
		if (!interval_us)
			interval_us = jget(p, "launch_us", 1000);
		ns = samples * interval_us * 1000ULL;
		/* duration_ms, when set, caps a sample count. */
		if (dur_ms && dur_ms * 1000000ULL < ns)
			ns = dur_ms * 1000000ULL;
		return ns;
	}
	if (dur_ms)
		return dur_ms * 1000000ULL;
	if (dur_s)
		return dur_s * 1000000000ULL;
	if (!strcmp(bench, "futex_wake"))
		return samples * (jget(p, "idle_us", 50) + 20) * 1000ULL;
	if (!strcmp(bench, "membarrier_ipi") || !strcmp(bench, "tlb_shootdown") ||
	    !strcmp(bench, "ipi_storm"))
		return samples * jlist_len(p, "targets", 1) * 20000ULL;
	if (!strcmp(bench, "wbinvd"))
		return samples * jlist_len(p, "footprints", 1) * 500000ULL;
	return samples * 10000ULL;
}

uint64_t il_plan_estimate_ns(const struct il_plan_entry *e)
{
	const struct il_bench_ops *ops = e->ops;
	void *scratch = calloc(1, ops->params_size ? ops->params_size : 1);
	uint64_t ns = 1000000000ULL;
	json_t *p;
	int i;

	if (!scratch)
		return ns + IL_RUN_OVERHEAD_NS;
	il_opts_defaults(ops->opts, scratch);
	for (i = 0; i < e->nparams; i++)
		il_opts_set_kv(ops->opts, scratch, e->params[i]);
	p = il_opts_to_json(ops->opts, scratch);
	if (p)
		ns = estimate_params(ops->name, p);
	json_decref(p);
	free(scratch);
	return ns + IL_RUN_OVERHEAD_NS;
}
