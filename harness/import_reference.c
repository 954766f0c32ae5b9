// SPDX-License-Identifier: GPL-2.0-only
/*
 * import_reference.c - `idlelab import reference` (import.h): the seeds'
 * published figures (data/reference/seeds.json) into reference machines.
 *
 * Idempotent without any bookkeeping table: reference rows carry fixed
 * UUIDs in their file, so a second import finds them present and adds
 * nothing.
 *
 * Reference rows (machines.is_reference = 1, with their source) hold only
 * what a post published.  A full seed-002-style row (n, min, max, median,
 * mean, stddev) becomes a summary whose percentiles past the median are
 * NULL; the schema wants a histogram for every summary, so it gets a
 * placeholder holding the published min and max once and the median
 * n - 2 times, flagged by the run attribute ref.histogram.  Reports take
 * a reference row's statistics from the summary, never from that
 * histogram.  Lone figures ("65-69 us") become run attributes
 * "published:NAME".
 */
#include "import.h"
#include "env.h"
#include "err.h"
#include "stats.h"
#include "store.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * What one reference run owns until it is stored: the records handed to
 * il_store_save_run(), the attribute keys built here and the placeholder
 * histograms.
 */
struct ref_rec {
	struct il_run_attr *attrs;
	int nattrs;
	char (*keys)[128];	/* "published:NAME", one per figure */
	struct il_published_series *pub;
	struct il_hist **hists;
	int npub;
};

static void ref_rec_free(struct ref_rec *rr)
{
	while (rr->npub > 0)
		il_hist_free(rr->hists[--rr->npub]);
	free(rr->keys);
	free(rr->attrs);
	free(rr->pub);
	free(rr->hists);
}

/* @key must outlive the record: the document's, or rr->keys. */
static int ref_attr(struct ref_rec *rr, const char *key, const char *val)
{
	struct il_run_attr *na;

	na = realloc(rr->attrs, (size_t)(rr->nattrs + 1) * sizeof(*na));
	if (!na)
		return il_errorf(-ENOMEM, "out of memory");
	rr->attrs = na;
	na[rr->nattrs++] = (struct il_run_attr){ .cpu = -1, .key = key,
						 .value = val };
	return 0;
}

static int ref_series(struct ref_rec *rr, const char *run, json_t *se)
{
	json_int_t n = json_integer_value(json_object_get(se, "count"));
	json_int_t mn = json_integer_value(json_object_get(se, "min"));
	json_int_t mx = json_integer_value(json_object_get(se, "max"));
	json_int_t med = json_integer_value(json_object_get(se, "median"));
	const char *metric = json_string_value(json_object_get(se, "metric"));
	const char *unit = json_string_value(json_object_get(se, "unit"));
	json_t *sd = json_object_get(se, "stddev");
	struct il_published_series *np, *p;
	struct il_hist **nh, *h;

	if (!metric || !unit || n < 3 || mn < 0 || mx < mn || med < mn || med > mx ||
	    !json_is_number(json_object_get(se, "mean")))
		return il_errorf(-EINVAL, "run %s: a series needs metric, unit, count >= 3, min <= median <= max and mean", run);
	np = realloc(rr->pub, (size_t)(rr->npub + 1) * sizeof(*np));
	if (np)
		rr->pub = np;
	nh = np ? realloc(rr->hists, (size_t)(rr->npub + 1) * sizeof(*nh)) : NULL;
	if (nh)
		rr->hists = nh;
	h = nh ? il_hist_new() : NULL;
	if (!h)
		return il_errorf(-ENOMEM, "out of memory");
	/* The placeholder histogram: published points only (see the top). */
	il_hist_record_n(h, (uint64_t)mn, 1);
	il_hist_record_n(h, (uint64_t)med, (uint64_t)n - 2);
	il_hist_record_n(h, (uint64_t)mx, 1);
	rr->hists[rr->npub] = h;
	p = &rr->pub[rr->npub++];
	*p = (struct il_published_series){
		.metric = metric, .unit = unit,
		.count = (uint64_t)n, .min = (uint64_t)mn, .max = (uint64_t)mx,
		.median = (uint64_t)med,
		.mean = json_number_value(json_object_get(se, "mean")),
		.stddev = json_is_number(sd) ? json_number_value(sd) : NAN,
		.hist = h,
	};
	return 0;
}

