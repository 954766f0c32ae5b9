// SPDX-License-Identifier: GPL-2.0-only
/*
 * idle_sweep.c - wake cost against how long the CPU was idle, and which
 * idle state it was in: the map of issue 24, latency(d, entered state,
 * wake source), through the kernel's real idle path.
 *
 * Each pair (a, b) has an observer bound to CPU a and a target bound to
 * CPU b.  For every sample the target blocks for an idle time d taken from
 * the idle_us list, in a seeded random order (each d `samples` times), and
 * is woken by:
 *  - timer: its own hrtimer, an absolute clock_nanosleep(CLOCK_MONOTONIC)
 *    due d after it blocks.  wake_latency is taken between the time the
 *    sleep was due and the target's clock_gettime() right after it returns
 *    (timer_wake's two timestamps);
 *  - ipi: a FUTEX_WAKE from the observer d after the target announced that
 *    it is about to block, which sends the reschedule IPI.  wake_latency is
 *    taken between the observer's timestamp just before FUTEX_WAKE and the
 *    target's right after its FUTEX_WAIT returns (futex_wake's two).
 *
 * The idle state entered comes from the target's per-state cpuidle `usage`
 * counters, read by the observer on CPU a before and after each sample,
 * outside the timed window: the target spins between samples, so it cannot
 * enter idle between the two reads except inside the sample.  One entry in
 * one state names the state; more than one entry (the governor or a tick
 * woke it and it went back) is "ambiguous", and no entry "not_idle"; none
 * is ever guessed.  Where the target has no cpuidle states (no driver) the
 * run says so (attribute entered_state) and stores only the per-d series.
 * With --causes, every sample is noted on the per-d series, whose
 * power:cpu_idle states the causes machinery stores per sample.
 *
 * Where the RAPL package energy counters can be read (energy.h), the
 * observer reads them beside the usage counters, and per state entered
 * stores the sums of d and of the energy (run attribute energy_in_STATE)
 * from which the declared table fits energy against idle time; otherwise
 * the attribute energy says why not.
 *
 * Series per pair, group = d in us: wake_latency (every sample at d),
 * wake_latency_in_<state> / _ambiguous / _not_idle (by entered state),
 * and with reads=both wake_latency_noreads: the same sweep interleaved
 * with samples whose counters are not read, so the cost of the reads on
 * the figure is measured in the same run (BENCHMARKS.md).
 *
 * Why it is built this way:
 *  - the observer, not the target, reads the counters and records the
 *    samples, so the target does nothing but block and wake;
 *  - the observer sleeps through most of d and spins the last hot_us, so
 *    in ipi mode t0 is taken on a running CPU (as in futex_wake);
 *  - the random order keeps a d from always following the same d, so no
 *    governor history or cache state is phase-locked to the list;
 *  - pairs run one after another: they may share CPUs;
 *  - the run keeps the declared idle table and kernel release it ran
 *    under (attribute declared_idle): the machine's row keeps only its
 *    latest fingerprint, and report --kind declared must still tell the
 *    kernels of one machine apart after an in-place upgrade.
 */
#include "idle_sweep.h"
#include "env.h"
#include "err.h"
#include "splitmix.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const is_wakes[] = { "timer", "ipi", NULL };
static const char *const is_reads[] = { "on", "off", "both", NULL };

static const struct il_opt is_opts[] = {
	{ .name = "samples", .type = IL_OPT_U64,
	  .offset = offsetof(struct is_params, samples),
	  .min = 1, .max = 10000000, .def = "200", .unit = "count",
	  .help = "wake-ups measured per idle time per pair (per reads kind with reads=both)",
	  .scale = true },
	{ .name = "idle_us", .type = IL_OPT_LIST,
	  .offset = offsetof(struct is_params, idle_us),
	  .min = 1, .max = 1000000,
	  .def = "1,2,5,10,20,50,100,200,500,1000,2000,5000", .unit = "us",
	  .help = "the idle times d the target is left blocked before its wake, visited in a seeded random order" },
	{ .name = "wake", .type = IL_OPT_ENUM,
	  .offset = offsetof(struct is_params, wake), .def = "timer",
	  .unit = "", .choices = is_wakes,
	  .help = "timer: the target's own hrtimer (clock_nanosleep); ipi: a FUTEX_WAKE from the observer CPU (reschedule IPI)" },
	{ .name = "reads", .type = IL_OPT_ENUM,
	  .offset = offsetof(struct is_params, reads), .def = "on",
	  .unit = "", .choices = is_reads,
	  .help = "on: read the cpuidle usage counters around every sample; off: never (no entered state); both: interleave the two, to measure what the reads cost" },
	{ .name = "hot_us", .type = IL_OPT_U64,
	  .offset = offsetof(struct is_params, hot_us),
	  .min = 0, .max = 1000000, .def = "20", .unit = "us",
	  .help = "the observer spins the last hot_us of each idle time instead of sleeping, so it is running when the wake is due" },
	{ .name = "priority", .type = IL_OPT_U64,
	  .offset = offsetof(struct is_params, priority),
	  .min = 0, .max = 99, .def = "0", .unit = "",
	  .help = "SCHED_FIFO priority of both threads where permitted (obtained policy recorded); 0 = stay SCHED_OTHER" },
	{ .name = "seed", .type = IL_OPT_U64,
	  .offset = offsetof(struct is_params, seed),
	  .min = 0, .max = UINT64_MAX, .def = "0", .unit = "",
	  .help = "seed of the visiting order (recorded); 0 = from the clock" },
	IL_OPT_END
};

