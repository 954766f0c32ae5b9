// SPDX-License-Identifier: GPL-2.0-only
/*
 * causes_idle_entered.c - the idle state each noted sample's CPU was really in
 * (power:cpu_idle inside its window), for `report --kind states`: every
 * noted sample of a --causes run, not only the outliers, goes into one
 * histogram per metric, CPU and state entered, named as cpuidle names it.
 *
 * Where the kernel has no cpuidle driver, or a lean capture left cpu_idle
 * out, the state is not knowable and the rows say so ("no cpuidle driver:
 * state unknown") instead of guessing;
 * a sample whose CPU did not idle inside its window is "not idle".
 */
#include "causes.h"
#include "err.h"
#include "stats.h"
#include "sysfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_DRIVER	"no cpuidle driver: state unknown"
#define NOT_RECORDED	"cpu_idle not recorded (--causes-lean): state unknown"

static bool have_driver(void)
{
	char buf[64];

	if (il_fs_read("/sys/devices/system/cpu/cpuidle/current_driver", buf,
		       sizeof(buf)) < 0)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] && strcmp(buf, "none");
}

static void state_name(int cpu, int state, char *out, size_t len)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name", cpu, state);
	if (il_fs_read(path, buf, sizeof(buf)) < 0) {
		snprintf(out, len, "state%d", state);
		return;
	}
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(out, len, "%s", buf);
}

static struct il_cause_state *find(struct il_causes_run *c,
				   const struct il_cause_sample *w,
				   const char *name)
{
	struct il_cause_state *v;
	int i;

	/* By metric, not series: the table keeps one row per run, metric,
	 * CPU and state, so the series of one metric that differ only in
	 * their group (idle_sweep's idle times) are pooled, not stored twice
	 * (which the table's key refuses, losing the run). */
	for (i = 0; i < c->nstates; i++)
		if (!strcmp(c->states[i].series->metric, w->series->metric) &&
		    c->states[i].cpu == w->cpu &&
		    !strcmp(c->states[i].name, name))
			return &c->states[i];
	v = realloc(c->states, (size_t)(c->nstates + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->states = v;
	v = &v[c->nstates];
	memset(v, 0, sizeof(*v));
	v->series = w->series;
	v->cpu = w->cpu;
	v->state = w->idle_state;
	snprintf(v->name, sizeof(v->name), "%s", name);
	il_summary_init(&v->sum);
	v->hist = il_hist_new();
	if (!v->hist)
		return NULL;
	c->nstates++;
	return v;
}

int il_causes_states(struct il_causes_run *c, const struct il_cause_sample *w,
		     size_t n)
{
	bool driver = have_driver();
	struct il_cause_state *s;
	char name[64];
	size_t k;

	for (k = 0; k < n; k++) {
		if (w[k].series->raw_layout == IL_RAW_TIMED)
			continue;	/* gaps are not wakes */
		if (c->lean)
			snprintf(name, sizeof(name), NOT_RECORDED);
		else if (!driver)
			snprintf(name, sizeof(name), NO_DRIVER);
		else if (w[k].idle_state < 0)
			snprintf(name, sizeof(name), "not idle");
		else
			state_name(w[k].cpu, w[k].idle_state, name, sizeof(name));
		s = find(c, &w[k], name);
		if (!s)
			return il_errorf(-ENOMEM, "out of memory");
		il_summary_add(&s->sum, w[k].value_ns);
		il_hist_record(s->hist, w[k].value_ns);
	}
	return 0;
}

void il_causes_states_free(struct il_causes_run *c)
{
	int i;

	for (i = 0; i < c->nstates; i++)
		il_hist_free(c->states[i].hist);
	free(c->states);
	c->states = NULL;
	c->nstates = 0;
}
