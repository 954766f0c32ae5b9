// SPDX-License-Identifier: GPL-2.0-only
/*
 * envctl_journal.c - the write-ahead restore journal behind envctl.h: the
 * lock, writing and reading the journal file, and putting originals back,
 * both for a live campaign (envctl_apply.c) and for recovery after a crash
 * (il_envctl_recover()).
 *
 * Design notes - the journal protocol:
 *
 *   1. Take the lock (flock on restore-journal.lock).  Nobody else may
 *      journal while we hold it; the kernel drops it if we die.
 *   2. Plan every change first: read each file's original bytes and keep
 *      only the files whose value differs from the wanted one.
 *   3. Write the whole journal (every entry, original bytes in hex) to a
 *      temporary file, fsync it, rename it over restore-journal.json and
 *      fsync the directory.  Only now does anything change: the journal is
 *      write-ahead, for every entry at once, so one fsync covers hundreds
 *      of cpuidle files instead of one fsync per file.
 *   4. Apply the changes in plan order.  A failure restores at once.
 *   5. Restore writes every original back in reverse order (the reverse of
 *      the min/max frequency ordering keeps min <= max throughout), reads
 *      each back, and only when all match unlinks the journal and fsyncs
 *      the directory.  Writing an original is idempotent, so restoring an
 *      entry that was never changed, or restoring twice after a crash in
 *      the middle of a restore, is harmless.
 *
 * Files are identified by their resolved real path (the root prefix and
 * symlinks applied), which is what the journal records: the cpufreq files
 * of CPUs sharing a policy are one entry, and a later `idlelab restore`
 * writes exactly the files that were changed whatever its environment.
 */
#include "envctl.h"
#include "envctl_internal.h"
#include "err.h"
#include "sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * Two journals share this protocol, each with its own file and lock: the
 * campaign's environment controls (restore-journal) and the trace capture
 * of a --causes run (trace-journal, trace_journal.c), which lives inside a
 * single run and may start while a campaign holds the first one.
 */
#define ENV_JOURNAL	"restore-journal"

/* ---- small helpers ----------------------------------------------------- */

static const char *state_dir(void)
{
	const char *d = getenv("IDLELAB_STATE_DIR");

	return d && *d ? d : "/var/lib/idlelab";
}

const char *il_journal_path(const char *base, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.json", state_dir(), base);
	return buf;
}

const char *il_envctl_journal_path(char *buf, size_t len)
{
	return il_journal_path(ENV_JOURNAL, buf, len);
}

bool il_journal_pending(const char *base)
{
	char p[PATH_MAX];

	return access(il_journal_path(base, p, sizeof(p)), F_OK) == 0;
}

bool il_envctl_journal_pending(void)
{
	return il_journal_pending(ENV_JOURNAL);
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

/* Trailing whitespace aside, sysfs reads back what was written. */
bool il_envctl_same_value(const void *a, size_t alen, const void *b,
			  size_t blen)
{
	const char *x = a, *y = b;

	while (alen && (x[alen - 1] == '\n' || x[alen - 1] == ' '))
		alen--;
	while (blen && (y[blen - 1] == '\n' || y[blen - 1] == ' '))
		blen--;
	return alen == blen && !memcmp(x, y, alen);
}

static void hex_encode(const unsigned char *b, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

static int hex_decode(const char *s, unsigned char **out, size_t *len)
{
	size_t n = strlen(s), i;
	unsigned char *b;

	if (n % 2)
		return -EINVAL;
	b = malloc(n / 2 + 1);
	if (!b)
		return -ENOMEM;
	for (i = 0; i < n / 2; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1) {
			free(b);
			return -EINVAL;
		}
		b[i] = (unsigned char)v;
	}
	b[n / 2] = '\0';
	*out = b;
	*len = n / 2;
	return 0;
}

/* Write @len bytes to the already-resolved @file (never created). */
static int write_resolved(const char *file, const void *buf, size_t len)
{
	int fd = open(file, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = il_fd_write_full(fd, buf, len);
	if (n < 0 || (size_t)n < len) {
		close(fd);
		return n < 0 ? (int)n : -EIO;
	}
	if (close(fd))
		return -errno;
	return 0;
}

static int read_resolved(const char *file, unsigned char *buf, size_t max,
			 size_t *len)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = il_fd_read_full(fd, buf, max);
	close(fd);
	if (n < 0)
		return (int)n;
	*len = (size_t)n;
	return 0;
}

void il_envctl_entries_free(struct jentry *e, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(e[i].path);
		free(e[i].file);
		free(e[i].orig);
		free(e[i].val);
	}
	free(e);
}

