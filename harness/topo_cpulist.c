// SPDX-License-Identifier: GPL-2.0-only
/*
 * topo_cpulist.c - CPU lists ("0,2,4-7"), as placement specs and the
 * kernel's cpulist files write them.  Parsing is strict: digits only, no
 * blanks or signs, ranges ascending, every number below IL_MAX_CPUS.
 */
#include "topo.h"
#include "err.h"
#include "topo_internal.h"

#include <errno.h>
#include <hwloc.h>
#include <string.h>

/* ---- CPU lists ------------------------------------------------------- */

/*
 * Parse a decimal CPU number at *pp.  Digits only: no sign, no blanks, no
 * hex, so "+1", " 1" and "0x1" are errors rather than surprises.
 */
int topo_parse_cpu_num(const char **pp, int *out)
{
	const char *p = *pp;
	long v = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9') {
		if (v < IL_MAX_CPUS)
			v = v * 10 + (*p - '0');
		p++;
	}
	*pp = p;
	if (v >= IL_MAX_CPUS)
		return -ERANGE;
	*out = (int)v;
	return 0;
}

/*
 * "0,2,4-7" into @set.  @what and @spec only shape the message, so the
 * same parser serves placement specs and the kernel's cpulist files.
 */
int topo_parse_list(const char *s, hwloc_bitmap_t set, const char *what,
		      const char *spec)
{
	const char *p = s, *start;
	int a, b, ret;

	if (!*p)
		return il_errorf(-EINVAL, "bad %s '%s': empty CPU list", what,
				 spec);
	for (;;) {
		start = p;
		ret = topo_parse_cpu_num(&p, &a);
		if (ret)
			goto bad_num;
		b = a;
		if (*p == '-') {
			p++;
			start = p;
			ret = topo_parse_cpu_num(&p, &b);
			if (ret)
				goto bad_num;
			if (b < a)
				return il_errorf(-EINVAL,
						 "bad %s '%s': range %d-%d runs backwards",
						 what, spec, a, b);
		}
		hwloc_bitmap_set_range(set, (unsigned int)a, b);
		if (!*p)
			return 0;
		if (*p != ',')
			return il_errorf(-EINVAL,
					 "bad %s '%s': unexpected '%c' after CPU %d",
					 what, spec, *p, b);
		p++;
	}
bad_num:
	if (ret == -ERANGE) {
		int digits = (int)strspn(start, "0123456789");

		return il_errorf(-EINVAL,
				 "bad %s '%s': CPU number %.*s%s is beyond the limit of %d",
				 what, spec, digits > 12 ? 12 : digits, start,
				 digits > 12 ? "..." : "", IL_MAX_CPUS - 1);
	}
	if (!*start)
		return il_errorf(-EINVAL, "bad %s '%s': CPU list ends early",
				 what, spec);
	return il_errorf(-EINVAL, "bad %s '%s': expected a CPU number at '%s'",
			 what, spec, start);
}

int il_cpulist_parse(const char *s, int *cpus, int max)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int n = 0, i, ret;

	if (!set)
		return il_errorf(-ENOMEM, "out of memory parsing a CPU list");
	ret = topo_parse_list(s, set, "CPU list", s);
	if (!ret) {
		hwloc_bitmap_foreach_begin(i, set) {
			if (n < max)
				cpus[n] = i;
			n++;
		} hwloc_bitmap_foreach_end();
		ret = n;
	}
	hwloc_bitmap_free(set);
	return ret;
}
