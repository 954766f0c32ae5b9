// SPDX-License-Identifier: GPL-2.0-only
/*
 * publish_readme.c - a bundle's README.md: the page a person reads before
 * the data.  It says what was measured and where, by which idlelab and
 * from which campaign files (with the SHA-256 of each, as stored when the
 * campaign started), what redaction removed, and how to reproduce and
 * cite the figures.  Every fact is read from the bundle's own database,
 * so the README cannot describe runs the bundle does not hold.
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

/* One Markdown table cell: a '|' or a line break would end it. */
static void cell(FILE *out, const unsigned char *s)
{
	fputs("| ", out);
	for (; s && *s; s++)
		if (*s == '|')
			fputs("\\|", out);
		else
			fputc(*s == '\n' ? ' ' : *s, out);
	fputc(' ', out);
}

/* @sql's rows as a Markdown table under the header @cols ("a | b"). */
static int table(FILE *out, sqlite3 *db, const char *cols, const char *sql)
{
	sqlite3_stmt *st;
	int i, n, rows = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return il_errorf(-EIO, "README: %s", sqlite3_errmsg(db));
	n = sqlite3_column_count(st);
	fprintf(out, "| %s |\n|", cols);
	for (i = 0; i < n; i++)
		fputs("---|", out);
	fputc('\n', out);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (i = 0; i < n; i++)
			cell(out, sqlite3_column_text(st, i));
		fputs("|\n", out);
		rows++;
	}
	sqlite3_finalize(st);
	if (!rows)
		fputs("\n(none)\n", out);
	fputc('\n', out);
	return 0;
}

