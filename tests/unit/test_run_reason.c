// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_run_reason.c - a failed run is stored with the message of the step
 * that failed (issue 20, defect 6).  il_run_execute() goes on after a
 * failure: it stops the counters, tears down and snapshots the
 * environment, and each of those may set a message of its own (the
 * counters' "were not started", a missing cpuidle file), which once
 * replaced the real reason in runs.status_reason.  Two benchmarks that
 * exist only here fail on purpose, one in setup() and one in run() with a
 * teardown() that sets a message after it, and the stored reason must be
 * theirs.  The test runs from the repository root, as tests/run.sh starts
 * it.
 */
#include "tap.h"

#include "bench.h"
#include "err.h"
#include "opts.h"
#include "run_execute.h"
#include "store.h"
#include "store_sqlite.h"
#include "topo.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmpdir[] = "/tmp/il-test-reason-XXXXXX";
static char dbpath[600];
static struct il_topo *topo;
static struct il_store *store;
static char machine[37];

struct fr_params {
	uint64_t samples;
};

static const struct il_opt fr_opts[] = {
	{ .name = "samples", .type = IL_OPT_U64,
	  .offset = offsetof(struct fr_params, samples),
	  .min = 1, .max = 10, .def = "1", .unit = "count",
	  .help = "unused" },
	IL_OPT_END
};

static int fail_setup(struct il_run *run)
{
	(void)run;
	return il_errorf(-EIO, "setup says no");
}

static int ok_setup(struct il_run *run)
{
	(void)run;
	return 0;
}

static int fail_run(struct il_run *run)
{
	(void)run;
	return il_errorf(-EIO, "run says no");
}

/* What a teardown that logs its own trouble leaves in the message. */
static void noisy_teardown(struct il_run *run)
{
	(void)run;
	il_errorf(-ENOENT, "teardown noise");
}

static const struct il_bench_ops fails_in_setup = {
	.name = "fails_in_setup",
	.default_cpus = "0",
	.opts = fr_opts,
	.params_size = sizeof(struct fr_params),
	.setup = fail_setup,
	.run = fail_run,
	.teardown = noisy_teardown,
};

static const struct il_bench_ops fails_in_run = {
	.name = "fails_in_run",
	.default_cpus = "0",
	.opts = fr_opts,
	.params_size = sizeof(struct fr_params),
	.setup = ok_setup,
	.run = fail_run,
	.teardown = noisy_teardown,
};

/* runs.status_reason of @uuid, malloc'd, or NULL. */
static char *stored_reason(const char *uuid)
{
	sqlite3_stmt *st;
	char *v = NULL;

	if (sqlite3_prepare_v2(il_store_db(store),
			       "SELECT status_reason FROM runs WHERE uuid = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

/* Run @ops with the default counters and check the reason kept is @want. */
static void reason_is(const struct il_bench_ops *ops, const char *want)
{
	struct il_run_request req = { .ops = ops, .plan_index = -1 };
	void *blk = calloc(1, ops->params_size ? ops->params_size : 1);
	struct il_counters *counters = NULL;
	struct il_run_outcome out;
	struct il_run run;
	char *stored;
	int ret;

	/* The benchmark's defaults, as `idlelab bench` without --param. */
	CHECK(blk && !il_opts_defaults(ops->opts, blk));
	if (!blk)
		return;
	req.block = blk;
	ret = il_run_prepare(topo, &req, &run, &counters);
	CHECKF(ret == 0, "prepare %s: %s", ops->name, il_errmsg());
	if (!ret) {
		ret = il_run_execute(store, machine, &req, &run, counters, &out);
		CHECKF(ret == 0, "execute %s: %s", ops->name, il_errmsg());
	}
	il_counters_close(counters);
	il_run_release(&run);
	free(blk);
	if (ret)
		return;
	CHECKF(!strcmp(out.status, "failed"), "%s: status %s", ops->name,
	       out.status);
	CHECKF(!strcmp(out.reason, want), "%s: reason '%s', want '%s'",
	       ops->name, out.reason, want);
	stored = stored_reason(out.uuid);
	CHECKF(stored && !strcmp(stored, want), "%s: stored reason '%s'",
	       ops->name, stored ? stored : "(none)");
	free(stored);
}

TEST(setup_failure_keeps_its_message)
{
	reason_is(&fails_in_setup, "setup says no");
}

TEST(run_failure_outlives_the_teardown_message)
{
	reason_is(&fails_in_run, "run says no");
}

int main(void)
{
	char cmd[700];

	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	/* The host identity goes to the scratch directory, not /var/lib. */
	setenv("IDLELAB_STATE_DIR", tmpdir, 1);
	snprintf(dbpath, sizeof(dbpath), "%s/r.db", tmpdir);
	if (il_topo_open(&topo) ||
	    il_store_open(dbpath, IL_STORE_CREATE, &store) ||
	    il_machine_register(store, topo, machine)) {
		printf("Bail out! %s\n", il_errmsg());
		return 1;
	}
	RUN(setup_failure_keeps_its_message);
	RUN(run_failure_outlives_the_teardown_message);
	il_store_close(store);
	il_topo_close(topo);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
