/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlelab_kcommon.h - what both idlelab modules share, as static inlines so
 * that neither module depends on the other: the request header checks,
 * GET_INFO, the copy-out of a run's records, and the misc-device frame
 * (root-only open, one run in flight, the file_operations).  The worker
 * kthreads a run executes on are idlelab_workers.h's.
 */
#ifndef IDLELAB_KCOMMON_H
#define IDLELAB_KCOMMON_H

#include <linux/cpumask.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/processor.h>
#include <asm/tsc.h>

#include "idlelab_compat.h"	/* why the fops have no .llseek */
#include "idlelab_workers.h"
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
