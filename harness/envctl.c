// SPDX-License-Identifier: GPL-2.0-only
/*
 * envctl.c - the environment controls of a campaign and their restore
 * journal (envctl.h).
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
 *
 * The PM QoS request needs no undo: the kernel drops it when its
 * descriptor closes, including at SIGKILL.  It is journalled all the same,
 * so that against a fake tree (where dev/cpu_dma_latency is a regular
 * file) the bytes written into it are put back too.
 *
 * SCHED_FIFO and mlockall() are per process and die with it; they are
 * undone at restore only so a process that goes on after a campaign is
 * left as it was.
 */
#include "envctl.h"
#include "bench.h"
#include "err.h"
#include "pmqos.h"
#include "sysfs.h"
#include "topo.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CPU_DIR		"/sys/devices/system/cpu"
#define QOS_PATH	IL_PM_QOS_PATH
#define JOURNAL_NAME	"restore-journal.json"
#define LOCK_NAME	"restore-journal.lock"
#define MAX_STATES	64

struct jentry {
	char *path;		/* as given to sysfs.h */
	char *file;		/* resolved: what is written back */
	unsigned char *orig;	/* original bytes */
	size_t orig_len;
	char *val;		/* wanted value (NULL for entries read back) */
	bool pm_qos;
};

struct il_envctl {
	int lock_fd;
	int nent;
	struct jentry *ent;
	int napplied;		/* entries [0, napplied) were changed */
	bool journal_written;
	int qos_fd;
	int32_t qos_us;
	char *qos_before;
	int sched_fifo;
	bool sched_set;
	int old_policy;
	struct sched_param old_param;
	bool mem_locked;
	int ncpus;
	int *cpus;
	char **before;		/* per CPU, the state before the campaign */
};

/* ---- small helpers ----------------------------------------------------- */

static const char *state_dir(void)
{
	const char *d = getenv("IDLELAB_STATE_DIR");

	return d && *d ? d : "/var/lib/idlelab";
}

const char *il_envctl_journal_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", state_dir(), JOURNAL_NAME);
	return buf;
}

bool il_envctl_journal_pending(void)
{
	char p[PATH_MAX];

	return access(il_envctl_journal_path(p, sizeof(p)), F_OK) == 0;
}

bool il_envctl_spec_empty(const struct il_envctl_spec *s)
{
	return !s->pm_qos && !s->ncpuidle_only && !s->governor &&
	       s->pin == IL_PIN_NONE && !s->sched_fifo && !s->mlockall;
}

