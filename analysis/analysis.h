/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * analysis.h - reports read from the dataset.  A report never re-runs
 * anything: it reads summaries and histograms, merges the histograms of
 * runs that measured the same thing (exactly, since they share one
 * layout) and renders one table in the requested format.
 *
 * Errors follow err.h.
 */
#ifndef IDLELAB_ANALYSIS_H
#define IDLELAB_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct il_store;

enum il_format {
	IL_FMT_MD,
	IL_FMT_CSV,
	IL_FMT_JSON,
	IL_FMT_HTML,	/* only through il_report_html() */
};

struct il_report_opts {
	enum il_format format;
	const char *run_uuid;	/* only this run, or NULL for all */
	const char *bench;	/* only this benchmark, or NULL */
};

/** il_format_parse() - "md", "csv" or "json"; -EINVAL otherwise. */
int il_format_parse(const char *s, enum il_format *out);

/**
 * il_report() - the seed-002-style latency table: one row per machine ×
 * benchmark × configuration × metric × CPU (or pair), with Nr samples, Min,
 * Max, Median, Avg, Stddev, p99 and p99.9; then what could not be measured
 * (unsupported, failed or skipped runs; unsupported or unavailable
 * counters) with its reason.
 */
int il_report(struct il_store *s, const struct il_report_opts *o, FILE *out);

/*
 * A rendered table: every report kind below builds these and one renderer
 * (table.c) prints them as md, csv, json or html, so the formats of all
 * kinds agree.  Cells are strings; "-" marks a value that does not exist.
 */
/*
 * What a column holds, where csv must know it: an interval "[lo, hi]", or
 * an estimate with its interval "est [lo, hi]", which csv splits into
 * numeric columns (il_table_col_kind()).  Any other column is printed as
 * its cells are.
 */
enum il_col_kind {
	IL_COL_PLAIN = 0,
	IL_COL_INTERVAL,
	IL_COL_EST_INTERVAL,
};

struct il_table {
	char *title;
	int ncols;
	char **cols;
	unsigned char *kinds;	/* enum il_col_kind per column */
	int nrows;
	int cap;
	char **cells;		/* nrows * ncols */
	int nnotes;
	char **notes;		/* printed under the table */
};

