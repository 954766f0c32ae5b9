// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_bench.c - `idlelab bench NAME`: one run into the database.
 *
 * The order matters for "bad input loses nothing": the --param strings
 * are parsed into the benchmark's typed block here, once (the runner
 * takes only a block), and every flag, placement and event name is
 * validated (il_run_prepare) before the database is opened, and the database is checked to be an idlelab one of
 * a known version before anything is written or measured.
 *
 * What it prints names the run: a first line with the 8 digits of its
 * UUID that `report --run` takes back, then the run's table; with --json
 * one JSON line instead (cli_runjson.h), whatever the run's status, so a
 * script never parses the table; with --quiet nothing but errors.
 * --dry-run stops after il_run_prepare(), the check op included, and
 * prints what would run; it opens no database and restores nothing.
 * A run estimated at a second or more shows a progress line on a
 * terminal while it runs, as each run of a campaign does: written once
 * before the run and cleared after it, so nothing of ours wakes up on any
 * CPU during the measurement.
 */
#include "cli.h"
#include "cli_opts.h"
#include "cli_causes.h"
#include "cli_runjson.h"
#include "analysis.h"
#include "bench_registry.h"
#include "err.h"
#include "kmod_frame.h"
#include "run_execute.h"
#include "run_status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Shorter runs end before a progress line would be read. */
#define BENCH_PROGRESS_MIN_NS	1000000000ULL

static const char bench_usage[] =
	"usage: idlelab bench NAME [--cpus SPEC] [--param KEY=VALUE]...\n"
	"                     [--events LIST] [--counters pfm|papi]\n"
	"                     [--db FILE] [--raw] [--json] [--quiet] [--dry-run]\n"
	"                     [--causes [--causes-lean] [--causes-threshold NS] [--causes-buffer-kb KB]]\n\n"
	"Run one benchmark on this machine and store it.\n\n";

/* --param may repeat; the array has room for one per argv word. */
struct param_list {
	const char **v;
	int n;
};

static int add_param(const struct cli_option *o, const char *arg)
{
	struct param_list *pl = o->value;

	pl->v[pl->n++] = arg;
	return 0;
}

/*
 * --dry-run: the run as prepared, its parameters as they would be stored,
 * and whether it can run here; supported() only reads, it never loads a
 * module.
 */
static int print_dry(const struct il_run_request *req, const struct il_run *run)
{
	const struct il_bench_ops *ops = req->ops;
	const char *why = il_bench_supported(ops);
	uint64_t ns = ops->estimate_ns ? ops->estimate_ns(run->params, &run->place) : 0;

	printf("bench %s: cpus %s (%d measured)\n", ops->name,
	       req->cpus ? req->cpus : ops->default_cpus,
	       il_bench_measured(&run->place));
	printf("params: %s\n", req->params_json);
	if (ops->estimate_ns)
		printf("estimate: %.2f s\n", ns / 1e9);
	if (why)
		printf("unsupported here: %s (it would be stored as unsupported)\n", why);
	else
		printf("supported here\n");
	return IL_EXIT_OK;
}

/* The progress line on stderr: true when it was shown, to be cleared. */
static bool show_progress(const struct il_run_request *req,
			  const struct il_run *run)
{
	const struct il_bench_ops *ops = req->ops;
	uint64_t ns;
	char eta[32];

	if (!ops->estimate_ns || !isatty(STDERR_FILENO))
		return false;
	ns = ops->estimate_ns(run->params, &run->place);
	if (ns < BENCH_PROGRESS_MIN_NS)
		return false;
	cli_fmt_duration(ns, eta, sizeof(eta));
	fprintf(stderr, "\r\033[K%s cpus=%s  ETA %s", ops->name,
		req->cpus ? req->cpus : ops->default_cpus, eta);
	fflush(stderr);
	return true;
}

/*
 * The run as one JSON line: its table (report --format json) only once it
 * is stored with figures, as the table of the plain output is.
 */
static int print_json(struct il_store *store, const struct il_run_request *req,
		      const struct il_run_outcome *out, bool stored)
{
	enum il_run_status st;
	struct cli_run_line l = {
		.uuid = out->uuid,
		.bench = req->ops->name,
		.status = out->status ? out->status : "failed",
		.reason = out->reason,
		.cpus = req->cpus ? req->cpus : req->ops->default_cpus,
		.params_json = req->params_json,
		.stored = stored,
		.kept = out->kept,
		.index = -1,
	};

	if (stored && !il_run_status_parse(l.status, &st) &&
	    (st == IL_RUN_OK || st == IL_RUN_INTERRUPTED)) {
		l.report = cli_json_report_run(store, out->uuid);
		if (!l.report)
			return -EIO;
	}
	return cli_json_run_line(stdout, &l);
}

