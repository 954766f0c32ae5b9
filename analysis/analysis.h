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

#include <stdio.h>

struct il_store;

enum il_format {
	IL_FMT_MD,
	IL_FMT_CSV,
	IL_FMT_JSON,
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

#endif
