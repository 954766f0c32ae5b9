// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_run_entry.c - one entry of an `idlelab run` plan as a run request:
 * validated, every selected entry before the first run (step 1 of the
 * order in cmd_run_campaign.c), then run and committed, or stored as
 * skipped or unsupported with the reason when it cannot run here (step 5).
 * Both build the request from the plan entry the same way, so what was
 * validated is what runs.
 */
#include "cli.h"
#include "campaign.h"
#include "cmd_run_internal.h"
#include "envctl.h"
#include "err.h"
#include "kmod_frame.h"
#include "run_execute.h"
#include "store.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The entry's block and its one rendering, as the plan made them. */
static void request_init(struct il_run_request *req, const struct plan_state *ps,
			 const struct il_plan_entry *e)
{
	il_plan_request(e, ps->name, req);
	req->cmdline = cli_cmdline();
}

/* Everything il_run_prepare() checks, for every entry, before any run. */
int run_prevalidate(struct il_topo *topo, const struct plan_state *ps)
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

int run_entry(struct il_store *store, struct il_topo *topo,
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
	why = e->ops->kdev ? il_bench_supported(e->ops) : NULL;
	if (why)
		return il_store_skipped(store, machine, &req, why, out);
	/* The campaign's controls hold for all of its runs, so one that
	 * does not exist here leaves every run without the conditions it
	 * asked for (--env-missing run measures them all the same). */
	if (ps->env_missing == ENV_MISSING_UNSUPPORTED &&
	    il_envctl_unavailable(ctl)) {
		char msg[512];

		snprintf(msg, sizeof(msg), "environment not applied here: %s",
			 il_envctl_unavailable(ctl));
		return il_store_unsupported(store, machine, &req, msg, out);
	}
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
	/* The plan's run order, so a dataset says how its arms alternated. */
	if (il_plan_order_seeded(e->order))
		il_run_attr(&run, -1, "plan_order", "%s seed=%" PRIu64,
			    il_plan_order_name(e->order), e->order_seed);
	else
		il_run_attr(&run, -1, "plan_order", "%s", il_plan_order_name(e->order));
	ret = il_run_execute(store, machine, &req, &run, counters, out);
	il_counters_close(counters);
	il_run_release(&run);
	return ret;
}
