// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_advise_verify.c - `idlelab advise --verify`: confirm the advice on
 * this machine.  Two generated campaigns hold the arms, one idle_sweep
 * group per block: "advised" with environment cpuidle_only set to the
 * advised states, "current" with no environment.  Block by block, in an
 * order drawn from --seed, each arm runs as `idlelab run FILE --only bK
 * --resume`, a child process of this same binary, so that envctl's
 * journal, its lock, its signal handling and its restore are the
 * campaign runner's own, unchanged: the advised setting is applied for
 * one run and restored before the other arm's.  Then the budget's
 * quantile and its upper bound are read per arm (advise_verify.c).
 *
 * A child runs in its own process group, so a Ctrl-C reaches it once,
 * forwarded from here (a second one would kill it mid-restore).  A child
 * that dies by a signal anyway leaves its journal, replayed here at once.
 */
#include "cli.h"
#include "cmd_advise.h"
#include "advise.h"
#include "envctl.h"
#include "err.h"
#include "splitmix.h"
#include "store.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t vf_signal;
static volatile pid_t vf_child;

static void vf_on_signal(int sig)
{
	vf_signal = sig;
	if (vf_child > 0)
		kill(vf_child, SIGTERM);
}

static void vf_signals(bool on)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on ? vf_on_signal : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* One arm's campaign file: a group per block; the environment if any. */
static int vf_write(const char *path, const char *name, const char *only,
		    const struct adv_args *a, int blocks)
{
	FILE *f = fopen(path, "w");
	int k;

	if (!f)
		return cli_error(IL_EXIT_FAIL, "advise: --verify: %s: %s", path,
				 strerror(errno));
	fprintf(f, "name: %s\ndescription: advise --verify arm, %s\n", name,
		only ? "advised idle states" : "current settings");
	if (only)
		fprintf(f, "environment:\n  cpuidle_only: [%s]\n", only);
	fprintf(f, "groups:\n");
	for (k = 1; k <= blocks; k++) {
		fprintf(f, "  - bench: idle_sweep\n    name: b%d\n    cpus: \"%s\"\n"
			"    params:\n      wake: %s\n      samples: %s\n",
			k, a->cpus, a->wake, a->samples);
		if (a->idle_us)
			fprintf(f, "      idle_us: \"%s\"\n", a->idle_us);
	}
	if (fclose(f))
		return cli_error(IL_EXIT_FAIL, "advise: --verify: %s: %s", path,
				 strerror(errno));
	return 0;
}

/* `idlelab run FILE --db DB --resume --quiet --only bK`.  Return: its code. */
static int vf_run(const struct adv_args *a, const char *file, int block)
{
	char only[16];
	char *argv[] = { "idlelab", "run", (char *)file, "--db", (char *)a->db,
			 "--resume", "--quiet", "--only", only, NULL };
	int status, code;
	pid_t pid;

	snprintf(only, sizeof(only), "b%d", block);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return cli_error(IL_EXIT_FAIL, "advise: --verify: fork: %s", strerror(errno));
	if (!pid) {
		setpgid(0, 0);
		vf_signals(false);
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execv("/proc/self/exe", argv);
		fprintf(stderr, "idlelab: advise: --verify: cannot run idlelab: %s\n",
			strerror(errno));
		_exit(IL_EXIT_FAIL);
	}
	vf_child = pid;
	if (vf_signal)
		kill(pid, SIGTERM);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			vf_child = 0;
			return cli_error(IL_EXIT_FAIL, "advise: --verify: waitpid: %s",
					 strerror(errno));
		}
	vf_child = 0;
	if (WIFEXITED(status))
		code = WEXITSTATUS(status);
	else
		code = vf_signal ? IL_EXIT_INTERRUPTED : IL_EXIT_FAIL;
	/* Killed outright, it could not restore: its journal can. */
	if (il_envctl_journal_pending() && cli_envctl_recover("advise"))
		code = IL_EXIT_FAIL;
	return code;
}

