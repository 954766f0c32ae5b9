// SPDX-License-Identifier: GPL-2.0-only
/*
 * filter.c - the --compare side filter: "KEY=VALUE[,KEY=VALUE...]", every
 * term must hold.  Each term becomes one SQL condition with bound values
 * (never spliced into the SQL), so a filter can name any run parameter,
 * run attribute or fingerprint field without an injection path.
 */
#include "analysis.h"
#include "err.h"
#include "machine_label.h"
#include "filter.h"

#include <stdlib.h>
#include <string.h>

struct term {
	char *key;
	char *val;
};

struct il_filter {
	int n;
	struct term *t;
};

static const char *const plain_keys[][2] = {
	{ "host", "? IN (m.hostname, " IL_MACHINE_LABEL_M ")" },
	{ "machine", "m.uuid = ?" },
	{ "source", "m.source = ?" },
	{ "reference", "m.is_reference = CAST(? AS INTEGER)" },
	{ "bench", "r.bench = ?" },
	{ "metric", "s.metric = ?" },
	{ "campaign", "r.campaign = ?" },
	{ "run", "r.uuid = ?" },
};

static int known_key(const char *k)
{
	size_t i;

	for (i = 0; i < sizeof(plain_keys) / sizeof(plain_keys[0]); i++)
		if (!strcmp(k, plain_keys[i][0]))
			return 1;
	return (!strncmp(k, "params.", 7) && k[7]) ||
	       (!strncmp(k, "attr.", 5) && k[5]) ||
	       (!strncmp(k, "fp.", 3) && k[3]);
}

void il_filter_free(struct il_filter *f)
{
	int i;

	if (!f)
		return;
	for (i = 0; i < f->n; i++) {
		free(f->t[i].key);
		free(f->t[i].val);
	}
	free(f->t);
	free(f);
}

int il_filter_parse(const char *s, struct il_filter **out)
{
	struct il_filter *f = calloc(1, sizeof(*f));
	char *copy = strdup(s), *save = NULL, *tok;
	int ret = 0;

	*out = NULL;
	if (!f || !copy) {
		free(f);
		free(copy);
		return il_errorf(-ENOMEM, "out of memory");
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		struct term *t;

		if (!eq || eq == tok) {
			ret = il_errorf(-EINVAL, "filter '%s': term '%s' is not KEY=VALUE", s, tok);
			break;
		}
		*eq = '\0';
		if (!known_key(tok)) {
			ret = il_errorf(-EINVAL, "filter '%s': unknown key '%s' (host, machine, source, reference, bench, metric, campaign, run, params.NAME, attr.NAME, fp.PATH)",
					s, tok);
			break;
		}
		/* Anything else would CAST to 0 and select the measured. */
		if (!strcmp(tok, "reference") && strcmp(eq + 1, "0") &&
		    strcmp(eq + 1, "1")) {
			ret = il_errorf(-EINVAL, "filter '%s': reference=%s: use 0 or 1",
					s, eq + 1);
			break;
		}
		t = realloc(f->t, (f->n + 1) * sizeof(*t));
		if (!t) {
			ret = il_errorf(-ENOMEM, "out of memory");
			break;
		}
		f->t = t;
		f->t[f->n].key = strdup(tok);
		f->t[f->n].val = strdup(eq + 1);
		f->n++;
	}
	if (!ret && !f->n)
		ret = il_errorf(-EINVAL, "empty filter");
	free(copy);
	if (ret) {
		il_filter_free(f);
		return ret;
	}
	*out = f;
	return 0;
}

int il_filter_sql(const struct il_filter *f, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; f && i < f->n; i++) {
		const char *k = f->t[i].key, *cond = NULL;
		size_t j;

		for (j = 0; j < sizeof(plain_keys) / sizeof(plain_keys[0]); j++)
			if (!strcmp(k, plain_keys[j][0]))
				cond = plain_keys[j][1];
		if (!cond && !strncmp(k, "params.", 7))
			cond = "CAST(json_extract(r.params, ?) AS TEXT) = ?";
		else if (!cond && !strncmp(k, "attr.", 5))
			cond = "EXISTS (SELECT 1 FROM run_attrs fa WHERE fa.run_uuid = r.uuid AND fa.key = ? AND fa.value = ?)";
		else if (!cond)
			cond = "CAST(json_extract(m.fingerprint, ?) AS TEXT) = ?";
		used += snprintf(buf + used, used < len ? len - used : 0,
				 " AND %s", cond);
	}
	return used < len ? 0 : il_errorf(-E2BIG, "filter too long");
}

int il_filter_bind(const struct il_filter *f, sqlite3_stmt *st, int idx)
{
	char path[300];
	int i;

	for (i = 0; f && i < f->n; i++) {
		const char *k = f->t[i].key;

		if (!strncmp(k, "params.", 7) || !strncmp(k, "fp.", 3)) {
			snprintf(path, sizeof(path), "$.%s", strchr(k, '.') + 1);
			sqlite3_bind_text(st, idx++, path, -1, SQLITE_TRANSIENT);
		} else if (!strncmp(k, "attr.", 5)) {
			sqlite3_bind_text(st, idx++, k + 5, -1, SQLITE_STATIC);
		}
		sqlite3_bind_text(st, idx++, f->t[i].val, -1, SQLITE_STATIC);
	}
	return idx;
}

int il_filter_nterms(const struct il_filter *f)
{
	return f ? f->n : 0;
}

void il_filter_term(const struct il_filter *f, int i, const char **key,
		    const char **val)
{
	*key = f->t[i].key;
	*val = f->t[i].val;
}

int il_filter_prepare(sqlite3 *db, char *sql, const char *bench,
		      const struct il_filter *f, sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);

	free(sql);
	if (rc != SQLITE_OK)
		return il_errorf(-EIO, "report query failed: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(*st, 1, bench, -1, SQLITE_STATIC);
	sqlite3_bind_text(*st, 2, bench, -1, SQLITE_STATIC);
	il_filter_bind(f, *st, 3);
	return 0;
}
