// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - /dev/idlelab_cstate, the device of idlelab_cstate.ko: raw C-state
 * wake latency (wake.c), WBINVD cost and blast radius (wbinvd.c) and the
 * IRQs-off TSC-gap detector (gaps.c).  The ABI is include/uapi/idlelab.h.
 *
 * Object model: there is no per-open state.  Each run ioctl copies its
 * request in, validates it, allocates the sample buffer, runs on pinned
 * kthreads and copies the request and the samples out.  copy_*_user happens
 * only here, at the edge, and in idlelab_kcommon.h's il_copy_out().
 *
 * Locking: il_run_lock serialises runs; a second run while one is in flight
 * gets -EBUSY (mutex_trylock), never a wait.  GET_INFO takes no lock.  The
 * file holds a module reference (fops.owner), so the module cannot go while
 * the device is open; workers exit before the ioctl returns.  The device
 * frame (open, fops, il_run_exclusive) is idlelab_kcommon.h's, shared with
 * idlelab_ipi.ko.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>

#include "idlelab_arch.h"
#include "idlelab_kcommon.h"
#include "cstate.h"

static DEFINE_MUTEX(il_run_lock);

IL_RUN_LIMIT_PARAM();
IL_HOTPLUG_DEFINE();

static unsigned int il_inject;
module_param_named(inject, il_inject, uint, 0600);
MODULE_PARM_DESC(inject, "test only: 1 = next gaps worker dies, 2 = next IPI-wake sender stalls 1.5 s, 4 = next IPI-wake sender dies, 8 = the TSC is marked unstable during the next wake run, 16 = next wake run's first wake is lost, 32 = each WBINVD of the next run that times one spins its no-op threshold more, at most 100 us with IRQs off (cstate.h)");

bool il_inject_take(unsigned int bit)
{
	unsigned int old = READ_ONCE(il_inject);

	return (old & bit) && cmpxchg(&il_inject, old, old & ~bit) == old;
}

/**
 * il_inject_spin - busy-wait inside a timed WBINVD window (test only)
 * @cycles: TSC cycles to spin, capped at IL_INJECT_SPIN_MAX_US
 *
 * For IL_INJECT_WBINVD_SLOW, with IRQs off: the hard cap keeps a huge
 * threshold (a nested guest's, or a bad calibration) from holding the CPU
 * longer, as test_late_us's cap does in idlelab_ipi.ko.  A capped spin
 * may leave the span under the threshold; the guest rig's check then
 * fails, as it should.
 */
void il_inject_spin(u64 cycles)
{
	u64 t0 = il_tsc();

	cycles = min_t(u64, cycles, il_us_to_cycles(IL_INJECT_SPIN_MAX_US));
	while (il_tsc() - t0 < cycles)
		cpu_relax();
}

static u32 il_features(void)
{
	unsigned int a, b, c = 0, d;
	u32 f = IDLELAB_FEAT_NMI_COUNT;
	u32 smi;

	if (boot_cpu_has(X86_FEATURE_MWAIT))
		f |= IDLELAB_FEAT_MWAIT;
	if (boot_cpu_data.cpuid_level >= 5)
		cpuid(5, &a, &b, &c, &d);
	if (c & 1)
		f |= IDLELAB_FEAT_MWAIT_EXT;
	if (c & 2)
		f |= IDLELAB_FEAT_MWAIT_IRQ_BREAK;
	if (boot_cpu_has(X86_FEATURE_WBNOINVD))
		f |= IDLELAB_FEAT_WBNOINVD;
	if (il_smi_count(&smi))
		f |= IDLELAB_FEAT_SMI_COUNT;
	if (x2apic_mode)
		f |= IDLELAB_FEAT_X2APIC;
	return f;
}

/*
 * CSTATE_WAKE and GAPS: copy the request in, check it, allocate its
 * nr_samples records, run it, and copy out the nr_done records written
 * and the request.  The two differ only in their types.
 */
