// SPDX-License-Identifier: GPL-2.0-only
/*
 * counters_events.c - event lists and what they name.  A list is split at
 * commas (but not inside "pmu/term=v,.../"), and each name is resolved to
 * a perf_event_attr before anything is opened: a kernel sysfs name through
 * /sys/bus/event_source/devices/<pmu>/{type,events,format}, any other
 * through libpfm4.  See counters.c's design notes for why both.
 */
#include "counters.h"
#include "err.h"
#include "counters_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- event lists ----------------------------------------------------- */

/*
 * Split @list at commas, except inside a sysfs "pmu/.../" name, whose terms
 * are comma-separated too.  Tokens are trimmed; an empty one is an error.
 */
int cnt_split_events(const char *list, char ***out, int *nout)
{
	char **v = NULL, *tok;
	const char *s = list;
	int n = 0, ret = 0;

	for (;;) {
		const char *b = s, *e;
		int slashes = 0;
		char **nv;

		while (*s && !(*s == ',' && !(slashes & 1)))
			slashes += *s++ == '/';
		for (e = s; e > b && isspace((unsigned char)e[-1]); e--)
			;
		while (b < e && isspace((unsigned char)*b))
			b++;
		if (b == e) {
			ret = il_errorf(-EINVAL, "empty event name in list '%s'",
					list);
			break;
		}
		if ((size_t)(e - b) >= sizeof(((struct rev *)0)->name)) {
			ret = il_errorf(-EINVAL, "event name too long: '%.*s'",
					(int)(e - b), b);
			break;
		}
		tok = strndup(b, (size_t)(e - b));
		nv = tok ? realloc(v, (size_t)(n + 1) * sizeof(*v)) : NULL;
		if (!nv) {
			free(tok);
			ret = il_errorf(-ENOMEM, "out of memory");
			break;
		}
		v = nv;
		v[n++] = tok;
		if (!*s)
			break;
		s++;
	}
	if (ret) {
		while (n--)
			free(v[n]);
		free(v);
		return ret;
	}
	*out = v;
	*nout = n;
	return 0;
}

void cnt_free_tokens(char **v, int n)
{
	while (n-- > 0)
		free(v[n]);
	free(v);
}

int cnt_event_tokens(const char *events, const char *const *defs, int ndefs,
		     char ***out, int *nout)
{
	char **tok;
	int i;

	if (events)
		return cnt_split_events(events, out, nout);
	tok = calloc((size_t)ndefs, sizeof(*tok));
	for (i = 0; tok && i < ndefs; i++)
		if (!(tok[i] = strdup(defs[i])))
			break;
	if (!tok || i < ndefs) {
		cnt_free_tokens(tok, tok ? i : 0);
		return il_errorf(-ENOMEM, "out of memory");
	}
	*out = tok;
	*nout = ndefs;
	return 0;
}

static struct rev *add_rev(struct rev **v, int *n, const char *name)
{
	struct rev *nv = realloc(*v, (size_t)(*n + 1) * sizeof(**v));

	if (!nv)
		return NULL;
	*v = nv;
	nv = &nv[(*n)++];
	memset(nv, 0, sizeof(*nv));
	setf(nv->name, sizeof(nv->name), "%s", name);
	nv->scale = 1.0;
	setf(nv->unit, sizeof(nv->unit), "count");
	nv->st = IL_CNT_OK;
	return nv;
}

/* ---- sysfs "pmu/event/" names ----------------------------------------- */

static bool valid_name(const char *s, bool glob)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s) &&
		    !(glob && strchr("*?", *s)))
			return false;
	return true;
}

/*
 * Apply "term=value" through the PMU's format file ("config:0-7,32-35"):
 * the value's bits go, lowest first, into the listed bit ranges.
 */
static int apply_term(const char *pmu, const char *term, uint64_t val,
		      struct perf_event_attr *a, char *why, size_t wlen)
{
	char p[512], fmt[128], *s, *end;
	uint64_t *field;

