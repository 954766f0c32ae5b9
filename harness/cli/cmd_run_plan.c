// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_run_plan.c - `idlelab run` and the campaign's stored plan
 * (campaign_stored.h, schemas/006_campaigns.sql).  A new campaign stores
 * the file's SHA-256, its --scale and its whole expanded plan before its
 * first run.  Under --resume the stored row decides, before anything is
 * run: a file whose bytes changed is refused with exit 2, naming the
 * entries that differ and how to start a new campaign instead, because
 * resuming it would mix two designs in one campaign's arms; a --scale
 * other than the stored one likewise; and an unchanged file that this
 * idlelab expands differently (a new default, a new default order) gets
 * the stored plan replayed, so the campaign ends as it began.
 *
 * There is no --accept-changed: what a resume of a changed plan would
 * mean (which arm an old run belongs to when its parameters moved) has
 * no answer that keeps both designs honest.  A new campaign name does.
 */
#include "cli.h"
#include "campaign_stored.h"
#include "cmd_run_internal.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file changed, or the scale: refuse, naming what changed. */
static int refuse_changed(const struct il_campaign *c, const char *name,
			  const struct il_stored_campaign *sc)
{
	char diff[1536];
	int n = il_campaign_plan_diff(c, sc->plan, diff, sizeof(diff));

	if (strcmp(sc->sha256, c->sha256))
		return cli_usage_error("run: %s has changed since campaign '%s' started from %s (sha256 %.12s, now %.12s)%s%s%s; its stored runs stay as they are; to measure the file as it is now, start a new campaign: idlelab run %s --name NEW",
				       c->file, name, sc->file, sc->sha256, c->sha256,
				       n > 0 ? ": " : "", n > 0 ? diff : "",
				       n > 0 ? "" : " (the plan is the same)", c->file);
	return cli_usage_error("run: campaign '%s' was planned with --scale %g, not %g; resume it without --scale (its stored plan is used), or start a new campaign with --name NEW",
			       name, sc->scale, c->scale);
}

int run_plan_check(struct il_store *s, const char *host, const char *name,
		   struct il_campaign *c, bool resume, bool scale_given,
		   bool *stored, bool *replayed)
{
	struct il_stored_campaign sc;
	char diff[1536];
	int ret, n, code = IL_EXIT_OK;

	*stored = *replayed = false;
	if (!host)
		return IL_EXIT_OK;	/* no host UUID: resume keys are off too */
	ret = il_store_campaign_get(s, host, name, &sc);
	if (ret < 0)
		return cli_error(IL_EXIT_FAIL, "run: %s", il_errmsg());
	if (!ret)
		return IL_EXIT_OK;
	*stored = true;
	if (!resume)
		goto out;	/* cmd_run refuses a second start by its runs */
	if (strcmp(sc.sha256, c->sha256) || (scale_given && sc.scale != c->scale)) {
		code = refuse_changed(c, name, &sc);
		goto out;
	}
	n = il_campaign_plan_diff(c, sc.plan, diff, sizeof(diff));
	if (n < 0) {
		code = cli_error(IL_EXIT_FAIL, "run: campaign '%s': %s", name, il_errmsg());
		goto out;
	}
	if (!n)
		goto out;
	if (il_campaign_replay(c, sc.plan)) {
		code = cli_usage_error("run: %s; finish it with idlelab %s, which started it, or start a new campaign with --name NEW",
				       il_errmsg(), sc.version);
		goto out;
	}
	*replayed = true;
	fprintf(stderr, "idlelab: run: notice: campaign '%s' resumes on the plan idlelab %s stored (--scale %g); this idlelab would plan %d entr%s differently: %s\n",
		name, sc.version, sc.scale, n, n == 1 ? "y" : "ies", diff);
out:
	il_stored_campaign_free(&sc);
	return code;
}

int run_plan_store(struct il_store *s, const char *host, const char *name,
		   const struct il_campaign *c)
{
	char *json = il_campaign_plan_json(c);
	int ret;

	if (!json)
		return cli_error(IL_EXIT_FAIL, "run: %s", il_errmsg());
	ret = il_store_campaign_put(s, host, name, c, json);
	free(json);
	return ret ? cli_error(IL_EXIT_FAIL, "run: %s", il_errmsg()) : IL_EXIT_OK;
}

int run_plan_stored_scale(struct il_store *s, const char *host,
			  const char *name, double *scale)
{
	struct il_stored_campaign sc;
	int ret;

	if (!host)
		return 0;
	ret = il_store_campaign_get(s, host, name, &sc);
	if (ret < 0) {
		cli_error(IL_EXIT_FAIL, "run: %s", il_errmsg());
		return -IL_EXIT_FAIL;
	}
	if (ret)
		*scale = sc.scale;
	il_stored_campaign_free(&sc);
	return ret;
}
