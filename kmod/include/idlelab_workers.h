/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlelab_workers.h - the pinned worker kthreads a run of either module
 * executes on, how the ioctl caller joins them, what stops them, and the
 * CPU hotplug callback that ends a run whose CPU goes offline; static
 * inlines, included through idlelab_kcommon.h, so that each module has its
 * own copy.
 *
 * Workers: a run starts one kthread per CPU it needs (kthread_create_on_cpu,
 * so each is bound) and holds a reference to each task.  The ioctl caller
 * then joins all the workers at once: in short slices it looks at every
 * worker that is still running, so a worker that has died (an oops ends it
 * in do_exit() without a complete()) is seen within a slice, whichever
 * worker it is, and the others are told to abort at once instead of
 * running every sample first (a dead IPI sender used to be noticed only
 * once the measured worker had waited out each of its samples).  Each
 * worker is then reaped with kthread_stop(), which waits for the exit
 * itself, no longer blocked on anything.  So a worker that dies abnormally
 * fails the run with -EIO instead of leaving the caller in an
 * uninterruptible wait for ever, and no worker is still in module text
 * once the ioctl returns: the module stays unloadable.  A worker ends with
 * kthread_complete_and_exit(), which never returns to module text.
 *
 * Bounds: every worker loop polls il_should_abort() between bounded steps.
 * It is true once the run's abort flag is set (a fatal signal, a dead
 * worker) or once the run's wall-clock end has passed: IDLELAB_MAX_RUN_US
 * after the workers start (or the module's lower run_limit_us), measured
 * on the TSC.  So that limit holds whatever a request's parameters and the
 * worst-case formula of its check say; a run stopped by it fails -ETIME.
 */
#ifndef IDLELAB_WORKERS_H
#define IDLELAB_WORKERS_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/smp.h>
#include <linux/wait.h>
#include <asm/tsc.h>

#include "idlelab_arch.h"	/* il_tsc() */
#include "uapi/idlelab.h"

static inline u64 il_ns_to_cycles(u64 ns)
{
	return mul_u64_u32_div(ns, tsc_khz, 1000000);
}

static inline u64 il_us_to_cycles(u64 us)
{
	return mul_u64_u32_div(us, tsc_khz, 1000);
}

/*
 * A run's stop conditions, shared by its workers: @abort is set to
 * IL_ABORT_SIGNAL or IL_ABORT_DIED by the joining caller, to
 * IL_ABORT_DEADLINE by the first worker that sees @end (TSC) pass, or to
 * IL_ABORT_HOTPLUG by the CPU teardown callback.  @cpus, if set, are the
 * CPUs the run uses besides its workers' (a storm's targets): one of them
 * going offline ends the run too.
 */
struct il_run_ctl {
	atomic_t abort;
	u64 end;
	const struct cpumask *cpus;
};

#define IL_ABORT_SIGNAL		1
#define IL_ABORT_DIED		2
#define IL_ABORT_DEADLINE	3
#define IL_ABORT_HOTPLUG	4	/* one of its CPUs is going offline */

/*
 * The module's run limit in microseconds (each module's main.c defines it
 * with IL_RUN_LIMIT_PARAM()): 0 means IDLELAB_MAX_RUN_US; it can only lower
 * the limit.  The guest rig lowers it to show a worker loop stopping at
 * the deadline that no request's parameters can move.
 */
extern unsigned int il_run_limit_us;

static inline int il_run_limit_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, IDLELAB_MAX_RUN_US);
}

static const struct kernel_param_ops il_run_limit_ops __maybe_unused = {
	.set	= il_run_limit_set,
	.get	= param_get_uint,
};

#define IL_RUN_LIMIT_PARAM()						\
	unsigned int il_run_limit_us;					\
	module_param_cb(run_limit_us, &il_run_limit_ops,		\
			&il_run_limit_us, 0600);			\
	MODULE_PARM_DESC(run_limit_us,					\
			 "wall-clock limit of one run (us); 0 = 600 s, never more")

