// SPDX-License-Identifier: GPL-2.0-only
/*
 * publish_tables.c - one CSV per table of a bundle's database, each with
 * the Frictionless Table Schema that describes it (publish_bundle.h).
 *
 * The schema is read from the database itself (pragma_table_info and
 * pragma_foreign_key_list), not from a second list kept here, so a
 * migration that adds a table or a column is published and described
 * without a change to this file.  Descriptions come from the schema's own
 * comments: a column's from the "--" comment on its line of the CREATE
 * TABLE text (SQLite keeps that text in sqlite_master), a table's from the
 * comment lines just above its CREATE TABLE in the migration that made it
 * (schemas/NNN_*.sql, compiled in).
 */
#include "analysis.h"
#include "csv.h"
#include "err.h"
#include "outfile.h"
#include "publish_bundle.h"
#include "schemas.h"
#include "store.h"
#include "store_sqlite.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <nettle/base64.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int il_publish_file_sha256(const char *path, char out[65], long long *bytes)
{
	uint8_t buf[65536], d[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;
	FILE *f = fopen(path, "rb");
	size_t n;
	int i;

	if (!f)
		return il_errorf(-errno, "%s: %s", path, strerror(errno));
	sha256_init(&ctx);
	*bytes = 0;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		sha256_update(&ctx, n, buf);
		*bytes += (long long)n;
	}
	i = ferror(f);
	fclose(f);
	if (i)
		return il_errorf(-EIO, "%s: read error", path);
	sha256_digest(&ctx, sizeof(d), d);
	for (i = 0; i < SHA256_DIGEST_SIZE; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
	return 0;
}

/* The comment lines right above "CREATE TABLE @name" in the migrations,
 * joined into one paragraph; NULL where there are none. */
static json_t *table_comment(const char *name)
{
	char pat[160], *buf = NULL;
	const char *sql = NULL, *at, *ls, *le;
	json_t *desc;
	size_t len = 0;
	int i;

	snprintf(pat, sizeof(pat), "CREATE TABLE %s (", name);
	for (i = 0, at = NULL; i < il_nmigrations && !at; i++)
		if ((at = strstr(il_migrations[i].sql, pat)))
			sql = il_migrations[i].sql;
	if (!at)
		return NULL;
	/* Walk up line by line while lines start with "--". */
	for (le = at; le > sql; le = ls - 1) {
		for (ls = le - 1; ls > sql && ls[-1] != '\n'; ls--)
			;
		/* The file's licence line opens a block, it describes nothing. */
		if (strncmp(ls, "--", 2) || !strncmp(ls, "-- SPDX", 7))
			break;
		at = ls;
	}
	for (ls = at; !strncmp(ls, "--", 2); ls = le + 1) {
		const char *t = ls + 2;
		char *nb;

		le = strchr(ls, '\n');
		while (*t == ' ')
			t++;
		nb = realloc(buf, len + (size_t)(le - t) + 2);
		if (!nb)
			break;
		buf = nb;
		len += (size_t)sprintf(buf + len, "%s%.*s", len ? " " : "", (int)(le - t), t);
	}
	if (!buf)
		return NULL;
	desc = json_string(buf);
	free(buf);
	return desc;
}

/* The "--" comment on @col's own line of the CREATE TABLE text @sql. */
static json_t *column_comment(const char *sql, const char *col)
{
	size_t n = strlen(col);
	const char *l, *c, *e;

	for (l = sql; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		while (*l == '\t' || *l == ' ')
			l++;
		if (strncmp(l, col, n) || !isspace((unsigned char)l[n]))
			continue;
		e = strchr(l, '\n');
		e = e ? e : l + strlen(l);
		c = strstr(l, "--");
		if (!c || c > e)
			return NULL;
		for (c += 2; *c == ' ' || *c == '\t'; c++)
			;
		return json_stringn(c, (size_t)(e - c));
	}
	return NULL;
}

/* A JSON column's Table Schema type: object or array where every value
 * is one, else string. */
static const char *json_column_type(sqlite3 *db, const char *table,
				    const char *col)
{
	char *sql = sqlite3_mprintf("SELECT DISTINCT json_type(\"%w\") FROM \"%w\""
				    " WHERE \"%w\" IS NOT NULL LIMIT 2", col, table, col);
	const char *type = "string";
	sqlite3_stmt *st;
	int rows = 0;

	if (sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *t = (const char *)sqlite3_column_text(st, 0);

			rows++;
			type = t && !strcmp(t, "object") ? "object" :
			       t && !strcmp(t, "array") ? "array" : "string";
		}
		sqlite3_finalize(st);
	}
	sqlite3_free(sql);
	return rows == 1 ? type : "string";
}

