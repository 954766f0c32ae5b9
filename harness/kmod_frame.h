/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kmod_frame.h - the frame around every benchmark that drives a helper kernel
 * module, derived from its ops table's .kdev (bench.h), so that no kmod
 * benchmark repeats it: whether it can run here, and its device opened
 * (GET_INFO and the ABI check, kclient.h) before setup() and closed after
 * teardown().  The runner, `list` and the campaign's skip of an absent
 * module all go through here, so they agree for every kmod benchmark.
 *
 * Errors follow err.h: 0 or a negative errno with il_errorf().
 */
#ifndef IDLELAB_KMOD_FRAME_H
#define IDLELAB_KMOD_FRAME_H

#include "bench.h"

/**
 * il_bench_supported() - NULL if @ops can run here, else why not: the
 * benchmark's own supported() when it has one, else, for a kmod benchmark,
 * the absence of its device (with how to load the module).
 */
const char *il_bench_supported(const struct il_bench_ops *ops);

/**
 * il_run_kdev_open() - open @run->ops->kdev into @run->kdev; nothing (0)
 * for a benchmark without a device.
 * Return: 0, -ENOMEM, or il_kdev_open()'s error (-ENODEV, -EACCES,
 * -EPROTO) with its message.
 */
int il_run_kdev_open(struct il_run *run);

/** il_run_kdev_close() - close and free @run->kdev; safe when not open. */
void il_run_kdev_close(struct il_run *run);

#endif
