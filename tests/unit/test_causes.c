// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_causes.c - attribution (il_causes_attribute(), causes.h) on a
 * synthetic capture whose answer is known to the nanosecond: a preempting
 * RT thread with an IRQ nested in it, an idle period ended by the timer
 * vector and its softirq, an NMI (stamped at its end with its length), a
 * window before the first event, and the TSC clock's conversion.
 */
#include "causes.h"
#include "run_context.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static struct il_trace_ev evs[32];
static int nev;

static void ev(uint64_t ts, int type, int a, int64_t b, const char *name)
{
	struct il_trace_ev *e = &evs[nev];

	memset(e, 0, sizeof(*e));
	e->ts = ts;
	e->seq = (uint32_t)nev++;
	e->type = (uint8_t)type;
	e->a = a;
	e->b = b;
	if (name)
		strcpy(e->name, name);
}

static void timeline(uint64_t scale)
{
	nev = 0;
	ev(0 * scale, IL_TEV_SWITCH, 100, 120, "bench");
	ev(1000 * scale, IL_TEV_VEC_ENTRY, 0, 0, "local_timer");
	ev(1500 * scale, IL_TEV_VEC_EXIT, 0, 0, "local_timer");
	ev(2000 * scale, IL_TEV_SWITCH, 555, 9, "stall");
	ev(5000 * scale, IL_TEV_IRQ_ENTRY, 24, 0, "eth0");
	ev(5200 * scale, IL_TEV_IRQ_EXIT, 24, 0, NULL);
	ev(8000 * scale, IL_TEV_SWITCH, 100, 120, "bench");
	ev(9000 * scale, IL_TEV_SWITCH, 0, 120, "swapper/1");
	ev(9100 * scale, IL_TEV_IDLE, 2, 0, NULL);
	ev(12000 * scale, IL_TEV_IDLE, -1, 0, NULL);
	ev(12000 * scale, IL_TEV_VEC_ENTRY, 0, 0, "local_timer");
	ev(12300 * scale, IL_TEV_VEC_EXIT, 0, 0, "local_timer");
	ev(12400 * scale, IL_TEV_SOFTIRQ_ENTRY, 1, 0, NULL);
	ev(12600 * scale, IL_TEV_SOFTIRQ_EXIT, 1, 0, NULL);
	ev(12700 * scale, IL_TEV_SWITCH, 100, 120, "bench");
	/* The NMI ran 20200..20500: delta_ns is always ns. */
	ev(20500 * scale, IL_TEV_NMI, 0, 300, NULL);
}

static const struct il_cause *find(const struct il_cause_sample *w,
				   const char *kind, const char *name)
{
	int i;

	for (i = 0; i < w->ncauses; i++)
		if (!strcmp(w->causes[i].kind, kind) &&
		    !strcmp(w->causes[i].name, name))
			return &w->causes[i];
	return NULL;
}

static uint64_t ns_of(const struct il_cause_sample *w, const char *kind,
		      const char *name)
{
	const struct il_cause *c = find(w, kind, name);

	return c ? c->ns : 0;
}

static void attribute(enum il_trace_clock clock, uint64_t scale,
		      uint64_t khz, struct il_cause_sample *w, int n)
{
	struct il_trace_cpu pc = { .cpu = 1, .lost = 0 };
	pid_t tid = 100;
	struct il_trace t = { .clock = clock, .ncpus = 1, .cpu = &pc,
			      .ntids = 1, .tids = &tid };
	int cpus[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };

	timeline(scale);
	pc.ev = evs;
	pc.n = (size_t)nev;
	CHECK(il_causes_attribute(&t, 0, khz, w, (size_t)n, cpus) == 0);
}

static void windows(struct il_cause_sample *w)
{
	memset(w, 0, 5 * sizeof(*w));
	w[0].t_ns = 1800;	w[0].value_ns = 6400;
	w[1].t_ns = 9000;	w[1].value_ns = 3800;
	w[2].t_ns = 20000;	w[2].value_ns = 1000;
	w[3].t_ns = -500;	w[3].value_ns = 400;
	w[4].t_ns = 1400;	w[4].value_ns = 200;	/* ends inside nothing */
}

