// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_campaign_bad.c - campaign files idlelab must refuse
 * (harness/campaign.c): one case per class of bad file, each checked for
 * the "FILE:LINE: key 'x': message" it must produce, a missing file, and a
 * constraint across parameters that only the benchmark's check op sees.
 * The benchmarks are the real registered ones, and placements are checked
 * against the running machine (CPUs 0 and 1 at least, no CPU 999).
 */
#include "tap.h"

#include "campaign.h"
#include "err.h"
#include "run_execute.h"
#include "topo.h"
#include "campaign_fixture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * A constraint that spans parameters passes the parser (each value is
 * valid alone) and is refused by il_run_prepare() through the benchmark's
 * check op, which `idlelab run --dry-run` calls on every entry.
 */
TEST(check_op_refuses_at_prepare)
{
	struct il_campaign *c = parse(
		"name: ck\ngroups:\n"
		"  - {bench: timer_wake, cpus: '0', params: {interval_us: 500, interval_max_us: 100}}\n");
	struct il_run_request req = { .plan_index = -1 };
	struct il_counters *counters = NULL;
	struct il_run run;
	int ret;

	CHECK(c != NULL);
	if (!c)
		return;
	req.ops = c->plan[0].ops;
	req.cpus = c->plan[0].cpus;
	req.block = c->plan[0].block;
	ret = il_run_prepare(topo, &req, &run, &counters);
	CHECKF(ret == -EINVAL, "ret %d", ret);
	CHECKF(strstr(il_errmsg(), "interval_max_us"), "message: %s", il_errmsg());
	il_counters_close(counters);
	il_run_release(&run);
	il_campaign_free(c);
}

