// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_envctl.c - the environment controls and their restore journal
 * (harness/envctl_apply.c, envctl_plan.c and envctl_journal.c) against a
 * fake sysfs tree.
 *
 * Each case builds a fresh tree with tests/fixtures/envctl/mktree.sh under
 * a temporary IDLELAB_SYSFS_ROOT, with IDLELAB_STATE_DIR beside it, and
 * takes a byte-for-byte copy of every file first; "restored" always means
 * byte-identical to that copy.  A kill -9 is simulated by a child that
 * applies the controls and _exit()s without restoring (the kernel drops its
 * lock exactly as it would for SIGKILL).  Run from the repository root.
 */
#include "tap.h"

#include "bench.h"
#include "run_context.h"
#include "envctl.h"
#include "err.h"
#include "store.h"
#include "sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXF 256

struct fcopy {
	char path[512];
	unsigned char data[256];
	size_t len;
};

static struct fcopy snap[MAXF];
static int nsnap;
static char root[128], state[128], tmpdir[64];

static size_t slurp(const char *path, unsigned char *buf, size_t max)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return (size_t)-1;
	n = read(fd, buf, max);
	close(fd);
	return n < 0 ? (size_t)-1 : (size_t)n;
}

static int snap_one(const char *p, const struct stat *sb, int type,
		    struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_F || !S_ISREG(sb->st_mode) || nsnap >= MAXF)
		return 0;
	snprintf(snap[nsnap].path, sizeof(snap[nsnap].path), "%s", p);
	snap[nsnap].len = slurp(p, snap[nsnap].data, sizeof(snap[nsnap].data));
	nsnap++;
	return 0;
}

/* Every file of the tree still holds its original bytes; says which not
 * (tree_changed() is the quiet negation, for "was it applied"). */
static int tree_same(bool verbose)
{
	unsigned char b[256];
	int i, bad = 0;

	for (i = 0; i < nsnap; i++) {
		size_t n = slurp(snap[i].path, b, sizeof(b));

		if (n != snap[i].len || memcmp(b, snap[i].data, n)) {
			if (verbose)
				printf("# changed: %s\n", snap[i].path);
			bad++;
		}
	}
	return bad == 0;
}

#define tree_unchanged() tree_same(true)
#define tree_changed() (!tree_same(false))

static int rm_one(const char *p, const struct stat *sb, int type,
		  struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(p);
}

static void fresh_tree(void)
{
	char cmd[600];

	if (tmpdir[0])
		nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/il-envctl.XXXXXX");
	if (!mkdtemp(tmpdir))
		abort();
	snprintf(root, sizeof(root), "%s/root", tmpdir);
	snprintf(state, sizeof(state), "%s/state", tmpdir);
	snprintf(cmd, sizeof(cmd), "sh tests/fixtures/envctl/mktree.sh %s", root);
	if (system(cmd)) {
		printf("# cannot build the fake tree (run from the repository root)\n");
		exit(1);
	}
	setenv("IDLELAB_SYSFS_ROOT", root, 1);
	setenv("IDLELAB_STATE_DIR", state, 1);
	nsnap = 0;
	nftw(root, snap_one, 16, FTW_PHYS);
}

static void rd(const char *rel, char *buf, size_t len)
{
	char p[512];
	size_t n;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	n = slurp(p, (unsigned char *)buf, len - 1);
	buf[n == (size_t)-1 ? 0 : n] = '\0';
}

static bool journal_exists(void)
{
	char p[512];

	return access(il_envctl_journal_path(p, sizeof(p)), F_OK) == 0;
}

static struct il_envctl_spec full_spec(void)
{
	static char *only[] = { "C1" };
	struct il_envctl_spec s = {
		.pm_qos = true,
		.pm_qos_us = 0,
		.ncpuidle_only = 1,
		.cpuidle_only = only,
		.governor = "performance",
		.pin = IL_PIN_MAX,
	};

	return s;
}

#define CPU "/sys/devices/system/cpu"

