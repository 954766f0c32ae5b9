// SPDX-License-Identifier: GPL-2.0-only
/*
 * mkfixture.c - writes the fixed fixture database the report golden tests
 * read (tests/integration/test_analysis.sh): two machines, timer_wake and
 * cstate_wake-style runs with idle_state/wake_source attributes, futex
 * pairs, IPI runs over target counts and modes, and an A/B pair of
 * configurations with a known shift.  Every UUID, time and sample comes
 * from fixed constants and a fixed LCG, so the same binary always writes
 * the same rows, and the reports' output can be compared byte for byte.
 *
 * usage: mkfixture DB [SUFFIX]  (SUFFIX, one hex digit, varies the run
 * UUIDs and machine so the merge tests can make many distinct inputs)
 */
#include "series.h"
#include "store.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t lcg = 12345;

/* A skewed latency-like value around @base: a body plus a rare tail. */
static uint64_t sample(uint64_t base, uint64_t spread)
{
	uint64_t r;

	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	r = (lcg >> 33) % 1000;
	if (r >= 990)
		return base + spread * 5 + r;
	return base + (r * r % 997) * spread / 997;
}

static unsigned int nrun;
static char suffix = '0';

static int save(struct il_store *s, const char *machine, const char *bench,
		const char *params, struct il_series **sv, int ns,
		const struct il_run_attr *attrs, int nattrs)
{
	struct il_run_rec r = { 0 };
	int i, ret;

	snprintf(r.uuid, sizeof(r.uuid), "00000000-0000-4000-8000-%c000000%05u",
		 suffix, (++nrun) % 100000u);
	snprintf(r.machine_uuid, sizeof(r.machine_uuid), "%s", machine);
	r.bench = bench;
	r.params_json = params;
	r.placement = "fixture";
	r.cpus_json = "[]";
	r.plan_index = -1;
	r.start_ns = 1700000000000000000ULL + (uint64_t)nrun * 1000000000ULL;
	r.end_ns = r.start_ns + 500000000ULL;
	r.status = "ok";
	r.tool_version = "fixture";
	r.cmdline = "mkfixture";
	r.nseries = ns;
	r.series = sv;
	r.nattrs = nattrs;
	r.attrs = attrs;
	ret = il_store_save_run(s, &r);
	for (i = 0; i < ns; i++)
		il_series_free(sv[i]);
	return ret;
}

static struct il_series *series(const char *metric, int cpu, int cpu2, int64_t grp,
				int n, uint64_t base, uint64_t spread)
{
	struct il_series *s = il_series_new(metric, "ns", cpu, cpu2, grp, false, false);
	int i;

	for (i = 0; i < n; i++)
		il_series_add(s, sample(base, spread));
	return s;
}

