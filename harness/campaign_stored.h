/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * campaign_stored.h - a campaign's plan as it was made, kept in the
 * dataset (schemas/006_campaigns.sql), so that `idlelab run --resume`
 * refuses a campaign file that changed and replays the stored plan
 * instead of a new expansion: a later idlelab whose defaults, order or
 * parameters differ never re-plans a campaign already under way.
 *
 * The plan is a JSON array, one object per entry, in plan order: index,
 * bench, group, group_no, line, cpus, events (null: the default set),
 * raw, causes, causes_lean, params (the exact runs.params text), set (the
 * "key=value" display strings of the keys the file set), repetition,
 * repetitions, order, order_seed (hex) and hash (the resume key).
 * Errors follow err.h.
 */
#ifndef IDLELAB_CAMPAIGN_STORED_H
#define IDLELAB_CAMPAIGN_STORED_H

#include "campaign.h"

struct il_store;

/* A campaigns row. */
struct il_stored_campaign {
	char *file;		/* the path as given when it started */
	char sha256[65];
	double scale;
	int nplan;
	char *plan;		/* the JSON array */
	char *version;		/* the idlelab that made it */
};

/**
 * il_campaign_plan_json() - @c's whole plan as the stored JSON array.
 * Return: a malloc'd string, or NULL (out of memory, with a message).
 */
char *il_campaign_plan_json(const struct il_campaign *c);

/**
 * il_campaign_plan_diff() - how @c's plan differs from the @stored one,
 * entry by entry: the first few differences described in @buf ("#3 was
 * ..., now ..."; "#7 is new: ..."; "#9 is gone: ...").
 * Return: the number of entries that differ (0: the same plan), or
 * -EINVAL when @stored cannot be read.
 */
int il_campaign_plan_diff(const struct il_campaign *c, const char *stored,
			  char *buf, size_t n);

/**
 * il_campaign_replay() - replace @c's plan with the @stored one.  Each
 * entry's typed block is rebuilt from its stored parameters through its
 * benchmark's option table, and must render back to the same runs.params
 * bytes and the same resume hash, or the replay is refused.
 * Return: 0, or -EINVAL (naming the entry) with @c unchanged.
 */
int il_campaign_replay(struct il_campaign *c, const char *stored);

/**
 * il_store_campaign_get() - the stored plan of campaign @name on @machine.
 * Return: 1 with *@out filled (free with il_stored_campaign_free()), 0 if
 * there is none, or -errno.
 */
int il_store_campaign_get(struct il_store *s, const char *machine,
			  const char *name, struct il_stored_campaign *out);

/**
 * il_store_campaign_put() - store @c's plan (@plan_json) as campaign
 * @name on @machine; a row already there is left as it is.
 * Return: 0 or -errno.
 */
int il_store_campaign_put(struct il_store *s, const char *machine,
			  const char *name, const struct il_campaign *c,
			  const char *plan_json);

void il_stored_campaign_free(struct il_stored_campaign *sc);

/** il_sha256_hex() - SHA-256 of @len bytes as 64 hex digits and a NUL. */
void il_sha256_hex(const void *data, size_t len, char out[65]);

#endif
