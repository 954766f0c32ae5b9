/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * campaign.h - campaign files: a YAML description of many runs, expanded
 * into a numbered plan that `idlelab run` executes, resumes and reports.
 *
 * The file format (documented for users in idlelab-run(1)):
 *
 *   name: quick                   # required; [A-Za-z0-9._-], the dataset key
 *   description: ...              # optional
 *   defaults:                     # optional, inherited by every group
 *     cpus: "0-1"                 #   placement (topo.h), or a list of them
 *     repetitions: 1              #   >= 1
 *     raw: false                  #   keep raw samples
 *     events: null                #   null = default counter set; "a,b" or [a, b]
 *     order: sequential           #   sequential, interleaved (ABAB) or random
 *     order_seed: 1               #   only with order: random (default 1)
 *     params: {samples: 1000}     #   applied to every group whose benchmark
 *                                 #   has that parameter, ignored by others
 *   environment:                  # optional; see envctl.h, restored afterwards
 *     pm_qos_us: 0
 *     cpuidle_only: [C1]
 *     governor: performance
 *     pin_freq_khz: max           #   max, min or a number of kHz
 *     sched_fifo: 95              #   1..99; also passed to a "priority" param
 *     mlockall: true
 *   groups:                       # required, at least one
 *     - bench: timer_wake         #   required, a registered benchmark
 *       name: tw-fast             #   optional (default: the bench name)
 *       cpus: ["0", "1"]          #   scalar or list: one dimension of the plan
 *       repetitions: 2
 *       raw / events / order      #   as in defaults
 *       params: {priority: 90}    #   fixed values
 *       matrix:                   #   the cross product of the lists;
 *         interval_us: [200, 1000]#   a scalar is a one-element list
 *         samples: 500
 *
 * Expansion order is deterministic: groups in file order; within a group,
 * placements in list order, then matrix combinations with the *last*
 * matrix key varying fastest (an odometer over the keys in file order),
 * then repetitions 1..R.  The group's order: then rearranges its entries
 * (campaign_order.c): sequential keeps that order; interleaved runs
 * repetition 1 of every configuration, then repetition 2, ... (ABAB);
 * random is a permutation seeded by order_seed (default 1) plus the
 * group's number.  Entry i of the result has plan index i.
 *
 * Each entry's parameters are one typed block (the benchmark's params
 * struct), filled once from the file's text by the option table, so
 * "1e3"-style accidents cannot exist and "007" equals "7".  param_hash is
 * FNV-1a 64, as 16 lowercase hex digits, of "bench|cpus|JSON[|events=E]"
 * where JSON is il_run_params_json() of the block, rendered once into
 * il_plan_entry.params_json: every parameter, defaults included, the very
 * text runs.params stores (the runner is handed it), so changing a
 * default changes the hash.  The hash does not include the repetition, so
 * all repetitions of one configuration share it.  (campaign, plan_index,
 * param_hash) is the resume key.
 *
 * Every error names the file, the line (1-based, from libyaml's marks) and
 * the key: "FILE:LINE: key 'x': message".  Errors follow err.h (-EINVAL
 * for a bad file, -ENOENT if it cannot be read).
 */
#ifndef IDLELAB_CAMPAIGN_H
#define IDLELAB_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "envctl.h"

struct il_store;
struct il_topo;

/* A bound on the expanded plan, so a typo'd matrix cannot eat the RAM. */
#define IL_PLAN_MAX	100000

/* The order of a group's runs in the plan (campaign_order.c). */
enum il_plan_order {
	IL_ORDER_SEQUENTIAL,
	IL_ORDER_INTERLEAVED,
	IL_ORDER_RANDOM,
	IL_ORDER_BLOCKS,	/* the default; last, so stored numbers hold */
};

#define IL_ORDER_LAST		IL_ORDER_BLOCKS
#define IL_ORDER_DEFAULT	IL_ORDER_BLOCKS
#define IL_ORDER_SEED_DEFAULT	1

/* il_plan_order_seeded() - whether @o draws from order_seed. */
static inline bool il_plan_order_seeded(enum il_plan_order o)
{
	return o == IL_ORDER_RANDOM || o == IL_ORDER_BLOCKS;
}

/** il_plan_order_name() - "sequential", "interleaved", "random", "blocks". */
const char *il_plan_order_name(enum il_plan_order o);

/* One planned run. */
struct il_plan_entry {
	int64_t index;			/* position in the expanded plan */
	const struct il_bench_ops *ops;
	char *group;			/* the group's name */
	int group_no;			/* 0-based, in file order */
	int line;			/* the group's line in the file */
	char *cpus;			/* placement spec, never NULL */
	char *events;			/* NULL: the default set */
	bool raw;
	bool causes;			/* the group's causes: true or lean */
	bool causes_lean;		/* causes: lean */
	void *block;			/* every parameter, typed: ops->params_size */
	char *params_json;		/* @block rendered once, by
					 * il_run_params_json(): hashed into
					 * @hash and stored as runs.params */
	/*
	 * Which options the file set (not their values: those are in
	 * @block), in the order of their "key=value" text; what the plan
	 * shows names them.  il_plan_entry_param() formats one.
	 */
	int nset;
	const struct il_opt **set;
	int repetition;			/* 1..repetitions */
	int repetitions;
	enum il_plan_order order;	/* its group's */
	uint64_t order_seed;		/* its group's (used by random) */
	char hash[17];			/* FNV-1a 64, hex */
};

struct il_campaign {
	char *file;
	char *name;
	char *description;		/* "" if none */
	struct il_envctl_spec env;
	int env_line;			/* line of "environment:", 0 if absent */
	double scale;			/* il_campaign_load_scaled()'s, else 1 */
	char sha256[65];		/* of the file's bytes, hex */
	int ngroups;
	int nplan;
	struct il_plan_entry *plan;
};

/*
 * A campaign's name, the key of its runs in the dataset: the file's
 * `name` and `idlelab run --name` alike, so either can name what the
 * other made.  IL_CAMPAIGN_NAME_RULE says it in the messages.
 */
#define IL_CAMPAIGN_NAME_MAX	64
#define IL_CAMPAIGN_NAME_RULE	"1-64 of A-Z a-z 0-9 . _ -"

/** il_campaign_name_valid() - whether @s keeps IL_CAMPAIGN_NAME_RULE. */
bool il_campaign_name_valid(const char *s);

/* The smallest and largest factor il_campaign_load_scaled() takes. */
#define IL_SCALE_MIN	1e-6
#define IL_SCALE_MAX	1.0

/* il_scale_valid() - whether @f is a factor the campaign loader takes. */
static inline bool il_scale_valid(double f)
{
	return f >= IL_SCALE_MIN && f <= IL_SCALE_MAX;	/* false for NaN */
}

/**
 * il_campaign_load_scaled() - read, validate and expand the campaign at
 * @path, with every repetition count and every parameter a benchmark marks as a count or a duration
 * (struct il_opt .scale) multiplied by @scale, rounded and at least 1: the
 * one documented way to shrink a campaign into a smoke test (`idlelab run
 * --scale 0.01`).  What a run measures (intervals, launch distances,
 * thresholds, sizes) is never scaled.  The scaled values are what the
 * runs store, so a scaled run never resumes as an unscaled one.  Pass 1.0
 * for the campaign as written.
 * @topo: placements are checked against it (il_place_parse); NULL skips
 *        that check (for tools that only need the plan's shape).
 * Return: 0 with *@out set (free with il_campaign_free()), or -errno with
 * a "FILE:LINE: key 'x': message" error (err.h); -EINVAL if @scale is
 * outside [IL_SCALE_MIN, IL_SCALE_MAX].
 */
int il_campaign_load_scaled(const char *path, struct il_topo *topo,
			    double scale, struct il_campaign **out);
/* il_campaign_parse_scaled() - the same from memory; @file names it in errors. */
int il_campaign_parse_scaled(const char *file, const char *text, size_t len,
			     struct il_topo *topo, double scale,
			     struct il_campaign **out);

void il_campaign_free(struct il_campaign *c);

struct il_run_request;

/**
 * il_plan_request() - the run request (run_execute.h) of plan entry @e, stored
 * under campaign key @campaign: the entry's typed block and the JSON text
 * the plan rendered from it and hashed, which the store writes as it is.
 * @req points into @e and @campaign, which must outlive it; its cmdline is
 * left NULL for the caller.
 */
void il_plan_request(const struct il_plan_entry *e, const char *campaign,
		     struct il_run_request *req);

/**
 * il_plan_entry_param() - the @i-th option the file set in @e, formatted
 * from @e's block as "key=value" into @buf (@len bytes).
 * Return: 0, or -EINVAL if it does not fit.
 */
int il_plan_entry_param(const struct il_plan_entry *e, int i, char *buf,
			size_t len);

/**
 * il_plan_entry_params() - every option the file set in @e, formatted from
 * @e's block, "key=value" each, joined by @sep ("" when the file set none):
 * for display, never parsed again.
 * Return: a malloc'd string, or NULL on allocation failure.
 */
char *il_plan_entry_params(const struct il_plan_entry *e, const char *sep);

/** il_plan_matches() - fnmatch(3) of @glob on the bench or group name. */
bool il_plan_matches(const struct il_plan_entry *e, const char *glob);

/** il_plan_estimate_placed_ns() - a rough duration for @e: the benchmark's
 * own estimate_ns op on the entry's parameter block, plus a fixed per-run
 * overhead for snapshots and the commit, with @e's placement expanded
 * on @topo (NULL: unknown), for benchmarks that measure CPUs in turn. */
uint64_t il_plan_estimate_placed_ns(const struct il_plan_entry *e,
				    struct il_topo *topo);

/** il_fnv1a64() - FNV-1a, 64 bits, of @len bytes. */
uint64_t il_fnv1a64(const void *data, size_t len);

/*
 * Campaign queries on the dataset (harness/store_campaign.c).  They only
 * read, except il_store_campaign_forget().
 */

/**
 * il_campaign_run_cb - called once per stored run of a campaign.
 * @duration_ns: end - start.  Return non-zero to stop the iteration (the
 * value is then returned by il_store_campaign_runs()).
 */
typedef int (*il_campaign_run_cb)(int64_t plan_index, const char *param_hash,
				  const char *status, uint64_t duration_ns,
				  void *arg);

/**
 * il_store_campaign_runs() - every run of @campaign on @machine (a host
 * UUID; NULL for any machine), in plan order.  Resume keys are per machine
 * (schemas/003), so one fleet database can hold many hosts' runs.
 */
int il_store_campaign_runs(struct il_store *s, const char *campaign,
			   const char *machine,
			   il_campaign_run_cb cb, void *arg);

/**
 * il_store_campaign_forget() - delete the stored run(s) with this resume
 * key and everything hanging off them, in one transaction, so that an
 * interrupted or skipped entry can be run again without breaking the
 * UNIQUE (machine_uuid, campaign, plan_index, param_hash) index.
 * @machine: the host UUID, or NULL for any machine.
 * Return: the number of runs deleted, or -errno.
 */
int il_store_campaign_forget(struct il_store *s, const char *campaign,
			     const char *machine, int64_t plan_index,
			     const char *param_hash);

/**
 * il_store_mean_duration() - the mean duration of earlier "ok" runs of
 * @bench with @param_hash (any campaign).
 * Return: 1 with *@ns set, 0 if there are none, or -errno.
 */
int il_store_mean_duration(struct il_store *s, const char *bench,
			   const char *param_hash, uint64_t *ns);

#endif
