// SPDX-License-Identifier: GPL-2.0-only
/*
 * registry.c - the one list of benchmarks.
 *
 * A plain array of the ops tables, not constructor-based registration,
 * which breaks silently when the objects come from a static library (an
 * object of bench/ that nothing references is never linked in).  A new
 * benchmark is one new file in bench/ plus one extern line and one array
 * line here; the kmod benchmarks are added the same way, one line each.
 */
#include "bench.h"

#include <string.h>

extern const struct il_bench_ops il_bench_timer_wake;
extern const struct il_bench_ops il_bench_futex_wake;
extern const struct il_bench_ops il_bench_membarrier_ipi;
extern const struct il_bench_ops il_bench_tlb_shootdown;
extern const struct il_bench_ops il_bench_tsc_gaps;
extern const struct il_bench_ops il_bench_cstate_wake;
extern const struct il_bench_ops il_bench_wbinvd;
extern const struct il_bench_ops il_bench_gaps_irqoff;
extern const struct il_bench_ops il_bench_ipi_storm;

/* In the order `idlelab list` shows them. */
const struct il_bench_ops *const il_benches[] = {
	&il_bench_timer_wake,
	&il_bench_futex_wake,
	&il_bench_membarrier_ipi,
	&il_bench_tlb_shootdown,
	&il_bench_tsc_gaps,
	&il_bench_cstate_wake,
	&il_bench_wbinvd,
	&il_bench_gaps_irqoff,
	&il_bench_ipi_storm,
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