void il_envctl_spec_free(struct il_envctl_spec *s)
{
	int i;

	for (i = 0; i < s->ncpuidle_only; i++)
		free(s->cpuidle_only[i]);
	free(s->cpuidle_only);
	free(s->governor);
	s->cpuidle_only = NULL;
	s->ncpuidle_only = 0;
	s->governor = NULL;
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
static bool same_value(const void *a, size_t alen, const void *b, size_t blen)
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
	const char *p = buf;
	size_t done = 0;
	ssize_t n;
	int fd = open(file, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (done < len) {
		n = write(fd, p + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			close(fd);
			return -e;
		}
		done += (size_t)n;
	}
	if (close(fd))
		return -errno;
	return 0;
}

static int read_resolved(const char *file, unsigned char *buf, size_t max,
			 size_t *len)
{
	ssize_t n;
	size_t got = 0;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (got < max) {
		n = read(fd, buf + got, max - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		if (!n)
			break;
		got += (size_t)n;
	}
	close(fd);
	*len = got;
	return 0;
}

static void entries_free(struct jentry *e, int n)
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

static int lock_take(int *fdp)
{
	char p[PATH_MAX];
	int fd, ret;

	ret = il_mkdir_p(state_dir());
	if (ret)
		return il_errorf(ret, "cannot create the state directory %s: %s",
				 state_dir(), strerror(-ret));
	snprintf(p, sizeof(p), "%s/%s", state_dir(), LOCK_NAME);
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

static long journal_pid(void)
{
	char p[PATH_MAX];
	json_t *j = json_load_file(il_envctl_journal_path(p, sizeof(p)), 0, NULL);
	long pid = 0;

	if (j)
		pid = (long)json_integer_value(json_object_get(j, "pid"));
	json_decref(j);
	return pid;
}

static int busy_error(void)
{
	long pid = journal_pid();

	if (pid)
		return il_errorf(-EBUSY, "another idlelab process (pid %ld) is controlling the environment; its journal is left alone",
				 pid);
	return il_errorf(-EBUSY, "another idlelab process holds %s/%s", state_dir(),
			 LOCK_NAME);
}

/* ---- journal ----------------------------------------------------------- */

static int journal_write(const struct jentry *ent, int n)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], *hex, *s;
	json_t *j, *a, *o;
	struct timespec ts;
	size_t len, done = 0;
	ssize_t w;
	int i, fd, ret = 0;

	il_envctl_journal_path(path, sizeof(path));
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
			      "file", ent[i].file, "kind",
			      ent[i].pm_qos ? "pm_qos" : "sysfs",
			      "original_hex", hex);
		free(hex);
		/* The readable copy is for people; restore uses the hex. */
		if (o && !ent[i].pm_qos)
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
	while (done < len) {
		w = write(fd, s + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ret = -(w < 0 ? errno : EIO);
			break;
		}
		done += (size_t)w;
	}
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

static int journal_remove(void)
{
	char path[PATH_MAX];
	int ret;

	if (unlink(il_envctl_journal_path(path, sizeof(path))) && errno != ENOENT)
		return il_errorf(-errno, "cannot remove %s: %s", path, strerror(errno));
	ret = fsync_dir(state_dir());
	return ret ? il_errorf(ret, "cannot sync %s: %s", state_dir(), strerror(-ret)) : 0;
}

static int journal_read(struct jentry **out, int *nout)
{
	char path[PATH_MAX];
	json_error_t jerr;
	json_t *j, *a, *o;
	struct jentry *e;
	size_t i;
	int ret = 0;

	*out = NULL;
	*nout = 0;
	il_envctl_journal_path(path, sizeof(path));
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
		entries_free(e, *nout);
		*nout = 0;
		return ret;
	}
	*out = e;
	return 0;
}

/*
 * Write every original back, last change first, and read each back.
 * A file that no longer exists (a CPU unplugged since, a fixture tree
 * removed) has nothing left to restore.
 */
static int restore_entries(const struct jentry *e, int n, int *nrestored)
{
	unsigned char buf[4096];
	struct stat st;
	size_t len = 0;
	int i, ret, first = 0;

	*nrestored = 0;
	for (i = n - 1; i >= 0; i--) {
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
			      same_value(buf, len, e[i].orig, e[i].orig_len)))
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

int il_envctl_recover(int *nrestored, long *pid)
{
	struct jentry *e = NULL;
	char tmp[PATH_MAX + 8];
	int n = 0, fd = -1, ret;

	*nrestored = 0;
	*pid = 0;
	if (!il_envctl_journal_pending())
		return 0;
	ret = lock_take(&fd);
	if (ret == -EBUSY)
		return busy_error();
	if (ret)
		return ret;
	*pid = journal_pid();
	/* Re-check under the lock: a process that just finished removed it. */
	if (!il_envctl_journal_pending()) {
		ret = 0;
		goto out;
	}
	ret = journal_read(&e, &n);
	if (ret)
		goto out;
	ret = restore_entries(e, n, nrestored);
	if (!ret)
		ret = journal_remove();
	if (!ret)
		ret = 1;
out:
	il_envctl_journal_path(tmp, sizeof(tmp) - 8);
	strcat(tmp, ".tmp");
	unlink(tmp);
	entries_free(e, n);
	close(fd);
	return ret;
}

/* ---- reading the controlled state -------------------------------------- */

/* "governor=G min_khz=A max_khz=B disabled=S1,S2" for @cpu; parts that
 * cannot be read say "unknown". */
