// SPDX-License-Identifier: GPL-2.0-only
/*
 * envctl_plan.c - step 2 of the journal protocol (envctl_journal.c):
 * planning each environment control of a campaign as journal entries,
 * reading every file's original bytes and keeping only the files whose
 * value differs from the wanted one.  Planning only reads, so
 * il_envctl_probe() (envctl_apply.c) runs it alone for --dry-run.
 *
 * It is its own file because it is its own job: what each control means
 * in sysfs (which files, in which order, which values the kernel takes),
 * apart from applying, holding and undoing the plan (envctl_apply.c) and
 * from the journal that keeps it (envctl_journal.c).
 */
#include "envctl.h"
#include "envctl_internal.h"
#include "err.h"
#include "pmqos.h"
#include "sysfs.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_DIR		IL_ENVCTL_CPU_DIR
#define QOS_PATH	IL_PM_QOS_PATH
#define MAX_STATES	IL_ENVCTL_MAX_STATES

/*
 * Add "write @val to @path" unless the file already holds it.  A file
 * already planned (a cpufreq policy shared by several CPUs) keeps its
 * first original and takes the latest value.
 */
static int plan_write(struct envctl_plan *pl, const char *path,
		      const char *val)
{
	char rp[PATH_MAX], real[PATH_MAX], *orig = NULL;
	struct jentry *e;
	int i, ret;

	ret = il_fs_read_all(path, &orig);
	if (ret)
		return ret;
	if (il_envctl_same_value(orig, strlen(orig), val, strlen(val))) {
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

int il_envctl_plan_cpuidle(struct envctl_plan *pl,
			   const struct il_envctl_spec *s, const int *cpus,
			   int ncpus)
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

int il_envctl_plan_governor(struct envctl_plan *pl, const char *gov,
			    const int *cpus, int ncpus)
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

int il_envctl_plan_pin(struct envctl_plan *pl, const struct il_envctl_spec *s,
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

int il_envctl_plan_qos(struct envctl_plan *pl, int32_t us)
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
