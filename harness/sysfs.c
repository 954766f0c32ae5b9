// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysfs.c - every read and write of /sys, /proc and /dev goes through here.
 *
 * IDLELAB_SYSFS_ROOT, when set and non-empty, is prefixed to absolute paths
 * so that the fingerprint, the snapshots and the environment controls run
 * against a captured fixture tree (tests/fixtures/) the way hwloc's Linux
 * backend honours HWLOC_FSROOT.  The variable is read on every call rather
 * than cached: tests switch trees with setenv() between calls, and getenv()
 * costs nothing next to the open() that follows.
 *
 * sysfs and procfs files do not report a useful st_size (sysfs says 4096,
 * procfs says 0), so whole-file reads loop until EOF with a growing buffer.
 */
#include "sysfs.h"
#include "err.h"
#include "topo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Larger than any sysfs attribute or /proc file we read (interrupts on a
 * few hundred CPUs is well under this); a bound keeps a bad path (a FIFO,
 * /dev/zero) from eating memory. */
#define IL_FS_MAX_FILE	(64u << 20)

const char *il_fs_path(const char *path, char *buf, size_t len)
{
	const char *root = getenv("IDLELAB_SYSFS_ROOT");
	int n;

	if (!len)
		return path;
	if (root && *root && path[0] == '/')
		n = snprintf(buf, len, "%s%s", root, path);
	else
		n = snprintf(buf, len, "%s", path);
	if (n < 0 || (size_t)n >= len)
		buf[len - 1] = '\0';
	return buf;
}

int il_fs_open(const char *path, int flags)
{
	char p[4096];
	int fd;

	il_fs_path(path, p, sizeof(p));
	fd = open(p, flags | O_CLOEXEC);
	if (fd < 0)
		return il_errorf(-errno, "cannot open %s: %s", p, strerror(errno));
	return fd;
}

/*
 * The loop of both: read(2) or write(2) until @len bytes, a call that
 * moved none (end of file) or an error other than EINTR.
 */