/* ---- lock -------------------------------------------------------------- */

int il_journal_lock_take(const char *base, int *fdp)
{
	char p[PATH_MAX];
	int fd, ret;

	ret = il_mkdir_p(state_dir());
	if (ret)
		return il_errorf(ret, "cannot create the state directory %s: %s",
				 state_dir(), strerror(-ret));
	snprintf(p, sizeof(p), "%s/%s.lock", state_dir(), base);
	fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return il_errorf(-errno, "cannot open %s: %s", p, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
		close(fd);
		return ret;
	}
	*fdp = fd;
	return 0;
}

int il_envctl_lock_take(int *fdp)
{
	return il_journal_lock_take(ENV_JOURNAL, fdp);
}

static long journal_pid(const char *base)
{
	char p[PATH_MAX];
	json_t *j = json_load_file(il_journal_path(base, p, sizeof(p)), 0, NULL);
	long pid = 0;

	if (j)
		pid = (long)json_integer_value(json_object_get(j, "pid"));
	json_decref(j);
	return pid;
}

int il_envctl_busy_error(void)
{
	long pid = journal_pid(ENV_JOURNAL);

	if (pid)
		return il_errorf(-EBUSY, "another idlelab process (pid %ld) is controlling the environment; its journal is left alone",
				 pid);
	return il_errorf(-EBUSY, "another idlelab process holds %s/%s.lock",
			 state_dir(), ENV_JOURNAL);
}

/* ---- journal ----------------------------------------------------------- */

static const char *entry_kind(const struct jentry *e)
{
	switch (e->op) {
	case IL_JE_RMDIR:
		return "rmdir";
	case IL_JE_UMOUNT:
		return "umount";
	default:
		return e->pm_qos ? "pm_qos" : "sysfs";
	}
}

int il_envctl_journal_write(const struct jentry *ent, int n)
{
	return il_journal_write(ENV_JOURNAL, ent, n);
}

int il_journal_write(const char *base, const struct jentry *ent, int n)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], *hex, *s;
	json_t *j, *a, *o;
	struct timespec ts;
	size_t len;
	ssize_t w;
	int i, fd, ret = 0;

	il_journal_path(base, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	clock_gettime(CLOCK_REALTIME, &ts);
	a = json_array();
	j = json_pack("{s:i,s:s,s:I,s:I,s:s,s:o}", "version", 1, "tool", "idlelab",
		      "pid", (json_int_t)getpid(),
		      "created_ns", (json_int_t)ts.tv_sec * 1000000000 + ts.tv_nsec,
		      "sysfs_root", getenv("IDLELAB_SYSFS_ROOT") ? getenv("IDLELAB_SYSFS_ROOT") : "",
		      "entries", a);
	if (!j)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		hex = malloc(ent[i].orig_len * 2 + 1);
		if (!hex) {
			json_decref(j);
			return il_errorf(-ENOMEM, "out of memory");
		}
		hex_encode(ent[i].orig, ent[i].orig_len, hex);
		o = json_pack("{s:s,s:s,s:s,s:s}", "path", ent[i].path,
			      "file", ent[i].file, "kind", entry_kind(&ent[i]),
			      "original_hex", hex);
		free(hex);
		/* The readable copy is for people; restore uses the hex. */
		if (o && !ent[i].pm_qos && ent[i].op == IL_JE_WRITE)
			json_object_set_new(o, "original",
					    json_stringn((const char *)ent[i].orig,
							 ent[i].orig_len));
		if (o && ent[i].val)
			json_object_set_new(o, "new", json_string(ent[i].val));
		if (!o || json_array_append_new(a, o)) {
			json_decref(j);
			return il_errorf(-ENOMEM, "out of memory");
		}
	}
	s = json_dumps(j, JSON_INDENT(1));
	json_decref(j);
	if (!s)
		return il_errorf(-ENOMEM, "out of memory");
	len = strlen(s);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = il_errorf(-errno, "cannot write the restore journal %s: %s",
				tmp, strerror(errno));
		free(s);
		return ret;
	}
	w = il_fd_write_full(fd, s, len);
	if (w < 0 || (size_t)w < len)
		ret = w < 0 ? (int)w : -EIO;
	free(s);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (!ret)
		ret = fsync_dir(state_dir());
	if (ret) {
		unlink(tmp);
		return il_errorf(ret, "cannot write the restore journal %s: %s",
				 path, strerror(-ret));
	}
	return 0;
}

