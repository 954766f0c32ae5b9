// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_run.c - `idlelab run FILE`: a campaign file into the database,
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
 */
#include "cli.h"
#include "campaign.h"
#include "env.h"
#include "envctl.h"
#include "err.h"
#include "run_status.h"
#include "runner.h"
#include "store.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: idlelab run FILE [--db FILE] [--resume] [--dry-run]\n"
		"                        [--only GLOB] [--name NAME]\n\n"
		"Run the campaign FILE (see idlelab-run(1) for the format): every\n"
		"benchmark x parameter matrix x placement x repetition, one\n"
		"transaction per run, with the environment controls restored at\n"
		"the end, on SIGINT/SIGTERM/SIGHUP and on any error.\n\n"
		"  -d, --db FILE     database (default $IDLELAB_DB or ./idlelab.db)\n"
		"  -r, --resume      run only the entries not yet stored with a final\n"
		"                    status (ok, failed, unsupported)\n"
		"  -n, --dry-run     print the expanded plan and its estimated\n"
		"                    duration; run and change nothing\n"
		"  -o, --only GLOB   only the entries whose benchmark or group name\n"
		"                    matches GLOB (fnmatch); plan indices are kept\n"
		"      --name NAME   store under campaign NAME instead of the file's\n"
		"  -h, --help        this text\n");
}

struct stored {
	const char *status;	/* of the row with the entry's hash; NULL: none */
	bool other_hash;	/* a row at this index with another hash */
};

struct plan_state {
	struct il_campaign *c;
	const char *name;	/* campaign key in the database */
	struct stored *st;
	bool *sel;
	uint64_t *est;
	int nstored;
};

static bool final_status(const char *s)
{
	enum il_run_status st;

	return s && !il_run_status_parse(s, &st) && il_run_status_final(st);
}

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
	if (!s->status || !final_status(s->status))
		s->status = il_run_status_name(il_run_status_parse(status, &st) ?
					       IL_RUN_INTERRUPTED : st);
	return 0;
}

static void fmt_duration(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = (ns + 500000000ULL) / 1000000000ULL;

	if (s >= 3600)
		snprintf(buf, len, "%" PRIu64 ":%02" PRIu64 ":%02" PRIu64,
			 s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%02" PRIu64 ":%02" PRIu64, s / 60, s % 60);
}

static void print_env(const struct il_campaign *c, FILE *f)
{
	const struct il_envctl_spec *e = &c->env;
	int i;

	if (il_envctl_spec_empty(e)) {
		fprintf(f, "environment: unchanged\n");
		return;
	}
	fprintf(f, "environment:");
	if (e->pm_qos)
		fprintf(f, " pm_qos_us=%d", e->pm_qos_us);
	for (i = 0; i < e->ncpuidle_only; i++)
		fprintf(f, "%s%s", i ? "," : " cpuidle_only=", e->cpuidle_only[i]);
	if (e->governor)
		fprintf(f, " governor=%s", e->governor);
	if (e->pin == IL_PIN_MAX)
		fprintf(f, " pin_freq_khz=max");
	else if (e->pin == IL_PIN_MIN)
		fprintf(f, " pin_freq_khz=min");
	else if (e->pin == IL_PIN_KHZ)
		fprintf(f, " pin_freq_khz=%" PRIu64, e->pin_khz);
	if (e->sched_fifo)
		fprintf(f, " sched_fifo=%d", e->sched_fifo);
	if (e->mlockall)
		fprintf(f, " mlockall=1");
	fprintf(f, "\n");
}

static void dry_run(const struct plan_state *ps, bool resume)
{
	const struct il_campaign *c = ps->c;
	uint64_t total = 0;
	char d[32];
	int i, n = 0, done = 0;

	printf("campaign %s (%s): %d planned runs in %d groups\n", ps->name,
	       c->file, c->nplan, c->ngroups);
	if (c->description[0])
		printf("description: %s\n", c->description);
	print_env(c, stdout);
	printf("%6s  %-18s %-16s %-14s %7s  %-16s %9s  %s\n", "index", "group",
	       "bench", "cpus", "rep", "param_hash", "estimate", "params");
	for (i = 0; i < c->nplan; i++) {
		const struct il_plan_entry *e = &c->plan[i];
		bool is_done = resume && final_status(ps->st[i].status);
		char rep[24];

		if (!ps->sel[i])
			continue;
		n++;
		snprintf(rep, sizeof(rep), "%d/%d", e->repetition, e->repetitions);
		if (is_done) {
			done++;
			snprintf(d, sizeof(d), "done");
		} else {
			total += ps->est[i];
			snprintf(d, sizeof(d), "%.1f s", ps->est[i] / 1e9);
		}
		printf("%6" PRId64 "  %-18s %-16s %-14s %7s  %-16s %9s  %s\n",
		       e->index, e->group, e->ops->name, e->cpus, rep, e->hash, d,
		       e->params_str[0] ? e->params_str : "-");
	}
	fmt_duration(total, d, sizeof(d));
	printf("estimated duration: %s for %d runs", d, n - done);
	if (done)
		printf(" (%d already done)", done);
	printf("\n");
}

/* The TTY progress line, on stderr only when it is a terminal. */
struct progress {
	bool tty;
	bool shown;
	int i, n;
	uint64_t est_done, real_done, est_left;
};

static void progress_clear(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->shown = false;
	}
}

