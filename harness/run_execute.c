// SPDX-License-Identifier: GPL-2.0-only
/*
 * run_execute.c - executes one run (run_execute.h) and hands it to the store.
 *
 * Design notes: the benchmark's teardown() runs whenever setup()
 * succeeded, and the run row is written whatever the outcome, so a failed
 * or interrupted run is visible in the dataset with its reason instead of
 * vanishing.  The counters bracket run() alone, not setup(), so thread
 * creation and buffer allocation do not pollute the deltas.
 */
#include "run_execute.h"
#include "causes.h"
#include "env.h"
#include "err.h"
#include "kmod_frame.h"
#include "run_status.h"
#include "store_causes.h"
#include "store_pending.h"
#include "tsc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int il_run_prepare(struct il_topo *topo, const struct il_run_request *req,
		   struct il_run *run, struct il_counters **counters)
{
	const struct il_bench_ops *ops = req->ops;
	const char *spec = req->cpus ? req->cpus : ops->default_cpus;
	int cpus[IL_MAX_CPUS];
	char hyp[16];
	int n, ret;

	*counters = NULL;
	ret = il_run_init(run, ops);
	if (ret)
		return il_errorf(ret, "out of memory");
	run->topo = topo;
	run->keep_raw = req->keep_raw;
	/* Alone it would silently capture nothing: a usage error. */
	if (req->causes_lean && !req->causes)
		return il_errorf(-EINVAL, "--causes-lean needs --causes");
	if (req->causes) {
		run->causes = calloc(1, sizeof(*run->causes));
		if (!run->causes)
			return il_errorf(-ENOMEM, "out of memory");
		run->causes->threshold_ns = req->causes_threshold_ns;
		run->causes->buffer_kb = req->causes_buffer_kb;
		run->causes->lean = req->causes_lean;
	}
	/* Parsed before it came here (run_execute.h): copied, never text. */
	memcpy(run->params, req->block, ops->params_size);
	ret = il_place_parse(topo, spec ? spec : "all", &run->place);
	if (ret)
		return ret;
	if ((ops->flags & IL_BF_PAIRS) && run->place.kind != IL_PLACE_PAIRS)
		return il_errorf(-EINVAL, "--cpus '%s': %s needs CPU pairs (e.g. pairs:smt or pairs:0-1)",
				 run->place.spec, ops->name);
	if ((ops->flags & IL_BF_MULTI_CPU) && run->place.kind == IL_PLACE_CPUS &&
	    run->place.ncpus < 2)
		return il_errorf(-EINVAL, "--cpus '%s': %s needs at least two CPUs",
				 run->place.spec, ops->name);
	if (ops->check) {
		ret = ops->check(run->params, &run->place);
		if (ret)
			return ret;
	}
	n = il_place_cpus(&run->place, cpus, IL_MAX_CPUS);
	if (n < 0)
		return n;
	/*
	 * Every run on a hypervisor-tagged machine says so, whatever it
	 * measures: the report lists it among the flagged runs.
	 */
	if (il_env_hypervisor(hyp, sizeof(hyp)))
		il_run_attr(run, -1, "under_hypervisor", "%s", hyp);
	if (req->events && !strcmp(req->events, IL_EVENTS_NONE))
		ret = il_run_attr(run, -1, "counters", "off (events: none)");
	else
		ret = il_counters_open(counters, req->backend, req->events,
				       cpus, n) ?:
		      il_run_attr(run, -1, "counters", "on");
	return ret == -ENOMEM ? il_errorf(ret, "out of memory") : ret;
}

static char *placement_json(const struct il_placement *p)
{
	json_t *a = json_array(), *pair;
	char *s;
	int i;

	if (p->kind == IL_PLACE_PAIRS) {
		for (i = 0; i < p->npairs; i++) {
			pair = json_pack("[ii]", p->pairs[i].a, p->pairs[i].b);
			json_array_append_new(a, pair);
		}
	} else {
		for (i = 0; i < p->ncpus; i++)
			json_array_append_new(a, json_integer(p->cpus[i]));
	}
	s = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return s;
}

char *il_run_params_json(const struct il_bench_ops *ops, const void *params)
{
	json_t *j = il_opts_to_json(ops->opts, params);
	char *s = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	json_decref(j);
	return s;
}

static uint64_t realtime_ns(void)
{
	return il_now_ns(CLOCK_REALTIME);
}

static int store_run(struct il_store *store, const char *machine_uuid,
		     const struct il_run_request *req, struct il_run *run,
		     struct il_counters *counters, json_t *before,
		     json_t *after, uint64_t start, uint64_t end,
		     struct il_run_outcome *out)
{
	struct il_run_rec rec = { 0 };
	struct il_counter_result *cres = NULL;
	struct il_run_attr *attrs = NULL;
	json_t *delta = NULL;
	char *params_s = NULL, *cpus_s = NULL, *b_s = NULL, *a_s = NULL;
	char *d_s = NULL;
	int i, ret;

