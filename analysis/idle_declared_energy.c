// SPDX-License-Identifier: GPL-2.0-only
/*
 * idle_declared_energy.c - the energy columns of `report --kind declared`
 * (issue 24).  idle_sweep stores, per state entered, the sums of the idle
 * time d and of the package energy E of each sample (run attributes
 * energy_in_STATE), or why it could not read RAPL (attribute energy,
 * "unavailable: ...").  Pooled over the runs, a least-squares line
 * E = a + b*d per state gives a, the energy of one wake with no idle time
 * (entry and exit), and b, the power while idle in it.  The energy
 * break-even of a state against a shallower one is the idle time at which
 * their lines cross, (a_deep - a_shallow) / (b_shallow - b_deep): the
 * shortest idle after which the deeper state saves energy.  Package energy
 * includes every CPU of the package, so these are a machine's costs
 * around one wake, not one core's.  A cell that cannot be given says why
 * ("unavailable: ..."), never 0.
 */
#include "err.h"
#include "idle_declared.h"
#include "store.h"
#include "store_sqlite.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

bool il_dcl_energy_fit(const struct dcl_energy *e, double *a, double *b)
{
	double n = (double)e->n, den = n * e->sdd - e->sd * e->sd;

	/* One d only (or none): the slope is not defined. */
	if (e->n < 2 || den <= 1e-9 * n * e->sdd)
		return false;
	*b = (n * e->sde - e->sd * e->se) / den;
	*a = (e->se - *b * e->sd) / n;
	return true;
}

/* Add attribute @key = @val of a run to block @b. */
static void energy_add(struct dcl_block *b, const char *key, const char *val)
{
	struct dcl_energy x;
	int k;

	if (!strcmp(key, "energy")) {
		if (strncmp(val, "unavailable: ", 13))
			b->en_ok = true;
		else if (!b->en_ok)
			snprintf(b->en_why, sizeof(b->en_why), "%s", val + 13);
		return;
	}
	k = il_adv_state_index(b->st, b->nstates, key + strlen("energy_in_"));
	if (k < 0 || sscanf(val, "%" SCNu64 " %lf %lf %lf %lf", &x.n, &x.sd,
			    &x.se, &x.sdd, &x.sde) != 5)
		return;
	b->en[k].n += x.n;
	b->en[k].sd += x.sd;
	b->en[k].se += x.se;
	b->en[k].sdd += x.sdd;
	b->en[k].sde += x.sde;
}

int il_dcl_energy_load(struct il_store *s, struct dcl_block *v, int n)
{
	static const char sql[] =
		"SELECT r.machine_uuid, coalesce(json_extract(r.params, '$.wake'), '?'),"
		" a.key, a.value," IL_DCL_KERNEL
		" FROM run_attrs a JOIN runs r ON r.uuid = a.run_uuid" IL_DCL_JOIN
		" WHERE r.bench = 'idle_sweep' AND r.status = 'ok' AND a.value IS NOT NULL"
		" AND (a.key = 'energy' OR a.key LIKE 'energy\\_in\\_%' ESCAPE '\\')";
	sqlite3 *db = il_store_db(s);
	sqlite3_stmt *st;
	int i, rc;

	for (i = 0; i < n; i++)
		snprintf(v[i].en_why, sizeof(v[i].en_why),
			 "not recorded (idle_sweep before energy was read)");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return il_errorf(-EIO, "report: %s", sqlite3_errmsg(db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		for (i = 0; i < n; i++)
			if (!strcmp(v[i].uuid, (const char *)sqlite3_column_text(st, 0)) &&
			    !strcmp(v[i].wake, (const char *)sqlite3_column_text(st, 1)) &&
			    !strncmp(v[i].kernel, (const char *)sqlite3_column_text(st, 4),
				     sizeof(v[i].kernel) - 1))
				energy_add(&v[i], (const char *)sqlite3_column_text(st, 2),
					   (const char *)sqlite3_column_text(st, 3));
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return il_errorf(-EIO, "report: %s", sqlite3_errmsg(db));
	return 0;
}

void il_dcl_energy_cells(const struct dcl_block *b, int k, char *wake,
			 size_t wlen, char *be, size_t blen)
{
	const struct dcl_energy *e = &b->en[k];
	double a, s, a0, s0;
	int j;

	if (!b->en_ok) {
		snprintf(wake, wlen, "unavailable: %s", b->en_why);
		snprintf(be, blen, "unavailable: %s", b->en_why);
		return;
	}
	snprintf(wake, wlen, "-");
	snprintf(be, blen, "-");
	if (!e->n)
		return;
	snprintf(wake, wlen, "%.1f", e->se / (double)e->n);
	if (!il_dcl_energy_fit(e, &a, &s)) {
		snprintf(be, blen, "- (one idle time: no fit)");
		return;
	}
	for (j = k - 1; j >= 0; j--)
		if (il_dcl_energy_fit(&b->en[j], &a0, &s0))
			break;
	if (j < 0)
		return;		/* the shallowest measured: nothing to pay off */
	if (s0 <= s)
		snprintf(be, blen, "never: draws no less power than %s",
			 b->st[j].name);
	else
		snprintf(be, blen, "%.0f (vs %s)",
			 (a - a0) / (s0 - s) > 0 ? (a - a0) / (s0 - s) : 0,
			 b->st[j].name);
}
