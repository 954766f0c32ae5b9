// SPDX-License-Identifier: GPL-2.0-only
/*
 * ipi_storm.c - closed-loop IPI storms from one CPU to a target set through
 * the idlelab_ipi module, in four destination modes (seed 001: physical
 * against cluster destinations):
 *   physical   one ICR write per target;
 *   logical    one write per logical cluster (xAPIC flat: one for the mask);
 *   broadcast  the all-but-self shorthand (targets = every other online CPU);
 *   kernel     an async smp_call_function per target (the kernel's APIC
 *              driver); issue_time is the queueing of every target's call.
 * The raw modes send NMIs to the module's own handler.  A round is closed:
 * send, then wait (bounded by timeout_us) for every target's
 * acknowledgement, since NMIs coalesce and open-loop storms lose deliveries.
 *
 * The first placed CPU sends; the others are the targets, the first N of
 * them for each N in `targets` (0 = all of them).  Per round, from TSC
 * reads in the module:
 *   round_time = t_complete (the last ack seen by the sender) - t_issue
 *                (before the first ICR write), group = N;
 *   issue_time = t_issued (after the last ICR write) - t_issue, group = N;
 *   arrival    = t of the target's handler's first instruction - t_issue,
 *                per target CPU (cpu = target), group = N.
 * A target that did not acknowledge in a round is counted as dropped in its
 * arrival series, and a round that timed out in round_time.  The attribute
 * acks_ok is 1 when every round got exactly one ack from every target.
 * The APIC driver, x2APIC mode, destination model and every CPU's APIC ID
 * and LDR (APIC_MAP) are stored with the run, and what the module says the
 * run was measured under: hypervisor (X86_FEATURE_HYPERVISOR) and
 * tsc_unstable (check_tsc_unstable(): arrival times compare TSCs of
 * different CPUs).  A round that an NMI not ours hit (perf, watchdog, an
 * injected one: IDLELAB_ROUND_FOREIGN_NMI) may have had ours delayed behind
 * that handler: its round_time and arrivals are counted as dropped, never
 * published, and the rounds are counted in foreign_nmi_rounds_nN.
 * The module refuses a storm whose worst case ((4 x rounds + 1) x
 * timeout_us: each round's send, wait, close and drain, and a final
 * drain) exceeds IDLELAB_MAX_RUN_US; the check op, and so
 * --dry-run, refuses it first.
 */
#include "bench.h"
#include "common.h"
#include "err.h"
#include "kclient.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const is_modes[] = {
	"physical", "logical", "broadcast", "kernel", NULL
};

_Static_assert(IDLELAB_IPI_PHYSICAL == 0 && IDLELAB_IPI_LOGICAL == 1 &&
	       IDLELAB_IPI_BROADCAST == 2 && IDLELAB_IPI_KERNEL == 3,
	       "is_modes order");

static const char *const is_dest_models[] = {
	"xapic-physical", "xapic-flat", "xapic-cluster", "x2apic-physical",
	"x2apic-cluster",
};

struct is_params {
	int mode;
	uint64_t rounds;
	uint64_t timeout_us;
	struct il_u64_list targets;
};

static const struct il_opt is_opts[] = {
	{ .name = "mode", .type = IL_OPT_ENUM,
	  .offset = offsetof(struct is_params, mode), .def = "physical",
	  .unit = "", .choices = is_modes,
	  .help = "physical (one ICR write per target), logical (per cluster / flat mask), broadcast (all-but-self), kernel (smp_call_function_single_async per target)" },
	{ .name = "rounds", .type = IL_OPT_U64,
	  .offset = offsetof(struct is_params, rounds),
	  .min = 1, .max = IDLELAB_MAX_ROUNDS, .def = "1000",
	  .unit = "count", .help = "closed-loop rounds per target count",
	  .scale = true },
	{ .name = "timeout_us", .type = IL_OPT_U64,
	  .offset = offsetof(struct is_params, timeout_us),
	  .min = 1, .max = IDLELAB_MAX_ROUND_TIMEOUT_US, .def = "10000",
	  .unit = "us", .help = "how long a round waits for its acknowledgements; (4 x rounds + 1) x timeout_us, the worst case, must stay within the module's run limit (600 s)" },
	{ .name = "targets", .type = IL_OPT_LIST,
	  .offset = offsetof(struct is_params, targets),
	  .min = 0, .max = IDLELAB_MAX_CPUS - 1, .def = "0", .unit = "count",
	  .help = "target counts N: the first N placed CPUs after the sender; 0 = all of them (broadcast needs all)" },
	IL_OPT_END
};

