// SPDX-License-Identifier: GPL-2.0-only
/*
 * opts.c - parsing, validation and rendering driven by a benchmark's
 * declarative parameter table (opts.h).
 *
 * Values are parsed strictly: no sign, no trailing junk, no silent
 * wrap-around, so "--param samples=1e3" or "=-1" is an error naming the key
 * rather than a surprising run.
 */
#include "opts.h"
#include "err.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *il_opts_type_name(enum il_opt_type t)
{
	switch (t) {
	case IL_OPT_U64:
		return "u64";
	case IL_OPT_BOOL:
		return "bool";
	case IL_OPT_ENUM:
		return "enum";
	case IL_OPT_LIST:
		return "list";
	}
	return "?";
}

int il_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int prev[64], cur[64];

	if (lb >= 64 || la >= 64)
		return 64;
	for (j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (i = 1; i <= la; i++) {
		cur[0] = (int)i;
		for (j = 1; j <= lb; j++) {
			int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			int del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? sub : del;
			if (ins < cur[j])
				cur[j] = ins;
		}
		memcpy(prev, cur, (lb + 1) * sizeof(int));
	}
	return prev[lb];
}

const struct il_opt *il_opts_find(const struct il_opt *t, const char *key)
{
	for (; t && t->name; t++)
		if (!strcmp(t->name, key))
			return t;
	return NULL;
}

void il_suggest_init(struct il_suggester *s, const char *key)
{
	size_t len = key ? strlen(key) : 0;

	s->key = key;
	s->best = NULL;
	/* A candidate must beat this: the threshold, or the word's length. */
	s->bestd = len <= IL_SUGGEST_MAX_DISTANCE ? (int)len : IL_SUGGEST_MAX_DISTANCE + 1;
}

void il_suggest_consider(struct il_suggester *s, const char *name)
{
	int d;

	if (!s->key || !name)
		return;
	d = il_edit_distance(s->key, name);
	if (d < s->bestd) {
		s->bestd = d;
		s->best = name;
	}
}

const char *il_suggest(const char *key, const char *const *names)
{
	struct il_suggester s;

	il_suggest_init(&s, key);
	for (; names && *names; names++)
		il_suggest_consider(&s, *names);
	return s.best;
}

const char *il_opts_suggest(const struct il_opt *t, const char *key)
{
	struct il_suggester s;

	il_suggest_init(&s, key);
	for (; t && t->name; t++)
		il_suggest_consider(&s, t->name);
	return s.best;
}

/*
 * Strict unsigned decimal: digits only.  Return: 0, -EINVAL for anything
 * else, -ERANGE for digits beyond 64 bits.
 */
static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno)
		return -ERANGE;
	*out = v;
	return 0;
}

static int set_u64(const struct il_opt *o, uint64_t *dst, const char *val)
{
	uint64_t v;
	int ret = parse_u64(val, &v);

	/* Digits too many for 64 bits are an integer, out of range. */
	if (ret == -ERANGE)
		v = UINT64_MAX;
	else if (ret)
		return il_errorf(-EINVAL, "parameter '%s': '%s' is not a non-negative integer",
				 o->name, val);
	if (ret || v < o->min || v > o->max)
		return il_errorf(-EINVAL, "parameter '%s': %s is out of range [%" PRIu64 ", %" PRIu64 "]",
				 o->name, val, o->min, o->max);
	*dst = v;
	return 0;
}

static int set_bool(const struct il_opt *o, bool *dst, const char *val)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (!strcasecmp(val, yes[i])) {
			*dst = true;
			return 0;
		}
		if (!strcasecmp(val, no[i])) {
			*dst = false;
			return 0;
		}
	}
	return il_errorf(-EINVAL, "parameter '%s': '%s' is not a boolean (use 0/1, true/false, yes/no, on/off)",
			 o->name, val);
}

static int set_enum(const struct il_opt *o, int *dst, const char *val)
{
	char choices[256] = "";
	int i;

	for (i = 0; o->choices[i]; i++) {
		if (!strcmp(o->choices[i], val)) {
			*dst = i;
			return 0;
		}
		if (i)
			strncat(choices, "|", sizeof(choices) - strlen(choices) - 1);
		strncat(choices, o->choices[i], sizeof(choices) - strlen(choices) - 1);
	}
	return il_errorf(-EINVAL, "parameter '%s': '%s' is not one of %s",
			 o->name, val, choices);
}

static int set_list(const struct il_opt *o, struct il_u64_list *dst,
		    const char *val)
{
	struct il_u64_list l = { 0 };
	char buf[512], *tok, *save = NULL;
	int ret;

	if (strlen(val) >= sizeof(buf) || !*val)
		return il_errorf(-EINVAL, "parameter '%s': empty or too long list", o->name);
	strcpy(buf, val);
	if (buf[strlen(buf) - 1] == ',' || buf[0] == ',' || strstr(buf, ",,"))
		return il_errorf(-EINVAL, "parameter '%s': '%s' has an empty list element",
				 o->name, val);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (l.n == IL_LIST_MAX)
			return il_errorf(-EINVAL, "parameter '%s': more than %d values",
					 o->name, IL_LIST_MAX);
		ret = set_u64(o, &l.v[l.n], tok);
		if (ret)
			return ret;
		l.n++;
	}
	*dst = l;
	return 0;
}

