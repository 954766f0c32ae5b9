// SPDX-License-Identifier: GPL-2.0-only
/*
 * kclient.c - opens the idlelab helper devices and submits requests to
 * them (kclient.h).  The device node is looked up through sysfs.h's root
 * (IDLELAB_SYSFS_ROOT), so tests run against a tree where it is absent.
 *
 * Why GET_INFO at open: a module built from another checkout may speak
 * another ABI; its requests would then be refused with a bare -EINVAL (the
 * size or version field), which says nothing.  Checking once at open turns
 * that into a message naming both versions.
 */
#include "kclient.h"
#include "err.h"
#include "sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where the .ko of each device is built (make -C kmod). */
static const char *ko_path(const char *name)
{
	if (!strcmp(name, IDLELAB_DEV_IPI))
		return "kmod/ipi/idlelab_ipi.ko";
	return "kmod/cstate/idlelab_cstate.ko";
}

static void dev_path(const char *name, char *buf, size_t len)
{
	char p[128];

	snprintf(p, sizeof(p), "/dev/%s", name);
	il_fs_path(p, buf, len);
}

const char *il_kdev_absent(const char *name)
{
	static char why_c[256], why_i[256];
	char *why = strcmp(name, IDLELAB_DEV_IPI) ? why_c : why_i;
	char p[4096];
	struct stat st;

	dev_path(name, p, sizeof(p));
	if (!stat(p, &st))
		return NULL;
	snprintf(why, sizeof(why_c),
		 "device /dev/%s not found: load it with `insmod %s` (build: make -C kmod) or via DKMS",
		 name, ko_path(name));
	return why;
}

void il_kreq_init(void *req, size_t size)
{
	/* Every request struct starts with these two __u32 fields. */
	struct {
		__u32 abi_version;
		__u32 size;
	} *h = req;

	memset(req, 0, size);
	h->abi_version = IDLELAB_ABI_VERSION;
	h->size = (__u32)size;
}

int il_kdev_open(const char *name, struct il_kdev *d)
{
	const char *why = il_kdev_absent(name);
	char p[4096];
	int e;

	d->fd = -1;
	d->name = name;
	memset(&d->info, 0, sizeof(d->info));
	if (why)
		return il_errorf(-ENODEV, "%s", why);
	dev_path(name, p, sizeof(p));
	d->fd = open(p, O_RDWR | O_CLOEXEC);
	if (d->fd < 0) {
		e = errno;
		return il_errorf(-e, "cannot open %s: %s%s", p, strerror(e),
				 e == EACCES || e == EPERM ?
				 " (the idlelab devices are root-only)" : "");
	}
	il_kreq_init(&d->info, sizeof(d->info));
	if (ioctl(d->fd, IDLELAB_IOC_GET_INFO, &d->info)) {
		e = errno;
		close(d->fd);
		d->fd = -1;
		return il_errorf(-EPROTO, "%s: GET_INFO failed (%s): the module does not speak ABI %d; rebuild and reload it from this tree (make -C kmod)",
				 p, strerror(e), IDLELAB_ABI_VERSION);
	}
	if (d->info.abi_version != IDLELAB_ABI_VERSION) {
		close(d->fd);
		d->fd = -1;
		return il_errorf(-EPROTO, "%s: module ABI %u, idlelab speaks ABI %d; rebuild and reload it from this tree (make -C kmod)",
				 p, d->info.abi_version, IDLELAB_ABI_VERSION);
	}
	return 0;
}

