/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * opts.h - the declarative parameter table of a benchmark.
 *
 * One table per benchmark, in the manner of fio's struct fio_option, drives
 * --param parsing and validation, the defaults, `idlelab list`, the JSON
 * parameters stored with each run and campaign-file validation.  Every
 * value lives at @offset inside the benchmark's params struct.
 *
 * Types:
 *   IL_OPT_U64   uint64_t, decimal, within [min, max]
 *   IL_OPT_BOOL  bool, "0/1/true/false/yes/no/on/off"
 *   IL_OPT_ENUM  int index into @choices
 *   IL_OPT_LIST  struct il_u64_list, comma-separated u64 values each within
 *                [min, max] (e.g. target counts "1,2,4,8")
 *
 * Errors follow err.h: -EINVAL with a message naming the key and the value.
 */
#ifndef IDLELAB_OPTS_H
#define IDLELAB_OPTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IL_LIST_MAX	32

enum il_opt_type {
	IL_OPT_U64,
	IL_OPT_BOOL,
	IL_OPT_ENUM,
	IL_OPT_LIST,
};

struct il_u64_list {
	int n;
	uint64_t v[IL_LIST_MAX];
};

struct il_opt {
	const char *name;
	enum il_opt_type type;
	size_t offset;
	uint64_t min;
	uint64_t max;
	const char *def;	/* default, in the same syntax as --param */
	const char *unit;	/* "ns", "us", "count", ... ("" if none) */
	const char *help;
	const char *const *choices;	/* IL_OPT_ENUM: NULL-terminated */
	/*
	 * A count or a duration that `idlelab run --scale F` multiplies (a
	 * smoke test's shrunk campaign): samples, rounds, windows, reps, a run
	 * length.  Never a quantity that defines what is measured (an
	 * interval, a launch distance, a threshold, a buffer size).
	 */
	bool scale;
	/*
	 * IL_OPT_BOOL only: left out of il_opts_to_json() while false.  For a
	 * parameter added after campaigns were stored: their plans and resume
	 * hashes hold every parameter's value, so a new key written at its
	 * default would make every stored campaign resume as "changed"
	 * (tests/unit/test_plan_stable.c).
	 */
	bool omit_false;
	/*
	 * IL_OPT_U64 and IL_OPT_ENUM: left out of il_opts_to_json() while 0
	 * (an enum: its first choice), for the same reason: a number or a
	 * choice added after campaigns were stored, whose zero is what runs
	 * without it did.
	 */
	bool omit_zero;
};

#define IL_OPT_END { .name = NULL }

/** il_opts_defaults() - zero @params and apply every default. */
int il_opts_defaults(const struct il_opt *t, void *params);

/**
 * il_opts_set() - parse @val for @key into @params.
 * Return: 0; -ENOENT for an unknown key (message suggests the nearest name);
 * -EINVAL for a malformed or out-of-range value.
 */
int il_opts_set(const struct il_opt *t, void *params, const char *key,
		const char *val);

/** il_opts_set_kv() - the same for one "key=value" string. */
int il_opts_set_kv(const struct il_opt *t, void *params, const char *kv);

/**
 * il_opts_parse_kvs() - the typed block of @n "key=value" strings @kv
 * (`idlelab bench --param`): @params gets the table's defaults, then each
 * string over them.  A key given twice is refused, as a campaign file
 * refuses a duplicate key, rather than the last one silently winning.
 * Return: 0, or il_opts_set()'s -ENOENT/-EINVAL (message set).
 */
int il_opts_parse_kvs(const struct il_opt *t, void *params,
		      const char *const *kv, int n);

/** il_opts_find() - the entry for @key, or NULL. */
const struct il_opt *il_opts_find(const struct il_opt *t, const char *key);

/** il_opts_suggest() - il_suggest() over the names of table @t. */
const char *il_opts_suggest(const struct il_opt *t, const char *key);

/**
 * il_opts_scale() - multiply every IL_OPT_U64 parameter marked .scale in
 * @params by @factor, rounded, at least 1, and kept within the option's
 * [min, max].  A value of 0 (an option's "none" or "no limit") and every
 * other parameter are left as they are.
 */
void il_opts_scale(const struct il_opt *t, void *params, double factor);

/** il_opts_to_json() - every parameter's current value as a JSON object. */
json_t *il_opts_to_json(const struct il_opt *t, const void *params);

/** il_opts_format() - one parameter's value in --param syntax. */
int il_opts_format(const struct il_opt *o, const void *params, char *buf,
		   size_t len);

/** il_opts_type_name() - "u64", "bool", "enum" or "list". */
const char *il_opts_type_name(enum il_opt_type t);

/** il_edit_distance() - Levenshtein distance, for near-miss suggestions. */
int il_edit_distance(const char *a, const char *b);

/*
 * Near-miss suggestions ("did you mean ...?") for every kind of name the
 * user types: commands, benchmarks, parameters, campaign keys.  One rule
 * for all of them: the nearest candidate by il_edit_distance(), if it is
 * at most IL_SUGGEST_MAX_DISTANCE edits away and fewer edits than the
 * typed word has characters (so "" or "x" never "means" anything); the
 * first of equally near candidates wins.
 */
#define IL_SUGGEST_MAX_DISTANCE	3

/**
 * struct il_suggester - the nearest candidate so far, for tables whose
 * names are not a plain string list: il_suggest_init(), then
 * il_suggest_consider() per name, then read @best (NULL: none near).
 */
struct il_suggester {
	const char *key;
	const char *best;
	int bestd;
};

void il_suggest_init(struct il_suggester *s, const char *key);
void il_suggest_consider(struct il_suggester *s, const char *name);

/** il_suggest() - the nearest of the NULL-terminated @names to @key, or NULL. */
const char *il_suggest(const char *key, const char *const *names);

#endif