	snprintf(rec.uuid, sizeof(rec.uuid), "%s", out->uuid);
	snprintf(rec.machine_uuid, sizeof(rec.machine_uuid), "%s", machine_uuid);
	rec.bench = run->ops->name;
	/* A run carries the text it was hashed over or printed with; only
	 * one without it is rendered here, once. */
	if (req->params_json) {
		rec.params_json = req->params_json;
	} else {
		params_s = il_run_params_json(run->ops, run->params);
		rec.params_json = params_s;
	}
	rec.placement = run->place.spec[0] ? run->place.spec :
			(req->cpus ? req->cpus : run->ops->default_cpus);
	cpus_s = placement_json(&run->place);
	rec.cpus_json = cpus_s;
	rec.campaign = req->campaign;
	rec.plan_index = req->campaign ? req->plan_index : -1;
	rec.param_hash = req->param_hash;
	rec.start_ns = start;
	rec.end_ns = end;
	rec.status = out->status;
	rec.status_reason = out->reason[0] ? out->reason : NULL;
	rec.tool_version = IL_VERSION;
	rec.git_rev = IL_GIT_REV;
	rec.cmdline = req->cmdline;
	rec.tsc_khz = run->tsc_khz;
	if (before) {
		b_s = json_dumps(before, JSON_COMPACT);
		rec.env_before_json = b_s;
	}
	if (after) {
		a_s = json_dumps(after, JSON_COMPACT);
		rec.env_after_json = a_s;
	}
	if (before && after) {
		delta = il_env_delta(before, after);
		d_s = delta ? json_dumps(delta, JSON_COMPACT) : NULL;
		rec.env_delta_json = d_s;
	}
	rec.nseries = il_run_nseries(run);
	rec.series = il_run_series_all(run);
	if (counters) {
		rec.ncounters = il_counters_nresults(counters);
		cres = calloc(rec.ncounters ? rec.ncounters : 1, sizeof(*cres));
		for (i = 0; cres && i < rec.ncounters; i++)
			cres[i] = *il_counters_result(counters, i);
		rec.counters = cres;
	}
	rec.nattrs = il_run_nattrs(run);
	attrs = calloc(rec.nattrs ? rec.nattrs : 1, sizeof(*attrs));
	for (i = 0; attrs && i < rec.nattrs; i++)
		il_run_attr_get(run, i, &attrs[i]);
	rec.attrs = attrs;
	if (!attrs || !rec.params_json || (counters && !cres))
		ret = il_errorf(-ENOMEM, "out of memory storing the run");
	else
		ret = il_store_save_run_causes(store, &rec, run->causes);
	/* The measurement is done: a refusal must not lose it.  The error
	 * is still returned, so the caller stops and says where it went. */
	out->kept[0] = '\0';
	if (ret && ret != -ENOMEM && ret != -EINVAL)
		il_store_pending_save(store, &rec, run->causes, out->kept,
				      sizeof(out->kept));
	free(attrs);
	free(cres);
	free(params_s);
	free(cpus_s);
	free(b_s);
	free(a_s);
	free(d_s);
	json_decref(delta);
	return ret;
}

/*
 * Flag a run during which a CPU's thermal-throttle counters rose (run
 * attribute thermal_throttle_rose, per CPU): its figures were measured on
 * a CPU slowed by heat, which the report says beside them.  And record
 * each CPU's effective frequency over the run (effective_mhz, from APERF
 * and MPERF) where the MSRs were readable.
 */
static void note_throttling(struct il_run *run, json_t *before, json_t *after)
{
	json_t *d = il_env_delta(before, after), *c;
	const char *key;
	long long core, pkg;

	double khz;

	json_object_foreach(json_object_get(d, "cpus"), key, c) {
		if (il_env_thermal_rose(c, &core, &pkg))
			il_run_attr(run, atoi(key), "thermal_throttle_rose",
				    "core +%lld, package +%lld", core, pkg);
		/* Where the MSRs were readable: the clock the run had. */
		if (json_object_get(c, "aperf_mperf") &&
		    il_env_effective_khz(c, run->tsc_khz ? run->tsc_khz :
					 il_tsc_khz(), &khz))
			il_run_attr(run, atoi(key), "effective_mhz", "%.1f",
				    khz / 1000);
	}
	json_decref(d);
}

/*
 * Flag a run whose series did not stay put (run attribute not_stationary,
 * per CPU): warm-up is a fixed few discards, and a run that was still
 * settling, or whose machine changed under it, publishes a mix.  Judged
 * on every untimed series, raw or not (il_series_drifted()).
 */
