#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# state-series.sh DB STATE: copy every wake_latency series of DB (its
# summary and its histogram) as the series of idle state STATE
# (wake_latency_in_STATE), as idle_sweep stores a state it saw entered.
# The cpuidle-less test machine enters no state, so the declared-table
# and advise tests give it states this way, with real histograms.
db=$1 st=$2
exec sqlite3 "$db" "
INSERT INTO summaries (run_uuid, metric, unit, cpu, cpu2, grp, count, min, max, mean, stddev,
	p50, p90, p99, p999, p9999, dropped, early, dropped_raw, dropped_range, dropped_overrun,
	dropped_race, dropped_lost, dropped_slept)
SELECT run_uuid, 'wake_latency_in_$st', unit, cpu, cpu2, grp, count, min, max, mean, stddev,
	p50, p90, p99, p999, p9999, dropped, early, dropped_raw, dropped_range, dropped_overrun,
	dropped_race, dropped_lost, dropped_slept FROM summaries WHERE metric = 'wake_latency';
INSERT INTO histograms (summary_id, layout, blob)
SELECT s2.id, h.layout, h.blob FROM summaries s1
JOIN histograms h ON h.summary_id = s1.id
JOIN summaries s2 ON s2.run_uuid = s1.run_uuid AND s2.grp = s1.grp
	AND s2.metric = 'wake_latency_in_$st'
WHERE s1.metric = 'wake_latency';"
