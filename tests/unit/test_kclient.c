// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_kclient.c - the user-space kmod client without the modules: the
 * device lookup under IDLELAB_SYSFS_ROOT and its load instructions, the
 * abi_version/size stamp of every request (over a poisoned struct, as the
 * ntsync selftest does), refusing a node that does not answer GET_INFO,
 * the TSC conversions, the `idlelab info` JSON, and the kmod benchmark
 * frame the runner derives from an ops table's .kdev (kmod_frame.h).
 */
#include "bench.h"
#include "bench_registry.h"
#include "run_context.h"
#include "err.h"
#include "kclient.h"
#include "kmod_frame.h"
#include "tap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

TEST(absent_device_says_how_to_load)
{
	const char *why;

	setenv("IDLELAB_SYSFS_ROOT", root, 1);
	why = il_kdev_absent(IDLELAB_DEV_CSTATE);
	CHECK(why && strstr(why, "device /dev/idlelab_cstate not found"));
	CHECK(why && strstr(why, "insmod kmod/cstate/idlelab_cstate.ko"));
	CHECK(why && strstr(why, "make -C kmod") && strstr(why, "DKMS"));
	why = il_kdev_absent(IDLELAB_DEV_IPI);
	CHECK(why && strstr(why, "insmod kmod/ipi/idlelab_ipi.ko"));
}

TEST(open_absent_is_enodev)
{
	struct il_kdev d;

	setenv("IDLELAB_SYSFS_ROOT", root, 1);
	CHECK(il_kdev_open(IDLELAB_DEV_IPI, &d) == -ENODEV);
	CHECK(d.fd == -1);
	CHECK(strstr(il_errmsg(), "insmod") != NULL);
	il_kdev_close(&d);
}

TEST(node_without_get_info_is_refused)
{
	char p[128];
	struct il_kdev d;
	int fd;

	snprintf(p, sizeof(p), "%s/dev/idlelab_cstate", root);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	CHECK(fd >= 0);
	close(fd);
	setenv("IDLELAB_SYSFS_ROOT", root, 1);
	CHECK(il_kdev_absent(IDLELAB_DEV_CSTATE) == NULL);
	/* A plain file answers the ioctl with ENOTTY: not our ABI. */
	CHECK(il_kdev_open(IDLELAB_DEV_CSTATE, &d) == -EPROTO);
	CHECK(d.fd == -1);
	CHECKF(strstr(il_errmsg(), "GET_INFO") != NULL, "%s", il_errmsg());
	unlink(p);
}

TEST(request_stamp)
{
	struct idlelab_cstate_req r;
	struct idlelab_ipi_req q;
	size_t i;
	int dirty = 0;

	memset(&r, 0xa5, sizeof(r));
	il_kreq_init(&r, sizeof(r));
	CHECK(r.abi_version == IDLELAB_ABI_VERSION);
	CHECK(r.size == sizeof(r));
	/* Everything else zero: padding and reserved must be, or -EINVAL. */
	for (i = 8; i < sizeof(r); i++)
		dirty |= ((unsigned char *)&r)[i];
	CHECK(dirty == 0);
	memset(&q, 0x5a, sizeof(q));
	il_kreq_init(&q, sizeof(q));
	CHECK(q.abi_version == IDLELAB_ABI_VERSION && q.size == sizeof(q));
	CHECK(q.reserved[0] == 0 && q.flags == 0 && q.pad2 == 0 &&
	      q.run_flags == 0 && q.timeout_us == 0 && q.apic_name[0] == 0);
}

TEST(tsc_conversions)
{
	CHECK(il_kcyc_ns(3000, 3000000) == 1000);	/* 3 GHz */
	CHECK(il_kcyc_ns(1, 0) == 0);
	CHECK(il_kns_cyc(1000, 3000000) == 3000);
	/* No overflow at a day of cycles at 5 GHz. */
	CHECK(il_kcyc_ns(5000000ull * 1000 * 86400, 5000000) ==
	      86400ull * 1000000000);
	CHECK(il_kunsup_str(IDLELAB_UNSUP_MWAIT_ECX_FAULT) &&
	      strstr(il_kunsup_str(IDLELAB_UNSUP_MWAIT_ECX_FAULT), "ECX"));
	CHECK(!strcmp(il_kunsup_str(999), "unknown reason"));
	/* Every reason the UAPI header names has its own text. */
	for (uint32_t why = 1; why <= IDLELAB_UNSUP_XEN_PV; why++)
		CHECK(strcmp(il_kunsup_str(why), "unknown reason") != 0);
	CHECK(strstr(il_kunsup_str(IDLELAB_UNSUP_XEN_PV), "Xen PV") != NULL);
}

TEST(info_json)
{
	json_t *o;

	setenv("IDLELAB_SYSFS_ROOT", root, 1);
	o = il_kmods_json();
	CHECK(o != NULL);
	CHECK(json_is_false(json_object_get(json_object_get(o, "idlelab_cstate"),
					    "present")));
	CHECK(json_is_string(json_object_get(json_object_get(o, "idlelab_ipi"),
					     "reason")));
	json_decref(o);
}