static void cpu_state(int cpu, char *out, size_t len)
{
	char p[256], gov[64], lo[32], hi[32], name[64], dis[8];
	char disabled[160] = "";
	size_t used = 0;
	int k;

	snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpufreq/scaling_governor", cpu);
	if (il_fs_read(p, gov, sizeof(gov)))
		snprintf(gov, sizeof(gov), "unknown");
	snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpufreq/scaling_min_freq", cpu);
	if (il_fs_read(p, lo, sizeof(lo)))
		snprintf(lo, sizeof(lo), "unknown");
	snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpufreq/scaling_max_freq", cpu);
	if (il_fs_read(p, hi, sizeof(hi)))
		snprintf(hi, sizeof(hi), "unknown");
	for (k = 0; k < MAX_STATES; k++) {
		snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpuidle/state%d/name", cpu, k);
		if (il_fs_read(p, name, sizeof(name)))
			break;
		snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpuidle/state%d/disable", cpu, k);
		if (il_fs_read(p, dis, sizeof(dis)))
			snprintf(dis, sizeof(dis), "?");
		if (strcmp(dis, "0") && used < sizeof(disabled) - 1)
			used += snprintf(disabled + used, sizeof(disabled) - used,
					 "%s%s%s", used ? "," : "", name,
					 strcmp(dis, "1") ? "?" : "");
	}
	if (!k)
		snprintf(disabled, sizeof(disabled), "unknown");
	else if (!used)
		snprintf(disabled, sizeof(disabled), "none");
	snprintf(out, len, "governor=%s min_khz=%s max_khz=%s disabled=%s",
		 gov, lo, hi, disabled);
	il_errclear();
}

static char *qos_now(void)
{
	unsigned char b[64];
	int32_t v;
	char *s;
	int n = il_fs_read_bin(QOS_PATH, b, sizeof(b));

	il_errclear();
	if (n != 4)
		return strdup("unknown");
	memcpy(&v, b, 4);
	if (asprintf(&s, "%" PRId32, v) < 0)
		return NULL;
	return s;
}

/* ---- planning ---------------------------------------------------------- */

struct plan {
	int n;
	struct jentry *e;
};

/*
 * Add "write @val to @path" unless the file already holds it.  A file
 * already planned (a cpufreq policy shared by several CPUs) keeps its
 * first original and takes the latest value.
 */
static int plan_write(struct plan *pl, const char *path, const char *val)
{
	char rp[PATH_MAX], real[PATH_MAX], *orig = NULL;
	struct jentry *e;
	int i, ret;

	ret = il_fs_read_all(path, &orig);
	if (ret)
		return ret;
	if (same_value(orig, strlen(orig), val, strlen(val))) {
		free(orig);
		return 0;
	}
	il_fs_path(path, rp, sizeof(rp));
	if (!realpath(rp, real)) {
		ret = il_errorf(-errno, "cannot resolve %s: %s", rp, strerror(errno));
		free(orig);
		return ret;
	}
	for (i = 0; i < pl->n; i++) {
		if (!strcmp(pl->e[i].file, real)) {
			free(orig);
			free(pl->e[i].val);
			pl->e[i].val = strdup(val);
			return pl->e[i].val ? 0 : il_errorf(-ENOMEM, "out of memory");
		}
	}
	e = realloc(pl->e, (pl->n + 1) * sizeof(*e));
	if (!e) {
		free(orig);
		return il_errorf(-ENOMEM, "out of memory");
	}
	pl->e = e;
	e = &pl->e[pl->n++];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	e->file = strdup(real);
	e->val = strdup(val);
	e->orig = (unsigned char *)orig;
	e->orig_len = strlen(orig);
	if (!e->path || !e->file || !e->val)
		return il_errorf(-ENOMEM, "out of memory");
	return 0;
}