struct il_table *il_table_new(const char *title, int ncols, const char *const *cols);
void il_table_free(struct il_table *t);
/** il_table_col_kind() - say that column @c holds intervals (csv splits it). */
void il_table_col_kind(struct il_table *t, int c, enum il_col_kind kind);
/** il_table_add() - append a row of exactly ncols printf'ed cells. */
int il_table_add(struct il_table *t, const char *const *cells);
int il_table_note(struct il_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/** il_table_print() - render @t; csv and json carry the notes too. */
void il_table_print(const struct il_table *t, enum il_format f, FILE *out);
/** il_html_text() - @s as HTML text, <, >, & and " escaped. */
void il_html_text(FILE *out, const char *s);
/** il_table_print_notes() - @t's notes alone, as HTML paragraphs. */
void il_table_print_notes(const struct il_table *t, FILE *out);
/** il_tables_print() - several tables; json as one array. */
void il_tables_print(struct il_table *const *t, int n, enum il_format f, FILE *out);

/* One side of an A/B comparison: a filter, "k=v[,k=v...]" (compare.c). */
struct il_filter;
/**
 * il_filter_parse() - parse "KEY=VALUE[,KEY=VALUE...]"; every term must
 * hold.  Keys: host, machine (UUID), source, reference (0|1), bench,
 * metric, campaign, run (UUID), params.NAME, attr.NAME, fp.PATH
 * (fingerprint JSON path).  Return 0 or -EINVAL with a message.
 */
int il_filter_parse(const char *s, struct il_filter **out);
void il_filter_free(struct il_filter *f);

struct il_analysis_opts {
	const char *bench;		/* only this benchmark, or NULL */
	int ncompare;
	struct il_filter **compare;	/* the sides, >= 2 for the compare kind */
	const char *const *compare_text;
	double equivalence_pct;		/* compare: TOST margin in %, 0 none */
	bool deciles;			/* compare: the Harrell-Davis shift
					 * function, one row per decile */
	bool paired;			/* compare: also the paired table
					 * over blocks (compare_paired.c) */
};

/* Told of a selection that is valid but selects nothing (select.c). */
typedef void (*il_report_notice_fn)(const char *msg, void *arg);

/**
 * il_report_check() - the selection of a report checked against the
 * dataset before any table is made: --bench (@ro->bench) must name a
 * benchmark this build registers or the dataset holds, --run
 * (@ro->run_uuid) a stored run, and each --compare term's name (bench,
 * metric, run, host, machine, campaign, source values; params.NAME,
 * attr.NAME and fp.PATH keys) one the dataset (for parameters, also a
 * registered benchmark) knows; two sides may not select the same run.
 * @notice (may be NULL) is called with a message for a --bench with no
 * runs and for each side that selects no run with status ok.
 * Return: 0; -EINVAL with a message naming the nearest known name (a
 * usage error); -EIO or -ENOMEM.
 */
int il_report_check(struct il_store *s, const struct il_report_opts *ro,
		    const struct il_analysis_opts *ao,
		    il_report_notice_fn notice, void *arg);

/**
 * il_report_declared() - per machine x wake source x idle state, the
 * declared cpuidle latency and residency against idle_sweep's measured
 * p50/p99/p99.99 with 95 % intervals and measured residency, with flags
 * (idle_declared.c).
 */
int il_report_declared(struct il_store *s, const struct il_analysis_opts *o,
		       struct il_table **out);
/** il_report_states() - seed 002's per idle state x wake source table. */
int il_report_states(struct il_store *s, const struct il_analysis_opts *o,
		     struct il_table **out);
/**
 * il_report_compare() - the A/B table, with the run as the unit: per
 * benchmark x metric x targets x CPU x statistic (median, p99, mean of
 * each run), the runs of every side, and for each side after the first the
 * Hodges-Lehmann shift against the first with its Moses 95 % interval,
 * the Mann-Whitney p-value, Holm-adjusted over the table, a verdict in
 * words and, with @o->equivalence_pct, TOST (compare.c, ab_stats.c).
 */
/**
 * il_report_paired() - the A/B comparison paired over the blocks of a
 * campaign planned with order: blocks: per benchmark, metric, target
 * count and statistic (median, mean), the Hodges-Lehmann shift of the
 * per-block log ratios, its signed-rank interval and Holm-adjusted p.
 */
int il_report_paired(struct il_store *s, const struct il_analysis_opts *o,
		     struct il_table **out);

int il_report_compare(struct il_store *s, const struct il_analysis_opts *o,
		      struct il_table **out);
/**
 * il_report_ipi() - IPI cost: one row per machine x benchmark x
 * configuration x target count, with runs, samples, the round median and
 * the marginal cost per target against N = 0.
 */
int il_report_ipi(struct il_store *s, const struct il_analysis_opts *o,
		  struct il_table **out);
/**
 * il_report_ipi_fit() - per machine x benchmark x configuration, the
 * Theil-Sen slope of per-run medians against N with Sen's 95 % interval.
 */
int il_report_ipi_fit(struct il_store *s, const struct il_analysis_opts *o,
		      struct il_table **out);
/**
 * il_report_ipi_modes() - seed 001's table: for benchmarks declaring
 * report.ipi_by_mode, the round median of each destination mode side by
 * side, per machine x configuration without the mode x target count.
 * *@out is NULL (and 0 returned) where no such benchmark ran.
 */
int il_report_ipi_modes(struct il_store *s, const struct il_analysis_opts *o,
			struct il_table **out);
/** il_report_pairs() - median per waker->sleeper, per machine and benchmark
 * declaring a pair metric (futex_wake). */
int il_report_pairs(struct il_store *s, const struct il_analysis_opts *o,
		    struct il_table ***out, int *nout);

/**
 * il_report_causes() - the --causes runs: @tot, time lost per cause kind
 * per run and CPU (with lost events and unavailable captures as notes),
 * and @top, each run's largest attributed samples with their causes in
 * words (causes.c).
 */
int il_report_causes(struct il_store *s, const struct il_analysis_opts *o,
		     struct il_table **tot, struct il_table **top);
/**
 * il_states_entered() - append to the states table @t the --causes runs'
 * samples grouped by the idle state really entered (states_entered.c).
 */
int il_states_entered(struct il_store *s, const struct il_analysis_opts *o,
		      struct il_table *t);
/** il_causes_tables() - 1 if @s has the causes tables (schema >= 5), else 0. */
int il_causes_tables(struct il_store *s);
/* The cause kinds in the order of the causes table's columns. */
extern const char *const il_cause_kinds[];

/** il_report_refs() - reference machines' lone published figures. */
int il_report_refs(struct il_store *s, const struct il_analysis_opts *o,
		   struct il_table **out);

/**
 * il_plots() - write gnuplot data files and scripts into @dir and run
 * gnuplot on them: histogram and CDF per run group, IPI cost against
 * targets per mode, the pair heatmaps, idle_sweep's latency against idle
 * time and CDF per idle state; PNG and SVG each.
 * @names: set to a malloc()ed NULL-terminated list of the image basenames
 *         (without extension) made, for the HTML page.
 * Return: 0; -ENOENT with "plots unavailable: gnuplot not installed" when
 * gnuplot is missing; -EIO when gnuplot fails; -EEXIST, before that
 * file is written, when one would be an input database (outfile.h).
 */
int il_plots(struct il_store *s, const struct il_analysis_opts *o,
	     const char *dir, char ***names);

/**
 * il_report_html() - one page with every table and the plots inline as
 * SVG (html_page.h): @output itself when it ends in ".html", else
 * @output/index.html, the plots' data, scripts and images kept beside it.
 * A missing gnuplot leaves the page with its tables and that message
 * (-ENOENT).  A file that would be an input database is -EEXIST; the
 * page is then not written.  The page is renamed into place only when
 * complete.
 */
int il_report_html(struct il_store *s, const struct il_analysis_opts *o,
		   const char *output);

/**
 * il_export() - runs, summaries or histogram buckets as csv or json.
 * @what: "runs", "summaries" or "buckets".
 */
int il_export(struct il_store *s, const char *what, enum il_format f, FILE *out);

#endif
