/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store.h - the SQLite dataset.
 *
 * The schema is a list of numbered migrations (schemas/NNN_*.sql, compiled
 * into the binary) applied in order, each in one transaction that also sets
 * PRAGMA user_version.  An idlelab database is recognised by its
 * application_id (IL_APPLICATION_ID) set by the first migration.
 *
 * Opening is careful: nothing is written to a file until it is known to be
 * an idlelab database of a version this binary understands, or an empty
 * file/new path.  A foreign database (other tables, no application id) is
 * refused with -EPROTO, a newer schema with -EPROTONOSUPPORT; the file is
 * left byte-for-byte untouched in both cases.
 *
 * Each run is written in one transaction (il_store_save_run()), so a crash
 * leaves every earlier run complete and never a partial one.
 * WAL mode, synchronous=NORMAL, prepared statements.
 *
 * Errors follow err.h.
 */
#ifndef IDLELAB_STORE_H
#define IDLELAB_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "series.h"

#define IL_APPLICATION_ID	0x49444c4c	/* "IDLL" */

struct il_store;

enum il_store_flags {
	IL_STORE_CREATE = 1 << 0,	/* create and migrate if new */
	IL_STORE_READONLY = 1 << 1,	/* never write (report, check) */
	IL_STORE_NO_MIGRATE = 1 << 2,	/* refuse an older schema too */
};

/**
 * il_store_open() - open (or create) a dataset file.
 * @flags: IL_STORE_CREATE creates a missing or empty file and migrates an
 *         older idlelab schema to the latest; without it a missing path is
 *         -ENOENT and an older schema is opened as it is (for `db migrate`
 *         to report "N -> M").  IL_STORE_NO_MIGRATE refuses an older schema
 *         instead (a new file is still created at the latest version).
 *         IL_STORE_READONLY never creates, migrates or writes the file
 *         (SQLite's WAL reader may leave -wal/-shm side files of an idlelab
 *         database) and makes every write function return -EROFS; an older
 *         schema is opened as it is.  It reads a file the user cannot
 *         write, in a directory they cannot write, or on a read-only
 *         mount: a WAL file whose -shm cannot be created is read with
 *         immutable=1 when no -wal holds pending transactions (no writer
 *         is live), and refused with -EROFS, saying what to do, when one
 *         does.
 *
 * Return: 0; -ENOENT for a missing path without CREATE; -EPROTO for a file
 * that is not SQLite or is another application's database; -EPROTONOSUPPORT
 * for a schema newer than il_store_latest_version(); -ESTALE for an older
 * one with IL_STORE_NO_MIGRATE.  In all these cases the file is left
 * byte-for-byte untouched and no side file is created (a WAL file in use
 * by its owner, with a live -wal, can only be read through its -shm).
 */
int il_store_open(const char *path, int flags, struct il_store **out);
void il_store_close(struct il_store *s);

/** il_store_remove() - unlink the database file @path and its -wal and
 * -shm, whichever exist (a temporary or consumed database). */
void il_store_remove(const char *path);

/** il_store_schema_version() - user_version of the open database. */
int il_store_schema_version(struct il_store *s);
/** il_store_latest_version() - the newest version this binary knows. */
int il_store_latest_version(void);
/*
 * IL_SLEPT_V4_FMT - printf format (%1$s the row's qualifier, as "s.";
 * %2$s the schema, as "il_src." or ""): the calls a summaries row of
 * schema 4 to 6 dropped as race that a target slept through.  Before
 * schema 7 (007_drop_slept.sql, which applies the same rule) each was
 * also timed in the sibling series METRIC_slept, so its count is theirs.
 * For reading and merging a file that is not migrated.
 */
#define IL_SLEPT_V4_FMT							\
	"min(%1$sdropped_race, coalesce((SELECT x.count FROM %2$ssummaries x" \
	" WHERE x.run_uuid = %1$srun_uuid AND x.metric = %1$smetric || '_slept'" \
	" AND x.cpu = %1$scpu AND x.cpu2 = %1$scpu2 AND x.grp = %1$sgrp), 0))"
/** The schema that brought dropped_slept. */
#define IL_SCHEMA_SLEPT	7

/** il_store_migrate() - apply the missing migrations; 0 if none needed. */
int il_store_migrate(struct il_store *s);
/**
 * il_store_check() - integrity_check, foreign_key_check, version and
 * per-run consistency (every summary has its histogram, counts agree).
 * @report: malloc()ed text, one finding a line ("ok" if none).
 * Return: 0 if healthy, -EIO if a finding was made.
 */
int il_store_check(struct il_store *s, char **report);

/* A run whose stored histograms il_store_check() would report. */
struct il_damaged_run {
	char *uuid;
	char *why;		/* its first finding: "metric cpu N: ..." */
	bool left_out;		/* il_store_run_damaged() said 1 for it */
};

/**
 * il_store_run_damaged() - whether run @uuid is damaged: one of its
 * summaries has a histogram that is missing, of another layout, does not
 * decode, or disagrees with the summary's count or extremes (what
 * il_store_check() reports of histograms).  Reports, export and merge
 * leave such a run out whole.  The first call of this or
 * il_store_damaged_runs() checks every histogram of the file once; the
 * answer 1 marks the run left_out, so the CLI can name what it left out.
 * Return: 1 damaged, 0 not, or -errno when the histograms cannot be read.
 */
