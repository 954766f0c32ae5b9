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
 * failed); the caller is told, to say so on stderr.
 */
#include "analysis.h"
#include "bench_registry.h"
#include "err.h"
#include "machine_label.h"
#include "filter.h"
#include "opts.h"
#include "store.h"
#include "store_sqlite.h"
#include "grow.h"

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
	{ "host", "host", "SELECT DISTINCT hostname FROM machines UNION"
	  " SELECT " IL_MACHINE_LABEL_M " FROM machines m", false },
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

/* The sorted UUIDs of the ok runs the reports take from side @f. */
struct uuids {
	int n, cap;
	char (*v)[37];
};

static int side_runs(sqlite3 *db, const char *bench, const struct il_filter *f,
		     struct uuids *out)
{
	static const char head[] =
		"SELECT DISTINCT r.uuid FROM summaries s"
		" JOIN runs r ON r.uuid = s.run_uuid"
		" JOIN machines m ON m.uuid = r.machine_uuid"
		" WHERE r.status = 'ok' AND (? IS NULL OR r.bench = ?)";
	char cond[4096], *sql;
	sqlite3_stmt *st;
	int rc, ret;

	ret = il_filter_sql(f, cond, sizeof(cond));
	if (ret)
		return ret;
	if (asprintf(&sql, "%s%s ORDER BY r.uuid", head, cond) < 0)
		return il_errorf(-ENOMEM, "out of memory");
	ret = il_filter_prepare(db, sql, bench, f, &st);
	if (ret)
		return ret;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (IL_GROW(out->v, out->cap, (size_t)out->n + 1, 64)) {
			sqlite3_finalize(st);
			return il_errorf(-ENOMEM, "out of memory");
		}
		snprintf(out->v[out->n++], 37, "%s",
			 (const char *)sqlite3_column_text(st, 0));
	}
	ret = rc == SQLITE_DONE ? 0 :
	      il_errorf(-EIO, "report query failed: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return ret;
}

/* How many UUIDs two sorted lists share; the first of them into @first. */
static int shared(const struct uuids *a, const struct uuids *b,
		  const char **first)
{
	int i = 0, j = 0, n = 0, c;

	*first = NULL;
	while (i < a->n && j < b->n) {
		c = strcmp(a->v[i], b->v[j]);
		if (!c) {
			if (!n++)
				*first = a->v[i];
			i++;
			j++;
		} else if (c < 0) {
			i++;
		} else {
			j++;
		}
	}
	return n;
}

/*
 * How many of @u's runs a campaign planned in sequential order (the run
 * attribute plan_order, harness/campaign_order.c), or -EIO.
 */
static int sequential_runs(sqlite3 *db, const struct uuids *u)
{
	sqlite3_stmt *st;
	int i, rc = SQLITE_DONE, n = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM run_attrs WHERE run_uuid = ?1"
			       " AND key = 'plan_order' AND value = 'sequential' LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return il_errorf(-EIO, "report query failed: %s", sqlite3_errmsg(db));
	for (i = 0; i < u->n; i++) {
		sqlite3_bind_text(st, 1, u->v[i], -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			break;
		n += rc == SQLITE_ROW;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return il_errorf(-EIO, "report query failed: %s", sqlite3_errmsg(db));
	return n;
}

/*
 * No run on two sides; a side with no run, and a side whose runs were
 * planned sequentially (a slow drift of the machine then reads as a
 * difference between the sides: issue 22), are reported through @notice.
 */
static int check_sides(sqlite3 *db, const struct il_analysis_opts *ao,
			 il_report_notice_fn notice, void *arg)
{
	struct uuids u[8] = { { 0, 0, NULL } };
	const char *first;
	char msg[400];
	int i, j, n, ret = 0;

	if (ao->ncompare > (int)(sizeof(u) / sizeof(u[0])))
		return il_errorf(-EINVAL, "--compare: at most %d sides",
				 (int)(sizeof(u) / sizeof(u[0])));
	for (i = 0; !ret && i < ao->ncompare; i++) {
		ret = side_runs(db, ao->bench, ao->compare[i], &u[i]);
		if (!ret && !u[i].n && notice) {
			snprintf(msg, sizeof(msg), "--compare '%s' matches no run with status ok%s%s",
				 ao->compare_text[i], ao->bench ? " of --bench " : "",
				 ao->bench ? ao->bench : "");
			notice(msg, arg);
		}
		n = ret || !u[i].n || !notice ? 0 : sequential_runs(db, &u[i]);
		if (n < 0)
			ret = n;
		else if (n) {
			snprintf(msg, sizeof(msg), "warning: --compare '%s': %d of its %d runs were planned in sequential order, so a drift of the machine over time reads as a difference between the sides; plan A/B campaigns with order: blocks (the default)",
				 ao->compare_text[i], n, u[i].n);
			notice(msg, arg);
		}
	}
	for (i = 0; !ret && i < ao->ncompare; i++)
		for (j = i + 1; !ret && j < ao->ncompare; j++) {
			n = shared(&u[i], &u[j], &first);
			if (n)
				ret = il_errorf(-EINVAL, "--compare '%s' and --compare '%s' both select run %s (%d in all): a run can be on one side only; make the filters disjoint",
						ao->compare_text[i],
						ao->compare_text[j], first, n);
		}
	for (i = 0; i < ao->ncompare; i++)
		free(u[i].v);
	return ret;
}

/* 1 if the dataset holds a run of @bench, 0 if not, or -EIO. */
static int has_runs_of(sqlite3 *db, const char *bench)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM runs WHERE bench = ?1 LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return il_errorf(-EIO, "report query failed: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, bench, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return il_errorf(-EIO, "report query failed: %s", sqlite3_errmsg(db));
	return rc == SQLITE_ROW;
}

int il_report_check(struct il_store *s, const struct il_report_opts *ro,
		    const struct il_analysis_opts *ao,
		    il_report_notice_fn notice, void *arg)
{
	sqlite3 *db = il_store_db(s);
	char msg[300];
	int i, ret = 0;

	if (ro->bench)
		ret = check_name(db, known_kind("bench"), "--bench", ro->bench);
	if (!ret && ro->run_uuid)
		ret = check_name(db, known_kind("run"), "--run", ro->run_uuid);
	for (i = 0; !ret && i < ao->ncompare; i++)
		ret = check_side_names(db, ao->compare[i], ao->compare_text[i]);
	if (!ret && ro->bench) {
		ret = has_runs_of(db, ro->bench);
		if (ret == 0 && notice) {
			snprintf(msg, sizeof(msg), "--bench '%s': the dataset holds no run of it",
				 ro->bench);
			notice(msg, arg);
		}
		ret = ret < 0 ? ret : 0;
	}
	if (!ret && ao->ncompare)
		ret = check_sides(db, ao, notice, arg);
	return ret;
}