static int plan_cpuidle(struct plan *pl, const struct il_envctl_spec *s,
			const int *cpus, int ncpus)
{
	char p[256], name[64], names[512] = "";
	bool found[64] = { false };
	size_t used = 0;
	int i, k, j, nstates = 0, ret;

	if (s->ncpuidle_only > 64)
		return il_errorf(-EINVAL, "cpuidle_only: more than 64 names");
	for (i = 0; i < ncpus; i++) {
		for (k = 0; k < MAX_STATES; k++) {
			snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpuidle/state%d/name",
				 cpus[i], k);
			ret = il_fs_read(p, name, sizeof(name));
			if (ret == -ENOENT)
				break;
			if (ret)
				return ret;
			nstates++;
			if (!i && !strstr(names, name) && used < sizeof(names) - 1)
				used += snprintf(names + used, sizeof(names) - used,
						 "%s%s", used ? ", " : "", name);
			for (j = 0; j < s->ncpuidle_only; j++)
				if (!strcmp(name, s->cpuidle_only[j]))
					break;
			if (j < s->ncpuidle_only)
				found[j] = true;
			snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpuidle/state%d/disable",
				 cpus[i], k);
			ret = plan_write(pl, p, j < s->ncpuidle_only ? "0" : "1");
			if (ret)
				return ret;
		}
	}
	if (!nstates)
		return il_errorf(-EOPNOTSUPP, "cpuidle_only: this machine has no cpuidle states (no %s/cpuN/cpuidle; no cpuidle driver?)",
				 CPU_DIR);
	for (j = 0; j < s->ncpuidle_only; j++)
		if (!found[j])
			return il_errorf(-ENOENT, "cpuidle_only: no idle state named '%s' here (states: %s)",
					 s->cpuidle_only[j], names);
	return 0;
}

static int plan_governor(struct plan *pl, const char *gov, const int *cpus,
			 int ncpus)
{
	char p[256], avail[1024], padded[1100], want[80];
	int i, ret;

	for (i = 0; i < ncpus; i++) {
		snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpufreq/scaling_available_governors",
			 cpus[i]);
		ret = il_fs_read(p, avail, sizeof(avail));
		if (ret == -ENOENT)
			return il_errorf(-EOPNOTSUPP, "governor: cpu%d has no cpufreq (no %s/cpu%d/cpufreq)",
					 cpus[i], CPU_DIR, cpus[i]);
		if (ret)
			return ret;
		snprintf(padded, sizeof(padded), " %s ", avail);
		snprintf(want, sizeof(want), " %s ", gov);
		if (!strstr(padded, want))
			return il_errorf(-ENOENT, "governor: '%s' is not available on cpu%d (available: %s)",
					 gov, cpus[i], avail);
		snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpufreq/scaling_governor", cpus[i]);
		ret = plan_write(pl, p, gov);
		if (ret)
			return ret;
	}
	return 0;
}

