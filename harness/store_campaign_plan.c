// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_campaign_plan.c - the campaigns table (schemas/006_campaigns.sql):
 * a campaign's stored plan, read back for --resume and written once when
 * the campaign starts (campaign_stored.h).  Like store_campaign.c it uses
 * only il_store_db(); a row is never updated, so a resume cannot rewrite
 * the plan it is held to.
 */
#include "campaign_stored.h"
#include "err.h"
#include "store.h"
#include "store_sqlite.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *col_dup(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return strdup(s ? s : "");
}

int il_store_campaign_get(struct il_store *s, const char *machine,
			  const char *name, struct il_stored_campaign *out)
{
	sqlite3 *db = il_store_db(s);
	sqlite3_stmt *st;
	const char *sha;
	int rc, ret = 0;

	memset(out, 0, sizeof(*out));
	rc = sqlite3_prepare_v2(db,
		"SELECT file, file_sha256, scale, nplan, plan, idlelab_version"
		" FROM campaigns WHERE machine_uuid = ?1 AND name = ?2",
		-1, &st, NULL);
	if (rc != SQLITE_OK)
		return il_errorf(-EIO, "reading the stored plan: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, machine, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		sha = (const char *)sqlite3_column_text(st, 1);
		snprintf(out->sha256, sizeof(out->sha256), "%s", sha ? sha : "");
		out->scale = sqlite3_column_double(st, 2);
		out->nplan = sqlite3_column_int(st, 3);
		out->file = col_dup(st, 0);
		out->plan = col_dup(st, 4);
		out->version = col_dup(st, 5);
		ret = out->file && out->plan && out->version ? 1 :
		      il_errorf(-ENOMEM, "out of memory");
	} else if (rc != SQLITE_DONE) {
		ret = il_errorf(-EIO, "reading the stored plan: %s", sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	if (ret < 0)
		il_stored_campaign_free(out);
	return ret;
}

int il_store_campaign_put(struct il_store *s, const char *machine,
			  const char *name, const struct il_campaign *c,
			  const char *plan_json)
{
	sqlite3 *db = il_store_db(s);
	sqlite3_stmt *st;
	struct timespec ts;
	int rc;

	clock_gettime(CLOCK_REALTIME, &ts);
	rc = sqlite3_prepare_v2(db,
		"INSERT OR IGNORE INTO campaigns (machine_uuid, name, file,"
		" file_sha256, scale, nplan, plan, idlelab_version, created_ns)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return il_errorf(-EIO, "storing the campaign's plan: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, machine, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, c->file, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, c->sha256, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 5, c->scale);
	sqlite3_bind_int(st, 6, c->nplan);
	sqlite3_bind_text(st, 7, plan_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, IL_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)ts.tv_sec * 1000000000 + ts.tv_nsec);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return il_errorf(-EIO, "storing the campaign's plan: %s", sqlite3_errmsg(db));
	return 0;
}

void il_stored_campaign_free(struct il_stored_campaign *sc)
{
	free(sc->file);
	free(sc->plan);
	free(sc->version);
	memset(sc, 0, sizeof(*sc));
}