int il_store_run_damaged(struct il_store *s, const char *uuid);
/**
 * il_store_damaged_runs() - every damaged run of the file, sorted by UUID,
 * in @v (valid until il_store_close()), @n of them.
 * Return: 0, or -errno when the histograms cannot be read.
 */
int il_store_damaged_runs(struct il_store *s, const struct il_damaged_run **v,
			  size_t *n);

/**
 * il_sqlite_uri() - the SQLite file: URI naming @path, for every place
 * that opens or attaches a dataset by URI.
 * @query: what follows '?' (e.g. "mode=ro"), or NULL for none.
 *
 * Every byte but '/' and RFC 3986's unreserved ones is percent-escaped,
 * so '?', '#' and '%' in a file name never read as URI syntax.
 * Return: a malloc()ed string, or NULL when out of memory.
 */
char *il_sqlite_uri(const char *path, const char *query);

/**
 * il_store_uri() - the file: URI that opens @s's file the way @s reads it:
 * "mode=ro", or "immutable=1" where il_store_open() needed it; for ATTACH
 * of a read-only input (merge).
 * Return: a malloc()ed string, or NULL when out of memory.
 */
char *il_store_uri(struct il_store *s);

/**
 * il_store_put_machine() - insert or update the machine row.
 * @uuid: the host UUID (env.h il_host_uuid()).
 * @fingerprint_json, @hwloc_xml: stored as given.
 */
int il_store_put_machine(struct il_store *s, const char *uuid,
			 const char *hostname, const char *fingerprint_json,
			 const char *hwloc_xml);

struct il_run_attr {
	int cpu;		/* -1 for run-wide */
	const char *key;
	const char *value;
};

/*
 * A series known only from published figures (`idlelab import reference`):
 * no samples, so the percentiles past the median are NULL in the dataset.
 */
struct il_published_series {
	const char *metric;
	const char *unit;
	uint64_t count, min, max, median;
	double mean;
	double stddev;			/* NaN when not published */
	const struct il_hist *hist;	/* a placeholder: the schema wants one */
};

/* Everything about one run, written in one transaction. */
struct il_run_rec {
	char uuid[37];
	char machine_uuid[37];
	const char *bench;
	const char *params_json;
	const char *placement;		/* the spec */
	const char *cpus_json;		/* the expanded CPUs or pairs */
	const char *campaign;		/* NULL for single runs */
	int64_t plan_index;		/* -1 for single runs */
	const char *param_hash;		/* NULL for single runs */
	uint64_t start_ns;		/* CLOCK_REALTIME */
	uint64_t end_ns;
	const char *status;		/* ok, failed, unsupported, interrupted, skipped */
	const char *status_reason;	/* NULL when ok */
	const char *tool_version;
	const char *git_rev;
	const char *cmdline;		/* the command line as given */
	uint64_t tsc_khz;		/* 0 if not used */
	const char *env_before_json;
	const char *env_after_json;
	const char *env_delta_json;
	int nseries;
	struct il_series *const *series;
	int ncounters;
	const struct il_counter_result *counters;
	int nattrs;
	const struct il_run_attr *attrs;
	int npublished;			/* reference runs only */
	const struct il_published_series *published;
};

/**
 * il_store_save_run() - write one run and everything below it, all or
 * nothing: in its own transaction, or inside il_store_begin()'s under a
 * savepoint (a failed run is then undone and the transaction goes on).
 */
int il_store_save_run(struct il_store *s, const struct il_run_rec *r);

/**
 * il_store_begin() - one transaction around several writes (an import
 * file), so they are stored all or none.  il_store_end() commits it when
 * @commit, else (or when COMMIT fails) rolls everything back.
 */
int il_store_begin(struct il_store *s);
int il_store_end(struct il_store *s, bool commit);

/** il_store_has_run() - 1 if a run with @uuid is stored, 0 if not, or -errno. */
int il_store_has_run(struct il_store *s, const char *uuid);

/**
 * il_store_runs_by_prefix() - the stored runs whose UUID starts with
 * @prefix (any case), in UUID order; the first @max are copied into @out.
 * Return: how many runs match (more than @max when it is more), or
 * -EIO with the message set.
 */
int il_store_runs_by_prefix(struct il_store *s, const char *prefix,
			    char (*out)[37], int max);

/**
 * il_store_put_reference_machine() - a machine known from published
 * figures (is_reference = 1, seen at time 0); one already present is
 * left as it is.
 */
int il_store_put_reference_machine(struct il_store *s, const char *uuid,
				   const char *hostname,
				   const char *fingerprint_json,
				   const char *source);
/**
 * il_store_put_machine_source() - il_store_put_machine() for a machine
 * whose data came from elsewhere (e.g. "cyclictest import"): @source is
 * stored, and replaces the row's on update.
 */
int il_store_put_machine_source(struct il_store *s, const char *uuid,
				const char *hostname,
				const char *fingerprint_json,
				const char *hwloc_xml, const char *source);

#endif