static void release(struct il_cause_sample *w, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(w[i].causes);
}

TEST(preemption_with_nested_irq)
{
	struct il_cause_sample w[5];

	windows(w);
	attribute(IL_TRACE_CLOCK_MONO, 1, 0, w, 5);
	/* The IRQ inside the thread's slice is the IRQ's, once. */
	CHECKF(ns_of(&w[0], "thread", "stall/555 (RT 90)") == 5800, "%llu",
	       (unsigned long long)ns_of(&w[0], "thread", "stall/555 (RT 90)"));
	CHECK(ns_of(&w[0], "irq", "irq 24 eth0") == 200);
	CHECK(find(&w[0], "irq", "irq 24 eth0")->count == 1);
	CHECK(w[0].unexplained_ns == 400);
	CHECK(w[0].ncauses == 2);
	/* Largest first: the order the report prints. */
	CHECK(!strcmp(w[0].causes[0].kind, "thread"));
	CHECK(w[0].idle_state == -1);
	release(w, 5);
}

TEST(idle_then_timer)
{
	struct il_cause_sample w[5];

	windows(w);
	attribute(IL_TRACE_CLOCK_MONO, 1, 0, w, 5);
	CHECK(ns_of(&w[1], "idle", "idle") == 3200);
	CHECK(ns_of(&w[1], "irq", "local_timer") == 300);
	CHECK(ns_of(&w[1], "softirq", "TIMER") == 200);
	CHECK(w[1].unexplained_ns == 100);
	CHECKF(w[1].idle_state == 2, "idle_state %d", w[1].idle_state);
	release(w, 5);
}

TEST(nmi_and_edges)
{
	struct il_cause_sample w[5];

	windows(w);
	attribute(IL_TRACE_CLOCK_MONO, 1, 0, w, 5);
	CHECK(ns_of(&w[2], "nmi", "nmi") == 300);
	CHECK(w[2].unexplained_ns == 700);
	/* Before the first event nothing is known: all unexplained. */
	CHECK(w[3].ncauses == 0 && w[3].unexplained_ns == 400);
	/* 1400..1600: the last 100 ns of the timer vector, then our own. */
	CHECK(ns_of(&w[4], "irq", "local_timer") == 100);
	CHECK(w[4].unexplained_ns == 100);
	release(w, 5);
}

TEST(tsc_clock)
{
	struct il_cause_sample w[5];

	/* 2 GHz: every event stamp is 2 cycles per ns. */
	windows(w);
	attribute(IL_TRACE_CLOCK_TSC, 2, 2000000, w, 5);
	CHECK(ns_of(&w[0], "thread", "stall/555 (RT 90)") == 5800);
	CHECK(ns_of(&w[1], "idle", "idle") == 3200);
	release(w, 5);
}

TEST(describe)
{
	struct il_cause_sample w[5];
	char buf[256];

	windows(w);
	attribute(IL_TRACE_CLOCK_MONO, 1, 0, w, 5);
	il_causes_describe(&w[0], buf, sizeof(buf));
	CHECKF(!strcmp(buf, "6.4 µs: 5.8 µs thread stall/555 (RT 90); 200 ns irq irq 24 eth0; 400 ns unexplained"),
	       "%s", buf);
	release(w, 5);
}