struct il_worker {
	struct task_struct *task;
	int (*fn)(struct il_worker *w);
	void *ctx;
	unsigned int cpu;
	unsigned int index;
	int ret;
	bool finished;		/* ->fn returned (set before done) */
	bool joined;		/* reaped by il_workers_join() */
	struct completion done;
};

/* Inline like the rest of this header: each module gets its own copy. */
static inline int il_worker_main(void *data)
{
	struct il_worker *w = data;

	w->ret = w->fn(w);
	/* A flag, not the completion: the joiner's waits consume that. */
	smp_store_release(&w->finished, true);
	kthread_complete_and_exit(&w->done, 0);
}

/* How often a joining caller looks for a worker that died. */
#define IL_JOIN_SLICE	(HZ / 20)

/* Has @w finished, or started to exit without finishing (PF_EXITING)? */
static inline bool il_worker_over(struct il_worker *w)
{
	/* Acquire: pairs with il_worker_main()'s release of ->finished. */
	return smp_load_acquire(&w->finished) ||
	       (READ_ONCE(w->task->flags) & PF_EXITING);
}

/* Reap @w once il_worker_over(); true if it completed. */
static inline bool il_worker_reap(struct il_worker *w)
{
	bool done;

	/* Joins the exit itself: short, the task is past its function. */
	kthread_stop(w->task);
	done = READ_ONCE(w->finished);
	put_task_struct(w->task);
	w->task = NULL;
	w->joined = true;
	return done;
}

/* The IPI that kicks a worker out of HLT or MWAIT: its arrival is all. */
static inline void il_kick_nop(void *unused)
{
}

/*
 * il_workers_kick - interrupt the CPU of every worker still running, so that
 * one in HLT or MWAIT, whose wake may never come (its sender is dead, its CPU
 * is going), returns at once and sees the run's abort.  A CPU already
 * offline is skipped (-ENXIO); the wait for each is as long as that CPU's
 * IRQs-off step at most.
 *
 * Context: process context.
 */
static inline void il_workers_kick(const struct il_worker *w, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!READ_ONCE(w[i].finished))
			smp_call_function_single(w[i].cpu, il_kick_nop, NULL, 1);
}

/*
 * il_workers_join - wait until every worker has finished or died
 * @w:		@n started workers whose tasks the caller holds
 * @n:		how many
 * @ctl:	the run's stop conditions
 *
 * Every slice looks at every worker still running, so a death is seen
 * within IL_JOIN_SLICE whichever worker it is, and the others are told to
 * abort then, and kicked out of any idle instruction.  The killable waits
 * are on one running worker at a time, but each lasts one slice at most.
 * After a fatal signal the waits are no longer killable (a pending signal
 * would end them at once).
 *
 * Context: process context.
 * Return: true if some worker exited without completing.
 */
static inline bool il_workers_join(struct il_worker *w, unsigned int n,
				   struct il_run_ctl *ctl)
{
	unsigned int i, left = n;
	bool killed = false, died = false;
	struct il_worker *wait_on;

	while (left) {
		wait_on = NULL;
		for (i = 0; i < n; i++) {
			if (w[i].joined)
				continue;
			if (!il_worker_over(&w[i])) {
				wait_on = wait_on ?: &w[i];
				continue;
			}
			if (!il_worker_reap(&w[i])) {
				/* The others may wait for it: stop them. */
				if (!atomic_cmpxchg(&ctl->abort, 0,
						    IL_ABORT_DIED))
					il_workers_kick(w, n);
				died = true;
			}
			left--;
		}
		if (!wait_on)
			break;
		if (killed) {
			wait_for_completion_timeout(&wait_on->done,
						    IL_JOIN_SLICE);
		} else if (wait_for_completion_killable_timeout(&wait_on->done,
							IL_JOIN_SLICE) < 0) {
			if (!atomic_cmpxchg(&ctl->abort, 0, IL_ABORT_SIGNAL))
				il_workers_kick(w, n);
			killed = true;
		}
	}
	return died;
}

