// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_advise.c - the deterministic parts of `idlelab advise` (issue 24):
 * the budget parser, the order-statistic bound (ranks checked against the
 * binomial sums computed apart), and the choice and the settings for the
 * states that il_fingerprint() reads from fake sysfs trees: a
 * Sapphire-Rapids-like intel_idle table (POLL, C1, C1E, C6), an EPYC-like
 * acpi_idle one (POLL, C1, C2), one whose declared latencies cannot tell
 * two states apart, and a kernel without cpuidle.  Each answer is checked:
 * cap, all states, only POLL, none meets, too few samples, no cpuidle.
 */
#include "advise.h"
#include "env.h"
#include "err.h"
#include "stats.h"
#include "sysfs.h"
#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[] = "/tmp/idlelab-advise-XXXXXX";

static void put(const char *rel, const char *fmt, ...)
{
	char path[512], dir[512];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	il_mkdir_p(dir);
	f = fopen(path, "w");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

struct fake_state {
	const char *name, *desc;
	int lat, res;
};

/* A fresh tree of one online CPU with @n states under @driver. */
static void make_tree(const char *driver, const struct fake_state *s, int n)
{
	char cmd[600], rel[128];
	int k;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/sys", root);
	if (system(cmd))
		return;
	put("sys/devices/system/cpu/online", "0\n");
	put("sys/devices/system/cpu/cpuidle/current_driver", "%s\n", driver);
	put("sys/devices/system/cpu/cpuidle/current_governor", "menu\n");
	for (k = 0; k < n; k++) {
#define F(f, ...) do { \
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu0/cpuidle/state%d/" f, k); \
		put(rel, __VA_ARGS__); } while (0)
		F("name", "%s\n", s[k].name);
		F("desc", "%s\n", s[k].desc);
		F("latency", "%d\n", s[k].lat);
		F("residency", "%d\n", s[k].res);
		F("disable", "0\n");
#undef F
	}
	if (!n)
		put("sys/devices/system/cpu/cpu0/topology/core_id", "0\n");
}

/* The states il_fingerprint() sees in the tree. */
static int load(struct il_adv_state *st, char *driver, size_t dlen,
		char *why, size_t wlen)
{
	json_t *fp;
	int n;

	setenv("IDLELAB_SYSFS_ROOT", root, 1);
	fp = il_fingerprint(NULL);
	unsetenv("IDLELAB_SYSFS_ROOT");
	n = il_adv_states_from_fingerprint(fp, st, IL_ADV_MAX_STATES, driver,
					   dlen, why, wlen);
	json_decref(fp);
	return n;
}

/* State @k measured with @n samples, estimate and bound @ub_ns. */
static void measure(struct il_adv_state *s, uint64_t n, uint64_t ub_ns)
{
	s->n = n;
	s->point_ns = ub_ns * 9 / 10;
	s->ucb_ns = ub_ns;
	s->has_ucb = n >= il_quantile_min_n(0.9999, 0.95);
}

static const struct fake_state spr[] = {
	{ "POLL", "CPUIDLE CORE POLL IDLE", 0, 0 },
	{ "C1", "MWAIT 0x00", 1, 1 },
	{ "C1E", "MWAIT 0x01", 2, 4 },
	{ "C6", "MWAIT 0x20", 290, 800 },
};

static const struct fake_state epyc[] = {
	{ "POLL", "CPUIDLE CORE POLL IDLE", 0, 0 },
	{ "C1", "ACPI FFH MWAIT 0x0", 1, 2 },
	{ "C2", "ACPI IOPORT 0x814", 18, 36 },
};

static const char *sget(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

TEST(budget_parse)
{
	struct il_budget b;

	CHECK(il_budget_parse("p99.99<=50us", &b) == 0);
	CHECK(b.q > 0.99989 && b.q < 0.99991 && b.limit_ns == 50000);
	CHECK(il_budget_parse("p50<=2000ns", &b) == 0 && b.limit_ns == 2000);
	CHECK(il_budget_parse("p99 <= 1.5ms", &b) == 0 && b.limit_ns == 1500000);
	CHECK(il_budget_parse("p99<=1.5ms", &b) == 0 && b.limit_ns == 1500000);
	CHECK(il_budget_parse("p99.9<=7", &b) == 0 && b.limit_ns == 7000);
	CHECK(il_budget_parse("p100<=5us", &b) == -EINVAL);
	CHECK(il_budget_parse("p99<5us", &b) == -EINVAL);
	CHECK(il_budget_parse("q99<=5us", &b) == -EINVAL);
	CHECK(il_budget_parse("p99<=5s", &b) == -EINVAL);
	CHECK(il_budget_parse("p99<=-1us", &b) == -EINVAL);
	CHECK(strstr(il_errmsg(), "p99<=-1us") != NULL);
}

TEST(order_statistic_bound)
{
	/* The smallest u with P(Bin(n, q) <= u - 1) >= 0.95, summed apart. */
	CHECK(il_quantile_ucb_rank(100, 0.5, 0.95) == 59);
	CHECK(il_quantile_ucb_rank(1000, 0.99, 0.95) == 996);
	/* 0.9999^n <= 0.05 first at n = 29956: then the maximum bounds it. */
	CHECK(il_quantile_min_n(0.9999, 0.95) == 29956);
	CHECK(il_quantile_ucb_rank(29956, 0.9999, 0.95) == 29956);
	CHECK(il_quantile_ucb_rank(29955, 0.9999, 0.95) == 0);
	CHECK(il_quantile_ucb_rank(0, 0.5, 0.95) == 0);
	CHECK(il_quantile_min_n(0.99, 0.95) == 299);
}

TEST(spr_caps_at_c1e)
{
	struct il_adv_state st[IL_ADV_MAX_STATES];
	struct il_budget b;
	struct il_advice a;
	char drv[64], why[256];
	json_t *set;
	int n;

	make_tree("intel_idle", spr, 4);
	n = load(st, drv, sizeof(drv), why, sizeof(why));
	CHECKF(n == 4, "%d states (%s)", n, why);
	if (n != 4)
		return;
	CHECK(!strcmp(drv, "intel_idle") && !strcmp(st[3].name, "C6"));
	CHECK(st[3].latency_us == 290 && st[3].residency_us == 800);
	measure(&st[0], 40000, 2000);
	measure(&st[1], 40000, 3000);
	measure(&st[2], 40000, 5000);
	measure(&st[3], 40000, 210000);	/* gVisor's 150-230 us */
	il_budget_parse("p99.99<=50us", &b);
	il_advise_choose(st, n, &b, 0.95, &a);
	CHECK(a.answer == IL_ADV_CAP && a.deepest == 2 && a.stop == 3);
	CHECK(st[3].verdict == IL_ADV_FAILS && st[2].verdict == IL_ADV_MEETS);
	set = il_advise_settings(st, n, drv, &a);
	CHECK(set != NULL);
	if (!set)
		return;
	CHECK(json_integer_value(json_object_get(set, "cpu_dma_latency_us")) == 2);
	CHECK(!strcmp(sget(set, "pm_qos_resume_latency_us"), "2"));
	CHECK(json_array_size(json_object_get(set, "disable")) == 1 &&
	      json_integer_value(json_array_get(json_object_get(set, "disable"), 0)) == 3);
	CHECK(strstr(json_string_value(json_array_get(json_object_get(set, "disable_cmds"), 0)),
		     "cpu*/cpuidle/state3/disable") != NULL);
	CHECK(!strcmp(sget(set, "tuned"), "[cpu]\nforce_latency=cstate.name:C1E|2\n"));
	CHECK(!strcmp(sget(set, "cmdline"), "intel_idle.states_off=0x8"));
	json_decref(set);

	/* 2.5 us: POLL alone meets it. */
	il_budget_parse("p99.99<=2500ns", &b);
	il_advise_choose(st, n, &b, 0.95, &a);
	CHECK(a.answer == IL_ADV_ONLY_POLL && a.deepest == 0);
	set = il_advise_settings(st, n, drv, &a);
	CHECK(set && json_integer_value(json_object_get(set, "cpu_dma_latency_us")) == 0);
	/* The per-CPU file reads 0 as "no constraint". */
	CHECK(set && !strcmp(sget(set, "pm_qos_resume_latency_us"), "n/a"));
	CHECK(set && !strcmp(sget(set, "cmdline"), "idle=poll"));
	CHECK(set && json_array_size(json_object_get(set, "disable")) == 3);
	json_decref(set);

	/* 1 us: nothing does, and no settings are offered. */
	il_budget_parse("p99.99<=1us", &b);
	il_advise_choose(st, n, &b, 0.95, &a);
	CHECK(a.answer == IL_ADV_NONE_MEETS && a.deepest == -1 && a.stop == 0);
	CHECK(il_advise_settings(st, n, drv, &a) == NULL);

	/* C1E short of samples: the cap stays at C1, saying so. */
	il_budget_parse("p99.99<=50us", &b);
	measure(&st[2], 1000, 5000);
	il_advise_choose(st, n, &b, 0.95, &a);
	CHECK(a.answer == IL_ADV_CAP && a.deepest == 1);
	CHECK(st[2].verdict == IL_ADV_FEW && st[2].need_n == 29956);
}

TEST(epyc_acpi)
{
	struct il_adv_state st[IL_ADV_MAX_STATES];
	struct il_budget b;
	struct il_advice a;
	char drv[64], why[256];
	json_t *set;
	int n;

	make_tree("acpi_idle", epyc, 3);
	n = load(st, drv, sizeof(drv), why, sizeof(why));
	CHECKF(n == 3, "%d states (%s)", n, why);
	if (n != 3)
		return;
	measure(&st[0], 30000, 1500);
	measure(&st[1], 30000, 2500);
	measure(&st[2], 30000, 12000);	/* gVisor's 5-15 us */
	il_budget_parse("p99.99<=50us", &b);
	il_advise_choose(st, n, &b, 0.95, &a);
	CHECK(a.answer == IL_ADV_ALL && a.deepest == 2);
	set = il_advise_settings(st, n, drv, &a);
	CHECK(set && json_array_size(json_object_get(set, "disable")) == 0);
	CHECK(set && json_is_null(json_object_get(set, "cmdline")));
	json_decref(set);

	il_budget_parse("p99.99<=10us", &b);
	il_advise_choose(st, n, &b, 0.95, &a);
	CHECK(a.answer == IL_ADV_CAP && a.deepest == 1);
	set = il_advise_settings(st, n, drv, &a);
	CHECK(set && !strcmp(sget(set, "cmdline"), "processor.max_cstate=1"));
	CHECK(set && json_integer_value(json_object_get(set, "cpu_dma_latency_us")) == 1);
	json_decref(set);
}

TEST(too_few_and_no_qos_value)
{
	static const struct fake_state flat[] = {
		{ "POLL", "CPUIDLE CORE POLL IDLE", 0, 0 },
		{ "C1", "MWAIT 0x00", 2, 2 },
		{ "C6", "MWAIT 0x20", 2, 600 },	/* declares no more than C1 */
	};
	struct il_adv_state st[IL_ADV_MAX_STATES];
	struct il_budget b;
	struct il_advice a;
	char drv[64], why[256];
	json_t *set;
	int n;

	make_tree("intel_idle", flat, 3);
	n = load(st, drv, sizeof(drv), why, sizeof(why));
	CHECK(n == 3);
	if (n != 3)
		return;
	il_budget_parse("p99.99<=50us", &b);
	/* Nothing measured: how many samples, never an empty answer. */
	il_advise_choose(st, n, &b, 0.95, &a);
	CHECK(a.answer == IL_ADV_TOO_FEW && a.need_n == 29956 && a.stop == 0);
	CHECK(st[0].verdict == IL_ADV_UNMEASURED);
	measure(&st[0], 30000, 1000);
	measure(&st[1], 30000, 3000);
	measure(&st[2], 30000, 90000);
	il_advise_choose(st, n, &b, 0.95, &a);
	CHECK(a.answer == IL_ADV_CAP && a.deepest == 1);
	set = il_advise_settings(st, n, drv, &a);
	CHECK(set && json_is_null(json_object_get(set, "cpu_dma_latency_us")));
	CHECK(set && strstr(json_string_value(json_array_get(json_object_get(set, "notes"), 0)),
			    "C6 declares no more latency") != NULL);
	CHECK(set && !strcmp(sget(set, "tuned"), "[cpu]\nforce_latency=cstate.name:C1\n"));
	json_decref(set);
}

TEST(no_cpuidle)
{
	struct il_adv_state st[IL_ADV_MAX_STATES];
	struct il_budget b;
	struct il_advice a;
	char drv[64], why[256];
	int n;

	make_tree("none", NULL, 0);
	n = load(st, drv, sizeof(drv), why, sizeof(why));
	CHECK(n == 0 && !strcmp(drv, "none"));
	CHECK(strstr(why, "cpuidle driver none") == why);
	il_budget_parse("p99.99<=50us", &b);
	il_advise_choose(st, n, &b, 0.95, &a);
	CHECK(a.answer == IL_ADV_NO_CPUIDLE);
	CHECK(il_advise_settings(st, n, drv, &a) == NULL);
	CHECK(!strcmp(il_adv_answer_name(a.answer), "no_cpuidle"));
}

/*
 * --verify's verdict on one arm: 100 samples of 1..100 us bound p50 near
 * the 60th sample, so a 70 us budget is met, a 40 us one is not (above
 * the bound, though the estimate is 50 us); p99.99 cannot be bounded by
 * 100 samples and says how many it needs; an arm with no sample is too
 * few, never met.
 */
TEST(verify_arm_verdict)
{
	struct il_hist *h = il_hist_new();
	struct il_adv_arm x = { .runs = 2 };
	struct il_budget b;
	uint64_t v;

	for (v = 1; v <= 100; v++)
		il_hist_record(h, v * 1000);
	il_budget_parse("p50<=70us", &b);
	il_adv_arm_bound(h, &b, 0.95, &x);
	CHECK(x.runs == 2 && x.n == 100 && x.has_ucb);
	CHECK(x.ucb_ns > x.point_ns && x.ucb_ns <= 70000);
	CHECK(x.check == IL_ADV_CHECK_MET && x.need_n == 0);
	CHECK(!strcmp(il_adv_check_name(x.check), "met"));
	il_budget_parse("p50<=52us", &b);
	il_adv_arm_bound(h, &b, 0.95, &x);
	CHECK(x.point_ns <= 52000 && x.ucb_ns > 52000);
	CHECK(x.check == IL_ADV_CHECK_NOT_MET);
	il_budget_parse("p99.99<=1000us", &b);
	il_adv_arm_bound(h, &b, 0.95, &x);
	CHECK(!x.has_ucb && x.check == IL_ADV_CHECK_TOO_FEW);
	CHECK(x.need_n == il_quantile_min_n(0.9999, 0.95));
	CHECK(!strcmp(il_adv_check_name(x.check), "too_few_samples"));
	il_budget_parse("p99.99<=10us", &b);
	il_adv_arm_bound(h, &b, 0.95, &x);
	CHECK(x.check == IL_ADV_CHECK_NOT_MET);
	il_adv_arm_bound(NULL, &b, 0.95, &x);
	CHECK(x.n == 0 && x.check == IL_ADV_CHECK_TOO_FEW);
	il_hist_free(h);
}

int main(void)
{
	char cmd[600];

	if (!mkdtemp(root)) {
		printf("Bail out! mkdtemp failed\n");
		return 1;
	}
	RUN(budget_parse);
	RUN(order_statistic_bound);
	RUN(spr_caps_at_c1e);
	RUN(epyc_acpi);
	RUN(too_few_and_no_qos_value);
	RUN(no_cpuidle);
	RUN(verify_arm_verdict);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		printf("# could not remove %s\n", root);
	return tap_done();
}
