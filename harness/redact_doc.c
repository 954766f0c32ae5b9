// SPDX-License-Identifier: GPL-2.0-only
/*
 * redact_doc.c - redact.h's walks over the two documents a machine row
 * carries: the fingerprint (JSON, env_fingerprint.c) and hwloc's XML
 * export of the topology.
 *
 * Identifiers are found by the name of what holds them, not by their
 * value: a field or hwloc info whose name says serial, UUID or asset tag
 * goes, wherever in the document it sits, so a DMI section added to the
 * fingerprint later, or a disk's serial number in hwloc's I/O objects, is
 * covered without a new rule.  hwloc writes one <info name=".." value=".."/>
 * element per line; the walk removes such elements whole and rewrites
 * nothing else of the XML.
 */
#include "redact.h"
#include "err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Names, matched without case anywhere in a field's or an info's name. */
static const char *const private_parts[] = { "serial", "asset", "uuid" };
/* hwloc info names that are identifiers without saying so: a network
 * interface's MAC address, a disk's World Wide Name. */
static const char *const private_infos[] = { "Address", "WWN" };

static int name_is_private(const char *name, size_t n)
{
	char buf[256];
	size_t i;

	snprintf(buf, sizeof(buf), "%.*s", (int)n, name);
	for (i = 0; i < sizeof(private_parts) / sizeof(private_parts[0]); i++)
		if (strcasestr(buf, private_parts[i]))
			return 1;
	return 0;
}

static void note(json_t *removed, const char *prefix, const char *name)
{
	if (removed)
		json_array_append_new(removed, json_pack("s+", prefix, name));
}

/* Remove the private members under @v, recursively; @path names @v. */
static void walk(json_t *v, const char *path, json_t *removed)
{
	const char *k;
	json_t *m;
	void *tmp;
	size_t i;
	char sub[512];

	if (json_is_array(v)) {
		json_array_foreach(v, i, m) {
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			walk(m, sub, removed);
		}
		return;
	}
	if (!json_is_object(v))
		return;
	json_object_foreach_safe(v, tmp, k, m) {
		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", k);
		if (name_is_private(k, strlen(k))) {
			note(removed, "fingerprint: ", sub);
			json_object_del(v, k);
		} else {
			walk(m, sub, removed);
		}
	}
}

int il_redact_fingerprint(const char *in, const char *host_pseudo,
			  json_t *removed, char **out)
{
	static const char *const host_keys[] = { "hostname", "uts_hostname" };
	json_t *fp = json_loads(in, 0, NULL), *kernel, *cmd;
	json_t *dropped = json_array();
	size_t i;
	char *kept;

	if (!fp || !dropped) {
		json_decref(fp);
		json_decref(dropped);
		return il_errorf(-EINVAL, "a machine's fingerprint is not JSON");
	}
	for (i = 0; i < sizeof(host_keys) / sizeof(host_keys[0]); i++)
		if (json_object_get(fp, host_keys[i]))
			json_object_set_new(fp, host_keys[i], json_string(host_pseudo));
	kernel = json_object_get(fp, "kernel");
	cmd = json_object_get(kernel, "cmdline");
	if (json_is_string(cmd)) {
		kept = il_redact_cmdline(json_string_value(cmd), dropped);
		if (!kept) {
			json_decref(fp);
			json_decref(dropped);
			return il_errorf(-ENOMEM, "out of memory");
		}
		json_object_set_new(kernel, "cmdline", json_string(kept));
		free(kept);
	}
	json_array_foreach(dropped, i, cmd)
		note(removed, "kernel command line: ", json_string_value(cmd));
	json_decref(dropped);
	walk(fp, "", removed);
	*out = json_dumps(fp, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(fp);
	return *out ? 0 : il_errorf(-ENOMEM, "out of memory");
}

/* The value of attribute @attr inside the element [@s, @e): its start
 * and length, or NULL. */
static const char *attr(const char *s, const char *e, const char *attr,
			size_t *len)
{
	size_t n = strlen(attr);
	const char *p, *q;

	for (p = s; (p = strstr(p, attr)) && p < e; p += n) {
		if (p[n] != '=' || p[n + 1] != '"' || (p > s && p[-1] != ' '))
			continue;
		p += n + 2;
		q = memchr(p, '"', (size_t)(e - p));
		if (!q)
			return NULL;
		*len = (size_t)(q - p);
		return p;
	}
	return NULL;
}

static int info_is_private(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(private_infos) / sizeof(private_infos[0]); i++)
		if (strlen(private_infos[i]) == n && !strncmp(name, private_infos[i], n))
			return 1;
	return name_is_private(name, n);
}

int il_redact_hwloc_xml(const char *in, const char *host_pseudo,
			json_t *removed, char **out)
{
	/* The pseudonym is never longer than what it replaces by more than
	 * its own length, once per element. */
	size_t cap = strlen(in) + 1, used = 0, nlen, vlen;
	const char *s = in, *el, *end, *name, *val;
	char *o = malloc(cap), *no;
	char nbuf[256];

	if (!o)
		return il_errorf(-ENOMEM, "out of memory");
	while ((el = strstr(s, "<info "))) {
		end = strstr(el, "/>");
		if (!end)
			break;
		end += 2;
		name = attr(el, end, "name", &nlen);
		val = attr(el, end, "value", &vlen);
		if (!name || !val) {
			memcpy(o + used, s, (size_t)(end - s));
			used += (size_t)(end - s);
		} else if (info_is_private(name, nlen)) {
			const char *ls = el;

			/* The element goes with its indentation and line. */
			while (ls > s && (ls[-1] == ' ' || ls[-1] == '\t'))
				ls--;
			memcpy(o + used, s, (size_t)(ls - s));
			used += (size_t)(ls - s);
			if (*end == '\n' && (ls == in || ls[-1] == '\n'))
				end++;
			snprintf(nbuf, sizeof(nbuf), "%.*s", (int)nlen, name);
			note(removed, "hwloc XML: info ", nbuf);
		} else if (nlen == 8 && !strncmp(name, "HostName", 8)) {
			size_t plen = strlen(host_pseudo);

			cap += plen;
			no = realloc(o, cap);
			if (!no) {
				free(o);
				return il_errorf(-ENOMEM, "out of memory");
			}
			o = no;
			memcpy(o + used, s, (size_t)(val - s));
			used += (size_t)(val - s);
			memcpy(o + used, host_pseudo, plen);
			used += plen;
			memcpy(o + used, val + vlen, (size_t)(end - val - vlen));
			used += (size_t)(end - val - vlen);
		} else {
			memcpy(o + used, s, (size_t)(end - s));
			used += (size_t)(end - s);
		}
		s = end;
	}
	strcpy(o + used, s);
	*out = o;
	return 0;
}
