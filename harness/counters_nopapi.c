// SPDX-License-Identifier: GPL-2.0-only
/*
 * counters_nopapi.c - the "papi" counter backend of a build without PAPI
 * (no papi.h when it was built; the Makefile then builds this file instead
 * of counters_papi.c).  Asking for it fails with the reason below, so a
 * campaign that names it says why rather than "unknown backend".
 */
#include "counters_internal.h"

const struct cnt_backend cnt_papi_backend = {
	.name = "papi",
	.unavailable = "built without PAPI",
};
