/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlelab_kcommon.h - what both idlelab modules share, as static inlines so
 * that neither module depends on the other: the pinned worker kthreads a run
 * executes on, the request header checks, GET_INFO, the copy-out of a run's
 * records, and the misc-device frame (root-only open, one run in flight, the
 * file_operations).
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
#ifndef IDLELAB_KCOMMON_H
#define IDLELAB_KCOMMON_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/miscdevice.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/processor.h>
#include <asm/tsc.h>

#include "idlelab_arch.h"	/* il_tsc() */
#include "idlelab_compat.h"	/* why the fops have no .llseek */
#include "uapi/idlelab.h"

/*
 * The ABI is frozen by these sizes: no implicit padding, the same layout for
 * 32- and 64-bit user space.  A change here is a new ABI version.
 */
static_assert(sizeof(struct idlelab_info) == 112);
static_assert(sizeof(struct idlelab_cstate_req) == 144);
static_assert(sizeof(struct idlelab_cstate_sample) == 152);
static_assert(sizeof(struct idlelab_wbinvd_req) == 152);
static_assert(sizeof(struct idlelab_wbinvd_sample) == 32);
static_assert(sizeof(struct idlelab_gaps_req) == 112);
static_assert(sizeof(struct idlelab_gap_sample) == 56);
static_assert(sizeof(struct idlelab_ipi_req) == 136);
static_assert(sizeof(struct idlelab_ipi_round) == 40);
static_assert(sizeof(struct idlelab_ipi_arrival) == 16);
static_assert(sizeof(struct idlelab_apic_cpu) == 16);
static_assert(sizeof(struct idlelab_apic_map_req) == 96);

#define IDLELAB_MODULE_VERSION	((1U << 16) | 0U)

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
 * IL_ABORT_SIGNAL or IL_ABORT_DIED by the joining caller, or to
 * IL_ABORT_DEADLINE by the first worker that sees @end (TSC) pass.
 */
struct il_run_ctl {
	atomic_t abort;
	u64 end;
};

#define IL_ABORT_SIGNAL		1
#define IL_ABORT_DIED		2
#define IL_ABORT_DEADLINE	3

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

/*
 * il_workers_join - wait until every worker has finished or died
 * @w:		@n started workers whose tasks the caller holds
 * @n:		how many
 * @ctl:	the run's stop conditions
 *
 * Every slice looks at every worker still running, so a death is seen
 * within IL_JOIN_SLICE whichever worker it is, and the others are told to
 * abort then.  The killable waits are on one running worker at a time, but
 * each lasts one slice at most.  After a fatal signal the waits are no
 * longer killable (a pending signal would end them at once).
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
				atomic_cmpxchg(&ctl->abort, 0, IL_ABORT_DIED);
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
			atomic_cmpxchg(&ctl->abort, 0, IL_ABORT_SIGNAL);
			killed = true;
		}
	}
	return died;
}

/**
 * il_workers_run - run @n workers, each bound to its ->cpu, and join all
 * @w:		the workers, ->fn, ->ctx and ->cpu filled in
 * @n:		how many
 * @ctl:	the run's stop conditions; its end is set here, as the
 *		workers start
 *
 * Context: process context, cpus_read_lock() held by the caller.
 * Return: 0, -EINTR after a fatal signal, -EIO when a worker died without
 * finishing (the others are told to abort and joined), -ETIME when the run
 * reached its wall-clock limit, -ENOMEM, or the first worker's non-zero
 * return value.
 */