const char *il_publish_column_unit(const char *col)
{
	size_t n = strlen(col);

	/* first_seen and last_seen say "ns since the epoch" in the schema
	 * but have no suffix; every other fixed unit is in the name. */
	if ((n > 3 && !strcmp(col + n - 3, "_ns")) ||
	    !strcmp(col, "first_seen") || !strcmp(col, "last_seen"))
		return "ns";
	if (n > 4 && !strcmp(col + n - 4, "_khz"))
		return "kHz";
	if (n > 3 && !strcmp(col + n - 3, "_kb"))
		return "KiB";
	return NULL;
}

static json_t *field(sqlite3 *db, const char *table, const char *create,
		     sqlite3_stmt *col)
{
	const char *name = (const char *)sqlite3_column_text(col, 1);
	const char *decl = (const char *)sqlite3_column_text(col, 2);
	char probe[160];
	json_t *f = json_pack("{s:s}", "name", name), *d;
	size_t n = strlen(name);

	snprintf(probe, sizeof(probe), "json_valid(%s)", name);
	if (!strcmp(decl, "INTEGER")) {
		json_object_set_new(f, "type", json_string("integer"));
	} else if (!strcmp(decl, "REAL")) {
		json_object_set_new(f, "type", json_string("number"));
	} else if (!strcmp(decl, "BLOB")) {
		json_object_set_new(f, "type", json_string("string"));
		json_object_set_new(f, "format", json_string("binary"));
	} else if (strstr(create, probe)) {
		json_object_set_new(f, "type", json_string(json_column_type(db, table, name)));
	} else {
		json_object_set_new(f, "type", json_string("string"));
		if (!strcmp(name, "uuid") || (n > 5 && !strcmp(name + n - 5, "_uuid")))
			json_object_set_new(f, "format", json_string("uuid"));
	}
	d = column_comment(create, name);
	if (d)
		json_object_set_new(f, "description", d);
	/* Table Schema has no unit property; the spec allows properties of
	 * one's own, and metadata.json gives the same units to Datasette. */
	if (il_publish_column_unit(name))
		json_object_set_new(f, "unit", json_string(il_publish_column_unit(name)));
	/* A primary key column is required by the key itself. */
	if (sqlite3_column_int(col, 3) && !sqlite3_column_int(col, 5))
		json_object_set_new(f, "constraints", json_pack("{s:b}", "required", 1));
	return f;
}

static json_t *foreign_keys(sqlite3 *db, const char *table)
{
	json_t *fks = json_array(), *fk = NULL;
	sqlite3_stmt *st;
	int last = -1;

	if (sqlite3_prepare_v2(db, "SELECT id, \"table\", \"from\", \"to\" FROM"
			       " pragma_foreign_key_list(?1) ORDER BY id, seq", -1, &st,
			       NULL) != SQLITE_OK)
		return fks;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *to = (const char *)sqlite3_column_text(st, 3);

		if (sqlite3_column_int(st, 0) != last) {
			last = sqlite3_column_int(st, 0);
			fk = json_pack("{s:[], s:{s:s, s:[]}}", "fields", "reference",
				       "resource", sqlite3_column_text(st, 1), "fields");
			json_array_append_new(fks, fk);
		}
		json_array_append_new(json_object_get(fk, "fields"),
				      json_string((const char *)sqlite3_column_text(st, 2)));
		/* Every key of the schema names its parent column; "uuid"
		 * is what one that did not would mean. */
		json_array_append_new(json_object_get(json_object_get(fk, "reference"), "fields"),
				      json_string(to ? to : "uuid"));
	}
	sqlite3_finalize(st);
	return fks;
}

