// SPDX-License-Identifier: GPL-2.0-only
/*
 * fleet-gen.c - a synthetic lab fleet, written straight through the
 * store API, for measuring how every command grows with the number of
 * runs (issue 23; tools/bench-fleet-scale.sh drives it).  Not a test: the
 * data only have to look like a fleet's, and be the same for a seed.
 *
 * N machines with distinct fingerprints (a few CPU models, so hosts
 * differ), M campaigns, R runs per machine and campaign.  A campaign is a
 * timer_wake configuration: its interval and its irq_mode alternate, and
 * "late" is about 5 % slower, so --compare params.irq_mode=early against
 * params.irq_mode=late has a shift to find.  Each run measures two CPUs
 * with S samples each, drawn from a log-normal body (the machine's own
 * base) with a rare exponential tail (a late wake), and carries the
 * idle_state and wake_source attributes that the states report groups.
 *
 * With --causes-every N, every Nth run of a machine and campaign was a
 * --causes run: its slowest sample on each CPU is stored with causes (an
 * IRQ, a kernel thread, the rest unexplained, as trace events would name
 * them), drawn from a stream of the run's own, so the fleet's samples are
 * the same bytes with or without causes.
 *
 * With --per-machine DIR it writes one database per machine, DIR/mNNNN.db,
 * the inputs of a fleet merge; else one database, FILE.  Each machine
 * draws from its own stream (the seed and its number) and numbers its own
 * runs, so merging the per-machine files gives the one file's runs
 * exactly (tests/integration/test_fleet_gen.sh checks the reports agree).  It never writes
 * over an existing file.  Runs are committed 500 to a transaction: the
 * fleet is written in minutes, not hours.
 */
#include "causes.h"
#include "err.h"
#include "series.h"
#include "splitmix.h"
#include "store.h"
#include "store_causes.h"
#include "trace_capture.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BATCH 500

struct gen {
	int machines, campaigns, runs, samples;
	uint64_t seed;
	int causes_every;	/* 0: no --causes runs */
};

/* A --causes run's attribution: one outlier per series, kept. */
struct gen_causes {
	struct il_causes_run run;
	struct il_trace trace;		/* what the capture kept, per CPU */
	struct il_trace_cpu cpu[2];
	struct il_cause_sample w[2];
	struct il_cause c[2][2];
};

static double unit(uint64_t *rng)
{
	return (double)(il_splitmix64(rng) >> 11) / 9007199254740992.0;
}