	if (!strcmp(term, "config") || !strcmp(term, "config1") ||
	    !strcmp(term, "config2")) {
		field = term[6] == '1' ? &a->config1 :
			term[6] == '2' ? &a->config2 : &a->config;
		*field |= val;
		return 0;
	}
	snprintf(p, sizeof(p), PMU_DIR "/%s/format/%s", pmu, term);
	if (!valid_name(term, false) || fs_line(p, fmt, sizeof(fmt))) {
		setf(why, wlen, "the '%s' event source has no format term '%s'",
		     pmu, term);
		return -EINVAL;
	}
	s = strchr(fmt, ':');
	if (!s)
		goto bad;
	*s++ = '\0';
	if (!strcmp(fmt, "config"))
		field = &a->config;
	else if (!strcmp(fmt, "config1"))
		field = &a->config1;
	else if (!strcmp(fmt, "config2"))
		field = &a->config2;
	else
		goto bad;
	while (*s) {
		unsigned long lo = strtoul(s, &end, 10), hi = lo;

		if (end == s)
			goto bad;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (hi > 63 || hi < lo)
			goto bad;
		for (; lo <= hi; lo++, val >>= 1)
			*field |= (val & 1) << lo;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			goto bad;
	}
	if (val) {
		setf(why, wlen, "value too wide for term '%s' of '%s'", term,
		     pmu);
		return -ERANGE;
	}
	return 0;
bad:
	setf(why, wlen, "cannot parse format of term '%s' of '%s'", term, pmu);
	return -EINVAL;
}

/* "event=0x02,umask=0x1" (sysfs or user-written) into @a. */
static int apply_terms(const char *pmu, const char *terms,
		       struct perf_event_attr *a, char *why, size_t wlen)
{
	char *dup = strdup(terms), *save = NULL, *t;
	int ret = 0;

	if (!dup)
		return -ENOMEM;
	for (t = strtok_r(dup, ",", &save); t && !ret;
	     t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '='), *end;
		uint64_t val = 1;	/* a bare term is a flag, as in perf */

		while (isspace((unsigned char)*t))
			t++;
		if (eq) {
			*eq = '\0';
			errno = 0;
			val = strtoull(eq + 1, &end, 0);
			if (errno || end == eq + 1 || *end) {
				setf(why, wlen, "bad value for term '%s'", t);
				ret = -EINVAL;
				break;
			}
		}
		ret = apply_term(pmu, t, val, a, why, wlen);
	}
	free(dup);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The event source's type and scope. */
static int sysfs_source(struct rev *r, const char *pmu)
{
	char p[512];
	uint64_t type;

	setf(r->pmu, sizeof(r->pmu), "%s", pmu);
	snprintf(p, sizeof(p), PMU_DIR "/%s/cpumask", pmu);
	r->pkg_scope = il_fs_exists(p);
	snprintf(p, sizeof(p), PMU_DIR "/%s/type", pmu);
	if (il_fs_read_u64(p, &type)) {
		r->st = IL_CNT_UNSUPPORTED;
		setf(r->why, sizeof(r->why), "cannot read the type of '%s'",
		     pmu);
		return -EINVAL;
	}
	r->attr.type = (uint32_t)type;
	return 0;
}

/* Resolve one sysfs event @ev of @pmu (a file in events/) into @r. */
static void sysfs_event(struct rev *r, const char *pmu, const char *ev)
{
	char p[512], fp[4096], enc[256], buf[64];

	if (sysfs_source(r, pmu))
		return;
	snprintf(p, sizeof(p), PMU_DIR "/%s/events/%s", pmu, ev);
	if (fs_line(p, enc, sizeof(enc))) {
		r->st = IL_CNT_UNSUPPORTED;
		setf(r->why, sizeof(r->why), "cannot read %s",
		     il_fs_path(p, fp, sizeof(fp)));
		return;
	}
	if (apply_terms(pmu, enc, &r->attr, r->why, sizeof(r->why))) {
		r->st = IL_CNT_UNSUPPORTED;
		return;
	}
	snprintf(p, sizeof(p), PMU_DIR "/%s/events/%s.unit", pmu, ev);
	if (!fs_line(p, buf, sizeof(buf)))
		setf(r->unit, sizeof(r->unit), "%s", buf);
	snprintf(p, sizeof(p), PMU_DIR "/%s/events/%s.scale", pmu, ev);
	if (!fs_line(p, buf, sizeof(buf))) {
		double s = strtod(buf, NULL);

		if (s > 0)
			r->scale = s;
	}
}

/*
 * The events of @pmu whose names match @glob, sorted (the sorted order
 * keeps runs comparable), into *@out and *@nout, which the caller frees
 * with cnt_free_tokens() whatever this returns.  An event source without
 * an events directory has none.  Return: 0, or -ENOMEM.
 */
