/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * publish_bundle.h - the files of an `idlelab publish` bundle that are
 * read from its database (harness/publish.h makes the database): the
 * selection of runs, one CSV per table, datapackage.json and README.md.
 *
 * Every file goes through outfile.h: written to a temporary name in the
 * bundle's directory and renamed into place only when whole, and never
 * over an input database.  Errors follow err.h.
 */
#ifndef IDLELAB_PUBLISH_BUNDLE_H
#define IDLELAB_PUBLISH_BUNDLE_H

#include <jansson.h>

struct il_store;
struct il_filter;

/**
 * il_publish_select() - fill temp.il_publish_runs of @work with the runs
 * that match: @bench (or NULL), @run (a whole UUID, or NULL) and every
 * term of @where (a report filter, or NULL).
 * Return: the number of runs selected, or -errno.
 */
int il_publish_select(struct il_store *work, const char *bench,
		      const char *run, const struct il_filter *where);

/**
 * il_publish_tables() - write DIR/TABLE.csv for every table of @bundle
 * (RFC 4180, a header row, NULL as an empty field, BLOBs in base64) and
 * describe each in @tables: a JSON array of Frictionless tabular data
 * resources (name, path, schema with fields, primary and foreign keys,
 * bytes and hash), ready for datapackage.json.
 */
int il_publish_tables(struct il_store *bundle, const char *dir,
		      json_t *tables);

/**
 * il_publish_package() - write DIR/datapackage.json: @tables, then the
 * SQLite file as a resource of its own, under the package's metadata.
 */
int il_publish_package(struct il_store *bundle, const char *dir,
		       json_t *tables);

/**
 * il_publish_readme() - write DIR/README.md: what was measured, on which
 * machines, by which idlelab, from which campaign files, what redaction
 * removed (@redactions, or NULL when the bundle is not redacted), and how
 * to reproduce and cite it.
 */
int il_publish_readme(struct il_store *bundle, const char *dir,
		      const json_t *redactions);

/**
 * il_publish_metadata() - write DIR/metadata.json, the Datasette metadata
 * of the bundle's idlelab.db: the package's title and source, and per
 * table its description, its columns' descriptions and their units, all
 * taken from @tables (il_publish_tables()), so the two files never
 * disagree.
 */
int il_publish_metadata(const char *dir, const json_t *tables);

/**
 * il_publish_column_unit() - the unit of column @col when its name fixes
 * one ("ns" for *_ns, "kHz" for *_khz, "KiB" for *_kb), else NULL: the
 * summaries' values are in the unit their row names.
 */
const char *il_publish_column_unit(const char *col);

/**
 * il_publish_site() - write DIR/index.html, the comparison site: one page
 * that stands alone (html_page.h) with the machines, a section per
 * machine (its fingerprint summarised, its runs, its states table), the
 * machines' figures side by side, the A/B tables of each machine against
 * the first, the results table and the plots (publish_site.c).
 */
int il_publish_site(struct il_store *bundle, const char *dir);

/** il_publish_file_sha256() - the SHA-256 of the file at @path in hex. */
int il_publish_file_sha256(const char *path, char out[65], long long *bytes);

#endif
