// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_run_campaign.c - `idlelab run FILE`: a campaign file into the database,
 * resumable after anything, with the environment restored after anything.
 *
 * The order matters:
 *   1. the file is loaded and every entry validated (campaign.c, then
 *      il_run_prepare() on each, which also checks counter event names),
 *      so a bad file is refused, exit 2, before anything is touched;
 *   2. a restore journal left by a killed campaign is replayed;
 *   3. the database is opened and the runs of this campaign already in it
 *      are read: without --resume their presence is an error (exit 2, so
 *      two campaigns never interleave by accident), with --resume the
 *      entries stored with a final status (ok, failed, unsupported) are
 *      skipped and the others (interrupted, skipped) are forgotten and
 *      run again;
 *   4. the environment controls are applied (envctl.c journals first);
 *   5. each entry runs and commits in its own transaction;
 *   6. the controls are restored - at the end, after a signal (the handler
 *      only sets the stop flag; the restore happens here, in the loop's
 *      normal exit path, never in the handler) and after any error.
 *
 * A kill -9 anywhere leaves every committed run intact (one transaction
 * each, WAL) and at most one entry missing, which --resume runs.
 *
 * cmd_run() is those steps as phases over one struct run_ctx: run_parse()
 * (the command line), run_prepare() (step 1), run_dry() or run_open()
 * (steps 2-4), run_loop() (step 5), run_summary() (step 6) and run_free().
 * Each entry as a run request, validated and then run, is in
 * cmd_run_entry.c; what it prints besides one line per run is in
 * cmd_run_show.c.
 */