/* A standard normal draw (Box-Muller; the second value is dropped). */
static double normal(uint64_t *rng)
{
	double u = unit(rng), v = unit(rng);

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* One wake latency in ns around @base: log-normal, 1 % late tail. */
static uint64_t latency(uint64_t *rng, double base)
{
	double v = base * exp(0.15 * normal(rng));

	if (unit(rng) < 0.01)
		v += -log(1 - unit(rng)) * base * 4;
	return (uint64_t)v;
}

static void machine_uuid(int m, char *buf, size_t len)
{
	snprintf(buf, len, "f1ee7000-0000-4000-8000-%012x", (unsigned int)m);
}

static int put_machine(struct il_store *s, int m)
{
	static const char *const models[] = {
		"Fleet Xeon 6430", "Fleet EPYC 9354", "Fleet Core i7-1365U",
		"Fleet Xeon E-2388G",
	};
	char uuid[37], host[32], fp[256];

	machine_uuid(m, uuid, sizeof(uuid));
	snprintf(host, sizeof(host), "node%04d", m);
	snprintf(fp, sizeof(fp),
		 "{\"cpu\":{\"model\":\"%s\",\"cores\":%d},\"serial\":\"FLEET-%06d\"}",
		 models[m % 4], 8 << (m % 3), m);
	return il_store_put_machine(s, uuid, host, fp, NULL);
}

/* Machine @m's stream: the same whichever file it is written into. */
static uint64_t stream_of(const struct gen *g, int m)
{
	uint64_t x = g->seed ^ ((uint64_t)(m + 1) * 0x9e3779b97f4a7c15ULL);

	return il_splitmix64(&x);
}

/*
 * Run (@m, @c, @k) as a --causes run: the slowest sample @top[j] (at
 * @at[j]) of each series, split into an IRQ, a kernel thread and what is
 * unexplained.  Its own stream: the fleet's samples stay the same.
 */
static void make_causes(const struct gen *g, int m, int c, int k,
			struct il_series **sv, const uint64_t *top,
			const uint64_t *at, int interval_us,
			struct gen_causes *out)
{
	static const char *const irqs[] = { "24 eth0-rx-0", "0 timer", "9 acpi" };
	uint64_t rng = g->seed ^ ((uint64_t)m << 40) ^ ((uint64_t)c << 20) ^
		       (uint64_t)k ^ 0xc0ffee;
	int j;

	memset(out, 0, sizeof(*out));
	out->trace.clock = IL_TRACE_CLOCK_MONO;
	out->trace.buffer_kb = 4096;
	out->trace.ncpus = 2;
	out->trace.cpu = out->cpu;
	out->run.trace = &out->trace;
	out->run.status = "ok";
	out->run.nsamples = 2;
	out->run.samples = out->w;
	for (j = 0; j < 2; j++) {
		struct il_cause_sample *w = &out->w[j];
		uint64_t irq = top[j] * (20 + il_splitmix64(&rng) % 40) / 100;
		uint64_t thr = top[j] * (10 + il_splitmix64(&rng) % 20) / 100;

		w->series = sv[j];
		w->index = at[j];
		w->cpu = j;
		w->keep = true;
		w->t_ns = (int64_t)(at[j] * (uint64_t)interval_us * 1000);
		w->value_ns = top[j];
		w->idle_state = -1;
		w->ncauses = 2;
		w->causes = out->c[j];
		snprintf(out->c[j][0].kind, sizeof(out->c[j][0].kind), "irq");
		snprintf(out->c[j][0].name, sizeof(out->c[j][0].name), "%s",
			 irqs[il_splitmix64(&rng) % 3]);
		out->c[j][0].ns = irq;
		out->c[j][0].count = 1;
		snprintf(out->c[j][1].kind, sizeof(out->c[j][1].kind), "thread");
		snprintf(out->c[j][1].name, sizeof(out->c[j][1].name),
			 "kworker/%d:1 (pid %d)", j, 100 + m % 900);
		out->c[j][1].ns = thr;
		out->c[j][1].count = 1;
		w->unexplained_ns = top[j] - irq - thr;
		/* A timer wake and a switch per sample, and the two causes. */
		out->cpu[j].cpu = j;
		out->cpu[j].n = 2 * (size_t)g->samples + 2;
	}
}

static int put_run(struct il_store *s, struct gen *g, uint64_t *rng, int m,
		   int c, int k)
{
	static const char *const states[] = { "POLL", "C1", "C6" };
	struct il_series *sv[2] = { NULL, NULL };
	struct il_run_attr a[2] = {
		{ -1, "idle_state", states[il_splitmix64(rng) % 3] },
		{ -1, "wake_source", "timer" },
	};
	struct il_run_rec r = { 0 };
	struct gen_causes gc;
	char params[96], campaign[32];
	double base = 900 + 150 * (m % 4) + 40 * (c % 4);
	uint64_t top[2] = { 0, 0 }, at[2] = { 0, 0 }, v;
	int i, j, ret = 0;

	if (c % 2)
		base *= 1.05;		/* irq_mode late */
	snprintf(params, sizeof(params), "{\"interval_us\":%d,\"irq_mode\":\"%s\"}",
		 100 * (1 + c % 4), c % 2 ? "late" : "early");
	snprintf(campaign, sizeof(campaign), "fleet-c%03d", c);
	for (j = 0; j < 2 && !ret; j++) {
		sv[j] = il_series_new("wake_latency", "ns", j, -1, -1, false, false);
		if (!sv[j]) {
			ret = il_errorf(-ENOMEM, "out of memory");
			break;
		}
		for (i = 0; i < g->samples; i++) {
			v = latency(rng, base);
			if (v > top[j]) {
				top[j] = v;
				at[j] = (uint64_t)i;
			}
			il_series_add(sv[j], v);
		}
	}
	/* Machine, campaign and run: unique in the fleet, any file. */
	snprintf(r.uuid, sizeof(r.uuid), "%08x-0000-4000-8000-%04hx%08x",
		 (unsigned int)m, (unsigned short)c, (unsigned int)k);
	machine_uuid(m, r.machine_uuid, sizeof(r.machine_uuid));
	r.bench = "timer_wake";
	r.params_json = params;
	r.placement = "0,1";
	r.cpus_json = "[0,1]";
	r.campaign = campaign;
	r.plan_index = k;	/* the campaign's k-th run on this machine */
	r.param_hash = campaign;
	r.start_ns = 1767225600000000000ULL +
		     ((uint64_t)c * (uint64_t)g->runs + (uint64_t)k) * 60000000000ULL +
		     (uint64_t)m * 1000000000ULL;
	r.end_ns = r.start_ns + 2000000000ULL;
	r.status = "ok";
	r.tool_version = "fleet-gen";
	r.cmdline = "fleet-gen";
	r.nseries = 2;
	r.series = sv;
	r.nattrs = 2;
	r.attrs = a;
	if (!ret && g->causes_every && k % g->causes_every == 0) {
		make_causes(g, m, c, k, sv, top, at, 100 * (1 + c % 4), &gc);
		ret = il_store_save_run_causes(s, &r, &gc.run);
	} else if (!ret) {
		ret = il_store_save_run(s, &r);
	}
	il_series_free(sv[0]);
	il_series_free(sv[1]);
	return ret;
}

/* Machines @m0 .. @m1 - 1, every campaign and run, into @path. */
static int write_db(struct gen *g, const char *path, int m0, int m1)
{
	struct il_store *s;
	uint64_t *rng = calloc(m1 - m0, sizeof(*rng));
	struct stat st;
	int m, c, k, ret, n = 0;

	if (!rng)
		return il_errorf(-ENOMEM, "out of memory");
	if (!stat(path, &st)) {
		free(rng);
		return il_errorf(-EEXIST, "%s exists; fleet-gen never writes over a file", path);
	}
	ret = il_store_open(path, IL_STORE_CREATE, &s);
	if (ret) {
		free(rng);
		return ret;
	}
	for (m = m0; !ret && m < m1; m++) {
		rng[m - m0] = stream_of(g, m);
		ret = put_machine(s, m);
	}
	/* Run order as a fleet's: campaign by campaign, machines in turn. */
	for (c = 0; !ret && c < g->campaigns; c++)
		for (k = 0; !ret && k < g->runs; k++)
			for (m = m0; !ret && m < m1; m++) {
				if (n % BATCH == 0)
					ret = il_store_begin(s);
				if (!ret)
					ret = put_run(s, g, &rng[m - m0], m, c, k);
				if (!ret && ++n % BATCH == 0)
					ret = il_store_end(s, true);
			}
	if (n % BATCH)
		ret = il_store_end(s, !ret) ?: ret;
	il_store_close(s);
	free(rng);
	if (ret)
		il_store_remove(path);	/* a fleet cut short is no fleet */
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fleet-gen [--machines N] [--campaigns M] [--runs R]\n"
		"                 [--samples S] [--seed X] [--causes-every N]\n"
		"                 (FILE | --per-machine DIR)\n"
		"\n"
		"Write a synthetic fleet of N*M*R timer_wake runs (issue 23).\n"
		"\n"
		"  -n, --machines N     machines (default 10)\n"
		"  -c, --campaigns M    campaigns, irq_mode early and late in turn (default 2)\n"
		"  -r, --runs R         runs per machine and campaign (default 50)\n"
		"  -s, --samples S      samples per CPU of a run (default 20)\n"
		"  -S, --seed X         random seed (default 23)\n"
		"  -C, --causes-every N every Nth run of a machine and campaign\n"
		"                       stores causes for its slowest samples (default none)\n"
		"  -p, --per-machine DIR  one database per machine, DIR/mNNNN.db\n"
		"  -h, --help           this text\n");
}

