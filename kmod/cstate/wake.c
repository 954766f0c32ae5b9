// SPDX-License-Identifier: GPL-2.0-only
/*
 * wake.c - raw C-state wake latency: a kthread pinned to the measured CPU
 * arms a wake source, optionally runs WBINVD over a dirtied buffer, and
 * enters HLT, MWAIT(hint), an ACPI _CST state (acpi.c) or a poll loop
 * itself, timestamping around it.
 *
 * Timestamps (DESIGN.md): t_launch is when the hrtimer was due, or when the
 * sender kthread sent the IPI.  The hrtimer is armed on CLOCK_MONOTONIC at
 * an absolute expiry E = now + L, with now read next to a TSC read T0, and
 * t_launch = T0 + L in TSC cycles: the TSC value at which the monotonic
 * clock reaches E, as long as that clock runs at tsc_khz over L (NTP slews
 * it by at most 500 ppm, so by at most L / 2000).  The interrupt itself is
 * programmed for E by the clockevent device, so a late hardware timer shows
 * up in the latency, as it should; low-resolution timers (hrtimer_resolution
 * a tick) would add up to a tick and are refused.  t_entry is taken right before the idle
 * instruction, t_exit right after it, t_intr is the first instruction of our
 * callback (the hard hrtimer function or the smp_call_function callback).
 * With IRQ early the idle instruction runs with IF=1 (STI in its shadow), so
 * our callback runs before t_exit; with IRQ late MWAIT runs with IF=0 and
 * ECX bit 0 set, the interrupt only ends the MWAIT, and it is taken after
 * t_exit, at local_irq_enable().
 *
 * Object model and locking: one struct il_wake per run, shared by the
 * measured worker, the optional sender worker and the callbacks.  Only the
 * measured worker writes the samples.  @woken and @t_intr are written by the
 * callback on the measured CPU and read by the measured worker after @woken
 * (READ_ONCE/smp_rmb).  @armed is the handshake to the sender and the tag
 * of its IPIs: the measured worker publishes the sample number (i + 1) with
 * smp_store_release() once it is about to enter idle, and sets it back to 0
 * when the sample is over.  The sender sees a new number with
 * smp_load_acquire(), waits the launch distance and sends a synchronous
 * smp_call_function_single() carrying that number and its t_launch, so no
 * call_single_data outlives the run.  The callback runs on the measured CPU
 * and takes the wake only if the tag is still the armed one; a sender that
 * was delayed past the sample's wait (L + IDLELAB_CSTATE_WAIT_NS) has its
 * IPI counted in @stale_ipis and never taken as a later sample's wake.  The
 * interrupt itself still ends the idle instruction if the next sample is
 * in it: that sample comes back with no wake of its own (OTHER_IRQ, or a
 * re-entry with F_REENTER), so a stalled sender costs up to two samples,
 * never a wrong latency.  Whatever ends it otherwise, an HLT or MWAIT
 * sample ends at its deadline: a pinned hard hrtimer, @backstop, is armed
 * for it with every sample, and a sample it ended is flagged
 * IDLELAB_SAMPLE_BACKSTOP.  An aborted run IPIs the measured CPU out of
 * idle (idlelab_workers.h), so the join never waits out a sample.
 *
 * Each timed window, from the arming to t_exit, runs with preemption
 * disabled (and the sender's spin, t_launch and IPI too), so the kthread
 * cannot be scheduled away inside one; the kthread's context-switch count
 * is compared across the window all the same (IDLELAB_SAMPLE_PREEMPTED),
 * so that a change that breaks this is seen in the data, not guessed at.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <asm/cpufeature.h>

#include "idlelab_arch.h"
#include "idlelab_clockcal.h"
#include "idlelab_cstate_check.h"
#include "idlelab_kcommon.h"
#include "cstate.h"
#include "wake.h"

/* An IPI for the sample tagged @tag, sent at @t_launch. */
struct il_wake_msg {
	struct il_wake *w;
	u32 tag;
	u64 t_launch;
};

