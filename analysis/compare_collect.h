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

/* One run's summaries for one key and CPU label (or all), merged. */
struct ab_item {
	char *run;
	char cpu[32];
	bool ref;
	struct il_summary sum;
	int64_t p50, p99;		/* reference rows: as published */
	double val[IL_AB_NALL];		/* run_value() of each statistic */
	struct il_ab_exact exact;	/* measured rows kept raw */
	struct ab_raw_ids raw;		/* their summaries, while all_raw */
	bool hd_raw;			/* HD deciles from the raw samples */
};

struct ab_items {
	int n, cap;
	struct ab_item *v;
};

/* Benchmark x metric x target count, and what each side holds of it. */
struct ab_key {
	char *key;
	char *bench, *metric, *unit;
	int64_t grp;
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
/* @r's key in @k, made when new.  NULL: out of memory. */
struct ab_key *ab_key_get(struct ab_keys *k, const struct il_srow *r);
/* A new item of @r's run and CPU label @cpu at the end of @s, with the
 * row's reference figures. */
struct ab_item *ab_item_new(struct ab_items *s, const struct il_srow *r,
			    const char *cpu);
/* @r's summary, exact values and raw samples into its item @it (its
 * histogram is the collector's to merge). */
int ab_item_count(struct ab_item *it, const struct il_srow *r);
/* Statistic @st of item @it, whose histogram is @h. */
double ab_run_value(const struct ab_item *it, const struct il_hist *h,
		    enum il_ab_stat st);
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
