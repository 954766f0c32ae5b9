// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_causes.c - parsing the numeric --causes options (cli_causes.h):
 * a whole number within bounds, or a usage error naming the option.
 */
#include "cli.h"
#include "cli_causes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

static int parse(const struct cli_option *o, const char *arg, uint64_t min,
		 uint64_t max, const char *unit)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = arg[0] >= '0' && arg[0] <= '9' ? strtoull(arg, &end, 10) : 0;
	if (arg[0] < '0' || arg[0] > '9' || errno || *end || v < min || v > max)
		return cli_usage_error("option --%s: '%s' is not a whole number of %s in [%" PRIu64 ", %" PRIu64 "]",
				       o->long_name, arg, unit, min, max);
	*(uint64_t *)o->value = v;
	return 0;
}

int cli_causes_threshold(const struct cli_option *o, const char *arg)
{
	return parse(o, arg, 1, 1000000000000ULL, "ns");
}

int cli_causes_buffer(const struct cli_option *o, const char *arg)
{
	/* The kernel's page is 4 KiB; 4 GiB per CPU is far beyond any run. */
	return parse(o, arg, 4, 4194304, "KiB");
}