TEST(module_counts)
{
	struct il_cause_sample w[5];
	const struct il_cause *c;

	windows(w);
	/* w[0]: 2 SMIs and 1 NMI, no nmi_handler in it: both are causes. */
	w[0].smi = 2;
	w[0].nmi = 1;
	w[0].counts_valid = IL_CAUSES_SMI_VALID | IL_CAUSES_NMI_VALID;
	/* w[2]: the traced NMI stands for the module's count already. */
	w[2].nmi = 1;
	w[2].counts_valid = IL_CAUSES_NMI_VALID;
	/* w[1]: a count not valid (MSR unreadable) is no cause at all. */
	w[1].smi = 5;
	attribute(IL_TRACE_CLOCK_MONO, 1, 0, w, 5);
	c = find(&w[0], "smi", "SMI (MSR 0x34 count, untimed)");
	CHECK(c && c->count == 2 && c->ns == 0);
	c = find(&w[0], "nmi", "NMI (module count, untimed)");
	CHECK(c && c->count == 1);
	CHECK(w[2].ncauses == 1 && ns_of(&w[2], "nmi", "nmi") == 300);
	CHECK(!find(&w[1], "smi", "SMI (MSR 0x34 count, untimed)"));
	/* Untimed causes explain no time. */
	CHECK(w[0].unexplained_ns == 400);
	release(w, 5);
}

/*
 * gaps_irqoff's gaps take their NMI and SMI counts from the timed
 * companion series gap_nmi and gap_smi, matched by the gap's time; a gap
 * whose SMI read failed (no gap_smi entry) claims no SMI.
 */
TEST(gap_companion_counts)
{
	static const struct il_bench_ops ops = { .name = "gap_companion" };
	struct il_series *gap, *nmi, *smi, *other;
	struct il_run run;
	struct il_cause_sample w[3];
	int k;

	CHECK(il_run_init(&run, &ops) == 0);
	run.keep_raw = true;
	gap = il_run_series(&run, "gap", "ns", 2, -1, -1, true);
	nmi = il_run_series(&run, "gap_nmi", "count", 2, -1, -1, true);
	smi = il_run_series(&run, "gap_smi", "count", 2, -1, -1, true);
	other = il_run_series(&run, "gap_smi", "count", 3, -1, -1, true);
	CHECK(gap && nmi && smi && other);
	if (!gap || !nmi || !smi || !other) {
		il_run_release(&run);
		return;
	}
	memset(w, 0, sizeof(w));
	for (k = 0; k < 3; k++) {
		w[k].t_ns = 1000 * (k + 1);
		il_series_add_timed(gap, 1000 * (k + 1), 500);
		il_series_add_timed(nmi, 1000 * (k + 1), k);
	}
	il_series_add_timed(smi, 1000, 4);	/* gap 2's read failed */
	il_series_add_timed(smi, 3000, 1);
	il_series_add_timed(other, 2000, 9);	/* another CPU's */
	il_causes_gap_counts(&run, gap, w, 3);
	CHECK(w[0].counts_valid == (IL_CAUSES_NMI_VALID | IL_CAUSES_SMI_VALID) &&
	      w[0].nmi == 0 && w[0].smi == 4);
	CHECK(w[1].counts_valid == IL_CAUSES_NMI_VALID && w[1].nmi == 1 &&
	      w[1].smi == 0);
	CHECK(w[2].counts_valid == (IL_CAUSES_NMI_VALID | IL_CAUSES_SMI_VALID) &&
	      w[2].nmi == 2 && w[2].smi == 1);
	il_run_release(&run);
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd) == 0 && (f = fopen(path, "w"))) {
		fputs(text, f);
		fclose(f);
	}
}

/* Windows of one untimed series: two in state 1, one not idle. */
static void states_of(struct il_causes_run *c, struct il_series *s)
{
	struct il_cause_sample w[3];
	int i;

	memset(w, 0, sizeof(w));
	memset(c, 0, sizeof(*c));
	for (i = 0; i < 3; i++) {
		w[i].series = s;
		w[i].cpu = 1;
		w[i].value_ns = 1000 * (uint64_t)(i + 1);
		w[i].idle_state = i < 2 ? 1 : -1;
	}
	CHECK(il_causes_states(c, w, 3) == 0);
}

static const struct il_cause_state *state(const struct il_causes_run *c,
					  const char *name)
{
	int i;

	for (i = 0; i < c->nstates; i++)
		if (!strcmp(c->states[i].name, name))
			return &c->states[i];
	return NULL;
}

