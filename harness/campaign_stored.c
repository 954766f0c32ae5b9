// SPDX-License-Identifier: GPL-2.0-only
/*
 * campaign_stored.c - a campaign's plan to and from the JSON that the
 * campaigns table keeps (campaign_stored.h gives the format), the
 * entry-by-entry difference between a stored plan and a new expansion,
 * and the replay of a stored plan.
 *
 * Why replay rather than re-expand: the plan is the product of the file
 * and of this idlelab's defaults (parameter defaults, the default order,
 * the --scale arithmetic).  A campaign resumed by a later idlelab must
 * finish the plan it started with, or its arms mix two designs.  The
 * replay rebuilds each entry's typed block from the stored runs.params
 * text through the benchmark's own option table (text in at the edge,
 * once), then renders it back and takes the resume hash again; both must
 * match what was stored byte for byte, so a benchmark whose options no
 * longer accept the stored values is refused, never guessed at.
 */
#include "campaign_stored.h"
#include "campaign_internal.h"
#include "bench.h"
#include "bench_registry.h"
#include "err.h"
#include "run_execute.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void il_sha256_hex(const void *data, size_t len, char out[65])
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];
	int i;

	sha256_init(&ctx);
	sha256_update(&ctx, len, data);
	sha256_digest(&ctx, sizeof(d), d);
	for (i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* ---- plan to JSON ------------------------------------------------------ */

static json_t *entry_json(const struct il_plan_entry *e)
{
	json_t *o = json_object(), *set = json_array();
	char seed[17], kv[1024];
	int i;

	if (!o || !set) {
		json_decref(o);
		json_decref(set);
		return NULL;
	}
	/* Formatted from the block, as the plan has always written them. */
	for (i = 0; i < e->nset; i++) {
		if (il_plan_entry_param(e, i, kv, sizeof(kv))) {
			json_decref(o);
			json_decref(set);
			return NULL;
		}
		json_array_append_new(set, json_string(kv));
	}
	snprintf(seed, sizeof(seed), "%016" PRIx64, e->order_seed);
	json_object_set_new(o, "index", json_integer(e->index));
	json_object_set_new(o, "bench", json_string(e->ops->name));
	json_object_set_new(o, "group", json_string(e->group));
	json_object_set_new(o, "group_no", json_integer(e->group_no));
	json_object_set_new(o, "line", json_integer(e->line));
	json_object_set_new(o, "cpus", json_string(e->cpus));
	json_object_set_new(o, "events",
			    e->events ? json_string(e->events) : json_null());
	json_object_set_new(o, "raw", json_boolean(e->raw));
	json_object_set_new(o, "causes", json_boolean(e->causes));
	json_object_set_new(o, "causes_lean", json_boolean(e->causes_lean));
	json_object_set_new(o, "params", json_string(e->params_json));
	json_object_set_new(o, "set", set);
	json_object_set_new(o, "repetition", json_integer(e->repetition));
	json_object_set_new(o, "repetitions", json_integer(e->repetitions));
	json_object_set_new(o, "order", json_string(il_plan_order_name(e->order)));
	json_object_set_new(o, "order_seed", json_string(seed));
	json_object_set_new(o, "hash", json_string(e->hash));
	return o;
}

static json_t *plan_array(const struct il_campaign *c)
{
	json_t *a = json_array();
	int i;

	for (i = 0; a && i < c->nplan; i++) {
		json_t *o = entry_json(&c->plan[i]);

		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

char *il_campaign_plan_json(const struct il_campaign *c)
{
	json_t *a = plan_array(c);
	char *s = a ? json_dumps(a, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	json_decref(a);
	if (!s)
		il_errorf(-ENOMEM, "out of memory");
	return s;
}

/* ---- the difference ---------------------------------------------------- */

/* "timer_wake interval_us=500 rep 1/4" for a stored or a new entry. */
static void describe(const json_t *o, char *buf, size_t n)
{
	const char *set = "";
	char joined[256] = "";
	size_t i, used = 0;
	json_t *v;

	json_array_foreach(json_object_get(o, "set"), i, v) {
		int k = snprintf(joined + used, sizeof(joined) - used, "%s%s",
				 used ? " " : "", json_string_value(v));

		if (k < 0 || (size_t)k >= sizeof(joined) - used)
			break;
		used += (size_t)k;
	}
	set = joined;
	snprintf(buf, n, "%s (group %s, cpus %s%s%s, rep %" JSON_INTEGER_FORMAT
		 "/%" JSON_INTEGER_FORMAT ", %s order)",
		 json_string_value(json_object_get(o, "bench")),
		 json_string_value(json_object_get(o, "group")),
		 json_string_value(json_object_get(o, "cpus")),
		 *set ? ", " : "", set,
		 json_integer_value(json_object_get(o, "repetition")),
		 json_integer_value(json_object_get(o, "repetitions")),
		 json_string_value(json_object_get(o, "order")));
}

/* Append one difference to @buf, at most three of them. */
static void note(char *buf, size_t n, int k, const char *fmt, const json_t *a,
		 const json_t *b, int64_t idx)
{
	char da[384] = "", db[384] = "";
	size_t used = strlen(buf);

	if (k > 3 || used + 1 >= n)
		return;
	if (k == 3) {
		snprintf(buf + used, n - used, "; ...");
		return;
	}
	if (a)
		describe(a, da, sizeof(da));
	if (b)
		describe(b, db, sizeof(db));
	snprintf(buf + used, n - used, "%s#%" PRId64 " ", used ? "; " : "", idx);
	used = strlen(buf);
	snprintf(buf + used, n - used, fmt, a ? da : db, db);
}

int il_campaign_plan_diff(const struct il_campaign *c, const char *stored,
			  char *buf, size_t n)
{
	json_t *old = json_loads(stored, 0, NULL), *now = plan_array(c);
	size_t i, nold, nnow;
	int k = 0;

	if (n)
		*buf = '\0';
	if (!json_is_array(old) || !now) {
		json_decref(old);
		json_decref(now);
		return il_errorf(-EINVAL, "the stored plan cannot be read");
	}
	nold = json_array_size(old);
	nnow = json_array_size(now);
	for (i = 0; i < nold || i < nnow; i++) {
		json_t *a = json_array_get(old, i), *b = json_array_get(now, i);

		if (a && b && json_equal(a, b))
			continue;
		if (a && b)
			note(buf, n, k, "was %s, now %s", a, b, (int64_t)i);
		else if (a)
			note(buf, n, k, "is gone: %s", a, NULL, (int64_t)i);
		else
			note(buf, n, k, "is new: %s", NULL, b, (int64_t)i);
		k++;
	}
	json_decref(old);
	json_decref(now);
	return k;
}

/* ---- replay ------------------------------------------------------------ */

/* A stored parameter value as the option parser takes it (--param syntax). */
static int value_text(const json_t *v, char *buf, size_t n)
{
	size_t i, used = 0;
	json_t *x;
	int k;

	switch (json_typeof(v)) {
	case JSON_INTEGER:
		k = snprintf(buf, n, "%" PRIu64, (uint64_t)json_integer_value(v));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		k = snprintf(buf, n, "%s", json_is_true(v) ? "true" : "false");
		break;
	case JSON_STRING:
		k = snprintf(buf, n, "%s", json_string_value(v));
		break;
	case JSON_ARRAY:
		*buf = '\0';
		json_array_foreach(v, i, x) {
			if (!json_is_integer(x))
				return -EINVAL;
			k = snprintf(buf + used, n - used, "%s%" PRIu64, i ? "," : "",
				     (uint64_t)json_integer_value(x));
			if (k < 0 || (size_t)k >= n - used)
				return -EINVAL;
			used += (size_t)k;
		}
		return 0;
	default:
		return -EINVAL;
	}
	return k < 0 || (size_t)k >= n ? -EINVAL : 0;
}

/* The typed block of @ops from the stored runs.params text @json. */
static int block_from_json(const struct il_bench_ops *ops, const char *json,
			   void *block)
{
	json_t *o = json_loads(json, 0, NULL), *v;
	const char *key;
	char text[4096];
	int ret = 0;

	if (!json_is_object(o)) {
		json_decref(o);
		return -EINVAL;
	}
	ret = il_opts_defaults(ops->opts, block);
	json_object_foreach(o, key, v) {
		if (ret)
			break;
		ret = value_text(v, text, sizeof(text));
		if (!ret)
			ret = il_opts_set(ops->opts, block, key, text);
	}
	json_decref(o);
	return ret;
}

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static int jint(const json_t *o, const char *key)
{
	return (int)json_integer_value(json_object_get(o, key));
}

static char *jdup(const json_t *o, const char *key)
{
	const char *s = jstr(o, key);

	return s ? strdup(s) : NULL;
}

/*
 * The options a stored entry's "set" names ("key=value" each, formatted
 * from the block when it was stored): only the keys are taken, since the
 * values are the block's, rebuilt from the stored runs.params text.
 */
static int entry_set(const json_t *set, struct il_plan_entry *e)
{
	const char *kv;
	char key[64];
	size_t i, n;
	json_t *v;

	e->set = calloc(json_array_size(set) + 1, sizeof(*e->set));
	if (!e->set)
		return -ENOMEM;
	json_array_foreach(set, i, v) {
		kv = json_string_value(v);
		n = kv ? strcspn(kv, "=") : 0;
		if (!kv || !kv[n] || n >= sizeof(key))
			return -EINVAL;
		memcpy(key, kv, n);
		key[n] = '\0';
		e->set[i] = il_opts_find(e->ops->opts, key);
		if (!e->set[i])
			return -EINVAL;
		e->nset = (int)i + 1;
	}
	return 0;
}

/* The scalar fields of one stored entry; the block is rebuilt after. */
static int entry_fields(const json_t *o, struct il_plan_entry *e)
{
	const char *ord = jstr(o, "order"), *seed = jstr(o, "order_seed");
	const char *hash = jstr(o, "hash");
	int k;

	e->index = json_integer_value(json_object_get(o, "index"));
	e->group_no = jint(o, "group_no");
	e->line = jint(o, "line");
	e->raw = json_is_true(json_object_get(o, "raw"));
	e->causes = json_is_true(json_object_get(o, "causes"));
	e->causes_lean = json_is_true(json_object_get(o, "causes_lean"));
	e->repetition = jint(o, "repetition");
	e->repetitions = jint(o, "repetitions");
	e->group = jdup(o, "group");
	e->cpus = jdup(o, "cpus");
	e->events = jdup(o, "events");
	e->params_json = jdup(o, "params");
	if (!e->group || !e->cpus || !e->params_json || !ord ||
	    !seed || !hash || strlen(hash) != 16)
		return -EINVAL;
	for (k = 0; k <= IL_ORDER_LAST; k++)
		if (!strcmp(ord, il_plan_order_name((enum il_plan_order)k)))
			break;
	if (k > IL_ORDER_LAST)
		return -EINVAL;
	e->order = (enum il_plan_order)k;
	e->order_seed = strtoull(seed, NULL, 16);
	memcpy(e->hash, hash, sizeof(e->hash));
	return entry_set(json_object_get(o, "set"), e);
}

/* A check that @e's block renders back to the stored bytes with the
 * stored resume key. */
static int entry_check(const struct il_plan_entry *e)
{
	char *json = il_run_params_json(e->ops, e->block), *canon, hash[17];
	int same;

	if (!json)
		return -ENOMEM;
	same = !strcmp(json, e->params_json);
	free(json);
	if (!same)
		return -EINVAL;
	if (asprintf(&canon, "%s|%s|%s%s%s", e->ops->name, e->cpus, e->params_json,
		     e->events ? "|events=" : "", e->events ? e->events : "") < 0)
		return -ENOMEM;
	snprintf(hash, sizeof(hash), "%016" PRIx64, il_fnv1a64(canon, strlen(canon)));
	free(canon);
	return strcmp(hash, e->hash) ? -EINVAL : 0;
}

static int entry_from_json(const json_t *o, struct il_plan_entry *e)
{
	const char *bench = jstr(o, "bench");
	int ret;

	memset(e, 0, sizeof(*e));
	e->ops = bench ? il_bench_find(bench) : NULL;
	if (!e->ops)
		return -EINVAL;
	ret = entry_fields(o, e);
	if (ret)
		return ret;
	e->block = malloc(e->ops->params_size ? e->ops->params_size : 1);
	if (!e->block)
		return -ENOMEM;
	ret = block_from_json(e->ops, e->params_json, e->block);
	return ret ? ret : entry_check(e);
}

int il_campaign_replay(struct il_campaign *c, const char *stored)
{
	json_t *a = json_loads(stored, 0, NULL);
	struct il_plan_entry *plan;
	size_t i, n;
	int ret = 0;

	if (!json_is_array(a) || !json_array_size(a)) {
		json_decref(a);
		return il_errorf(-EINVAL, "the stored plan of campaign '%s' cannot be read",
				 c->name);
	}
	n = json_array_size(a);
	plan = calloc(n, sizeof(*plan));
	if (!plan) {
		json_decref(a);
		return il_errorf(-ENOMEM, "out of memory");
	}
	for (i = 0; i < n && !ret; i++) {
		ret = entry_from_json(json_array_get(a, i), &plan[i]);
		if (!ret && plan[i].index != (int64_t)i)
			ret = -EINVAL;
		if (ret)
			il_errorf(ret, "the stored plan of campaign '%s' cannot be replayed by this idlelab: entry #%zu (%s) %s",
				  c->name, i, plan[i].ops ? plan[i].ops->name : "an unknown benchmark",
				  ret == -ENOMEM ? "ran out of memory" :
				  "no longer renders to the parameters it was stored with");
	}
	json_decref(a);
	if (ret) {
		for (i = 0; i < n; i++)
			cp_entry_free(&plan[i]);
		free(plan);
		return ret;
	}
	for (i = 0; i < (size_t)c->nplan; i++)
		cp_entry_free(&c->plan[i]);
	free(c->plan);
	c->plan = plan;
	c->nplan = (int)n;
	return 0;
}