/* ---- setup and the ops ------------------------------------------------- */

static void is_teardown(struct il_run *run)
{
	struct is_state *st = run->priv;
	int i;

	if (!st)
		return;
	il_pool_stop(&st->pool);
	for (i = 0; st->pair && i < st->npairs; i++) {
		struct is_pair *pr = &st->pair[i];

		il_cpuidle_usage_close(&pr->u);
		il_free_local(pr->shm, sizeof(struct is_shm));
		free(pr->all);
		free(pr->bare);
		free(pr->by);
	}
	free(st->pair);
	free(st->cpus);
	free(st->order);
	free(st);
	run->priv = NULL;
}

static int is_check(const void *params, const struct il_placement *pl)
{
	const struct is_params *p = params;
	int i;

	if (p->idle_us.n < 1)
		return il_errorf(-EINVAL, "idle_us: at least one idle time is needed");
	if (!pl)
		return 0;
	if (pl->kind != IL_PLACE_PAIRS || pl->npairs < 1)
		return il_errorf(-EINVAL, "--cpus '%s': idle_sweep needs CPU pairs OBSERVER-TARGET (e.g. pairs:0-1)",
				 pl->spec);
	for (i = 0; i < pl->npairs; i++)
		if (pl->pairs[i].a == pl->pairs[i].b)
			return il_errorf(-EINVAL, "--cpus '%s': pair %d-%d is one CPU; the observer needs its own",
					 pl->spec, pl->pairs[i].a,
					 pl->pairs[i].b);
	return 0;
}

/*
 * The visiting order: each d `samples` times (twice, reads on and off,
 * with reads=both), shuffled by Fisher-Yates from the seed.
 */
static int is_make_order(struct il_run *run, struct is_state *st)
{
	const struct is_params *p = st->p;
	int kinds = p->reads == IS_READS_BOTH ? 2 : 1;
	uint64_t rng = p->seed ? p->seed : il_now_ns(CLOCK_MONOTONIC);
	size_t n = (size_t)p->samples * (size_t)p->idle_us.n * (size_t)kinds;
	size_t i, j;
	struct is_visit tmp;

	st->order = calloc(n, sizeof(*st->order));
	if (!st->order)
		return il_errorf(-ENOMEM, "out of memory for %zu samples", n);
	for (i = 0; i < n; i++) {
		st->order[i].di = (uint16_t)(i % (size_t)p->idle_us.n);
		st->order[i].reads = p->reads == IS_READS_ON ||
				     (kinds == 2 && (i / (size_t)p->idle_us.n) % 2);
	}
	il_run_attr(run, -1, "seed", "%" PRIu64, rng);
	for (i = n - 1; i > 0; i--) {
		j = (size_t)(il_splitmix64(&rng) % (i + 1));
		tmp = st->order[i];
		st->order[i] = st->order[j];
		st->order[j] = tmp;
	}
	st->norder = n;
	return 0;
}

static int is_setup_pair(struct il_run *run, struct is_state *st,
			 struct is_pair *pr)
{
	const struct is_params *p = st->p;
	char why[160] = "";
	int di, node, ret;

	pr->shm = il_alloc_local(run->topo, pr->b, sizeof(*pr->shm), &node);
	pr->all = calloc((size_t)p->idle_us.n, sizeof(*pr->all));
	pr->bare = calloc((size_t)p->idle_us.n, sizeof(*pr->bare));
	if (!pr->shm || !pr->all || !pr->bare)
		return il_errorf(-ENOMEM, "out of memory");
	if (p->reads != IS_READS_OFF) {
		ret = il_cpuidle_usage_open(&pr->u, pr->b, why, sizeof(why));
		if (ret < 0)
			return ret;
	} else {
		snprintf(why, sizeof(why), "unavailable: not read (reads=off)");
	}
	il_run_attr(run, pr->b, "entered_state", "%s", why[0] ? why :
		    "cpuidle usage counters, read on the observer CPU between samples");
	if (pr->u.n > 0 && p->reads != IS_READS_OFF &&
	    il_energy_open(&pr->en, why, sizeof(why)) > 0)
		il_run_attr(run, pr->b, "energy", "RAPL package energy (%d powercap zone%s), read on the observer CPU around each sample: every CPU of the package",
			    pr->en.n, pr->en.n == 1 ? "" : "s");
	else
		il_run_attr(run, pr->b, "energy", "unavailable: %s",
			    pr->u.n > 0 && p->reads != IS_READS_OFF ? why :
			    "no idle state entered is known to attribute it to");
	pr->by = calloc((size_t)p->idle_us.n * (size_t)(pr->u.n + 2),
			sizeof(*pr->by));
	if (!pr->by)
		return il_errorf(-ENOMEM, "out of memory");
	for (di = 0; di < p->idle_us.n; di++) {
		pr->all[di] = il_run_series(run, "wake_latency", "ns", pr->a,
					    pr->b, (int64_t)p->idle_us.v[di],
					    false);
		if (!pr->all[di])
			return il_errorf(-ENOMEM, "out of memory for a series");
		if (p->reads != IS_READS_BOTH)
			continue;
		pr->bare[di] = il_run_series(run, "wake_latency_noreads", "ns",
					     pr->a, pr->b,
					     (int64_t)p->idle_us.v[di], false);
		if (!pr->bare[di])
			return il_errorf(-ENOMEM, "out of memory for a series");
	}
	/* reads=off stores its samples as the plain per-d series. */
	if (p->reads == IS_READS_OFF)
		memcpy(pr->bare, pr->all, (size_t)p->idle_us.n * sizeof(*pr->all));
	return 0;
}