static int num(const char *arg, const char *what, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	if (errno || *end || end == arg || *out < 1 || *out > max) {
		fprintf(stderr, "fleet-gen: --%s: want 1 to %ld, got '%s'\n", what, max, arg);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "machines", required_argument, NULL, 'n' },
		{ "campaigns", required_argument, NULL, 'c' },
		{ "runs", required_argument, NULL, 'r' },
		{ "samples", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "per-machine", required_argument, NULL, 'p' },
		{ "causes-every", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gen g = { 10, 2, 50, 20, 23, 0 };
	const char *dir = NULL;
	long v;
	int o, m, ret = 0;

	while ((o = getopt_long(argc, argv, "n:c:r:s:S:p:C:h", lo, NULL)) != -1) {
		switch (o) {
		case 'n':
			if (num(optarg, "machines", 9999, &v))
				return 2;
			g.machines = (int)v;
			break;
		case 'c':
			if (num(optarg, "campaigns", 999, &v))
				return 2;
			g.campaigns = (int)v;
			break;
		case 'r':
			if (num(optarg, "runs", 1000000, &v))
				return 2;
			g.runs = (int)v;
			break;
		case 's':
			if (num(optarg, "samples", 1000000, &v))
				return 2;
			g.samples = (int)v;
			break;
		case 'S':
			if (num(optarg, "seed", 0x7fffffffL, &v))
				return 2;
			g.seed = (uint64_t)v;
			break;
		case 'p':
			dir = optarg;
			break;
		case 'C':
			if (num(optarg, "causes-every", 1000000, &v))
				return 2;
			g.causes_every = (int)v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - (dir ? 0 : 1)) {
		usage(stderr);
		return 2;
	}
	if (!dir) {
		ret = write_db(&g, argv[optind], 0, g.machines);
	} else {
		if (mkdir(dir, 0777) && errno != EEXIST) {
			fprintf(stderr, "fleet-gen: %s: %s\n", dir, strerror(errno));
			return 1;
		}
		for (m = 0; !ret && m < g.machines; m++) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/m%04d.db", dir, m);
			ret = write_db(&g, path, m, m + 1);
		}
	}
	if (ret) {
		fprintf(stderr, "fleet-gen: %s\n", il_errmsg());
		return ret == -EEXIST ? 2 : 1;
	}
	return 0;
}
