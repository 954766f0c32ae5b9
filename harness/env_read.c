// SPDX-License-Identifier: GPL-2.0-only
/*
 * env_read.c - the reads the fingerprint and the snapshots share:
 * il_unknown() (the JSON for a value that could not be read), the first
 * processor's /proc/cpuinfo block, and the online CPU list.
 *
 * Every /sys, /proc and /dev read goes through sysfs.h, so a fixture tree
 * under IDLELAB_SYSFS_ROOT stands in for the machine.
 */
#include "env_internal.h"
#include "topo.h"

#include <errno.h>

json_t *il_unknown(const char *reason)
{
	return json_pack("{s:s}", "unknown",
			 reason && *reason ? reason : "no reason recorded");
}

/* ---- /proc/cpuinfo --------------------------------------------------- */

/*
 * The value of @key in the first processor block, malloc()ed, or NULL.
 * Lines look like "flags\t\t: fpu vme ..."; the key is padded with tabs.
 */
char *env_cpuinfo_field(const char *info, const char *key)
{
	size_t klen = strlen(key);
	const char *line = info, *end, *colon, *k;

	while (line && *line) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (end == line)
			break;	/* blank line: end of the first processor */
		colon = memchr(line, ':', (size_t)(end - line));
		if (colon) {
			k = colon;
			while (k > line && isspace((unsigned char)k[-1]))
				k--;
			if ((size_t)(k - line) == klen &&
			    !strncmp(line, key, klen)) {
				colon++;
				while (colon < end && *colon == ' ')
					colon++;
				return strndup(colon, (size_t)(end - colon));
			}
		}
		line = *end ? end + 1 : end;
	}
	return NULL;
}

int env_has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}


void env_cpuinfo_load(struct cpuinfo *ci)
{
	memset(ci, 0, sizeof(*ci));
	if (il_fs_read_all("/proc/cpuinfo", &ci->text)) {
		snprintf(ci->reason, sizeof(ci->reason), "%s", il_errmsg());
		return;
	}
	ci->flags = env_cpuinfo_field(ci->text, "flags");
	if (!ci->flags)
		snprintf(ci->reason, sizeof(ci->reason),
			 "/proc/cpuinfo has no flags line");
}

void env_cpuinfo_free(struct cpuinfo *ci)
{
	free(ci->text);
	free(ci->flags);
}

json_t *env_cpuinfo_flag(struct cpuinfo *ci, const char *flag)
{
	if (!ci->flags)
		return il_unknown(ci->reason);
	return json_boolean(env_has_word(ci->flags, flag));
}

