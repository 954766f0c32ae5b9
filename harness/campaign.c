// SPDX-License-Identifier: GPL-2.0-only
/*
 * campaign.c - campaign files (campaign.h): YAML in, a numbered plan out.
 *
 * The file is read with libyaml's document API (yaml_parser_load), which
 * keeps a start mark on every node, so every message can name the line of
 * the offending key or value.  libyaml resolves no types: a plain scalar
 * is just text, so the types here are our own (null, bool, unsigned) and a
 * quoted scalar is always a string.  The walk is over a fixed shape, never
 * recursive, so an alias cycle ("&a [*a]") cannot loop: a node of the
 * wrong kind is simply a type error.
 *
 * Parameters are validated with the benchmark's own option table
 * (opts.h), the same code that checks `idlelab bench --param`, so a
 * campaign can never hold a value the runner would refuse; placements with
 * il_place_parse() against the real topology, so a campaign that cannot
 * run here fails before anything runs.  Only counter event names are left
 * to il_run_prepare(), which `idlelab run` calls on every entry before
 * the first run.
 */
#include "campaign.h"
#include "err.h"
#include "pmqos.h"
#include "topo.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#define IL_CAMPAIGN_MAX_FILE	(16u << 20)

/* A parameter value as written, before it meets a benchmark's table. */
struct raw_kv {
	char *key;
	char *val;
	int key_line;
	int val_line;
	bool was_list;		/* written as a YAML list */
};

/* One matrix dimension. */
struct dim {
	char *key;
	int key_line;
	int n;
	char **vals;
	int *lines;
};

/* The inheritable settings: the defaults block, then each group's own. */
struct settings {
	int ncpus;
	char **cpus;
	int *cpus_lines;
	int repetitions;
	bool raw;
	bool events_set;
	char *events;
	int nparams;
	struct raw_kv *params;
};

struct group_src {
	const struct il_bench_ops *ops;
	char *name;
	int line;
	struct settings s;
	bool has_cpus, has_reps, has_raw;
	int ndims;
	struct dim *dims;
};

struct ctx {
	const char *file;
	yaml_document_t *doc;
	struct il_topo *topo;
	struct il_campaign *c;
	struct settings defaults;
	int ngroups;
	struct group_src *groups;
};

/* ---- messages ---------------------------------------------------------- */

static int line_of(const yaml_node_t *n)
{
	return n ? (int)n->start_mark.line + 1 : 1;
}

static int fail(struct ctx *x, int line, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct ctx *x, int line, const char *key, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (key)
		return il_errorf(-EINVAL, "%s:%d: key '%s': %s", x->file, line,
				 key, msg);
	return il_errorf(-EINVAL, "%s:%d: %s", x->file, line, msg);
}

static const char *kind_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

static int fail_unknown_key(struct ctx *x, int line, const char *key,
			    const char *where, const char *const *known)
{
	const char *near = il_suggest(key, known);
	char list[256] = "";
	size_t used = 0;
	int i;

	if (near)
		return fail(x, line, key, "unknown key in %s (did you mean '%s'?)",
			    where, near);
	for (i = 0; known[i] && used < sizeof(list) - 1; i++)
		used += snprintf(list + used, sizeof(list) - used, "%s%s",
				 i ? ", " : "", known[i]);
	return fail(x, line, key, "unknown key in %s (known: %s)", where, list);
}

/* ---- scalars ----------------------------------------------------------- */

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ?
	       (const char *)n->data.scalar.value : NULL;
}

static bool plain(const yaml_node_t *n)
{
	return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ||
	       n->data.scalar.style == YAML_ANY_SCALAR_STYLE;
}

static bool is_null(const yaml_node_t *n)
{
	const char *v = scalar(n);

	return v && plain(n) && (!*v || !strcmp(v, "~") || !strcasecmp(v, "null"));
}

static int want_scalar(struct ctx *x, const yaml_node_t *n, const char *key,
		       const char *what)
{
	if (n->type != YAML_SCALAR_NODE)
		return fail(x, line_of(n), key, "expected %s, got %s", what,
			    kind_name(n));
	if (is_null(n))
		return fail(x, line_of(n), key, "expected %s, got null", what);
	return 0;
}