static int plan_pin(struct plan *pl, const struct il_envctl_spec *s,
		    const int *cpus, int ncpus)
{
	char p[256], pmin[256], pmax[256], v[32];
	uint64_t lo, hi, cur_hi, f;
	int i, ret;

	for (i = 0; i < ncpus; i++) {
		snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpufreq/cpuinfo_min_freq", cpus[i]);
		ret = il_fs_read_u64(p, &lo);
		if (ret == -ENOENT)
			return il_errorf(-EOPNOTSUPP, "pin_freq_khz: cpu%d has no cpufreq (no %s/cpu%d/cpufreq)",
					 cpus[i], CPU_DIR, cpus[i]);
		if (ret)
			return ret;
		snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpufreq/cpuinfo_max_freq", cpus[i]);
		ret = il_fs_read_u64(p, &hi);
		if (ret)
			return ret;
		f = s->pin == IL_PIN_MAX ? hi : s->pin == IL_PIN_MIN ? lo : s->pin_khz;
		if (f < lo || f > hi)
			return il_errorf(-EINVAL, "pin_freq_khz: %" PRIu64 " kHz is outside cpu%d's range [%" PRIu64 ", %" PRIu64 "]",
					 f, cpus[i], lo, hi);
		snprintf(pmin, sizeof(pmin), CPU_DIR "/cpu%d/cpufreq/scaling_min_freq", cpus[i]);
		snprintf(pmax, sizeof(pmax), CPU_DIR "/cpu%d/cpufreq/scaling_max_freq", cpus[i]);
		ret = il_fs_read_u64(pmax, &cur_hi);
		if (ret)
			return ret;
		snprintf(v, sizeof(v), "%" PRIu64, f);
		/* The kernel refuses min > max: raise max first when going up,
		 * lower min first otherwise.  Restore runs in reverse. */
		if (f <= cur_hi) {
			ret = plan_write(pl, pmin, v);
			if (!ret)
				ret = plan_write(pl, pmax, v);
		} else {
			ret = plan_write(pl, pmax, v);
			if (!ret)
				ret = plan_write(pl, pmin, v);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int plan_qos(struct plan *pl, int32_t us)
{
	char rp[PATH_MAX], real[PATH_MAX];
	unsigned char b[64];
	struct jentry *e;
	int n;

	n = il_fs_read_bin(QOS_PATH, b, sizeof(b));
	if (n < 0)
		return n == -ENOENT ?
		       il_errorf(-EOPNOTSUPP, "pm_qos_us: %s does not exist here", QOS_PATH) : n;
	il_fs_path(QOS_PATH, rp, sizeof(rp));
	if (!realpath(rp, real))
		return il_errorf(-errno, "cannot resolve %s: %s", rp, strerror(errno));
	e = realloc(pl->e, (pl->n + 1) * sizeof(*e));
	if (!e)
		return il_errorf(-ENOMEM, "out of memory");
	pl->e = e;
	e = &pl->e[pl->n++];
	memset(e, 0, sizeof(*e));
	e->pm_qos = true;
	e->path = strdup(QOS_PATH);
	e->file = strdup(real);
	e->orig = malloc(n + 1);
	if (asprintf(&e->val, "%" PRId32, us) < 0)
		e->val = NULL;
	if (!e->path || !e->file || !e->orig || !e->val)
		return il_errorf(-ENOMEM, "out of memory");
	memcpy(e->orig, b, n);
	e->orig_len = (size_t)n;
	return 0;
}

/* ---- apply / restore --------------------------------------------------- */

static void envctl_free(struct il_envctl *c)
{
	int i;

	entries_free(c->ent, c->nent);
	for (i = 0; c->before && i < c->ncpus; i++)
		free(c->before[i]);
	free(c->before);
	free(c->cpus);
	free(c->qos_before);
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	free(c);
}

int il_envctl_restore(struct il_envctl *c)
{
	int n, ret = 0, r;

	if (!c)
		return 0;
	if (c->qos_fd >= 0) {
		close(c->qos_fd);
		c->qos_fd = -1;
	}
	if (c->mem_locked)
		munlockall();
	if (c->sched_set &&
	    sched_setscheduler(0, c->old_policy, &c->old_param) && !ret)
		ret = il_errorf(-errno, "cannot restore the scheduling policy: %s",
				strerror(errno));
	if (c->journal_written) {
		/* In this process we know exactly what changed: a write that
		 * failed changed nothing, and what follows it never ran.  (A
		 * recovery after a crash cannot know, so it writes them all.) */
		r = restore_entries(c->ent, c->napplied, &n);
		if (!r)
			r = journal_remove();
		if (r)
			ret = r;
	}
	envctl_free(c);
	return ret;
}

int il_envctl_apply(const struct il_envctl_spec *s, struct il_envctl **out)
{
	struct il_envctl *c;
	struct plan pl = { 0 };
	int i, ret;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return il_errorf(-ENOMEM, "out of memory");
	c->lock_fd = -1;
	c->qos_fd = -1;
	ret = lock_take(&c->lock_fd);
	if (ret == -EBUSY)
		ret = busy_error();
	if (ret)
		goto fail;
	if (il_envctl_journal_pending()) {
		char p[PATH_MAX];

		ret = il_errorf(-EEXIST, "a leftover restore journal %s exists; run 'idlelab restore' first",
				il_envctl_journal_path(p, sizeof(p)));
		goto fail;
	}
	ret = il_fs_online_cpus(&c->cpus);
	if (ret < 0)
		goto fail;
	c->ncpus = ret;
	c->before = calloc(c->ncpus ? c->ncpus : 1, sizeof(char *));
	if (!c->before) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < c->ncpus; i++) {
		char st[256];

		cpu_state(c->cpus[i], st, sizeof(st));
		c->before[i] = strdup(st);
	}
	c->qos_before = qos_now();

	/* Plan everything, then journal everything, then change anything. */
	ret = 0;
	if (s->ncpuidle_only)
		ret = plan_cpuidle(&pl, s, c->cpus, c->ncpus);
	if (!ret && s->governor)
		ret = plan_governor(&pl, s->governor, c->cpus, c->ncpus);
	if (!ret && s->pin != IL_PIN_NONE)
		ret = plan_pin(&pl, s, c->cpus, c->ncpus);
	if (!ret && s->pm_qos)
		ret = plan_qos(&pl, s->pm_qos_us);
	c->ent = pl.e;
	c->nent = pl.n;
	if (ret)
		goto fail;
	if (c->nent) {
		ret = journal_write(c->ent, c->nent);
		if (ret)
			goto fail;
		c->journal_written = true;
	}
	for (i = 0; i < c->nent; i++) {
		struct jentry *e = &c->ent[i];

		if (e->pm_qos) {
			int32_t v = s->pm_qos_us;

			/* The request lives as long as this descriptor. */
			c->qos_fd = il_fs_open(QOS_PATH, O_RDWR);
			if (c->qos_fd < 0) {
				ret = c->qos_fd;
				goto fail;
			}
			errno = 0;
			if (write(c->qos_fd, &v, sizeof(v)) != sizeof(v)) {
				ret = il_errorf(-errno ? -errno : -EIO,
						"cannot write the PM QoS request to %s: %s",
						QOS_PATH, strerror(errno));
				goto fail;
			}
			c->qos_us = v;
			c->napplied = i + 1;
			continue;
		}
		ret = il_fs_write(e->path, e->val);
		if (ret)
			goto fail;
		c->napplied = i + 1;
	}
	if (s->sched_fifo) {
		struct sched_param sp = { .sched_priority = s->sched_fifo };

		c->old_policy = sched_getscheduler(0);
		sched_getparam(0, &c->old_param);
		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			ret = il_errorf(-errno, "sched_fifo: cannot set SCHED_FIFO priority %d: %s",
					s->sched_fifo, strerror(errno));
			goto fail;
		}
		c->sched_set = true;
		c->sched_fifo = s->sched_fifo;
	}
	if (s->mlockall) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
			ret = il_errorf(-errno, "mlockall: %s", strerror(errno));
			goto fail;
		}
		c->mem_locked = true;
	}
	*out = c;
	return 0;
