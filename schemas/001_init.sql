-- SPDX-License-Identifier: GPL-2.0-only
--
-- 001_init.sql - the idlelab dataset: machines, runs and what each run
-- measured.  harness/store.c applies this file inside one transaction that
-- also sets PRAGMA user_version = 1, so a database is either at version 1
-- with every table below or untouched.
--
-- Conventions, kept by every later migration:
--  * STRICT tables, so a wrong type is an error instead of a silent
--    conversion that a later query would misread.
--  * Machines and runs are keyed by UUID text (36 characters), so datasets
--    from many machines merge into one file without collisions.  Rows below
--    a run (summaries, counters, ...) use local integer ids and are only
--    ever addressed through their run.
--  * Times are nanoseconds since the Unix epoch (CLOCK_REALTIME); sample
--    values carry their unit in the summaries row, usually "ns".
--  * A value that could not be measured is NULL with a status and reason,
--    never 0: summaries of an empty series have NULL statistics, counters
--    that did not count have a NULL value.
--  * Deleting a run deletes everything below it (ON DELETE CASCADE), so
--    pruning a dataset is one DELETE FROM runs.

-- "IDLL": how idlelab tells its own files from any other SQLite database.
PRAGMA application_id = 1229212748;

CREATE TABLE machines (
	uuid		TEXT PRIMARY KEY NOT NULL CHECK (length(uuid) = 36),
	hostname	TEXT NOT NULL,
	first_seen	INTEGER NOT NULL,	-- ns since the epoch
	last_seen	INTEGER NOT NULL,
	fingerprint	TEXT CHECK (fingerprint IS NULL OR json_valid(fingerprint)),
	hwloc_xml	TEXT,
	-- 1 for machines known only from published figures (data/reference),
	-- whose runs were not measured by this tool.
	is_reference	INTEGER NOT NULL DEFAULT 0 CHECK (is_reference IN (0, 1)),
	source		TEXT			-- 'local', or where the figures come from
) STRICT;

CREATE TABLE runs (
	uuid		TEXT PRIMARY KEY NOT NULL CHECK (length(uuid) = 36),
	machine_uuid	TEXT NOT NULL REFERENCES machines (uuid),
	bench		TEXT NOT NULL,
	params		TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(params)),
	placement	TEXT,			-- the spec as given, e.g. "pairs:smt"
	cpus		TEXT CHECK (cpus IS NULL OR json_valid(cpus)),
	campaign	TEXT,			-- NULL for a single `idlelab bench`
	plan_index	INTEGER,		-- position in the campaign's plan
	param_hash	TEXT,
	start_ns	INTEGER NOT NULL,
	end_ns		INTEGER NOT NULL,
	status		TEXT NOT NULL CHECK (status IN ('ok', 'failed',
				'unsupported', 'interrupted', 'skipped')),
	status_reason	TEXT,
	tool_version	TEXT NOT NULL,
	git_rev		TEXT,
	cmdline		TEXT,
	tsc_khz		INTEGER,		-- NULL when the TSC was not used
	CHECK (end_ns >= start_ns)
) STRICT;

CREATE INDEX runs_machine ON runs (machine_uuid, start_ns);
CREATE INDEX runs_bench ON runs (bench, start_ns);
-- A resumed campaign finds what it already ran by its place in the plan.
CREATE UNIQUE INDEX runs_plan ON runs (campaign, plan_index, param_hash)
	WHERE campaign IS NOT NULL;

-- The environment (cpuidle usage, interrupts, PM QoS, ...) around a run.
CREATE TABLE run_env (
	run_uuid	TEXT NOT NULL REFERENCES runs (uuid) ON DELETE CASCADE,
	phase		TEXT NOT NULL CHECK (phase IN ('before', 'after', 'delta')),
	json		TEXT NOT NULL CHECK (json_valid(json)),
	PRIMARY KEY (run_uuid, phase)
) STRICT;

-- One row per series (harness/series.h): metric x cpu x cpu2 x grp.
-- cpu2 is -1 unless the metric belongs to a CPU pair, grp is -1 unless the
-- benchmark sweeps a count (e.g. IPI targets); -1 rather than NULL keeps
-- them usable in UNIQUE and in plain "=" joins.
CREATE TABLE summaries (
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
	-- from the histogram, within 0.1 %
	p50		INTEGER,
	p90		INTEGER,
	p99		INTEGER,
	p999		INTEGER,
	p9999		INTEGER,
	dropped		INTEGER NOT NULL DEFAULT 0,	-- not recordable
	early		INTEGER NOT NULL DEFAULT 0,	-- woke before launch
	dropped_raw	INTEGER NOT NULL DEFAULT 0,	-- counted, not kept raw
	UNIQUE (run_uuid, metric, cpu, cpu2, grp),
	-- No statistics of nothing: an empty series stores NULLs, not zeros.
	CHECK ((count = 0) = (min IS NULL)),
	CHECK (count > 0 OR (max IS NULL AND mean IS NULL AND stddev IS NULL
		AND p50 IS NULL AND p90 IS NULL AND p99 IS NULL
		AND p999 IS NULL AND p9999 IS NULL))
) STRICT;

-- The mergeable histogram of a summary (stats.h il_hist_encode()); layout
-- is IL_HIST_LAYOUT, repeated outside the BLOB so a query can select the
-- histograms it can merge without decoding them.
CREATE TABLE histograms (
	summary_id	INTEGER PRIMARY KEY
			REFERENCES summaries (id) ON DELETE CASCADE,
	layout		INTEGER NOT NULL,
	blob		BLOB NOT NULL
) STRICT;

-- Raw samples, when asked for: little-endian u64 values (layout 1) or
-- (t_ns, value) pairs (layout 2); count is the number of samples kept, so
-- count + summaries.dropped_raw = summaries.count.
CREATE TABLE raw_samples (
	summary_id	INTEGER PRIMARY KEY
			REFERENCES summaries (id) ON DELETE CASCADE,
	layout		INTEGER NOT NULL CHECK (layout IN (1, 2)),
	count		INTEGER NOT NULL CHECK (count >= 0),
	blob		BLOB NOT NULL,
	CHECK (length(blob) = count * 8 * layout)
) STRICT;

CREATE TABLE counters (
	id		INTEGER PRIMARY KEY,
	run_uuid	TEXT NOT NULL REFERENCES runs (uuid) ON DELETE CASCADE,
	event		TEXT NOT NULL,
	cpu		INTEGER NOT NULL,
	value		REAL,
	unit		TEXT,
	status		TEXT NOT NULL CHECK (status IN ('ok', 'unsupported',
				'unavailable')),
	reason		TEXT,
	-- An event that was not counted has no value, not a value of 0.
	CHECK (status = 'ok' OR value IS NULL)
) STRICT;

CREATE INDEX counters_run ON counters (run_uuid, event, cpu);
CREATE INDEX counters_event ON counters (event);

-- Facts a benchmark records about its run (scheduling policy obtained,
-- NUMA node of a buffer, loop period, ...); cpu is -1 for run-wide facts.
-- Not unique: a benchmark may record one key per thread.
CREATE TABLE run_attrs (
	run_uuid	TEXT NOT NULL REFERENCES runs (uuid) ON DELETE CASCADE,
	cpu		INTEGER NOT NULL DEFAULT -1,
	key		TEXT NOT NULL,
	value		TEXT
) STRICT;

CREATE INDEX run_attrs_run ON run_attrs (run_uuid, key);
