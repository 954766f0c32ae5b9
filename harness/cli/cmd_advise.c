// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_advise.c - `idlelab advise --budget 'p99.99<=50us' --wake ipi`: per
 * machine of the dataset, the deepest set of idle states whose measured
 * wake latency (idle_sweep) meets the budget with its upper confidence
 * bound, and the settings to paste (analysis/advise.h).  Every
 * answer is a sentence, never an empty table: no cpuidle, too few
 * samples (and how many are needed), no state meets it, only POLL does.
 * Read-only, but for --map and --verify (cmd_advise_verify.c), which
 * measure into the database.
 *
 * With --map CAMPAIGN it first measures: `idlelab run CAMPAIGN --db DB
 * --resume` (data/campaigns/idle-map.yaml: the map), as a child process so
 * that the run keeps its own journal, signals and restore, then prints
 * the declared-against-measured table, then the advice: issue 24's one
 * command.
 */
#include "cli.h"
#include "cli_opts.h"
#include "cmd_advise.h"
#include "advise.h"
#include "analysis.h"
#include "err.h"
#include "store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char advise_usage[] =
	"usage: idlelab advise --budget 'pQ<=LIMIT' [--wake ipi|timer] [--db FILE]\n"
	"                      [--machine M] [--confidence C] [--format text|json]\n"
	"                      [--map CAMPAIGN [--scale F]]\n"
	"                      [--verify [--blocks N] [--samples N] [--seed S]\n"
	"                       [--idle-us LIST] [--cpus PLACEMENT]]\n\n"
	"For each machine, the deepest idle states whose measured idle_sweep wake\n"
	"latency meets the budget (its upper confidence bound, not just the\n"
	"estimate), and the settings that keep the machine to them.  --verify\n"
	"applies the advice here (restored afterwards) and confirms it against\n"
	"the current settings: exit 0 when the budget is met, 5 when not.\n\n";

/*
 * --map: `idlelab run CAMPAIGN --db DB --resume [--scale F]` in a child,
 * this same binary.  --resume makes a second call finish or reuse the
 * map instead of refusing it.  Return: 0, or the exit code to give.
 */
static int run_map(const struct adv_args *a)
{
	char *argv[] = { "idlelab", "run", (char *)a->map, "--db", (char *)a->db,
			 "--resume", "--quiet", a->scale ? "--scale" : NULL,
			 (char *)a->scale, NULL };
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return cli_error(IL_EXIT_FAIL, "advise: --map: fork: %s", strerror(errno));
	if (!pid) {
		/* The run's tally goes with its messages: stdout is the
		 * table and the advice (or the JSON) alone. */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execv("/proc/self/exe", argv);
		fprintf(stderr, "idlelab: advise: --map: cannot run idlelab: %s\n",
			strerror(errno));
		_exit(IL_EXIT_FAIL);
	}
	if (waitpid(pid, &status, 0) < 0)
		return cli_error(IL_EXIT_FAIL, "advise: --map: waitpid: %s", strerror(errno));
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	/* Its own message is on stderr; its code says what went wrong. */
	return cli_error(WIFEXITED(status) ? WEXITSTATUS(status) : IL_EXIT_FAIL,
			 "advise: --map: 'idlelab run %s' did not finish; no advice",
			 a->map);
}

/* The declared-against-measured table before the advice (text only). */
static int print_declared(struct il_store *store)
{
	struct il_analysis_opts ao = { .deciles = false };
	struct il_table *t = NULL;
	int ret = il_report_declared(store, &ao, &t);

	if (ret)
		return cli_error(IL_EXIT_FAIL, "advise: %s", il_errmsg());
	il_table_print(t, IL_FMT_MD, stdout);
	printf("\n");
	il_table_free(t);
	return 0;
}