static long long scalar(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void redactions(FILE *out, const json_t *r)
{
	const json_t *m, *v;
	size_t i, j;

	fputs("## Redaction\n\n", out);
	if (!r) {
		fputs("**Not redacted** (`idlelab publish --no-redact`): hostnames, machine UUIDs, the whole kernel command line and every identifier the fingerprint and hwloc XML carry are as measured.\n\n", out);
		return;
	}
	fprintf(out, "Published with redaction (the default), key `%s` (a hash naming the key, not the key).  Hostnames are replaced by keyed pseudonyms (`host-` and 12 hex digits) and machine UUIDs by keyed pseudonyms in UUID form, in every table; the same lab key gives the same pseudonyms in every bundle, so bundles still merge and match machines.  Run UUIDs are random and kept.  The kernel command line keeps only the options that affect measurement.  `redactions.json` lists the same, by machine.\n\n",
		json_string_value(json_object_get(r, "key_id")));
	json_array_foreach(json_object_get(r, "machines"), i, m) {
		fprintf(out, "- machine `%s` (`%s`): replaced machine UUID and hostname",
			json_string_value(json_object_get(m, "uuid")),
			json_string_value(json_object_get(m, "hostname")));
		json_array_foreach(json_object_get(m, "removed"), j, v)
			fprintf(out, "%s%s", j ? "; " : "; removed ", json_string_value(v));
		fputs("\n", out);
	}
	if (json_integer_value(json_object_get(r, "reference_machines_kept")))
		fprintf(out, "- kept as published: %lld reference machines (figures from public sources, not measured)\n",
			(long long)json_integer_value(json_object_get(r, "reference_machines_kept")));
	v = json_object_get(json_object_get(r, "paths"), "removed");
	if (v)
		fprintf(out, "- removed %s\n", json_string_value(v));
	fputc('\n', out);
}

static int body(FILE *out, sqlite3 *db, const json_t *r, const char *dbhash)
{
	char date[32];
	time_t now = time(NULL);
	struct tm tm;
	long long runs = scalar(db, "SELECT count(*) FROM runs");
	long long machines = scalar(db, "SELECT count(*) FROM machines");

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d", &tm);
	fprintf(out, "# idlelab dataset\n\n%lld runs on %lld machines, published %s with `idlelab publish` (idlelab %s, commit %s).\n\n",
		runs, machines, date, IL_VERSION, IL_GIT_REV);
	fputs("idlelab measures what idle costs on x86 Linux: C-state exit and wake-up latencies, IPI delivery, timer and futex wakes, TSC gaps.  Each run stores per-series summaries (count, min, max, mean, percentiles from a mergeable histogram), the histograms, counters and the machine's fingerprint.\n\n", out);
	fputs("## What was measured\n\n", out);
	return table(out, db, "benchmark | runs | ok | metrics | first start (UTC) | last end (UTC)",
		     "SELECT r.bench, count(*), sum(r.status = 'ok'),"
		     " (SELECT group_concat(metric, ', ') FROM (SELECT DISTINCT s.metric FROM summaries s"
		     "  JOIN runs r2 ON r2.uuid = s.run_uuid WHERE r2.bench = r.bench ORDER BY 1)),"
		     " datetime(min(r.start_ns) / 1000000000, 'unixepoch'),"
		     " datetime(max(r.end_ns) / 1000000000, 'unixepoch')"
		     " FROM runs r GROUP BY r.bench ORDER BY r.bench") ?:
	       (fputs("## Machines\n\n", out), 0) ?:
	       table(out, db, "hostname | machine UUID | CPU | kernel | runs | reference",
		     "SELECT m.hostname, m.uuid, json_extract(m.fingerprint, '$.cpu.brand'),"
		     " json_extract(m.fingerprint, '$.kernel.release'),"
		     " (SELECT count(*) FROM runs r WHERE r.machine_uuid = m.uuid),"
		     " CASE m.is_reference WHEN 1 THEN 'published figures' ELSE 'measured' END"
		     " FROM machines m ORDER BY m.hostname, m.uuid") ?:
	       (fputs("## Software\n\n", out), 0) ?:
	       table(out, db, "idlelab version | commit | runs",
		     "SELECT tool_version, coalesce(git_rev, ''), count(*) FROM runs"
		     " GROUP BY 1, 2 ORDER BY 1, 2") ?:
	       (fputs("## Campaign files\n\nEach campaign's file as it was when the campaign started, named by its SHA-256 (runs of `idlelab bench` have no campaign).\n\n", out), 0) ?:
	       table(out, db, "campaign | file | SHA-256 | plan entries | scale | machine",
		     "SELECT name, file, file_sha256, nplan, scale, machine_uuid"
		     " FROM campaigns ORDER BY name, machine_uuid") ?:
	       (redactions(out, r), 0) ?:
	       (fprintf(out, "## Files\n\n"
			"- `idlelab.db`: every table, one SQLite file (SHA-256 `%s`).\n"
			"- `TABLE.csv`: one CSV per table (RFC 4180, a header row; an empty field is NULL; BLOBs in base64).\n"
			"- `datapackage.json`: a Frictionless Data Package describing each file: field types, primary and foreign keys, sizes and SHA-256 hashes.\n"
			"- `metadata.json`: the same descriptions and units for Datasette (`datasette idlelab.db -m metadata.json`).\n"
			"%s\n"
			"## Reproduce\n\n"
			"```sh\n"
			"idlelab report --db idlelab.db           # the results table\n"
			"idlelab merge mine.db idlelab.db         # add this dataset to yours\n"
			"idlelab run CAMPAIGN.yaml --db mine.db   # measure again: check the file's SHA-256 first\n"
			"```\n\n"
			"Merging is by UUID, so merging this bundle into a dataset that already holds it changes nothing.  `idlelab report --help` lists the other tables (states, compare, ipi, pairs).\n\n"
			"## Cite\n\n"
			"> idlelab dataset, %lld runs on %lld machines, published %s; idlelab %s (commit %s); idlelab.db SHA-256 %s.\n",
			dbhash, r ? "- `redactions.json`: what redaction replaced and removed, by machine.\n" : "",
			runs, machines, date, IL_VERSION, IL_GIT_REV, dbhash), 0);
}

int il_publish_readme(struct il_store *bundle, const char *dir,
		      const json_t *r)
{
	struct il_outfile of = { NULL, NULL, NULL };
	char *path = NULL, *dbpath = NULL, hash[65];
	long long bytes;
	int ret;

	if (asprintf(&dbpath, "%s/idlelab.db", dir) < 0 ||
	    asprintf(&path, "%s/README.md", dir) < 0) {
		free(dbpath);
		return il_errorf(-ENOMEM, "out of memory");
	}
	ret = il_publish_file_sha256(dbpath, hash, &bytes) ?:
	      il_outfile_open(&of, path);
	if (!ret)
		ret = body(of.f, il_store_db(bundle), r, hash) ?: il_outfile_commit(&of);
	il_outfile_abort(&of);
	free(dbpath);
	free(path);
	return ret;
}