static int matching_events(const char *pmu, const char *glob, char ***out,
			   int *nout)
{
	char p[512], fp[4096];
	char **names = NULL;
	int nn = 0, ret = 0;
	struct dirent *de;
	DIR *d;

	snprintf(p, sizeof(p), PMU_DIR "/%s/events", pmu);
	d = opendir(il_fs_path(p, fp, sizeof(fp)));
	while (d && (de = readdir(d))) {
		char **nv;

		if (de->d_name[0] == '.' || strchr(de->d_name, '.') ||
		    fnmatch(glob, de->d_name, 0))
			continue;
		nv = realloc(names, (size_t)(nn + 1) * sizeof(*names));
		if (!nv || !(nv[nn] = strdup(de->d_name))) {
			names = nv ? nv : names;
			ret = il_errorf(-ENOMEM, "out of memory");
			break;
		}
		names = nv;
		nn++;
	}
	if (d)
		closedir(d);
	if (!ret && nn)
		qsort(names, (size_t)nn, sizeof(*names), cmp_str);
	*out = names;
	*nout = nn;
	return ret;
}

/*
 * A "pmu/event/", "pmu/<glob>/" or "pmu/term=v,.../" name.  Returns -EINVAL
 * only for a name that cannot mean anything; an absent source or event is
 * an UNAVAILABLE result.
 */
int cnt_resolve_sysfs(const char *name, struct rev **v, int *n)
{
	char pmu[64], body[96], p[512], why[160] = "";
	const char *slash = strchr(name, '/');
	size_t len = strlen(name), plen = (size_t)(slash - name);
	struct rev *r;
	char **names = NULL;
	int nn = 0, i, ret = 0;

	if (plen == 0 || plen >= sizeof(pmu) || len < plen + 3 ||
	    name[len - 1] != '/')
		return il_errorf(-EINVAL,
				 "malformed event '%s' (expected pmu/event/)",
				 name);
	memcpy(pmu, name, plen);
	pmu[plen] = '\0';
	setf(body, sizeof(body), "%.*s", (int)(len - plen - 2), slash + 1);
	if (!valid_name(pmu, false) || strchr(body, '/') ||
	    (!strchr(body, '=') && !valid_name(body, true)))
		return il_errorf(-EINVAL,
				 "malformed event '%s' (expected pmu/event/)",
				 name);

	snprintf(p, sizeof(p), PMU_DIR "/%s", pmu);
	if (!il_fs_exists(p)) {
		r = add_rev(v, n, name);
		if (!r)
			return il_errorf(-ENOMEM, "out of memory");
		r->st = IL_CNT_UNAVAILABLE;
		setf(r->why, sizeof(r->why),
		     "no PMU: the '%s' event source is absent", pmu);
		return 0;
	}

	if (strchr(body, '=')) {
		r = add_rev(v, n, name);
		if (!r)
			return il_errorf(-ENOMEM, "out of memory");
		if (sysfs_source(r, pmu))
			return 0;
		if (apply_terms(pmu, body, &r->attr, why, sizeof(why))) {
			(*n)--;
			return il_errorf(-EINVAL, "unknown event '%s' (%s)",
					 name, why);
		}
		return 0;
	}

	ret = matching_events(pmu, body, &names, &nn);
	if (!ret && nn == 0) {
		r = add_rev(v, n, name);
		if (!r) {
			ret = il_errorf(-ENOMEM, "out of memory");
		} else {
			r->st = IL_CNT_UNAVAILABLE;
			setf(r->why, sizeof(r->why),
			     "the '%s' event source has no '%s' event here",
			     pmu, body);
		}
	}
	for (i = 0; !ret && i < nn; i++) {
		char full[96];

		setf(full, sizeof(full), "%s/%s/", pmu, names[i]);
		r = add_rev(v, n, full);
		if (!r)
			ret = il_errorf(-ENOMEM, "out of memory");
		else
			sysfs_event(r, pmu, names[i]);
	}
	cnt_free_tokens(names, nn);
	return ret;
}

/* ---- libpfm4 names --------------------------------------------------- */

/* Called with cnt_lock held and pfm_initialize() done. */
int cnt_resolve_pfm(const char *name, bool dfl, struct rev **v, int *n)
{
	pfm_perf_encode_arg_t arg;
	struct perf_event_attr attr;
	struct rev *r;
	int ret;

	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
					PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS && !dfl) {
		if (ret == PFM_ERR_NOTFOUND)
			return il_errorf(-EINVAL,
					 "unknown event '%s' (libpfm4: %s)",
					 name, pfm_strerror(ret));
		return il_errorf(-EINVAL, "invalid event '%s' (libpfm4: %s)",
				 name, pfm_strerror(ret));
	}
	r = add_rev(v, n, name);
	if (!r)
		return il_errorf(-ENOMEM, "out of memory");
	if (ret != PFM_SUCCESS) {
		r->st = IL_CNT_UNSUPPORTED;
		setf(r->why, sizeof(r->why), "libpfm4 cannot encode it: %s",
		     pfm_strerror(ret));
		return 0;
	}
	r->attr = attr;
	return 0;
}