fail:
	{
		char msg[512];

		/* Keep the first error's message over the restore's. */
		snprintf(msg, sizeof(msg), "%s", il_errmsg());
		if (il_envctl_restore(c))
			il_errorf(ret, "%s (and the restore failed: %s)", msg,
				  il_errmsg());
		else
			il_errorf(ret, "%s", msg);
	}
	return ret;
}

int il_envctl_run_attrs(struct il_envctl *c, struct il_run *run)
{
	char st[256];
	int *cpus = NULL, n, i;

	if (c) {
		for (i = 0; i < c->ncpus; i++) {
			cpu_state(c->cpus[i], st, sizeof(st));
			il_run_attr(run, c->cpus[i], "envctl", "%s", st);
			il_run_attr(run, c->cpus[i], "envctl.before", "%s",
				    c->before[i] ? c->before[i] : "unknown");
		}
		if (c->qos_fd >= 0)
			il_run_attr(run, -1, "envctl.pm_qos_us", "%" PRId32, c->qos_us);
		il_run_attr(run, -1, "envctl.pm_qos_us.before", "%s",
			    c->qos_before ? c->qos_before : "unknown");
		il_run_attr(run, -1, "envctl.sched_fifo", "%d", c->sched_fifo);
		il_run_attr(run, -1, "envctl.mlockall", "%d", c->mem_locked);
		return 0;
	}
	n = il_fs_online_cpus(&cpus);
	if (n < 0) {
		il_errclear();
		return 0;
	}
	for (i = 0; i < n; i++) {
		cpu_state(cpus[i], st, sizeof(st));
		il_run_attr(run, cpus[i], "envctl", "%s", st);
	}
	free(cpus);
	return 0;
}
