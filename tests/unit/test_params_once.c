// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_params_once.c - "parsed once, rendered once": a campaign run's
 * parameters become JSON text exactly once, in the plan, and that text is
 * both what the resume hash covers and what runs.params stores.
 *
 * The plan of data/campaigns/quick.yaml (the real file and the real
 * benchmarks) is run entry by entry through il_plan_request(), as
 * `idlelab run` does, into a scratch database, and each stored row is
 * compared byte for byte with the plan entry's text; the stored
 * param_hash must be the FNV-1a of "bench|cpus|<that stored text>", so a
 * hash over one rendering and a store of another cannot pass.  A request
 * whose carried text differs from what the block would render proves the
 * runner stores the carried text rather than rendering again, and a
 * request that carries its block alone, parsed from "key=value" strings
 * as `idlelab bench` parses --param, proves the runner still renders that
 * one itself.
 * The test runs from the repository root, as tests/run.sh starts it.
 */
#include "tap.h"

#include "bench_registry.h"
#include "campaign.h"
#include "err.h"
#include "opts.h"
#include "run_execute.h"
#include "store.h"
#include "store_sqlite.h"
#include "topo.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/il-test-params-XXXXXX";
static char dbpath[600];
static struct il_topo *topo;
static struct il_store *store;
static char machine[37];

/* One column of the run @uuid, malloc'd; NULL if absent or on an error. */
static char *run_col(const char *uuid, const char *col)
{
	sqlite3 *db = il_store_db(store);
	sqlite3_stmt *st;
	char sql[128];
	char *v = NULL;

	snprintf(sql, sizeof(sql), "SELECT %s FROM runs WHERE uuid = ?1", col);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		printf("# query failed: %s: %s\n", sql, sqlite3_errmsg(db));
		return NULL;
	}
	sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

/* Prepare and execute @req into the store.  Return: 0, or -errno. */
static int execute(const struct il_run_request *req, struct il_run_outcome *out)
{
	struct il_counters *counters = NULL;
	struct il_run run;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = il_run_prepare(topo, req, &run, &counters);
	if (ret)
		printf("# prepare %s: %s\n", req->ops->name, il_errmsg());
	else
		ret = il_run_execute(store, machine, req, &run, counters, out);
	if (ret)
		printf("# execute %s: %s\n", req->ops->name, il_errmsg());
	il_counters_close(counters);
	il_run_release(&run);
	return ret;
}

/* FNV-1a of "bench|cpus|params", as campaign.h defines param_hash. */
static void hash_of(const char *bench, const char *cpus, const char *params,
		    char out[17])
{
	char *canon = NULL;

	if (asprintf(&canon, "%s|%s|%s", bench, cpus, params) < 0) {
		out[0] = '\0';
		return;
	}
	snprintf(out, 17, "%016" PRIx64, il_fnv1a64(canon, strlen(canon)));
	free(canon);
}

TEST(plan_carries_its_rendering)
{
	struct il_campaign *c = NULL;
	int i;

	CHECKF(il_campaign_load_scaled("data/campaigns/quick.yaml", topo, 1.0, &c) == 0,
	       "%s", il_errmsg());
	if (!c)
		return;
	CHECK(c->nplan >= 5);
	for (i = 0; i < c->nplan; i++) {
		const struct il_plan_entry *e = &c->plan[i];
		char *again = il_run_params_json(e->ops, e->block);
		char h[17];

		CHECK(e->params_json != NULL);
		CHECKF(again && e->params_json && !strcmp(again, e->params_json),
		       "#%d %s: %s vs %s", i, e->ops->name,
		       e->params_json ? e->params_json : "(null)",
		       again ? again : "(null)");
		if (e->params_json) {
			hash_of(e->ops->name, e->cpus, e->params_json, h);
			CHECKF(!strcmp(h, e->hash), "#%d: %s vs %s", i, h, e->hash);
		}
		free(again);
	}
	il_campaign_free(c);
}