static void progress_show(struct progress *p, const struct il_plan_entry *e)
{
	double scale = 1.0;
	char eta[32];

	if (!p->tty)
		return;
	/* Correct the rules of thumb by how wrong they have been so far. */
	if (p->est_done > 0 && p->real_done > 0) {
		scale = (double)p->real_done / (double)p->est_done;
		if (scale < 0.25)
			scale = 0.25;
		if (scale > 4)
			scale = 4;
	}
	fmt_duration((uint64_t)(p->est_left * scale), eta, sizeof(eta));
	fprintf(stderr, "\r\033[K[%d/%d] %s", p->i, p->n, e->ops->name);
	if (strcmp(e->group, e->ops->name))
		fprintf(stderr, " (%s)", e->group);
	fprintf(stderr, " cpus=%s rep %d/%d  ETA %s", e->cpus, e->repetition,
		e->repetitions, eta);
	fflush(stderr);
	p->shown = true;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void request_init(struct il_run_request *req, const struct plan_state *ps,
			 const struct il_plan_entry *e)
{
	memset(req, 0, sizeof(*req));
	req->ops = e->ops;
	req->cpus = e->cpus;
	req->nparams = e->nparams;
	req->params = (const char *const *)e->params;
	req->events = e->events;
	req->keep_raw = e->raw;
	req->campaign = ps->name;
	req->plan_index = e->index;
	req->param_hash = e->hash;
	req->cmdline = cli_cmdline();
}

/* Everything il_run_prepare() checks, for every entry, before any run. */
static int prevalidate(struct il_topo *topo, const struct plan_state *ps)
{
	const struct il_campaign *c = ps->c;
	struct il_run_request req;
	struct il_counters *counters;
	struct il_run run;
	int i, ret;

	for (i = 0; i < c->nplan; i++) {
		const struct il_plan_entry *e = &c->plan[i];

		if (!ps->sel[i])
			continue;
		/* Repetitions of one configuration validate alike. */
		if (i && c->plan[i - 1].repetition + 1 == e->repetition &&
		    !strcmp(c->plan[i - 1].hash, e->hash))
			continue;
		request_init(&req, ps, e);
		ret = il_run_prepare(topo, &req, &run, &counters);
		il_counters_close(counters);
		il_run_release(&run);
		if (ret)
			return cli_usage_error("run: %s:%d: group '%s' (%s, cpus %s): %s",
					       c->file, e->line, e->group,
					       e->ops->name, e->cpus, il_errmsg());
	}
	return 0;
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
};

static int run_one(struct il_store *store, struct il_topo *topo,
		   const char *machine, struct il_envctl *ctl,
		   const struct plan_state *ps, const struct il_plan_entry *e,
		   struct il_run_outcome *out)
{
	struct il_run_request req;
	struct il_counters *counters = NULL;
	struct il_run run;
	const char *why;
	int ret;

	request_init(&req, ps, e);
	/* A kmod benchmark whose device is absent is recorded, not run, so
	 * the campaign shows why it is missing and the rest goes on. */
	why = (e->ops->flags & IL_BF_KMOD) && e->ops->supported ?
	      e->ops->supported() : NULL;
	if (why)
		return il_store_skipped(store, machine, &req, why, out);
	ret = il_run_prepare(topo, &req, &run, &counters);
	if (ret) {
		/* Validated before the first run, so the machine changed
		 * since (a CPU went offline): record why, go on; --resume
		 * tries a skipped entry again. */
		char msg[256];

		snprintf(msg, sizeof(msg), "cannot prepare: %s", il_errmsg());
		il_counters_close(counters);
		il_run_release(&run);
		return il_store_skipped(store, machine, &req, msg, out);
	}
	il_envctl_run_attrs(ctl, &run);
	ret = il_run_execute(store, machine, &req, &run, counters, out);
	il_counters_close(counters);
	il_run_release(&run);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "resume", no_argument, NULL, 'r' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "only", required_argument, NULL, 'o' },
		{ "name", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = cli_default_db(), *only = NULL, *name = NULL;
	struct plan_state ps = { 0 };
	struct il_campaign *c = NULL;
	struct il_store *store = NULL;
	struct il_topo *topo = NULL;
	struct il_envctl *ctl = NULL;
	struct progress prog = { 0 };
	struct tally t = { 0 };
	bool resume = false, dry = false, stopped = false;
	char machine[37], d[32], host_buf[37];
	const char *host = NULL;
	int opt, ret, code = IL_EXIT_OK, i, nsel = 0, nexisting = 0;
	uint64_t t0;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "d:rno:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 'r':
			resume = true;
			break;
		case 'n':
			dry = true;
			break;
		case 'o':
			only = optarg;
			break;
		case 'N':
			name = optarg;
			break;
		case 'h':
			run_usage(stdout);
			return IL_EXIT_OK;
		default:
			return cli_bad_option("run", argc, argv);
		}
	}
	if (optind != argc - 1) {
		run_usage(stderr);
		return cli_usage_error("run: expected exactly one campaign file");
	}

	ret = il_topo_open(&topo);
	if (ret)
		return cli_error(IL_EXIT_FAIL, "run: %s", il_errmsg());
	ret = il_campaign_load(argv[optind], topo, &c);
	if (ret) {
		code = cli_usage_error("run: %s", il_errmsg());
		goto out;
	}
	ps.c = c;
	ps.name = name ? name : c->name;
	if (name) {
		/* The key of the dataset's runs; keep it shell- and SQL-tame. */
		size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:");

		if (!*name || name[n] || n > 96) {
			code = cli_usage_error("run: --name '%s': use 1-96 of A-Z a-z 0-9 . _ - :",
					       name);
			goto out;
		}
	}
	ps.st = calloc(c->nplan, sizeof(*ps.st));
	ps.sel = calloc(c->nplan, sizeof(*ps.sel));
	ps.est = calloc(c->nplan, sizeof(*ps.est));
	if (!ps.st || !ps.sel || !ps.est) {
		code = cli_error(IL_EXIT_FAIL, "out of memory");
		goto out;
	}
	for (i = 0; i < c->nplan; i++) {
		ps.sel[i] = !only || il_plan_matches(&c->plan[i], only);
		nsel += ps.sel[i];
	}
	if (!nsel) {
		code = cli_usage_error("run: --only '%s' matches no benchmark or group of %s",
				       only, c->file);
		goto out;
	}
	code = prevalidate(topo, &ps);
	if (code)
		goto out;

	/* Resume keys are per host: another machine's runs of this campaign
	 * in a merged database are not ours to skip. */
	if (!il_host_uuid(host_buf))
		host = host_buf;
	if (dry) {
		struct stat sb;

		/* History only: never create or migrate a file for a dry run. */
		if (!stat(db, &sb) &&
		    il_store_open(db, IL_STORE_READONLY, &store) == 0)
			il_store_campaign_runs(store, ps.name, host, collect_cb, &ps);
		il_errclear();
		for (i = 0; i < c->nplan; i++) {
			uint64_t ns;

			if (!store || il_store_mean_duration(store, c->plan[i].ops->name,
							     c->plan[i].hash, &ns) != 1)
				ns = il_plan_estimate_ns(&c->plan[i]);
			ps.est[i] = ns;
		}
		if (il_envctl_journal_pending())
			fprintf(stderr, "idlelab: run: notice: a restore journal is pending; a real run restores it first (or run 'idlelab restore')\n");
		dry_run(&ps, resume);
		goto out;
	}

	code = cli_envctl_recover("run");
	if (code)
		goto out;
	ret = il_store_open(db, IL_STORE_CREATE, &store);
	if (ret) {
		code = cli_usage_error("run: %s", il_errmsg());
		goto out;
	}
	ret = il_store_campaign_runs(store, ps.name, host, collect_cb, &ps);
	if (ret) {
		code = cli_error(IL_EXIT_FAIL, "run: %s", il_errmsg());
		goto out;
	}
	for (i = 0; i < c->nplan; i++)
		if (ps.sel[i] && (ps.st[i].status || ps.st[i].other_hash))
			nexisting++;
	if (nexisting && !resume) {
		code = cli_usage_error("run: %s already holds %d of the selected runs of campaign '%s'; use --resume to run only the missing ones, or --name NAME (or another --db) for a new campaign",
				       db, nexisting, ps.name);
		goto out;
	}
	for (i = 0; i < c->nplan; i++) {
		uint64_t ns;

		if (!ps.sel[i])
			continue;
		if (il_store_mean_duration(store, c->plan[i].ops->name,
					   c->plan[i].hash, &ns) != 1)
			ns = il_plan_estimate_ns(&c->plan[i]);
		ps.est[i] = ns;
		if (final_status(ps.st[i].status))
			t.done++;
		else
			prog.est_left += ns;
	}
	il_errclear();
	ret = il_machine_register(store, topo, machine);
	if (ret) {
		code = cli_error(IL_EXIT_FAIL, "run: cannot record the machine: %s",
				 il_errmsg());
		goto out;
	}

	cli_install_signals();
	if (!il_envctl_spec_empty(&c->env)) {
		ret = il_envctl_apply(&c->env, &ctl);
		if (ret) {
			code = cli_error(ret == -ENOENT || ret == -EOPNOTSUPP ?
					 IL_EXIT_UNSUPPORTED : IL_EXIT_FAIL,
					 "run: %s:%d: environment: %s", c->file,
					 c->env_line, il_errmsg());
			goto out;
		}
	}

	prog.tty = isatty(STDERR_FILENO);
	prog.n = nsel - t.done;
	for (i = 0; i < c->nplan; i++) {
		const struct il_plan_entry *e = &c->plan[i];
		struct il_run_outcome o;
		enum il_run_status st;

		if (!ps.sel[i] || final_status(ps.st[i].status))
			continue;
		if (il_stop_requested()) {
			stopped = true;
			break;
		}
		if (ps.st[i].status) {
			/* interrupted or skipped: forget it, run it again. */
			ret = il_store_campaign_forget(store, ps.name, machine, e->index, e->hash);
			if (ret < 0) {
				code = cli_error(IL_EXIT_FAIL, "run: %s", il_errmsg());
				break;
			}
		}
		if (ps.st[i].other_hash)
			t.changed++;
		prog.i++;
		progress_show(&prog, e);
		t0 = mono_ns();
		memset(&o, 0, sizeof(o));
		ret = run_one(store, topo, machine, ctl, &ps, e, &o);
		prog.real_done += mono_ns() - t0;
		prog.est_done += ps.est[i];
		prog.est_left -= ps.est[i] < prog.est_left ? ps.est[i] : prog.est_left;
		progress_clear(&prog);
		if (ret) {
			code = cli_error(IL_EXIT_FAIL, "run: #%" PRId64 " %s: cannot store the run: %s",
					 e->index, e->ops->name, il_errmsg());
			break;
		}
		printf("[%d/%d] #%" PRId64 " %s cpus=%s %s rep %d/%d: %s%s%s\n",
		       prog.i, prog.n, e->index, e->ops->name, e->cpus,
		       e->params_str[0] ? e->params_str : "-", e->repetition,
		       e->repetitions, o.status, o.reason[0] ? ": " : "", o.reason);
		fflush(stdout);
		if (il_run_status_parse(o.status, &st))
			st = IL_RUN_FAILED;
		switch (st) {
		case IL_RUN_OK:
			t.ok++;
			break;
		case IL_RUN_UNSUPPORTED:
			t.unsupported++;
			break;
		case IL_RUN_SKIPPED:
			t.skipped++;
			break;
		case IL_RUN_INTERRUPTED:
			t.interrupted++;
			break;
		default:
			t.failed++;
			break;
		}
		if (st == IL_RUN_INTERRUPTED || il_stop_requested()) {
			stopped = true;
			break;
		}
	}
	progress_clear(&prog);

	/* Restore on every path out of the loop: end, signal, error. */
	ret = il_envctl_restore(ctl);
	ctl = NULL;
	if (ret) {
		char p[4096];

		cli_error(IL_EXIT_FAIL, "run: the environment was NOT fully restored: %s; the journal %s is kept, run 'idlelab restore'",
			  il_errmsg(), il_envctl_journal_path(p, sizeof(p)));
		code = IL_EXIT_FAIL;
	}
	fmt_duration(prog.real_done, d, sizeof(d));
	printf("campaign %s: %d ok, %d failed, %d unsupported, %d skipped, %d interrupted; %d already done; %s\n",
	       ps.name, t.ok, t.failed, t.unsupported, t.skipped, t.interrupted,
	       t.done, d);
	if (t.changed)
		fprintf(stderr, "idlelab: run: warning: %d entr%s differ from the runs stored at the same plan index (was the campaign file edited?)\n",
			t.changed, t.changed == 1 ? "y" : "ies");
	if (stopped) {
		if (!code)
			code = cli_error(IL_EXIT_INTERRUPTED,
					 "run: stopped by a signal; the environment is restored; finish with: idlelab run %s --resume%s%s",
					 c->file, name ? " --name " : "", name ? name : "");
	} else if (!code && t.failed) {
		code = cli_error(IL_EXIT_FAIL, "run: %d run%s failed", t.failed,
				 t.failed == 1 ? "" : "s");
	}
out:
	if (ctl && il_envctl_restore(ctl))
		code = cli_error(IL_EXIT_FAIL, "run: the environment was NOT fully restored: %s",
				 il_errmsg());
	il_store_close(store);
	free(ps.st);
	free(ps.sel);
	free(ps.est);
	il_campaign_free(c);
	il_topo_close(topo);
	return code;
}