#include "cli.h"
#include "cli_opts.h"
#include "cli_runjson.h"
#include "campaign.h"
#include "cmd_run_internal.h"
#include "env.h"
#include "envctl.h"
#include "err.h"
#include "run_execute.h"
#include "store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int collect_cb(int64_t idx, const char *hash, const char *status,
		      uint64_t dur, void *arg)
{
	struct plan_state *ps = arg;
	enum il_run_status st;
	struct stored *s;

	(void)dur;
	ps->nstored++;
	if (idx < 0 || idx >= ps->c->nplan)
		return 0;
	s = &ps->st[idx];
	if (strcmp(hash, ps->c->plan[idx].hash)) {
		s->other_hash = true;
		return 0;
	}
	/* Should two rows ever exist, a final one wins.  The name table's
	 * string outlives the row; an unknown status runs again. */
	if (!s->status || !run_final_status(s->status))
		s->status = il_run_status_name(il_run_status_parse(status, &st) ?
					       IL_RUN_INTERRUPTED : st);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Called by `run` (and meant for `bench`) before anything else. */
int cli_envctl_recover(const char *cmd)
{
	char path[4096];
	long pid;
	int n, ret;

	ret = il_envctl_recover(&n, &pid);
	if (ret == 1)
		fprintf(stderr, "idlelab: %s: notice: restored %d setting%s from %s, left by idlelab pid %ld (killed during a campaign)\n",
			cmd, n, n == 1 ? "" : "s",
			il_envctl_journal_path(path, sizeof(path)), pid);
	else if (ret == -EBUSY)
		fprintf(stderr, "idlelab: %s: notice: %s\n", cmd, il_errmsg());
	else if (ret < 0)
		return cli_error(IL_EXIT_FAIL, "%s: %s", cmd, il_errmsg());
	return 0;
}

struct tally {
	int ok, failed, unsupported, skipped, interrupted, done, changed;
	int unstored;		/* measured, refused by the database */
	char store_error[512];	/* the first refusal, for the summary */
};

/* Everything one `idlelab run` holds, released by run_free(). */
struct run_ctx {
	struct run_opts o;
	struct plan_state ps;
	struct il_campaign *c;
	struct il_store *store;
	struct il_topo *topo;
	struct il_envctl *ctl;
	struct progress prog;
	struct tally t;
	bool stopped;
	int nsel;
	char machine[37], host_buf[37];
	const char *host;
};

/*
 * The entries --only selects, each validated; again after a stored plan
 * replaced the expansion (cmd_run_plan.c).  Return: 0 or an exit code.
 */
static int plan_select(struct run_ctx *r)
{
	struct plan_state *ps = &r->ps;
	struct il_campaign *c = r->c;
	int i;

	free(ps->st);
	free(ps->sel);
	free(ps->est);
	ps->st = calloc(c->nplan, sizeof(*ps->st));
	ps->sel = calloc(c->nplan, sizeof(*ps->sel));
	ps->est = calloc(c->nplan, sizeof(*ps->est));
	if (!ps->st || !ps->sel || !ps->est)
		return cli_error(IL_EXIT_FAIL, "out of memory");
	r->nsel = 0;
	for (i = 0; i < c->nplan; i++) {
		ps->sel[i] = !r->o.only || il_plan_matches(&c->plan[i], r->o.only);
		r->nsel += ps->sel[i];
	}
	if (!r->nsel)
		return cli_usage_error("run: --only '%s' matches no benchmark or group of %s",
				       r->o.only, c->file);
	return run_prevalidate(r->topo, ps);
}

/*
 * Step 1 of the order above: load the campaign, select the entries and
 * validate every selected one, touching nothing.  Return: 0 or an exit code.
 */
static int run_prepare(struct run_ctx *r)
{
	struct plan_state *ps = &r->ps;
	struct il_campaign *c;
	int ret;

	ret = il_topo_open(&r->topo);
	if (ret)
		return cli_error(IL_EXIT_FAIL, "run: %s", il_errmsg());
	ret = il_campaign_load_scaled(r->o.file, r->topo, r->o.scale, &r->c);
	if (ret)
		return cli_usage_error("run: %s", il_errmsg());
	c = r->c;
	ps->c = c;
	ps->env_missing = r->o.env_missing;
	ps->output = r->o.json ? RUN_OUT_JSON :
		     r->o.quiet ? RUN_OUT_QUIET : RUN_OUT_TEXT;
	ps->name = r->o.name ? r->o.name : c->name;
	/* The file's name rule, so either can name what the other made. */
	if (r->o.name && !il_campaign_name_valid(r->o.name))
		return cli_usage_error("run: --name '%s': use " IL_CAMPAIGN_NAME_RULE,
				       r->o.name);
	ret = plan_select(r);
	if (ret)
		return ret;
	/* Resume keys are per host: another machine's runs of this campaign
	 * in a merged database are not ours to skip. */
	if (!il_host_uuid(r->host_buf))
		r->host = r->host_buf;
	return 0;
}

/*
 * --resume without --scale continues at the scale the campaign was
 * planned with: loading the file unscaled would otherwise look like a
 * changed plan.  Return: 0 or an exit code.
 */
static int run_rescale_to_stored(struct run_ctx *r)
{
	double scale;
	int ret;

	if (!r->o.resume || r->o.scale_s)
		return 0;
	ret = run_plan_stored_scale(r->store, r->host, r->ps.name, &scale);
	if (ret < 0)
		return -ret;
	if (!ret || scale == r->o.scale)
		return 0;
	if (!il_scale_valid(scale))
		return cli_error(IL_EXIT_FAIL, "run: campaign '%s' was stored with --scale %g, which this idlelab does not accept",
				 r->ps.name, scale);
	il_campaign_free(r->c);
	r->c = NULL;
	ret = il_campaign_load_scaled(r->o.file, r->topo, scale, &r->c);
	if (ret)
		return cli_usage_error("run: %s", il_errmsg());
	r->o.scale = scale;
	r->ps.c = r->c;
	r->ps.name = r->o.name ? r->o.name : r->c->name;
	fprintf(stderr, "idlelab: run: notice: campaign '%s' resumes at the --scale %g it was started with\n",
		r->ps.name, scale);
	return plan_select(r);
}

/* The entry's estimate: the dataset's history, else the benchmark's op. */
static uint64_t estimate(const struct run_ctx *r, int i)
{
	const struct il_plan_entry *e = &r->c->plan[i];
	uint64_t ns;

	if (!r->store || il_store_mean_duration(r->store, e->ops->name, e->hash,
						&ns) != 1)
		ns = il_plan_estimate_placed_ns(e, r->topo);
	return ns;
}

/* --dry-run: print the plan, with history where a database has some. */
static int run_dry(struct run_ctx *r)
{
	struct stat sb;
	int i;

	/* History only: never create or migrate a file for a dry run. */
	if (!stat(r->o.db, &sb) &&
	    il_store_open(r->o.db, IL_STORE_READONLY, &r->store) == 0)
		il_store_campaign_runs(r->store, r->ps.name, r->host, collect_cb,
				       &r->ps);
	il_errclear();
	for (i = 0; i < r->c->nplan; i++)
		r->ps.est[i] = estimate(r, i);
	if (il_envctl_journal_pending())
		fprintf(stderr, "idlelab: run: notice: a restore journal is pending; a real run restores it first (or run 'idlelab restore')\n");
	if (run_dry_run(&r->ps, r->o.resume) ||
	    run_dry_warnings(&r->ps, r->o.resume))
		return cli_error(IL_EXIT_FAIL, "run: %s", il_errmsg());
	return IL_EXIT_OK;
}

/*
 * Steps 2-4: replay a pending journal, open the database and read what it
 * holds of this campaign, register the machine, apply the environment.
 * Return: 0 or an exit code.
 */
static int run_open(struct run_ctx *r)
{
	struct plan_state *ps = &r->ps;
	struct il_campaign *c = r->c;
	bool stored, replayed;
	int ret, i, nexisting = 0;

	ret = cli_envctl_recover("run");
	if (ret)
		return ret;
	ret = il_store_open(r->o.db, IL_STORE_CREATE, &r->store);
	if (ret)
		return cli_usage_error("run: %s", il_errmsg());
	ret = run_rescale_to_stored(r);
	if (ret)
		return ret;
	c = r->c;	/* a rescale loaded it again */
	ret = run_plan_check(r->store, r->host, ps->name, c, r->o.resume,
			     r->o.scale_s != NULL, &stored, &replayed);
	if (!ret && replayed)
		ret = plan_select(r);
	if (ret)
		return ret;
	ret = il_store_campaign_runs(r->store, ps->name, r->host, collect_cb, ps);
	if (ret)
		return cli_error(IL_EXIT_FAIL, "run: %s", il_errmsg());
	for (i = 0; i < c->nplan; i++)
		if (ps->sel[i] && (ps->st[i].status || ps->st[i].other_hash))
			nexisting++;
	if (nexisting && !r->o.resume)
		return cli_usage_error("run: %s already holds %d of the selected runs of campaign '%s'; use --resume to run only the missing ones, or --name NAME (or another --db) for a new campaign",
				       r->o.db, nexisting, ps->name);
	for (i = 0; i < c->nplan; i++) {
		if (!ps->sel[i])
			continue;
		ps->est[i] = estimate(r, i);
		if (run_final_status(ps->st[i].status))
			r->t.done++;
		else
			r->prog.est_left += ps->est[i];
	}
	il_errclear();
	ret = il_machine_register(r->store, r->topo, r->machine);
	if (ret)
		return cli_error(IL_EXIT_FAIL, "run: cannot record the machine: %s",
				 il_errmsg());
	/* A campaign begun before stored plans (schema 6) keeps none: the
	 * file as it is now is not proof of the plan its runs came from. */
	if (!stored && !nexisting && r->host) {
		ret = run_plan_store(r->store, r->machine, ps->name, c);
		if (ret)
			return ret;
	}
	cli_install_signals();
	if (!il_envctl_spec_empty(&c->env)) {
		ret = r->o.env_missing == ENV_MISSING_ABORT ?
		      il_envctl_apply(&c->env, &r->ctl) :
		      il_envctl_apply_available(&c->env, &r->ctl);
		if (ret)
			return cli_error(ret == -ENOENT || ret == -EOPNOTSUPP ?
					 IL_EXIT_UNSUPPORTED : IL_EXIT_FAIL,
					 "run: %s:%d: environment: %s", c->file,
					 c->env_line, il_errmsg());
		if (il_envctl_unavailable(r->ctl))
			fprintf(stderr, "idlelab: run: %s:%d: environment: not applied here: %s; %s\n",
				c->file, c->env_line,
				il_envctl_unavailable(r->ctl),
				r->o.env_missing == ENV_MISSING_RUN ?
				"measuring anyway (--env-missing run), the reason stored with every run" :
				"every run is stored as unsupported with this reason (--env-missing run measures anyway, abort refuses)");
	}
	return 0;
}

/* Count one outcome; return its status, an unknown name as failed. */
static enum il_run_status count_outcome(struct tally *t, const char *status)
{
	enum il_run_status st;

	if (il_run_status_parse(status, &st))
		st = IL_RUN_FAILED;
	switch (st) {
	case IL_RUN_OK:
		t->ok++;
		break;
	case IL_RUN_UNSUPPORTED:
		t->unsupported++;
		break;
	case IL_RUN_SKIPPED:
		t->skipped++;
		break;
	case IL_RUN_INTERRUPTED:
		t->interrupted++;
		break;
	default:
		t->failed++;
		break;
	}
	return st;
}

/*
 * The database refused a run: say why, where the measurement was kept
 * (store_pending.h) and how to load it, then stop, because the next run
 * would meet the same refusal.  Return: the exit code.
 */
static int run_not_stored(struct run_ctx *r, const struct il_plan_entry *e,
			  const struct il_run_outcome *o)
{
	struct tally *t = &r->t;

	t->unstored++;
	snprintf(t->store_error, sizeof(t->store_error), "%s", il_errmsg());
	if (!o->kept[0])
		return cli_error(IL_EXIT_FAIL, "run: #%" PRId64 " %s: the run (%s) is lost: cannot store it: %s",
				 e->index, e->ops->name, o->status, il_errmsg());
	return cli_error(IL_EXIT_FAIL, "run: #%" PRId64 " %s: cannot store the run: %s; the measurement (%s, run %s) is kept in %s: once %s can be written, load it with: idlelab import pending --db %s",
			 e->index, e->ops->name, il_errmsg(), o->status, o->uuid,
			 o->kept, r->o.db, r->o.db);
}

/* Step 5: each entry not yet done runs and commits.  Return: 0 or an
 * exit code; r->stopped tells a signal from the end of the plan. */
static int run_loop(struct run_ctx *r)
{
	struct plan_state *ps = &r->ps;
	struct progress *prog = &r->prog;
	struct il_campaign *c = r->c;
	int i, ret, code = IL_EXIT_OK;
	uint64_t t0;

	/* --quiet means no line per run, the progress line included. */
	prog->tty = isatty(STDERR_FILENO) && ps->output != RUN_OUT_QUIET;
	prog->n = r->nsel - r->t.done;
	for (i = 0; i < c->nplan; i++) {
		const struct il_plan_entry *e = &c->plan[i];
		struct il_run_outcome o;

		if (!ps->sel[i] || run_final_status(ps->st[i].status))
			continue;
		if (il_stop_requested()) {
			r->stopped = true;
			break;
		}
		if (ps->st[i].status) {
			/* interrupted or skipped: forget it, run it again. */
			ret = il_store_campaign_forget(r->store, ps->name, r->machine,
						       e->index, e->hash);
			if (ret < 0) {
				code = cli_error(IL_EXIT_FAIL, "run: %s", il_errmsg());
				break;
			}
		}
		if (ps->st[i].other_hash)
			r->t.changed++;
		prog->i++;
		run_progress_show(prog, e);
		t0 = mono_ns();
		memset(&o, 0, sizeof(o));
		ret = run_entry(r->store, r->topo, r->machine, r->ctl, ps, e, &o);
		prog->real_done += mono_ns() - t0;
		prog->est_done += ps->est[i];
		prog->est_left -= ps->est[i] < prog->est_left ? ps->est[i] : prog->est_left;
		run_progress_clear(prog);
		if (run_show_outcome(ps, prog, e, &o, !ret)) {
			code = cli_error(IL_EXIT_FAIL, "run: %s", il_errmsg());
			break;
		}
		if (ret) {
			code = run_not_stored(r, e, &o);
			break;
		}
		if (count_outcome(&r->t, o.status) == IL_RUN_INTERRUPTED ||
		    il_stop_requested()) {
			r->stopped = true;
			break;
		}
	}
	run_progress_clear(prog);
	return code;
}

/* The tally as run --json's last line (cli_runjson.h). */
static int print_tally_json(const struct run_ctx *r, const char *hint)
{
	struct cli_campaign_line l = {
		.campaign = r->ps.name,
		.file = r->c->file,
		.ok = r->t.ok,
		.failed = r->t.failed,
		.unsupported = r->t.unsupported,
		.skipped = r->t.skipped,
		.interrupted = r->t.interrupted,
		.done = r->t.done,
		.unstored = r->t.unstored,
		.store_error = r->t.store_error,
		.duration_ms = r->prog.real_done / 1000000,
		.stopped = r->stopped,
		.resume = hint,
	};

	return cli_json_campaign_line(stdout, &l);
}

/* Step 6 and the last word: restore, print the tally, pick the exit code. */
static int run_summary(struct run_ctx *r, int code)
{
	char d[32], hint[8192];
	int ret;

	/* Restore on every path out of the loop: end, signal, error. */
	ret = il_envctl_restore(r->ctl);
	r->ctl = NULL;
	if (ret) {
		char p[4096];

		cli_error(IL_EXIT_FAIL, "run: the environment was NOT fully restored: %s; the journal %s is kept, run 'idlelab restore'",
			  il_errmsg(), il_envctl_journal_path(p, sizeof(p)));
		code = IL_EXIT_FAIL;
	}
	if (r->stopped)
		run_resume_hint(r->c->file, &r->o, hint, sizeof(hint));
	cli_fmt_duration(r->prog.real_done, d, sizeof(d));
	if (r->ps.output == RUN_OUT_JSON) {
		if (print_tally_json(r, r->stopped ? hint : NULL))
			code = cli_error(IL_EXIT_FAIL, "run: %s", il_errmsg());
	} else {
		printf("campaign %s: %d ok, %d failed, %d unsupported, %d skipped, %d interrupted; %d already done; %s\n",
		       r->ps.name, r->t.ok, r->t.failed, r->t.unsupported,
		       r->t.skipped, r->t.interrupted, r->t.done, d);
		if (r->t.unstored)
			printf("campaign %s: %d run%s measured but NOT stored: %s\n",
			       r->ps.name, r->t.unstored,
			       r->t.unstored == 1 ? "" : "s", r->t.store_error);
	}
	if (r->t.changed)
		fprintf(stderr, "idlelab: run: warning: %d entr%s differ from the runs stored at the same plan index (was the campaign file edited?)\n",
			r->t.changed, r->t.changed == 1 ? "y" : "ies");
	if (r->stopped) {
		if (!code)
			code = cli_error(IL_EXIT_INTERRUPTED,
					 "run: stopped by a signal; the environment is restored; finish with: %s",
					 hint);
	} else if (!code && r->t.failed) {
		code = cli_error(IL_EXIT_FAIL, "run: %d run%s failed", r->t.failed,
				 r->t.failed == 1 ? "" : "s");
	}
	return code;
}

/* Whatever is still held; the environment first, should it be applied. */
static int run_free(struct run_ctx *r, int code)
{
	if (r->ctl && il_envctl_restore(r->ctl))
		code = cli_error(IL_EXIT_FAIL, "run: the environment was NOT fully restored: %s",
				 il_errmsg());
	il_store_close(r->store);
	free(r->ps.st);
	free(r->ps.sel);
	free(r->ps.est);
	il_campaign_free(r->c);
	il_topo_close(r->topo);
	return code;
}

int cmd_run(int argc, char **argv)
{
	struct run_ctx r = { 0 };
	int code;

	code = run_parse(argc, argv, &r.o);
	if (code != CLI_CONTINUE)
		return code;
	code = run_prepare(&r);
	if (!code && r.o.dry)
		code = run_dry(&r);
	else if (!code)
		code = run_open(&r);
	if (!code && !r.o.dry)
		code = run_summary(&r, run_loop(&r));
	return run_free(&r, code);
}
