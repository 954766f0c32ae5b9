// SPDX-License-Identifier: GPL-2.0-only
/*
 * advise_db.c - what a dataset holds for `idlelab advise`: per machine,
 * the cpuidle states of its stored fingerprint and, per state, the
 * idle_sweep samples that entered that state alone (the series
 * wake_latency_in_<state>), pooled over every idle time and every ok run
 * woken by the asked wake source.  Histograms merge exactly; the bound's
 * order statistic is read as the upper edge of its bucket, so it errs high
 * (by at most the layout's 0.1 %), never low.  Samples filed as ambiguous
 * are counted and left out: their state is not known.
 */
#include "advise.h"
#include "err.h"
#include "machine_label.h"
#include "stats.h"
#include "store.h"
#include "store_sqlite.h"

#include <ctype.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

struct rank_walk {
	uint64_t want, seen, v;
	bool hi;
};

static int rank_fn(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
{
	struct rank_walk *w = arg;

	w->seen += count;
	if (w->seen >= w->want) {
		w->v = w->hi ? hi : lo;
		return 1;
	}
	return 0;
}

uint64_t il_adv_hist_rank(const struct il_hist *h, uint64_t rank, bool hi)
{
	struct rank_walk w = { rank, 0, 0, hi };

	il_hist_foreach(h, rank_fn, &w);
	return w.v;
}

int il_adv_hist_into(struct il_hist **into, struct il_hist *h)
{
	int ret;

	if (!*into) {
		*into = h;
		return 0;
	}
	ret = il_hist_merge(*into, h);
	il_hist_free(h);
	return ret;
}

int il_adv_state_index(const struct il_adv_state *st, int n,
		       const char *metric_state)
{
	int k;
	size_t i;

	for (k = 0; k < n; k++) {
		const char *name = st[k].name;

		/* idle_sweep's metric-safe form of the cpuidle name. */
		for (i = 0; name[i] && metric_state[i]; i++) {
			char c = isalnum((unsigned char)name[i]) ||
				 name[i] == '-' ? name[i] : '_';

			if (c != metric_state[i])
				break;
		}
		if (!name[i] && !metric_state[i])
			return k;
	}
	return -1;
}

/* Merge the histograms of machine @m's samples per state, then bound. */
static int load_samples(sqlite3 *db, struct il_adv_machine *m,
			const char *wake, const struct il_budget *b,
			double conf)
{
	static const char sql[] =
		"SELECT s.metric, h.blob, r.uuid FROM summaries s"
		" JOIN runs r ON r.uuid = s.run_uuid"
		" JOIN histograms h ON h.summary_id = s.id"
		" WHERE r.machine_uuid = ?1 AND r.bench = 'idle_sweep'"
		" AND r.status = 'ok' AND json_extract(r.params, '$.wake') = ?2"
		" AND s.metric LIKE 'wake\\_latency%' ESCAPE '\\'"
		" ORDER BY r.uuid";
	struct il_hist *merged[IL_ADV_MAX_STATES] = { NULL };
	char last[37] = "";
	sqlite3_stmt *st;
	int i, rc, ret = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return il_errorf(-EIO, "advise: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, m->uuid, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, wake, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *metric = (const char *)sqlite3_column_text(st, 0);
		const char *run = (const char *)sqlite3_column_text(st, 2);
		struct il_hist *h = NULL;

		if (strcmp(last, run)) {
			snprintf(last, sizeof(last), "%s", run);
			m->runs++;
		}
		/* Every series counts the run; only these are read. */
		if (strncmp(metric, "wake_latency_in_", 16) &&
		    strcmp(metric, "wake_latency_ambiguous"))
			continue;
		ret = il_hist_decode(sqlite3_column_blob(st, 1),
				     (size_t)sqlite3_column_bytes(st, 1), &h);
		if (ret)
			break;
		if (!strcmp(metric, "wake_latency_ambiguous")) {
			m->ambiguous += il_hist_count(h);
			il_hist_free(h);
			continue;
		}
		i = il_adv_state_index(m->st, m->nstates,
				       metric + strlen("wake_latency_in_"));
		if (i < 0) {	/* a state the fingerprint lacks */
			il_hist_free(h);
			continue;
		}
		ret = il_adv_hist_into(&merged[i], h);
		if (ret)
			break;
	}
	if (rc != SQLITE_DONE && !ret)
		ret = il_errorf(-EIO, "advise: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	for (i = 0; i < m->nstates; i++) {
		struct il_adv_state *s = &m->st[i];
		uint64_t u;

		if (!merged[i])
			continue;
		s->n = il_hist_count(merged[i]);
		s->point_ns = il_hist_percentile(merged[i], b->q * 100);
		u = il_quantile_ucb_rank(s->n, b->q, conf);
		if (u) {
			s->ucb_ns = il_adv_hist_rank(merged[i], u, true);
			s->has_ucb = true;
		}
		il_hist_free(merged[i]);
	}
	if (!ret)
		il_advise_choose(m->st, m->nstates, b, conf, &m->advice);
	return ret;
}

int il_advise_machines(struct il_store *s, const char *machine,
		       const char *wake, const struct il_budget *b,
		       double conf, struct il_adv_machine **out)
{
	static const char sql[] =
		"SELECT m.uuid, " IL_MACHINE_LABEL_M ", m.fingerprint"
		" FROM machines m WHERE m.fingerprint IS NOT NULL"
		" AND m.is_reference = 0"
		" AND (?1 IS NULL OR m.hostname = ?1 OR m.uuid LIKE ?1 || '%')"
		" ORDER BY 2";
	sqlite3 *db = il_store_db(s);
	struct il_adv_machine *v = NULL, *m;
	sqlite3_stmt *st;
	int n = 0, rc, ret = 0;

	*out = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return il_errorf(-EIO, "advise: %s", sqlite3_errmsg(db));
	if (machine)
		sqlite3_bind_text(st, 1, machine, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *fp;

		m = realloc(v, (size_t)(n + 1) * sizeof(*v));
		if (!m) {
			ret = il_errorf(-ENOMEM, "out of memory");
			break;
		}
		v = m;
		m = &v[n++];
		memset(m, 0, sizeof(*m));
		snprintf(m->uuid, sizeof(m->uuid), "%s",
			 (const char *)sqlite3_column_text(st, 0));
		snprintf(m->host, sizeof(m->host), "%s",
			 (const char *)sqlite3_column_text(st, 1));
		fp = json_loads((const char *)sqlite3_column_text(st, 2), 0,
				NULL);
		m->nstates = il_adv_states_from_fingerprint(fp, m->st,
							    IL_ADV_MAX_STATES,
							    m->driver,
							    sizeof(m->driver),
							    m->why,
							    sizeof(m->why));
		json_decref(fp);
		ret = load_samples(db, m, wake, b, conf);
		if (ret)
			break;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW && !ret)
		ret = il_errorf(-EIO, "advise: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (ret) {
		free(v);
		return ret;
	}
	if (!n && machine)
		il_errorf(-ENOENT, "--machine '%s': no measured machine of that hostname or UUID in the database",
			  machine);
	*out = v;
	return n;
}
