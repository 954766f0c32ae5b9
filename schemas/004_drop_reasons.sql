-- SPDX-License-Identifier: GPL-2.0-only
-- 004_drop_reasons.sql - summaries.dropped split by reason (stats.h
-- enum il_drop_reason): out of range, overrun (missed periods), lost race
-- and lost event.  dropped stays the total, so every query written for it
-- still counts the same.  A row stored before this migration knew only
-- the total: its reasons stay NULL (not recorded), except where the total
-- is 0, which splits into zeros exactly.  Every row stored from now on
-- has all four, and they add up to dropped.
ALTER TABLE summaries ADD COLUMN dropped_range INTEGER
	CHECK (dropped_range >= 0);
ALTER TABLE summaries ADD COLUMN dropped_overrun INTEGER
	CHECK (dropped_overrun >= 0);
ALTER TABLE summaries ADD COLUMN dropped_race INTEGER
	CHECK (dropped_race >= 0);
ALTER TABLE summaries ADD COLUMN dropped_lost INTEGER
	CHECK (dropped_lost >= 0)
	-- All four or none, and then they are the total.
	CHECK (CASE WHEN dropped_range IS NULL THEN dropped_overrun IS NULL
			AND dropped_race IS NULL AND dropped_lost IS NULL
		ELSE dropped_overrun IS NOT NULL AND dropped_race IS NOT NULL
			AND dropped_lost IS NOT NULL
			AND dropped = dropped_range + dropped_overrun
				+ dropped_race + dropped_lost END);

UPDATE summaries SET dropped_range = 0, dropped_overrun = 0,
	dropped_race = 0, dropped_lost = 0 WHERE dropped = 0;

-- v_report keeps its columns and gains the four (002's promise).
DROP VIEW v_report_hist;
DROP VIEW v_report;

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
	s.dropped_lost
FROM summaries s
JOIN runs r ON r.uuid = s.run_uuid
JOIN machines m ON m.uuid = r.machine_uuid;

CREATE VIEW v_report_hist AS
SELECT	v.*,
	h.layout AS hist_layout,
	h.blob AS hist
FROM v_report v
LEFT JOIN histograms h ON h.summary_id = v.summary_id;
