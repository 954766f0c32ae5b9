/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli_runjson.h - the JSON Lines of `idlelab bench --json` and `idlelab
 * run --json`: one object per run, whatever became of it, and for `run`
 * one last object with the campaign's tally.  Their fields are documented
 * once, in idlelab-run(1) ("JSON output"), and idlelab-bench(1) points
 * there; both commands fill the same struct, so the two cannot drift.
 *
 * Each function writes one compact object and a newline to @f and flushes
 * it, so a script reading a pipe sees each run as it ends.  Return: 0, or
 * -ENOMEM / -EIO (nothing is printed on error; the caller says why).
 */
#ifndef IDLELAB_CLI_RUNJSON_H
#define IDLELAB_CLI_RUNJSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct il_store;

/* One run, as `bench` or one plan entry of `run` ended. */
struct cli_run_line {
	const char *uuid;		/* "" or NULL: the run got none */
	const char *bench;
	const char *status;		/* ok, failed, unsupported, skipped,
					 * interrupted */
	const char *reason;		/* "" or NULL: none */
	const char *cpus;		/* the placement spec asked for */
	const char *params_json;	/* canonical text, NULL: none */
	bool stored;			/* false: the database refused it */
	const char *kept;		/* where it was kept instead, or "" */
	/* `run` only; NULL and -1 for `bench`. */
	const char *campaign, *group;
	int64_t index;
	int repetition, repetitions;	/* 0: not a campaign run */
	/* `bench` only: report --run UUID --format json, or NULL. */
	json_t *report;			/* the reference is stolen */
};

int cli_json_run_line(FILE *f, const struct cli_run_line *l);

/* The campaign's tally, `run`'s last line. */
struct cli_campaign_line {
	const char *campaign, *file;
	int ok, failed, unsupported, skipped, interrupted, done, unstored;
	const char *store_error;	/* the first refusal, or "" */
	uint64_t duration_ms;		/* of the runs of this invocation */
	bool stopped;			/* by a signal */
	const char *resume;		/* the command that finishes it, or NULL */
};

int cli_json_campaign_line(FILE *f, const struct cli_campaign_line *l);

/**
 * cli_json_report_run() - the object `idlelab report --run @uuid --format
 * json` prints, read back into jansson for bench's "report" field.
 * Return: a new reference, or NULL with the message set (il_errmsg()).
 */
json_t *cli_json_report_run(struct il_store *store, const char *uuid);

#endif