/* The sentence of an answer. */
static void answer_text(const struct il_adv_machine *m,
			const struct il_budget *b, double conf,
			const char *wake, char *buf, size_t len)
{
	const struct il_advice *a = &m->advice;
	const struct il_adv_state *s = a->stop >= 0 ? &m->st[a->stop] : NULL;

	switch (a->answer) {
	case IL_ADV_NO_CPUIDLE:
		snprintf(buf, len, "no cpuidle states (%s), so there is no state to cap: the kernel idles in its default loop; 'idle=poll' on the kernel command line is the only lower-latency setting.",
			 m->why);
		break;
	case IL_ADV_TOO_FEW:
		snprintf(buf, len, "too few samples: %" PRIu64 " idle_sweep samples (wake=%s) entered %s alone; a bound on p%g at %g %% confidence needs at least %" PRIu64 ". Run: idlelab bench idle_sweep --param wake=%s --param samples=N, with N enough for %s to collect them.",
			 s->n, wake, s->name, b->q * 100, conf * 100,
			 a->need_n, wake, s->name);
		break;
	case IL_ADV_NONE_MEETS:
		snprintf(buf, len, "no state meets %s: even %s, the shallowest, is bounded at %.1f us. Capping idle states cannot meet this budget; look at the wake path (idlelab bench --causes).",
			 b->text, s->name, (double)s->ucb_ns / 1000);
		break;
	case IL_ADV_ONLY_POLL:
		snprintf(buf, len, "only POLL meets %s: every other state must be disabled (%s is bounded at %s).",
			 b->text, s->name, s->verdict == IL_ADV_FAILS ?
			 "above the budget" : "no bound: too few samples");
		break;
	case IL_ADV_CAP:
		snprintf(buf, len, "cap at %s: it and every shallower state meet %s; %s does not (%s).",
			 m->st[a->deepest].name, b->text, s->name,
			 s->verdict == IL_ADV_FAILS ? "its bound is above the budget" :
			 "too few samples to show it; it stays disabled until they do");
		break;
	case IL_ADV_ALL:
		snprintf(buf, len, "no cap needed: every state, %s the deepest, meets %s.",
			 m->st[a->deepest].name, b->text);
		break;
	}
}

static void print_text(const struct il_adv_machine *m, const struct il_budget *b,
		       double conf, const char *wake, json_t *set)
{
	char msg[768];
	json_t *v;
	size_t i;
	int k;

	printf("Machine %s (cpuidle driver %s), idle_sweep wake=%s: %" PRIu64 " runs, budget %s at %g %% confidence\n\n",
	       m->host, m->driver, wake, m->runs, b->text, conf * 100);
	if (m->nstates) {
		printf("| State | Declared latency (us) | Declared residency (us) | Samples | p%g (us) | Upper bound (us) | Verdict |\n",
		       b->q * 100);
		printf("|---|---:|---:|---:|---:|---:|---|\n");
	}
	for (k = 0; k < m->nstates; k++) {
		const struct il_adv_state *s = &m->st[k];
		char lat[24] = "unknown", res[24] = "unknown", pt[24] = "-",
		     ub[24] = "-", ver[64];

		if (s->latency_us >= 0)
			snprintf(lat, sizeof(lat), "%" PRId64, s->latency_us);
		if (s->residency_us >= 0)
			snprintf(res, sizeof(res), "%" PRId64, s->residency_us);
		if (s->n)
			snprintf(pt, sizeof(pt), "%.1f", (double)s->point_ns / 1000);
		if (s->has_ucb)
			snprintf(ub, sizeof(ub), "%.1f", (double)s->ucb_ns / 1000);
		if (s->need_n)
			snprintf(ver, sizeof(ver), "%s (needs %" PRIu64 ")",
				 il_adv_verdict_name(s->verdict), s->need_n);
		else
			snprintf(ver, sizeof(ver), "%s",
				 il_adv_verdict_name(s->verdict));
		printf("| %s | %s | %s | %" PRIu64 " | %s | %s | %s |\n",
		       s->name, lat, res, s->n, pt, ub, ver);
	}
	if (m->nstates)
		printf("\n");
	answer_text(m, b, conf, wake, msg, sizeof(msg));
	printf("Answer: %s\n", msg);
	if (m->ambiguous)
		printf("(%" PRIu64 " samples with more than one idle entry were left out: their state is not known.)\n",
		       m->ambiguous);
	if (!set) {
		printf("\n");
		return;
	}
	printf("\nSettings (any one of these):\n");
	v = json_object_get(set, "cpu_dma_latency_us");
	if (json_is_integer(v))
		printf("  PM QoS, whole system: hold %" JSON_INTEGER_FORMAT " (s32) open on /dev/cpu_dma_latency\n",
		       json_integer_value(v));
	v = json_object_get(set, "pm_qos_resume_latency_us");
	if (json_is_string(v))
		printf("  PM QoS, per CPU: echo %s | tee /sys/devices/system/cpu/cpu*/power/pm_qos_resume_latency_us\n",
		       json_string_value(v));
	json_array_foreach(json_object_get(set, "disable_cmds"), i, v)
		printf("  cpuidle %s: %s\n", i ? "      " : "disable", json_string_value(v));
	v = json_object_get(set, "tuned");
	if (json_is_string(v))
		printf("  tuned profile (tuned.conf):\n    %.*s\n    %s",
		       (int)strcspn(json_string_value(v), "\n"),
		       json_string_value(v),
		       strchr(json_string_value(v), '\n') + 1);
	v = json_object_get(set, "cmdline");
	if (json_is_string(v))
		printf("  kernel command line: %s\n", json_string_value(v));
	json_array_foreach(json_object_get(set, "notes"), i, v)
		printf("  note: %s\n", json_string_value(v));
	printf("\n");
}