static inline int il_workers_run(struct il_worker *w, unsigned int n,
				 struct il_run_ctl *ctl)
{
	u64 limit = READ_ONCE(il_run_limit_us);
	unsigned int i;
	bool died;
	int ret = 0;

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
	ctl->end = il_tsc() + il_us_to_cycles(limit);
	for (i = 0; i < n; i++)
		wake_up_process(w[i].task);
	died = il_workers_join(w, n, ctl);
	if (died)
		return -EIO;
	switch (atomic_read(&ctl->abort)) {
	case IL_ABORT_SIGNAL:
		return -EINTR;
	case IL_ABORT_DEADLINE:
		return -ETIME;
	}
	for (i = 0; i < n; i++)
		if (w[i].ret)
			return w[i].ret;
	return 0;

stop_created:
	/* Never woken, so kthread_stop() makes them exit without ->fn. */
	while (i--) {
		kthread_stop(w[i].task);
		put_task_struct(w[i].task);
	}
	return ret;
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

/*
 * Context switches of @t so far, voluntary or not.  A timed window runs
 * with preemption disabled, so this cannot change inside one; if it ever
 * does (a sleeping call slipped into a window, a preempt_enable() moved),
 * the window is flagged as preempted instead of being stored as a latency.
 */
static inline unsigned long il_switches(const struct task_struct *t)
{
	return READ_ONCE(t->nvcsw) + READ_ONCE(t->nivcsw);
}

/* CPU in range and online; the caller holds cpus_read_lock(). */
static inline bool il_cpu_ok(u32 cpu)
{
	return cpu < nr_cpu_ids && cpu_online(cpu);
}

static inline bool il_all_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/* splitmix64: a seeded, reproducible generator for random launch times. */
static inline u64 il_rand64(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/**
 * il_get_info - answer IDLELAB_IOC_GET_INFO
 * @info:	the caller's struct, already copied in
 * @name:	module name
 * @ops:	IDLELAB_OP_* this device runs
 * @features:	IDLELAB_FEAT_* found
 *
 * Return: 0, or -EINVAL for a wrong ABI version, size or a non-zero
 * reserved field.
 */
static inline int il_get_info(struct idlelab_info *info, const char *name,
			      u32 ops, u32 features)
{
	unsigned int a = 0, b = 0, c = 0, d = 0;

	if (info->abi_version != IDLELAB_ABI_VERSION ||
	    info->size != sizeof(*info) ||
	    !il_all_zero(info->reserved, sizeof(info->reserved)))
		return -EINVAL;
	if (boot_cpu_data.cpuid_level >= 5)
		cpuid(5, &a, &b, &c, &d);
	memset(info, 0, sizeof(*info));
	info->abi_version = IDLELAB_ABI_VERSION;
	info->size = sizeof(*info);
	info->module_version = IDLELAB_MODULE_VERSION;
	info->ops = ops;
	info->features = features;
	info->nr_cpu_ids = nr_cpu_ids;
	info->tsc_khz = tsc_khz;
	info->cpuid5_eax = a;
	info->cpuid5_ebx = b;
	info->cpuid5_ecx = c;
	info->cpuid5_edx = d;
	info->max_samples = IDLELAB_MAX_SAMPLES;
	strscpy(info->name, name, sizeof(info->name));
	return 0;
}

/**
 * il_ioctl_get_info - IDLELAB_IOC_GET_INFO at the user edge
 * @argp:	the caller's struct idlelab_info
 * @name:	module name
 * @ops:	IDLELAB_OP_* this device runs
 * @features:	IDLELAB_FEAT_* found
 *
 * GET_INFO takes no lock: it reads nothing a run changes.
 * Return: 0, -EFAULT, or il_get_info()'s -EINVAL.
 */
static inline long il_ioctl_get_info(void __user *argp, const char *name,
				     u32 ops, u32 features)
{
	struct idlelab_info info;
	int ret;

	if (copy_from_user(&info, argp, sizeof(info)))
		return -EFAULT;
	ret = il_get_info(&info, name, ops, features);
	if (ret)
		return ret;
	if (copy_to_user(argp, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

/**
 * il_copy_out - the copy-out every run ioctl ends with
 * @argp:	the caller's request
 * @req:	the request as the run left it (nr_done and the rest set)
 * @size:	its size
 * @uptr:	the user array its records go to (a __u64 field of @req)
 * @rec:	the records
 * @len:	their bytes, nr_done of them only
 *
 * The records go first, so a caller that sees nr_done finds them written.
 * Return: 0 or -EFAULT.
 */
static inline long il_copy_out(void __user *argp, const void *req, size_t size,
			       u64 uptr, const void *rec, size_t len)
{
	if (copy_to_user(u64_to_user_ptr(uptr), rec, len) ||
	    copy_to_user(argp, req, size))
		return -EFAULT;
	return 0;
}

/**
 * il_run_exclusive - run one request with @lock held
 * @lock:	the module's run lock
 * @fn:		the request's ioctl function
 * @argp:	its user pointer
 *
 * One run at a time: a busy device answers -EBUSY at once, never a wait, so
 * a second caller cannot queue behind a long IRQs-off run.
 * Return: -EBUSY, or what @fn returned.
 */
static inline long il_run_exclusive(struct mutex *lock,
				    long (*fn)(void __user *argp),
				    void __user *argp)
{
	long ret;

	if (!mutex_trylock(lock))
		return -EBUSY;
	ret = fn(argp);
	mutex_unlock(lock);
	return ret;
}

/* The nodes are root-only (mode 0600), and a run needs CAP_SYS_ADMIN too. */
static inline int il_dev_open(struct inode *inode, struct file *file)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return nonseekable_open(inode, file);
}

/*
 * IL_MISCDEV - define @_var, the module's struct miscdevice for /dev/@_name,
 * and its file_operations (@_var##_fops) with @_ioctl as the only command
 * entry.  The file holds a module reference (.owner), so the module cannot
 * go while the device is open.  .llseek stays unset: seeking fails with
 * -ESPIPE on every supported kernel (idlelab_compat.h).
 */
#define IL_MISCDEV(_var, _name, _ioctl)					\
	static const struct file_operations _var##_fops = {		\
		.owner		= THIS_MODULE,				\
		.open		= il_dev_open,				\
		.unlocked_ioctl	= _ioctl,				\
		.compat_ioctl	= compat_ptr_ioctl,			\
	};								\
	static struct miscdevice _var = {				\
		.minor		= MISC_DYNAMIC_MINOR,			\
		.name		= _name,				\
		.fops		= &_var##_fops,				\
		.mode		= 0600,					\
	}

#endif /* IDLELAB_KCOMMON_H */