int il_envctl_journal_remove(void)
{
	return il_journal_remove(ENV_JOURNAL);
}

int il_journal_remove(const char *base)
{
	char path[PATH_MAX];
	int ret;

	if (unlink(il_journal_path(base, path, sizeof(path))) && errno != ENOENT)
		return il_errorf(-errno, "cannot remove %s: %s", path, strerror(errno));
	ret = fsync_dir(state_dir());
	return ret ? il_errorf(ret, "cannot sync %s: %s", state_dir(), strerror(-ret)) : 0;
}

static int journal_read(const char *base, struct jentry **out, int *nout)
{
	char path[PATH_MAX];
	json_error_t jerr;
	json_t *j, *a, *o;
	struct jentry *e;
	size_t i;
	int ret = 0;

	*out = NULL;
	*nout = 0;
	il_journal_path(base, path, sizeof(path));
	j = json_load_file(path, 0, &jerr);
	if (!j)
		return il_errorf(-EINVAL, "restore journal %s is unreadable (%s, line %d); check the settings it names and remove it by hand",
				 path, jerr.text, jerr.line);
	a = json_object_get(j, "entries");
	if (json_integer_value(json_object_get(j, "version")) != 1 || !json_is_array(a)) {
		json_decref(j);
		return il_errorf(-EINVAL, "restore journal %s has an unknown format; remove it by hand",
				 path);
	}
	e = calloc(json_array_size(a) + 1, sizeof(*e));
	if (!e) {
		json_decref(j);
		return il_errorf(-ENOMEM, "out of memory");
	}
	json_array_foreach(a, i, o) {
		const char *p = json_string_value(json_object_get(o, "path"));
		const char *f = json_string_value(json_object_get(o, "file"));
		const char *h = json_string_value(json_object_get(o, "original_hex"));
		const char *k = json_string_value(json_object_get(o, "kind"));

		if (!p || !f || !h || f[0] != '/') {
			ret = il_errorf(-EINVAL, "restore journal %s: entry %zu is malformed; remove it by hand",
					path, i);
			break;
		}
		e[i].path = strdup(p);
		e[i].file = strdup(f);
		e[i].pm_qos = k && !strcmp(k, "pm_qos");
		e[i].op = !k ? IL_JE_WRITE : !strcmp(k, "rmdir") ? IL_JE_RMDIR :
			  !strcmp(k, "umount") ? IL_JE_UMOUNT : IL_JE_WRITE;
		*nout = (int)i + 1;
		if (!e[i].path || !e[i].file) {
			ret = il_errorf(-ENOMEM, "out of memory");
			break;
		}
		ret = hex_decode(h, &e[i].orig, &e[i].orig_len);
		if (ret) {
			ret = il_errorf(ret, "restore journal %s: entry %zu has a bad original value",
					path, i);
			break;
		}
	}
	json_decref(j);
	if (ret) {
		il_envctl_entries_free(e, *nout);
		*nout = 0;
		return ret;
	}
	*out = e;
	return 0;
}

/*
 * Undo a directory made or a file system mounted: what is already gone
 * (ENOENT), or no longer mounted there (EINVAL), has nothing left to undo.
 * A tracefs instance another process has a file of open (a reader of its
 * trace, a write to its set_event) refuses rmdir with EBUSY for as long as
 * that lasts: try again for up to a second before calling it a failure.
 */
static int undo_create(const struct jentry *e)
{
	const struct timespec step = { 0, 10 * 1000 * 1000 };
	int r, tries = 0;

	for (;;) {
		r = e->op == IL_JE_RMDIR ? rmdir(e->file) : umount2(e->file, 0);
		if (!r || errno != EBUSY || ++tries > 100)
			break;
		nanosleep(&step, NULL);
	}
	if (r && errno != ENOENT && !(e->op == IL_JE_UMOUNT && errno == EINVAL))
		return -errno;
	return 0;
}