/* Each class of bad file: the text and what the message must contain. */
static const struct {
	const char *what;
	const char *text;
	const char *msg;
} bad[] = {
	{ "unknown top-level key",
	  "name: x\ngrups: []\n",
	  "t.yaml:2: key 'grups': unknown key in the campaign (did you mean 'groups'?)" },
	{ "unknown group key",
	  "name: x\ngroups:\n  - bench: tsc_gaps\n    cpu: '0'\n",
	  "t.yaml:4: key 'cpu': unknown key in a group (did you mean 'cpus'?)" },
	{ "wrong type: list for a number",
	  "name: x\ngroups:\n  - bench: tsc_gaps\n    repetitions: [1, 2]\n",
	  "t.yaml:4: key 'repetitions': expected a number, got a list" },
	{ "wrong type: word for a number",
	  "name: x\ndefaults:\n  repetitions: many\ngroups:\n  - bench: tsc_gaps\n",
	  "t.yaml:3: key 'repetitions': expected a whole number, got 'many'" },
	{ "zero repetitions",
	  "name: x\ngroups:\n  - {bench: tsc_gaps, repetitions: 0}\n",
	  "t.yaml:3: key 'repetitions': 0 is out of range" },
	{ "wrong type: groups not a list",
	  "name: x\ngroups: {bench: tsc_gaps}\n",
	  "t.yaml:2: key 'groups': expected a list of groups, got a mapping" },
	{ "wrong type: bool",
	  "name: x\ngroups:\n  - {bench: tsc_gaps, raw: maybe}\n",
	  "t.yaml:3: key 'raw': expected true or false, got 'maybe'" },
	{ "unknown benchmark with suggestion",
	  "name: x\ngroups:\n  - bench: timer_wak\n",
	  "t.yaml:3: key 'bench': unknown benchmark 'timer_wak' (did you mean 'timer_wake'?)" },
	{ "unknown benchmark",
	  "name: x\ngroups:\n  - bench: frobnicate\n",
	  "t.yaml:3: key 'bench': unknown benchmark 'frobnicate'" },
	{ "unknown parameter in matrix",
	  "name: x\ngroups:\n  - bench: timer_wake\n    matrix:\n      intervl_us: [1]\n",
	  "t.yaml:5: key 'intervl_us': benchmark timer_wake has no parameter 'intervl_us' (did you mean 'interval_us'?)" },
	{ "unknown parameter in params",
	  "name: x\ngroups:\n  - bench: tsc_gaps\n    params: {nosuch: 1}\n",
	  "t.yaml:4: key 'nosuch': benchmark tsc_gaps has no parameter 'nosuch'" },
	{ "bad value, at the value's line",
	  "name: x\ngroups:\n  - bench: timer_wake\n    matrix:\n      samples:\n        - 10\n        - abc\n",
	  "t.yaml:7: key 'samples': 'abc'" },
	{ "negative value",
	  "name: x\ngroups:\n  - bench: timer_wake\n    params: {samples: -5}\n",
	  "t.yaml:4: key 'samples': '-5'" },
	{ "empty matrix list",
	  "name: x\ngroups:\n  - bench: timer_wake\n    matrix:\n      samples: []\n",
	  "t.yaml:5: key 'samples': empty list: the matrix would have no runs" },
	{ "empty matrix",
	  "name: x\ngroups:\n  - bench: timer_wake\n    matrix: {}\n",
	  "t.yaml:4: key 'matrix': empty matrix" },
	{ "impossible placement: offline CPU",
	  "name: x\ngroups:\n  - bench: timer_wake\n    cpus: '999'\n",
	  "t.yaml:4: key 'cpus': " },
	{ "impossible placement: malformed",
	  "name: x\ngroups:\n  - bench: timer_wake\n    cpus: [\"0\", \"1-x\"]\n",
	  "t.yaml:4: key 'cpus': " },
	{ "impossible placement: pairs benchmark on one CPU",
	  "name: x\ngroups:\n  - bench: futex_wake\n    cpus: '0'\n",
	  "t.yaml:4: key 'cpus': '0': futex_wake needs CPU pairs" },
	{ "missing name",
	  "groups:\n  - bench: tsc_gaps\n",
	  "t.yaml:1: key 'name': missing" },
	{ "bad name",
	  "name: my campaign\ngroups:\n  - bench: tsc_gaps\n",
	  "t.yaml:1: key 'name': 'my campaign' is not a valid name" },
	{ "missing groups",
	  "name: x\n",
	  "t.yaml:1: key 'groups': missing" },
	{ "no groups",
	  "name: x\ngroups: []\n",
	  "t.yaml:2: key 'groups': empty list" },
	{ "group without a bench",
	  "name: x\ngroups:\n  - cpus: '0'\n",
	  "t.yaml:3: key 'bench': missing" },
	{ "duplicate key",
	  "name: x\ngroups:\n  - bench: tsc_gaps\n    bench: timer_wake\n",
	  "t.yaml:4: key 'bench': duplicate key in a group (first on line 3)" },
	{ "key in params and matrix",
	  "name: x\ngroups:\n  - bench: timer_wake\n    params: {samples: 1}\n    matrix: {samples: [2]}\n",
	  "t.yaml:5: key 'samples': set in both params (line 4) and matrix" },
	{ "list under params for a scalar parameter",
	  "name: x\ngroups:\n  - bench: timer_wake\n    params: {samples: [1, 2]}\n",
	  "t.yaml:4: key 'samples': expected one value, got a list (to run each value, put 'samples' under 'matrix')" },
	{ "defaults param no benchmark has",
	  "name: x\ndefaults:\n  params: {sampels: 5}\ngroups:\n  - bench: timer_wake\n",
	  "t.yaml:3: key 'sampels': no benchmark of this campaign has this parameter (did you mean 'samples'?)" },
	{ "unknown environment key",
	  "name: x\nenvironment:\n  goverinor: performance\ngroups:\n  - bench: tsc_gaps\n",
	  "t.yaml:3: key 'goverinor': unknown key in environment (did you mean 'governor'?)" },
	{ "negative PM QoS",
	  "name: x\nenvironment: {pm_qos_us: -1}\ngroups:\n  - bench: tsc_gaps\n",
	  "t.yaml:2: key 'pm_qos_us': expected a whole number, got '-1'" },
	{ "cpuidle_only not a list",
	  "name: x\nenvironment:\n  cpuidle_only: C1\ngroups:\n  - bench: tsc_gaps\n",
	  "t.yaml:3: key 'cpuidle_only': expected a list of idle state names" },
	{ "empty cpuidle_only",
	  "name: x\nenvironment:\n  cpuidle_only: []\ngroups:\n  - bench: tsc_gaps\n",
	  "t.yaml:3: key 'cpuidle_only': empty list" },
	{ "sched_fifo out of range",
	  "name: x\nenvironment: {sched_fifo: 100}\ngroups:\n  - bench: tsc_gaps\n",
	  "t.yaml:2: key 'sched_fifo': 100 is out of range [1, 99]" },
	{ "bad pin",
	  "name: x\nenvironment: {pin_freq_khz: fast}\ngroups:\n  - bench: tsc_gaps\n",
	  "t.yaml:2: key 'pin_freq_khz': expected max, min or a frequency in kHz, got 'fast'" },
	{ "YAML syntax error",
	  "name: x\ngroups:\n  - bench: [tsc_gaps\n",
	  "YAML syntax error" },
	{ "two documents",
	  "name: x\ngroups:\n  - bench: tsc_gaps\n---\nname: y\n",
	  "t.yaml:4: a second YAML document" },
	{ "empty file",
	  "",
	  "t.yaml:1: the file is empty" },
	{ "top level not a mapping",
	  "- a\n- b\n",
	  "t.yaml:1: expected a mapping, got a list" },
};

TEST(bad_files)
{
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct il_campaign *c = NULL;
		int ret = il_campaign_parse_scaled("t.yaml", bad[i].text,
					    strlen(bad[i].text), topo, 1.0, &c);

		CHECKF(ret == -EINVAL, "%s: ret %d", bad[i].what, ret);
		CHECK(c == NULL);
		CHECKF(strstr(il_errmsg(), bad[i].msg) != NULL,
		       "%s:\n#   got  '%s'\n#   want '%s'", bad[i].what,
		       il_errmsg(), bad[i].msg);
		il_campaign_free(c);
	}
}

TEST(load_missing_file)
{
	struct il_campaign *c = NULL;

	CHECK(il_campaign_load_scaled("/nonexistent/x.yaml", topo, 1.0, &c) == -ENOENT);
	CHECK(strstr(il_errmsg(), "/nonexistent/x.yaml") != NULL);
}

int main(void)
{
	if (fixture_topo_open())
		return 1;
	RUN(check_op_refuses_at_prepare);
	RUN(bad_files);
	RUN(load_missing_file);
	il_topo_close(topo);
	return tap_done();
}
