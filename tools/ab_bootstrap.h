/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ab_bootstrap.h - the pooled-sample bootstrap of tools/ab_bootstrap.c,
 * which only tools/ab-sim.c links: the method the A/B table used before
 * issue 12, kept to show its coverage and not part of the library.
 *
 * Errors follow err.h.
 */
#ifndef IDLELAB_TOOLS_AB_BOOTSTRAP_H
#define IDLELAB_TOOLS_AB_BOOTSTRAP_H

#include <stdint.h>

#include "stats.h"

/**
 * il_ab_pooled_bootstrap() - the method the A/B table used before issue
 * 12: every sample of an arm pooled into one histogram and resampled as
 * if independent.  The 95 % percentile interval of the change of the
 * median, in % of @a's, from @resamples replicates seeded by @seed.
 * Kept for tools/ab-sim only, to show its coverage.
 */
int il_ab_pooled_bootstrap(const struct il_hist *a, const struct il_hist *b,
			   uint64_t seed, int resamples, double ci_med[2],
			   double ci_mean[2]);

#endif
