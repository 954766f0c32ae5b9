-- SPDX-License-Identifier: GPL-2.0-only
-- A campaign's plan as it was made, per machine: the SHA-256 of the
-- campaign file's bytes, the --scale, and the whole expanded plan (a JSON
-- array, one object per plan entry: benchmark, placement, every
-- parameter as stored in runs.params, repetition, order, resume hash).
-- `idlelab run --resume` refuses a file whose bytes changed, and replays
-- this plan rather than a new expansion, so that a later idlelab whose
-- defaults differ never re-plans a stored campaign
-- (harness/campaign_stored.c).  Campaigns started before this table have
-- no row; they resume as before.
CREATE TABLE campaigns (
	machine_uuid TEXT NOT NULL REFERENCES machines(uuid),
	name TEXT NOT NULL,
	file TEXT NOT NULL,		-- the path as given when it started
	file_sha256 TEXT NOT NULL,
	scale REAL NOT NULL,
	nplan INTEGER NOT NULL,
	plan TEXT NOT NULL,		-- JSON array, see above
	idlelab_version TEXT NOT NULL,
	created_ns INTEGER NOT NULL,	-- CLOCK_REALTIME
	PRIMARY KEY (machine_uuid, name)
) STRICT;
