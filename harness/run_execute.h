/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * run_execute.h - one benchmark run from request to committed database rows.
 *
 * Validation and execution are separate steps so that every kind of bad
 * input (unknown parameter, bad CPU list, offline CPU, unknown event) is
 * refused by il_run_prepare() before the database or the machine is
 * touched.  il_run_execute() then follows DESIGN.md's data flow: snapshot,
 * setup, counters, run, counters, teardown, snapshot, one transaction.
 *
 * Errors follow err.h.
 */
#ifndef IDLELAB_RUN_EXECUTE_H
#define IDLELAB_RUN_EXECUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"
#include "counters.h"
#include "run_context.h"	/* il_run_release() after il_run_prepare() */
#include "store.h"

/*
 * The event list that opens no counters at all, so nothing of ours sits on
 * a measured CPU's wake path (a perf event's context switch hooks, a
 * multiplexing timer).  Whether counters were on is the run attribute
 * "counters": "on", or "off (events: none)".
 */
#define IL_EVENTS_NONE	"none"

struct il_run_request {
	const struct il_bench_ops *ops;
	const char *cpus;		/* NULL: the benchmark's default */
	/*
	 * The parameters: ops->params_size bytes, every field filled, the one
	 * form a run's parameters travel in.  A campaign's plan entry parsed
	 * its block once, when the plan was made; `idlelab bench` parses its
	 * --param strings into one at the command line (il_opts_parse_kvs()).
	 */
	const void *block;
	/*
	 * @block as the plan rendered and hashed it (il_plan_entry.params_json),
	 * or as `idlelab bench` rendered it for what it prints: stored as
	 * runs.params as it is, so a run's parameters become text exactly
	 * once.  NULL: the runner renders @block itself, once, when it stores
	 * the run.
	 */
	const char *params_json;
	const char *events;		/* NULL: the default set; "none"
					 * (IL_EVENTS_NONE): no counters */
	const char *backend;		/* "pfm" (NULL) or "papi" */
	bool keep_raw;
	/* --causes: capture trace events and attribute outliers (causes.h);
	 * @causes_threshold_ns 0 is each series' p99, @causes_buffer_kb 0
	 * sizes the per-CPU buffer from the run's estimate. */
	bool causes;
	bool causes_lean;		/* --causes-lean (trace_capture.c) */
	uint64_t causes_threshold_ns;
	uint64_t causes_buffer_kb;
	const char *campaign;		/* NULL for single runs */
	int64_t plan_index;
	const char *param_hash;
	const char *cmdline;
};

/* What a finished run reports back to its caller. */
struct il_run_outcome {
	char uuid[37];
	const char *status;		/* ok, failed, unsupported, interrupted */
	char reason[256];
	/*
	 * Set when the database refused to store the finished run: the file
	 * it was kept in instead (store_pending.h), for `idlelab import
	 * pending`.  Empty when it was stored, or could not be kept either.
	 */
	char kept[4096];
};

/**
 * il_run_prepare() - validate @req and fill @run (params, placement) and
 * @counters (opened, not started), calling the benchmark's check op on the
 * parameters and placement.  Nothing is written anywhere.
 * Return: 0, or -EINVAL/-ENOENT/-ENODEV for bad input (message set).
 */
int il_run_prepare(struct il_topo *topo, const struct il_run_request *req,
		   struct il_run *run, struct il_counters **counters);

/**
 * il_run_params_json() - @params rendered through @ops's option table as
 * the canonical JSON text stored in runs.params: every parameter, defaults
 * included, keys sorted, compact.  A campaign calls it once per plan
 * configuration, hashes that text and hands it to the store through
 * il_run_request.params_json; the runner calls it only for a run without
 * that text.
 * Return: a malloc'd string, or NULL on allocation failure.
 */
char *il_run_params_json(const struct il_bench_ops *ops, const void *params);

/**
 * il_run_execute() - run a prepared benchmark and store it.
 * The run is stored whatever happens to it: ok, failed (with the error),
 * unsupported (supported()'s reason, or run() returning -EOPNOTSUPP with
 * its message) or interrupted (SIGINT/SIGTERM).
 * Return: 0 once stored (look at @out->status), or the store's error.
 */
int il_run_execute(struct il_store *store, const char *machine_uuid,
		   const struct il_run_request *req, struct il_run *run,
		   struct il_counters *counters, struct il_run_outcome *out);

/**
 * il_store_skipped() - store a run that was not attempted (e.g. its kmod is
 * absent) as "skipped" with @reason, so a campaign shows why it is missing.
 */
int il_store_skipped(struct il_store *store, const char *machine_uuid,
		     const struct il_run_request *req, const char *reason,
		     struct il_run_outcome *out);

/**
 * il_store_unsupported() - store a run that was not attempted because this
 * machine cannot give it the conditions it asks for (e.g. a campaign
 * environment control that does not exist here) as "unsupported" with
 * @reason.
 */
int il_store_unsupported(struct il_store *store, const char *machine_uuid,
			 const struct il_run_request *req, const char *reason,
			 struct il_run_outcome *out);

/** il_machine_register() - fingerprint this machine into @store. */
int il_machine_register(struct il_store *store, struct il_topo *topo,
			char uuid[37]);

#endif