void il_kdev_close(struct il_kdev *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

int il_kdev_ioctl(struct il_kdev *d, unsigned long cmd, void *req,
		  const char *what)
{
	const char *hint = "";
	int e;

	if (!ioctl(d->fd, cmd, req))
		return 0;
	e = errno;
	switch (e) {
	case EINVAL:
		hint = ": refused as invalid (CPU offline or out of range, a count or duration outside the module's limits, or a planned run over 10 minutes)";
		break;
	case EBUSY:
		hint = ": another run is in flight on this device";
		break;
	case EINTR:
		hint = ": aborted by a signal";
		break;
	case EIO:
		hint = ": a worker thread of the module died without finishing (see dmesg); the run was joined on its exit and the device stays usable";
		break;
	case ETIME:
		hint = ": the run reached the module's wall-clock limit (10 minutes, or its lower run_limit_us parameter) and was stopped there";
		break;
	case ENOTTY:
		hint = ": this module does not know the request (rebuild it from this tree)";
		break;
	}
	return il_errorf(-e, "/dev/%s %s: %s%s", d->name, what, strerror(e),
			 hint);
}

int il_kcheck_run_us(const char *what, uint64_t us)
{
	if (us > IDLELAB_MAX_RUN_US)
		return il_errorf(-EINVAL, "%s = %" PRIu64 " us is over the module's run limit of %llu us",
				 what, us,
				 (unsigned long long)IDLELAB_MAX_RUN_US);
	return 0;
}

int il_kcheck_threshold_ns(uint64_t ns)
{
	if (ns < IDLELAB_MIN_THRESHOLD_NS)
		return il_errorf(-EINVAL, "parameter 'threshold_ns': %" PRIu64 " is below the module's floor of %d ns",
				 ns, IDLELAB_MIN_THRESHOLD_NS);
	return 0;
}

int il_kcheck_duty(uint64_t width_us, uint64_t window_us)
{
	if (width_us > window_us / 2)
		return il_errorf(-EINVAL, "parameter 'window_us': %" PRIu64 " must be at least twice width_us (%" PRIu64 "): IRQs must be on at least half of each window",
				 window_us, width_us);
	return 0;
}

int il_kcheck_nmi_panic(void)
{
	static const char *const knobs[] = {
		"unknown_nmi_panic", "panic_on_unrecovered_nmi",
	};
	char path[96];
	size_t i;
	long v;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		snprintf(path, sizeof(path), "/proc/sys/kernel/%s", knobs[i]);
		if (il_fs_read_long(path, &v) || !v)
			continue;
		return il_errorf(-EOPNOTSUPP, "kernel.%s is %ld here: an NMI of the storm that the module does not claim would panic the machine; set it to 0 (sysctl -w kernel.%s=0) for the run, or use mode=kernel, which sends no NMI",
				 knobs[i], v, knobs[i]);
	}
	return 0;
}