TEST(apply_then_restore_is_byte_identical)
{
	struct il_envctl_spec s = full_spec();
	struct il_envctl *c = NULL;
	char b[64];
	int32_t q;

	fresh_tree();
	CHECKF(il_envctl_apply(&s, &c) == 0, "%s", il_errmsg());
	CHECK(journal_exists());
	rd(CPU "/cpu0/cpuidle/state0/disable", b, sizeof(b));
	CHECK(!strcmp(b, "1"));
	rd(CPU "/cpu0/cpuidle/state1/disable", b, sizeof(b));
	CHECK(!strcmp(b, "0\n"));		/* already enabled: untouched */
	rd(CPU "/cpu1/cpuidle/state2/disable", b, sizeof(b));
	CHECK(!strcmp(b, "1"));
	rd(CPU "/cpu1/cpuidle/state3/disable", b, sizeof(b));
	CHECK(!strcmp(b, "1\n"));		/* already disabled: untouched */
	rd(CPU "/cpu1/cpufreq/scaling_governor", b, sizeof(b));
	CHECK(!strcmp(b, "performance"));
	rd(CPU "/cpu0/cpufreq/scaling_min_freq", b, sizeof(b));
	CHECK(!strcmp(b, "3500000"));
	rd(CPU "/cpu0/cpufreq/scaling_max_freq", b, sizeof(b));
	CHECK(!strcmp(b, "3500000"));
	rd("/dev/cpu_dma_latency", b, sizeof(b));
	memcpy(&q, b, 4);
	CHECK(q == 0);
	CHECK(tree_changed());
	CHECKF(il_envctl_restore(c) == 0, "%s", il_errmsg());
	CHECK(tree_unchanged());
	CHECK(!journal_exists());
}

/* Write-ahead: every file that differs while applied is in the journal
 * with its original bytes. */
TEST(journal_lists_every_change_with_original)
{
	struct il_envctl_spec s = full_spec();
	struct il_envctl *c = NULL;
	char jp[512];
	json_t *j, *e;
	size_t k;
	int i, changed = 0, found = 0;

	fresh_tree();
	CHECKF(il_envctl_apply(&s, &c) == 0, "%s", il_errmsg());
	j = json_load_file(il_envctl_journal_path(jp, sizeof(jp)), 0, NULL);
	CHECK(j != NULL);
	CHECK(json_integer_value(json_object_get(j, "version")) == 1);
	CHECK(json_integer_value(json_object_get(j, "pid")) == getpid());
	for (i = 0; i < nsnap; i++) {
		unsigned char b[256];
		size_t n = slurp(snap[i].path, b, sizeof(b));
		char real[4096];

		if (n == snap[i].len && !memcmp(b, snap[i].data, n))
			continue;
		changed++;
		if (!realpath(snap[i].path, real))
			continue;
		json_array_foreach(json_object_get(j, "entries"), k, e) {
			const char *f = json_string_value(json_object_get(e, "file"));
			const char *h = json_string_value(json_object_get(e, "original_hex"));
			char hex[600];
			size_t x;

			if (!f || strcmp(f, real) || !h)
				continue;
			for (x = 0; x < snap[i].len; x++)
				sprintf(hex + 2 * x, "%02x", snap[i].data[x]);
			hex[2 * snap[i].len] = '\0';
			if (!strcmp(h, hex))
				found++;
		}
	}
	/* cpuidle: 2 + 3 (cpu1 C6 already off), governor 2, freq 4, qos 1 */
	CHECKF(changed == 12, "changed %d", changed);
	CHECKF(found == changed, "found %d of %d", found, changed);
	json_decref(j);
	CHECK(il_envctl_restore(c) == 0);
	CHECK(tree_unchanged());
}

/* The child "dies" with everything applied; the parent recovers. */
static pid_t apply_in_child(int hold_fd)
{
	pid_t pid = fork();

	if (!pid) {
		struct il_envctl_spec s = full_spec();
		struct il_envctl *c;

		if (il_envctl_apply(&s, &c))
			_exit(2);
		if (hold_fd >= 0) {
			/* Say "applied", then wait to be told to die. */
			if (write(hold_fd, "a", 1) != 1)
				_exit(3);
			pause();
		}
		_exit(0);	/* no restore: as after kill -9 */
	}
	return pid;
}

