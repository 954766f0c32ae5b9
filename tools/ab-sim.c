// SPDX-License-Identifier: GPL-2.0-only
/*
 * ab-sim.c - synthetic A/B campaigns, run through the statistics of the
 * A/B table, to measure how often its intervals cover the truth (issue
 * 12).  Built by the Makefile as $(BUILD)/tools/ab-sim.
 *
 * One campaign: two arms of R runs each, run in time order AAA..BBB
 * (--order sequential) or ABAB (--order interleaved, the default).  Run r
 * has a random offset o_r ~ N(0, run_sd) and a drift of drift * t / T at
 * its place t of T in time; within a run the samples are AR(1):
 *
 *   e_0 ~ N(0, noise_sd),  e_t = phi e_{t-1} + sqrt(1 - phi^2) N(0, noise_sd)
 *   sample = base * exp(shift_arm + o_r + drift_r + e_t)   (ns, rounded)
 *
 * with shift_B = log(1 + shift / 100) and shift_A = 0, so the true ratio
 * of B to A is 1 + shift / 100 for every statistic of the lognormal.
 * Each run is recorded as the benchmarks record one (il_series_add():
 * the exact summary and the 0.1 % histogram), and each run's value comes
 * from il_ab_run_stat() and the comparison from il_ab_compare(): the very
 * functions analysis/compare.c calls on the runs it reads from a database.
 *
 * For each statistic (median, p99, mean) it counts how often the 95 %
 * interval covers the true shift, and how often the table would call the
 * change (interval excludes 0; one row, so Holm changes nothing).  With
 * --bootstrap B it also runs the old method, the pooled-sample bootstrap
 * of the merged histograms (il_ab_pooled_bootstrap()), on the median.
 *
 * --db FILE writes the first campaign into a SQLite dataset instead (arm
 * in runs.params as "arm": "A"/"B", the campaign's run order in start_ns),
 * so that `idlelab report --compare params.arm=A --compare params.arm=B`
 * shows the same campaign.
 */
#include "ab.h"
#include "ab_bootstrap.h"
#include "err.h"
#include "series.h"
#include "splitmix.h"
#include "store.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cfg {
	int campaigns, runs, samples, bootstrap;
	double base, shift, run_sd, noise_sd, phi, drift;
	bool interleaved;
	uint64_t seed;
	const char *db;
};