struct is_state {
	struct il_bench_placed pl;	/* first; pl.cpus[0] sends */
};

/* A sender, a target, and no target count beyond the CPUs after the
 * sender, among the distinct CPUs of any placement (the check op, again
 * in setup). */
static int is_check_cpus(const void *params, int ncpus)
{
	const struct is_params *p = params;
	int i;

	if (ncpus < 2)
		return il_errorf(-EINVAL, "ipi_storm needs a sender and at least one target CPU (--cpus all, or e.g. 0-3)");
	for (i = 0; i < p->targets.n; i++)
		if (p->targets.v[i] > (uint64_t)(ncpus - 1))
			return il_errorf(-EINVAL, "parameter 'targets': %" PRIu64 " is more than the %d placed CPUs after the sender",
					 p->targets.v[i], ncpus - 1);
	return 0;
}

/*
 * The targets leave the housekeeping CPUs out unless --cpus names them
 * (il_housekeeping_drop()); the sender, the first placed CPU, stays.  A
 * broadcast reaches every CPU but the sender by definition and cannot
 * leave any out: it keeps them all, which spares CPU 0 only because an
 * implicit set's first CPU, the sender, is CPU 0 (the module refuses CPU
 * 0 as a target otherwise), and says so in housekeeping_cpus.
 */
static int is_setup(struct il_run *run)
{
	const struct is_params *p = run->params;
	struct is_state *st;
	int ret;

	ret = il_bench_state_new(run, sizeof(struct is_state), is_check_cpus);
	if (ret)
		return ret;
	st = run->priv;
	if (p->mode == IDLELAB_IPI_BROADCAST) {
		il_run_attr(run, -1, "housekeeping_cpus",
			    "none: a broadcast reaches every CPU but the sender");
		return 0;
	}
	il_housekeeping_drop(run, &st->pl, 1);
	ret = is_check_cpus(p, st->pl.n);
	if (ret)
		il_bench_state_free(run);
	return ret;
}

static int is_apic_map(struct il_run *run)
{
	struct idlelab_apic_map_req r;
	struct idlelab_apic_cpu *c;
	uint32_t cap = run->kdev->info.nr_cpu_ids ?
		       run->kdev->info.nr_cpu_ids : 1;
	uint32_t i;
	int ret;

	c = calloc(cap, sizeof(*c));
	if (!c)
		return il_errorf(-ENOMEM, "out of memory");
	il_kreq_init(&r, sizeof(r));
	r.nr_cpus = cap;
	r.cpus = (__u64)(uintptr_t)c;
	ret = il_kdev_ioctl(run->kdev, IDLELAB_IOC_APIC_MAP, &r, "APIC_MAP");
	if (ret)
		goto out;
	il_run_attr(run, -1, "apic_driver", "%.*s", IDLELAB_NAME_LEN,
		    (const char *)r.apic_name);
	il_run_attr(run, -1, "x2apic", "%u", r.x2apic);
	il_run_attr(run, -1, "apic_dfr", "0x%08x", r.dfr);
	il_run_attr(run, -1, "logical_dest_model", "%s",
		    r.dest_model < 5 ? is_dest_models[r.dest_model] : "unknown");
	for (i = 0; i < r.nr_cpus && i < cap; i++) {
		if (!(c[i].flags & IDLELAB_APIC_CPU_ONLINE))
			continue;
		il_run_attr(run, (int)c[i].cpu, "apic_id", "%u", c[i].apic_id);
		il_run_attr(run, (int)c[i].cpu, "ldr", "0x%08x", c[i].ldr);
	}
out:
	free(c);
	return ret;
}

