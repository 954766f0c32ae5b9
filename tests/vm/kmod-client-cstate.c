// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmod-client-cstate.c - the /dev/idlelab_cstate half of the guest client
 * (kmod-client.c): each C-state wake, gap-detector and WBINVD request with
 * small counts, printed as one JSON line for tests/vm/test_qemu.sh and
 * test_bochs.sh; the cstate bad inputs, among them the ABI-2 bounds; and
 * the two hang defences, shown through the module's test-only fault
 * injection: a stalled IPI-wake sender and a worker that dies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kmod-client.h"

struct idlelab_cstate_req cstate_base(void)
{
	struct idlelab_cstate_req r;

	memset(&r, 0, sizeof(r));
	r.abi_version = IDLELAB_ABI_VERSION;
	r.size = sizeof(r);
	r.cpu = 1;
	r.method = IDLELAB_METHOD_HLT;
	r.wake_source = IDLELAB_WAKE_HRTIMER;
	r.irq_mode = IDLELAB_IRQ_EARLY;
	r.launch_min_ns = 50000;
	r.launch_max_ns = 50000;
	r.nr_samples = 20;
	r.seed = 1;
	return r;
}

void cstate(const char *name, struct idlelab_cstate_req r)
{
	struct idlelab_cstate_sample *s = poisoned(r.nr_samples * sizeof(*s));
	unsigned int i, early = 0, other = 0, no_intr = 0;
	unsigned int intr_before_exit = 0, intr_after_exit = 0, poison = 0;
	unsigned int wb = 0, reentries = 0, late = 0, late_unflagged = 0;
	unsigned int noop = 0, res_bad = 0, tsc_unst = 0, backstop = 0;
	unsigned int past_l = 0, timed = 0;
	double t0 = now_s(), idle_ms, backstop_ms = 0;
	/*
	 * The hrtimer is armed L (at most launch_max_ns) before it is due,
	 * and t_entry is read after the arming: so t_launch - t_entry < L.
	 * A t_entry read too early (before the arming, or a sample's stale
	 * one) breaks it, which t_entry < t_exit, two ordered reads on one
	 * CPU, never could.  2 % and 2 us of slack for t_launch's rescale
	 * to the monotonic clock's rate (idlelab_clockcal.h).
	 */
	unsigned long long l_max = (r.launch_max_ns * 102 / 100 + 2000);
	int e;

	r.samples = (uintptr_t)s;
	e = xioctl(fd_c, IDLELAB_IOC_CSTATE_WAKE, &r);
	for (i = 0; !e && i < r.nr_done; i++) {
		int due_early = s[i].t_launch && s[i].t_launch < s[i].t_entry;

		/* Due before the idle entry: must be flagged, and only then. */
		if (s[i].flags & IDLELAB_SAMPLE_LATE_ENTRY)
			late++;
		if (due_early != !!(s[i].flags & IDLELAB_SAMPLE_LATE_ENTRY))
			late_unflagged++;
		if (s[i].flags & (IDLELAB_SAMPLE_WBINVD_NOOP |
				  IDLELAB_SAMPLE_MWAIT_NOOP))
			noop++;
		/* A residency delta only where a counter was read. */
		if ((s[i].res_flags & ~r.res_avail) ||
		    (!s[i].res_flags && s[i].res_tsc) ||
		    (s[i].res_pkg_c2 &&
		     !(s[i].res_flags & IDLELAB_RES_PKG_C2)) ||
		    (r.res_avail & r.res_gated))
			res_bad++;
		if (s[i].reentries > 100000000 ||
		    (s[i].reentries && !(r.flags & IDLELAB_CSTATE_F_REENTER)))
			poison++;
		reentries += s[i].reentries;
		if (r.wake_source == IDLELAB_WAKE_HRTIMER && s[i].t_launch &&
		    !(s[i].flags & IDLELAB_SAMPLE_BACKSTOP)) {
			timed++;
			if (s[i].t_launch > s[i].t_entry &&
			    (s[i].t_launch - s[i].t_entry) * 1000000ULL >
			    l_max * r.tsc_khz)
				past_l++;
		}
		if (s[i].flags & IDLELAB_SAMPLE_EARLY_WAKE)
			early++;
		if (s[i].flags & IDLELAB_SAMPLE_TSC_UNSTABLE)
			tsc_unst++;
		if (s[i].flags & IDLELAB_SAMPLE_OTHER_IRQ)
			other++;
		if (s[i].flags & IDLELAB_SAMPLE_NO_INTR)
			no_intr++;
		if (s[i].flags & IDLELAB_SAMPLE_WBINVD)
			wb++;
		/* How long a lost wake kept the CPU in HLT or MWAIT. */
		if (s[i].flags & IDLELAB_SAMPLE_BACKSTOP) {
			backstop++;
			idle_ms = (double)(s[i].t_exit - s[i].t_entry) /
				  (r.tsc_khz ? r.tsc_khz : 1);
			if (idle_ms > backstop_ms)
				backstop_ms = idle_ms;
		}
		if (s[i].t_intr && !(s[i].flags & IDLELAB_SAMPLE_OTHER_IRQ)) {
			if (s[i].t_intr < s[i].t_exit)
				intr_before_exit++;
			else
				intr_after_exit++;
		}
	}
	printf("{\"op\":\"cstate\",\"name\":\"%s\",\"rc\":\"%s\","
	       "\"nr_samples\":%u,\"nr_done\":%u,\"unsupported\":%u,"
	       "\"early_wake\":%u,\"other_irq\":%u,"
	       "\"no_intr\":%u,\"wbinvd\":%u,\"intr_before_exit\":%u,"
	       "\"intr_after_exit\":%u,\"reentries\":%u,\"poison\":%u,"
	       "\"late_entry\":%u,\"late_unflagged\":%u,\"noop\":%u,"
	       "\"res_bad\":%u,\"res_avail\":%u,\"hw_flags\":%u,"
	       "\"stale_ipis\":%u,\"res_gated\":%u,\"gate_why\":%u,"
	       "\"cpuid_cycles\":%u,\"noop_cycles\":%u,\"dirty_node\":%u,"
	       "\"dirty_flags\":%u,\"tsc_unstable\":%u,\"backstop\":%u,"
	       "\"backstop_ms\":%.1f,\"timed\":%u,\"launch_past_l\":%u,"
	       "\"secs\":%.3f}\n",
	       name, ename(e), r.nr_samples, e ? 0 : r.nr_done,
	       e ? 0 : r.unsupported, early, other, no_intr, wb,
	       intr_before_exit, intr_after_exit, reentries, poison, late,
	       late_unflagged, noop, res_bad, r.res_avail, r.hw_flags,
	       r.stale_ipis, r.res_gated, r.gate_why, r.cpuid_cycles,
	       r.noop_cycles, r.dirty_node, r.dirty_flags, tsc_unst, backstop,
	       backstop_ms, timed, past_l, now_s() - t0);
	free(s);
}

