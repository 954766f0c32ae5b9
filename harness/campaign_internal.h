/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * campaign_internal.h - what the campaign files share and nothing else
 * needs: the parse context with the inheritable settings and groups as
 * read from YAML, and the functions one part of the campaign code calls
 * in another.
 *
 *   campaign.c        the entry points: load, parse the document, top level
 *   campaign_yaml.c   libyaml node helpers and the "FILE:LINE: key" errors
 *   campaign_schema.c defaults and groups: the keys, their types, inheritance
 *   campaign_env.c    the environment: block (one function, for envctl's table)
 *   campaign_plan.c   expansion into plan entries, the resume hash, estimates
 *   campaign_order.c  the order: and order_seed: keys, the plan's run order
 */
#ifndef IDLELAB_CAMPAIGN_INTERNAL_H
#define IDLELAB_CAMPAIGN_INTERNAL_H

#include "campaign.h"

#include <stdbool.h>
#include <yaml.h>

/* A parameter value as written, before it meets a benchmark's table. */
struct raw_kv {
	char *key;
	char *val;
	int key_line;
	int val_line;
	bool was_list;		/* written as a YAML list */
};

/*
 * One parameter value, parsed by its benchmark's table: @blk is a params
 * block (ops->params_size bytes) holding it at @o->offset, the rest unused,
 * so the plan copies the field and never goes back to text.
 */
struct typed_val {
	const struct il_opt *o;
	void *blk;
};

/* One matrix dimension. */
struct dim {
	char *key;
	int key_line;
	int n;
	char **vals;			/* as written, for messages */
	struct typed_val *tv;		/* the same, parsed */
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
	enum il_plan_order order;	/* campaign_order.c */
	uint64_t order_seed;
	bool order_set, seed_set;
	int seed_line;
};

struct group_src {
	const struct il_bench_ops *ops;
	char *name;
	int line;
	struct settings s;
	bool has_cpus, has_reps, has_raw;
	bool causes;			/* causes: true (--causes for its runs) */
	bool causes_lean;		/* causes: lean (and --causes-lean) */
	int ndims;
	struct dim *dims;
	void *base;			/* the table's defaults */
	int nset;
	struct typed_val *set;		/* params:, as s.params */
	int ndset;
	struct typed_val *dset;		/* defaults.params that apply */
	struct typed_val prio;		/* environment.sched_fifo; o NULL if none */
};

struct ctx {
	const char *file;
	yaml_document_t *doc;
	struct il_topo *topo;
	struct il_campaign *c;
	double scale;		/* --scale: counts and durations, 1 as written */
	struct settings defaults;
	int ngroups;
	struct group_src *groups;
};

/* campaign_yaml.c */
int cy_line_of(const yaml_node_t *n);
int cy_fail(struct ctx *x, int line, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
const char *cy_kind_name(const yaml_node_t *n);
int cy_fail_unknown_key(struct ctx *x, int line, const char *key,
			const char *where, const char *const *known);
const char *cy_scalar(const yaml_node_t *n);
bool cy_plain(const yaml_node_t *n);
bool cy_is_null(const yaml_node_t *n);
int cy_want_scalar(struct ctx *x, const yaml_node_t *n, const char *key,
		   const char *what);
int cy_get_string(struct ctx *x, const yaml_node_t *n, const char *key,
		  char **out);
int cy_get_bool(struct ctx *x, const yaml_node_t *n, const char *key,
		bool *out);
int cy_get_uint(struct ctx *x, const yaml_node_t *n, const char *key,
		uint64_t min, uint64_t max, uint64_t *out);
yaml_node_t *cy_node(struct ctx *x, int id);
int cy_check_mapping(struct ctx *x, const yaml_node_t *map,
		     const char *key, const char *where,
		     const char *const *known);
int cy_value_text(struct ctx *x, const yaml_node_t *n, const char *key,
		  bool allow_list, char **out);

/* campaign_schema.c and campaign_env.c */
void cs_settings_free(struct settings *s);
int cs_check_list_param(struct ctx *x, const struct il_bench_ops *ops,
			const struct raw_kv *kv);
int cs_parse_defaults(struct ctx *x, const yaml_node_t *n);
int cs_parse_environment(struct ctx *x, const yaml_node_t *n);
int cs_fail_unknown_param(struct ctx *x, int line,
			  const struct il_bench_ops *ops, const char *key);
int cs_parse_param(struct ctx *x, const struct il_bench_ops *ops,
		   const char *key, int key_line, const char *val,
		   int val_line, struct typed_val *out);
int cs_parse_group(struct ctx *x, const yaml_node_t *n, struct group_src *g);
int cs_inherit(struct ctx *x, struct group_src *g);
int cs_check_placements(struct ctx *x, const struct group_src *g);

/* campaign_order.c */
int cs_parse_order(struct ctx *x, const yaml_node_t *n, const char *key,
		   struct settings *s);
int cs_check_order(struct ctx *x, const struct settings *s);
void cs_inherit_order(const struct settings *d, struct settings *g);
void cp_order_group(struct il_plan_entry *v, int n, enum il_plan_order order,
		    uint64_t seed, int gno);

/* campaign_plan.c */
void cp_entry_free(struct il_plan_entry *e);
int cp_expand_group(struct ctx *x, const struct group_src *g, int gno);
int cp_check_default_params(struct ctx *x);

#endif
