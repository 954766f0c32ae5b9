-- SPDX-License-Identifier: GPL-2.0-only
-- 007_drop_slept.sql - a fifth drop reason, slept (stats.h IL_DROP_SLEPT):
-- a call of membarrier_ipi or tlb_shootdown that a target slept through.
-- Those were counted as race, but they are the slow idle wakes under
-- study, so they are kept apart (issue 22, item 2c).
--
-- 004's CHECK says the four reasons add up to dropped, and SQLite cannot
-- change a CHECK in place, so summaries is rebuilt with SQLite's own
-- procedure (lang_altertable.html, "Making Other Kinds Of Table Schema
-- Changes"): create new_summaries, copy, drop the old, rename the new one
-- to the old name (never the other way round, which would point
-- histograms' and raw_samples' foreign keys at the renamed old table).
-- il_store_migrate() runs it with foreign_keys off, so the DROP deletes
-- no histogram by cascade, and checks foreign_key_check before COMMIT.
-- The ids are copied as they are, so histograms and raw_samples still
-- point at their rows.  The views that name summaries are dropped first
-- (a rename checks every view against the schema) and written again:
-- v_runs as 002 has it, v_report gaining dropped_slept (see 004 on why a
-- view is written whole).
--
-- A row stored before this migration counted a slept call as race.  The
-- count is still known exactly: each such call was also timed in the
-- sibling series METRIC_slept (same run, CPU and group), so that count
-- moves from dropped_race to dropped_slept.  A row with unknown reasons
-- keeps them unknown.
DROP VIEW v_report_hist;
DROP VIEW v_report;
DROP VIEW v_runs;

CREATE TABLE new_summaries (
	id		INTEGER PRIMARY KEY,
	run_uuid	TEXT NOT NULL REFERENCES runs (uuid) ON DELETE CASCADE,
	metric		TEXT NOT NULL,
	unit		TEXT NOT NULL,
	cpu		INTEGER NOT NULL,
	cpu2		INTEGER NOT NULL DEFAULT -1,
	grp		INTEGER NOT NULL DEFAULT -1,
	count		INTEGER NOT NULL CHECK (count >= 0),
	-- exact, from the running summary
	min		INTEGER,
	max		INTEGER,
	mean		REAL,
	stddev		REAL,			-- sample stddev; NULL below 2 samples
	-- exact order statistics from raw samples, else the histogram
	p50		INTEGER,
	p90		INTEGER,
	p99		INTEGER,
	p999		INTEGER,
	p9999		INTEGER,
	dropped		INTEGER NOT NULL DEFAULT 0,	-- not recordable
	early		INTEGER NOT NULL DEFAULT 0,	-- woke before launch
	dropped_raw	INTEGER NOT NULL DEFAULT 0,	-- counted, not kept raw
	dropped_range	INTEGER CHECK (dropped_range >= 0),
	dropped_overrun	INTEGER CHECK (dropped_overrun >= 0),
	dropped_race	INTEGER CHECK (dropped_race >= 0),
	dropped_lost	INTEGER CHECK (dropped_lost >= 0),
	dropped_slept	INTEGER CHECK (dropped_slept >= 0),
	UNIQUE (run_uuid, metric, cpu, cpu2, grp),
	-- No statistics of nothing: an empty series stores NULLs, not zeros.
	CHECK ((count = 0) = (min IS NULL)),
	CHECK (count > 0 OR (max IS NULL AND mean IS NULL AND stddev IS NULL
		AND p50 IS NULL AND p90 IS NULL AND p99 IS NULL
		AND p999 IS NULL AND p9999 IS NULL)),
	-- All five or none, and then they are the total.
	CHECK (CASE WHEN dropped_range IS NULL THEN dropped_overrun IS NULL
			AND dropped_race IS NULL AND dropped_lost IS NULL
			AND dropped_slept IS NULL
		ELSE dropped_overrun IS NOT NULL AND dropped_race IS NOT NULL
			AND dropped_lost IS NOT NULL AND dropped_slept IS NOT NULL
			AND dropped = dropped_range + dropped_overrun
				+ dropped_race + dropped_lost
				+ dropped_slept END)
) STRICT;

-- The slept calls of each old row, from its sibling series.
CREATE TEMP TABLE il_slept AS
SELECT	s.id,
	min(s.dropped_race, coalesce((SELECT x.count FROM summaries x
		WHERE x.run_uuid = s.run_uuid AND x.metric = s.metric || '_slept'
		AND x.cpu = s.cpu AND x.cpu2 = s.cpu2 AND x.grp = s.grp), 0))
		AS n
FROM summaries s WHERE s.dropped_race IS NOT NULL;

INSERT INTO new_summaries (id, run_uuid, metric, unit, cpu, cpu2, grp,
	count, min, max, mean, stddev, p50, p90, p99, p999, p9999, dropped,
	early, dropped_raw, dropped_range, dropped_overrun, dropped_race,
	dropped_lost, dropped_slept)
SELECT	s.id, s.run_uuid, s.metric, s.unit, s.cpu, s.cpu2, s.grp, s.count,
	s.min, s.max, s.mean, s.stddev, s.p50, s.p90, s.p99, s.p999, s.p9999,
	s.dropped, s.early, s.dropped_raw, s.dropped_range, s.dropped_overrun,
	s.dropped_race - t.n, s.dropped_lost, t.n
FROM summaries s LEFT JOIN temp.il_slept t ON t.id = s.id
ORDER BY s.id;

DROP TABLE temp.il_slept;
DROP TABLE summaries;
ALTER TABLE new_summaries RENAME TO summaries;

CREATE VIEW v_runs AS
SELECT	r.uuid AS run_uuid,
	r.machine_uuid,
	m.hostname,
	m.is_reference,
	r.bench,
	r.params,
	r.placement,
	r.cpus,
	r.campaign,
	r.plan_index,
	r.status,
	r.status_reason,
	r.start_ns,
	r.end_ns,
	(r.end_ns - r.start_ns) / 1e9 AS duration_s,
	datetime(r.start_ns / 1000000000, 'unixepoch') AS started,
	r.tool_version,
	r.git_rev,
	r.cmdline,
	r.tsc_khz,
	(SELECT count(*) FROM summaries s WHERE s.run_uuid = r.uuid)
		AS nseries,
	(SELECT coalesce(sum(s.count), 0) FROM summaries s
	 WHERE s.run_uuid = r.uuid) AS nsamples
FROM runs r
JOIN machines m ON m.uuid = r.machine_uuid;

CREATE VIEW v_report AS
SELECT	r.uuid AS run_uuid,
	r.machine_uuid,
	m.hostname,
	m.is_reference,
	r.bench,
	r.params,
	r.placement,
	r.campaign,
	r.status,
	r.start_ns,
	s.id AS summary_id,
	s.metric,
	s.unit,
	s.cpu,
	s.cpu2,
	s.grp,
	s.count,
	s.min,
	s.max,
	s.mean,
	s.stddev,
	s.p50,
	s.p90,
	s.p99,
	s.p999,
	s.p9999,
	s.dropped,
	s.early,
	s.dropped_raw,
	s.dropped_range,
	s.dropped_overrun,
	s.dropped_race,
	s.dropped_lost,
	s.dropped_slept
FROM summaries s
JOIN runs r ON r.uuid = s.run_uuid
JOIN machines m ON m.uuid = r.machine_uuid;

CREATE VIEW v_report_hist AS
SELECT	v.*,
	h.layout AS hist_layout,
	h.blob AS hist
FROM v_report v
LEFT JOIN histograms h ON h.summary_id = v.summary_id;