struct idlelab_gaps_req gaps_base(void)
{
	struct idlelab_gaps_req r;

	memset(&r, 0, sizeof(r));
	r.abi_version = IDLELAB_ABI_VERSION;
	r.size = sizeof(r);
	r.cpu = 1;
	r.width_us = 2000;
	r.window_us = 5000;
	r.nr_windows = 5;
	r.threshold_ns = 2000;
	r.nr_samples = 4096;
	return r;
}

void gaps(void)
{
	struct idlelab_gaps_req r = gaps_base();
	struct idlelab_gap_sample *s = poisoned(r.nr_samples * sizeof(*s));
	unsigned int i, bad = 0, windows = 0, win_seen = 0, gap_nmi = 0;
	int e;

	r.samples = (uintptr_t)s;
	e = xioctl(fd_c, IDLELAB_IOC_GAPS, &r);
	for (i = 0; !e && i < r.nr_done; i++) {
		if (s[i].cpu != 1 || s[i].window >= 5 || s[i].len == 0 ||
		    s[i].reserved ||
		    (s[i].kind != IDLELAB_GAP_KIND_GAP &&
		     s[i].kind != IDLELAB_GAP_KIND_WINDOW))
			bad++;
		if (s[i].kind == IDLELAB_GAP_KIND_WINDOW) {
			/* One per window, in order, after its gaps. */
			if (s[i].window != windows || s[i].gap_nmi != s[i].nmi)
				bad++;
			windows++;
			win_seen |= 1U << (s[i].window & 31);
		} else {
			if (s[i].gap_nmi > s[i].nmi || s[i].window != windows)
				bad++;
			gap_nmi += s[i].gap_nmi;
		}
	}
	printf("{\"op\":\"gaps\",\"rc\":\"%s\",\"nr_done\":%u,\"dropped\":%u,"
	       "\"loop_period\":%llu,\"nmi\":%llu,\"bad_records\":%u,"
	       "\"windows\":%u,\"gap_nmi\":%u,\"hw_flags\":%u}\n",
	       ename(e), e ? 0 : r.nr_done, r.dropped,
	       (unsigned long long)r.loop_period,
	       (unsigned long long)r.nmi_count, bad, windows, gap_nmi,
	       r.hw_flags);
	free(s);
}

