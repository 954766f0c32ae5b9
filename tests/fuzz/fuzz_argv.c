// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_argv.c - a command line through the CLI's option table
 * (harness/cli/cli_opts.c) and on into what `idlelab bench` does with it
 * before anything is stored: the input is argv, its words separated by
 * NUL bytes.  The table is bench's (the command with the most kinds of
 * option: strings, flags, a repeated callback); the operand names the
 * benchmark, the --param strings are parsed with the benchmark's own
 * option table (il_opts_parse_kvs(), as cmd_bench does), and the block
 * and the --cpus spec go through il_run_prepare(), which runs its check
 * op, against a fixed synthetic topology.
 * Counters are left off (events "none"): opening them is not parsing.
 */
#include "fuzz.h"
#include "bench_registry.h"
#include "cli.h"
#include "cli_opts.h"
#include "counters.h"
#include "run_execute.h"
#include "topo.h"

#include <string.h>

#define MAX_ARGS 64

struct params {
	const char *kv[MAX_ARGS];
	int n;
};

static int add_param(const struct cli_option *opt, const char *arg)
{
	struct params *p = opt->value;

	if (p->n < MAX_ARGS)
		p->kv[p->n++] = arg;
	return 0;
}

static struct il_topo *topo;

static void prepare(const char *name, const char *cpus, const struct params *p)
{
	struct il_run_request req = {
		.plan_index = -1,
		.cpus = cpus,
		.events = IL_EVENTS_NONE,
	};
	struct il_counters *counters = NULL;
	struct il_run run;
	void *blk;

	req.ops = il_bench_find(name);
	if (!req.ops) {
		(void)il_bench_suggest(name);
		return;
	}
	/* As cmd_bench does: the strings into the typed block first. */
	blk = calloc(1, req.ops->params_size ? req.ops->params_size : 1);
	if (!blk)
		return;
	if (il_opts_parse_kvs(req.ops->opts, blk, p->kv, p->n)) {
		free(blk);
		return;
	}
	req.block = blk;
	memset(&run, 0, sizeof(run));
	(void)il_run_prepare(topo, &req, &run, &counters);
	il_run_release(&run);
	if (counters)
		il_counters_close(counters);
	free(blk);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *words = malloc(size + 1), *argv[MAX_ARGS + 2];
	const char *cpus = NULL, *db = NULL, *events = NULL, *backend = NULL;
	bool raw = false, json = false, quiet = false;
	struct params p = { .n = 0 };
	const struct cli_option options[] = {
		CLI_STRING('c', "cpus", &cpus, "SPEC", "placement"),
		CLI_CALLBACK('p', "param", &p, "K=V", "a parameter", add_param),
		CLI_STRING('e', "events", &events, "LIST", "counter events"),
		CLI_STRING(0, "counters", &backend, "NAME", "counter backend"),
		CLI_STRING('d', "db", &db, "FILE", "database"),
		CLI_FLAG('r', "raw", &raw, "raw samples"),
		CLI_FLAG('j', "json", &json, "JSON"),
		CLI_FLAG('q', "quiet", &quiet, "quiet"),
		CLI_END
	};
	const struct cli_command cmd = { "bench", "usage: fuzz\n\n", options };
	int argc = 1, argi;
	size_t i, start = 0;

	if (!words)
		return 0;
	if (!topo && il_topo_open_synthetic("pack:2 core:2 pu:2", &topo))
		fuzz_fail("cannot open the synthetic topology");
	memcpy(words, data, size);
	words[size] = '\0';
	argv[0] = "bench";
	for (i = 0; i <= size && argc <= MAX_ARGS; i++) {
		if (words[i])
			continue;
		argv[argc++] = words + start;
		start = i + 1;
	}
	argv[argc] = NULL;
	if (cli_parse_options(&cmd, argc, argv, &argi) == CLI_CONTINUE &&
	    argi == argc - 1)
		prepare(argv[argi], cpus, &p);
	free(words);
	return 0;
}
