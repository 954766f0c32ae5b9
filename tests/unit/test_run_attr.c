// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_run_attr.c - a run attribute keeps its value whole (issue 24).
 * idle_sweep records the declared idle table of the kernel it ran under
 * as one attribute, so that `report --kind declared` can tell a machine's
 * kernels apart after an in-place upgrade; an Intel table runs past the
 * 207 bytes a value once was cut at, and a cut table is not JSON.
 */
#include "tap.h"

#include "bench_registry.h"
#include "run_context.h"
#include "store.h"

#include <string.h>

static void test_long_value_kept_whole(void)
{
	const struct il_bench_ops *ops = il_bench_find("idle_sweep");
	struct il_run run;
	struct il_run_attr a;
	char big[1500];
	const char *v;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK(ops != NULL);
	if (!ops || il_run_init(&run, ops))
		return;
	CHECK(il_run_attr(&run, -1, "short", "%d", 42) == 0);
	CHECK(il_run_attr(&run, 3, "long", "[%s]", big) == 0);
	v = il_run_attr_find(&run, 3, "long");
	CHECK(v && strlen(v) == strlen(big) + 2);
	CHECK(v && v[0] == '[' && !strncmp(v + 1, big, strlen(big)) &&
	      !strcmp(v + 1 + strlen(big), "]"));
	CHECK(il_run_nattrs(&run) == 2);
	il_run_attr_get(&run, 0, &a);
	CHECK(a.cpu == -1 && !strcmp(a.key, "short") && !strcmp(a.value, "42"));
	il_run_release(&run);
}

int main(void)
{
	RUN(long_value_kept_whole);
	return tap_done();
}
