/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysfs.h - reading and writing /sys, /proc and /dev files under a root.
 *
 * IDLELAB_SYSFS_ROOT, when set, is prefixed to every absolute path, so the
 * fingerprint, snapshots and environment controls run against a fixture
 * tree in tests (as hwloc does with HWLOC_FSROOT).
 *
 * Errors follow err.h.
 */
#ifndef IDLELAB_SYSFS_H
#define IDLELAB_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/** il_fs_path() - @path under the configured root into @buf. */
const char *il_fs_path(const char *path, char *buf, size_t len);

/**
 * il_fs_read() - the file's first line, newline stripped, into @buf.
 * Return: 0; -errno from open/read; -EOVERFLOW if the first line does not
 * fit in @len - 1 bytes (a cut value is never returned as if whole).
 */
int il_fs_read(const char *path, char *buf, size_t len);
/** il_fs_read_all() - the whole file, malloc()ed, NUL-terminated; 0 or -errno. */
int il_fs_read_all(const char *path, char **out);
/** il_fs_read_u64() - the first line as a decimal number; -EINVAL if not one. */
int il_fs_read_u64(const char *path, uint64_t *v);
/**
 * il_fs_read_long() - the first line as a signed number, in any base
 * strtol() takes (perf_event_paranoid may be -1, and so may an unset
 * physical_package_id).  Return: 0; -errno from il_fs_read(); -EINVAL.
 */
int il_fs_read_long(const char *path, long *v);
/** il_fs_exists() - whether @path exists under the root. */
bool il_fs_exists(const char *path);
/**
 * il_fs_online_cpus() - the CPUs in /sys/devices/system/cpu/online,
 * ascending, into a malloc()ed array the caller frees.
 * Return: their number, or -errno with a message.
 */
int il_fs_online_cpus(int **out);
/**
 * il_mkdir_p() - create @dir and its missing parents (mode 0755), like
 * `mkdir -p`.  @dir is taken as given, not under IDLELAB_SYSFS_ROOT: it is
 * for idlelab's own state directories.  Return: 0 (also when it exists),
 * -ENAMETOOLONG, or -errno from mkdir(2), with a message naming the path.
 */
int il_mkdir_p(const char *dir);
/**
 * il_fd_read_full() - read(2) @fd into @buf until @max bytes or end of
 * file, restarting after signals.  Return: the bytes read, or -errno; no
 * message (the caller knows what the descriptor is).
 */
ssize_t il_fd_read_full(int fd, void *buf, size_t max);
/**
 * il_fd_write_full() - write(2) the @len bytes of @buf to @fd, restarting
 * after signals.  Return: the bytes written, fewer than @len only where a
 * write(2) wrote nothing, or -errno; no message.
 */
ssize_t il_fd_write_full(int fd, const void *buf, size_t len);
/** il_fs_write() - write @val (no newline added) to an existing file. */
int il_fs_write(const char *path, const char *val);

/**
 * il_fs_read_bin() - up to @len raw bytes from the start of @path (for
 * binary files such as /dev/cpu_dma_latency, which holds an s32).
 * Return: the number of bytes read, or -errno.
 */
int il_fs_read_bin(const char *path, void *buf, size_t len);
/**
 * il_fs_open() - open(2) @path under the root, O_CLOEXEC added; for files
 * that must stay open (a PM QoS request lives as long as its descriptor).
 * Return: the descriptor, or -errno with a message naming the path.
 */
int il_fs_open(const char *path, int flags);

#endif