/* What is_storm() counts over the rounds of one target count. */
struct is_tally {
	uint64_t bad_rounds, stray, foreign_rounds, preempted_rounds;
	uint32_t wmin, wmax;
};

/* File each round's times in @rt, @it and @arr[], and count the rounds. */
static void is_account_rounds(const struct idlelab_ipi_req *rq,
			      const struct idlelab_ipi_round *rd,
			      const struct idlelab_ipi_arrival *ar,
			      const uint32_t *targets, int nt,
			      struct il_series *rt, struct il_series *it,
			      struct il_series **arr, struct is_tally *t)
{
	uint64_t k;
	int i;

	for (k = 0; k < rq->nr_done && k < rq->nr_rounds; k++) {
		const struct idlelab_ipi_round *o = &rd[k];
		bool good = o->acks == (uint32_t)nt &&
			    !(o->flags & IDLELAB_ROUND_TIMEOUT);
		/* A foreign NMI's handler may have delayed ours; a sender
		 * switched out mid-round timed the scheduler too: suspect. */
		bool foreign = o->flags & IDLELAB_ROUND_FOREIGN_NMI;
		bool preempted = o->flags & IDLELAB_ROUND_PREEMPTED;
		bool suspect = foreign || preempted;

		t->foreign_rounds += foreign;
		t->preempted_rounds += preempted;
		if (o->flags & IDLELAB_ROUND_TIMEOUT)
			il_series_drop(rt, IL_DROP_LOST);
		else if (suspect)
			il_series_drop(rt, IL_DROP_RACE);
		else
			il_series_add(rt, il_kcyc_ns(o->t_complete - o->t_issue,
						     rq->tsc_khz));
		il_series_add(it, il_kcyc_ns(o->t_issued - o->t_issue,
					     rq->tsc_khz));
		for (i = 0; i < nt; i++) {
			const struct idlelab_ipi_arrival *a = &ar[k * nt + i];

			if (a->cpu != targets[i] || a->count != 1)
				good = false;
			if (!a->count || a->cpu != targets[i] ||
			    a->t < o->t_issue)
				il_series_drop(arr[i], IL_DROP_LOST);
			else if (suspect)
				il_series_drop(arr[i], IL_DROP_RACE);
			else
				il_series_add(arr[i],
					      il_kcyc_ns(a->t - o->t_issue,
							 rq->tsc_khz));
		}
		if (!good)
			t->bad_rounds++;
		t->stray += o->stray;
		if (o->icr_writes < t->wmin)
			t->wmin = o->icr_writes;
		if (o->icr_writes > t->wmax)
			t->wmax = o->icr_writes;
	}
}

