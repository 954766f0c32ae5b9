// SPDX-License-Identifier: GPL-2.0-only
/*
 * advise_verify.c - the reading side of `idlelab advise --verify`: one arm
 * of the confirmation campaign (every ok idle_sweep run stored under one
 * campaign name), its wake latency pooled over every run and idle time,
 * the budget's quantile with its distribution-free upper bound (the same
 * order statistic advise.c uses), and the verdict.  The arm is judged on
 * all of its samples, whatever state they entered: the question is
 * whether the machine, kept to the advised states, meets the budget, not
 * what any one state costs.
 */
#include "advise.h"
#include "err.h"
#include "stats.h"
#include "store.h"
#include "store_sqlite.h"

#include <errno.h>
#include <sqlite3.h>
#include <string.h>

void il_adv_arm_bound(const struct il_hist *h, const struct il_budget *b,
		      double conf, struct il_adv_arm *a)
{
	uint64_t u;

	a->n = h ? il_hist_count(h) : 0;
	a->has_ucb = false;
	a->point_ns = a->ucb_ns = 0;
	a->need_n = 0;
	if (a->n)
		a->point_ns = il_hist_percentile(h, b->q * 100);
	u = a->n ? il_quantile_ucb_rank(a->n, b->q, conf) : 0;
	if (u) {
		a->ucb_ns = il_adv_hist_rank(h, u, true);
		a->has_ucb = true;
	}
	/*
	 * A sample that already exceeds the limit at the quantile's own
	 * rank fails whatever more samples show; otherwise the bound decides.
	 */
	if (a->has_ucb)
		a->check = a->ucb_ns <= b->limit_ns ? IL_ADV_CHECK_MET :
			   IL_ADV_CHECK_NOT_MET;
	else if (a->n && a->point_ns > b->limit_ns)
		a->check = IL_ADV_CHECK_NOT_MET;
	else
		a->check = IL_ADV_CHECK_TOO_FEW;
	if (a->check == IL_ADV_CHECK_TOO_FEW)
		a->need_n = il_quantile_min_n(b->q, conf);
}

const char *il_adv_check_name(enum il_adv_check c)
{
	switch (c) {
	case IL_ADV_CHECK_MET:
		return "met";
	case IL_ADV_CHECK_NOT_MET:
		return "not_met";
	case IL_ADV_CHECK_TOO_FEW:
		return "too_few_samples";
	}
	return "?";
}

int il_advise_arm_load(struct il_store *s, const char *campaign,
		       const struct il_budget *b, double conf,
		       struct il_adv_arm *a)
{
	static const char sql[] =
		"SELECT h.blob, r.uuid FROM summaries s"
		" JOIN runs r ON r.uuid = s.run_uuid"
		" JOIN histograms h ON h.summary_id = s.id"
		" WHERE r.campaign = ?1 AND r.bench = 'idle_sweep'"
		" AND r.status = 'ok' AND s.metric = 'wake_latency'"
		" ORDER BY r.uuid";
	sqlite3 *db = il_store_db(s);
	struct il_hist *all = NULL, *h;
	char last[37] = "";
	sqlite3_stmt *st;
	int rc, ret = 0;

	memset(a, 0, sizeof(*a));
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return il_errorf(-EIO, "advise: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, campaign, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *run = (const char *)sqlite3_column_text(st, 1);

		if (strcmp(last, run)) {
			snprintf(last, sizeof(last), "%s", run);
			a->runs++;
		}
		h = NULL;
		ret = il_hist_decode(sqlite3_column_blob(st, 0),
				     (size_t)sqlite3_column_bytes(st, 0), &h);
		if (ret)
			break;
		ret = il_adv_hist_into(&all, h);
		if (ret)
			break;
	}
	if (rc != SQLITE_DONE && !ret)
		ret = il_errorf(-EIO, "advise: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (!ret)
		il_adv_arm_bound(all, b, conf, a);
	il_hist_free(all);
	return ret;
}