/*
 * Every benchmark that names a device gets its supported() and its device's
 * lifetime from the frame; none is named here, so a new kmod benchmark is
 * covered by this test without an edit.
 */
TEST(kdev_frame_for_every_kmod_benchmark)
{
	char p[128];
	struct il_run run;
	int i, nkdev = 0, fd;

	setenv("IDLELAB_SYSFS_ROOT", root, 1);
	for (i = 0; il_benches[i]; i++) {
		const struct il_bench_ops *b = il_benches[i];
		const char *why = il_bench_supported(b);

		if (!b->kdev) {
			CHECK(il_run_init(&run, b) == 0);
			CHECKF(il_run_kdev_open(&run) == 0 && !run.kdev,
			       "%s: no device, nothing opened", b->name);
			il_run_kdev_close(&run);
			il_run_release(&run);
			continue;
		}
		nkdev++;
		CHECKF(b->flags & IL_BF_KMOD, "%s: .kdev without IL_BF_KMOD",
		       b->name);
		CHECKF(!b->supported, "%s: supported() is the frame's", b->name);
		CHECKF(why && strstr(why, "insmod") && strstr(why, b->kdev),
		       "%s: reason %s", b->name, why ? why : "(none)");
		CHECK(il_run_init(&run, b) == 0);
		CHECKF(il_run_kdev_open(&run) == -ENODEV, "%s: absent device",
		       b->name);
		CHECK(run.kdev == NULL);
		CHECK(strstr(il_errmsg(), "insmod") != NULL);
		il_run_kdev_close(&run);	/* safe when not open */

		/* A node that is not our ABI fails the run before setup(). */
		snprintf(p, sizeof(p), "%s/dev/%s", root, b->kdev);
		fd = open(p, O_CREAT | O_WRONLY, 0600);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
		CHECK(il_bench_supported(b) == NULL);
		CHECKF(il_run_kdev_open(&run) == -EPROTO, "%s: not our ABI",
		       b->name);
		CHECK(run.kdev == NULL);
		unlink(p);
		il_run_release(&run);
	}
	CHECKF(nkdev > 0, "%d benchmarks name a device", nkdev);
}

/*
 * Raw-NMI storms are refused while either NMI-panic sysctl is set (issue
 * 21, section 2); a kernel without the sysctls, or with both 0, runs them.
 */
TEST(nmi_panic_sysctls_refuse_storms)
{
	static const char *const knobs[] = {
		"unknown_nmi_panic", "panic_on_unrecovered_nmi",
	};
	char dir[160], p[200];
	size_t i, j;
	FILE *f;

	setenv("IDLELAB_SYSFS_ROOT", root, 1);
	CHECKF(il_kcheck_nmi_panic() == 0, "no sysctl files: storms run");
	snprintf(dir, sizeof(dir), "%s/proc", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/proc/sys", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/proc/sys/kernel", root);
	mkdir(dir, 0755);
	for (i = 0; i < 2; i++) {
		for (j = 0; j < 2; j++) {
			snprintf(p, sizeof(p), "%s/%s", dir, knobs[j]);
			f = fopen(p, "w");
			CHECK(f != NULL);
			if (f) {
				fprintf(f, "%d\n", i == j);
				fclose(f);
			}
		}
		CHECKF(il_kcheck_nmi_panic() == -EOPNOTSUPP,
		       "kernel.%s=1: refused", knobs[i]);
		CHECKF(strstr(il_errmsg(), knobs[i]) != NULL,
		       "the reason names kernel.%s: %s", knobs[i], il_errmsg());
	}
	for (j = 0; j < 2; j++) {
		snprintf(p, sizeof(p), "%s/%s", dir, knobs[j]);
		f = fopen(p, "w");
		if (f) {
			fputs("0\n", f);
			fclose(f);
		}
	}
	CHECKF(il_kcheck_nmi_panic() == 0, "both 0: storms run");
	for (j = 0; j < 2; j++) {
		snprintf(p, sizeof(p), "%s/%s", dir, knobs[j]);
		unlink(p);
	}
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/proc/sys", root);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/proc", root);
	rmdir(dir);
}

int main(void)
{
	char p[128];

	snprintf(root, sizeof(root), "/tmp/idlelab-kclient.XXXXXX");
	if (!mkdtemp(root))
		return 1;
	snprintf(p, sizeof(p), "%s/dev", root);
	mkdir(p, 0755);
	RUN(absent_device_says_how_to_load);
	RUN(open_absent_is_enodev);
	RUN(node_without_get_info_is_refused);
	RUN(request_stamp);
	RUN(tsc_conversions);
	RUN(info_json);
	RUN(kdev_frame_for_every_kmod_benchmark);
	RUN(nmi_panic_sysctls_refuse_storms);
	rmdir(p);
	rmdir(root);
	return tap_done();
}
