// SPDX-License-Identifier: GPL-2.0-only
/*
 * envctl_keys.c - the one table of a campaign's `environment:` keys
 * (envctl.h): each key's name, what it accepts, what it changes and how
 * that is restored, with the setter that validates a value into a
 * struct il_envctl_spec and the renderer that prints it back.  The
 * campaign parser, `idlelab run --dry-run` and the man-page test all read
 * this table, so a key cannot be known to one and missing from another.
 *
 * The messages are the campaign parser's own wording, minus the
 * "file:line: key 'k': " prefix that the parser adds.
 */
#include "envctl.h"
#include "err.h"
#include "pmqos.h"
#include "opts.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *kind_name(const struct il_envctl_val *v)
{
	switch (v->kind) {
	case IL_ENVVAL_SCALAR:
		return "a scalar";
	case IL_ENVVAL_LIST:
		return "a list";
	case IL_ENVVAL_MAPPING:
		return "a mapping";
	default:
		return "nothing";
	}
}

static int want_scalar(const struct il_envctl_val *v, const char *what)
{
	if (v->kind == IL_ENVVAL_NULL)
		return il_errorf(-EINVAL, "expected %s, got null", what);
	if (v->kind != IL_ENVVAL_SCALAR || !v->text)
		return il_errorf(-EINVAL, "expected %s, got %s", what,
				 kind_name(v));
	return 0;
}

static int parse_uint(const struct il_envctl_val *v, uint64_t min,
		      uint64_t max, uint64_t *out)
{
	unsigned long long n;
	char *end;
	int ret = want_scalar(v, "a number");

	if (ret)
		return ret;
	/* strtoull would take "-1" and " 5"; a count never starts so. */
	if (*v->text < '0' || *v->text > '9')
		goto bad;
	errno = 0;
	n = strtoull(v->text, &end, 10);
	if (errno || *end)
		goto bad;
	if (n < min || n > max)
		return il_errorf(-EINVAL, "%llu is out of range [%" PRIu64 ", %"
				 PRIu64 "]", n, min, max);
	*out = n;
	return 0;
bad:
	return il_errorf(-EINVAL, "expected a whole number, got '%s'", v->text);
}

static int dup_string(const struct il_envctl_val *v, char **out)
{
	int ret = want_scalar(v, "a string");

	if (ret)
		return ret;
	free(*out);
	*out = strdup(v->text);
	return *out ? 0 : il_errorf(-ENOMEM, "out of memory");
}

/* ---- setters, one per key ---------------------------------------------- */

static int set_pm_qos(struct il_envctl_spec *s, const struct il_envctl_key *k,
		      const struct il_envctl_val *v)
{
	uint64_t n;
	int ret = parse_uint(v, k->min, k->max, &n);

	if (ret)
		return ret;
	s->pm_qos = true;
	s->pm_qos_us = (int32_t)n;
	return 0;
}

static void free_names(struct il_envctl_spec *s)
{
	int i;

	for (i = 0; i < s->ncpuidle_only; i++)
		free(s->cpuidle_only[i]);
	free(s->cpuidle_only);
	s->cpuidle_only = NULL;
	s->ncpuidle_only = 0;
}

bool il_envctl_spec_empty(const struct il_envctl_spec *s)
{
	return !s->pm_qos && !s->ncpuidle_only && !s->governor &&
	       s->pin == IL_PIN_NONE && !s->sched_fifo && !s->mlockall;
}

void il_envctl_spec_free(struct il_envctl_spec *s)
{
	free_names(s);
	free(s->governor);
	s->governor = NULL;
}

