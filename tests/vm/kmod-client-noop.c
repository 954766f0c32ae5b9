// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmod-client-noop.c - the hypervisor no-op threshold of WBINVD, tested
 * from both sides (issue 21).  Under QEMU's TCG a WBINVD costs about as
 * much as a CPUID, so nearly every timed one falls under the calibrated
 * threshold and is flagged IDLELAB_SAMPLE_WBINVD_NOOP: a module that
 * flagged every WBINVD, or compared against a huge threshold, would look
 * the same.  So each wake run and sweep runs twice: as it comes, and with
 * the module's test-only inject bit 32 (IL_INJECT_WBINVD_SLOW, cstate.h),
 * which spins as many cycles again as the run's threshold inside each
 * timed window.  Those spans are at least the threshold by construction,
 * not by the module's own comparison, and none may come back flagged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmod-client.h"

#define INJECT_PARAM "/sys/module/idlelab_cstate/parameters/inject"
#define INJECT_WBINVD_SLOW "32"

/* What one run's timed WBINVDs looked like against its threshold. */
struct wb_stat {
	unsigned int timed, flagged, below, flagged_high;
	uint64_t min, max;
};

static void wb_add(struct wb_stat *t, uint64_t cycles, int flagged,
		   uint32_t noop_cycles)
{
	if (!t->timed || cycles < t->min)
		t->min = cycles;
	if (cycles > t->max)
		t->max = cycles;
	t->timed++;
	t->flagged += !!flagged;
	t->below += cycles < noop_cycles;
	/* Flagged although it took the threshold or longer. */
	t->flagged_high += flagged && cycles >= noop_cycles;
}

static void wb_print(const char *name, int e, uint32_t nr_done,
		     uint32_t noop_cycles, uint32_t hw_flags,
		     const struct wb_stat *t, int left)
{
	printf("{\"op\":\"wbinvd_noop\",\"name\":\"%s\",\"rc\":\"%s\","
	       "\"nr_done\":%u,\"timed\":%u,\"flagged\":%u,\"below\":%u,"
	       "\"flagged_high\":%u,\"min\":%llu,\"max\":%llu,"
	       "\"noop_cycles\":%u,\"hw_flags\":%u,\"inject_left\":%d}\n",
	       name, ename(e), e ? 0 : nr_done, t->timed, t->flagged, t->below,
	       t->flagged_high, (unsigned long long)t->min,
	       (unsigned long long)t->max, noop_cycles, hw_flags, left);
}

/* A 20-sample HLT wake run with WBINVD over 64 KiB dirtied. */
static void noop_wake(const char *name, int slow)
{
	struct idlelab_cstate_req r = cstate_base();
	struct idlelab_cstate_sample *s = poisoned(r.nr_samples * sizeof(*s));
	struct wb_stat t = { 0 };
	unsigned int i;
	int e = slow ? param_write(INJECT_PARAM, INJECT_WBINVD_SLOW) : 0;

	r.flags = IDLELAB_CSTATE_F_WBINVD;
	r.dirty_bytes = 64 << 10;
	r.samples = (uintptr_t)s;
	if (!e)
		e = xioctl(fd_c, IDLELAB_IOC_CSTATE_WAKE, &r);
	for (i = 0; !e && i < r.nr_done; i++)
		if (s[i].flags & IDLELAB_SAMPLE_WBINVD)
			wb_add(&t, s[i].wbinvd_cycles,
			       s[i].flags & IDLELAB_SAMPLE_WBINVD_NOOP,
			       r.noop_cycles);
	wb_print(name, e, r.nr_done, r.noop_cycles, r.hw_flags, &t,
		 (int)param_read(INJECT_PARAM));
	free(s);
}

/* A sweep of 0 and 64 KiB, 3 WBINVDs each. */
static void noop_sweep(const char *name, int slow)
{
	static uint64_t fp[] = { 0, 64 << 10 };
	struct idlelab_wbinvd_req r = wbinvd_base();
	struct idlelab_wbinvd_sample *s = poisoned(r.nr_samples * sizeof(*s));
	struct wb_stat t = { 0 };
	unsigned int i;
	int e = slow ? param_write(INJECT_PARAM, INJECT_WBINVD_SLOW) : 0;

	r.nr_footprints = 2;
	r.footprints = (uintptr_t)fp;
	r.samples = (uintptr_t)s;
	if (!e)
		e = xioctl(fd_c, IDLELAB_IOC_WBINVD, &r);
	for (i = 0; !e && i < r.nr_done; i++)
		wb_add(&t, s[i].cycles, s[i].flags & IDLELAB_SAMPLE_WBINVD_NOOP,
		       r.noop_cycles);
	wb_print(name, e, r.nr_done, r.noop_cycles, r.hw_flags, &t,
		 (int)param_read(INJECT_PARAM));
	free(s);
}

void wbinvd_noop(void)
{
	noop_wake("wake_plain", 0);
	noop_wake("wake_slowed", 1);
	noop_sweep("sweep_plain", 0);
	noop_sweep("sweep_slowed", 1);
	/* Nothing left armed for later runs, even if a run refused. */
	param_write(INJECT_PARAM, "0");
}
