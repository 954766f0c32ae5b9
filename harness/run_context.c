// SPDX-License-Identifier: GPL-2.0-only
/*
 * run_context.c - the run context helpers benchmarks call: series,
 * attributes and the stop flag set by signal handlers; and the harness's
 * side (run_context.h): init, the accessors, release.
 *
 * What the helpers record lives in struct il_run_owned, defined only
 * here, so that bench.h shows a benchmark a pointer and not the lock,
 * the arrays or their counts.
 */
#include "run_context.h"
#include "causes.h"
#include "err.h"
#include "store.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct il_run_attr_buf {
	int cpu;
	char key[48];
	char *value;	/* whole: a declared idle table runs long */
};

/* What il_run_series() and il_run_attr() record, under @lock. */
struct il_run_owned {
	pthread_mutex_t lock;
	int nseries;
	struct il_series **series;
	int nattrs;
	struct il_run_attr_buf *attrs;
};

static volatile sig_atomic_t il_stop;

bool il_stop_requested(void)
{
	return il_stop != 0;
}

void il_request_stop(void)
{
	il_stop = 1;
}

struct il_series *il_run_series(struct il_run *r, const char *metric,
				const char *unit, int cpu, int cpu2,
				int64_t group, bool timed)
{
	struct il_run_owned *o = r->own;
	struct il_series *s, **v;

	s = il_series_new(metric, unit, cpu, cpu2, group, timed, r->keep_raw);
	if (!s)
		return NULL;
	pthread_mutex_lock(&o->lock);
	v = realloc(o->series, (o->nseries + 1) * sizeof(*v));
	if (v) {
		o->series = v;
		o->series[o->nseries++] = s;
	}
	pthread_mutex_unlock(&o->lock);
	if (!v) {
		il_series_free(s);
		return NULL;
	}
	return s;
}

int il_run_attr(struct il_run *r, int cpu, const char *key,
		const char *fmt, ...)
{
	struct il_run_owned *o = r->own;
	struct il_run_attr_buf *v;
	va_list ap;
	int ret = 0;

	char *val;

	va_start(ap, fmt);
	if (vasprintf(&val, fmt, ap) < 0)
		val = NULL;
	va_end(ap);
	if (!val)
		return -ENOMEM;
	pthread_mutex_lock(&o->lock);
	v = realloc(o->attrs, (o->nattrs + 1) * sizeof(*v));
	if (!v) {
		free(val);
		ret = -ENOMEM;
		goto out_unlock;
	}
	o->attrs = v;
	v = &o->attrs[o->nattrs++];
	v->cpu = cpu;
	snprintf(v->key, sizeof(v->key), "%s", key);
	v->value = val;
out_unlock:
	pthread_mutex_unlock(&o->lock);
	return ret;
}

/**
 * il_run_init() - prepare a run context for @ops (params zeroed).
 */
int il_run_init(struct il_run *r, const struct il_bench_ops *ops)
{
	memset(r, 0, sizeof(*r));
	r->ops = ops;
	r->own = calloc(1, sizeof(*r->own));
	if (!r->own)
		return -ENOMEM;
	pthread_mutex_init(&r->own->lock, NULL);
	r->params = calloc(1, ops->params_size ? ops->params_size : 1);
	if (!r->params)
		return -ENOMEM;
	return 0;
}

/*
 * The accessors below and il_run_release() take a run that il_run_init()
 * never reached (zeroed, or its allocation failed) as one with nothing
 * recorded.
 */
int il_run_nseries(const struct il_run *r)
{
	return r->own ? r->own->nseries : 0;
}

struct il_series *il_run_series_at(const struct il_run *r, int i)
{
	return r->own->series[i];
}

struct il_series *const *il_run_series_all(const struct il_run *r)
{
	return r->own ? r->own->series : NULL;
}

int il_run_nattrs(const struct il_run *r)
{
	return r->own ? r->own->nattrs : 0;
}

/** il_run_attr_get() - attribute @i as a store.h record. */
void il_run_attr_get(const struct il_run *r, int i, struct il_run_attr *out)
{
	const struct il_run_attr_buf *a = &r->own->attrs[i];

	out->cpu = a->cpu;
	out->key = a->key;
	out->value = a->value;
}

/** il_run_attr_find() - the value of attribute @key on @cpu, or NULL. */
const char *il_run_attr_find(const struct il_run *r, int cpu, const char *key)
{
	const struct il_run_owned *o = r->own;
	int i;

	for (i = 0; o && i < o->nattrs; i++)
		if (o->attrs[i].cpu == cpu && !strcmp(o->attrs[i].key, key))
			return o->attrs[i].value;
	return NULL;
}

void il_run_release(struct il_run *r)
{
	struct il_run_owned *o = r->own;
	int i;

	if (o) {
		for (i = 0; i < o->nseries; i++)
			il_series_free(o->series[i]);
		free(o->series);
		for (i = 0; i < o->nattrs; i++)
			free(o->attrs[i].value);
		free(o->attrs);
		pthread_mutex_destroy(&o->lock);
		free(o);
		r->own = NULL;
	}
	free(r->params);
	il_place_free(&r->place);
	il_causes_free(r->causes);
	r->causes = NULL;
	r->params = NULL;
}