static int set_cpuidle_only(struct il_envctl_spec *s,
			    const struct il_envctl_key *k,
			    const struct il_envctl_val *v)
{
	int i, ret;

	(void)k;
	if (v->kind != IL_ENVVAL_LIST)
		return il_errorf(-EINVAL, "expected a list of idle state names (e.g. [C1]), got %s",
				 kind_name(v));
	if (!v->nitems)
		return il_errorf(-EINVAL, "empty list: at least one idle state must stay enabled (POLL counts)");
	free_names(s);
	s->cpuidle_only = calloc(v->nitems, sizeof(char *));
	if (!s->cpuidle_only)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; i < v->nitems; i++) {
		/* Counted first, so il_envctl_spec_free() frees what is set. */
		s->ncpuidle_only = i + 1;
		ret = dup_string(&v->items[i], &s->cpuidle_only[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static int set_governor(struct il_envctl_spec *s, const struct il_envctl_key *k,
			const struct il_envctl_val *v)
{
	(void)k;
	return dup_string(v, &s->governor);
}

static int set_pin(struct il_envctl_spec *s, const struct il_envctl_key *k,
		   const struct il_envctl_val *v)
{
	int ret;

	if (v->kind == IL_ENVVAL_SCALAR && v->text && !strcmp(v->text, "max")) {
		s->pin = IL_PIN_MAX;
		return 0;
	}
	if (v->kind == IL_ENVVAL_SCALAR && v->text && !strcmp(v->text, "min")) {
		s->pin = IL_PIN_MIN;
		return 0;
	}
	ret = parse_uint(v, k->min, k->max, &s->pin_khz);
	/* "out of range [1, 4294967295]" would hide that max and min exist. */
	if (ret && v->kind == IL_ENVVAL_SCALAR && v->text)
		ret = il_errorf(-EINVAL, "expected max, min or a frequency in kHz, got '%s'",
				v->text);
	s->pin = IL_PIN_KHZ;
	return ret;
}

static int set_sched_fifo(struct il_envctl_spec *s,
			  const struct il_envctl_key *k,
			  const struct il_envctl_val *v)
{
	uint64_t n;
	int ret;

	/* "false" reads better than 0 for "do not"; quoted, it is a typo. */
	if (v->kind == IL_ENVVAL_SCALAR && v->text && v->plain &&
	    (!strcasecmp(v->text, "false") || !strcasecmp(v->text, "no"))) {
		s->sched_fifo = 0;
		return 0;
	}
	ret = parse_uint(v, k->min, k->max, &n);
	if (!ret)
		s->sched_fifo = (int)n;
	return ret;
}

static int set_mlockall(struct il_envctl_spec *s, const struct il_envctl_key *k,
			const struct il_envctl_val *v)
{
	static const char *const yes[] = { "true", "yes", "on", "1", NULL };
	static const char *const no[] = { "false", "no", "off", "0", NULL };
	int i, ret = want_scalar(v, "true or false");

	(void)k;
	if (ret)
		return ret;
	for (i = 0; yes[i]; i++) {
		if (!strcasecmp(v->text, yes[i])) {
			s->mlockall = true;
			return 0;
		}
		if (!strcasecmp(v->text, no[i])) {
			s->mlockall = false;
			return 0;
		}
	}
	return il_errorf(-EINVAL, "expected true or false, got '%s'", v->text);
}

/* ---- renderers --------------------------------------------------------- */

static bool show_pm_qos(const struct il_envctl_spec *s, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRId32, s->pm_qos_us);
	return s->pm_qos;
}

static bool show_cpuidle_only(const struct il_envctl_spec *s, char *buf,
			      size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < s->ncpuidle_only && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? "," : "",
				 s->cpuidle_only[i]);
	return s->ncpuidle_only > 0;
}

static bool show_governor(const struct il_envctl_spec *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s->governor ? s->governor : "");
	return s->governor != NULL;
}

static bool show_pin(const struct il_envctl_spec *s, char *buf, size_t len)
{
	if (s->pin == IL_PIN_MAX)
		snprintf(buf, len, "max");
	else if (s->pin == IL_PIN_MIN)
		snprintf(buf, len, "min");
	else
		snprintf(buf, len, "%" PRIu64, s->pin_khz);
	return s->pin != IL_PIN_NONE;
}

static bool show_sched_fifo(const struct il_envctl_spec *s, char *buf,
			    size_t len)
{
	snprintf(buf, len, "%d", s->sched_fifo);
	return s->sched_fifo != 0;
}

static bool show_mlockall(const struct il_envctl_spec *s, char *buf, size_t len)
{
	snprintf(buf, len, "1");
	return s->mlockall;
}

/* ---- the table --------------------------------------------------------- */