/*
 * What the end of a run prints: its JSON line (--json), or where a
 * measurement the database refused was kept, or the run's first line and
 * table, then why it did not end ok.  @ret is il_run_execute()'s.
 * Return: the exit code.
 */
static int print_outcome(struct il_store *store, const char *db,
			 const struct il_run_request *req,
			 const struct il_run_outcome *out, int ret, bool json,
			 bool quiet)
{
	int code;

	/* The database's refusal is a run too: its line says where the
	 * measurement was kept, before the error says why. */
	if (json && out->uuid[0] && print_json(store, req, out, !ret))
		return cli_error(IL_EXIT_FAIL, "bench: %s", il_errmsg());
	if (ret && out->kept[0])
		return cli_error(IL_EXIT_FAIL, "bench %s: cannot store the run: %s; the measurement (%s, run %s) is kept in %s: once %s can be written, load it with: idlelab import pending --db %s",
				 req->ops->name, il_errmsg(), out->status,
				 out->uuid, out->kept, db, db);
	if (ret)
		return cli_error(IL_EXIT_FAIL, "bench %s: cannot store the run: %s",
				 req->ops->name, il_errmsg());
	code = cli_exit_for_status(out->status);
	if (!json && !quiet)
		printf("run %.8s %s: %s\n\n", out->uuid, req->ops->name, out->status);
	if (!json && !quiet &&
	    (code == IL_EXIT_OK || code == IL_EXIT_INTERRUPTED)) {
		struct il_report_opts ro = {
			.format = IL_FMT_MD,
			.run_uuid = out->uuid,
		};

		if (il_report(store, &ro, stdout))
			code = cli_error(IL_EXIT_FAIL, "bench: %s", il_errmsg());
	}
	if (code != IL_EXIT_OK)
		cli_error(code, "bench %s: run %s %s%s%s", req->ops->name, out->uuid,
			  out->status, out->reason[0] ? ": " : "", out->reason);
	return code;
}

/*
 * The ops of the one benchmark named after the options (argv[@argi]), or
 * the usage error: with the usage when there is not exactly one name, with
 * the nearest name when it is unknown.
 */
static int find_bench(const struct cli_command *cmd, int argc, char **argv,
		      int argi, const struct il_bench_ops **ops)
{
	const char *name, *near;

	*ops = NULL;
	if (argi != argc - 1) {
		cli_usage(cmd, stderr);
		return cli_usage_error("bench: expected exactly one benchmark name (see idlelab list)");
	}
	name = argv[argi];
	*ops = il_bench_find(name);
	if (*ops)
		return IL_EXIT_OK;
	near = il_bench_suggest(name);
	if (near)
		return cli_usage_error("bench: unknown benchmark '%s' (did you mean '%s'?)",
				       name, near);
	return cli_usage_error("bench: unknown benchmark '%s' (see idlelab list)",
			       name);
}

/*
 * Open the database, record the machine, run the prepared @run with a
 * progress line and print how it ended.  Return: the exit code.
 */
static int store_and_run(const char *db, struct il_topo *topo,
			 const struct il_run_request *req, struct il_run *run,
			 struct il_counters *counters, bool json, bool quiet)
{
	struct il_store *store = NULL;
	struct il_run_outcome out;
	char machine[37];
	bool progress;
	int ret, code;

	ret = il_store_open(db, IL_STORE_CREATE, &store);
	if (ret)
		return cli_usage_error("bench: %s", il_errmsg());
	ret = il_machine_register(store, topo, machine);
	if (ret) {
		code = cli_error(IL_EXIT_FAIL, "bench: cannot record the machine: %s", il_errmsg());
		il_store_close(store);
		return code;
	}
	cli_install_signals();
	memset(&out, 0, sizeof(out));
	progress = !json && !quiet && show_progress(req, run);
	ret = il_run_execute(store, machine, req, run, counters, &out);
	if (progress) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	code = print_outcome(store, db, req, &out, ret, json, quiet);
	il_store_close(store);
	return code;
}