/* Every block, each arm once, in the seeded order.  Return: an exit code. */
static int vf_blocks(const struct adv_args *a, char files[2][4200], int blocks,
		     uint64_t seed)
{
	static const char *const arm[] = { "advised", "current" };
	uint64_t state = seed;
	int k, i, first, code;

	vf_signals(true);
	for (k = 1; k <= blocks; k++) {
		first = (int)(il_splitmix64(&state) & 1);
		for (i = 0; i < 2; i++) {
			int w = i ? !first : first;

			if (vf_signal)
				break;
			fprintf(stderr, "idlelab: advise: --verify: block %d of %d: %s\n",
				k, blocks, arm[w]);
			code = vf_run(a, files[w], k);
			if (code || vf_signal) {
				vf_signals(false);
				if (vf_signal || code == IL_EXIT_INTERRUPTED)
					return cli_error(IL_EXIT_INTERRUPTED,
							 "advise: --verify: stopped by a signal in block %d (%s); every setting is restored",
							 k, arm[w]);
				return cli_error(code, "advise: --verify: block %d (%s): 'idlelab run %s' failed; no verdict",
						 k, arm[w], files[w]);
			}
		}
	}
	vf_signals(false);
	return vf_signal ? cli_error(IL_EXIT_INTERRUPTED,
				     "advise: --verify: stopped by a signal; every setting is restored") :
			   IL_EXIT_OK;
}

/* "POLL, C1": the states the advice allows, for cpuidle_only. */
static void vf_allowed(const struct il_adv_machine *m, char *buf, size_t len)
{
	size_t used = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k <= m->advice.deepest && used < len; k++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 k ? ", " : "", m->st[k].name);
}

static json_t *arm_json(const struct il_adv_arm *x)
{
	return json_pack("{s:I, s:I, s:o, s:o, s:s, s:o}",
		"runs", (json_int_t)x->runs, "samples", (json_int_t)x->n,
		"quantile_ns", x->n ? json_integer((json_int_t)x->point_ns) : json_null(),
		"upper_bound_ns", x->has_ucb ? json_integer((json_int_t)x->ucb_ns) : json_null(),
		"verdict", il_adv_check_name(x->check),
		"needs_samples", x->need_n ? json_integer((json_int_t)x->need_n) : json_null());
}

static void arm_row(const char *name, const struct il_adv_arm *x)
{
	char pt[24] = "-", ub[24] = "-";

	if (x->n)
		snprintf(pt, sizeof(pt), "%.1f", (double)x->point_ns / 1000);
	if (x->has_ucb)
		snprintf(ub, sizeof(ub), "%.1f", (double)x->ucb_ns / 1000);
	printf("| %s | %" PRIu64 " | %" PRIu64 " | %s | %s | %s |\n", name,
	       x->runs, x->n, pt, ub, il_adv_check_name(x->check));
}

/* The verdict sentence, by the advised arm alone. */
static void vf_sentence(const struct il_adv_arm *x, const struct il_budget *b,
			double conf, char *buf, size_t len)
{
	if (x->check == IL_ADV_CHECK_MET)
		snprintf(buf, len, "budget met: under the advised setting p%g is bounded at %.1f us, within %s (%g %% confidence).",
			 b->q * 100, (double)x->ucb_ns / 1000, b->text, conf * 100);
	else if (x->check == IL_ADV_CHECK_NOT_MET)
		snprintf(buf, len, "budget NOT met: under the advised setting p%g is %s %.1f us, above %s.",
			 b->q * 100, x->has_ucb ? "bounded at" : "estimated at",
			 (double)(x->has_ucb ? x->ucb_ns : x->point_ns) / 1000,
			 b->text);
	else
		snprintf(buf, len, "budget not shown: %" PRIu64 " samples under the advised setting; a bound on p%g at %g %% confidence needs at least %" PRIu64 " (raise --blocks or --samples).",
			 x->n, b->q * 100, conf * 100, x->need_n);
}