static int get_string(struct ctx *x, const yaml_node_t *n, const char *key,
		      char **out)
{
	int ret = want_scalar(x, n, key, "a string");

	if (ret)
		return ret;
	free(*out);
	*out = strdup(scalar(n));
	return *out ? 0 : il_errorf(-ENOMEM, "out of memory");
}

static int get_bool(struct ctx *x, const yaml_node_t *n, const char *key,
		    bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1", NULL };
	static const char *const no[] = { "false", "no", "off", "0", NULL };
	const char *v;
	int i, ret = want_scalar(x, n, key, "true or false");

	if (ret)
		return ret;
	v = scalar(n);
	for (i = 0; yes[i]; i++) {
		if (!strcasecmp(v, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(v, no[i])) {
			*out = false;
			return 0;
		}
	}
	return fail(x, line_of(n), key, "expected true or false, got '%s'", v);
}

static int get_uint(struct ctx *x, const yaml_node_t *n, const char *key,
		    uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	const char *s;
	char *end;
	int ret = want_scalar(x, n, key, "a number");

	if (ret)
		return ret;
	s = scalar(n);
	errno = 0;
	if (*s < '0' || *s > '9')
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		goto bad;
	if (v < min || v > max)
		return fail(x, line_of(n), key, "%llu is out of range [%" PRIu64
			    ", %" PRIu64 "]", v, min, max);
	*out = v;
	return 0;
bad:
	return fail(x, line_of(n), key, "expected a whole number, got '%s'", s);
}

/* ---- mappings ---------------------------------------------------------- */

static yaml_node_t *node(struct ctx *x, int id)
{
	return yaml_document_get_node(x->doc, id);
}

/*
 * Check that @map is a mapping of scalar keys, none repeated, each in
 * @known (NULL: any key).  libyaml keeps duplicate keys, and the second
 * would otherwise silently win.
 */
static int check_mapping(struct ctx *x, const yaml_node_t *map,
			 const char *key, const char *where,
			 const char *const *known)
{
	yaml_node_pair_t *p, *q;
	const char *k, *k2;

	if (map->type != YAML_MAPPING_NODE)
		return fail(x, line_of(map), key, "expected a mapping, got %s",
			    kind_name(map));
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = node(x, p->key);

		k = scalar(kn);
		if (!k || is_null(kn))
			return fail(x, line_of(kn), key,
				    "keys in %s must be names, got %s", where,
				    kind_name(kn));
		for (q = map->data.mapping.pairs.start; q < p; q++) {
			k2 = scalar(node(x, q->key));
			if (k2 && !strcmp(k, k2))
				return fail(x, line_of(kn), k,
					    "duplicate key in %s (first on line %d)",
					    where, line_of(node(x, q->key)));
		}
		if (known) {
			int i;

			for (i = 0; known[i] && strcmp(known[i], k); i++)
				;
			if (!known[i])
				return fail_unknown_key(x, line_of(kn), k, where,
							known);
		}
	}
	return 0;
}

/* Text of a parameter value: a scalar, or a list of scalars joined with
 * commas (for list-typed parameters such as target counts). */
static int value_text(struct ctx *x, const yaml_node_t *n, const char *key,
		      bool allow_list, char **out)
{
	yaml_node_item_t *it;
	size_t len = 1, used = 0;
	char *s;

	if (n->type == YAML_SCALAR_NODE) {
		if (is_null(n))
			return fail(x, line_of(n), key, "expected a value, got null");
		*out = strdup(scalar(n));
		return *out ? 0 : il_errorf(-ENOMEM, "out of memory");
	}
	if (n->type != YAML_SEQUENCE_NODE || !allow_list)
		return fail(x, line_of(n), key, "expected a value, got %s",
			    kind_name(n));
	if (n->data.sequence.items.start == n->data.sequence.items.top)
		return fail(x, line_of(n), key, "empty list");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *e = node(x, *it);

		if (e->type != YAML_SCALAR_NODE || is_null(e))
			return fail(x, line_of(e), key,
				    "list elements must be values, got %s",
				    kind_name(e));
		len += strlen(scalar(e)) + 1;
	}
	s = malloc(len);
	if (!s)
		return il_errorf(-ENOMEM, "out of memory");
	s[0] = '\0';
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
		used += snprintf(s + used, len - used, "%s%s", used ? "," : "",
				 scalar(node(x, *it)));
	*out = s;
	return 0;
}