/*
 * CPU hotplug.  A run holds cpus_read_lock() only while it checks its CPUs
 * and creates and binds its workers (il_workers_start()).  Held for the
 * whole run, one queued hotplug writer (an SMT toggle, chcpu, a RAS CPU
 * offlining) would block every later reader, static-key flips included,
 * for as long as the run lasts.  Instead each module installs a CPU
 * teardown callback (il_hp_setup(): a dynamic CPUHP_AP_ONLINE_DYN state).
 * When a CPU the run uses (one its workers are bound to, or one of
 * il_run_ctl's @cpus) goes offline, the callback aborts the run
 * (IL_ABORT_HOTPLUG: the ioctl fails with -ENODEV), kicks the workers out
 * of HLT or MWAIT, and waits, for IL_HP_WAIT at most, until the run's
 * workers are joined, before the CPU goes: so no storm writes an ICR at a
 * CPU that is gone, and a worker the scheduler has already moved off the
 * CPU (this callback runs after the CPU stops being active) stops at its
 * next look at the abort; the run's records are never copied out.  The
 * wait is bounded by the workers' longest step between two looks at the
 * abort (a gap window, up to IDLELAB_MAX_WINDOW_US).
 *
 * @lock (a mutex: the callback kicks and the run may sleep) guards @ctl,
 * @w and @n, the run in flight.  No run can start while the callback runs:
 * il_workers_start() needs cpus_read_lock(), which the hotplug writer
 * holds.
 */
struct il_hotplug {
	struct mutex lock;		/* guards ctl, w and n */
	struct il_run_ctl *ctl;		/* the run in flight, or NULL */
	const struct il_worker *w;
	unsigned int n;
	wait_queue_head_t ended;	/* woken as @ctl goes back to NULL */
	int state;			/* the dynamic cpuhp state */
};

/* Each module's main.c defines it with IL_HOTPLUG_DEFINE(). */
extern struct il_hotplug il_hotplug;

#define IL_HOTPLUG_DEFINE()						\
	struct il_hotplug il_hotplug = {				\
		.lock = __MUTEX_INITIALIZER(il_hotplug.lock),		\
		.ended = __WAIT_QUEUE_HEAD_INITIALIZER(il_hotplug.ended), \
	}

#define IL_HP_WAIT	((IDLELAB_MAX_WINDOW_US / USEC_PER_SEC + 5) * HZ)

/* Does the run in flight use @cpu?  @lock held. */
static inline bool il_hp_uses(unsigned int cpu)
{
	const struct cpumask *also;
	unsigned int i;

	if (!il_hotplug.ctl)
		return false;
	also = il_hotplug.ctl->cpus;
	if (also && cpumask_test_cpu(cpu, also))
		return true;
	for (i = 0; i < il_hotplug.n; i++)
		if (il_hotplug.w[i].cpu == cpu)
			return true;
	return false;
}

/* The teardown callback: on @cpu, in its hotplug thread, sleeping allowed. */
static inline int il_hp_offline(unsigned int cpu)
{
	bool hit;

	mutex_lock(&il_hotplug.lock);
	hit = il_hp_uses(cpu);
	if (hit) {
		atomic_cmpxchg(&il_hotplug.ctl->abort, 0, IL_ABORT_HOTPLUG);
		il_workers_kick(il_hotplug.w, il_hotplug.n);
	}
	mutex_unlock(&il_hotplug.lock);
	if (hit && !wait_event_timeout(il_hotplug.ended,
				       !READ_ONCE(il_hotplug.ctl), IL_HP_WAIT))
		pr_warn("cpu%u goes offline before the run's workers stopped\n",
			cpu);
	return 0;
}

/* Module init: install the teardown callback.  Return: 0 or -errno. */
static inline int il_hp_setup(const char *name)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, name, NULL,
					il_hp_offline);
	if (ret < 0)
		return ret;
	il_hotplug.state = ret;
	return 0;
}

/* Module exit (no run can be in flight: an open file holds the module). */
static inline void il_hp_remove(void)
{
	cpuhp_remove_state_nocalls(il_hotplug.state);
}