int main(int argc, char **argv)
{
	char alpha[37], beta[37];
	struct il_store *s;
	struct il_series *sv[8];
	int ret = 0, n, i, k;
	static const char *const states[] = { "POLL", "C1", "C6" };
	static const char *const modes[] = { "physical", "logical" };

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: mkfixture DB [SUFFIX]\n");
		return 2;
	}
	if (argc == 3)
		suffix = argv[2][0];
	lcg = 12345 + (uint64_t)suffix;
	snprintf(alpha, sizeof(alpha), "aaaaaaaa-0000-4000-8000-00000000000%c", suffix);
	snprintf(beta, sizeof(beta), "bbbbbbbb-0000-4000-8000-00000000000%c", suffix);
	if (il_store_open(argv[1], IL_STORE_CREATE, &s)) {
		fprintf(stderr, "mkfixture: %s\n", il_errmsg());
		return 1;
	}
	ret = il_store_put_machine(s, alpha, "alpha", "{\"cpu\":{\"model\":\"Fixture A\"}}", NULL) ?:
	      il_store_put_machine(s, beta, "beta", "{\"cpu\":{\"model\":\"Fixture B\"}}", NULL);

	/* timer_wake, A/B by irq_mode on alpha: late is ~5 % slower. */
	for (i = 0; !ret && i < 2; i++) {
		sv[0] = series("wake_latency", 0, -1, -1, 2000, 1000, 400);
		sv[1] = series("wake_latency", 1, -1, -1, 2000, 1000, 400);
		ret = save(s, alpha, "timer_wake", "{\"interval_us\":200,\"irq_mode\":\"early\"}", sv, 2, NULL, 0);
		if (ret)
			break;
		sv[0] = series("wake_latency", 0, -1, -1, 2000, 1050, 420);
		sv[1] = series("wake_latency", 1, -1, -1, 2000, 1050, 420);
		ret = save(s, alpha, "timer_wake", "{\"interval_us\":200,\"irq_mode\":\"late\"}", sv, 2, NULL, 0);
	}
	/* beta: the same benchmark, no real difference from alpha's early. */
	if (!ret) {
		sv[0] = series("wake_latency", 0, -1, -1, 3000, 1000, 400);
		ret = save(s, beta, "timer_wake", "{\"interval_us\":200,\"irq_mode\":\"early\"}", sv, 1, NULL, 0);
	}
	/* cstate_wake: one run per idle state x wake source. */
	for (n = 0; !ret && n < 3; n++) {
		struct il_run_attr a[2] = {
			{ -1, "idle_state", states[n] },
			{ -1, "wake_source", "timer" },
		};

		sv[0] = series("wake_latency", 2, -1, -1, 1500, 800 + 20000 * n * n, 300 + 100 * n);
		sv[1] = series("intr_latency", 2, -1, -1, 1500, 600 + 20000 * n * n, 200 + 100 * n);
		ret = save(s, alpha, "cstate_wake", "{\"launch_ns\":100000}", sv, 2, a, 2);
		if (ret)
			break;
		a[1].value = "ipi";
		sv[0] = series("wake_latency", 3, -1, -1, 1500, 2200 + 20000 * n * n, 300 + 100 * n);
		ret = save(s, alpha, "cstate_wake", "{\"launch_ns\":100000}", sv, 1, a, 2);
	}
	/* futex_wake pairs on alpha: 0..3, nearer CPUs cheaper. */
	if (!ret) {
		int k = 0, a, b;

		for (a = 0; a < 3; a++)
			for (b = 0; b < 3; b++)
				if (a != b)
					sv[k++] = series("wake_latency", a, b, -1, 500,
							 3000 + 400 * (a + b), 500);
		ret = save(s, alpha, "futex_wake", "{\"idle_us\":50}", sv, k, NULL, 0);
	}
	/* IPI: ipi_storm physical/logical, membarrier and tlb_shootdown. */
	for (n = 0; !ret && n < 2; n++) {
		char p[64];

		snprintf(p, sizeof(p), "{\"mode\":\"%s\",\"rounds\":500}", modes[n]);
		for (i = 0; i < 4; i++)
			sv[i] = series("round_time", 0, -1, 1 << (i + 1), 500,
				       1500 + (uint64_t)(1 << (i + 1)) * (n ? 700 : 900), 200);
		ret = save(s, alpha, "ipi_storm", p, sv, 4, NULL, 0);
	}
	if (!ret) {
		for (i = 0; i < 4; i++)
			sv[i] = series("call_latency", 0, -1, 1 << (i + 1), 500,
				       4000 + (uint64_t)(1 << (i + 1)) * 1200, 300);
		ret = save(s, alpha, "membarrier_ipi", "{\"samples\":500}", sv, 4, NULL, 0);
	}
	if (!ret) {
		for (i = 0; i < 4; i++)
			sv[i] = series("call_latency", 0, -1, 1 << (i + 1), 500,
				       6000 + (uint64_t)(1 << (i + 1)) * 1500, 300);
		ret = save(s, alpha, "tlb_shootdown", "{\"samples\":500,\"mode\":\"madvise\"}", sv, 4, NULL, 0);
	}
	/*
	 * The IPI table's configurations and baselines: two more runs of
	 * each user-space twin with N = 0, 2, 4, 8, 16 (the fit has points to
	 * work with), tlb_shootdown in both modes (mprotect dearer, so a
	 * merged median would show), and futex_wake pairs with idle_us 0
	 * (faster, no idle state entered) against the idle_us 50 matrix.
	 */
	for (n = 0; !ret && n < 2; n++) {
		static const char *const tparams[] = {
			"{\"samples\":500,\"mode\":\"madvise\"}",
			"{\"samples\":500,\"mode\":\"mprotect\"}",
		};

		for (i = 0; i < 5; i++)
			sv[i] = series("call_latency", 0, -1, i ? 1 << i : 0, 500,
				       4000 + (uint64_t)(i ? 1 << i : 0) * 1200, 300);
		ret = save(s, alpha, "membarrier_ipi", "{\"samples\":500}", sv, 5, NULL, 0);
		for (k = 0; !ret && k < 2; k++) {
			for (i = 0; i < 5; i++)
				sv[i] = series("call_latency", 0, -1, i ? 1 << i : 0, 500,
					       (k ? 9000 : 6000) +
					       (uint64_t)(i ? 1 << i : 0) * (k ? 2500 : 1500), 300);
			ret = save(s, alpha, "tlb_shootdown", tparams[k], sv, 5, NULL, 0);
		}
	}
	if (!ret) {
		int k = 0, a, b;

		for (a = 0; a < 3; a++)
			for (b = 0; b < 3; b++)
				if (a != b)
					sv[k++] = series("wake_latency", a, b, -1, 500,
							 1500 + 200 * (a + b), 300);
		ret = save(s, alpha, "futex_wake", "{\"idle_us\":0}", sv, k, NULL, 0);
	}
	if (ret)
		fprintf(stderr, "mkfixture: %s\n", il_errmsg());
	il_store_close(s);
	return ret ? 1 : 0;
}
