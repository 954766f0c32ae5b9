/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_sqlite.h - the one door from an open dataset (store.h) to its
 * SQLite connection, for code whose work is SQL of its own.
 *
 * store.h stores runs and says nothing of SQLite, so code that only
 * writes runs (the runner, import, a campaign's bookkeeping through
 * campaign.h) never sees a sqlite3 handle.  Who comes through here:
 *   - analysis/: the reports and the export are read-only queries over
 *     the schema's tables (schemas/NNN_*.sql), too many and too varied
 *     to become store.h functions, so they genuinely need the raw
 *     handle; they never write through it;
 *   - the store's own satellites in harness/ (store_campaign.c,
 *     store_campaign_plan.c, store_merge.c), which query and write their
 *     tables beside store_open.c without reaching into store_internal.h;
 *   - tools/bench-ingest.c and tests/unit/, which compare against or
 *     inspect the rows directly.
 * The handle stays the store's: never close it, and leave no transaction
 * open across a store.h call.
 */
#ifndef IDLELAB_STORE_SQLITE_H
#define IDLELAB_STORE_SQLITE_H

#include <sqlite3.h>

#include "store.h"

/** il_store_db() - the sqlite3 connection of the open dataset @s. */
sqlite3 *il_store_db(struct il_store *s);

#endif