struct idlelab_wbinvd_req wbinvd_base(void)
{
	struct idlelab_wbinvd_req r;

	memset(&r, 0, sizeof(r));
	r.abi_version = IDLELAB_ABI_VERSION;
	r.size = sizeof(r);
	r.mode = IDLELAB_WBINVD_SWEEP;
	r.cpu = 0;
	r.reps = 3;
	r.nr_samples = 64;
	return r;
}

static uint64_t footprints[] = { 0, 64 << 10, 1 << 20 };

void wbinvd_sweep(const char *name, uint32_t flags)
{
	struct idlelab_wbinvd_req r = wbinvd_base();
	struct idlelab_wbinvd_sample *s = poisoned(r.nr_samples * sizeof(*s));
	unsigned int i, bad = 0;
	int e;

	r.flags = flags;
	r.nr_footprints = 3;
	r.footprints = (uintptr_t)footprints;
	r.samples = (uintptr_t)s;
	e = xioctl(fd_c, IDLELAB_IOC_WBINVD, &r);
	for (i = 0; !e && i < r.nr_done; i++)
		if (s[i].dirty_bytes != footprints[i / 3] ||
		    (!(s[i].flags & IDLELAB_SAMPLE_SMI_VALID) && s[i].smi))
			bad++;
	printf("{\"op\":\"wbinvd_sweep\",\"name\":\"%s\",\"rc\":\"%s\","
	       "\"nr_done\":%u,\"unsupported\":%u,\"bad_records\":%u,"
	       "\"node\":%u,\"mem_node\":%u,\"mem_flags\":%u,"
	       "\"cpuid_cycles\":%u,\"noop_cycles\":%u}\n",
	       name, ename(e), e ? 0 : r.nr_done, e ? 0 : r.unsupported, bad,
	       r.node, r.mem_node, r.mem_flags, r.cpuid_cycles,
	       r.noop_cycles);
	free(s);
}

struct idlelab_wbinvd_req blast_base(uint32_t *victims, uint32_t n,
				     uint32_t width_us)
{
	struct idlelab_wbinvd_req r = wbinvd_base();

	r.mode = IDLELAB_WBINVD_BLAST;
	r.reps = 2;
	r.interval_us = 100;
	r.nr_victims = n;
	r.victims = (uintptr_t)victims;
	r.width_us = width_us;
	r.window_us = 2 * width_us;
	r.threshold_ns = 2000;
	return r;
}

void wbinvd_blast(void)
{
	uint32_t victims[2] = { 1, 2 };
	struct idlelab_wbinvd_req r = blast_base(victims, 2, 1000);
	struct idlelab_gap_sample *s;
	unsigned int i, events = 0, g = 0, bad = 0, windows = 0;
	int e;

	r.reps = 5;
	r.interval_us = 1000;
	r.dirty_bytes = 1 << 20;
	r.nr_samples = 8192;
	s = poisoned(r.nr_samples * sizeof(*s));
	r.samples = (uintptr_t)s;
	e = xioctl(fd_c, IDLELAB_IOC_WBINVD, &r);
	for (i = 0; !e && i < r.nr_done; i++) {
		if (s[i].kind == IDLELAB_GAP_KIND_WBINVD && s[i].cpu == 0)
			events++;
		else if (s[i].kind == IDLELAB_GAP_KIND_GAP &&
			 (s[i].cpu == 1 || s[i].cpu == 2))
			g++;
		else if (s[i].kind == IDLELAB_GAP_KIND_WINDOW &&
			 (s[i].cpu == 1 || s[i].cpu == 2) && s[i].len)
			windows++;
		else
			bad++;
	}
	printf("{\"op\":\"wbinvd_blast\",\"rc\":\"%s\",\"nr_done\":%u,"
	       "\"unsupported\":%u,\"events\":%u,\"gaps\":%u,\"dropped\":%u,"
	       "\"bad_records\":%u,\"windows\":%u,\"hw_flags\":%u,"
	       "\"node\":%u}\n", ename(e), e ? 0 : r.nr_done,
	       e ? 0 : r.unsupported, events, g, r.dropped, bad, windows,
	       r.hw_flags, r.node);
	free(s);
}

