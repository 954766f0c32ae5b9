// SPDX-License-Identifier: GPL-2.0-only
/*
 * registry.c - the one list of benchmarks.
 *
 * A plain array of the ops tables, not constructor-based registration,
 * which breaks silently when the objects come from a static library (an
 * object of bench/ that nothing references is never linked in).  A new
 * benchmark is one new file in bench/ plus one X(name) line here, from
 * which both its extern declaration and its array entry are made; the
 * kmod benchmarks are added the same way.  It lives in bench/, beside the
 * benchmarks it names, so that the library in harness/ names none of them
 * and finds each through il_benches[] and its ops table.
 */
#include "bench.h"
#include "bench_registry.h"

#include <string.h>

/*
 * In the order `idlelab list` shows them: X(name) names the ops table
 * il_bench_<name> of bench/<name>.c.  Adding a benchmark is one line
 * here; tests/integration/test_template_bench.sh proves it.
 */
#define IL_BENCH_LIST(X)	\
	X(timer_wake)		\
	X(futex_wake)		\
	X(idle_sweep)		\
	X(membarrier_ipi)	\
	X(tlb_shootdown)	\
	X(tsc_gaps)		\
	X(cstate_wake)		\
	X(wbinvd)		\
	X(gaps_irqoff)		\
	X(ipi_storm)		\
	/* end of the list: one X(name) line above per benchmark */

#define IL_BENCH_DECLARE(n)	extern const struct il_bench_ops il_bench_##n;
#define IL_BENCH_ENTRY(n)	&il_bench_##n,

IL_BENCH_LIST(IL_BENCH_DECLARE)

const struct il_bench_ops *const il_benches[] = {
	IL_BENCH_LIST(IL_BENCH_ENTRY)
	NULL
};

const struct il_bench_ops *il_bench_find(const char *name)
{
	int i;

	if (!name)
		return NULL;
	for (i = 0; il_benches[i]; i++)
		if (!strcmp(il_benches[i]->name, name))
			return il_benches[i];
	return NULL;
}

const char *il_bench_suggest(const char *name)
{
	struct il_suggester s;
	int i;

	il_suggest_init(&s, name);
	for (i = 0; il_benches[i]; i++)
		il_suggest_consider(&s, il_benches[i]->name);
	return s.best;
}
