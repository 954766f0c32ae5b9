-- SPDX-License-Identifier: GPL-2.0-only
-- A campaign's resume key is per machine: the same campaign file run on
-- many hosts of a fleet must merge into one database, and --resume on one
-- host must never count another host's runs as done.
DROP INDEX runs_plan;
CREATE UNIQUE INDEX runs_plan ON runs (machine_uuid, campaign, plan_index, param_hash)
	WHERE campaign IS NOT NULL;