/* ---- settings (defaults and groups) ------------------------------------ */

static void settings_free(struct settings *s)
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

/* cpus: one placement spec, or a list of them (a plan dimension). */
static int parse_cpus(struct ctx *x, const yaml_node_t *n, struct settings *s)
{
	yaml_node_item_t *it;
	int i, cnt;

	for (i = 0; i < s->ncpus; i++)
		free(s->cpus[i]);
	free(s->cpus);
	free(s->cpus_lines);
	s->cpus = NULL;
	s->cpus_lines = NULL;
	s->ncpus = 0;
	if (n->type == YAML_SEQUENCE_NODE) {
		cnt = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
		if (!cnt)
			return fail(x, line_of(n), "cpus", "empty list: no placement to run on");
	} else {
		cnt = 1;
	}
	s->cpus = calloc(cnt, sizeof(*s->cpus));
	s->cpus_lines = calloc(cnt, sizeof(*s->cpus_lines));
	if (!s->cpus || !s->cpus_lines)
		return il_errorf(-ENOMEM, "out of memory");
	if (n->type != YAML_SEQUENCE_NODE) {
		s->ncpus = 1;
		s->cpus_lines[0] = line_of(n);
		return get_string(x, n, "cpus", &s->cpus[0]);
	}
	for (it = n->data.sequence.items.start, i = 0;
	     it < n->data.sequence.items.top; it++, i++) {
		yaml_node_t *e = node(x, *it);
		int ret;

		s->ncpus = i + 1;
		s->cpus_lines[i] = line_of(e);
		ret = get_string(x, e, "cpus", &s->cpus[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static int parse_events(struct ctx *x, const yaml_node_t *n, struct settings *s)
{
	free(s->events);
	s->events = NULL;
	s->events_set = true;
	if (is_null(n))
		return 0;
	return value_text(x, n, "events", true, &s->events);
}

/* params: {key: value} with values kept as text until a bench checks them. */
static int parse_params(struct ctx *x, const yaml_node_t *n, struct settings *s)
{
	yaml_node_pair_t *p;
	int ret, i = 0;

	ret = check_mapping(x, n, "params", "params", NULL);
	if (ret)
		return ret;
	s->nparams = 0;
	s->params = calloc(n->data.mapping.pairs.top - n->data.mapping.pairs.start + 1,
			   sizeof(*s->params));
	if (!s->params)
		return il_errorf(-ENOMEM, "out of memory");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++, i++) {
		yaml_node_t *kn = node(x, p->key), *vn = node(x, p->value);
		struct raw_kv *kv = &s->params[i];

		s->nparams = i + 1;
		kv->key = strdup(scalar(kn));
		kv->key_line = line_of(kn);
		kv->val_line = line_of(vn);
		if (!kv->key)
			return il_errorf(-ENOMEM, "out of memory");
		kv->was_list = vn->type == YAML_SEQUENCE_NODE;
		ret = value_text(x, vn, kv->key, true, &kv->val);
		if (ret)
			return ret;
	}
	return 0;
}

/* A list under params is one value of a list-typed parameter; for any
 * other parameter the user almost certainly meant a matrix sweep. */
static int check_list_param(struct ctx *x, const struct il_bench_ops *ops,
			    const struct raw_kv *kv)
{
	const struct il_opt *o = il_opts_find(ops->opts, kv->key);

	if (kv->was_list && o && o->type != IL_OPT_LIST)
		return fail(x, kv->val_line, kv->key,
			    "expected one value, got a list (to run each value, put '%s' under 'matrix')",
			    kv->key);
	return 0;
}

static const char *const defaults_keys[] = {
	"cpus", "repetitions", "raw", "events", "params", NULL,
};

static int parse_defaults(struct ctx *x, const yaml_node_t *n)
{
	struct settings *s = &x->defaults;
	yaml_node_pair_t *p;
	uint64_t v;
	int ret;

	ret = check_mapping(x, n, "defaults", "defaults", defaults_keys);
	if (ret)
		return ret;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k = scalar(node(x, p->key));
		yaml_node_t *vn = node(x, p->value);

		if (!strcmp(k, "cpus")) {
			ret = parse_cpus(x, vn, s);
		} else if (!strcmp(k, "repetitions")) {
			ret = get_uint(x, vn, k, 1, 1000000, &v);
			s->repetitions = (int)v;
		} else if (!strcmp(k, "raw")) {
			ret = get_bool(x, vn, k, &s->raw);
		} else if (!strcmp(k, "events")) {
			ret = parse_events(x, vn, s);
		} else {
			ret = parse_params(x, vn, s);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- environment ------------------------------------------------------- */

static const char *const env_keys[] = {
	"pm_qos_us", "cpuidle_only", "governor", "pin_freq_khz", "sched_fifo",
	"mlockall", NULL,
};

static int parse_environment(struct ctx *x, const yaml_node_t *n)
{
	struct il_envctl_spec *e = &x->c->env;
	yaml_node_pair_t *p;
	yaml_node_item_t *it;
	uint64_t v;
	int ret, i;

	x->c->env_line = line_of(n);
	ret = check_mapping(x, n, "environment", "environment", env_keys);
	if (ret)
		return ret;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k = scalar(node(x, p->key));
		yaml_node_t *vn = node(x, p->value);

		/* null means "leave it alone", so a key can be switched off
		 * without deleting it. */
		if (is_null(vn))
			continue;
		if (!strcmp(k, "pm_qos_us")) {
			/* The kernel takes an s32; 2000000000 is its "no limit". */
			ret = get_uint(x, vn, k, 0, IL_PM_QOS_NO_LIMIT_US, &v);
			e->pm_qos = true;
			e->pm_qos_us = (int32_t)v;
		} else if (!strcmp(k, "cpuidle_only")) {
			if (vn->type != YAML_SEQUENCE_NODE)
				return fail(x, line_of(vn), k,
					    "expected a list of idle state names (e.g. [C1]), got %s",
					    kind_name(vn));
			i = (int)(vn->data.sequence.items.top - vn->data.sequence.items.start);
			if (!i)
				return fail(x, line_of(vn), k,
					    "empty list: at least one idle state must stay enabled (POLL counts)");
			e->cpuidle_only = calloc(i, sizeof(char *));
			if (!e->cpuidle_only)
				return il_errorf(-ENOMEM, "out of memory");
			for (it = vn->data.sequence.items.start, i = 0;
			     it < vn->data.sequence.items.top; it++, i++) {
				e->ncpuidle_only = i + 1;
				ret = get_string(x, node(x, *it), k,
						 &e->cpuidle_only[i]);
				if (ret)
					return ret;
			}
		} else if (!strcmp(k, "governor")) {
			ret = get_string(x, vn, k, &e->governor);
		} else if (!strcmp(k, "pin_freq_khz")) {
			const char *s = scalar(vn);

			if (s && !strcmp(s, "max")) {
				e->pin = IL_PIN_MAX;
				ret = 0;
			} else if (s && !strcmp(s, "min")) {
				e->pin = IL_PIN_MIN;
				ret = 0;
			} else {
				ret = get_uint(x, vn, k, 1, UINT32_MAX, &e->pin_khz);
				if (ret && s)
					ret = fail(x, line_of(vn), k,
						   "expected max, min or a frequency in kHz, got '%s'",
						   s);
				e->pin = IL_PIN_KHZ;
			}
		} else if (!strcmp(k, "sched_fifo")) {
			const char *s = scalar(vn);

			/* "false" reads better than 0 for "do not". */
			if (s && plain(vn) && (!strcasecmp(s, "false") || !strcasecmp(s, "no"))) {
				e->sched_fifo = 0;
				ret = 0;
			} else {
				ret = get_uint(x, vn, k, 1, 99, &v);
				e->sched_fifo = (int)v;
			}
		} else {
			ret = get_bool(x, vn, k, &e->mlockall);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- groups ------------------------------------------------------------ */

static const char *const group_keys[] = {
	"bench", "name", "cpus", "repetitions", "raw", "events", "params",
	"matrix", NULL,
};

static int fail_unknown_bench(struct ctx *x, int line, const char *name)
{
	const char *near = il_bench_suggest(name);

	if (near)
		return fail(x, line, "bench", "unknown benchmark '%s' (did you mean '%s'?)",
			    name, near);
	return fail(x, line, "bench", "unknown benchmark '%s' (see idlelab list)",
		    name);
}

static int fail_unknown_param(struct ctx *x, int line,
			      const struct il_bench_ops *ops, const char *key)
{
	const char *near = il_opts_suggest(ops->opts, key);

	if (near)
		return fail(x, line, key, "benchmark %s has no parameter '%s' (did you mean '%s'?)",
			    ops->name, key, near);
	return fail(x, line, key, "benchmark %s has no parameter '%s' (see idlelab list %s)",
		    ops->name, key, ops->name);
}

/*
 * Parse @val for @key with @ops's table and format it back: the canonical
 * form that is hashed and passed to the runner.
 */
static int canon_param(struct ctx *x, const struct il_bench_ops *ops,
		       const char *key, int key_line, const char *val,
		       int val_line, char **out)
{
	const struct il_opt *o = il_opts_find(ops->opts, key);
	char buf[1024];
	const char *msg;
	void *scratch;
	size_t plen;
	int ret;

	if (!o)
		return fail_unknown_param(x, key_line, ops, key);
	scratch = calloc(1, ops->params_size ? ops->params_size : 1);
	if (!scratch)
		return il_errorf(-ENOMEM, "out of memory");
	il_opts_defaults(ops->opts, scratch);
	ret = il_opts_set(ops->opts, scratch, key, val);
	if (ret) {
		char prefix[128];

		/* opts.c says "parameter 'k': ..."; the key is already named. */
		msg = il_errmsg();
		plen = (size_t)snprintf(prefix, sizeof(prefix), "parameter '%s': ", key);
		if (!strncmp(msg, prefix, plen))
			msg += plen;
		snprintf(buf, sizeof(buf), "%s", msg);
		free(scratch);
		return fail(x, val_line, key, "%s", buf);
	}
	ret = il_opts_format(o, scratch, buf, sizeof(buf));
	free(scratch);
	if (ret < 0)
		return fail(x, val_line, key, "cannot format value '%s'", val);
	*out = strdup(buf);
	return *out ? 0 : il_errorf(-ENOMEM, "out of memory");
}

static int parse_matrix(struct ctx *x, const yaml_node_t *n, struct group_src *g)
{
	yaml_node_pair_t *p;
	yaml_node_item_t *it;
	int ret, i = 0, j;

	ret = check_mapping(x, n, "matrix", "matrix", NULL);
	if (ret)
		return ret;
	if (n->data.mapping.pairs.start == n->data.mapping.pairs.top)
		return fail(x, line_of(n), "matrix",
			    "empty matrix: give at least one parameter, or leave 'matrix' out");
	g->dims = calloc(n->data.mapping.pairs.top - n->data.mapping.pairs.start,
			 sizeof(*g->dims));
	if (!g->dims)
		return il_errorf(-ENOMEM, "out of memory");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++, i++) {
		yaml_node_t *kn = node(x, p->key), *vn = node(x, p->value);
		struct dim *d = &g->dims[i];
		int cnt;

		g->ndims = i + 1;
		d->key = strdup(scalar(kn));
		d->key_line = line_of(kn);
		if (!d->key)
			return il_errorf(-ENOMEM, "out of memory");
		if (!il_opts_find(g->ops->opts, d->key))
			return fail_unknown_param(x, d->key_line, g->ops, d->key);
		for (j = 0; j < g->s.nparams; j++)
			if (!strcmp(g->s.params[j].key, d->key))
				return fail(x, d->key_line, d->key,
					    "set in both params (line %d) and matrix",
					    g->s.params[j].key_line);
		cnt = vn->type == YAML_SEQUENCE_NODE ?
		      (int)(vn->data.sequence.items.top - vn->data.sequence.items.start) : 1;
		if (!cnt)
			return fail(x, line_of(vn), d->key,
				    "empty list: the matrix would have no runs");
		d->vals = calloc(cnt, sizeof(*d->vals));
		d->lines = calloc(cnt, sizeof(*d->lines));
		if (!d->vals || !d->lines)
			return il_errorf(-ENOMEM, "out of memory");
		if (vn->type != YAML_SEQUENCE_NODE) {
			d->n = 1;
			d->lines[0] = line_of(vn);
			ret = value_text(x, vn, d->key, false, &d->vals[0]);
			if (ret)
				return ret;
		} else {
			for (it = vn->data.sequence.items.start, j = 0;
			     it < vn->data.sequence.items.top; it++, j++) {
				yaml_node_t *e = node(x, *it);

				d->n = j + 1;
				d->lines[j] = line_of(e);
				/* A nested list is one value of a list-typed
				 * parameter: targets: [[1, 2, 4], [8]]. */
				ret = value_text(x, e, d->key, true, &d->vals[j]);
				if (ret)
					return ret;
			}
		}
		/* Check every value now, at its own line. */
		for (j = 0; j < d->n; j++) {
			char *canon = NULL;

			ret = canon_param(x, g->ops, d->key, d->key_line,
					  d->vals[j], d->lines[j], &canon);
			if (ret)
				return ret;
			free(d->vals[j]);
			d->vals[j] = canon;
		}
	}
	return 0;
}

static int parse_group(struct ctx *x, const yaml_node_t *n, struct group_src *g)
{
	yaml_node_pair_t *p;
	yaml_node_t *bench = NULL, *matrix = NULL, *params = NULL;
	uint64_t v;
	int ret, i;

	g->line = line_of(n);
	ret = check_mapping(x, n, "groups", "a group", group_keys);
	if (ret)
		return ret;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k = scalar(node(x, p->key));

		if (!strcmp(k, "bench"))
			bench = node(x, p->value);
		else if (!strcmp(k, "matrix"))
			matrix = node(x, p->value);
		else if (!strcmp(k, "params"))
			params = node(x, p->value);
	}
	if (!bench)
		return fail(x, g->line, "bench", "missing: every group names a benchmark");
	ret = want_scalar(x, bench, "bench", "a benchmark name");
	if (ret)
		return ret;
	g->ops = il_bench_find(scalar(bench));
	if (!g->ops)
		return fail_unknown_bench(x, line_of(bench), scalar(bench));

	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k = scalar(node(x, p->key));
		yaml_node_t *vn = node(x, p->value);

		ret = 0;
		if (!strcmp(k, "name")) {
			ret = get_string(x, vn, k, &g->name);
		} else if (!strcmp(k, "cpus")) {
			ret = parse_cpus(x, vn, &g->s);
			g->has_cpus = true;
		} else if (!strcmp(k, "repetitions")) {
			ret = get_uint(x, vn, k, 1, 1000000, &v);
			g->s.repetitions = (int)v;
			g->has_reps = true;
		} else if (!strcmp(k, "raw")) {
			ret = get_bool(x, vn, k, &g->s.raw);
			g->has_raw = true;
		} else if (!strcmp(k, "events")) {
			ret = parse_events(x, vn, &g->s);
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
		for (i = 0; i < g->s.nparams; i++) {
			struct raw_kv *kv = &g->s.params[i];
			char *canon = NULL;

			ret = check_list_param(x, g->ops, kv);
			if (!ret)
				ret = canon_param(x, g->ops, kv->key, kv->key_line,
						  kv->val, kv->val_line, &canon);
			if (ret)
				return ret;
			free(kv->val);
			kv->val = canon;
		}
	}
	if (matrix)
		return parse_matrix(x, matrix, g);
	return 0;
}

/* Inherit from the defaults what the group did not set. */
static int inherit(struct ctx *x, struct group_src *g)
{
	struct settings *d = &x->defaults;
	int i;

	if (!g->has_reps)
		g->s.repetitions = d->repetitions ? d->repetitions : 1;
	if (!g->has_raw)
		g->s.raw = d->raw;
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
static int check_placements(struct ctx *x, const struct group_src *g)
{
	struct il_placement pl;
	int i, ret;

	if (!x->topo)
		return 0;
	for (i = 0; i < g->s.ncpus; i++) {
		ret = il_place_parse(x->topo, g->s.cpus[i], &pl);
		if (ret)
			return fail(x, g->s.cpus_lines[i], "cpus", "%s", il_errmsg());
		if ((g->ops->flags & IL_BF_PAIRS) && pl.kind != IL_PLACE_PAIRS)
			ret = fail(x, g->s.cpus_lines[i], "cpus",
				   "'%s': %s needs CPU pairs (e.g. pairs:smt or pairs:0-1)",
				   g->s.cpus[i], g->ops->name);
		else if ((g->ops->flags & IL_BF_MULTI_CPU) &&
			 pl.kind == IL_PLACE_CPUS && pl.ncpus < 2)
			ret = fail(x, g->s.cpus_lines[i], "cpus",
				   "'%s': %s needs at least two CPUs",
				   g->s.cpus[i], g->ops->name);
		il_place_free(&pl);
		if (ret)
			return ret;
	}
	return 0;
}

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
		ret = check_list_param(x, g->ops, d);
		if (!ret)
			ret = canon_param(x, g->ops, d->key, d->key_line, d->val,
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
		ret = canon_param(x, g->ops, prio, x->c->env_line, v,
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

static void entry_free(struct il_plan_entry *e)
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
		return fail(x, g->line, NULL, "the plan has more than %d runs; split the campaign",
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

static int expand_group(struct ctx *x, const struct group_src *g, int gno)
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
static int check_default_params(struct ctx *x)
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
			return fail(x, d->key_line, d->key,
				    "no benchmark of this campaign has this parameter (did you mean '%s'?)",
				    near);
		return fail(x, d->key_line, d->key,
			    "no benchmark of this campaign has this parameter");
	}
	return 0;
}

/* ---- top level --------------------------------------------------------- */

static const char *const top_keys[] = {
	"name", "description", "defaults", "environment", "groups", NULL,
};

static bool valid_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' ||
		      *s == '.'))
			return false;
	return true;
}

static int parse_root(struct ctx *x, yaml_node_t *root)
{
	yaml_node_t *name = NULL, *groups = NULL, *defaults = NULL, *env = NULL;
	yaml_node_pair_t *p;
	yaml_node_item_t *it;
	int ret, i;

	ret = check_mapping(x, root, NULL, "the campaign", top_keys);
	if (ret)
		return ret;
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const char *k = scalar(node(x, p->key));
		yaml_node_t *vn = node(x, p->value);

		if (!strcmp(k, "name"))
			name = vn;
		else if (!strcmp(k, "groups"))
			groups = vn;
		else if (!strcmp(k, "defaults"))
			defaults = vn;
		else if (!strcmp(k, "environment"))
			env = vn;
		else if ((ret = get_string(x, vn, k, &x->c->description)))
			return ret;
	}
	if (!name)
		return fail(x, line_of(root), "name", "missing: a campaign needs a name");
	ret = get_string(x, name, "name", &x->c->name);
	if (ret)
		return ret;
	if (!valid_name(x->c->name))
		return fail(x, line_of(name), "name",
			    "'%s' is not a valid name (1-64 of A-Z a-z 0-9 . _ -)",
			    x->c->name);
	if (defaults && (ret = parse_defaults(x, defaults)))
		return ret;
	if (env && !is_null(env) && (ret = parse_environment(x, env)))
		return ret;
	if (!groups)
		return fail(x, line_of(root), "groups", "missing: a campaign needs at least one group");
	if (groups->type != YAML_SEQUENCE_NODE)
		return fail(x, line_of(groups), "groups", "expected a list of groups, got %s",
			    kind_name(groups));
	x->ngroups = (int)(groups->data.sequence.items.top - groups->data.sequence.items.start);
	if (!x->ngroups)
		return fail(x, line_of(groups), "groups", "empty list: a campaign needs at least one group");
	x->groups = calloc(x->ngroups, sizeof(*x->groups));
	if (!x->groups)
		return il_errorf(-ENOMEM, "out of memory");
	for (it = groups->data.sequence.items.start, i = 0;
	     it < groups->data.sequence.items.top; it++, i++) {
		ret = parse_group(x, node(x, *it), &x->groups[i]);
		if (!ret)
			ret = inherit(x, &x->groups[i]);
		if (!ret)
			ret = check_placements(x, &x->groups[i]);
		if (ret)
			return ret;
	}
	ret = check_default_params(x);
	if (ret)
		return ret;
	x->c->ngroups = x->ngroups;
	for (i = 0; i < x->ngroups && !ret; i++)
		ret = expand_group(x, &x->groups[i], i);
	return ret;
}

static void ctx_free(struct ctx *x)
{
	int i, j;

	settings_free(&x->defaults);
	for (i = 0; i < x->ngroups; i++) {
		struct group_src *g = &x->groups[i];

		free(g->name);
		settings_free(&g->s);
		for (j = 0; j < g->ndims; j++) {
			int k;

			for (k = 0; k < g->dims[j].n; k++)
				free(g->dims[j].vals[k]);
			free(g->dims[j].vals);
			free(g->dims[j].lines);
			free(g->dims[j].key);
		}
		free(g->dims);
	}
	free(x->groups);
}

int il_campaign_parse(const char *file, const char *text, size_t len,
		      struct il_topo *topo, struct il_campaign **out)
{
	struct ctx x = { .file = file, .topo = topo };
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	yaml_node_t *root;
	int ret;

	*out = NULL;
	x.c = calloc(1, sizeof(*x.c));
	if (!x.c)
		return il_errorf(-ENOMEM, "out of memory");
	x.c->file = strdup(file);
	if (!x.c->file) {
		free(x.c);
		return il_errorf(-ENOMEM, "out of memory");
	}
	if (!yaml_parser_initialize(&parser)) {
		il_campaign_free(x.c);
		return il_errorf(-ENOMEM, "out of memory");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		ret = il_errorf(-EINVAL, "%s:%zu: YAML syntax error: %s%s%s", file,
				parser.problem_mark.line + 1,
				parser.problem ? parser.problem : "malformed",
				parser.context ? " " : "",
				parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		il_campaign_free(x.c);
		return ret;
	}
	x.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		ret = fail(&x, 1, NULL, "the file is empty; a campaign needs 'name' and 'groups'");
		goto out;
	}
	/* A second document would be silently ignored otherwise. */
	if (!yaml_parser_load(&parser, &extra)) {
		ret = il_errorf(-EINVAL, "%s:%zu: YAML syntax error: %s", file,
				parser.problem_mark.line + 1,
				parser.problem ? parser.problem : "malformed");
		goto out;
	}
	if (yaml_document_get_root_node(&extra)) {
		ret = fail(&x, (int)extra.start_mark.line + 1, NULL,
			   "a second YAML document; a campaign file holds one");
		yaml_document_delete(&extra);
		goto out;
	}
	yaml_document_delete(&extra);
	ret = parse_root(&x, root);
	if (!ret && !x.c->description)
		x.c->description = strdup("");
	if (!ret && !x.c->description)
		ret = il_errorf(-ENOMEM, "out of memory");
out:
	ctx_free(&x);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (ret) {
		il_campaign_free(x.c);
		return ret;
	}
	*out = x.c;
	return 0;
}

int il_campaign_load(const char *path, struct il_topo *topo,
		     struct il_campaign **out)
{
	char *buf = NULL, *nbuf;
	size_t cap = 0, len = 0, n;
	FILE *f;
	int ret;

	*out = NULL;
	f = fopen(path, "rb");
	if (!f)
		return il_errorf(errno == ENOENT ? -ENOENT : -errno,
				 "%s: cannot open: %s", path, strerror(errno));
	for (;;) {
		if (len == cap) {
			if (cap >= IL_CAMPAIGN_MAX_FILE) {
				ret = il_errorf(-EFBIG, "%s: larger than %u bytes; not a campaign file",
						path, IL_CAMPAIGN_MAX_FILE);
				goto out;
			}
			cap = cap ? cap * 2 : 8192;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				ret = il_errorf(-ENOMEM, "out of memory");
				goto out;
			}
			buf = nbuf;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		ret = il_errorf(-EIO, "%s: read error", path);
		goto out;
	}
	ret = il_campaign_parse(path, buf ? buf : "", len, topo, out);
out:
	free(buf);
	fclose(f);
	return ret;
}

void il_campaign_free(struct il_campaign *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < c->nplan; i++)
		entry_free(&c->plan[i]);
	free(c->plan);
	il_envctl_spec_free(&c->env);
	free(c->file);
	free(c->name);
	free(c->description);
	free(c);
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