static json_t *machine_json(const struct il_adv_machine *m,
			    const struct il_budget *b, double conf,
			    const char *wake, json_t *set)
{
	json_t *o = json_object(), *sts = json_array();
	char msg[768];
	int k;

	for (k = 0; k < m->nstates; k++) {
		const struct il_adv_state *s = &m->st[k];

		json_array_append_new(sts, json_pack("{s:s, s:i, s:o, s:o, s:I, s:o, s:o, s:s, s:o}",
			"name", s->name, "index", s->index,
			"latency_us", s->latency_us >= 0 ? json_integer(s->latency_us) : json_null(),
			"residency_us", s->residency_us >= 0 ? json_integer(s->residency_us) : json_null(),
			"samples", (json_int_t)s->n,
			"quantile_ns", s->n ? json_integer((json_int_t)s->point_ns) : json_null(),
			"upper_bound_ns", s->has_ucb ? json_integer((json_int_t)s->ucb_ns) : json_null(),
			"verdict", il_adv_verdict_name(s->verdict),
			"needs_samples", s->need_n ? json_integer((json_int_t)s->need_n) : json_null()));
	}
	answer_text(m, b, conf, wake, msg, sizeof(msg));
	json_object_set_new(o, "machine", json_string(m->host));
	json_object_set_new(o, "machine_uuid", json_string(m->uuid));
	json_object_set_new(o, "driver", json_string(m->driver));
	json_object_set_new(o, "wake", json_string(wake));
	json_object_set_new(o, "budget", json_string(b->text));
	json_object_set_new(o, "quantile", json_real(b->q));
	json_object_set_new(o, "limit_ns", json_integer((json_int_t)b->limit_ns));
	json_object_set_new(o, "confidence", json_real(conf));
	json_object_set_new(o, "runs", json_integer((json_int_t)m->runs));
	json_object_set_new(o, "ambiguous_samples",
			    json_integer((json_int_t)m->ambiguous));
	json_object_set_new(o, "states", sts);
	json_object_set_new(o, "answer",
			    json_string(il_adv_answer_name(m->advice.answer)));
	json_object_set_new(o, "deepest", m->advice.deepest >= 0 ?
			    json_string(m->st[m->advice.deepest].name) : json_null());
	json_object_set_new(o, "needs_samples", m->advice.need_n ?
			    json_integer((json_int_t)m->advice.need_n) : json_null());
	json_object_set_new(o, "message", json_string(msg));
	json_object_set_new(o, "settings", set ? json_incref(set) : json_null());
	return o;
}

