// SPDX-License-Identifier: GPL-2.0-only
/*
 * publish_metadata.c - a bundle's metadata.json, for Datasette, which
 * serves an SQLite file as it is (`datasette idlelab.db -m metadata.json`).
 *
 * Datasette's metadata names the database by its file's stem ("idlelab")
 * and holds, per table, a description, a description per column
 * ("columns") and the columns' units ("units", in Pint's spelling, which
 * "ns", "kHz" and "KiB" are).  Everything here is read back from the
 * Table Schemas of datapackage.json (publish_tables.c): the two files
 * describe the same tables with the same words.
 */
#include "analysis.h"
#include "err.h"
#include "outfile.h"
#include "publish_bundle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* One table's Datasette entry from its tabular data resource @res. */
static json_t *table_entry(const json_t *res)
{
	json_t *t = json_object(), *cols = json_object(), *units = json_object();
	const json_t *fields = json_object_get(json_object_get(res, "schema"), "fields");
	const json_t *f, *d = json_object_get(res, "description");
	size_t i;

	json_object_set_new(t, "title", json_copy(json_object_get(res, "name")));
	if (d)
		json_object_set_new(t, "description", json_copy((json_t *)d));
	json_array_foreach(fields, i, f) {
		const char *name = json_string_value(json_object_get(f, "name"));
		const json_t *fd = json_object_get(f, "description");
		const json_t *u = json_object_get(f, "unit");

		if (!name)
			continue;
		if (fd)
			json_object_set_new(cols, name, json_copy((json_t *)fd));
		if (u)
			json_object_set_new(units, name, json_copy((json_t *)u));
	}
	json_object_set_new(t, "columns", cols);
	json_object_set_new(t, "units", units);
	return t;
}

int il_publish_metadata(const char *dir, const json_t *tables)
{
	struct il_outfile of = { NULL, NULL, NULL };
	json_t *meta, *tabs = json_object();
	const json_t *res;
	char *path = NULL;
	size_t i;
	int ret;

	json_array_foreach(tables, i, res) {
		const char *name = json_string_value(json_object_get(res, "name"));

		if (name)
			json_object_set_new(tabs, name, table_entry(res));
	}
	meta = json_pack("{s:s, s:s, s:s+, s:{s:{s:s, s:o}}}",
		"title", "idlelab measurements",
		"description", "Idle-state exit, wake-up, IPI and timer latencies measured by idlelab. README.md says which machines, campaigns and idlelab produced them; datapackage.json describes the same tables for other tools.",
		"source", "idlelab ", IL_VERSION,
		"databases", "idlelab",
		"description", "The bundle's idlelab.db. Times are in ns unless a row's unit column says otherwise: summaries, counters and cause_states hold values in the unit of their row.",
		"tables", tabs);
	if (!meta || asprintf(&path, "%s/metadata.json", dir) < 0) {
		json_decref(meta);
		return il_errorf(-ENOMEM, "out of memory");
	}
	ret = il_outfile_open(&of, path);
	if (!ret) {
		json_dumpf(meta, of.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', of.f);
		ret = il_outfile_commit(&of);
	}
	il_outfile_abort(&of);
	json_decref(meta);
	free(path);
	return ret;
}