/* The run attributes of target count @nt; the run-wide ones once. */
static void is_storm_attrs(struct il_run *run, const struct is_state *st,
			   int nt, const struct idlelab_ipi_req *rq,
			   const struct is_tally *t, bool *dest_set)
{
	uint32_t wmin = t->wmin, wmax = t->wmax;
	char key[48];

	/* Per target count N; "icr_writes" alone is for all the targets. */
	if (nt == st->pl.n - 1)
		il_run_attr(run, -1, "icr_writes", wmin == wmax ? "%u" : "%u-%u",
			    wmin, wmax);
	snprintf(key, sizeof(key), "icr_writes_n%d", nt);
	il_run_attr(run, -1, key, wmin == wmax ? "%u" : "%u-%u", wmin, wmax);
	snprintf(key, sizeof(key), "rounds_done_n%d", nt);
	il_run_attr(run, -1, key, "%u", rq->nr_done);
	snprintf(key, sizeof(key), "rounds_bad_acks_n%d", nt);
	il_run_attr(run, -1, key, "%" PRIu64, t->bad_rounds);
	snprintf(key, sizeof(key), "stray_nmis_n%d", nt);
	il_run_attr(run, -1, key, "%" PRIu64, t->stray);
	snprintf(key, sizeof(key), "foreign_nmi_rounds_n%d", nt);
	il_run_attr(run, -1, key, "%" PRIu64, t->foreign_rounds);
	snprintf(key, sizeof(key), "preempted_rounds_n%d", nt);
	il_run_attr(run, -1, key, "%" PRIu64, t->preempted_rounds);
	snprintf(key, sizeof(key), "foreign_nmis_n%d", nt);
	il_run_attr(run, -1, key, "%u", rq->foreign_nmis);
	snprintf(key, sizeof(key), "late_nmis_n%d", nt);
	il_run_attr(run, -1, key, "%u", rq->late_nmis);
	snprintf(key, sizeof(key), "lost_nmis_n%d", nt);
	il_run_attr(run, -1, key, "%u", rq->lost_nmis);
	if (!*dest_set) {
		il_run_attr(run, -1, "dest_model", "%u", rq->dest_model);
		il_run_attr(run, -1, "hypervisor", "%d",
			    !!(rq->run_flags & IDLELAB_RUN_HYPERVISOR));
		il_run_attr(run, -1, "tsc_unstable", "%d",
			    !!(rq->run_flags & IDLELAB_RUN_TSC_UNSTABLE));
		*dest_set = true;
	}
}

/* One target count: @nt targets, cpus[1..nt]. */
static int is_storm(struct il_run *run, struct is_state *st, int nt,
		    bool *acks_ok, bool *dest_set)
{
	const struct is_params *p = run->params;
	struct il_series *rt, *it, **arr;
	struct idlelab_ipi_round *rd = NULL;
	struct idlelab_ipi_arrival *ar = NULL;
	struct idlelab_ipi_req r;
	struct is_tally t = { .wmin = UINT32_MAX };
	uint32_t *targets = NULL;
	int i, ret;

	arr = calloc((size_t)nt, sizeof(*arr));
	targets = calloc((size_t)nt, sizeof(*targets));
	rd = calloc(p->rounds, sizeof(*rd));
	ar = calloc(p->rounds * (uint64_t)nt, sizeof(*ar));
	rt = il_run_series(run, "round_time", "ns", st->pl.cpus[0], -1, nt,
			   false);
	it = il_run_series(run, "issue_time", "ns", st->pl.cpus[0], -1, nt,
			   false);
	if (!arr || !targets || !rd || !ar || !rt || !it) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	il_kreq_init(&r, sizeof(r));
	for (i = 0; i < nt; i++) {
		targets[i] = (uint32_t)st->pl.cpus[i + 1];
		/* Only a --cpus that named CPU 0 leaves it here. */
		if (!targets[i])
			r.flags |= IDLELAB_IPI_F_CPU0;
		arr[i] = il_run_series(run, "arrival", "ns",
				       st->pl.cpus[i + 1], -1, nt, false);
		if (!arr[i]) {
			ret = il_errorf(-ENOMEM, "out of memory for a series");
			goto out;
		}
	}
	r.mode = (__u32)p->mode;
	r.sender_cpu = (__u32)st->pl.cpus[0];
	r.nr_targets = (__u32)nt;
	r.nr_rounds = (__u32)p->rounds;
	r.targets = (__u64)(uintptr_t)targets;
	r.timeout_us = (__u32)p->timeout_us;
	r.rounds = (__u64)(uintptr_t)rd;
	r.arrivals = (__u64)(uintptr_t)ar;
	ret = il_kdev_ioctl(run->kdev, IDLELAB_IOC_IPI_STORM, &r, "IPI_STORM");
	if (ret)
		goto out;
	if (r.unsupported) {
		ret = il_errorf(-EOPNOTSUPP, "ipi_storm %s from CPU %d to %d targets: %s (module reason %u)",
				is_modes[p->mode], st->pl.cpus[0], nt,
				il_kunsup_str(r.unsupported), r.unsupported);
		goto out;
	}
	run->tsc_khz = r.tsc_khz;
	is_account_rounds(&r, rd, ar, targets, nt, rt, it, arr, &t);
	if (t.bad_rounds || r.nr_done != r.nr_rounds)
		*acks_ok = false;
	is_storm_attrs(run, st, nt, &r, &t, dest_set);
	if (r.nr_done < r.nr_rounds && !il_stop_requested())
		ret = il_errorf(-EIO, "IPI_STORM completed %u of %u rounds%s",
				r.nr_done, r.nr_rounds,
				r.run_flags & IDLELAB_RUN_UNDRAINED ?
				": a target's NMI never arrived, even after a drain of timeout_us, so no later round could be told from it" :
				"");
out:
	free(arr);
	free(targets);
	free(rd);
	free(ar);
	return ret;
}