const struct il_envctl_key il_envctl_keys[] = {
	{
		.name = "pm_qos_us",
		.type = IL_ENVKEY_UINT,
		/* The kernel takes an s32; 2000000000 is its "no limit". */
		.min = 0, .max = IL_PM_QOS_NO_LIMIT_US,
		.accepts = "a latency in microseconds, 0 to " IL_PM_QOS_NO_LIMIT_STR,
		.help = "hold a PM QoS CPU latency request of this many microseconds for the whole campaign",
		.changes = "/dev/cpu_dma_latency, held open by idlelab",
		.restore = "the kernel drops the request when the descriptor closes, at the end or at any exit",
		.set = set_pm_qos,
		.show = show_pm_qos,
	},
	{
		.name = "cpuidle_only",
		.type = IL_ENVKEY_NAMES,
		.accepts = "a non-empty list of idle state names, e.g. [C1, POLL]",
		.help = "enable only these cpuidle states and disable every other one",
		.changes = "cpuN/cpuidle/stateK/disable on every online CPU",
		.restore = "the journalled original of each file is written back and read back",
		.set = set_cpuidle_only,
		.show = show_cpuidle_only,
	},
	{
		.name = "governor",
		.type = IL_ENVKEY_STRING,
		.accepts = "a cpufreq governor available here, e.g. performance",
		.help = "switch every online CPU to this cpufreq governor",
		.changes = "cpuN/cpufreq/scaling_governor on every online CPU",
		.restore = "the journalled original of each file is written back and read back",
		.set = set_governor,
		.show = show_governor,
	},
	{
		.name = "pin_freq_khz",
		.type = IL_ENVKEY_FREQ,
		.min = 1, .max = UINT32_MAX,
		.accepts = "max, min, or a frequency in kHz within the CPU's range",
		.help = "pin the frequency: scaling_min_freq = scaling_max_freq = this",
		.changes = "cpuN/cpufreq/scaling_min_freq and scaling_max_freq on every online CPU",
		.restore = "the journalled originals are written back in reverse order, keeping min <= max",
		.set = set_pin,
		.show = show_pin,
	},
	{
		.name = "sched_fifo",
		.type = IL_ENVKEY_PRIO,
		.min = 1, .max = 99,
		.accepts = "a SCHED_FIFO priority, 1 to 99, or false",
		.help = "run the measuring process as SCHED_FIFO at this priority; also a benchmark's priority parameter where the group leaves it unset",
		.changes = "the scheduling policy of the idlelab process",
		.restore = "the previous policy is set back at the end; it dies with the process anyway",
		.set = set_sched_fifo,
		.show = show_sched_fifo,
	},
	{
		.name = "mlockall",
		.type = IL_ENVKEY_BOOL,
		.accepts = "true or false",
		.help = "lock the process's memory, mlockall(MCL_CURRENT|MCL_FUTURE), so no page fault lands in a measurement",
		.changes = "the memory locking of the idlelab process",
		.restore = "munlockall() at the end; it dies with the process anyway",
		.set = set_mlockall,
		.show = show_mlockall,
	},
	{ .name = NULL },
};

#define NKEYS (sizeof(il_envctl_keys) / sizeof(il_envctl_keys[0]) - 1)

const struct il_envctl_key *il_envctl_key_find(const char *name)
{
	const struct il_envctl_key *k;

	for (k = il_envctl_keys; k->name; k++)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

const char *const *il_envctl_key_names(void)
{
	/* Filled from the table, so there is no second list to forget. */
	static const char *names[NKEYS + 1];
	size_t i;

	for (i = 0; i < NKEYS; i++)
		names[i] = il_envctl_keys[i].name;
	names[NKEYS] = NULL;
	return names;
}

int il_envctl_key_set(struct il_envctl_spec *s, const struct il_envctl_key *k,
		      const struct il_envctl_val *v)
{
	if (v->kind == IL_ENVVAL_NULL)
		return 0;
	return k->set(s, k, v);
}

int il_envctl_spec_describe(const struct il_envctl_spec *s, char *buf,
			    size_t len)
{
	const struct il_envctl_key *k;
	char val[1024];
	size_t used;

	if (il_envctl_spec_empty(s))
		used = (size_t)snprintf(buf, len, "environment: unchanged");
	else
		used = (size_t)snprintf(buf, len, "environment:");
	for (k = il_envctl_keys; k->name && used < len; k++) {
		if (!il_envctl_spec_empty(s) && k->show(s, val, sizeof(val)))
			used += (size_t)snprintf(buf + used, len - used,
						 " %s=%s", k->name, val);
	}
	if (used >= len)
		return il_errorf(-ENOSPC, "the environment does not fit in %zu bytes",
				 len);
	return 0;
}

int il_envctl_keys_print(FILE *f)
{
	const struct il_envctl_key *k;

	for (k = il_envctl_keys; k->name; k++)
		fprintf(f, "%s: %s\n  accepts: %s\n  changes: %s\n  restored: %s\n",
			k->name, k->help, k->accepts, k->changes, k->restore);
	if (fflush(f) || ferror(f))
		return il_errorf(-EIO, "cannot write the environment keys");
	return 0;
}
