// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_stmts.c - the SQL of every statement the store prepares once and
 * keeps (struct il_store's st[] cache, store_sql.c's store_stmt()): the
 * inserts of the run writer, the machine rows, and the transaction verbs.
 */
#include "store_internal.h"

/*
 * The machine rows all bind the same slots: ?1 uuid, ?2 hostname, ?3 the
 * time seen, ?4 fingerprint, ?5 hwloc XML, ?6 source.
 */
#define MACHINE_UPSERT \
	"INSERT INTO machines (uuid, hostname, first_seen, last_seen," \
	" fingerprint, hwloc_xml, is_reference, source)" \
	" VALUES (?1, ?2, ?3, ?3, ?4, ?5, 0, ?6)" \
	" ON CONFLICT (uuid) DO UPDATE SET" \
	" hostname = excluded.hostname," \
	" last_seen = max(last_seen, excluded.last_seen)," \
	" fingerprint = coalesce(excluded.fingerprint, fingerprint)," \
	" hwloc_xml = coalesce(excluded.hwloc_xml, hwloc_xml)"

const char *const store_stmt_sql[ST_COUNT] = {
	/* A local machine's source is always 'local': never rewritten. */
	[ST_MACHINE] = MACHINE_UPSERT,
	[ST_MACHINE_SOURCE] = MACHINE_UPSERT ", source = excluded.source",
	/* Published figures: seen at time 0, and never updated. */
	[ST_REF_MACHINE] =
		"INSERT INTO machines (uuid, hostname, first_seen, last_seen,"
		" fingerprint, hwloc_xml, is_reference, source)"
		" VALUES (?1, ?2, 0, 0, ?4, ?5, 1, ?6)"
		" ON CONFLICT (uuid) DO NOTHING",
	[ST_RUN] =
		"INSERT INTO runs (uuid, machine_uuid, bench, params, placement,"
		" cpus, campaign, plan_index, param_hash, start_ns, end_ns,"
		" status, status_reason, tool_version, git_rev, cmdline, tsc_khz)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
		" ?14, ?15, ?16, ?17)",
	[ST_ENV] =
		"INSERT INTO run_env (run_uuid, phase, json) VALUES (?1, ?2, ?3)",
	[ST_SUMMARY] =
		"INSERT INTO summaries (run_uuid, metric, unit, cpu, cpu2, grp,"
		" count, min, max, mean, stddev, p50, p90, p99, p999, p9999,"
		" dropped, early, dropped_raw, dropped_range, dropped_overrun,"
		" dropped_race, dropped_lost, dropped_slept)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
		" ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)",
	[ST_HIST] =
		"INSERT INTO histograms (summary_id, layout, blob)"
		" VALUES (?1, ?2, ?3)",
	[ST_RAW] =
		"INSERT INTO raw_samples (summary_id, layout, count, blob)"
		" VALUES (?1, ?2, ?3, ?4)",
	[ST_COUNTER] =
		"INSERT INTO counters (run_uuid, event, cpu, value, unit, status,"
		" reason) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_ATTR] =
		"INSERT INTO run_attrs (run_uuid, cpu, key, value)"
		" VALUES (?1, ?2, ?3, ?4)",
	[ST_HAS_RUN] = "SELECT 1 FROM runs WHERE uuid = ?1",
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_SAVEPOINT] = "SAVEPOINT il_run",
	[ST_RELEASE] = "RELEASE il_run",
};
