// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - /dev/idlelab_ipi, the device of idlelab_ipi.ko: closed-loop IPI
 * storms from a sender CPU to a target set (storm.c) and the map of every
 * CPU's APIC ID and LDR (apic_map.c).  The ABI is include/uapi/idlelab.h.
 *
 * Object model: there is no per-open state.  Each run ioctl copies its
 * request in, validates it, allocates the output buffers, runs and copies
 * the request and the records out.  copy_*_user happens only here, at the
 * edge, and in idlelab_kcommon.h's il_copy_out().
 *
 * Locking: il_run_lock serialises runs; a second run while one is in flight
 * gets -EBUSY (mutex_trylock), never a wait.  GET_INFO takes no lock.  The
 * file holds a module reference (fops.owner), so the module cannot go while
 * the device is open; the sender kthread exits before the ioctl returns.
 * The device frame (open, fops, il_run_exclusive) is idlelab_kcommon.h's,
 * shared with idlelab_cstate.ko.  The NMI handler is registered for the
 * module's lifetime, ignores NMIs while no storm runs and claims only those
 * a storm's targets are owed (storm.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/apic.h>
#include <asm/nmi.h>

#include "idlelab_kcommon.h"
#include "ipi.h"

static DEFINE_MUTEX(il_run_lock);

IL_RUN_LIMIT_PARAM();
IL_HOTPLUG_DEFINE();

static long il_ioctl_storm(void __user *argp)
{
	struct idlelab_ipi_req req;
	struct idlelab_ipi_round *rounds;
	struct idlelab_ipi_arrival *arr;
	u32 *cpus;
	long ret;

	lockdep_assert_held(&il_run_lock);
	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	ret = il_storm_check(&req);
	if (ret)
		return ret;
	cpus = memdup_user(u64_to_user_ptr(req.targets),
			   req.nr_targets * sizeof(u32));
	if (IS_ERR(cpus))
		return PTR_ERR(cpus);
	rounds = kvcalloc(req.nr_rounds, sizeof(*rounds), GFP_KERNEL_ACCOUNT);
	arr = kvcalloc((size_t)req.nr_rounds * req.nr_targets, sizeof(*arr),
		       GFP_KERNEL_ACCOUNT);
	if (!rounds || !arr) {
		ret = -ENOMEM;
		goto free_records;
	}
	ret = il_storm_run(&req, cpus, rounds, arr);
	if (ret)
		goto free_records;
	if (copy_to_user(u64_to_user_ptr(req.arrivals), arr,
			 (size_t)req.nr_done * req.nr_targets * sizeof(*arr)))
		ret = -EFAULT;
	else
		ret = il_copy_out(argp, &req, sizeof(req), req.rounds, rounds,
				  (size_t)req.nr_done * sizeof(*rounds));
free_records:
	kvfree(arr);
	kvfree(rounds);
	kfree(cpus);
	return ret;
}

static long il_ioctl_apic_map(void __user *argp)
{
	struct idlelab_apic_map_req req;
	struct idlelab_apic_cpu *c;
	long ret = 0;

	lockdep_assert_held(&il_run_lock);
	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	ret = il_apic_map_check(&req);
	if (ret)
		return ret;
	c = kvcalloc(num_possible_cpus(), sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return -ENOMEM;
	il_apic_map_run(&req, c);
	ret = il_copy_out(argp, &req, sizeof(req), req.cpus, c,
			  req.nr_cpus * sizeof(*c));
	kvfree(c);
	return ret;
}

static long il_ipi_ioctl(struct file *file, unsigned int cmd,
			 unsigned long parm)
{
	void __user *argp = (void __user *)parm;

	switch (cmd) {
	case IDLELAB_IOC_GET_INFO:
		return il_ioctl_get_info(argp, KBUILD_MODNAME,
					 IDLELAB_OP_IPI_STORM |
					 IDLELAB_OP_APIC_MAP,
					 IDLELAB_FEAT_NMI_COUNT |
					 (x2apic_mode ? IDLELAB_FEAT_X2APIC : 0));
	case IDLELAB_IOC_IPI_STORM:
		return il_run_exclusive(&il_run_lock, il_ioctl_storm, argp);
	case IDLELAB_IOC_APIC_MAP:
		return il_run_exclusive(&il_run_lock, il_ioctl_apic_map, argp);
	default:
		return -ENOTTY;
	}
}

IL_MISCDEV(il_ipi_misc, IDLELAB_DEV_IPI, il_ipi_ioctl);

static int __init il_ipi_init(void)
{
	int ret;

	/* First in the chain: our TSC read comes before perf's handler. */
	ret = register_nmi_handler(NMI_LOCAL, il_ipi_nmi, NMI_FLAG_FIRST,
				   KBUILD_MODNAME);
	if (ret)
		return ret;
	ret = il_hp_setup("idlelab/ipi:online");
	if (ret)
		goto unregister_nmi;
	ret = misc_register(&il_ipi_misc);
	if (ret)
		goto remove_hp;
	return 0;

remove_hp:
	il_hp_remove();
unregister_nmi:
	unregister_nmi_handler(NMI_LOCAL, KBUILD_MODNAME);
	return ret;
}

static void __exit il_ipi_exit(void)
{
	misc_deregister(&il_ipi_misc);
	il_hp_remove();
	/* Kernel-mode callbacks still queued run module text. */
	il_storm_csd_idle();
	unregister_nmi_handler(NMI_LOCAL, KBUILD_MODNAME);
}

module_init(il_ipi_init);
module_exit(il_ipi_exit);

MODULE_DESCRIPTION("idlelab: closed-loop IPI storms and the APIC map");
MODULE_AUTHOR("idlelab developers");
MODULE_LICENSE("GPL");
MODULE_VERSION("1.0");