/* The checks themselves are plain C, shared with the fuzz target. */
static_assert(IL_REQ_EINVAL == EINVAL);
static_assert(IL_REQ_NSEC_PER_SEC == NSEC_PER_SEC);
static_assert(IL_REQ_NSEC_PER_USEC == NSEC_PER_USEC);
/* Package C2 is the one counter after the 64-bit res[]. */
static_assert(IDLELAB_RES_PKG_C2 == 1U << IDLELAB_RES_NR64);
static_assert(IDLELAB_RES_NR64 + 1 == IDLELAB_RES_NR);

int il_cstate_check(const struct idlelab_cstate_req *req)
{
	return il_cstate_req_check(req, nr_cpu_ids);
}

static void il_wake_mark(struct il_wake *w)
{
	u64 now = il_tsc();

	w->t_intr = now;
	smp_wmb();	/* t_intr before woken, read in that order */
	WRITE_ONCE(w->woken, 1);
}

static enum hrtimer_restart il_wake_timer(struct hrtimer *t)
{
	il_wake_mark(container_of(t, struct il_wake, timer));
	return HRTIMER_NORESTART;
}

/*
 * Its interrupt is what ends an HLT or MWAIT whose wake was lost; it is
 * never taken as the sample's wake (@woken stays unset).
 */
static enum hrtimer_restart il_wake_backstop(struct hrtimer *t)
{
	WRITE_ONCE(container_of(t, struct il_wake, backstop)->backstop_fired,
		   1);
	return HRTIMER_NORESTART;
}

/* On the measured CPU, so @armed cannot change under it. */
static void il_wake_ipi(void *info)
{
	const struct il_wake_msg *m = info;
	struct il_wake *w = m->w;

	if (READ_ONCE(w->armed) != m->tag) {
		w->stale_ipis++;
		return;
	}
	w->t_launch = m->t_launch;
	il_wake_mark(w);
}

static u64 il_wake_distance(struct il_wake *w)
{
	const struct idlelab_cstate_req *req = w->req;
	u64 span = req->launch_max_ns - req->launch_min_ns;

	if (!span)
		return req->launch_min_ns;
	return req->launch_min_ns + il_rand64(&w->rng) % (span + 1);
}

/*
 * One pass through the idle instruction, entered with IRQs off; returns
 * with IRQs off, *ours saying whether our callback had run by the time we
 * were back (for IRQ late: at the STI right after t_exit).  HLT, MWAIT and
 * the ACPI states (acpi.c) are entered as the kernel's own idle enters them (idlelab_arch.h): the
 * idle VERW first, before t_entry so that the sample times the idle
 * instruction alone, and MONITOR with its CLFLUSH where the CPU needs it.
 */
static int il_wake_pass(struct il_wake *w, struct idlelab_cstate_sample *s,
			u64 deadline, bool *ours)
{
	const struct idlelab_cstate_req *req = w->req;
	int err = 0;

	switch (req->method) {
	case IDLELAB_METHOD_HLT:
		il_idle_clear_cpu_buffers();
		s->t_entry = il_tsc();
		il_sti_hlt();
		s->t_exit = il_tsc();
		*ours = READ_ONCE(w->woken);
		break;
	case IDLELAB_METHOD_MWAIT:
		il_idle_clear_cpu_buffers();
		if (il_monitor_armed(&w->woken)) {
			w->unsupported = IDLELAB_UNSUP_MWAIT_FAULT;
			return -EOPNOTSUPP;
		}
		s->t_entry = il_tsc();
		if (req->irq_mode == IDLELAB_IRQ_EARLY) {
			err = il_sti_mwait_safe(req->mwait_hint);
			s->t_exit = il_tsc();
			*ours = READ_ONCE(w->woken);
			if (err)
				w->unsupported = IDLELAB_UNSUP_MWAIT_FAULT;
		} else {
			err = il_mwait_safe(req->mwait_hint, 1);
			s->t_exit = il_tsc();
			local_irq_enable();
			/* A pending wake of ours ran at the STI above. */
			*ours = READ_ONCE(w->woken);
			if (err)
				w->unsupported = IDLELAB_UNSUP_MWAIT_ECX_FAULT;
		}
		break;
	case IDLELAB_METHOD_ACPI:
		/*
		 * An I/O port entry returns with IRQs off, so a wake of ours
		 * is taken here, after t_exit; after HLT it already ran.  The
		 * flag is read once IRQs are off again, so that a wake taken
		 * anywhere in the window counts in this entry: read inside
		 * it, one taken after the read (TCG delivers at its own
		 * block boundaries) ran before the next entry's t_exit and
		 * was counted there (the _CST guest, 1 sample of 20).  The
		 * NOP is the instruction after STI, which the interrupt
		 * waits for on hardware.
		 */
		err = il_acpi_enter(&w->acpi, s);
		local_irq_enable();
		nop();
		local_irq_disable();
		*ours = READ_ONCE(w->woken);
		if (err)
			w->unsupported = IDLELAB_UNSUP_WBINVD_FAULT;
		break;
	default:
		local_irq_enable();
		s->t_entry = il_tsc();
		while (!READ_ONCE(w->woken) && il_tsc() < deadline)
			cpu_relax();
		s->t_exit = il_tsc();
		*ours = READ_ONCE(w->woken);
		break;
	}
	local_irq_disable();
	return err ? -EOPNOTSUPP : 0;
}