TEST(recover_after_kill)
{
	int status, n = -1;
	long pid = 0;
	pid_t child;

	fresh_tree();
	child = apply_in_child(-1);
	waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(tree_changed());
	CHECK(journal_exists());
	CHECKF(il_envctl_recover(&n, &pid) == 1, "%s", il_errmsg());
	CHECK(n == 12);
	CHECK(pid == child);
	CHECK(tree_unchanged());
	CHECK(!journal_exists());
	/* Idempotent: nothing left to do. */
	CHECK(il_envctl_recover(&n, &pid) == 0);
	CHECK(tree_unchanged());
}

/* A journal held by a live process is left alone. */
TEST(live_journal_is_not_touched)
{
	int p[2], status, n;
	long pid;
	pid_t child;
	char a;

	fresh_tree();
	if (pipe(p))
		abort();
	child = apply_in_child(p[1]);
	CHECK(read(p[0], &a, 1) == 1);
	CHECK(il_envctl_recover(&n, &pid) == -EBUSY);
	CHECK(strstr(il_errmsg(), "pid") != NULL);
	CHECK(tree_changed());
	CHECK(journal_exists());
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	CHECK(il_envctl_recover(&n, &pid) == 1);
	CHECK(tree_unchanged());
	close(p[0]);
	close(p[1]);
}

/* A restore interrupted half-way is simply done again. */
TEST(recover_after_partial_restore)
{
	int status, n;
	long pid;
	pid_t child;

	fresh_tree();
	child = apply_in_child(-1);
	waitpid(child, &status, 0);
	/* Half the restore happened before the "crash". */
	CHECK(il_fs_write(CPU "/cpu0/cpuidle/state0/disable", "0\n") == 0);
	CHECK(il_envctl_recover(&n, &pid) == 1);
	CHECK(tree_unchanged());
}

/* A write failing half-way through apply restores what was changed. */
TEST(failed_apply_restores)
{
	struct il_envctl_spec s = full_spec();
	struct il_envctl *c = NULL;
	char p[512];
	int ret;

	fresh_tree();
	/* A file that reads fine and refuses every write. */
	snprintf(p, sizeof(p), "%s" CPU "/cpu1/cpufreq/scaling_governor", root);
	unlink(p);
	CHECK(symlink("/proc/version", p) == 0);
	nsnap = 0;
	nftw(root, snap_one, 16, FTW_PHYS);
	ret = il_envctl_apply(&s, &c);
	CHECK(ret < 0);
	CHECK(c == NULL);
	CHECKF(strstr(il_errmsg(), "cpu1/cpufreq/scaling_governor") != NULL, "%s", il_errmsg());
	CHECK(tree_unchanged());
	CHECK(!journal_exists());
}

TEST(unknown_state_changes_nothing)
{
	static char *only[] = { "C1", "C7" };
	struct il_envctl_spec s = { .ncpuidle_only = 2, .cpuidle_only = only };
	struct il_envctl *c = NULL;

	fresh_tree();
	CHECK(il_envctl_apply(&s, &c) == -ENOENT);
	CHECKF(strstr(il_errmsg(), "'C7'") && strstr(il_errmsg(), "C1E"), "%s",
	       il_errmsg());
	CHECK(tree_unchanged());
	CHECK(!journal_exists());
}

TEST(unknown_governor_changes_nothing)
{
	struct il_envctl_spec s = { .governor = "turbo" };
	struct il_envctl *c = NULL;

	fresh_tree();
	CHECK(il_envctl_apply(&s, &c) == -ENOENT);
	CHECK(strstr(il_errmsg(), "turbo") != NULL);
	CHECK(tree_unchanged());
}