int il_opts_set(const struct il_opt *t, void *params, const char *key,
		const char *val)
{
	const struct il_opt *o = il_opts_find(t, key);
	char *p = params;
	const char *near;

	if (!o) {
		near = il_opts_suggest(t, key);
		if (near)
			return il_errorf(-ENOENT, "unknown parameter '%s' (did you mean '%s'?)",
					 key, near);
		return il_errorf(-ENOENT, "unknown parameter '%s'", key);
	}
	switch (o->type) {
	case IL_OPT_U64:
		return set_u64(o, (uint64_t *)(p + o->offset), val);
	case IL_OPT_BOOL:
		return set_bool(o, (bool *)(p + o->offset), val);
	case IL_OPT_ENUM:
		return set_enum(o, (int *)(p + o->offset), val);
	case IL_OPT_LIST:
		return set_list(o, (struct il_u64_list *)(p + o->offset), val);
	}
	return il_errorf(-EINVAL, "parameter '%s': bad table entry", key);
}

int il_opts_set_kv(const struct il_opt *t, void *params, const char *kv)
{
	const char *eq = strchr(kv, '=');
	char key[64];

	if (!eq || eq == kv)
		return il_errorf(-EINVAL, "'%s' is not of the form key=value", kv);
	if ((size_t)(eq - kv) >= sizeof(key))
		return il_errorf(-ENOENT, "unknown parameter '%.*s'", (int)(eq - kv), kv);
	memcpy(key, kv, eq - kv);
	key[eq - kv] = '\0';
	return il_opts_set(t, params, key, eq + 1);
}

/* The key of a "key=value" string: its length, up to '=' or the end. */
static size_t kv_keylen(const char *kv)
{
	return strcspn(kv, "=");
}

int il_opts_parse_kvs(const struct il_opt *t, void *params,
		      const char *const *kv, int n)
{
	size_t len;
	int i, j, ret;

	for (i = 1; i < n; i++) {
		len = kv_keylen(kv[i]);
		for (j = 0; j < i; j++)
			if (kv_keylen(kv[j]) == len &&
			    !strncmp(kv[j], kv[i], len))
				return il_errorf(-EINVAL, "parameter '%.*s' is given twice ('%s' and '%s')",
						 (int)len, kv[i], kv[j], kv[i]);
	}
	ret = il_opts_defaults(t, params);
	for (i = 0; !ret && i < n; i++)
		ret = il_opts_set_kv(t, params, kv[i]);
	return ret;
}

void il_opts_scale(const struct il_opt *t, void *params, double factor)
{
	const struct il_opt *o;

	for (o = t; o && o->name; o++) {
		uint64_t *v, n;
		double d;

		if (!o->scale || o->type != IL_OPT_U64)
			continue;
		v = (uint64_t *)((char *)params + o->offset);
		if (!*v)	/* 0 is "none" or "no limit", never a count */
			continue;
		d = (double)*v * factor + 0.5;
		n = d < 1 ? 1 : d >= 18446744073709551615.0 ? UINT64_MAX :
		    (uint64_t)d;
		*v = n < o->min ? o->min : n > o->max ? o->max : n;
	}
}

int il_opts_defaults(const struct il_opt *t, void *params)
{
	const struct il_opt *o;
	int ret;

	for (o = t; o && o->name; o++) {
		if (!o->def)
			continue;
		ret = il_opts_set(t, params, o->name, o->def);
		if (ret)
			return ret;
	}
	return 0;
}

int il_opts_format(const struct il_opt *o, const void *params, char *buf,
		   size_t len)
{
	const char *p = params;
	const struct il_u64_list *l;
	size_t used = 0;
	int i;

	switch (o->type) {
	case IL_OPT_U64:
		return snprintf(buf, len, "%" PRIu64, *(const uint64_t *)(p + o->offset));
	case IL_OPT_BOOL:
		return snprintf(buf, len, "%s", *(const bool *)(p + o->offset) ? "true" : "false");
	case IL_OPT_ENUM:
		return snprintf(buf, len, "%s", o->choices[*(const int *)(p + o->offset)]);
	case IL_OPT_LIST:
		l = (const struct il_u64_list *)(p + o->offset);
		buf[0] = '\0';
		for (i = 0; i < l->n && used < len; i++)
			used += snprintf(buf + used, len - used, "%s%" PRIu64,
					 i ? "," : "", l->v[i]);
		return (int)used;
	}
	return -EINVAL;
}

json_t *il_opts_to_json(const struct il_opt *t, const void *params)
{
	json_t *obj = json_object(), *arr;
	const char *p = params;
	const struct il_u64_list *l;
	int i;

	for (; obj && t && t->name; t++) {
		switch (t->type) {
		case IL_OPT_U64:
			if (t->omit_zero && !*(const uint64_t *)(p + t->offset))
				break;
			json_object_set_new(obj, t->name,
					    json_integer((json_int_t)*(const uint64_t *)(p + t->offset)));
			break;
		case IL_OPT_BOOL:
			if (t->omit_false && !*(const bool *)(p + t->offset))
				break;
			json_object_set_new(obj, t->name,
					    json_boolean(*(const bool *)(p + t->offset)));
			break;
		case IL_OPT_ENUM:
			if (t->omit_zero && !*(const int *)(p + t->offset))
				break;
			json_object_set_new(obj, t->name,
					    json_string(t->choices[*(const int *)(p + t->offset)]));
			break;
		case IL_OPT_LIST:
			l = (const struct il_u64_list *)(p + t->offset);
			arr = json_array();
			for (i = 0; i < l->n; i++)
				json_array_append_new(arr, json_integer((json_int_t)l->v[i]));
			json_object_set_new(obj, t->name, arr);
			break;
		}
	}
	return obj;
}