static ssize_t fd_full(int fd, char *buf, size_t len, bool wr)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = wr ? write(fd, buf + done, len - done) :
			 read(fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t il_fd_read_full(int fd, void *buf, size_t max)
{
	return fd_full(fd, buf, max, false);
}

ssize_t il_fd_write_full(int fd, const void *buf, size_t len)
{
	/* fd_full() only reads @buf when @wr is true. */
	return fd_full(fd, (char *)buf, len, true);
}

/* il_fd_read_full(), with a message naming @p. */
static ssize_t read_fd(int fd, const char *p, char *buf, size_t max)
{
	ssize_t n = il_fd_read_full(fd, buf, max);

	if (n < 0)
		return il_errorf((int)n, "cannot read %s: %s", p,
				 strerror((int)-n));
	return n;
}

int il_fs_read_all(const char *path, char **out)
{
	char p[4096], *buf = NULL, *nbuf;
	size_t cap = 4096, got = 0;
	ssize_t n;
	int fd, ret = 0;

	*out = NULL;
	il_fs_path(path, p, sizeof(p));
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return il_errorf(-errno, "cannot open %s: %s", p, strerror(errno));
	for (;;) {
		nbuf = realloc(buf, cap + 1);
		if (!nbuf) {
			ret = il_errorf(-ENOMEM, "out of memory reading %s", p);
			goto out_close;
		}
		buf = nbuf;
		n = read_fd(fd, p, buf + got, cap - got);
		if (n < 0) {
			ret = (int)n;
			goto out_close;
		}
		got += (size_t)n;
		if (got < cap)
			break;
		if (cap >= IL_FS_MAX_FILE) {
			ret = il_errorf(-EFBIG, "%s is larger than %u bytes", p,
					IL_FS_MAX_FILE);
			goto out_close;
		}
		cap *= 2;
	}
	buf[got] = '\0';
	*out = buf;
	buf = NULL;
out_close:
	free(buf);
	close(fd);
	return ret;
}

int il_fs_read(const char *path, char *buf, size_t len)
{
	char p[4096], extra;
	ssize_t n;
	char *nl;
	int fd;

	if (!len)
		return il_errorf(-EINVAL, "il_fs_read: zero-length buffer");
	il_fs_path(path, p, sizeof(p));
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return il_errorf(-errno, "cannot open %s: %s", p, strerror(errno));
	n = read_fd(fd, p, buf, len - 1);
	if (n < 0) {
		close(fd);
		buf[0] = '\0';
		return (int)n;
	}
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (nl) {
		*nl = '\0';
	} else if ((size_t)n == len - 1 && read_fd(fd, p, &extra, 1) == 1 &&
		   extra != '\n') {
		/* A silently cut value would be stored as if it were whole. */
		close(fd);
		return il_errorf(-EOVERFLOW, "%s: first line longer than %zu bytes",
				 p, len - 1);
	}
	close(fd);
	return 0;
}

int il_fs_read_bin(const char *path, void *buf, size_t len)
{
	char p[4096];
	ssize_t n;
	int fd;

	il_fs_path(path, p, sizeof(p));
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return il_errorf(-errno, "cannot open %s: %s", p, strerror(errno));
	n = read_fd(fd, p, buf, len);
	close(fd);
	return (int)n;
}

int il_fs_read_u64(const char *path, uint64_t *v)
{
	char buf[64], p[4096], *end;
	unsigned long long x;
	int ret;

	ret = il_fs_read(path, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	/* strtoull() accepts "-1" and leading blanks; sysfs never has them. */
	if (buf[0] < '0' || buf[0] > '9')
		goto bad;
	x = strtoull(buf, &end, 10);
	if (errno == ERANGE)
		return il_errorf(-ERANGE, "%s: value '%s' is out of range",
				 il_fs_path(path, p, sizeof(p)), buf);
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end)
		goto bad;
	*v = x;
	return 0;
bad:
	return il_errorf(-EINVAL, "%s: '%s' is not an unsigned number",
			 il_fs_path(path, p, sizeof(p)), buf);
}

int il_fs_write(const char *path, const char *val)
{
	size_t len = strlen(val);
	char p[4096];
	ssize_t n;
	int fd;

	il_fs_path(path, p, sizeof(p));
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return il_errorf(-errno, "cannot open %s for writing: %s", p,
				 strerror(errno));
	/* A sysfs store takes the value in one write(); the loop in
	 * il_fd_write_full() is for the regular files of fixture trees. */
	n = il_fd_write_full(fd, val, len);
	if (n < 0) {
		close(fd);
		return il_errorf((int)n, "cannot write '%s' to %s: %s", val,
				 p, strerror((int)-n));
	}
	if (close(fd) < 0)
		return il_errorf(-errno, "cannot write '%s' to %s: %s", val, p,
				 strerror(errno));
	if ((size_t)n < len)
		return il_errorf(-EIO, "short write of '%s' to %s", val, p);
	return 0;
}

int il_fs_read_long(const char *path, long *v)
{
	char buf[64], p[4096], *end;
	int ret;

	ret = il_fs_read(path, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*v = strtol(buf, &end, 0);
	if (errno || end == buf)
		return il_errorf(-EINVAL, "%s: '%s' is not a number",
				 il_fs_path(path, p, sizeof(p)), buf);
	return 0;
}

bool il_fs_exists(const char *path)
{
	char p[4096];

	return access(il_fs_path(path, p, sizeof(p)), F_OK) == 0;
}

int il_fs_online_cpus(int **out)
{
	char buf[4096];
	int *cpus, n, ret;

	*out = NULL;
	ret = il_fs_read("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (ret)
		return ret;
	/* Count first, so a machine with more CPUs than a guess still fits. */
	n = il_cpulist_parse(buf, NULL, 0);
	if (n < 0)
		return n;
	cpus = calloc(n ? n : 1, sizeof(*cpus));
	if (!cpus)
		return il_errorf(-ENOMEM, "out of memory");
	il_cpulist_parse(buf, cpus, n);
	*out = cpus;
	return n;
}

static int mkdir_one(const char *p)
{
	if (mkdir(p, 0755) && errno != EEXIST)
		return il_errorf(-errno, "cannot create directory %s: %s", p,
				 strerror(errno));
	return 0;
}

int il_mkdir_p(const char *dir)
{
	char p[4096], *s;
	int ret;

	if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p))
		return il_errorf(-ENAMETOOLONG, "directory name too long: %.64s...", dir);
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		ret = mkdir_one(p);
		if (ret)
			return ret;
		*s = '/';
	}
	return mkdir_one(p);
}