TEST(no_cpuidle_is_unsupported)
{
	static char *only[] = { "C1" };
	struct il_envctl_spec s = { .ncpuidle_only = 1, .cpuidle_only = only };
	struct il_envctl *c = NULL;
	char cmd[600];

	fresh_tree();
	snprintf(cmd, sizeof(cmd), "rm -rf %s" CPU "/cpu0/cpuidle %s" CPU "/cpu1/cpuidle",
		 root, root);
	CHECK(system(cmd) == 0);
	CHECK(il_envctl_apply(&s, &c) == -EOPNOTSUPP);
}

/* Left out where it does not exist: a pin that only one of two CPUs can
 * take changes neither (the entry planned for cpu0 is dropped), the
 * governor that both have is applied, and the reason names cpu1. */
TEST(apply_available_leaves_out_what_is_missing)
{
	struct il_envctl_spec s = { .pin = IL_PIN_MAX, .governor = "performance" };
	struct il_envctl *c = NULL;
	char cmd[600], b[64];

	fresh_tree();
	/* cpu1 keeps its governor files, loses the frequency limits. */
	snprintf(cmd, sizeof(cmd), "rm %s" CPU "/cpu1/cpufreq/cpuinfo_min_freq",
		 root);
	CHECK(system(cmd) == 0);
	nsnap = 0;
	nftw(root, snap_one, 16, FTW_PHYS);
	CHECK(il_envctl_apply(&s, &c) == -EOPNOTSUPP);
	CHECK(tree_unchanged());
	CHECKF(il_envctl_apply_available(&s, &c) == 0, "%s", il_errmsg());
	CHECK(il_envctl_unavailable(c) &&
	      strstr(il_envctl_unavailable(c), "pin_freq_khz: cpu1 has no cpufreq"));
	rd(CPU "/cpu0/cpufreq/scaling_max_freq", b, sizeof(b));
	CHECKF(!strcmp(b, "3000000\n"), "cpu0 max %s", b);
	rd(CPU "/cpu0/cpufreq/scaling_governor", b, sizeof(b));
	CHECKF(!strncmp(b, "performance", 11), "cpu0 governor %s", b);
	CHECKF(il_envctl_restore(c) == 0, "%s", il_errmsg());
	CHECK(tree_unchanged());
	s.pin = IL_PIN_NONE;
	CHECK(il_envctl_apply_available(&s, &c) == 0);
	CHECK(il_envctl_unavailable(c) == NULL);
	CHECK(il_envctl_restore(c) == 0);
}

TEST(pin_out_of_range)
{
	struct il_envctl_spec s = { .pin = IL_PIN_KHZ, .pin_khz = 9000000 };
	struct il_envctl *c = NULL;

	fresh_tree();
	CHECK(il_envctl_apply(&s, &c) == -EINVAL);
	CHECK(strstr(il_errmsg(), "9000000") != NULL);
	CHECK(tree_unchanged());
}

/* Going below the current minimum lowers min first (the kernel refuses
 * min > max); restore reverses it. */
TEST(pin_min_and_khz)
{
	struct il_envctl_spec s = { .pin = IL_PIN_MIN };
	struct il_envctl *c = NULL;
	char b[64];

	fresh_tree();
	CHECK(il_envctl_apply(&s, &c) == 0);
	rd(CPU "/cpu1/cpufreq/scaling_max_freq", b, sizeof(b));
	CHECK(!strcmp(b, "800000"));
	CHECK(il_envctl_restore(c) == 0);
	CHECK(tree_unchanged());
	s.pin = IL_PIN_KHZ;
	s.pin_khz = 2000000;
	CHECK(il_envctl_apply(&s, &c) == 0);
	rd(CPU "/cpu0/cpufreq/scaling_min_freq", b, sizeof(b));
	CHECK(!strcmp(b, "2000000"));
	CHECK(il_envctl_restore(c) == 0);
	CHECK(tree_unchanged());
}