/* Pick an invalid value for one field of a cstate request. */
static void cstate_break(struct idlelab_cstate_req *r, unsigned int k)
{
	switch (k % 20) {
	case 0: r->abi_version = (uint32_t)rnd() | 2; break;
	case 1: r->size = sizeof(*r) + 8; break;
	case 2: r->cpu = ncpu + (uint32_t)(rnd() % 100000); break;
	case 3: r->method = IDLELAB_METHOD_ACPI + 1 + (uint32_t)(rnd() % 100);
		break;
	case 4: r->wake_source = 2 + (uint32_t)(rnd() % 100); break;
	case 5: r->irq_mode = IDLELAB_IRQ_LATE; r->method = 0; break;
	case 6: r->nr_samples = 0; break;
	case 7: r->nr_samples = IDLELAB_MAX_SAMPLES + 1 +
			(uint32_t)(rnd() % 1000); break;
	case 8: r->launch_max_ns = IDLELAB_MAX_LAUNCH_NS + 1; break;
	case 9: r->launch_min_ns = 10; break;
	case 17: r->launch_min_ns = r->launch_max_ns = IDLELAB_MAX_LAUNCH_NS;
		r->nr_samples = 6001; break;	/* over IDLELAB_MAX_RUN_US */
	/* Short launches, but each sample may wait its full 1 s bound. */
	case 18: r->launch_min_ns = r->launch_max_ns = 1000;
		r->nr_samples = 601; break;
	case 19: r->pad2 = 1; break;
	case 10: r->pad = 1; break;
	/*
	 * The ACPI word: an out field set on input, a _CST index past any
	 * processor's (IDLELAB_ACPI_MAX_STATES and up, so -EINVAL on every
	 * guest, _CST or not), or the word without METHOD_ACPI.
	 */
	case 11:
		switch (rnd() % 3) {
		case 0: r->acpi_out = (uint32_t)rnd() | 1; break;
		case 1: r->method = IDLELAB_METHOD_ACPI;
			r->acpi_req = IDLELAB_ACPI_REQ(IDLELAB_ACPI_MAX_STATES +
						       rnd() % 248, 0);
			break;
		default: r->acpi_req = IDLELAB_ACPI_REQ(2, 0); break;
		}
		break;
	case 12: r->flags = IDLELAB_CSTATE_F_ALL + 1; break;	/* unknown */
	case 13: r->dirty_bytes = IDLELAB_MAX_DIRTY_BYTES + 1;
		r->flags = IDLELAB_CSTATE_F_WBINVD; break;
	case 14: r->wake_source = IDLELAB_WAKE_IPI; r->sender_cpu = r->cpu;
		break;
	case 15: r->samples = 0; break;
	default: r->nr_samples = 0; r->samples = 0; break;
	}
}

void bad_cstate(struct tally *t, unsigned int n)
{
	/* Room for case 18's 601 records, should a module accept it. */
	struct idlelab_cstate_sample *s = poisoned(1024 * sizeof(*s));
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct idlelab_cstate_req r = cstate_base();

		r.samples = (uintptr_t)s;
		r.nr_samples = 4;
		/* Randomise harmless fields, then break one. */
		r.seed = rnd();
		r.cpu = (uint32_t)(rnd() % ncpu);
		cstate_break(&r, i);
		tally(t, xioctl(fd_c, IDLELAB_IOC_CSTATE_WAKE, &r), EINVAL);
	}
	free(s);
}

/*
 * bad_bounds() - the limits that ABI 2 added: gap thresholds below
 * IDLELAB_MIN_THRESHOLD_NS, blast victims without a duty cycle (window not
 * above width), a blast whose worst case (start wait, intervals with their
 * slack, a window) is over IDLELAB_MAX_RUN_US, non-zero new padding.
 */
void bad_bounds(struct tally *t, unsigned int n)
{
	struct idlelab_gap_sample *gs = poisoned(64 * sizeof(*gs));
	uint32_t victims[1] = { 1 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct idlelab_gaps_req g = gaps_base();
		struct idlelab_wbinvd_req w = blast_base(victims, 1, 100);

		g.samples = (uintptr_t)gs;
		g.nr_samples = 64;
		switch (i % 3) {
		case 0: g.threshold_ns = IDLELAB_MIN_THRESHOLD_NS - 1; break;
		case 1: g.threshold_ns = rnd() % IDLELAB_MIN_THRESHOLD_NS; break;
		default: g.pad = 1; break;
		}
		tally(t, xioctl(fd_c, IDLELAB_IOC_GAPS, &g), EINVAL);

		w.nr_samples = 64;
		w.samples = (uintptr_t)gs;
		switch (i % 5) {
		case 0: w.threshold_ns = IDLELAB_MIN_THRESHOLD_NS - 1; break;
		case 1: w.window_us = w.width_us; break;
		case 2: w.window_us = 0; break;
		case 3: w.reps = IDLELAB_MAX_REPS; w.interval_us = 5400;
			w.nr_samples = IDLELAB_MAX_REPS + 1; break;
		default: w.pad2 = 1; break;
		}
		tally(t, xioctl(fd_c, IDLELAB_IOC_WBINVD, &w), EINVAL);
	}
	free(gs);
}