/* Read both arms and print them.  Return: 0 met, IL_EXIT_NOT_MET, or 1. */
static int vf_report(const struct adv_args *a, const struct vf_result *r,
		     const struct il_budget *b, double conf, json_t **out)
{
	struct il_adv_arm x[2];
	struct il_store *s;
	char msg[512];
	int ret, i;

	ret = il_store_open(a->db, IL_STORE_READONLY, &s);
	if (ret)
		return cli_error(IL_EXIT_FAIL, "advise: --verify: %s", il_errmsg());
	for (i = 0; !ret && i < 2; i++)
		ret = il_advise_arm_load(s, r->name[i], b, conf, &x[i]);
	il_store_close(s);
	if (ret)
		return cli_error(IL_EXIT_FAIL, "advise: --verify: %s", il_errmsg());
	vf_sentence(&x[0], b, conf, msg, sizeof(msg));
	*out = json_pack("{s:s, s:I, s:i, s:s, s:s, s:o, s:o, s:s, s:s}",
			 "allowed", r->allowed, "seed", (json_int_t)r->seed,
			 "blocks", r->blocks, "campaign_advised", r->name[0],
			 "campaign_current", r->name[1],
			 "advised", arm_json(&x[0]), "current", arm_json(&x[1]),
			 "verdict", il_adv_check_name(x[0].check),
			 "message", msg);
	if (strcmp(a->format, "json")) {
		printf("Verify: %d block%s of idle_sweep wake=%s, advised (cpuidle states %s) against current, in random order (seed %" PRIu64 "); every setting restored.\n\n",
		       r->blocks, r->blocks == 1 ? "" : "s", a->wake, r->allowed,
		       r->seed);
		printf("| Arm | Runs | Samples | p%g (us) | Upper bound (us) | Verdict |\n",
		       b->q * 100);
		printf("|---|---:|---:|---:|---:|---|\n");
		arm_row("advised", &x[0]);
		arm_row("current", &x[1]);
		printf("\nVerdict: %s\n", msg);
	}
	return x[0].check == IL_ADV_CHECK_MET ? IL_EXIT_OK : IL_EXIT_NOT_MET;
}

int advise_verify(const struct adv_args *a, const struct il_adv_machine *m,
		  const struct il_budget *b, double conf, json_t **out)
{
	char files[2][4200];
	const char *tmp = getenv("TMPDIR");
	struct vf_result r = { 0 };
	char tdir[4096];
	int code, i;

	*out = NULL;
	if (m->advice.answer != IL_ADV_CAP && m->advice.answer != IL_ADV_ONLY_POLL &&
	    m->advice.answer != IL_ADV_ALL)
		return cli_error(IL_EXIT_UNSUPPORTED, "advise: --verify: machine %s: the answer is %s: no setting to apply and confirm",
				 m->host, il_adv_answer_name(m->advice.answer));
	r.seed = a->seed ? strtoull(a->seed, NULL, 10) : (uint64_t)time(NULL);
	r.blocks = a->blocks ? atoi(a->blocks) : 3;
	vf_allowed(m, r.allowed, sizeof(r.allowed));
	snprintf(r.name[0], sizeof(r.name[0]), "advise-verify-%" PRIu64 "-advised", r.seed);
	snprintf(r.name[1], sizeof(r.name[1]), "advise-verify-%" PRIu64 "-current", r.seed);
	snprintf(tdir, sizeof(tdir), "%s/idlelab-verify-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tdir))
		return cli_error(IL_EXIT_FAIL, "advise: --verify: mkdtemp: %s", strerror(errno));
	for (i = 0; i < 2; i++)
		snprintf(files[i], sizeof(files[i]), "%s/%s.yaml", tdir, r.name[i]);
	code = vf_write(files[0], r.name[0],
			m->advice.answer == IL_ADV_ALL ? NULL : r.allowed, a,
			r.blocks);
	if (!code)
		code = vf_write(files[1], r.name[1], NULL, a, r.blocks);
	if (!code)
		code = vf_blocks(a, files, r.blocks, r.seed);
	for (i = 0; i < 2; i++)
		unlink(files[i]);
	rmdir(tdir);
	if (code)
		return code;
	return vf_report(a, &r, b, conf, out);
}
