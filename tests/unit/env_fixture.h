/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * env_fixture.h - what the environment tests share (test_env.c: the
 * fingerprint, the sysfs accessors, the UUIDs and the TSC;
 * test_env_snapshot.c: snapshots, deltas and /proc/interrupts columns):
 * the fixture trees, JSON lookups along a dotted path, the check that every
 * unknown has a reason, and scratch copies of a tree to edit.  Include it
 * once, in a test's own file, after tap.h.
 */
#ifndef IDLELAB_ENV_FIXTURE_H
#define IDLELAB_ENV_FIXTURE_H

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfs.h"
#include "tap.h"

#define INTEL	"tests/fixtures/sysfs-intel"
#define EMPTY	"tests/fixtures/sysfs-empty"
#define XEN	"tests/fixtures/sysfs-xen"

/* j["a"]["b"]... along a dotted path; NULL if any step is missing. */
static inline json_t *jget(json_t *j, const char *path)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && j;
	     tok = strtok_r(NULL, ".", &save))
		j = json_object_get(j, tok);
	return j;
}

static inline long long jint(json_t *j, const char *path)
{
	json_t *v = jget(j, path);

	return json_is_integer(v) ? json_integer_value(v) : -424242;
}

static inline const char *jstrv(json_t *j, const char *path)
{
	json_t *v = jget(j, path);

	return json_is_string(v) ? json_string_value(v) : "(not a string)";
}

/* The value at @path is {"unknown": non-empty reason}. */
static inline int is_unknown_at(json_t *j, const char *path)
{
	json_t *u = json_object_get(jget(j, path), "unknown");

	return json_is_string(u) && json_string_value(u)[0];
}

/*
 * Walk everything: every {"unknown"} has a non-empty string reason and
 * no string is "".  Returns the number of unknowns.
 */
static inline int walk(json_t *j, const char *where)
{
	json_t *v, *u;
	const char *k;
	char sub[256];
	size_t i;
	int n = 0;

	if (json_is_object(j)) {
		u = json_object_get(j, "unknown");
		if (u) {
			CHECKF(json_is_string(u) && json_string_value(u)[0] &&
			       json_object_size(j) == 1,
			       "%s: malformed unknown", where);
			return 1;
		}
		json_object_foreach(j, k, v) {
			/* A path too long to name is a failure of its own
			 * (and gcc -O2 wants the truncation checked). */
			n += snprintf(sub, sizeof(sub), "%s.%s", where, k) >= (int)sizeof(sub);
			n += walk(v, sub);
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) {
			n += snprintf(sub, sizeof(sub), "%s[%zu]", where, i) >= (int)sizeof(sub);
			n += walk(v, sub);
		}
	} else if (json_is_string(j)) {
		CHECKF(json_string_value(j)[0], "%s: empty string", where);
	}
	return n;
}

static inline void copy_tree(const char *from, const char *to)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cp -a '%s/.' '%s/'", from, to);
	CHECK(system(cmd) == 0);
}

static inline void rm_tree(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* Replace the first @from in the file at @path (under the root). */
static inline void edit_file(const char *path, const char *from, const char *to)
{
	char *text, *p, *out;
	size_t n;

	CHECK(il_fs_read_all(path, &text) == 0);
	if (!text)
		return;
	p = strstr(text, from);
	CHECKF(p != NULL, "'%s' not in %s", from, path);
	if (p) {
		n = strlen(text) + strlen(to) + 1;
		out = malloc(n);
		snprintf(out, n, "%.*s%s%s", (int)(p - text), text, to,
			 p + strlen(from));
		CHECK(il_fs_write(path, out) == 0);
		free(out);
	}
	free(text);
}

static inline void write_file(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	CHECK(system(cmd) == 0);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

#endif
