/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_run_internal.h - what cmd_run_campaign.c (the phases of `idlelab
 * run`) shares with cmd_run_entry.c (each entry as a run request, validated
 * and run), cmd_run_show.c (what it prints: the dry-run plan, the
 * environment, the TTY progress line) and cmd_run_plan.c (the stored plan).
 */
#ifndef IDLELAB_CMD_RUN_INTERNAL_H
#define IDLELAB_CMD_RUN_INTERNAL_H

#include "run_status.h"
#include "campaign.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct stored {
	const char *status;	/* of the row with the entry's hash; NULL: none */
	bool other_hash;	/* a row at this index with another hash */
};

/* What `run --env-missing` does with a control that does not exist here. */
enum env_missing {
	ENV_MISSING_UNSUPPORTED,	/* every run stored unsupported, why */
	ENV_MISSING_ABORT,		/* refuse the campaign, exit 3 */
	ENV_MISSING_RUN,		/* measure anyway, why kept per run */
	ENV_MISSING_N
};

/* What goes to stdout besides errors: --json, --quiet, or neither. */
enum run_output {
	RUN_OUT_TEXT,		/* one line per run, the tally */
	RUN_OUT_QUIET,		/* the tally only */
	RUN_OUT_JSON,		/* one JSON line per run, the tally as one */
};

struct plan_state {
	struct il_campaign *c;
	enum run_output output;
	enum env_missing env_missing;
	const char *name;	/* campaign key in the database */
	struct stored *st;
	bool *sel;
	uint64_t *est;
	int nstored;
};

static inline bool run_final_status(const char *s)
{
	enum il_run_status st;

	return s && !il_run_status_parse(s, &st) && il_run_status_final(st);
}

/* The TTY progress line, on stderr only when it is a terminal. */
struct progress {
	bool tty;
	bool shown;
	int i, n;
	uint64_t est_done, real_done, est_left;
};

void run_print_env(const struct il_campaign *c, FILE *f);
/* run_dry_run() - the plan as --dry-run prints it.  Return: 0, or -ENOMEM. */
int run_dry_run(const struct plan_state *ps, bool resume);
int run_dry_warnings(const struct plan_state *ps, bool resume);
void run_progress_clear(struct progress *p);
void run_progress_show(struct progress *p, const struct il_plan_entry *e);

/*
 * run_show_outcome() - the line of entry @e's run on stdout, as
 * @ps->output says: "[i/n] #index run UUID8 ..." or its JSON object
 * (cli_runjson.h), which a run the database refused (!@stored) gets too.
 * Return: 0, or -errno with the message set when stdout cannot be written.
 */
struct il_run_outcome;
int run_show_outcome(const struct plan_state *ps, const struct progress *p,
		     const struct il_plan_entry *e,
		     const struct il_run_outcome *o, bool stored);

/*
 * cmd_run_entry.c: run_prevalidate() checks with il_run_prepare() every
 * entry @ps selects, before any run (one per run of repetitions of one
 * configuration), the first error an exit code 2.  run_entry() runs entry
 * @e and commits it into @store with its outcome in @out, or stores it as
 * skipped (kmod absent, cannot prepare) or unsupported (environment not
 * applied here, under --env-missing unsupported).  Return: 0 or an exit
 * code (run_prevalidate()); 0 or -errno with the message set (run_entry()).
 */
struct il_envctl;
struct il_run_outcome;
struct il_store;
struct il_topo;
int run_prevalidate(struct il_topo *topo, const struct plan_state *ps);
int run_entry(struct il_store *store, struct il_topo *topo,
	      const char *machine, struct il_envctl *ctl,
	      const struct plan_state *ps, const struct il_plan_entry *e,
	      struct il_run_outcome *out);

/*
 * cmd_run_plan.c: a campaign held to the plan it stored when it started
 * (campaign_stored.h).  run_plan_check() reads the stored plan of @name on
 * @host: none sets *@stored false; a changed file, or a --scale other
 * than the stored one, is refused (exit 2) under --resume; an unchanged
 * file whose expansion differs today has its stored plan replayed into
 * @c (*@replayed true).  run_plan_store() stores @c's plan.  Return: 0 or
 * an exit code.
 */
int run_plan_check(struct il_store *s, const char *host, const char *name,
		   struct il_campaign *c, bool resume, bool scale_given,
		   bool *stored, bool *replayed);
int run_plan_store(struct il_store *s, const char *host, const char *name,
		   const struct il_campaign *c);
/*
 * run_plan_stored_scale() - the --scale campaign @name on @host was
 * planned with, so that --resume without --scale continues at it.
 * Return: 1 with *@scale set, 0 if nothing is stored, or an exit code < 0
 * negated (-IL_EXIT_FAIL) with the message printed.
 */
int run_plan_stored_scale(struct il_store *s, const char *host,
			  const char *name, double *scale);

/* What the command line asked for. */
struct run_opts {
	const char *db, *only, *name, *file, *scale_s, *env_missing_s;
	double scale;		/* --scale, 1 unless given */
	enum env_missing env_missing;
	bool resume, dry, json, quiet;
};

/* cmd_run_args.c: the command line into @o (CLI_CONTINUE, else the exit
 * code), and back as the resume hint for campaign file @file. */
int run_parse(int argc, char **argv, struct run_opts *o);
void run_resume_hint(const char *file, const struct run_opts *o, char *buf,
		     size_t size);

#endif