static inline void il_hp_register(struct il_run_ctl *ctl,
				  const struct il_worker *w, unsigned int n)
{
	mutex_lock(&il_hotplug.lock);
	il_hotplug.w = w;
	il_hotplug.n = n;
	il_hotplug.ctl = ctl;
	mutex_unlock(&il_hotplug.lock);
}

static inline void il_hp_unregister(void)
{
	mutex_lock(&il_hotplug.lock);
	WRITE_ONCE(il_hotplug.ctl, NULL);
	mutex_unlock(&il_hotplug.lock);
	wake_up_all(&il_hotplug.ended);
}

/**
 * il_workers_start - create @n workers, each bound to its ->cpu, register
 * the run for CPU hotplug and start them
 * @w:		the workers, ->fn, ->ctx and ->cpu filled in
 * @n:		how many
 * @ctl:	the run's stop conditions; its end is set here, as the
 *		workers start
 *
 * Context: process context, cpus_read_lock() held by the caller, which
 * checked the CPUs online under it and drops it once this returns.
 * Return: 0 (then il_workers_end() must follow), or -ENOMEM and the like
 * from kthread_create_on_cpu(), nothing started.
 */
static inline int il_workers_start(struct il_worker *w, unsigned int n,
				   struct il_run_ctl *ctl)
{
	u64 limit = READ_ONCE(il_run_limit_us);
	unsigned int i;
	int ret;

	if (!limit || limit > IDLELAB_MAX_RUN_US)
		limit = IDLELAB_MAX_RUN_US;
	atomic_set(&ctl->abort, 0);
	for (i = 0; i < n; i++) {
		init_completion(&w[i].done);
		w[i].index = i;
		w[i].ret = 0;
		w[i].finished = false;
		w[i].joined = false;
		w[i].task = kthread_create_on_cpu(il_worker_main, &w[i],
						  w[i].cpu, "idlelab/%u");
		if (IS_ERR(w[i].task)) {
			ret = PTR_ERR(w[i].task);
			goto stop_created;
		}
		get_task_struct(w[i].task);
	}
	/* Before any CPU of the run can go: the caller holds the lock. */
	il_hp_register(ctl, w, n);
	ctl->end = il_tsc() + il_us_to_cycles(limit);
	for (i = 0; i < n; i++)
		wake_up_process(w[i].task);
	return 0;

stop_created:
	/* Never woken, so kthread_stop() makes them exit without ->fn. */
	while (i--) {
		kthread_stop(w[i].task);
		put_task_struct(w[i].task);
	}
	return ret;
}

/**
 * il_workers_end - join the workers il_workers_start() started
 * @w:		the workers
 * @n:		how many
 * @ctl:	the run's stop conditions
 *
 * Context: process context, cpus_read_lock() not held.
 * Return: 0, -EINTR after a fatal signal, -EIO when a worker died without
 * finishing (the others are told to abort and joined), -ETIME when the run
 * reached its wall-clock limit, -ENODEV when one of its CPUs went offline,
 * or the first worker's non-zero return value.
 */
static inline int il_workers_end(struct il_worker *w, unsigned int n,
				 struct il_run_ctl *ctl)
{
	unsigned int i;
	bool died;

	died = il_workers_join(w, n, ctl);
	il_hp_unregister();
	if (died)
		return -EIO;
	switch (atomic_read(&ctl->abort)) {
	case IL_ABORT_SIGNAL:
		return -EINTR;
	case IL_ABORT_DEADLINE:
		return -ETIME;
	case IL_ABORT_HOTPLUG:
		return -ENODEV;
	}
	for (i = 0; i < n; i++)
		if (w[i].ret)
			return w[i].ret;
	return 0;
}

/*
 * Should a worker loop stop?  Polled between bounded steps: true once the
 * run is aborted or its wall-clock end has passed (then it says so).
 */
static inline bool il_should_abort(struct il_run_ctl *ctl)
{
	if (atomic_read(&ctl->abort))
		return true;
	if (il_tsc() < READ_ONCE(ctl->end))
		return false;
	atomic_cmpxchg(&ctl->abort, 0, IL_ABORT_DEADLINE);
	return true;
}

#endif /* IDLELAB_WORKERS_H */
