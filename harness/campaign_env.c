// SPDX-License-Identifier: GPL-2.0-only
/*
 * campaign_env.c - the campaign's environment: block, parsed into an
 * il_envctl_spec (envctl.h).  Which keys exist, what each accepts and the
 * messages for a bad value all come from envctl's one table of keys
 * (envctl_keys.c); this file only turns YAML nodes into the table's
 * neutral values and adds the file and line to its errors.
 */
#include "campaign_internal.h"
#include "err.h"

#include <errno.h>
#include <stdlib.h>

/* A YAML node as the key table sees it: null, a scalar, a list or a map. */
static void env_val(const yaml_node_t *n, struct il_envctl_val *v)
{
	v->kind = cy_is_null(n) ? IL_ENVVAL_NULL :
		  n->type == YAML_SCALAR_NODE ? IL_ENVVAL_SCALAR :
		  n->type == YAML_SEQUENCE_NODE ? IL_ENVVAL_LIST :
		  IL_ENVVAL_MAPPING;
	if (v->kind == IL_ENVVAL_SCALAR) {
		v->text = cy_scalar(n);
		v->plain = cy_plain(n);
	}
}

/* The value @vn of key @k into the campaign's spec, one level of list. */
static int env_set(struct ctx *x, const struct il_envctl_key *k,
		   const yaml_node_t *vn)
{
	struct il_envctl_val v = { 0 }, *items = NULL;
	yaml_node_item_t *it;
	int ret, i = 0;

	env_val(vn, &v);
	if (v.kind == IL_ENVVAL_LIST) {
		v.nitems = (int)(vn->data.sequence.items.top -
				 vn->data.sequence.items.start);
		items = calloc(v.nitems ? v.nitems : 1, sizeof(*items));
		if (!items)
			return il_errorf(-ENOMEM, "out of memory");
		for (it = vn->data.sequence.items.start;
		     it < vn->data.sequence.items.top; it++)
			env_val(cy_node(x, *it), &items[i++]);
		v.items = items;
	}
	ret = il_envctl_key_set(&x->c->env, k, &v);
	free(items);
	if (ret == -EINVAL)
		return cy_fail(x, cy_line_of(vn), k->name, "%s", il_errmsg());
	return ret;
}

int cs_parse_environment(struct ctx *x, const yaml_node_t *n)
{
	yaml_node_pair_t *p;
	int ret;

	x->c->env_line = cy_line_of(n);
	ret = cy_check_mapping(x, n, "environment", "environment",
			       il_envctl_key_names());
	if (ret)
		return ret;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *name = cy_scalar(cy_node(x, p->key));
		const struct il_envctl_key *k = il_envctl_key_find(name);

		/* cy_check_mapping() refused every name the table lacks. */
		if (!k)
			return il_errorf(-EINVAL, "environment: unknown key '%s'",
					 name);
		ret = env_set(x, k, cy_node(x, p->value));
		if (ret)
			return ret;
	}
	return 0;
}