/*
 * Enter idle with IRQs off; return with IRQs on.  With F_REENTER a wake that
 * was not ours sends us back into the idle instruction until ours arrives
 * or the sample's deadline passes; the sample keeps the last pass.  A task
 * waiting for this CPU (need_resched()) ends the re-entries: the kthread
 * must not hold the CPU idle against it.
 */
static int il_wake_enter(struct il_wake *w, struct idlelab_cstate_sample *s,
			 u64 deadline, bool *ours)
{
	bool reenter = w->req->flags & IDLELAB_CSTATE_F_REENTER;
	bool poll = w->req->method == IDLELAB_METHOD_POLL;
	int ret;

	for (;;) {
		ret = il_wake_pass(w, s, deadline, ours);
		/*
		 * HLT and MWAIT stop at the backstop, not at the TSC deadline:
		 * the two clocks may disagree, and a foreign interrupt past
		 * the deadline would end the sample unflagged.  An abort
		 * kicks us out of idle: never go back in.
		 */
		if (READ_ONCE(w->backstop_fired))
			s->flags |= IDLELAB_SAMPLE_BACKSTOP;
		if (ret || *ours || !reenter ||
		    (poll ? il_tsc() >= deadline :
		     READ_ONCE(w->backstop_fired)) ||
		    atomic_read(&w->ctl.abort))
			break;
		if (need_resched()) {
			s->flags |= IDLELAB_SAMPLE_RESCHED;
			break;
		}
		s->reentries++;
	}
	local_irq_enable();
	return ret;
}

/*
 * CLOCK_MONOTONIC and the TSC at one instant, for il_launch_tsc(): the
 * monotonic read bracketed by two TSC reads, the TSC taken as their
 * midpoint.  A vCPU the host stops between two adjacent reads would put
 * the pair's clocks that far apart, and t_launch with them (a TCG guest
 * on a loaded host: 954 ns past L = 50 us); so the tightest of up to
 * IL_PAIR_TRIES brackets is kept, and one under IL_PAIR_TIGHT_NS ends the
 * search.  Called with IRQs off.
 */
#define IL_PAIR_TRIES		8
#define IL_PAIR_TIGHT_NS	500

static u64 il_clock_pair(u64 *tsc)
{
	u64 tight = il_ns_to_cycles(IL_PAIR_TIGHT_NS);
	u64 a, b, mono, best = ~0ULL, best_mono = 0;
	int n;

	for (n = 0; n < IL_PAIR_TRIES && best > tight; n++) {
		a = il_tsc();
		mono = ktime_get_ns();
		b = il_tsc();
		if (b - a < best) {
			best = b - a;
			best_mono = mono;
			*tsc = a + (b - a) / 2;
		}
	}
	return best_mono;
}

