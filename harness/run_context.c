// SPDX-License-Identifier: GPL-2.0-only
/*
 * run_context.c - the run context helpers benchmarks call: series,
 * attributes and the stop flag set by signal handlers.
 */
#include "run_context.h"
#include "causes.h"
#include "err.h"
#include "store.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct il_run_attr_buf {
	int cpu;
	char key[48];
	char value[208];
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
	struct il_series *s, **v;

	s = il_series_new(metric, unit, cpu, cpu2, group, timed, r->keep_raw);
	if (!s)
		return NULL;
	pthread_mutex_lock(&r->lock);
	v = realloc(r->series, (r->nseries + 1) * sizeof(*v));
	if (v) {
		r->series = v;
		r->series[r->nseries++] = s;
	}
	pthread_mutex_unlock(&r->lock);
	if (!v) {
		il_series_free(s);
		return NULL;
	}
	return s;
}

int il_run_attr(struct il_run *r, int cpu, const char *key,
		const char *fmt, ...)
{
	struct il_run_attr_buf *v;
	va_list ap;
	int ret = 0;

	pthread_mutex_lock(&r->lock);
	v = realloc(r->attrs, (r->nattrs + 1) * sizeof(*v));
	if (!v) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	r->attrs = v;
	v = &r->attrs[r->nattrs++];
	v->cpu = cpu;
	snprintf(v->key, sizeof(v->key), "%s", key);
	va_start(ap, fmt);
	vsnprintf(v->value, sizeof(v->value), fmt, ap);
	va_end(ap);
out_unlock:
	pthread_mutex_unlock(&r->lock);
	return ret;
}

/**
 * il_run_init() - prepare a run context for @ops (params zeroed).
 */
int il_run_init(struct il_run *r, const struct il_bench_ops *ops)
{
	memset(r, 0, sizeof(*r));
	r->ops = ops;
	pthread_mutex_init(&r->lock, NULL);
	r->params = calloc(1, ops->params_size ? ops->params_size : 1);
	if (!r->params)
		return -ENOMEM;
	return 0;
}

/** il_run_attr_get() - attribute @i as a store.h record. */
void il_run_attr_get(const struct il_run *r, int i, struct il_run_attr *out)
{
	out->cpu = r->attrs[i].cpu;
	out->key = r->attrs[i].key;
	out->value = r->attrs[i].value;
}

/** il_run_attr_find() - the value of attribute @key on @cpu, or NULL. */
const char *il_run_attr_find(const struct il_run *r, int cpu, const char *key)
{
	int i;

	for (i = 0; i < r->nattrs; i++)
		if (r->attrs[i].cpu == cpu && !strcmp(r->attrs[i].key, key))
			return r->attrs[i].value;
	return NULL;
}

void il_run_release(struct il_run *r)
{
	int i;

	for (i = 0; i < r->nseries; i++)
		il_series_free(r->series[i]);
	free(r->series);
	free(r->attrs);
	free(r->params);
	il_place_free(&r->place);
	il_causes_free(r->causes);
	r->causes = NULL;
	pthread_mutex_destroy(&r->lock);
	r->series = NULL;
	r->attrs = NULL;
	r->params = NULL;
}