static long il_ioctl_cstate(void __user *argp)
{
	struct idlelab_cstate_req req;
	struct idlelab_cstate_sample *s;
	long ret;

	lockdep_assert_held(&il_run_lock);
	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	ret = il_cstate_check(&req);
	if (ret)
		return ret;
	s = kvcalloc(req.nr_samples, sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	ret = il_cstate_run(&req, s);
	if (!ret)
		ret = il_copy_out(argp, &req, sizeof(req), req.samples,
				  s, (size_t)req.nr_done * sizeof(*s));
	kvfree(s);
	return ret;
}

static long il_ioctl_gaps(void __user *argp)
{
	struct idlelab_gaps_req req;
	struct idlelab_gap_sample *s;
	long ret;

	lockdep_assert_held(&il_run_lock);
	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	ret = il_gaps_check(&req);
	if (ret)
		return ret;
	s = kvcalloc(req.nr_samples, sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	ret = il_gaps_run(&req, s);
	if (!ret)
		ret = il_copy_out(argp, &req, sizeof(req), req.samples,
				  s, (size_t)req.nr_done * sizeof(*s));
	kvfree(s);
	return ret;
}

static long il_ioctl_wbinvd(void __user *argp)
{
	struct idlelab_wbinvd_req req;
	u64 *footprints = NULL;
	u32 *victims = NULL;
	size_t rec;
	void *s;
	long ret;

	lockdep_assert_held(&il_run_lock);
	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	ret = il_wbinvd_check(&req);
	if (ret)
		return ret;
	if (req.mode == IDLELAB_WBINVD_SWEEP) {
		rec = sizeof(struct idlelab_wbinvd_sample);
		footprints = memdup_user(u64_to_user_ptr(req.footprints),
					 req.nr_footprints * sizeof(u64));
		if (IS_ERR(footprints))
			return PTR_ERR(footprints);
	} else {
		rec = sizeof(struct idlelab_gap_sample);
		victims = memdup_user(u64_to_user_ptr(req.victims),
				      req.nr_victims * sizeof(u32));
		if (IS_ERR(victims))
			return PTR_ERR(victims);
	}
	s = kvcalloc(req.nr_samples, rec, GFP_KERNEL_ACCOUNT);
	if (!s) {
		ret = -ENOMEM;
		goto free_lists;
	}
	ret = il_wbinvd_run(&req, footprints, victims, s);
	if (!ret)
		ret = il_copy_out(argp, &req, sizeof(req), req.samples, s,
				  (size_t)req.nr_done * rec);
	kvfree(s);
free_lists:
	kfree(footprints);
	kfree(victims);
	return ret;
}

static long il_cstate_ioctl(struct file *file, unsigned int cmd,
			    unsigned long parm)
{
	void __user *argp = (void __user *)parm;

	switch (cmd) {
	case IDLELAB_IOC_GET_INFO:
		return il_ioctl_get_info(argp, KBUILD_MODNAME,
					 IDLELAB_OP_CSTATE_WAKE |
					 IDLELAB_OP_WBINVD | IDLELAB_OP_GAPS,
					 il_features());
	case IDLELAB_IOC_CSTATE_WAKE:
		return il_run_exclusive(&il_run_lock, il_ioctl_cstate, argp);
	case IDLELAB_IOC_WBINVD:
		return il_run_exclusive(&il_run_lock, il_ioctl_wbinvd, argp);
	case IDLELAB_IOC_GAPS:
		return il_run_exclusive(&il_run_lock, il_ioctl_gaps, argp);
	default:
		return -ENOTTY;
	}
}

IL_MISCDEV(il_cstate_misc, IDLELAB_DEV_CSTATE, il_cstate_ioctl);

static int __init il_cstate_init(void)
{
	int ret;

	/* Before the device: no run can start without its CPUs watched. */
	ret = il_hp_setup("idlelab/cstate:online");
	if (ret)
		return ret;
	ret = misc_register(&il_cstate_misc);
	if (ret)
		il_hp_remove();
	return ret;
}

static void __exit il_cstate_exit(void)
{
	misc_deregister(&il_cstate_misc);
	il_hp_remove();
}

module_init(il_cstate_init);
module_exit(il_cstate_exit);

MODULE_DESCRIPTION("idlelab: raw C-state wake, WBINVD cost, IRQs-off TSC gaps");
MODULE_AUTHOR("idlelab developers");
MODULE_LICENSE("GPL");
MODULE_VERSION("1.0");
