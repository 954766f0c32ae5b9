// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmod_frame.c - the kmod benchmark frame (kmod_frame.h): supported() from
 * the device's presence, and the device's lifetime around setup() and
 * teardown().  The device is opened before setup() so that a benchmark's
 * setup may already ask the module (GET_INFO's features) and so that an
 * ABI mismatch fails the run before any state is built.
 */
#include "kmod_frame.h"
#include "err.h"
#include "kclient.h"

#include <errno.h>
#include <stdlib.h>

const char *il_bench_supported(const struct il_bench_ops *ops)
{
	if (ops->supported)
		return ops->supported();
	if (ops->kdev)
		return il_kdev_absent(ops->kdev);
	return NULL;
}

int il_run_kdev_open(struct il_run *run)
{
	struct il_kdev *d;
	int ret;

	if (!run->ops->kdev)
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return il_errorf(-ENOMEM, "out of memory");
	ret = il_kdev_open(run->ops->kdev, d);
	if (ret) {
		free(d);
		return ret;
	}
	run->kdev = d;
	return 0;
}

void il_run_kdev_close(struct il_run *run)
{
	if (!run->kdev)
		return;
	il_kdev_close(run->kdev);
	free(run->kdev);
	run->kdev = NULL;
}
