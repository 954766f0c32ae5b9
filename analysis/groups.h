/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * groups.h - internal to analysis/: the one query every report kind reads
 * summaries through (with the run attributes the kinds group by) and the
 * exact merge of the rows of one group.  A kind turns each row into a key;
 * rows with equal keys merge (summaries by Chan's formula, histograms by
 * adding counts), so a group can span runs, CPUs and machines.
 */
#ifndef IDLELAB_ANALYSIS_GROUPS_H
#define IDLELAB_ANALYSIS_GROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"
#include "stats.h"

struct il_store;

struct il_srow {
	const char *run_uuid;
	const char *machine_uuid;
	const char *host;
	bool is_ref;
	const char *source;
	const char *bench;
	const char *params;
	const char *metric;
	const char *unit;
	int cpu;
	int cpu2;
	int64_t grp;
	struct il_summary sum;
	int64_t p50, p99, p999;		/* stored; -1 when NULL */
	bool exact;			/* every sample kept raw: p50, p99
					 * and p999 are exact (store_run.c) */
	int64_t raw_id;			/* exact: the summary id of its
					 * raw samples (ab_raw.c), else -1 */
	struct il_hist *hist;		/* NULL when missing */
	const char *idle_state;		/* run_attrs, or NULL */
	const char *wake_source;
	const char *envctl;
	const char *mode;		/* params.mode, or "" */
	/* run_attrs: the idle state the hardware says it entered, or NULL */
	const char *hw_state;
};

struct il_grp {
	char *key;
	char *label[6];
	bool ref;
	int runs;
	struct il_summary sum;
	struct il_hist *hist;
	int64_t p50, p99, p999;		/* reference rows: as published */
};

struct il_grps {
	int n;
	int cap;
	struct il_grp *v;
};

/**
 * il_rows_foreach() - every summary of an ok/interrupted run, in a fixed
 * order, restricted to @bench (may be NULL) and @filter (may be NULL).
 * A damaged run (il_store_run_damaged()) is left out whole.
 */
int il_rows_foreach(struct il_store *s, const char *bench,
		    const struct il_filter *filter,
		    int (*fn)(const struct il_srow *r, void *arg), void *arg);

/**
 * il_rows_foreach_by_run() - il_rows_foreach() in the order benchmark,
 * metric, target count, machine, run, CPU: all the rows of one run for
 * one key arrive together, so a reader can merge a run's rows, reduce
 * them to the few values it needs and free them before the next run
 * (compare.c, issue 23).
 */
int il_rows_foreach_by_run(struct il_store *s, const char *bench,
			   const struct il_filter *filter,
			   int (*fn)(const struct il_srow *r, void *arg),
			   void *arg);

/**
 * il_srow_take_hist() - take @r's histogram, inside an il_rows_foreach()
 * callback: the caller frees it, the loop no longer does, and @r->hist
 * is NULL from then on.  Saves a copy of a whole histogram per row.
 */
struct il_hist *il_srow_take_hist(const struct il_srow *r);

/**
 * il_grps_add() - merge @r into the group @key, creating it (labels
 * copied from @labels, up to 6, NULL-terminated) when new.
 */
int il_grps_add(struct il_grps *g, const char *key, const char *const *labels,
		const struct il_srow *r);
void il_grps_sort(struct il_grps *g);
void il_grps_free(struct il_grps *g);

/* Number formatting shared by the kinds: "-" when it does not exist. */
void il_fmt_u64(char *buf, size_t len, int64_t v);
void il_fmt_f1(char *buf, size_t len, double v);

/** il_grp_pct() - median/p99/p99.9 of a group (published for refs), -1
 * where none can be given: no samples, or a tail il_tail_estimable()
 * refuses. */
int64_t il_grp_pct(const struct il_grp *g, double p);

/* A row's CPU for a table: "-" (run-wide), "0", or "0->1" (a pair). */
void il_cpu_label(int cpu, int cpu2, char *buf, size_t len);

/* What il_params_label() leaves out besides the sample-count options. */
enum {
	IL_PARAMS_KEEP_LISTS = 0,
	IL_PARAMS_DROP_LISTS = 1,	/* a list that became the series group */
};

/**
 * il_params_label() - the parameters that define what a run measured, as
 * "key=value key=value" in key order, from its stored params JSON: every
 * key except the options @bench declares `.scale` (how many samples, not
 * what is sampled) and, with IL_PARAMS_DROP_LISTS, its list options.  A
 * benchmark this build does not know keeps every key.  Rows of runs whose
 * labels differ measured different things and must not merge.
 * Return: 0, or -EINVAL when @params is not a JSON object.  "" when none.
 */
int il_params_label(const char *bench, const char *params, int flags,
		    char *buf, size_t len);

struct il_bench_report;
/**
 * il_bench_report_of() - what benchmark @bench declares for the reports
 * (bench_declarations.c); all zero for a name this build's registry does
 * not hold.  Never NULL.
 */
const struct il_bench_report *il_bench_report_of(const char *bench);

#endif