static int advise_print(struct il_adv_machine *v, int n,
			const struct il_budget *b, double conf,
			const struct adv_args *a, json_t *verify)
{
	bool json = !strcmp(a->format, "json");
	json_t *all = json_array(), *set;
	int i;

	for (i = 0; i < n; i++) {
		set = il_advise_settings(v[i].st, v[i].nstates, v[i].driver,
					 &v[i].advice);
		if (json) {
			json_t *o = machine_json(&v[i], b, conf, a->wake, set);

			/* --verify has one machine: its verdict goes with it. */
			if (verify)
				json_object_set(o, "verify", verify);
			json_array_append_new(all, o);
		}
		else
			print_text(&v[i], b, conf, a->wake, set);
		json_decref(set);
	}
	if (json)
		json_dumpf(all, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	if (json)
		printf("\n");
	json_decref(all);
	return IL_EXIT_OK;
}

/* A whole number in [@lo, @hi], for --verify's numeric options. */
static bool verify_num(const char *s, unsigned long long lo,
		       unsigned long long hi)
{
	unsigned long long v;
	char *end;

	if (!s)
		return true;
	errno = 0;
	v = strtoull(s, &end, 10);
	return end != s && !*end && !errno && *s != '-' && v >= lo && v <= hi;
}

static int verify_args(const struct adv_args *a)
{
	if (!verify_num(a->blocks, 1, 1000))
		return cli_usage_error("advise: --blocks '%s': expected a whole number from 1 to 1000", a->blocks);
	if (!verify_num(a->samples, 1, 100000000))
		return cli_usage_error("advise: --samples '%s': expected a whole number from 1", a->samples);
	if (!verify_num(a->seed, 0, UINT64_MAX))
		return cli_usage_error("advise: --seed '%s': expected a whole number", a->seed);
	/* Both go into a generated YAML file: no quote may end the value. */
	if ((a->idle_us && strpbrk(a->idle_us, "\"\\\n")) ||
	    strpbrk(a->cpus, "\"\\\n"))
		return cli_usage_error("advise: --idle-us and --cpus take no quotes, backslashes or newlines");
	return 0;
}

/*
 * The advice, then the confirmation campaign; in json one document with
 * the verdict inside the machine's object.  Frees @v.
 */
static int advise_then_verify(const struct adv_args *a,
			      struct il_adv_machine *v,
			      const struct il_budget *b, double conf)
{
	json_t *verify = NULL;
	int ret, code;

	if (strcmp(a->format, "json"))
		advise_print(v, 1, b, conf, a, NULL);
	code = advise_verify(a, v, b, conf, &verify);
	if (verify && !strcmp(a->format, "json")) {
		ret = advise_print(v, 1, b, conf, a, verify);
		if (ret)
			code = ret;
	}
	json_decref(verify);
	free(v);
	return code;
}

int cmd_advise(int argc, char **argv)
{
	struct adv_args a = { NULL, "ipi", cli_default_db(), NULL, "0.95",
			      "text", NULL, NULL, false, NULL, "3000", NULL,
			      NULL, "pairs:0-1" };
	const struct cli_option options[] = {
		CLI_STRING('b', "budget", &a.budget, "BUDGET",
			   "the budget, pQ<=LIMIT[ns|us|ms], e.g. 'p99.99<=50us' (required)"),
		CLI_STRING('w', "wake", &a.wake, "SRC",
			   "the wake source measured: ipi (default) or timer"),
		CLI_STRING('d', "db", &a.db, "FILE",
			   "database (default $IDLELAB_DB or ./idlelab.db)"),
		CLI_STRING('m', "machine", &a.machine, "M",
			   "only the machine of this hostname or UUID prefix"),
		CLI_STRING('c', "confidence", &a.conf, "C",
			   "confidence of the upper bound, 0.5 to 0.999 (default 0.95)"),
		CLI_STRING('f', "format", &a.format, "FMT",
			   "text (default) or json"),
		CLI_STRING('M', "map", &a.map, "CAMPAIGN",
			   "first run the map campaign into the database (idlelab run CAMPAIGN --resume), then print the declared table and the advice"),
		CLI_STRING('s', "scale", &a.scale, "F",
			   "with --map: the campaign's --scale"),
		CLI_FLAG('V', "verify", &a.verify,
			 "apply the advice here and confirm it: randomised blocks of idle_sweep, advised against current settings, all restored afterwards"),
		CLI_STRING('B', "blocks", &a.blocks, "N",
			   "with --verify: blocks, each one run per arm (default 3)"),
		CLI_STRING('n', "samples", &a.samples, "N",
			   "with --verify: idle_sweep samples per idle time and run (default 3000)"),
		CLI_STRING('S', "seed", &a.seed, "S",
			   "with --verify: the seed of the arms' order (default: the clock; printed)"),
		CLI_STRING('i', "idle-us", &a.idle_us, "LIST",
			   "with --verify: idle_sweep's idle times (default its own list)"),
		CLI_STRING('C', "cpus", &a.cpus, "PLACEMENT",
			   "with --verify: idle_sweep's placement (default pairs:0-1)"),
		CLI_END
	};
	const struct cli_command cmd = { "advise", advise_usage, options };
	struct il_adv_machine *v;
	struct il_store *store;
	struct il_budget b;
	double conf;
	char *end;
	int n, ret;

	ret = cli_parse_options_only(&cmd, argc, argv);
	if (ret != CLI_CONTINUE)
		return ret;
	if (!a.budget)
		return cli_usage_error("advise: --budget is required, e.g. --budget 'p99.99<=50us'");
	if (il_budget_parse(a.budget, &b))
		return cli_usage_error("advise: %s", il_errmsg());
	if (strcmp(a.wake, "ipi") && strcmp(a.wake, "timer"))
		return cli_usage_error("advise: --wake: unknown wake source '%s' (use ipi or timer)", a.wake);
	if (strcmp(a.format, "text") && strcmp(a.format, "json"))
		return cli_usage_error("advise: --format: unknown format '%s' (use text or json)", a.format);
	conf = strtod(a.conf, &end);
	if (end == a.conf || *end || conf < 0.5 || conf > 0.999)
		return cli_usage_error("advise: --confidence '%s': expected a number from 0.5 to 0.999", a.conf);
	if (a.scale && !a.map)
		return cli_usage_error("advise: --scale needs --map");
	if (!a.verify && (a.blocks || a.seed || a.idle_us ||
			  strcmp(a.samples, "3000") || strcmp(a.cpus, "pairs:0-1")))
		return cli_usage_error("advise: --blocks, --samples, --seed, --idle-us and --cpus need --verify");
	if (a.verify && (ret = verify_args(&a)))
		return ret;
	if (a.map && access(a.map, R_OK))
		return cli_usage_error("advise: --map: %s: %s", a.map, strerror(errno));
	if (a.map && (ret = run_map(&a)))
		return ret;
	ret = il_store_open(a.db, IL_STORE_READONLY, &store);
	if (ret)
		return cli_usage_error("advise: %s", il_errmsg());
	if (a.map && !strcmp(a.format, "text") && (ret = print_declared(store))) {
		il_store_close(store);
		return ret;
	}
	n = il_advise_machines(store, a.machine, a.wake, &b, conf, &v);
	il_store_close(store);
	if (n < 0)
		return cli_error(IL_EXIT_FAIL, "advise: %s", il_errmsg());
	if (!n && a.machine) {
		free(v);
		return cli_usage_error("advise: %s", il_errmsg());
	}
	if (!n) {
		free(v);
		return cli_error(IL_EXIT_FAIL, "advise: %s holds no measured machine: run 'idlelab bench idle_sweep --param wake=%s' first",
				 a.db, a.wake);
	}
	if (a.verify && n > 1) {
		free(v);
		return cli_usage_error("advise: --verify: %s holds %d machines: name this one with --machine",
				       a.db, n);
	}
	if (a.verify)
		return advise_then_verify(&a, v, &b, conf);
	ret = advise_print(v, n, &b, conf, &a, NULL);
	free(v);
	return ret;
}
