// SPDX-License-Identifier: GPL-2.0-only
/*
 * campaign.c - campaign files (campaign.h): YAML in, a numbered plan out;
 * this file holds the entry points and the top level of the file.
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
 * the first run.  The parts are listed in campaign_internal.h.
 */
#include "campaign_internal.h"
#include "campaign_stored.h"
#include "err.h"
#include "grow.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IL_CAMPAIGN_MAX_FILE	(16u << 20)

/* ---- top level --------------------------------------------------------- */

static const char *const top_keys[] = {
	"name", "description", "defaults", "environment", "groups", NULL,
};

bool il_campaign_name_valid(const char *s)
{
	if (!*s || strlen(s) > IL_CAMPAIGN_NAME_MAX)
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

	ret = cy_check_mapping(x, root, NULL, "the campaign", top_keys);
	if (ret)
		return ret;
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const char *k = cy_scalar(cy_node(x, p->key));
		yaml_node_t *vn = cy_node(x, p->value);

		if (!strcmp(k, "name"))
			name = vn;
		else if (!strcmp(k, "groups"))
			groups = vn;
		else if (!strcmp(k, "defaults"))
			defaults = vn;
		else if (!strcmp(k, "environment"))
			env = vn;
		else if ((ret = cy_get_string(x, vn, k, &x->c->description)))
			return ret;
	}
	if (!name)
		return cy_fail(x, cy_line_of(root), "name", "missing: a campaign needs a name");
	ret = cy_get_string(x, name, "name", &x->c->name);
	if (ret)
		return ret;
	if (!il_campaign_name_valid(x->c->name))
		return cy_fail(x, cy_line_of(name), "name",
			       "'%s' is not a valid name (" IL_CAMPAIGN_NAME_RULE ")",
			       x->c->name);
	if (defaults && (ret = cs_parse_defaults(x, defaults)))
		return ret;
	if (env && !cy_is_null(env) && (ret = cs_parse_environment(x, env)))
		return ret;
	if (!groups)
		return cy_fail(x, cy_line_of(root), "groups", "missing: a campaign needs at least one group");
	if (groups->type != YAML_SEQUENCE_NODE)
		return cy_fail(x, cy_line_of(groups), "groups", "expected a list of groups, got %s",
			       cy_kind_name(groups));
	x->ngroups = (int)(groups->data.sequence.items.top - groups->data.sequence.items.start);
	if (!x->ngroups)
		return cy_fail(x, cy_line_of(groups), "groups", "empty list: a campaign needs at least one group");
	x->groups = calloc(x->ngroups, sizeof(*x->groups));
	if (!x->groups)
		return il_errorf(-ENOMEM, "out of memory");
	for (it = groups->data.sequence.items.start, i = 0;
	     it < groups->data.sequence.items.top; it++, i++) {
		ret = cs_parse_group(x, cy_node(x, *it), &x->groups[i]);
		if (!ret)
			ret = cs_inherit(x, &x->groups[i]);
		if (!ret)
			ret = cs_check_placements(x, &x->groups[i]);
		if (ret)
			return ret;
	}
	ret = cp_check_default_params(x);
	if (ret)
		return ret;
	x->c->ngroups = x->ngroups;
	for (i = 0; i < x->ngroups && !ret; i++)
		ret = cp_expand_group(x, &x->groups[i], i);
	return ret;
}

static void ctx_free(struct ctx *x)
{
	int i, j;

	cs_settings_free(&x->defaults);
	for (i = 0; i < x->ngroups; i++) {
		struct group_src *g = &x->groups[i];

		free(g->name);
		cs_settings_free(&g->s);
		for (j = 0; j < g->ndims; j++) {
			int k;

			for (k = 0; k < g->dims[j].n; k++) {
				free(g->dims[j].vals[k]);
				if (g->dims[j].tv)
					free(g->dims[j].tv[k].blk);
			}
			free(g->dims[j].vals);
			free(g->dims[j].tv);
			free(g->dims[j].lines);
			free(g->dims[j].key);
		}
		free(g->dims);
		for (j = 0; j < g->nset; j++)
			free(g->set[j].blk);
		free(g->set);
		for (j = 0; j < g->ndset; j++)
			free(g->dset[j].blk);
		free(g->dset);
		free(g->prio.blk);
		free(g->base);
	}
	free(x->groups);
}

int il_campaign_parse_scaled(const char *file, const char *text, size_t len,
			     struct il_topo *topo, double scale,
			     struct il_campaign **out)
{
	struct ctx x = { .file = file, .topo = topo, .scale = scale };
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	yaml_node_t *root;
	int ret;

	*out = NULL;
	if (!il_scale_valid(scale))
		return il_errorf(-EINVAL, "scale %g: must be between %g and %g",
				 scale, IL_SCALE_MIN, IL_SCALE_MAX);
	x.c = calloc(1, sizeof(*x.c));
	if (!x.c)
		return il_errorf(-ENOMEM, "out of memory");
	x.c->scale = scale;
	il_sha256_hex(text, len, x.c->sha256);
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
		ret = cy_fail(&x, 1, NULL, "the file is empty; a campaign needs 'name' and 'groups'");
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
		ret = cy_fail(&x, (int)extra.start_mark.line + 1, NULL,
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

int il_campaign_load_scaled(const char *path, struct il_topo *topo,
			    double scale, struct il_campaign **out)
{
	char *buf = NULL;
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
			if (IL_GROW(buf, cap, len + 1, 8192)) {
				ret = il_errorf(-ENOMEM, "out of memory");
				goto out;
			}
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
	ret = il_campaign_parse_scaled(path, buf ? buf : "", len, topo, scale,
				       out);
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
		cp_entry_free(&c->plan[i]);
	free(c->plan);
	il_envctl_spec_free(&c->env);
	free(c->file);
	free(c->name);
	free(c->description);
	free(c);
}
