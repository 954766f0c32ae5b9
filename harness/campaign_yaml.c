// SPDX-License-Identifier: GPL-2.0-only
/*
 * campaign_yaml.c - libyaml node helpers for the campaign parser: typed
 * scalars (our own null/bool/unsigned rules; libyaml resolves no types),
 * mappings checked for unknown and repeated keys, and every error message
 * in the "FILE:LINE: key 'x': message" form (campaign.h).
 */
#include "campaign_internal.h"
#include "err.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- messages ---------------------------------------------------------- */

int cy_line_of(const yaml_node_t *n)
{
	return n ? (int)n->start_mark.line + 1 : 1;
}

int cy_fail(struct ctx *x, int line, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

int cy_fail(struct ctx *x, int line, const char *key, const char *fmt, ...)
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

const char *cy_kind_name(const yaml_node_t *n)
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

int cy_fail_unknown_key(struct ctx *x, int line, const char *key,
			const char *where, const char *const *known)
{
	const char *near = il_suggest(key, known);
	char list[256] = "";
	size_t used = 0;
	int i;

	if (near)
		return cy_fail(x, line, key, "unknown key in %s (did you mean '%s'?)",
			       where, near);
	for (i = 0; known[i] && used < sizeof(list) - 1; i++)
		used += snprintf(list + used, sizeof(list) - used, "%s%s",
				 i ? ", " : "", known[i]);
	return cy_fail(x, line, key, "unknown key in %s (known: %s)", where, list);
}

/* ---- scalars ----------------------------------------------------------- */

const char *cy_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ?
	       (const char *)n->data.scalar.value : NULL;
}

bool cy_plain(const yaml_node_t *n)
{
	return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ||
	       n->data.scalar.style == YAML_ANY_SCALAR_STYLE;
}

bool cy_is_null(const yaml_node_t *n)
{
	const char *v = cy_scalar(n);

	return v && cy_plain(n) && (!*v || !strcmp(v, "~") || !strcasecmp(v, "null"));
}

int cy_want_scalar(struct ctx *x, const yaml_node_t *n, const char *key,
		   const char *what)
{
	if (n->type != YAML_SCALAR_NODE)
		return cy_fail(x, cy_line_of(n), key, "expected %s, got %s", what,
			       cy_kind_name(n));
	if (cy_is_null(n))
		return cy_fail(x, cy_line_of(n), key, "expected %s, got null", what);
	return 0;
}

int cy_get_string(struct ctx *x, const yaml_node_t *n, const char *key,
		  char **out)
{
	int ret = cy_want_scalar(x, n, key, "a string");

	if (ret)
		return ret;
	free(*out);
	*out = strdup(cy_scalar(n));
	return *out ? 0 : il_errorf(-ENOMEM, "out of memory");
}

int cy_get_bool(struct ctx *x, const yaml_node_t *n, const char *key,
		bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1", NULL };
	static const char *const no[] = { "false", "no", "off", "0", NULL };
	const char *v;
	int i, ret = cy_want_scalar(x, n, key, "true or false");

	if (ret)
		return ret;
	v = cy_scalar(n);
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
	return cy_fail(x, cy_line_of(n), key, "expected true or false, got '%s'", v);
}

int cy_get_uint(struct ctx *x, const yaml_node_t *n, const char *key,
		uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	const char *s;
	char *end;
	int ret = cy_want_scalar(x, n, key, "a number");

	if (ret)
		return ret;
	s = cy_scalar(n);
	errno = 0;
	if (*s < '0' || *s > '9')
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		goto bad;
	if (v < min || v > max)
		return cy_fail(x, cy_line_of(n), key, "%llu is out of range [%" PRIu64
			       ", %" PRIu64 "]", v, min, max);
	*out = v;
	return 0;
bad:
	return cy_fail(x, cy_line_of(n), key, "expected a whole number, got '%s'", s);
}

/* ---- mappings ---------------------------------------------------------- */

yaml_node_t *cy_node(struct ctx *x, int id)
{
	return yaml_document_get_node(x->doc, id);
}

/*
 * Check that @map is a mapping of scalar keys, none repeated, each in
 * @known (NULL: any key).  libyaml keeps duplicate keys, and the second
 * would otherwise silently win.
 */
int cy_check_mapping(struct ctx *x, const yaml_node_t *map,
		     const char *key, const char *where,
		     const char *const *known)
{
	yaml_node_pair_t *p, *q;
	const char *k, *k2;

	if (map->type != YAML_MAPPING_NODE)
		return cy_fail(x, cy_line_of(map), key, "expected a mapping, got %s",
			       cy_kind_name(map));
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = cy_node(x, p->key);

		k = cy_scalar(kn);
		if (!k || cy_is_null(kn))
			return cy_fail(x, cy_line_of(kn), key,
				       "keys in %s must be names, got %s", where,
				       cy_kind_name(kn));
		for (q = map->data.mapping.pairs.start; q < p; q++) {
			k2 = cy_scalar(cy_node(x, q->key));
			if (k2 && !strcmp(k, k2))
				return cy_fail(x, cy_line_of(kn), k,
					       "duplicate key in %s (first on line %d)",
					       where, cy_line_of(cy_node(x, q->key)));
		}
		if (known) {
			int i;

			for (i = 0; known[i] && strcmp(known[i], k); i++)
				;
			if (!known[i])
				return cy_fail_unknown_key(x, cy_line_of(kn), k, where,
							   known);
		}
	}
	return 0;
}

/* Text of a parameter value: a scalar, or a list of scalars joined with
 * commas (for list-typed parameters such as target counts). */
int cy_value_text(struct ctx *x, const yaml_node_t *n, const char *key,
		  bool allow_list, char **out)
{
	yaml_node_item_t *it;
	size_t len = 1, used = 0;
	char *s;

	if (n->type == YAML_SCALAR_NODE) {
		if (cy_is_null(n))
			return cy_fail(x, cy_line_of(n), key, "expected a value, got null");
		*out = strdup(cy_scalar(n));
		return *out ? 0 : il_errorf(-ENOMEM, "out of memory");
	}
	if (n->type != YAML_SEQUENCE_NODE || !allow_list)
		return cy_fail(x, cy_line_of(n), key, "expected a value, got %s",
			       cy_kind_name(n));
	if (n->data.sequence.items.start == n->data.sequence.items.top)
		return cy_fail(x, cy_line_of(n), key, "empty list");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *e = cy_node(x, *it);

		if (e->type != YAML_SCALAR_NODE || cy_is_null(e))
			return cy_fail(x, cy_line_of(e), key,
				       "list elements must be values, got %s",
				       cy_kind_name(e));
		len += strlen(cy_scalar(e)) + 1;
	}
	s = malloc(len);
	if (!s)
		return il_errorf(-ENOMEM, "out of memory");
	s[0] = '\0';
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
		used += snprintf(s + used, len - used, "%s%s", used ? "," : "",
				 cy_scalar(cy_node(x, *it)));
	*out = s;
	return 0;
}