/* One table's rows as CSV on @out, in key order. */
static int write_rows(sqlite3 *db, const char *table, FILE *out)
{
	char *sql = sqlite3_mprintf("SELECT * FROM \"%w\" ORDER BY rowid", table);
	sqlite3_stmt *st;
	int i, n, rc;

	if (!sql || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_free(sql);
		return il_errorf(-EIO, "%s: %s", table, sqlite3_errmsg(db));
	}
	sqlite3_free(sql);
	n = sqlite3_column_count(st);
	for (i = 0; i < n; i++) {
		fputs(i ? "," : "", out);
		il_csv_field(out, sqlite3_column_name(st, i), IL_CSV_AS_NEEDED);
	}
	fputc('\n', out);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < n; i++) {
			fputs(i ? "," : "", out);
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_INTEGER:
				fprintf(out, "%lld", (long long)sqlite3_column_int64(st, i));
				break;
			case SQLITE_FLOAT:
				/* 17 digits: the double read back is the stored one. */
				fprintf(out, "%.17g", sqlite3_column_double(st, i));
				break;
			case SQLITE_TEXT:
				il_csv_field(out, (const char *)sqlite3_column_text(st, i),
					     IL_CSV_AS_NEEDED);
				break;
			case SQLITE_BLOB: {
				size_t len = (size_t)sqlite3_column_bytes(st, i);
				char *b = malloc(BASE64_ENCODE_RAW_LENGTH(len) + 1);

				if (!b) {
					sqlite3_finalize(st);
					return il_errorf(-ENOMEM, "out of memory");
				}
				base64_encode_raw(b, len, sqlite3_column_blob(st, i));
				fwrite(b, 1, BASE64_ENCODE_RAW_LENGTH(len), out);
				free(b);
				break;
			}
			default:	/* NULL: the empty field, Table Schema's
					 * default missing value */
				break;
			}
		}
		fputc('\n', out);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return il_errorf(-EIO, "%s: %s", table, sqlite3_errmsg(db));
	return 0;
}

/* The resource describing @table, its CSV at @path. */
static json_t *resource(sqlite3 *db, const char *table, const char *create,
			const char *path)
{
	json_t *fields = json_array(), *pk = json_array(), *schema, *r, *d;
	char *sql = sqlite3_mprintf("SELECT cid, name, type, \"notnull\", dflt_value, pk"
				    " FROM pragma_table_info(%Q) ORDER BY cid", table);
	char hash[65], base[200];
	long long bytes = 0;
	sqlite3_stmt *st;
	int maxpk = 0, i;

	if (sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			json_array_append_new(fields, field(db, table, create, st));
			if (sqlite3_column_int(st, 5) > maxpk)
				maxpk = sqlite3_column_int(st, 5);
		}
		/* The key's columns in the key's order, not the table's. */
		for (i = 1; i <= maxpk; i++) {
			sqlite3_reset(st);
			while (sqlite3_step(st) == SQLITE_ROW)
				if (sqlite3_column_int(st, 5) == i)
					json_array_append_new(pk, json_string(
						(const char *)sqlite3_column_text(st, 1)));
		}
		sqlite3_finalize(st);
	}
	sqlite3_free(sql);
	schema = json_pack("{s:o, s:[s]}", "fields", fields, "missingValues", "");
	if (json_array_size(pk))
		json_object_set_new(schema, "primaryKey", pk);
	else
		json_decref(pk);
	d = foreign_keys(db, table);
	if (json_array_size(d))
		json_object_set_new(schema, "foreignKeys", d);
	else
		json_decref(d);
	snprintf(base, sizeof(base), "%s.csv", table);
	r = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "name", table,
		      "path", base, "profile", "tabular-data-resource",
		      "format", "csv", "mediatype", "text/csv", "encoding", "utf-8");
	d = table_comment(table);
	if (d)
		json_object_set_new(r, "description", d);
	json_object_set_new(r, "schema", schema);
	if (!il_publish_file_sha256(path, hash, &bytes)) {
		json_object_set_new(r, "bytes", json_integer(bytes));
		json_object_set_new(r, "hash", json_sprintf("sha256:%s", hash));
	}
	return r;
}

int il_publish_tables(struct il_store *bundle, const char *dir, json_t *tables)
{
	sqlite3 *db = il_store_db(bundle);
	struct il_outfile of = { NULL, NULL, NULL };
	sqlite3_stmt *st;
	char *path = NULL;
	int ret = 0, rc;

	if (sqlite3_prepare_v2(db, "SELECT name, sql FROM sqlite_master WHERE type = 'table'"
			       " AND name NOT LIKE 'sqlite_%' ORDER BY name", -1, &st,
			       NULL) != SQLITE_OK)
		return il_errorf(-EIO, "listing tables: %s", sqlite3_errmsg(db));
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		if (asprintf(&path, "%s/%s.csv", dir, name) < 0) {
			ret = il_errorf(-ENOMEM, "out of memory");
			break;
		}
		ret = il_outfile_open(&of, path) ?:
		      write_rows(db, name, of.f) ?: il_outfile_commit(&of);
		il_outfile_abort(&of);
		if (!ret)
			json_array_append_new(tables, resource(db, name,
				(const char *)sqlite3_column_text(st, 1), path));
		free(path);
	}
	sqlite3_finalize(st);
	return ret;
}