static int ref_run(struct il_store *s, json_t *run, const char *path, int *nruns)
{
	const char *uuid = json_string_value(json_object_get(run, "uuid"));
	const char *mach = json_string_value(json_object_get(run, "machine"));
	const char *bench = json_string_value(json_object_get(run, "bench"));
	json_t *params = json_object_get(run, "params"), *v, *series, *figures;
	struct il_run_rec r = { .plan_index = -1 };
	struct ref_rec rr = { 0 };
	const char *k;
	size_t i, nfig;
	char *ps;
	int ret;

	if (!uuid || !il_uuid_valid(uuid) || !mach || !bench ||
	    strlen(mach) >= sizeof(r.machine_uuid))
		return il_errorf(-EINVAL, "%s: a run needs uuid, machine and bench", path);
	ret = il_store_has_run(s, uuid);
	if (ret)
		return ret < 0 ? ret : 0;	/* already there: nothing below it is added */
	figures = json_object_get(run, "figures");
	rr.keys = calloc(json_object_size(figures) + 1, sizeof(*rr.keys));
	if (!rr.keys)
		return il_errorf(-ENOMEM, "out of memory");
	json_object_foreach(json_object_get(run, "attrs"), k, v)
		if (!ret && json_is_string(v))
			ret = ref_attr(&rr, k, json_string_value(v));
	nfig = 0;
	json_object_foreach(figures, k, v) {
		if (ret || !json_is_string(v))
			continue;
		snprintf(rr.keys[nfig], sizeof(rr.keys[nfig]), "published:%s", k);
		ret = ref_attr(&rr, rr.keys[nfig++], json_string_value(v));
	}
	series = json_object_get(run, "series");
	json_array_foreach(series, i, v)
		if (!ret)
			ret = ref_series(&rr, uuid, v);
	if (!ret && json_array_size(series))
		ret = ref_attr(&rr, "ref.histogram",
			       "placeholder: published min, median and max only; percentiles past the median were not published");
	ps = ret ? NULL : json_dumps(json_is_object(params) ? params : json_object(),
				     JSON_COMPACT | JSON_SORT_KEYS);
	if (!ret) {
		snprintf(r.uuid, sizeof(r.uuid), "%s", uuid);
		snprintf(r.machine_uuid, sizeof(r.machine_uuid), "%s", mach);
		r.bench = bench;
		r.params_json = ps ? ps : "{}";
		r.placement = "published";
		r.status = "ok";
		r.tool_version = "reference";
		r.cmdline = path;
		r.nattrs = rr.nattrs;
		r.attrs = rr.attrs;
		r.npublished = rr.npub;
		r.published = rr.pub;
		ret = il_store_save_run(s, &r);
		if (ret) {
			/* il_errorf() must not format from its own buffer. */
			char why[256];

			snprintf(why, sizeof(why), "%s", il_errmsg());
			ret = il_errorf(ret, "%s: run %s: %s", path, uuid, why);
		} else {
			(*nruns)++;
		}
	}
	free(ps);
	ref_rec_free(&rr);
	return ret;
}

int il_import_reference(struct il_store *s, const char *path, int *nruns)
{
	json_t *doc, *v;
	json_error_t jerr;
	size_t i;
	int ret = 0;

	*nruns = 0;
	doc = json_load_file(path, 0, &jerr);
	if (!doc) {
		if (access(path, R_OK))
			return il_errorf(-ENOENT, "%s: %s", path, strerror(errno));
		return il_errorf(-EINVAL, "%s:%d: not JSON: %s", path, jerr.line, jerr.text);
	}
	if (strcmp(json_string_value(json_object_get(doc, "format")) ?: "", "idlelab-reference/1")) {
		json_decref(doc);
		return il_errorf(-EINVAL, "%s: not an idlelab reference file (format must be \"idlelab-reference/1\")", path);
	}
	ret = il_store_begin(s);
	if (ret) {
		json_decref(doc);
		return ret;
	}
	json_array_foreach(json_object_get(doc, "machines"), i, v) {
		const char *uuid = json_string_value(json_object_get(v, "uuid"));
		const char *host = json_string_value(json_object_get(v, "hostname"));
		const char *src = json_string_value(json_object_get(v, "source"));
		char *fp;

		if (ret)
			break;
		if (!uuid || !il_uuid_valid(uuid) || !host || !src) {
			ret = il_errorf(-EINVAL, "%s: a machine needs uuid, hostname and source", path);
			break;
		}
		fp = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
		ret = il_store_put_reference_machine(s, uuid, host, fp, src);
		free(fp);
	}
	json_array_foreach(json_object_get(doc, "runs"), i, v)
		if (!ret)
			ret = ref_run(s, v, path, nruns);
	if (ret) {
		il_store_end(s, false);
		*nruns = 0;
	} else {
		ret = il_store_end(s, true);
	}
	json_decref(doc);
	return ret;
}
