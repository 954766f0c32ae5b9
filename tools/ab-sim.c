// SPDX-License-Identifier: GPL-2.0-only
/*
 * ab-sim.c - synthetic A/B campaigns, run through the statistics of the
 * A/B table, to measure how often its intervals cover the truth and how
 * often the table calls a change (issues 12 and 22).  Built by the
 * Makefile as $(BUILD)/tools/ab-sim.
 *
 * One campaign: two arms of R runs each, in one of the campaign orders of
 * harness/campaign_order.c (--order): blocks (the default: block k runs
 * each arm's k-th run once, the two in a random order), sequential
 * (AAA..BBB), interleaved (ABAB) or random (a permutation of all 2R).
 * The order's draws come from their own stream, so that the samples of a
 * campaign do not depend on the order through anything but the slots.
 * Run r, at place t of T in time, has a random offset o_r ~ N(0, sd_arm)
 * (--run-sd, arm B's --run-sd-b), a drift of drift * t / (T - 1) and a
 * carry-over of carry times the previous run's arm effect; within a run
 * the samples are AR(1):
 *
 *   e_0 ~ N(0, noise_sd),  e_t = phi e_{t-1} + sqrt(1 - phi^2) N(0, noise_sd)
 *   sample = base * exp(shift_arm + o_r + drift_r + carry * shift_prev + e_t)
 *
 * in ns, rounded, with shift_B = log(1 + shift / 100) and shift_A = 0, so
 * the true ratio of B to A is 1 + shift / 100 for every statistic of the
 * lognormal; carry-over biases what a campaign sees of it, and the
 * coverage of the true shift says by how much.  Each run is recorded as
 * the benchmarks record one (il_series_add(): the exact summary and the
 * 0.1 % histogram), each run's value comes from il_ab_run_stat() and the
 * comparison from il_ab_compare(): the very functions analysis/compare.c
 * calls on the runs it reads from a database.
 *
 * For each statistic (median, p99, mean) it counts how often the 95 %
 * interval covers the true shift, how often it excludes 0, and how often
 * the table's verdict calls a change: the Mann-Whitney p of the row,
 * Holm-adjusted over the rows the table prints for the campaign (median,
 * p99 and mean; p99 untested below 1000 samples a run, as in compare.c),
 * below 0.05 (ab_table.c's verdict()).  "any-row" counts the campaigns in
 * which at least one row calls a change: with no true shift, the rate at
 * which the table flags a campaign that differs in nothing.  With
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
#include "stats.h"
#include "store.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The campaign orders of harness/campaign_order.c, as ab-sim plays them. */
enum order { ORD_BLOCKS, ORD_SEQUENTIAL, ORD_INTERLEAVED, ORD_RANDOM };

static const char *const order_names[] = {
	[ORD_BLOCKS] = "blocks",
	[ORD_SEQUENTIAL] = "sequential",
	[ORD_INTERLEAVED] = "interleaved",
	[ORD_RANDOM] = "random",
	NULL,
};

struct cfg {
	int campaigns, runs, samples, bootstrap;
	double base, shift, run_sd, run_sd_b, noise_sd, phi, drift, carry;
	enum order order;
	uint64_t seed;
	const char *db;
};