/*
 * The --param strings @kv into @req's typed block, and that block rendered
 * once into the text that --dry-run and --json print and the store keeps:
 * from here on the run's parameters are the block.  Both are malloc'd
 * into @block and @json for the caller to free.
 * Return: the exit code.
 */
static int parse_params(struct il_run_request *req, const char *const *kv,
			int n, void **block, char **json)
{
	const struct il_bench_ops *ops = req->ops;

	*json = NULL;
	*block = calloc(1, ops->params_size ? ops->params_size : 1);
	if (!*block)
		return cli_error(IL_EXIT_FAIL, "bench: out of memory");
	if (il_opts_parse_kvs(ops->opts, *block, kv, n))
		return cli_usage_error("bench %s: %s", ops->name, il_errmsg());
	*json = il_run_params_json(ops, *block);
	if (!*json)
		return cli_error(IL_EXIT_FAIL, "bench: out of memory");
	req->block = *block;
	req->params_json = *json;
	return IL_EXIT_OK;
}

int cmd_bench(int argc, char **argv)
{
	struct il_run_request req = { .plan_index = -1 };
	const char **params = calloc(argc, sizeof(char *));
	struct param_list pl = { params, 0 };
	const char *db = cli_default_db();
	char *params_json = NULL;
	void *block = NULL;
	struct il_counters *counters = NULL;
	struct il_topo *topo = NULL;
	struct il_run run;
	bool json = false, quiet = false, dry = false, have_run = false;
	const struct cli_option options[] = {
		CLI_STRING('c', "cpus", &req.cpus, "SPEC",
			   "placement: all, 0,2-3, one-per-core, one-per-l3,\n"
			   "pairs:smt|l3|cross-l3|cross-package, pairs:0-1"),
		CLI_CALLBACK('p', "param", &pl, "K=V",
			     "set a benchmark parameter (see idlelab list)", add_param),
		CLI_STRING('e', "events", &req.events, "LIST",
			   "comma-separated counter events (default set if absent; none: no counters)"),
		CLI_STRING(0, "counters", &req.backend, "NAME",
			   "counter backend: pfm (default) or papi"),
		CLI_STRING('d', "db", &db, "FILE",
			   "database (default $IDLELAB_DB or ./idlelab.db)"),
		CLI_FLAG('r', "raw", &req.keep_raw, "also store every raw sample"),
		CLI_FLAG('j', "json", &json,
			 "print the run as one JSON line (see idlelab-run(1),\n"
			 "JSON output), its table included, whatever its status"),
		CLI_FLAG('q', "quiet", &quiet,
			 "print nothing but errors (the exit status says\n"
			 "how the run ended)"),
		CLI_FLAG('n', "dry-run", &dry,
			 "check the parameters and placement, print what\n"
			 "would run, and stop: nothing is run or stored"),
		CLI_CAUSES_OPTIONS(req),
		CLI_END
	};
	const struct cli_command cmd = { "bench", bench_usage, options };
	int argi, ret, code;

	if (!params)
		return cli_error(IL_EXIT_FAIL, "out of memory");
	code = cli_parse_options(&cmd, argc, argv, &argi);
	if (code != CLI_CONTINUE)
		goto out;
	code = dry && json ?
	       cli_usage_error("bench: --dry-run prints text only; leave --json out") :
	       find_bench(&cmd, argc, argv, argi, &req.ops);
	if (code)
		goto out;
	req.cmdline = cli_cmdline();
	/* A campaign killed with -9 may have left settings changed. */
	code = dry ? 0 : cli_envctl_recover("bench");
	if (code)
		goto out;

	ret = il_topo_open(&topo);
	if (ret) {
		code = cli_error(IL_EXIT_FAIL, "bench: %s", il_errmsg());
		goto out;
	}
	code = parse_params(&req, params, pl.n, &block, &params_json);
	if (code)
		goto out;
	ret = il_run_prepare(topo, &req, &run, &counters);
	have_run = true;
	if (ret) {
		code = cli_usage_error("bench %s: %s", req.ops->name, il_errmsg());
		goto out;
	}
	code = dry ? print_dry(&req, &run) :
	       store_and_run(db, topo, &req, &run, counters, json, quiet);
out:
	il_counters_close(counters);
	if (have_run)
		il_run_release(&run);
	il_topo_close(topo);
	free(params_json);
	free(block);
	free(params);
	return code;
}