/*
 * inject() - set the module's test-only fault injection (cstate.h); 0 if
 * it took.
 */
static int inject(unsigned int bits)
{
	char v[16];

	snprintf(v, sizeof(v), "%u", bits);
	return param_write("/sys/module/idlelab_cstate/parameters/inject", v);
}

/*
 * stale_ipi() - the IPI sender stalls 1.5 s before its first IPI, past the
 * first sample's wait (L + 1 s): that sample must time out alone, the late
 * IPI be ignored as stale, and every later sample get its own IPI.  Then a
 * lost wake that only the backstop timer ends.
 */
void stale_ipi(void)
{
	struct idlelab_cstate_req r = cstate_base();
	int e = inject(2);

	r.wake_source = IDLELAB_WAKE_IPI;
	r.sender_cpu = 2;
	r.nr_samples = 10;
	if (e) {
		printf("{\"op\":\"note\",\"msg\":\"inject: %s\"}\n", ename(e));
		return;
	}
	cstate("hlt_ipi_sender_stall", r);
	/*
	 * A first sample whose wake is lost outright (inject 16: no wake
	 * armed, the backstop due at L instead of L + 1 s, so that no tick
	 * or RCU need_resched comes first): re-entering HLT after each
	 * foreign interrupt, only the backstop timer ends it, flagged; with
	 * no backstop it would stay until the deadline and come back
	 * unflagged.
	 */
	e = inject(16);
	if (e) {
		printf("{\"op\":\"note\",\"msg\":\"inject: %s\"}\n", ename(e));
		return;
	}
	r = cstate_base();
	r.flags = IDLELAB_CSTATE_F_REENTER;
	r.nr_samples = 10;
	cstate("hlt_lost_wake_reenter", r);
	inject(0);
}

/*
 * tsc_unstable() - the module sees the TSC stable at the start of a
 * 10-sample run and unstable from its second sample on (inject 8), as if
 * the clocksource watchdog had marked it then: the run must say so
 * (IDLELAB_HW_TSC_UNSTABLE_DURING) and flag samples 1 to 9.  Without
 * inject, QEMU's TCG guest kernel distrusts its TSC from boot.
 */
void tsc_unstable(void)
{
	struct idlelab_cstate_req r = cstate_base();
	int e = inject(8);

	r.nr_samples = 10;
	if (e) {
		printf("{\"op\":\"note\",\"msg\":\"inject: %s\"}\n", ename(e));
		return;
	}
	cstate("hlt_tsc_marked_unstable", r);
}

/*
 * worker_death() - the gaps worker exits without completing, as an oops
 * would end it: the run must fail (EIO) at once instead of waiting for
 * ever, and the device must work afterwards.  The run is in a child so a
 * hang is seen (10 s) rather than suffered.
 */
void worker_death(void)
{
	struct idlelab_cstate_req r = cstate_base();
	struct idlelab_cstate_sample s[4];
	double t0;
	int st = 0, e = inject(1), hung = 1, i;
	pid_t pid;

	if (e) {
		printf("{\"op\":\"note\",\"msg\":\"inject: %s\"}\n", ename(e));
		return;
	}
	t0 = now_s();
	pid = fork();
	if (pid == 0) {
		struct idlelab_gaps_req g = gaps_base();
		struct idlelab_gap_sample *gs = poisoned(4096 * sizeof(*gs));

		g.samples = (uintptr_t)gs;
		_exit(xioctl(fd_c, IDLELAB_IOC_GAPS, &g));
	}
	for (i = 0; i < 1000; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			hung = 0;
			break;
		}
		usleep(10000);
	}
	r.nr_samples = 4;
	r.samples = (uintptr_t)s;
	e = hung ? EBUSY : xioctl(fd_c, IDLELAB_IOC_CSTATE_WAKE, &r);
	printf("{\"op\":\"worker_death\",\"hung\":%d,\"rc\":\"%s\","
	       "\"secs\":%.3f,\"next_run\":\"%s\"}\n", hung,
	       hung ? "" : WIFEXITED(st) ? ename(WEXITSTATUS(st)) : "signal",
	       now_s() - t0, ename(e));
}

/* An MWAIT hint CPUID leaf 5 cannot enumerate (C16): unsupported, 14. */
void bad_hint(void)
{
	struct idlelab_cstate_req r = cstate_base();

	r.method = IDLELAB_METHOD_MWAIT;
	r.mwait_hint = 0xf0;
	cstate("mwait_hint_c16", r);
}
