// SPDX-License-Identifier: GPL-2.0-only
/*
 * common_cpuidle.c - one CPU's per-state cpuidle usage counters, read from
 * another CPU (idle_sweep): which idle state a sample entered, from the
 * counters read before and after it, outside its timed window.  The files
 * stay open, so a read costs one pread per state, and go through sysfs.h
 * so IDLELAB_SYSFS_ROOT can point at a fake tree.
 */
#include "common.h"
#include "err.h"
#include "sysfs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* cpuidle names may hold spaces or slashes; a metric name may not. */
static void metric_name(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < len; i++)
		out[i] = isalnum((unsigned char)in[i]) || in[i] == '-' ?
			 in[i] : '_';
	out[i] = '\0';
}

int il_cpuidle_usage_open(struct il_cpuidle_usage *u, int cpu, char *why,
			  size_t len)
{
	char path[128], buf[IL_CPUIDLE_NAME], drv[64] = "";
	int k, fd;

	u->cpu = cpu;
	u->n = 0;
	for (k = 0; k < IL_CPUIDLE_MAX; k++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/usage",
			 cpu, k);
		if (!il_fs_exists(path))
			break;
		fd = il_fs_open(path, O_RDONLY);
		if (fd < 0)
			return fd;
		u->fd[u->n++] = fd;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name",
			 cpu, k);
		if (il_fs_read(path, buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "state%d", k);
		metric_name(buf, u->name[k], IL_CPUIDLE_NAME);
	}
	if (!u->n) {
		if (il_fs_read("/sys/devices/system/cpu/cpuidle/current_driver",
			       drv, sizeof(drv)))
			snprintf(drv, sizeof(drv), "unreadable");
		snprintf(why, len, "unavailable: CPU %d has no cpuidle states (cpuidle driver: %s)",
			 cpu, drv[0] ? drv : "none");
	}
	return u->n;
}

int il_cpuidle_usage_read(const struct il_cpuidle_usage *u, uint64_t *v)
{
	char buf[32];
	ssize_t n;
	int k;

	for (k = 0; k < u->n; k++) {
		n = pread(u->fd[k], buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf[n] = '\0';
		v[k] = strtoull(buf, NULL, 10);
	}
	return 0;
}

int il_cpuidle_entered(const struct il_cpuidle_usage *u, const uint64_t *before,
		       const uint64_t *after)
{
	uint64_t entries = 0;
	int k, which = -1;

	for (k = 0; k < u->n; k++) {
		if (after[k] != before[k])
			which = k;
		entries += after[k] - before[k];
	}
	return entries == 1 ? which : entries ? u->n : u->n + 1;
}

void il_cpuidle_usage_close(struct il_cpuidle_usage *u)
{
	int k;

	for (k = 0; k < u->n; k++)
		close(u->fd[k]);
	u->n = 0;
}