static double unit_open(uint64_t *x)
{
	return ((il_splitmix64(x) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double gauss(uint64_t *x)
{
	double u1 = unit_open(x), u2 = unit_open(x);

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* Run @t (0-based in time) of @nt, of arm @b (0 A, 1 B): one series. */
static struct il_series *sim_run(const struct cfg *c, uint64_t *rng, int b,
				 int t, int nt)
{
	struct il_series *s = il_series_new("wake_latency", "ns", 1, -1, -1,
					    false, false);
	double lvl, e, a = sqrt(1 - c->phi * c->phi);
	int i;

	if (!s)
		return NULL;
	lvl = log(c->base) + (b ? log1p(c->shift / 100) : 0) +
	      c->run_sd / 100 * gauss(rng) +
	      (nt > 1 ? c->drift / 100 * t / (nt - 1) : 0);
	e = c->noise_sd / 100 * gauss(rng);
	for (i = 0; i < c->samples; i++) {
		if (i)
			e = c->phi * e + a * c->noise_sd / 100 * gauss(rng);
		il_series_add(s, (uint64_t)llround(exp(lvl + e)));
	}
	return s;
}

/* The time slot of run @r of arm @b. */
static int slot(const struct cfg *c, int b, int r)
{
	return c->interleaved ? 2 * r + b : b * c->runs + r;
}

struct tally {
	int cover[IL_AB_NSTATS], detect[IL_AB_NSTATS], no_ci[IL_AB_NSTATS];
	int boot_cover, boot_detect;
};

static int one_campaign(const struct cfg *c, uint64_t *rng, struct tally *t)
{
	struct il_series **s = calloc(2 * c->runs, sizeof(*s));
	double *v = calloc(2 * c->runs, sizeof(double)), truth = c->shift;
	int b, r, st, ret = 0;

	if (!s || !v) {
		ret = -ENOMEM;
		goto out;
	}
	/* Generate in time order, so the stream does not depend on --order
	 * through anything but the slots. */
	for (r = 0; r < 2 * c->runs; r++) {
		int arm = c->interleaved ? r % 2 : r / c->runs;
		int k = c->interleaved ? r / 2 : r % c->runs;

		s[arm * c->runs + k] = sim_run(c, rng, arm, slot(c, arm, k), 2 * c->runs);
		if (!s[arm * c->runs + k]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (st = 0; st < IL_AB_NSTATS; st++) {
		struct il_ab_result res;

		for (b = 0; b < 2; b++)
			for (r = 0; r < c->runs; r++)
				v[b * c->runs + r] = il_ab_run_stat(st, s[b * c->runs + r]->hist,
								    &s[b * c->runs + r]->sum);
		ret = il_ab_compare(v, c->runs, v + c->runs, c->runs, 0.95, 0, &res);
		if (ret)
			goto out;
		if (!res.s.ci_ok) {
			t->no_ci[st]++;
			continue;
		}
		t->cover[st] += res.lo_pct <= truth && res.hi_pct >= truth;
		t->detect[st] += res.lo_pct > 0 || res.hi_pct < 0;
	}
	if (c->bootstrap) {
		struct il_hist *h[2] = { il_hist_new(), il_hist_new() };
		double med[2], mean[2];

		for (b = 0; b < 2 && h[b]; b++)
			for (r = 0; r < c->runs; r++)
				il_hist_merge(h[b], s[b * c->runs + r]->hist);
		ret = h[0] && h[1] ? il_ab_pooled_bootstrap(h[0], h[1], il_splitmix64(rng),
							   c->bootstrap, med, mean) : -ENOMEM;
		il_hist_free(h[0]);
		il_hist_free(h[1]);
		if (ret)
			goto out;
		t->boot_cover += med[0] <= truth && med[1] >= truth;
		t->boot_detect += med[0] > 0 || med[1] < 0;
	}
out:
	for (r = 0; s && r < 2 * c->runs; r++)
		il_series_free(s[r]);
	free(s);
	free(v);
	return ret;
}

/* The first campaign into @c->db, one stored run per simulated run. */
static int write_db(const struct cfg *c, uint64_t *rng)
{
	static const char machine[] = "5e5e5e5e-0000-4000-8000-000000000001";
	struct il_store *st;
	int r, ret;

	ret = il_store_open(c->db, IL_STORE_CREATE, &st);
	if (ret)
		return ret;
	ret = il_store_put_machine(st, machine, "ab-sim", "{\"cpu\":{\"model\":\"simulated\"}}", NULL);
	for (r = 0; !ret && r < 2 * c->runs; r++) {
		int arm = c->interleaved ? r % 2 : r / c->runs;
		struct il_series *s = sim_run(c, rng, arm, r, 2 * c->runs);
		struct il_run_rec rec = { 0 };

		if (!s)
			return -ENOMEM;
		snprintf(rec.uuid, sizeof(rec.uuid), "5e5e5e5e-0000-4000-8000-1%011d", r);
		snprintf(rec.machine_uuid, sizeof(rec.machine_uuid), "%s", machine);
		rec.bench = "timer_wake";
		rec.params_json = arm ? "{\"arm\":\"B\"}" : "{\"arm\":\"A\"}";
		rec.placement = "1";
		rec.cpus_json = "[1]";
		rec.plan_index = -1;
		rec.start_ns = 1800000000000000000ULL + (uint64_t)r * 1000000000ULL;
		rec.end_ns = rec.start_ns + 500000000ULL;
		rec.status = "ok";
		rec.tool_version = "ab-sim";
		rec.cmdline = "ab-sim";
		rec.nseries = 1;
		rec.series = &s;
		ret = il_store_save_run(st, &rec);
		il_series_free(s);
	}
	il_store_close(st);
	return ret;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ab-sim [--campaigns N] [--runs R] [--samples S] [--shift PCT]\n"
		"              [--run-sd PCT] [--noise-sd PCT] [--phi F] [--drift PCT]\n"
		"              [--order interleaved|sequential] [--seed N]\n"
		"              [--bootstrap B] [--db FILE]\n");
}

static int parse(int argc, char **argv, struct cfg *c)
{
	static const struct option lo[] = {
		{ "campaigns", 1, NULL, 'c' }, { "runs", 1, NULL, 'r' },
		{ "samples", 1, NULL, 'n' }, { "shift", 1, NULL, 's' },
		{ "run-sd", 1, NULL, 'R' }, { "noise-sd", 1, NULL, 'N' },
		{ "phi", 1, NULL, 'p' }, { "drift", 1, NULL, 'd' },
		{ "order", 1, NULL, 'o' }, { "seed", 1, NULL, 'S' },
		{ "bootstrap", 1, NULL, 'b' }, { "db", 1, NULL, 'D' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (ch) {
		case 'c': c->campaigns = atoi(optarg); break;
		case 'r': c->runs = atoi(optarg); break;
		case 'n': c->samples = atoi(optarg); break;
		case 's': c->shift = atof(optarg); break;
		case 'R': c->run_sd = atof(optarg); break;
		case 'N': c->noise_sd = atof(optarg); break;
		case 'p': c->phi = atof(optarg); break;
		case 'd': c->drift = atof(optarg); break;
		case 'S': c->seed = strtoull(optarg, NULL, 0); break;
		case 'b': c->bootstrap = atoi(optarg); break;
		case 'D': c->db = optarg; break;
		case 'o':
			if (strcmp(optarg, "interleaved") && strcmp(optarg, "sequential"))
				return -1;
			c->interleaved = !strcmp(optarg, "interleaved");
			break;
		default:
			return -1;
		}
	}
	if (optind != argc || c->campaigns < 1 || c->runs < 1 || c->samples < 1 ||
	    c->phi < 0 || c->phi >= 1 || c->run_sd < 0 || c->noise_sd < 0 ||
	    c->bootstrap < 0 || c->shift <= -100)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct cfg c = {
		.campaigns = 1000, .runs = 10, .samples = 2000, .base = 13000,
		.run_sd = 3, .noise_sd = 10, .phi = 0.9, .interleaved = true,
		.seed = 1,
	};
	struct tally t;
	uint64_t rng;
	int i, st, ret = 0;

	if (parse(argc, argv, &c)) {
		usage();
		return 2;
	}
	memset(&t, 0, sizeof(t));
	rng = c.seed;
	if (c.db) {
		ret = write_db(&c, &rng);
		if (ret)
			fprintf(stderr, "ab-sim: %s: %s\n", c.db, il_errmsg());
		return ret ? 1 : 0;
	}
	for (i = 0; !ret && i < c.campaigns; i++)
		ret = one_campaign(&c, &rng, &t);
	if (ret) {
		fprintf(stderr, "ab-sim: %s\n", il_errmsg());
		return 1;
	}
	printf("# %d campaigns, %d runs per arm (%s), %d samples per run; true shift %+g %%;\n"
	       "# run offset sd %g %%, AR(1) phi %g with sd %g %%, drift %g %% over a campaign; seed %" PRIu64 "\n",
	       c.campaigns, c.runs, c.interleaved ? "interleaved" : "sequential",
	       c.samples, c.shift, c.run_sd, c.phi, c.noise_sd, c.drift, c.seed);
	printf("%-24s %10s %10s %8s\n", "method", "coverage", "detected", "no CI");
	for (st = 0; st < IL_AB_NSTATS; st++) {
		char name[32];

		snprintf(name, sizeof(name), "run-level %s", il_ab_stat_name(st));
		printf("%-24s %9.1f%% %9.1f%% %8d\n", name,
		       100.0 * t.cover[st] / c.campaigns,
		       100.0 * t.detect[st] / c.campaigns, t.no_ci[st]);
	}
	if (c.bootstrap)
		printf("%-24s %9.1f%% %9.1f%% %8d\n", "pooled bootstrap median",
		       100.0 * t.boot_cover / c.campaigns,
		       100.0 * t.boot_detect / c.campaigns, 0);
	return 0;
}