const char *il_kunsup_str(uint32_t why)
{
	switch (why) {
	case IDLELAB_UNSUP_NONE:
		return "none";
	case IDLELAB_UNSUP_NO_MWAIT:
		return "MWAIT not in CPUID";
	case IDLELAB_UNSUP_MWAIT_FAULT:
		return "MONITOR/MWAIT faulted";
	case IDLELAB_UNSUP_MWAIT_ECX_FAULT:
		return "MWAIT with ECX != 0 (interrupt break, IRQ late) faulted";
	case IDLELAB_UNSUP_WBINVD_FAULT:
		return "WBINVD faulted";
	case IDLELAB_UNSUP_NO_WBNOINVD:
		return "WBNOINVD not in CPUID";
	case IDLELAB_UNSUP_WBNOINVD_FAULT:
		return "WBNOINVD faulted";
	case IDLELAB_UNSUP_NO_LOGICAL:
		return "no logical destination (LDR empty)";
	case IDLELAB_UNSUP_BROADCAST_SET:
		return "the all-but-self shorthand would hit CPUs outside the targets (broadcast needs every other online CPU as a target)";
	case IDLELAB_UNSUP_NO_APIC:
		return "no local APIC";
	case IDLELAB_UNSUP_DEST_MODEL:
		return "unknown APIC destination model (DFR/LDR layout)";
	case IDLELAB_UNSUP_NO_ARAT:
		return "the APIC timer stops in deep C-states (no ARAT)";
	case IDLELAB_UNSUP_LOWRES_TIMER:
		return "hrtimers are low-resolution here (hrtimer_resolution is a tick): a timer wake would be up to a tick late";
	case IDLELAB_UNSUP_MWAIT_HINT:
		return "the MWAIT hint names a C-state or sub-state CPUID leaf 5 (EDX) does not enumerate";
	case IDLELAB_UNSUP_TSC_STOPS:
		return "an MWAIT hint deeper than C1 without an invariant (NONSTOP) TSC: the TSC may stop in it";
	case IDLELAB_UNSUP_KERNEL_PHYS:
		return "the kernel's APIC driver uses physical destinations only, so logical IDs are not the kernel's to rely on (firmware may force this)";
	case IDLELAB_UNSUP_ICR_NOT_NATIVE:
		return "the kernel's icr_write is not the hardware's (Xen PV, SEV-ES/SNP, TDX or a paravirtual APIC driver): raw ICR writes refused";
	case IDLELAB_UNSUP_XEN_PV:
		return "a Xen PV guest (dom0 too): HLT and MWAIT are privileged there and Xen emulates WBINVD, so raw HLT, MWAIT and WBINVD requests are refused";
	case IDLELAB_UNSUP_IDLE_OVERRIDE:
		return "the kernel's idle= boot option forbids it (idle=poll: no HLT or MWAIT; idle=halt or idle=nomwait: no MWAIT); policy_override=1 runs it anyway";
	case IDLELAB_UNSUP_PM_QOS:
		return "the CPU's resume-latency PM QoS (power/pm_qos_resume_latency_us = n/a) allows no idle state; policy_override=1 runs it anyway";
	case IDLELAB_UNSUP_STATE_DISABLED:
		return "the cpuidle state is disabled or beyond max_cstate; policy_override=1 runs it anyway";
	case IDLELAB_UNSUP_NO_CST:
		return "no ACPI C-states to enter on this CPU: the firmware has no _CST for it, or acpi_idle is not the cpuidle driver (intel_idle, idle=, a guest without _CST)";
	case IDLELAB_UNSUP_CST_ENTRY:
		return "the ACPI C-state's entry cannot be done as acpi_idle does it: an FFixedHW (MWAIT) entry, whose ECX the kernel keeps to itself; an I/O port above 0xffff; or a C3 whose bus-master handling needs ARB_DIS (bm_check and bm_control; bm=none or bm=flush runs it without)";
	}
	return "unknown reason";
}

static json_t *kmod_json(const char *name)
{
	struct il_kdev d;
	json_t *o;

	if (il_kdev_absent(name))
		return json_pack("{s:b,s:s}", "present", 0, "reason",
				 il_kdev_absent(name));
	if (il_kdev_open(name, &d))
		return json_pack("{s:b,s:s}", "present", 1, "reason",
				 il_errmsg());
	o = json_pack("{s:b,s:i,s:s#,s:I,s:I,s:I}", "present", 1,
		      "abi", (int)d.info.abi_version,
		      "name", (const char *)d.info.name,
		      (int)strnlen((const char *)d.info.name, IDLELAB_NAME_LEN),
		      "ops", (json_int_t)d.info.ops,
		      "features", (json_int_t)d.info.features,
		      "tsc_khz", (json_int_t)d.info.tsc_khz);
	if (o) {
		char v[32];

		snprintf(v, sizeof(v), "%u.%u", d.info.module_version >> 16,
			 d.info.module_version & 0xffff);
		json_object_set_new(o, "version", json_string(v));
	}
	il_kdev_close(&d);
	return o;
}

json_t *il_kmods_json(void)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, IDLELAB_DEV_CSTATE, kmod_json(IDLELAB_DEV_CSTATE));
	json_object_set_new(o, IDLELAB_DEV_IPI, kmod_json(IDLELAB_DEV_IPI));
	return o;
}