/* CPUs sharing a cpufreq policy (cpuN/cpufreq -> policyM) are one entry. */
TEST(shared_policy_is_one_entry)
{
	struct il_envctl_spec s = { .governor = "powersave" };
	struct il_envctl *c = NULL;
	char p[512], t[600], jp[512];
	json_t *j;

	fresh_tree();
	snprintf(p, sizeof(p), "%s" CPU "/cpu1/cpufreq", root);
	snprintf(t, sizeof(t), "rm -rf %s", p);
	CHECK(system(t) == 0);
	CHECK(symlink("../cpu0/cpufreq", p) == 0);
	nsnap = 0;
	nftw(root, snap_one, 16, FTW_PHYS);
	CHECK(il_envctl_apply(&s, &c) == 0);
	j = json_load_file(il_envctl_journal_path(jp, sizeof(jp)), 0, NULL);
	CHECK(json_array_size(json_object_get(j, "entries")) == 1);
	json_decref(j);
	CHECK(il_envctl_restore(c) == 0);
	CHECK(tree_unchanged());
}

TEST(nothing_to_change_writes_no_journal)
{
	struct il_envctl_spec s = { .governor = "schedutil" };
	struct il_envctl *c = NULL;

	fresh_tree();
	CHECK(il_envctl_apply(&s, &c) == 0);
	CHECK(!journal_exists());
	CHECK(il_envctl_restore(c) == 0);
	CHECK(tree_unchanged());
}

TEST(sched_fifo_set_and_restored)
{
	struct il_envctl_spec s = { .sched_fifo = 10 };
	struct il_envctl *c = NULL;
	int before = sched_getscheduler(0);

	fresh_tree();
	if (il_envctl_apply(&s, &c) == -EPERM) {
		printf("# no privilege for SCHED_FIFO here; skipped\n");
		return;
	}
	CHECK(sched_getscheduler(0) == SCHED_FIFO);
	CHECK(il_envctl_restore(c) == 0);
	CHECK(sched_getscheduler(0) == before);
}

static int dummy_run(struct il_run *r)
{
	(void)r;
	return 0;
}

static const struct il_opt dummy_opts[] = { IL_OPT_END };
static const struct il_bench_ops dummy_ops = {
	.name = "dummy",
	.opts = dummy_opts,
	.run = dummy_run,
};

TEST(run_attrs_record_before_and_now)
{
	static char *only[] = { "C1" };
	struct il_envctl_spec s = { .ncpuidle_only = 1, .cpuidle_only = only,
				    .governor = "performance" };
	struct il_envctl *c = NULL;
	struct il_run run;
	struct il_run_attr a;
	int i, now = 0, before = 0;

	fresh_tree();
	CHECK(il_run_init(&run, &dummy_ops) == 0);
	CHECK(il_envctl_apply(&s, &c) == 0);
	il_envctl_run_attrs(c, &run);
	for (i = 0; i < il_run_nattrs(&run); i++) {
		il_run_attr_get(&run, i, &a);
		if (!strcmp(a.key, "envctl") && a.cpu == 1) {
			now++;
			CHECKF(strstr(a.value, "governor=performance") &&
			       strstr(a.value, "disabled=POLL,C1E,C6"), "%s", a.value);
		}
		if (!strcmp(a.key, "envctl.before") && a.cpu == 1) {
			before++;
			CHECKF(strstr(a.value, "governor=schedutil") &&
			       strstr(a.value, "disabled=C6") &&
			       strstr(a.value, "max_khz=3000000"), "%s", a.value);
		}
	}
	CHECK(now == 1 && before == 1);
	CHECK(il_envctl_restore(c) == 0);
	il_run_release(&run);
}

int main(void)
{
	RUN(apply_then_restore_is_byte_identical);
	RUN(journal_lists_every_change_with_original);
	RUN(recover_after_kill);
	RUN(live_journal_is_not_touched);
	RUN(recover_after_partial_restore);
	RUN(failed_apply_restores);
	RUN(unknown_state_changes_nothing);
	RUN(unknown_governor_changes_nothing);
	RUN(no_cpuidle_is_unsupported);
	RUN(pin_out_of_range);
	RUN(apply_available_leaves_out_what_is_missing);
	RUN(pin_min_and_khz);
	RUN(shared_policy_is_one_entry);
	RUN(nothing_to_change_writes_no_journal);
	RUN(sched_fifo_set_and_restored);
	RUN(run_attrs_record_before_and_now);
	if (tmpdir[0])
		nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
