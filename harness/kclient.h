/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kclient.h - the user-space side of the helper kernel modules (kmod/).
 *
 * The benchmarks that drive a module (flag IL_BF_KMOD) go through this
 * file, never through ioctl() directly: it finds the device node (under
 * IDLELAB_SYSFS_ROOT, through sysfs.h, so a test can point it at a tree
 * without the device), explains how to load the module when the node is
 * absent, checks GET_INFO and the ABI version at open, stamps every request
 * with abi_version and size, and turns kernel errors into messages that
 * name the request.  The ABI itself is kmod/include/uapi/idlelab.h.
 *
 * Errors follow err.h: 0 or a negative errno with il_errorf().
 */
#ifndef IDLELAB_KCLIENT_H
#define IDLELAB_KCLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <uapi/idlelab.h>

/* One open device: its descriptor and what GET_INFO said. */
struct il_kdev {
	int fd;
	const char *name;		/* IDLELAB_DEV_CSTATE or _IPI */
	struct idlelab_info info;
};

/*
 * Requests of one ioctl are cut into batches of at most this many records,
 * so a long run stays interruptible (il_stop_requested() is checked between
 * batches) and its buffer stays small.
 */
#define IL_KBATCH	8192

/**
 * il_kdev_absent() - why the device @name cannot be used here, or NULL if
 * its node exists.  The reason names the node and how to load the module;
 * it is static storage, valid until the next call for the same device.
 */
const char *il_kdev_absent(const char *name);

/**
 * il_kdev_open() - open /dev/@name, run GET_INFO and check the ABI version.
 * Return: 0; -ENODEV (absent, message with the load instructions);
 * -EACCES/-EPERM (the nodes are root-only); -EPROTO (ABI mismatch).
 */
int il_kdev_open(const char *name, struct il_kdev *d);
void il_kdev_close(struct il_kdev *d);

/**
 * il_kreq_init() - zero a request of @size bytes and set its abi_version
 * and size, the two fields every request starts with.
 */
void il_kreq_init(void *req, size_t size);

/**
 * il_kdev_ioctl() - submit @req with @cmd; @what names the request in the
 * message.  Return: 0, or -errno with a message that says what the errno
 * means for this ABI (EINVAL: refused as invalid, EBUSY: another run in
 * flight, EINTR: aborted by a signal).
 */
int il_kdev_ioctl(struct il_kdev *d, unsigned long cmd, void *req,
		  const char *what);

/**
 * il_kcheck_run_us() - a request of @us microseconds against the modules'
 * IDLELAB_MAX_RUN_US, for a benchmark's check op; @what names the product
 * in the message ("windows x window_us").  Return: 0, or -EINVAL.
 */
int il_kcheck_run_us(const char *what, uint64_t us);

/**
 * il_kcheck_threshold_ns() - a gap threshold against the modules' floor,
 * IDLELAB_MIN_THRESHOLD_NS.  Return: 0, or -EINVAL with the message.
 */
int il_kcheck_threshold_ns(uint64_t ns);

/**
 * il_kcheck_duty() - the modules' duty-cycle rule for an IRQs-off detector:
 * @width_us at most half of @window_us, so that IRQs are on at least half
 * the time.  Return: 0, or -EINVAL with the message.
 */
int il_kcheck_duty(uint64_t width_us, uint64_t window_us);

/**
 * il_kcheck_nmi_panic() - may a storm of raw NMIs run here?  An NMI the
 * module does not claim (one that arrives after its round or its run)
 * reaches the kernel as an unknown NMI, and with the sysctl
 * kernel.unknown_nmi_panic or kernel.panic_on_unrecovered_nmi set that
 * panics the machine.  Read through sysfs.h (IDLELAB_SYSFS_ROOT); a
 * sysctl this kernel lacks counts as 0.  Return: 0, or -EOPNOTSUPP with
 * the sysctl named in the message (the run is stored as unsupported).
 */
int il_kcheck_nmi_panic(void);

/** il_kunsup_str() - the text of an IDLELAB_UNSUP_* reason. */
const char *il_kunsup_str(uint32_t why);

/** il_kcyc_ns() - TSC cycles to ns at @tsc_khz (0 if @tsc_khz is 0). */
static inline uint64_t il_kcyc_ns(uint64_t cycles, uint64_t tsc_khz)
{
	if (!tsc_khz)
		return 0;
	return (uint64_t)((unsigned __int128)cycles * 1000000u / tsc_khz);
}

/** il_kns_cyc() - ns to TSC cycles at @tsc_khz. */
static inline uint64_t il_kns_cyc(uint64_t ns, uint64_t tsc_khz)
{
	return (uint64_t)((unsigned __int128)ns * tsc_khz / 1000000u);
}

/**
 * il_kmods_json() - presence, version and ABI of every helper module, for
 * `idlelab info`: { "idlelab_cstate": {present, version, abi, ...} or
 * {present: false, reason}, ... }.  Never fails but on allocation (NULL).
 */
json_t *il_kmods_json(void);

#endif