TEST(quick_yaml_stores_what_it_hashed)
{
	struct il_campaign *c = NULL;
	int i, nok = 0;

	CHECKF(il_campaign_load_scaled("data/campaigns/quick.yaml", topo, 1.0, &c) == 0,
	       "%s", il_errmsg());
	if (!c)
		return;
	for (i = 0; i < c->nplan; i++) {
		const struct il_plan_entry *e = &c->plan[i];
		struct il_run_request req;
		struct il_run_outcome out;
		char *params, *hash, h[17];

		il_plan_request(e, "params-once", &req);
		if (execute(&req, &out)) {
			CHECKF(0, "#%d %s did not store", i, e->ops->name);
			continue;
		}
		nok += !strcmp(out.status, "ok");
		params = run_col(out.uuid, "params");
		hash = run_col(out.uuid, "param_hash");
		CHECKF(params && !strcmp(params, e->params_json),
		       "#%d %s: stored %s, planned %s", i, e->ops->name,
		       params ? params : "(null)", e->params_json);
		CHECKF(hash && !strcmp(hash, e->hash), "#%d: param_hash %s vs %s",
		       i, hash ? hash : "(null)", e->hash);
		if (params && hash) {
			hash_of(e->ops->name, e->cpus, params, h);
			CHECKF(!strcmp(h, hash),
			       "#%d: hash of the stored params %s, stored hash %s",
			       i, h, hash);
		}
		free(params);
		free(hash);
	}
	/* Not a test of the benchmarks, but an all-failed plan is no proof. */
	CHECKF(nok > 0, "no run of quick.yaml finished ok");
	il_campaign_free(c);
}

TEST(runner_stores_the_carried_text)
{
	static const char yaml[] =
		"name: carried\n"
		"groups:\n"
		"  - {bench: tsc_gaps, cpus: \"0\", params: {duration_ms: 5}}\n";
	struct il_campaign *c = NULL;
	struct il_run_request req;
	struct il_run_outcome out;
	char *marked = NULL, *params;

	CHECKF(il_campaign_parse_scaled("carried.yaml", yaml, strlen(yaml), topo, 1.0, &c) == 0,
	       "%s", il_errmsg());
	if (!c || c->nplan != 1) {
		CHECK(c && c->nplan == 1);
		il_campaign_free(c);
		return;
	}
	/* Valid JSON that no renderer writes (a space after '{'): only a
	 * runner that stores the carried text can store exactly this. */
	CHECK(c->plan[0].params_json[0] == '{');
	CHECK(asprintf(&marked, "{ %s", c->plan[0].params_json + 1) > 0);
	il_plan_request(&c->plan[0], "params-once", &req);
	req.params_json = marked;
	CHECK(execute(&req, &out) == 0);
	params = run_col(out.uuid, "params");
	CHECKF(params && marked && !strcmp(params, marked), "stored %s",
	       params ? params : "(null)");
	free(params);
	free(marked);
	il_campaign_free(c);
}

TEST(bench_without_plan_renders_in_the_runner)
{
	static const char *const kv[] = { "duration_ms=5" };
	struct il_run_request req = { .plan_index = -1 };
	struct il_run_outcome out;
	char *params, *want;
	void *blk;

	req.ops = il_bench_find("tsc_gaps");
	CHECK(req.ops != NULL);
	if (!req.ops)
		return;
	req.cpus = "0";
	/* As cmd_bench parses --param, at the command line. */
	blk = calloc(1, req.ops->params_size);
	CHECK(blk && !il_opts_parse_kvs(req.ops->opts, blk, kv, 1));
	if (!blk)
		return;
	req.block = blk;
	CHECK(execute(&req, &out) == 0);
	params = run_col(out.uuid, "params");
	/* What the table renders for the defaults with duration_ms=5. */
	want = il_run_params_json(req.ops, blk);
	CHECKF(params && want && !strcmp(params, want), "stored %s, want %s",
	       params ? params : "(null)", want ? want : "(null)");
	CHECK(params && strstr(params, "\"duration_ms\":5"));
	free(params);
	free(want);
	free(blk);
}

/* The scratch directory, the topology, the store and this machine in it. */
static int setup(void)
{
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp\n");
		return -1;
	}
	/* The host identity goes to the scratch directory, not /var/lib. */
	setenv("IDLELAB_STATE_DIR", tmpdir, 1);
	snprintf(dbpath, sizeof(dbpath), "%s/p.db", tmpdir);
	if (il_topo_open(&topo) || il_store_open(dbpath, IL_STORE_CREATE, &store) ||
	    il_machine_register(store, topo, machine)) {
		printf("Bail out! %s\n", il_errmsg());
		return -1;
	}
	return 0;
}

static int finish(void)
{
	char cmd[700];

	il_store_close(store);
	il_topo_close(topo);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}

int main(void)
{
	if (setup())
		return 1;
	RUN(plan_carries_its_rendering);
	RUN(quick_yaml_stores_what_it_hashed);
	RUN(runner_stores_the_carried_text);
	RUN(bench_without_plan_renders_in_the_runner);
	return finish();
}