/* One slot of a campaign in time: run @k of arm @arm (0 A, 1 B). */
struct slot {
	int arm, k;
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

/* Uniform in [0, n), by rejection: no modulo bias, as campaign_order.c. */
static int below(uint64_t *x, int n)
{
	uint64_t lim = UINT64_MAX - UINT64_MAX % (uint64_t)n, r;

	do
		r = il_splitmix64(x);
	while (r >= lim);
	return (int)(r % (uint64_t)n);
}

/* The 2R slots of one campaign in time order, drawn from *@orng. */
static void plan(const struct cfg *c, uint64_t *orng, struct slot *v)
{
	int R = c->runs, t, k;

	for (t = 0; t < 2 * R; t++)
		v[t] = (struct slot){ t / R, t % R };	/* sequential */
	switch (c->order) {
	case ORD_SEQUENTIAL:
		break;
	case ORD_INTERLEAVED:
		for (t = 0; t < 2 * R; t++)
			v[t] = (struct slot){ t % 2, t / 2 };
		break;
	case ORD_BLOCKS:
		for (k = 0; k < R; k++) {
			int first = below(orng, 2);

			v[2 * k] = (struct slot){ first, k };
			v[2 * k + 1] = (struct slot){ 1 - first, k };
		}
		break;
	case ORD_RANDOM:
		for (t = 2 * R - 1; t > 0; t--) {
			int j = below(orng, t + 1);
			struct slot x = v[t];

			v[t] = v[j];
			v[j] = x;
		}
		break;
	}
}

/* The direct effect of arm @b on the log scale. */
static double arm_effect(const struct cfg *c, int b)
{
	return b ? log1p(c->shift / 100) : 0;
}

/*
 * The run at place @t of @nt in time, of arm @b, after a run of arm
 * @prev (-1: the first): one series.
 */
static struct il_series *sim_run(const struct cfg *c, uint64_t *rng, int b,
				 int prev, int t, int nt)
{
	struct il_series *s = il_series_new("wake_latency", "ns", 1, -1, -1,
					    false, false);
	double lvl, e, a = sqrt(1 - c->phi * c->phi);
	int i;

	if (!s)
		return NULL;
	lvl = log(c->base) + arm_effect(c, b) +
	      (b ? c->run_sd_b : c->run_sd) / 100 * gauss(rng) +
	      (nt > 1 ? c->drift / 100 * t / (nt - 1) : 0) +
	      (prev >= 0 ? c->carry * arm_effect(c, prev) : 0);
	e = c->noise_sd / 100 * gauss(rng);
	for (i = 0; i < c->samples; i++) {
		if (i)
			e = c->phi * e + a * c->noise_sd / 100 * gauss(rng);
		il_series_add(s, (uint64_t)llround(exp(lvl + e)));
	}
	return s;
}

struct tally {
	int cover[IL_AB_NSTATS], excl0[IL_AB_NSTATS], holm[IL_AB_NSTATS];
	int no_ci[IL_AB_NSTATS];
	int any_excl0, any_holm;	/* campaigns with at least one row */
	int boot_cover, boot_detect;
};

/*
 * The rows the table prints for this campaign, as compare.c fills them
 * and ab_table.c judges them: Holm over every tested row's p, and a
 * change called where the adjusted p < 0.05 and a 95 % interval exists.
 */
static int tally_rows(const struct cfg *c, struct il_series **s, double *v,
		      struct tally *t)
{
	struct il_ab_result res[IL_AB_NSTATS];
	bool tested[IL_AB_NSTATS] = { false };
	double p[IL_AB_NSTATS], adj[IL_AB_NSTATS];
	bool any_e = false, any_h = false;
	int st, i, ret;

	for (st = 0; st < IL_AB_NSTATS; st++) {
		p[st] = NAN;
		/* compare.c leaves a p99 row untested where a run is thin. */
		if (st == IL_AB_P99 && !il_tail_estimable(c->samples, 99)) {
			t->no_ci[st]++;
			continue;
		}
		for (i = 0; i < 2 * c->runs; i++)
			v[i] = il_ab_run_stat(st, s[i]->hist, &s[i]->sum);
		ret = il_ab_compare(v, c->runs, v + c->runs, c->runs, 0.95, 0, &res[st]);
		if (ret)
			return ret;
		tested[st] = true;
		p[st] = res[st].s.p;
	}
	il_ab_holm(p, IL_AB_NSTATS, adj);
	for (st = 0; st < IL_AB_NSTATS; st++) {
		const struct il_ab_result *r = &res[st];
		bool e, h;

		if (!tested[st])
			continue;
		if (!r->positive || !r->s.ci_ok) {
			t->no_ci[st]++;
			continue;
		}
		e = r->lo_pct > 0 || r->hi_pct < 0;
		h = !r->all_equal && adj[st] < 0.05;
		t->cover[st] += r->lo_pct <= c->shift && r->hi_pct >= c->shift;
		t->excl0[st] += e;
		t->holm[st] += h;
		any_e |= e;
		any_h |= h;
	}
	t->any_excl0 += any_e;
	t->any_holm += any_h;
	return 0;
}

static int one_campaign(const struct cfg *c, uint64_t *rng, uint64_t *orng,
			struct tally *t)
{
	struct il_series **s = calloc(2 * c->runs, sizeof(*s));
	struct slot *sl = calloc(2 * c->runs, sizeof(*sl));
	double *v = calloc(2 * c->runs, sizeof(double)), truth = c->shift;
	int b, r, ret = 0;