/*
 * Write every original back, last change first, and read each back.
 * A file that no longer exists (a CPU unplugged since, a fixture tree
 * removed) has nothing left to restore.
 */
int il_envctl_restore_entries(const struct jentry *e, int n, int *nrestored)
{
	unsigned char buf[4096];
	struct stat st;
	size_t len = 0;
	int i, ret, first = 0;

	*nrestored = 0;
	for (i = n - 1; i >= 0; i--) {
		if (e[i].op != IL_JE_WRITE) {
			ret = undo_create(&e[i]);
			if (ret && !first)
				first = il_errorf(ret, "cannot restore %s: %s %s failed: %s",
						  e[i].file, entry_kind(&e[i]),
						  e[i].file, strerror(-ret));
			if (!ret)
				(*nrestored)++;
			continue;
		}
		if (e[i].pm_qos) {
			/* A real device dropped our request when its
			 * descriptor closed; only a stand-in file keeps bytes. */
			if (stat(e[i].file, &st) || !S_ISREG(st.st_mode)) {
				(*nrestored)++;
				continue;
			}
		}
		ret = write_resolved(e[i].file, e[i].orig, e[i].orig_len);
		if (ret == -ENOENT) {
			(*nrestored)++;
			continue;
		}
		if (!ret)
			ret = read_resolved(e[i].file, buf, sizeof(buf), &len);
		if (!ret && !(e[i].pm_qos ? len == e[i].orig_len &&
			      !memcmp(buf, e[i].orig, len) :
			      il_envctl_same_value(buf, len, e[i].orig, e[i].orig_len)))
			ret = -EIO;
		if (ret) {
			if (!first)
				first = il_errorf(ret, "cannot restore %s: %s",
						  e[i].file, ret == -EIO ?
						  "it reads back a different value" :
						  strerror(-ret));
			continue;
		}
		(*nrestored)++;
	}
	return first;
}

int il_journal_recover(const char *base, int *nrestored, long *pid)
{
	struct jentry *e = NULL;
	char tmp[PATH_MAX + 8];
	int n = 0, fd = -1, ret;

	*nrestored = 0;
	*pid = 0;
	if (!il_journal_pending(base))
		return 0;
	ret = il_journal_lock_take(base, &fd);
	if (ret == -EBUSY) {
		*pid = journal_pid(base);
		if (*pid)
			return il_errorf(-EBUSY, "another idlelab process (pid %ld) holds %s; its journal is left alone",
					 *pid, base);
		return il_errorf(-EBUSY, "another idlelab process holds %s/%s.lock",
				 state_dir(), base);
	}
	if (ret)
		return ret;
	*pid = journal_pid(base);
	/* Re-check under the lock: a process that just finished removed it. */
	if (!il_journal_pending(base)) {
		ret = 0;
		goto out;
	}
	ret = journal_read(base, &e, &n);
	if (ret)
		goto out;
	ret = il_envctl_restore_entries(e, n, nrestored);
	if (!ret)
		ret = il_journal_remove(base);
	if (!ret)
		ret = 1;
out:
	il_journal_path(base, tmp, sizeof(tmp) - 8);
	strcat(tmp, ".tmp");
	unlink(tmp);
	il_envctl_entries_free(e, n);
	close(fd);
	return ret;
}

/*
 * Both journals: the environment controls' first (their behaviour and
 * messages as before), then a --causes run's trace capture.  The counts
 * add up; a journal that could not be restored stops here with its error.
 */
int il_envctl_recover(int *nrestored, long *pid)
{
	int n2 = 0, ret, ret2;
	long pid2 = 0;

	ret = il_journal_recover(ENV_JOURNAL, nrestored, pid);
	if (ret == -EBUSY)
		return il_envctl_busy_error();
	if (ret < 0)
		return ret;
	ret2 = il_journal_recover(IL_TRACE_JOURNAL, &n2, &pid2);
	if (ret2 < 0)
		return ret2;
	*nrestored += n2;
	if (!*pid)
		*pid = pid2;
	return ret || ret2;
}
