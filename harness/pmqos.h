/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmqos.h - the kernel's PM QoS CPU latency interface, as idlelab uses it
 * in the fingerprint (env.c), the campaign controls (envctl.c, campaign.c)
 * and timer_wake's per-run request (bench/).
 *
 * /dev/cpu_dma_latency reads as a binary s32, the limit in force in
 * microseconds; writing an s32 to it holds a request for as long as the
 * descriptor stays open (Documentation/power/pm_qos_interface.rst).
 */
#ifndef IDLELAB_PMQOS_H
#define IDLELAB_PMQOS_H

#define IL_PM_QOS_PATH		"/dev/cpu_dma_latency"

/*
 * The kernel's PM_QOS_CPU_LATENCY_DEFAULT_VALUE (2000 s): "no constraint".
 * It is also the largest request idlelab accepts, as the kernel takes an
 * s32.  Plain digits, so IL_PM_QOS_NO_LIMIT_STR can spell it.
 */
#define IL_PM_QOS_NO_LIMIT_US	2000000000
#define IL_PM_QOS_STR_(x)	#x
#define IL_PM_QOS_STR(x)	IL_PM_QOS_STR_(x)
#define IL_PM_QOS_NO_LIMIT_STR	IL_PM_QOS_STR(IL_PM_QOS_NO_LIMIT_US)

#endif