	if (!s || !v || !sl) {
		ret = -ENOMEM;
		goto out;
	}
	plan(c, orng, sl);
	/* Generate in time order: drift and carry-over follow the slots. */
	for (r = 0; r < 2 * c->runs; r++) {
		int i = sl[r].arm * c->runs + sl[r].k;

		s[i] = sim_run(c, rng, sl[r].arm, r ? sl[r - 1].arm : -1, r,
			       2 * c->runs);
		if (!s[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = tally_rows(c, s, v, t);
	if (ret)
		goto out;
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
	free(sl);
	free(v);
	return ret;
}

/* The first campaign into @c->db, one stored run per simulated run. */
static int write_db(const struct cfg *c, uint64_t *rng, uint64_t *orng)
{
	static const char machine[] = "5e5e5e5e-0000-4000-8000-000000000001";
	struct slot *sl = calloc(2 * c->runs, sizeof(*sl));
	struct il_store *st;
	int r, ret;

	if (!sl)
		return -ENOMEM;
	plan(c, orng, sl);
	ret = il_store_open(c->db, IL_STORE_CREATE, &st);
	if (ret) {
		free(sl);
		return ret;
	}
	ret = il_store_put_machine(st, machine, "ab-sim", "{\"cpu\":{\"model\":\"simulated\"}}", NULL);
	for (r = 0; !ret && r < 2 * c->runs; r++) {
		int arm = sl[r].arm;
		struct il_series *s = sim_run(c, rng, arm, r ? sl[r - 1].arm : -1,
					      r, 2 * c->runs);
		struct il_run_rec rec = { 0 };

		if (!s) {
			ret = -ENOMEM;
			break;
		}
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
	free(sl);
	return ret;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ab-sim [--campaigns N] [--runs R] [--samples S] [--shift PCT]\n"
		"              [--run-sd PCT] [--run-sd-b PCT] [--noise-sd PCT] [--phi F]\n"
		"              [--drift PCT] [--carry F]\n"
		"              [--order blocks|sequential|interleaved|random] [--seed N]\n"
		"              [--bootstrap B] [--db FILE]\n");
}

static int parse(int argc, char **argv, struct cfg *c)
{
	static const struct option lo[] = {
		{ "campaigns", 1, NULL, 'c' }, { "runs", 1, NULL, 'r' },
		{ "samples", 1, NULL, 'n' }, { "shift", 1, NULL, 's' },
		{ "run-sd", 1, NULL, 'R' }, { "run-sd-b", 1, NULL, 'B' },
		{ "noise-sd", 1, NULL, 'N' }, { "phi", 1, NULL, 'p' },
		{ "drift", 1, NULL, 'd' }, { "carry", 1, NULL, 'C' },
		{ "order", 1, NULL, 'o' }, { "seed", 1, NULL, 'S' },
		{ "bootstrap", 1, NULL, 'b' }, { "db", 1, NULL, 'D' },
		{ NULL, 0, NULL, 0 }
	};
	bool sd_b = false;
	int ch, i;

	while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (ch) {
		case 'c': c->campaigns = atoi(optarg); break;
		case 'r': c->runs = atoi(optarg); break;
		case 'n': c->samples = atoi(optarg); break;
		case 's': c->shift = atof(optarg); break;
		case 'R': c->run_sd = atof(optarg); break;
		case 'B': c->run_sd_b = atof(optarg); sd_b = true; break;
		case 'N': c->noise_sd = atof(optarg); break;
		case 'p': c->phi = atof(optarg); break;
		case 'd': c->drift = atof(optarg); break;
		case 'C': c->carry = atof(optarg); break;
		case 'S': c->seed = strtoull(optarg, NULL, 0); break;
		case 'b': c->bootstrap = atoi(optarg); break;
		case 'D': c->db = optarg; break;
		case 'o':
			for (i = 0; order_names[i] && strcmp(optarg, order_names[i]); i++)
				;
			if (!order_names[i])
				return -1;
			c->order = (enum order)i;
			break;
		default:
			return -1;
		}
	}
	if (!sd_b)
		c->run_sd_b = c->run_sd;	/* equal spread unless asked */
	if (optind != argc || c->campaigns < 1 || c->runs < 1 || c->samples < 1 ||
	    c->phi < 0 || c->phi >= 1 || c->run_sd < 0 || c->run_sd_b < 0 ||
	    c->noise_sd < 0 || c->bootstrap < 0 || c->shift <= -100)
		return -1;
	return 0;
}

static void print_tally(const struct cfg *c, const struct tally *t)
{
	double n = c->campaigns;
	int st;

	printf("# %d campaigns, %d runs per arm (order %s), %d samples per run; true shift %+g %%;\n"
	       "# run offset sd %g %% (arm B %g %%), AR(1) phi %g with sd %g %%, drift %g %% over a campaign,\n"
	       "# carry-over %g of the previous run's arm effect; seed %" PRIu64 "\n",
	       c->campaigns, c->runs, order_names[c->order], c->samples, c->shift,
	       c->run_sd, c->run_sd_b, c->phi, c->noise_sd, c->drift, c->carry, c->seed);
	printf("%-24s %10s %10s %10s %8s\n", "method", "coverage", "CI excl 0",
	       "Holm <.05", "no CI");
	for (st = 0; st < IL_AB_NSTATS; st++) {
		char name[32];

		snprintf(name, sizeof(name), "run-level %s", il_ab_stat_name(st));
		printf("%-24s %9.1f%% %9.1f%% %9.1f%% %8d\n", name,
		       100.0 * t->cover[st] / n, 100.0 * t->excl0[st] / n,
		       100.0 * t->holm[st] / n, t->no_ci[st]);
	}
	printf("%-24s %10s %9.1f%% %9.1f%% %8s\n", "run-level any-row", "-",
	       100.0 * t->any_excl0 / n, 100.0 * t->any_holm / n, "-");
	if (c->bootstrap)
		printf("%-24s %9.1f%% %9.1f%% %10s %8d\n", "pooled bootstrap median",
		       100.0 * t->boot_cover / n, 100.0 * t->boot_detect / n, "-", 0);
}

int main(int argc, char **argv)
{
	struct cfg c = {
		.campaigns = 1000, .runs = 10, .samples = 2000, .base = 13000,
		.run_sd = 3, .noise_sd = 10, .phi = 0.9, .order = ORD_BLOCKS,
		.seed = 1,
	};
	struct tally t;
	uint64_t rng, orng;
	int i, ret = 0;

	if (parse(argc, argv, &c)) {
		usage();
		return 2;
	}
	memset(&t, 0, sizeof(t));
	rng = c.seed;
	/* Its own stream ("order" in ASCII), so that the order's draws leave
	 * the samples' stream alone. */
	orng = c.seed ^ 0x6f72646572ULL;
	if (c.db) {
		ret = write_db(&c, &rng, &orng);
		if (ret)
			fprintf(stderr, "ab-sim: %s: %s\n", c.db, il_errmsg());
		return ret ? 1 : 0;
	}
	for (i = 0; !ret && i < c.campaigns; i++)
		ret = one_campaign(&c, &rng, &orng, &t);
	if (ret) {
		fprintf(stderr, "ab-sim: %s\n", il_errmsg());
		return 1;
	}
	print_tally(&c, &t);
	return 0;
}