/* Arm this sample's wake source; IRQs and preemption are off. */
static void il_wake_arm(struct il_wake *w, u32 i, u64 l_ns)
{
	ktime_t now;
	u64 t0;

	if (w->req->wake_source == IDLELAB_WAKE_HRTIMER) {
		/*
		 * One pair: t_launch is the TSC when E is reached, first at
		 * tsc_khz, then rescaled once E has passed
		 * (il_wake_relaunch()).
		 */
		now = ns_to_ktime(il_clock_pair(&t0));
		w->t_launch = t0 + il_ns_to_cycles(l_ns);
		w->arm_mono = ktime_to_ns(now);
		w->arm_tsc = t0;
		w->arm_l_ns = l_ns;
		hrtimer_start(&w->timer, ktime_add_ns(now, l_ns),
			      HRTIMER_MODE_ABS_PINNED_HARD);
	} else {
		w->delay = il_ns_to_cycles(l_ns);
		/* Publishes delay before the sender sees the round armed. */
		smp_store_release(&w->armed, i + 1);
	}
}

/*
 * An hrtimer wake that fired: read both clocks again, as one pair, and
 * put t_launch where the monotonic clock's own rate puts E rather than
 * where tsc_khz does (idlelab_clockcal.h).
 */
static void il_wake_relaunch(struct il_wake *w)
{
	unsigned long irq;
	u64 mono1, tsc1;

	local_irq_save(irq);
	mono1 = il_clock_pair(&tsc1);
	local_irq_restore(irq);
	w->t_launch = il_launch_tsc(w->arm_tsc, w->arm_mono, tsc1, mono1,
				    w->arm_l_ns,
				    il_ns_to_cycles(w->arm_l_ns));
}

/* The flags only the whole sample can tell. */
static void il_wake_judge(struct il_wake *w, struct idlelab_cstate_sample *s,
			  bool ours)
{
	if (s->t_exit < s->t_launch)
		s->flags |= IDLELAB_SAMPLE_EARLY_WAKE;
	/* Due before we were idle: the CPU was busy, not waking. */
	if (s->t_launch && s->t_launch < s->t_entry)
		s->flags |= IDLELAB_SAMPLE_LATE_ENTRY;
	if (!ours)
		s->flags |= IDLELAB_SAMPLE_OTHER_IRQ;
	/* Marked unstable at some point up to now, after a stable start. */
	if (!w->tsc_unstable && il_tsc_unstable())
		s->flags |= IDLELAB_SAMPLE_TSC_UNSTABLE;
	if (!w->hypervisor)
		return;
	/* Not much more than one trap: the host did not really do it. */
	if ((s->flags & IDLELAB_SAMPLE_WBINVD) &&
	    s->wbinvd_cycles < w->noop_cycles)
		s->flags |= IDLELAB_SAMPLE_WBINVD_NOOP;
	if (w->req->method == IDLELAB_METHOD_MWAIT && !ours &&
	    s->t_exit - s->t_entry < w->noop_cycles)
		s->flags |= IDLELAB_SAMPLE_MWAIT_NOOP;
}

/*
 * The residency deltas since @r0 (the counters of @res0): the 64-bit ones
 * into res[], package C2 into its 32-bit field, or left out of res_flags
 * where its delta does not fit.
 */
static void il_wake_res_end(struct idlelab_cstate_sample *s, u32 res0,
			    const u64 *r0)
{
	u64 r1[IDLELAB_RES_NR] = {}, d;
	u32 k;

	s->res_flags = il_res_read(res0, r1) & res0;
	s->res_tsc = il_tsc() - s->res_tsc;
	for (k = 0; k < IDLELAB_RES_NR64; k++)
		s->res[k] = s->res_flags & (1U << k) ? r1[k] - r0[k] : 0;
	d = r1[IDLELAB_RES_NR64] - r0[IDLELAB_RES_NR64];
	if ((s->res_flags & IDLELAB_RES_PKG_C2) && d <= U32_MAX)
		s->res_pkg_c2 = (u32)d;
	else
		s->res_flags &= ~IDLELAB_RES_PKG_C2;
}

