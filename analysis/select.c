// SPDX-License-Identifier: GPL-2.0-only
/*
 * select.c - il_report_check(): a report's selection (--bench, --run and
 * the --compare sides) checked against the dataset before any table is
 * made, so a typo is a usage error that names the nearest known name
 * instead of an empty table with exit 0 (issue 20, defect 11).
 *
 * What is known: a benchmark is one this build registers or one the
 * dataset holds runs of; a parameter name one of those benchmarks' option
 * tables declares or a stored run's params hold; every other name (run,
 * metric, host, machine, campaign, source, attribute, fingerprint path)
 * is known when the dataset holds it.  Each kind is one row of known[]:
 * the SQL that lists its names.  A known name that selects nothing the
 * reports would show is not an error (a campaign not run yet, a run that
 * failed).
 */
#include "analysis.h"
#include "bench_registry.h"
#include "err.h"
#include "filter.h"
#include "opts.h"
#include "store.h"
#include "store_sqlite.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One kind of name a selection can hold, and the query of its names. */
struct known {
	const char *key;	/* the filter key, or its prefix ("params.") */
	const char *what;	/* in the message */
	const char *sql;	/* one known name per row */
	bool registry;		/* also this build's benchmarks (bench_registry.h) */
};

static const struct known known[] = {
	{ "bench", "benchmark", "SELECT DISTINCT bench FROM runs", true },
	{ "metric", "metric", "SELECT DISTINCT metric FROM summaries", false },
	{ "run", "run", "SELECT uuid FROM runs", false },
	{ "host", "host", "SELECT DISTINCT hostname FROM machines", false },
	{ "machine", "machine", "SELECT uuid FROM machines", false },
	{ "campaign", "campaign",
	  "SELECT DISTINCT campaign FROM runs WHERE campaign IS NOT NULL",
	  false },
	{ "source", "source",
	  "SELECT DISTINCT source FROM machines WHERE source IS NOT NULL",
	  false },
	{ "params.", "parameter",
	  "SELECT DISTINCT j.key FROM runs, json_each(CASE WHEN"
	  " json_valid(runs.params) THEN runs.params ELSE '{}' END) j", true },
	{ "attr.", "run attribute", "SELECT DISTINCT key FROM run_attrs",
	  false },
	{ "fp.", "fingerprint path",
	  "SELECT DISTINCT substr(j.fullkey, 3) FROM machines,"
	  " json_tree(CASE WHEN json_valid(machines.fingerprint) THEN"
	  " machines.fingerprint ELSE '{}' END) j WHERE j.fullkey <> '$'",
	  false },
};

static const struct known *known_kind(const char *key)
{
	size_t i, n;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		n = strlen(known[i].key);
		if (known[i].key[n - 1] == '.' ? !strncmp(key, known[i].key, n) :
		    !strcmp(key, known[i].key))
			return &known[i];
	}
	return NULL;
}

/* The nearest name so far, copied: a column's text lives one step only. */
struct near {
	struct il_suggester s;
	char best[256];
	bool found;
};

static void near_consider(struct near *n, const char *name)
{
	const char *prev = n->s.best;

	if (!name || n->found)
		return;
	if (!strcmp(name, n->s.key)) {
		n->found = true;
		return;
	}
	il_suggest_consider(&n->s, name);
	if (n->s.best != prev) {
		snprintf(n->best, sizeof(n->best), "%s", name);
		n->s.best = n->best;
	}
}

/* This build's names of kind @k: benchmarks, or their parameters. */
static void registry_names(const struct known *k, struct near *n)
{
	const struct il_opt *o;
	int i;

	for (i = 0; il_benches[i]; i++) {
		if (strcmp(k->key, "params."))
			near_consider(n, il_benches[i]->name);
		else
			for (o = il_benches[i]->opts; o && o->name; o++)
				near_consider(n, o->name);
	}
}

/*
 * @name checked as a name of kind @k.  Return: 0 when known, -EINVAL
 * with "@label: unknown WHAT 'name' (did you mean ...?)", or -EIO.
 */
static int check_name(sqlite3 *db, const struct known *k, const char *label,
		      const char *name)
{
	struct near n = { .found = false };
	sqlite3_stmt *st;
	int rc;

	il_suggest_init(&n.s, name);
	if (k->registry)
		registry_names(k, &n);
	if (sqlite3_prepare_v2(db, k->sql, -1, &st, NULL) != SQLITE_OK)
		return il_errorf(-EIO, "reading the known %ss: %s", k->what,
				 sqlite3_errmsg(db));
	while (!n.found && (rc = sqlite3_step(st)) == SQLITE_ROW)
		near_consider(&n, (const char *)sqlite3_column_text(st, 0));
	if (!n.found && rc != SQLITE_DONE) {
		rc = il_errorf(-EIO, "reading the known %ss: %s", k->what,
			       sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	if (n.found)
		return 0;
	if (n.s.best)
		return il_errorf(-EINVAL, "%s: unknown %s '%s' (did you mean '%s'?)",
				 label, k->what, name, n.s.best);
	return il_errorf(-EINVAL, "%s: unknown %s '%s'", label, k->what, name);
}

/* Every term of the side @f: its key's name, or its value as a name. */
static int check_side_names(sqlite3 *db, const struct il_filter *f,
		      const char *text)
{
	const struct known *k;
	const char *key, *val;
	char label[300];
	int i, ret;

	snprintf(label, sizeof(label), "--compare '%s'", text);
	for (i = 0; i < il_filter_nterms(f); i++) {
		il_filter_term(f, i, &key, &val);
		k = known_kind(key);
		if (!k)		/* reference: 0 or 1, checked when parsed */
			continue;
		ret = check_name(db, k, label, strchr(k->key, '.') ?
				 key + strlen(k->key) : val);
		if (ret)
			return ret;
	}
	return 0;
}

int il_report_check(struct il_store *s, const struct il_report_opts *ro,
		    const struct il_analysis_opts *ao)
{
	sqlite3 *db = il_store_db(s);
	int i, ret = 0;

	if (ro->bench)
		ret = check_name(db, known_kind("bench"), "--bench", ro->bench);
	if (!ret && ro->run_uuid)
		ret = check_name(db, known_kind("run"), "--run", ro->run_uuid);
	for (i = 0; !ret && i < ao->ncompare; i++)
		ret = check_side_names(db, ao->compare[i], ao->compare_text[i]);
	return ret;
}
