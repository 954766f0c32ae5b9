#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The quick set of runs of ./run.sh: data/campaigns/quick.yaml, every
# user-space benchmark briefly on this machine, well inside 30 s on two
# CPUs.  Usage: quick.sh IDLELAB DB
#
# Each invocation is a new campaign instance (--name quick-<UTC time>), so
# running ./run.sh again measures again instead of being refused as a
# campaign already in the database.  A benchmark unsupported here is
# stored with its reason and does not fail the set (idlelab-run(1)).
set -u
idlelab=$1
db=$2
exec "$idlelab" run data/campaigns/quick.yaml --db "$db" \
	--name "quick-$(date -u +%Y%m%dT%H%M%SZ)"
