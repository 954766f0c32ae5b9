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

#include <stddef.h>
#include <stdint.h>

/** il_fs_path() - @path under the configured root into @buf. */
const char *il_fs_path(const char *path, char *buf, size_t len);

/** il_fs_read() - the file's first line, newline stripped, into @buf. */
int il_fs_read(const char *path, char *buf, size_t len);
/** il_fs_read_all() - the whole file, malloc()ed, NUL-terminated. */
int il_fs_read_all(const char *path, char **out);
int il_fs_read_u64(const char *path, uint64_t *v);
int il_fs_write(const char *path, const char *val);

#endif
