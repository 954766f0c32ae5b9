/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compare_collect.h - internal to analysis/: the runs of the A/B table
 * (compare.c) as compare_collect.c collects them from the dataset, side
 * by side, reduced to a few values per run, kept apart from the rows the
 * table builds of them so that each file has one job.
 */
#ifndef IDLELAB_ANALYSIS_COMPARE_COLLECT_H
#define IDLELAB_ANALYSIS_COMPARE_COLLECT_H

#include "ab.h"
#include "ab_raw.h"
#include "ab_table.h"
#include "analysis.h"

#include <stdbool.h>
#include <stdint.h>

struct il_store;

/*
 * One run's values for one key and CPU label (or all), reduced: what the
 * rows read of it, a few words besides its values (issue 23).  Its
 * statistics are the list's val[], nval to an item, and the summary ids
 * behind its exact values the list's raw pool, so that neither costs a
 * run more than it needs.
 */
struct ab_item {
	uint64_t count, dropped;	/* samples taken, and not */
	uint32_t raw_off, raw_n;	/* its ids in the list's raw pool */
	uint16_t cpu;			/* its label: key->labels.v[cpu] */
	bool ref;			/* published figures */
	bool raw;			/* values to read from raw samples */
	bool merged;			/* several series (several CPUs) */
	bool hd_raw;			/* HD deciles from the raw samples */
};

struct ab_items {
	int n, cap;
	struct ab_item *v;
	int nval;			/* statistics per item */
	size_t vcap;
	double *val;			/* item i's: val[i * nval ..] */
	struct ab_raw_ids ids;		/* the raw pool */
};

/* An item's statistics, indexed by enum il_ab_stat (below nval). */
static inline double *ab_item_val(const struct ab_items *s, int i)
{
	return &s->val[(size_t)i * s->nval];
}

/*
 * A run's rows for one item while they arrive, added up: what its
 * values are computed from when it is reduced (ab_item_put()).
 */
struct ab_acc {
	bool ref;
	int64_t p50, p99;		/* reference rows: as published */
	struct il_summary sum;
	struct il_ab_exact exact;	/* measured rows kept raw */
	struct ab_raw_ids raw;		/* their summaries, while all_raw */
};

/* The CPU labels of a key's items, each once. */
struct ab_labels {
	int n, cap;
	char (*v)[32];
};

/* Benchmark x metric x target count, and what each side holds of it. */
struct ab_key {
	char *key;
	char *bench, *metric, *unit;
	int64_t grp;
	struct ab_labels labels;
	struct ab_items side[AB_MAX_SIDES];	/* per run and CPU label */
	struct ab_items all[AB_MAX_SIDES];	/* per run, its CPUs merged */
};

struct ab_keys {
	int n, cap;
	struct ab_key *v;
};

/**
 * ab_collect() - the runs of every side of @o (o->compare) into @keys,
 * sorted by key, each run's values computed from its histogram, summary
 * and stored exact percentiles (ab.h), the statistics @o shows.
 * Return: 0 or -errno (err.h); @keys holds what was collected either way
 * and is freed with ab_keys_free().
 */
int ab_collect(struct il_store *s, const struct il_analysis_opts *o,
	       struct ab_keys *keys);
void ab_keys_free(struct ab_keys *k);

/**
 * ab_collect_reference() - ab_collect() the brute-force way
 * (compare_reference.c): every item keeps its own histogram, merged from
 * each of its rows, whatever order they come in, and all are reduced at
 * the end.  The reference the streaming collector is tested against
 * (IDLELAB_COMPARE_REFERENCE=1); only for small datasets.
 */
int ab_collect_reference(struct il_store *s, const struct il_analysis_opts *o,
			 struct ab_keys *keys);

/* The pieces of the collectors both use (compare_collect.c). */
struct il_srow;
/* @r's key in @k, made when new, its items of @nval statistics each.
 * NULL: out of memory. */
struct ab_key *ab_key_get(struct ab_keys *k, const struct il_srow *r,
			  int nval);
/* The index of CPU label @cpu in @k's labels, added when new; -ENOMEM. */
int ab_label_get(struct ab_key *k, const char *cpu);
/* Start @a afresh for @r's run (keeping its buffer). */
void ab_acc_start(struct ab_acc *a, const struct il_srow *r);
/* @r's summary, exact values and raw sample ids into @a (its histogram
 * is the collector's to merge). */
int ab_acc_count(struct ab_acc *a, const struct il_srow *r);
/*
 * ab_item_put() - append the item of label @cpu that @a and its
 * histogram @h add up to, reduced to @s->nval statistics, to @s.
 * Return: 0 or -ENOMEM.
 */
int ab_item_put(struct ab_items *s, int cpu, const struct ab_acc *a,
		const struct il_hist *h);
/* qsort()'s order of keys: the table's row order. */
int ab_key_cmp(const void *a, const void *b);

/**
 * ab_raw_values() - the values of the runs in @list that only their raw
 * samples give (ab_raw.c), where every series kept them: the median and
 * p99 of a run that merges several series, and with @deciles the
 * Harrell-Davis deciles of every such run.  Called for the lists a row
 * uses only, so that only those runs' samples are read.
 * Return: 0 or -errno (err.h).
 */
int ab_raw_values(struct il_store *db, struct ab_items *list, bool deciles);

#endif