static void note_drift(struct il_run *run)
{
	char why[256];
	int i;

	for (i = 0; i < il_run_nseries(run); i++) {
		const struct il_series *s = il_run_series_at(run, i);

		if (il_series_drifted(s, why, sizeof(why)))
			il_run_attr(run, s->cpu, "not_stationary", "%s", why);
	}
}

int il_run_execute(struct il_store *store, const char *machine_uuid,
		   const struct il_run_request *req, struct il_run *run,
		   struct il_counters *counters, struct il_run_outcome *out)
{
	const struct il_bench_ops *ops = run->ops;
	const char *why = il_bench_supported(ops);
	json_t *before = NULL, *after = NULL;
	uint64_t start, end;
	int ret = 0, set_up = 0;

	il_uuid_v4(out->uuid);
	out->reason[0] = '\0';
	start = realtime_ns();
	if (why) {
		out->status = "unsupported";
		snprintf(out->reason, sizeof(out->reason), "%s", why);
		return store_run(store, machine_uuid, req, run, NULL, NULL, NULL,
				 start, start, out);
	}
	before = il_env_snapshot();
	il_errclear();
	ret = il_run_kdev_open(run);	/* the frame: kmod_frame.c */
	if (!ret && ops->setup) {
		ret = ops->setup(run);
		set_up = ret == 0;
	} else {
		set_up = !ret;
	}
	if (!ret)
		il_causes_begin(run);	/* after setup: clock and threads known */
	if (!ret && counters)
		ret = il_counters_start(counters);
	if (!ret)
		ret = ops->run(run);
	/* The failing step's message is the reason: what runs below (the
	 * counters' stop, teardown, the closing snapshot) may set others. */
	if (ret)
		snprintf(out->reason, sizeof(out->reason), "%s", il_errmsg());
	if (counters)
		il_counters_stop(counters);
	if (set_up && ops->teardown)
		ops->teardown(run);
	il_run_kdev_close(run);		/* the frame: kmod_frame.c */
	il_causes_end(run);
	after = il_env_snapshot();
	end = realtime_ns();
	note_throttling(run, before, after);
	note_drift(run);
	if (ret == -EOPNOTSUPP) {
		/* Only running could tell (e.g. MWAIT faulted in the module). */
		out->status = "unsupported";
	} else if (ret) {
		out->status = "failed";
	} else if (il_stop_requested()) {
		out->status = "interrupted";
		snprintf(out->reason, sizeof(out->reason),
			 "stopped by a signal; samples up to then are kept");
	} else {
		out->status = "ok";
	}
	ret = store_run(store, machine_uuid, req, run, counters, before, after,
			start, end, out);
	json_decref(before);
	json_decref(after);
	return ret;
}

/* A run stored as @status with @reason, never attempted. */
static int store_not_run(struct il_store *store, const char *machine_uuid,
			 const struct il_run_request *req, const char *status,
			 const char *reason, struct il_run_outcome *out)
{
	struct il_run run;
	uint64_t now = realtime_ns();
	int ret;

	ret = il_run_init(&run, req->ops);
	if (ret)
		return ret;
	memcpy(run.params, req->block, req->ops->params_size);
	il_uuid_v4(out->uuid);
	out->status = status;
	snprintf(out->reason, sizeof(out->reason), "%s", reason);
	ret = store_run(store, machine_uuid, req, &run, NULL, NULL, NULL, now,
			now, out);
	il_run_release(&run);
	return ret;
}

int il_store_skipped(struct il_store *store, const char *machine_uuid,
		     const struct il_run_request *req, const char *reason,
		     struct il_run_outcome *out)
{
	return store_not_run(store, machine_uuid, req,
			     il_run_status_name(IL_RUN_SKIPPED), reason, out);
}

int il_store_unsupported(struct il_store *store, const char *machine_uuid,
			 const struct il_run_request *req, const char *reason,
			 struct il_run_outcome *out)
{
	return store_not_run(store, machine_uuid, req,
			     il_run_status_name(IL_RUN_UNSUPPORTED), reason,
			     out);
}

int il_machine_register(struct il_store *store, struct il_topo *topo,
			char uuid[37])
{
	json_t *fp, *host;
	char *fp_s, *xml;
	int ret;

	ret = il_host_uuid(uuid);
	if (ret)
		return ret;
	fp = il_fingerprint(topo);
	if (!fp)
		return il_errorf(-ENOMEM, "cannot build the machine fingerprint");
	host = json_object_get(fp, "hostname");
	fp_s = json_dumps(fp, JSON_COMPACT | JSON_SORT_KEYS);
	xml = il_topo_xml(topo);
	ret = il_store_put_machine(store, uuid,
				   json_is_string(host) ? json_string_value(host) : "unknown",
				   fp_s, xml);
	free(xml);
	free(fp_s);
	json_decref(fp);
	return ret;
}