/* The declared table of @cpu and the kernel release, as compact JSON. */
static int is_declared(struct il_run *run, int cpu)
{
	json_t *d = il_fingerprint_declared(cpu);
	char *s = d ? json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	int ret;

	json_decref(d);
	if (!s)
		return il_errorf(-ENOMEM, "out of memory");
	ret = il_run_attr(run, -1, "declared_idle", "%s", s);
	free(s);
	return ret ? il_errorf(ret, "out of memory") : 0;
}

static int is_setup(struct il_run *run)
{
	const struct is_params *p = run->params;
	const struct il_placement *pl = &run->place;
	struct is_state *st;
	int i, ret;

	ret = is_check(p, pl);
	if (ret)
		return ret;
	st = calloc(1, sizeof(*st));
	if (!st)
		return il_errorf(-ENOMEM, "out of memory");
	run->priv = st;
	st->p = p;
	st->npairs = pl->npairs;
	st->pair = calloc((size_t)st->npairs, sizeof(*st->pair));
	st->cpus = calloc((size_t)st->npairs * 2, sizeof(*st->cpus));
	if (!st->pair || !st->cpus) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto fail;
	}
	ret = is_make_order(run, st);
	if (ret)
		goto fail;
	if (p->wake == IS_WAKE_IPI)
		il_clock_pick(run, &st->clk, true);
	else
		il_run_attr(run, -1, "clock", "CLOCK_MONOTONIC (the timer's own clock)");
	for (i = 0; i < st->npairs; i++) {
		struct is_pair *pr = &st->pair[i];

		pr->a = pl->pairs[i].a;
		pr->b = pl->pairs[i].b;
		st->cpus[2 * i] = pr->a;
		st->cpus[2 * i + 1] = pr->b;
		ret = is_setup_pair(run, st, pr);
		if (ret)
			goto fail;
	}
	ret = is_declared(run, st->pair[0].b);
	if (ret)
		goto fail;
	ret = il_pool_start(&st->pool, run, st->npairs * 2, st->cpus,
			    idle_sweep_init, idle_sweep_thread, st);
	if (ret)
		goto fail;
	return 0;
fail:
	is_teardown(run);
	return ret;
}

static int is_run(struct il_run *run)
{
	struct is_state *st = run->priv;

	return il_pool_run(&st->pool);
}

/* Every sample waits its d plus some 30 us of handshake and reads. */
static uint64_t is_estimate_ns(const void *params,
			       const struct il_placement *place)
{
	const struct is_params *p = params;
	uint64_t npairs = place && place->kind == IL_PLACE_PAIRS &&
			  place->npairs > 0 ? (uint64_t)place->npairs : 1;
	uint64_t sum = 0;
	int i;

	for (i = 0; i < p->idle_us.n; i++)
		sum += p->idle_us.v[i] + 30;
	return npairs * (p->reads == IS_READS_BOTH ? 2 : 1) * p->samples *
	       sum * 1000ULL;
}

const struct il_bench_ops il_bench_idle_sweep = {
	.name = "idle_sweep",
	.summary = "wake latency against idle time d, per idle state entered (cpuidle usage read between samples)",
	.timestamps = "wake_latency (group d): wake=timer, from the absolute CLOCK_MONOTONIC time the target's clock_nanosleep was due to its clock_gettime right after; "
		      "wake=ipi, from the observer's timestamp just before FUTEX_WAKE (CPU a) to the target's right after FUTEX_WAIT returns (CPU b), TSC where the clocksource is tsc, else CLOCK_MONOTONIC",
	.flags = IL_BF_PAIRS		/* observer on pair.a, target on pair.b */
		| IL_BF_MULTI_CPU,	/* the counters are read from CPU a */
	.default_cpus = "pairs:0-1",
	.opts = is_opts,
	.params_size = sizeof(struct is_params),
	.supported = NULL,	/* without cpuidle the entered state is
				 * unavailable, the latencies are not */
	.setup = is_setup,
	.run = is_run,
	.teardown = is_teardown,
	.estimate_ns = is_estimate_ns,
	.check = is_check,
};
