// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_sysfs.c - the shared filesystem helpers of sysfs.h against a
 * scratch tree used as IDLELAB_SYSFS_ROOT: signed reads, existence,
 * the online-CPU list (counted, not capped) and mkdir -p with its
 * errors.
 */
#include "err.h"
#include "sysfs.h"
#include "tap.h"
#include "topo.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[] = "/tmp/idlelab-test-sysfs.XXXXXX";

/* Put @text at @rel under the root, creating its directories. */
static int put(const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	if (il_mkdir_p(path))
		return -1;
	*slash = '/';
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f) ? -1 : 0;
}

TEST(read_long)
{
	long v = 0;

	CHECK(put("/proc/sys/kernel/perf_event_paranoid", "-1\n") == 0);
	CHECK(il_fs_read_long("/proc/sys/kernel/perf_event_paranoid", &v) == 0 && v == -1);
	CHECK(put("/sys/x/hex", "0x1f\n") == 0);
	CHECK(il_fs_read_long("/sys/x/hex", &v) == 0 && v == 31);
	CHECK(put("/sys/x/junk", "abc\n") == 0);
	CHECK(il_fs_read_long("/sys/x/junk", &v) == -EINVAL);
	CHECK(strstr(il_errmsg(), "abc"));
	CHECK(put("/sys/x/empty", "") == 0);
	CHECK(il_fs_read_long("/sys/x/empty", &v) == -EINVAL);
	CHECK(il_fs_read_long("/sys/x/absent", &v) == -ENOENT);
}

TEST(exists)
{
	CHECK(put("/sys/bus/event_source/devices/cpu/type", "4\n") == 0);
	CHECK(il_fs_exists("/sys/bus/event_source/devices/cpu/type"));
	CHECK(il_fs_exists("/sys/bus/event_source/devices/cpu"));
	CHECK(!il_fs_exists("/sys/bus/event_source/devices/nosuch"));
}

static void unlink_online(void)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root);
	CHECK(unlink(path) == 0);
}

TEST(online_cpus)
{
	char big[64];
	int *cpus = NULL, n, ret;

	CHECK(put("/sys/devices/system/cpu/online", "0,2-3\n") == 0);
	n = il_fs_online_cpus(&cpus);
	CHECK(n == 3 && cpus && cpus[0] == 0 && cpus[1] == 2 && cpus[2] == 3);
	free(cpus);
	/* As many CPUs as idlelab handles: every one is returned. */
	snprintf(big, sizeof(big), "0-%d\n", IL_MAX_CPUS - 1);
	CHECK(put("/sys/devices/system/cpu/online", big) == 0);
	n = il_fs_online_cpus(&cpus);
	CHECK(n == IL_MAX_CPUS && cpus && cpus[IL_MAX_CPUS - 1] == IL_MAX_CPUS - 1);
	free(cpus);
	cpus = NULL;
	CHECK(put("/sys/devices/system/cpu/online", "1-x\n") == 0);
	ret = il_fs_online_cpus(&cpus);
	CHECK(ret == -EINVAL && cpus == NULL);
	CHECK(strstr(il_errmsg(), "1-x"));
	unlink_online();
	CHECK(il_fs_online_cpus(&cpus) == -ENOENT && cpus == NULL);
}

TEST(mkdir_p)
{
	char dir[600], longname[5000];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/state/a/b/c", root);
	CHECK(il_mkdir_p(dir) == 0);
	CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
	/* Existing already is not an error, with or without a final slash. */
	CHECK(il_mkdir_p(dir) == 0);
	strcat(dir, "/");
	CHECK(il_mkdir_p(dir) == 0);
	/* A file in the way is, and the message names the path. */
	CHECK(put("/state/file", "x") == 0);
	snprintf(dir, sizeof(dir), "%s/state/file/sub", root);
	CHECK(il_mkdir_p(dir) == -ENOTDIR);
	CHECK(strstr(il_errmsg(), "state/file"));
	/* A name too long is refused whole, never cut to a shorter path. */
	memset(longname, 'a', sizeof(longname) - 1);
	longname[0] = '/';
	longname[sizeof(longname) - 1] = '\0';
	CHECK(il_mkdir_p(longname) == -ENAMETOOLONG);
}

int main(void)
{
	char cmd[64 + sizeof(root)];
	int ret;

	if (!mkdtemp(root)) {
		printf("not ok 1 - mkdtemp\n");
		return 1;
	}
	setenv("IDLELAB_SYSFS_ROOT", root, 1);
	RUN(read_long);
	RUN(exists);
	RUN(online_cpus);
	RUN(mkdir_p);
	ret = tap_done();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		printf("# could not remove %s\n", root);
	return ret;
}