TEST(idle_states)
{
	char root[] = "/tmp/test_causes.XXXXXX";
	struct il_series *s = il_series_new("wake_latency", "ns", 1, -1, -1,
					    false, false);
	struct il_causes_run c;
	const struct il_cause_state *st;
	char cmd[64];

	CHECK(s && mkdtemp(root));
	setenv("IDLELAB_SYSFS_ROOT", root, 1);
	/* No cpuidle driver: every sample is "state unknown", none guessed. */
	states_of(&c, s);
	st = state(&c, "no cpuidle driver: state unknown");
	CHECKF(c.nstates == 1 && st && st->sum.count == 3, "%d states", c.nstates);
	il_causes_states_free(&c);
	/* A driver: cpuidle's names, and the CPU that did not idle. */
	put(root, "/sys/devices/system/cpu/cpuidle/current_driver", "haltpoll\n");
	put(root, "/sys/devices/system/cpu/cpu1/cpuidle/state1/name", "C1\n");
	states_of(&c, s);
	st = state(&c, "C1");
	CHECK(c.nstates == 2 && st && st->sum.count == 2 && st->state == 1);
	CHECK(st && st->sum.min == 1000 && st->sum.max == 2000);
	st = state(&c, "not idle");
	CHECK(st && st->sum.count == 1 && st->state == -1);
	il_causes_states_free(&c);
	unsetenv("IDLELAB_SYSFS_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	il_series_free(s);
}

/*
 * A busy machine runs thousands of short-lived processes: every one must
 * keep its own name (a fixed-size table of owners once turned those past
 * 4096 into unexplained time).
 */
TEST(many_threads)
{
	enum { N = 6000 };
	struct il_trace_ev *e = calloc(2 * N, sizeof(*e));
	struct il_cause_sample *w = calloc(N, sizeof(*w));
	int *cpus = calloc(N, sizeof(*cpus)), i, bad = 0;
	struct il_trace_cpu pc = { .cpu = 1, .lost = 0 };
	pid_t tid = 100;
	struct il_trace t = { .clock = IL_TRACE_CLOCK_MONO, .ncpus = 1,
			      .cpu = &pc, .ntids = 1, .tids = &tid };
	char name[64];

	CHECK(e && w && cpus);
	if (!e || !w || !cpus)
		return;
	/* Thread 1000 + i runs [1000 i, 1000 i + 500), then the benchmark. */
	for (i = 0; i < N; i++) {
		e[2 * i] = (struct il_trace_ev){ .ts = 1000 * (uint64_t)i,
			.seq = (uint32_t)(2 * i), .type = IL_TEV_SWITCH,
			.a = 1000 + i, .b = 120 };
		snprintf(e[2 * i].name, sizeof(e[2 * i].name), "job");
		e[2 * i + 1] = (struct il_trace_ev){ .ts = 1000 * (uint64_t)i + 500,
			.seq = (uint32_t)(2 * i + 1), .type = IL_TEV_SWITCH,
			.a = 100, .b = 120 };
		w[i].t_ns = 1000 * i;
		w[i].value_ns = 600;
		cpus[i] = 1;
	}
	pc.ev = e;
	pc.n = 2 * N;
	CHECK(il_causes_attribute(&t, 0, 0, w, N, cpus) == 0);
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "job/%d", 1000 + i);
		if (ns_of(&w[i], "thread", name) != 500 || w[i].unexplained_ns != 100)
			bad++;
		free(w[i].causes);
	}
	CHECKF(bad == 0, "%d of %d windows lost their thread", bad, N);
	free(e);
	free(w);
	free(cpus);
}

int main(void)
{
	RUN(preemption_with_nested_irq);
	RUN(idle_then_timer);
	RUN(nmi_and_edges);
	RUN(tsc_clock);
	RUN(describe);
	RUN(module_counts);
	RUN(gap_companion_counts);
	RUN(idle_states);
	RUN(many_threads);
	return tap_done();
}