static int il_wake_one(struct il_wake *w, u32 i,
		       struct idlelab_cstate_sample *s)
{
	const struct idlelab_cstate_req *req = w->req;
	u64 l_ns = il_wake_distance(w), t0, deadline, r0[IDLELAB_RES_NR] = {};
	u64 backstop_ns = l_ns + IDLELAB_CSTATE_WAIT_NS;
	u32 nmi0, smi0, smi1, res0 = 0;
	unsigned long sw0;
	bool smi_ok, ours = false, lose;
	int ret;

	memset(s, 0, sizeof(*s));
	if (req->method == IDLELAB_METHOD_MWAIT)
		s->mwait_hint = req->mwait_hint;
	WRITE_ONCE(w->woken, 0);
	w->t_intr = 0;
	w->t_launch = 0;
	/* Dirty with IRQs on: it is not part of the measured window. */
	if (w->dirty)
		memset(w->dirty, (int)i | 1, req->dirty_bytes);
	smi_ok = il_smi_count(&smi0);
	nmi0 = il_nmi_count();
	/* Test only: no wake at all, the backstop at L (cstate.h). */
	lose = !i && il_inject_take(IL_INJECT_LOSE_WAKE);
	if (lose)
		backstop_ns = l_ns;

	preempt_disable();
	sw0 = il_switches(current);
	local_irq_disable();
	if (w->res_avail) {
		res0 = il_res_read(w->res_avail, r0);
		if (res0)
			s->res_tsc = il_tsc();
	}
	if (!lose)
		il_wake_arm(w, i, l_ns);
	/*
	 * A lost wake (a sender that stalls or dies, a wake the hardware
	 * drops) would leave HLT or MWAIT to whatever interrupt comes next,
	 * and on a tickless CPU none may: the backstop ends the idle at the
	 * sample's deadline, and the sample is flagged (il_wake_enter()).
	 */
	WRITE_ONCE(w->backstop_fired, 0);
	if (req->method != IDLELAB_METHOD_POLL)
		hrtimer_start(&w->backstop, ns_to_ktime(backstop_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
	/* One bound for the whole sample, WBINVD and idle included. */
	deadline = il_tsc() + il_ns_to_cycles(l_ns + IDLELAB_CSTATE_WAIT_NS);
	if (req->flags & IDLELAB_CSTATE_F_WBINVD) {
		t0 = il_tsc();
		ret = il_wbinvd_safe();
		/* Test only: at least the threshold, so never a no-op. */
		if (w->wbinvd_slow)
			il_inject_spin(w->noop_cycles);
		s->wbinvd_cycles = il_tsc() - t0;
		if (ret)
			w->unsupported = IDLELAB_UNSUP_WBINVD_FAULT;
		else
			s->flags |= IDLELAB_SAMPLE_WBINVD;
	}
	if (w->unsupported) {
		local_irq_enable();
		ret = -EOPNOTSUPP;
	} else {
		ret = il_wake_enter(w, s, deadline, &ours);
	}
	if (res0)
		il_wake_res_end(s, res0, r0);
	if (il_switches(current) != sw0)
		s->flags |= IDLELAB_SAMPLE_PREEMPTED;
	preempt_enable();

	/* Wait, bounded, for our own event so it cannot leak into the next. */
	while (!READ_ONCE(w->woken) && il_tsc() < deadline &&
	       !il_should_abort(&w->ctl))
		cpu_relax();
	/* From here on an IPI for this sample is stale, a timer cancelled. */
	WRITE_ONCE(w->armed, 0);
	hrtimer_cancel(&w->timer);
	hrtimer_cancel(&w->backstop);
	if (READ_ONCE(w->woken)) {
		smp_rmb();	/* woken before t_intr and t_launch */
		s->t_intr = w->t_intr;
		if (req->wake_source == IDLELAB_WAKE_HRTIMER)
			il_wake_relaunch(w);
	} else {
		s->flags |= IDLELAB_SAMPLE_NO_INTR;
	}
	s->t_launch = READ_ONCE(w->t_launch);
	if (ret) {
		s->flags |= IDLELAB_SAMPLE_UNSUPPORTED;
		return ret;
	}
	il_wake_judge(w, s, ours);
	s->nmi_delta = il_nmi_count() - nmi0;
	s->flags |= IDLELAB_SAMPLE_NMI_VALID;
	if (smi_ok && il_smi_count(&smi1)) {
		s->smi_delta = (u32)(smi1 - smi0);
		s->flags |= IDLELAB_SAMPLE_SMI_VALID;
	}
	return 0;
}

static int il_wake_measured(struct il_worker *wk)
{
	struct il_wake *w = wk->ctx;
	u32 i;

	w->res_avail = il_res_probe(&w->res_gated, &w->gate_why);
	w->cpuid_cycles = il_cpuid_calib();
	w->noop_cycles = il_noop_cycles(w->cpuid_cycles);
	/* Taken only by a run that times WBINVD (cstate.h). */
	w->wbinvd_slow = (w->req->flags & IDLELAB_CSTATE_F_WBINVD) &&
			 il_inject_take(IL_INJECT_WBINVD_SLOW);

	for (i = 0; i < w->req->nr_samples; i++) {
		if (il_should_abort(&w->ctl))
			break;
		/* Test only: the TSC goes unstable from sample 1 on. */
		if (i == 1 && il_tsc_pretend_get() == IL_TSC_PRETEND_STABLE)
			il_tsc_pretend_set(IL_TSC_PRETEND_UNSTABLE);
		if (il_wake_one(w, i, &w->s[i]))
			break;
		w->nr_done = i + 1;
		cond_resched();
	}
	/* Orders every sample write before the sender sees the end. */
	smp_store_release(&w->finished, true);
	return 0;
}

static int il_wake_sender(struct il_worker *wk)
{
	struct il_wake *w = wk->ctx;
	struct il_wake_msg m = { .w = w };
	u64 t0, delay, resched;
	u32 tag, last = 0;

	/* Test only: die as an oops would, the measured worker running. */
	if (il_inject_take(IL_INJECT_SENDER_EXIT))
		kthread_complete_and_exit(NULL, 0);
	for (;;) {
		resched = il_tsc() + il_us_to_cycles(1000);
		/* A sample armed since the last one we served. */
		while ((tag = smp_load_acquire(&w->armed)) == 0 || tag == last) {
			/* Acquire: a finished run's samples are complete. */
			if (smp_load_acquire(&w->finished) ||
			    il_should_abort(&w->ctl))
				return 0;
			if (il_tsc() > resched) {
				cond_resched();
				resched = il_tsc() + il_us_to_cycles(1000);
			}
			cpu_relax();
		}
		last = tag;
		delay = READ_ONCE(w->delay);
		if (tag == 1 && il_inject_take(IL_INJECT_SENDER_STALL))
			msleep(IL_INJECT_STALL_MS);
		preempt_disable();
		t0 = il_tsc();
		while (il_tsc() - t0 < delay)
			cpu_relax();
		m.tag = tag;
		m.t_launch = il_tsc();
		smp_call_function_single(w->req->cpu, il_wake_ipi, &m, 1);
		preempt_enable();
	}
}

/*
 * il_wake_workers - set up @w's timers and its workers in @wk (room for
 * two): the measured one, and the sender of an IPI wake.
 * Return: the number of workers.
 */
unsigned int il_wake_workers(struct il_wake *w, struct il_worker *wk)
{
	hrtimer_init(&w->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	w->timer.function = il_wake_timer;
	hrtimer_init(&w->backstop, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED_HARD);
	w->backstop.function = il_wake_backstop;

	wk[0].fn = il_wake_measured;
	wk[0].ctx = w;
	wk[0].cpu = w->req->cpu;
	if (w->req->wake_source != IDLELAB_WAKE_IPI)
		return 1;
	wk[1].fn = il_wake_sender;
	wk[1].ctx = w;
	wk[1].cpu = w->req->sender_cpu;
	return 2;
}
