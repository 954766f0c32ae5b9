-- SPDX-License-Identifier: GPL-2.0-only
-- Per-sample causes of a --causes run, from kernel trace events.
--
-- trace_captures: one row per run that asked for causes: the trace clock
-- (x86-tsc or mono, the benchmark's own time base), the per-CPU buffer,
-- the threshold, whether the capture could be made (status 'ok' or
-- 'unavailable', with the reason) and how long attribution took.
CREATE TABLE trace_captures (
	run_uuid TEXT PRIMARY KEY REFERENCES runs(uuid),
	status TEXT NOT NULL CHECK (status IN ('ok', 'unavailable')),
	reason TEXT,
	clock TEXT,
	buffer_kb INTEGER,
	threshold_ns INTEGER,		-- NULL: each series' p99
	attribution_ns INTEGER
) STRICT;

-- Per measured CPU: what the capture kept and what the ring buffer lost
-- (overrun + dropped, the kernel's own count; NULL where unreadable).
-- An overrun is never silent: the report prints lost_events.
CREATE TABLE trace_cpus (
	run_uuid TEXT NOT NULL REFERENCES runs(uuid),
	cpu INTEGER NOT NULL,
	events INTEGER NOT NULL,
	lost_events INTEGER,
	PRIMARY KEY (run_uuid, cpu)
) STRICT;

-- One row per attributed sample: its window (start in ns since the run's
-- time base, length = the sample), the idle state entered in it (NULL:
-- none seen) and the time no event explains.
CREATE TABLE cause_samples (
	run_uuid TEXT NOT NULL REFERENCES runs(uuid),
	metric TEXT NOT NULL,
	cpu INTEGER NOT NULL,
	sample INTEGER NOT NULL,	-- index in its series
	t_ns INTEGER NOT NULL,
	value_ns INTEGER NOT NULL,
	idle_state INTEGER,
	unexplained_ns INTEGER NOT NULL,
	PRIMARY KEY (run_uuid, metric, cpu, sample)
) STRICT;

-- Each cause of a sample: kind (irq, softirq, nmi, smi, thread, idle),
-- name (IRQ number and name, vector, softirq, comm/pid), its time inside
-- the window and its share of the window.
CREATE TABLE causes (
	run_uuid TEXT NOT NULL REFERENCES runs(uuid),
	metric TEXT NOT NULL,
	cpu INTEGER NOT NULL,
	sample INTEGER NOT NULL,
	kind TEXT NOT NULL,
	name TEXT NOT NULL,
	dur_ns INTEGER NOT NULL,
	events INTEGER NOT NULL,
	share REAL NOT NULL,
	PRIMARY KEY (run_uuid, metric, cpu, sample, kind, name)
) STRICT;

-- Per run, CPU and cause kind: the time lost, over every attributed sample
-- (kind 'unexplained' holds what no event explains).
CREATE TABLE cause_totals (
	run_uuid TEXT NOT NULL REFERENCES runs(uuid),
	cpu INTEGER NOT NULL,
	kind TEXT NOT NULL,
	lost_ns INTEGER NOT NULL,
	samples INTEGER NOT NULL,	-- samples it appears in
	PRIMARY KEY (run_uuid, cpu, kind)
) STRICT;

-- Every noted sample of a --causes run (timer_wake, futex_wake, ...; not
-- only the outliers) by the idle state its CPU really entered inside the
-- window (power:cpu_idle), as a histogram: `report --kind states` groups
-- by it.  state_name is cpuidle's name of the state, 'not idle', or
-- 'no cpuidle driver: state unknown' where the kernel has no driver.
CREATE TABLE cause_states (
	run_uuid TEXT NOT NULL REFERENCES runs(uuid),
	metric TEXT NOT NULL,
	unit TEXT NOT NULL,
	cpu INTEGER NOT NULL,
	state INTEGER,			-- stateN's N; NULL: none or unknown
	state_name TEXT NOT NULL,
	count INTEGER NOT NULL,
	min INTEGER NOT NULL,
	max INTEGER NOT NULL,
	mean REAL NOT NULL,
	stddev REAL NOT NULL,
	hist BLOB NOT NULL,		-- stats.c's encoding, as histograms.blob
	PRIMARY KEY (run_uuid, metric, cpu, state_name)
) STRICT;
