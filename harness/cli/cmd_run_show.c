// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_run_show.c - what `idlelab run` prints: its one line per run, plain
 * or JSON; the --dry-run plan with its estimates; the environment it will
 * apply; and the progress line with an ETA corrected by how wrong the
 * estimates have been so far.
 */
#include "cli.h"
#include "cmd_run_internal.h"
#include "cli_runjson.h"
#include "envctl.h"
#include "err.h"
#include "kmod_frame.h"
#include "run_execute.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

void run_print_env(const struct il_campaign *c, FILE *f)
{
	char line[2048];

	/* One rendering of the spec, from envctl's table of keys. */
	if (!il_envctl_spec_describe(&c->env, line, sizeof(line)))
		fprintf(f, "%s\n", line);
}

int run_dry_run(const struct plan_state *ps, bool resume)
{
	const struct il_campaign *c = ps->c;
	uint64_t total = 0;
	char d[32];
	int i, n = 0, done = 0;

	printf("campaign %s (%s): %d planned runs in %d groups\n", ps->name,
	       c->file, c->nplan, c->ngroups);
	if (c->description[0])
		printf("description: %s\n", c->description);
	if (c->scale != 1.0)
		printf("scale: %g (repetitions, counts and run lengths)\n",
		       c->scale);
	run_print_env(c, stdout);
	for (i = 0; i < c->nplan; i++) {
		const struct il_plan_entry *e = &c->plan[i];

		/* Once per group, in plan order: groups stay contiguous. */
		if (e->order == IL_ORDER_SEQUENTIAL ||
		    (i && c->plan[i - 1].group_no == e->group_no))
			continue;
		if (il_plan_order_seeded(e->order))
			printf("order: group %s %s, seed %" PRIu64 "\n", e->group,
			       il_plan_order_name(e->order), e->order_seed);
		else
			printf("order: group %s %s\n", e->group, il_plan_order_name(e->order));
	}
	printf("%6s  %-18s %-16s %-14s %7s  %-16s %9s  %s\n", "index", "group",
	       "bench", "cpus", "rep", "param_hash", "estimate", "params");
	for (i = 0; i < c->nplan; i++) {
		const struct il_plan_entry *e = &c->plan[i];
		bool is_done = resume && run_final_status(ps->st[i].status);
		char rep[24], *params;

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
		params = il_plan_entry_params(e, ";");
		if (!params)
			return il_errorf(-ENOMEM, "out of memory");
		printf("%6" PRId64 "  %-18s %-16s %-14s %7s  %-16s %9s  %s\n",
		       e->index, e->group, e->ops->name, e->cpus, rep, e->hash, d,
		       params[0] ? params : "-");
		free(params);
	}
	cli_fmt_duration(total, d, sizeof(d));
	printf("estimated duration: %s for %d runs", d, n - done);
	if (done)
		printf(" (%d already done)", done);
	printf("\n");
	return 0;
}

/*
 * --dry-run's warnings, on stderr: the environment controls this machine
 * lacks and the benchmarks that cannot run here (a module not loaded, no
 * such hardware), each with what a real run would then store.  Return 0,
 * or -errno when the machine's state could not be read.
 */
int run_dry_warnings(const struct plan_state *ps, bool resume)
{
	const struct il_campaign *c = ps->c;
	char *why = NULL;
	int i, j, n, ret;

	if (!il_envctl_spec_empty(&c->env)) {
		ret = il_envctl_probe(&c->env, &why);
		if (ret)
			return ret;
		if (why)
			fprintf(stderr, "idlelab: run: %s:%d: environment: not available here: %s; %s\n",
				c->file, c->env_line, why,
				ps->env_missing == ENV_MISSING_ABORT ?
				"a run would refuse to start (--env-missing abort)" :
				ps->env_missing == ENV_MISSING_RUN ?
				"a run would measure anyway (--env-missing run), the reason stored with every run" :
				"every run would be stored as unsupported with this reason (--env-missing run measures anyway, abort refuses)");
		free(why);
	}
	for (i = 0; i < c->nplan; i++) {
		const struct il_bench_ops *ops = c->plan[i].ops;
		const char *reason;

		for (j = 0; j < i && c->plan[j].ops != ops; j++)
			;
		if (j < i || !(reason = il_bench_supported(ops)))
			continue;	/* told once per benchmark, or it runs */
		for (n = 0, j = i; j < c->nplan; j++)
			n += c->plan[j].ops == ops && ps->sel[j] &&
			     !(resume && run_final_status(ps->st[j].status));
		if (n)
			fprintf(stderr, "idlelab: run: %s: unsupported here: %s; its %d run%s would be stored as unsupported\n",
				ops->name, reason, n, n == 1 ? "" : "s");
	}
	return 0;
}

int run_show_outcome(const struct plan_state *ps, const struct progress *p,
		     const struct il_plan_entry *e,
		     const struct il_run_outcome *o, bool stored)
{
	const char *status = o->status ? o->status : "failed";
	char *params;
	struct cli_run_line l = {
		.uuid = o->uuid,
		.bench = e->ops->name,
		.status = status,
		.reason = o->reason,
		.cpus = e->cpus,
		.params_json = e->params_json,
		.stored = stored,
		.kept = o->kept,
		.campaign = ps->name,
		.group = e->group,
		.index = e->index,
		.repetition = e->repetition,
		.repetitions = e->repetitions,
	};

	if (ps->output == RUN_OUT_JSON)
		return o->uuid[0] ? cli_json_run_line(stdout, &l) : 0;
	/* A refused run is told on stderr, with where it was kept. */
	if (ps->output == RUN_OUT_QUIET || !stored)
		return 0;
	params = il_plan_entry_params(e, ";");
	if (!params)
		return il_errorf(-ENOMEM, "out of memory");
	/* The 8 digits are what report --run takes back. */
	printf("[%d/%d] #%" PRId64 " run %.8s %s cpus=%s %s rep %d/%d: %s%s%s\n",
	       p->i, p->n, e->index, o->uuid, e->ops->name, e->cpus,
	       params[0] ? params : "-", e->repetition,
	       e->repetitions, status, o->reason[0] ? ": " : "", o->reason);
	free(params);
	fflush(stdout);
	return 0;
}

/* The TTY progress line, on stderr only when it is a terminal. */

void run_progress_clear(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->shown = false;
	}
}

void run_progress_show(struct progress *p, const struct il_plan_entry *e)
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
	cli_fmt_duration((uint64_t)(p->est_left * scale), eta, sizeof(eta));
	fprintf(stderr, "\r\033[K[%d/%d] %s", p->i, p->n, e->ops->name);
	if (strcmp(e->group, e->ops->name))
		fprintf(stderr, " (%s)", e->group);
	fprintf(stderr, " cpus=%s rep %d/%d  ETA %s", e->cpus, e->repetition,
		e->repetitions, eta);
	fflush(stderr);
	p->shown = true;
}
