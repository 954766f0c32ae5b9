// SPDX-License-Identifier: GPL-2.0-only
/*
 * publish_package.c - a bundle's datapackage.json: a Frictionless Data
 * Package (https://specs.frictionlessdata.io/data-package/, v1) whose
 * resources are the tables' CSVs (publish_tables.c) and the SQLite file.
 *
 * The package profile is "data-package", not "tabular-data-package": the
 * SQLite file is a resource too, and a tabular package may hold only
 * tabular resources.  The tool that made the data is named in a property
 * of its own ("idlelab"), as the spec allows, so a reader learns the
 * version and commit without parsing prose.
 */
#include "analysis.h"
#include "err.h"
#include "outfile.h"
#include "publish_bundle.h"
#include "store.h"
#include "store_sqlite.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The distinct values of @sql's first column, as a JSON array. */
static json_t *distinct(sqlite3 *db, const char *sql)
{
	json_t *a = json_array();
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return a;
	while (sqlite3_step(st) == SQLITE_ROW)
		if (sqlite3_column_text(st, 0))
			json_array_append_new(a, json_string((const char *)sqlite3_column_text(st, 0)));
	sqlite3_finalize(st);
	return a;
}

int il_publish_package(struct il_store *bundle, const char *dir, json_t *tables)
{
	sqlite3 *db = il_store_db(bundle);
	struct il_outfile of = { NULL, NULL, NULL };
	char *path = NULL, *dbpath = NULL, hash[65], created[32];
	long long bytes;
	time_t now = time(NULL);
	struct tm tm;
	json_t *pkg, *res;
	int ret;

	if (asprintf(&dbpath, "%s/idlelab.db", dir) < 0 ||
	    asprintf(&path, "%s/datapackage.json", dir) < 0) {
		free(dbpath);
		return il_errorf(-ENOMEM, "out of memory");
	}
	ret = il_publish_file_sha256(dbpath, hash, &bytes);
	free(dbpath);
	if (ret) {
		free(path);
		return ret;
	}
	gmtime_r(&now, &tm);
	strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	res = json_deep_copy(tables);
	json_array_append_new(res, json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:s+}",
		"name", "idlelab-sqlite", "path", "idlelab.db",
		"profile", "data-resource", "format", "sqlite",
		"mediatype", "application/vnd.sqlite3",
		"description", "The same tables as one SQLite database (schema version in PRAGMA user_version), which `idlelab report --db` reads and `idlelab merge` merges into another dataset.",
		"bytes", (json_int_t)bytes, "hash", "sha256:", hash));
	pkg = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:{s:s, s:s, s:o, s:o}}",
		"profile", "data-package",
		"name", "idlelab-dataset",
		"title", "idlelab measurements",
		"description", "Idle-state exit, wake-up, IPI and timer latencies measured by idlelab: machines, runs, per-series summaries, histograms and counters. See README.md.",
		"created", created,
		"resources", res,
		"idlelab", "version", IL_VERSION, "commit", IL_GIT_REV,
		"versions_in_data", distinct(db, "SELECT DISTINCT tool_version FROM runs ORDER BY 1"),
		"commits_in_data", distinct(db, "SELECT DISTINCT git_rev FROM runs ORDER BY 1"));
	if (!pkg) {
		free(path);
		return il_errorf(-ENOMEM, "out of memory");
	}
	ret = il_outfile_open(&of, path);
	if (!ret) {
		json_dumpf(pkg, of.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', of.f);
		ret = il_outfile_commit(&of);
	}
	il_outfile_abort(&of);
	json_decref(pkg);
	free(path);
	return ret;
}
