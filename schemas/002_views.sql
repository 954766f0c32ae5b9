-- SPDX-License-Identifier: GPL-2.0-only
--
-- 002_views.sql - the views reports and people query.
--
-- They hide the joins from machines to runs to summaries so a question
-- about the data is one SELECT (see README for examples), and they give
-- analysis/ a stable shape: a later migration may change the tables under
-- them but replaces a view only with one that keeps these columns.
--
--   v_runs       one row per run, with its machine and what it stored
--   v_report     one row per run x metric x cpu x cpu2 x grp, with the
--                summary statistics (`idlelab report`)
--   v_report_hist  v_report plus the histogram BLOB, for exact merges
--   v_counters   one row per counter reading, with its run and machine

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
	s.dropped_raw
FROM summaries s
JOIN runs r ON r.uuid = s.run_uuid
JOIN machines m ON m.uuid = r.machine_uuid;

-- LEFT JOIN: a summary whose histogram is missing still shows (hist NULL),
-- so a damaged dataset is visible in reports rather than silently thinned;
-- `idlelab db check` names it.
CREATE VIEW v_report_hist AS
SELECT	v.*,
	h.layout AS hist_layout,
	h.blob AS hist
FROM v_report v
LEFT JOIN histograms h ON h.summary_id = v.summary_id;

CREATE VIEW v_counters AS
SELECT	r.uuid AS run_uuid,
	r.machine_uuid,
	m.hostname,
	r.bench,
	r.params,
	r.status AS run_status,
	r.start_ns,
	c.event,
	c.cpu,
	c.value,
	c.unit,
	c.status,
	c.reason
FROM counters c
JOIN runs r ON r.uuid = c.run_uuid
JOIN machines m ON m.uuid = r.machine_uuid;