static int is_run(struct il_run *run)
{
	struct is_state *st = run->priv;
	const struct is_params *p = run->params;
	bool acks_ok = true, dest_set = false;
	int i, nt, ret;

	il_run_attr(run, -1, "mode", "%s", is_modes[p->mode]);
	il_run_attr(run, -1, "sender_cpu", "%d", st->pl.cpus[0]);
	/* The raw modes send NMIs: none while a stray one would panic. */
	if (p->mode != IDLELAB_IPI_KERNEL) {
		ret = il_kcheck_nmi_panic();
		if (ret)
			return ret;
	}
	ret = is_apic_map(run);
	if (ret)
		return ret;
	for (i = 0; i < p->targets.n && !il_stop_requested(); i++) {
		nt = p->targets.v[i] ? (int)p->targets.v[i] : st->pl.n - 1;
		ret = is_storm(run, st, nt, &acks_ok, &dest_set);
		if (ret)
			return ret;
	}
	/* Exactly one ack per target per round, over every round. */
	il_run_attr(run, -1, "acks_ok", "%d", acks_ok);
	return 0;
}

/* About 20 us per closed-loop round, for each entry of the targets list. */
static uint64_t is_estimate_ns(const void *params,
			       const struct il_placement *place)
{
	const struct is_params *p = params;

	(void)place;
	return il_targets_estimate_ns(&p->targets, p->rounds, 20000);
}

/*
 * The module's run limit, counted as it counts it, with the UAPI's own
 * IDLELAB_STORM_WORST_US: every round's send, wait, close and next drain
 * each waiting out the timeout, and the final drain (kmod/ipi/storm.c).  A target
 * count beyond the placed CPUs after the sender cannot run.
 */
static int is_check(const void *params, const struct il_placement *place)
{
	const struct is_params *p = params;
	int ret;

	ret = il_kcheck_run_us("(4 x rounds + 1) x timeout_us",
			       IDLELAB_STORM_WORST_US(p->rounds,
						      p->timeout_us));
	if (ret || !place)
		return ret;
	return is_check_cpus(params, il_place_cpus(place, NULL, 0));
}

const struct il_bench_ops il_bench_ipi_storm = {
	.name = "ipi_storm",
	.summary = "closed-loop IPI storms from the first placed CPU to the others, physical/logical/broadcast/kernel (idlelab_ipi module)",
	.timestamps = "round_time: TSC before the first ICR write (t_issue) to the sender seeing the last acknowledgement (t_complete); issue_time: t_issue to after the last ICR write; arrival: t_issue to the first instruction of the target's handler",
	.flags = IL_BF_KMOD | IL_BF_MULTI_CPU,	/* /dev/idlelab_ipi; sender + targets */
	.report = {
		.ipi_metric = "round_time",	/* send to last acknowledgement */
		.ipi_by_mode = true,	/* physical, logical, broadcast, kernel */
	},
	.default_cpus = "all",
	.opts = is_opts,
	.params_size = sizeof(struct is_params),
	.kdev = IDLELAB_DEV_IPI,	/* the runner opens it around setup/teardown */
	.setup = is_setup,
	.run = is_run,
	.teardown = il_bench_state_free,
	.estimate_ns = is_estimate_ns,
	.check = is_check,
};
