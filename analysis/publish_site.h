/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * publish_site.h - the parts of the comparison site (publish_site.c) that
 * compare machines (publish_site_compare.c).
 */
#ifndef IDLELAB_PUBLISH_SITE_H
#define IDLELAB_PUBLISH_SITE_H

#include <stdio.h>

struct il_store;

/* A machine of the bundle, as the site shows it. */
struct site_machine {
	char *label;		/* the reports' machine column */
	char *uuid;
	char *fingerprint;	/* JSON, or NULL */
	int is_reference;
};

/**
 * site_side_by_side() - one table, a row per benchmark x parameters x
 * metric x CPU x targets, and per machine its median and p99 (the
 * results table's pooled figures), so machines read across one row.
 */
int site_side_by_side(struct il_store *s, const struct site_machine *m, int n,
		      FILE *f);
/**
 * site_ab() - the A/B table (compare.c) of each measured machine
 * against the first, where there are two or more; its verdicts say
 * "no evidence of a change" where the interval holds 0.
 */
int site_ab(struct il_store *s, const struct site_machine *m, int n, FILE *f);

#endif
