// SPDX-License-Identifier: GPL-2.0-only
/*
 * ipi.c - the IPI scaling table: one row per machine x target count N,
 * and per mode the median time of one round and that time divided by N
 * (the cost per target arrival).  Rows are those of the metric each
 * benchmark declares as its IPI round (bench.h's report.ipi_metric, group =
 * N).  A benchmark that declares ipi_by_mode gives one column per value of
 * its `mode` parameter (ipi_storm: physical, logical, broadcast, kernel),
 * any other one column under its own name (the user-space twins
 * membarrier_ipi and tlb_shootdown), so seed 001's physical-against-cluster
 * question and its user-space view sit in one table.
 */
#include "analysis.h"
#include "bench.h"
#include "err.h"
#include "groups.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODES 16

struct ipi_ctx {
	struct il_grps g;
	int nmodes;
	char *modes[MAX_MODES];
};

static int add(const struct il_srow *r, void *arg)
{
	struct ipi_ctx *c = arg;
	char key[512], n[24];
	const struct il_bench_report *d;
	const char *labels[6], *mode;
	int i;

	if (r->grp < 0)
		return 0;
	d = il_bench_report_of(r->bench);
	if (!d->ipi_metric || strcmp(r->metric, d->ipi_metric))
		return 0;
	mode = d->ipi_by_mode && *r->mode ? r->mode : r->bench;
	for (i = 0; i < c->nmodes && strcmp(c->modes[i], mode); i++)
		;
	if (i == c->nmodes) {
		if (c->nmodes == MAX_MODES)
			return 0;
		c->modes[c->nmodes++] = strdup(mode);
	}
	/* Zero-padded N so the sorted keys put 2 before 10. */
	snprintf(key, sizeof(key), "%s\x1f%s\x1f%010" PRId64 "\x1f%s", r->host,
		 r->machine_uuid, r->grp, mode);
	snprintf(n, sizeof(n), "%" PRId64, r->grp);
	labels[0] = r->host;
	labels[1] = n;
	labels[2] = mode;
	labels[3] = NULL;
	return il_grps_add(&c->g, key, labels, r);
}

static int mode_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int il_report_ipi(struct il_store *s, const struct il_analysis_opts *o,
		  struct il_table **out)
{
	struct ipi_ctx c = { 0 };
	const char *cols[2 + 2 * MAX_MODES];
	char colbuf[2 * MAX_MODES][96];
	struct il_table *t = NULL;
	int i, j, k, ret;

	*out = NULL;
	ret = il_rows_foreach(s, o->bench, NULL, add, &c);
	if (ret)
		goto out;
	il_grps_sort(&c.g);
	qsort(c.modes, c.nmodes, sizeof(c.modes[0]), mode_cmp);
	cols[0] = "Machine";
	cols[1] = "Targets";
	for (k = 0; k < c.nmodes; k++) {
		snprintf(colbuf[2 * k], sizeof(colbuf[0]), "%s round median (ns)", c.modes[k]);
		snprintf(colbuf[2 * k + 1], sizeof(colbuf[0]), "%s per target (ns)", c.modes[k]);
		cols[2 + 2 * k] = colbuf[2 * k];
		cols[3 + 2 * k] = colbuf[2 * k + 1];
	}
	t = il_table_new("IPI cost against the number of targets", 2 + 2 * c.nmodes, cols);
	if (!t) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out;
	}
	/* Groups sorted by machine, N, mode: one table row per (machine, N). */
	for (i = 0; !ret && i < c.g.n; i = j) {
		char vals[2 * MAX_MODES][32];
		const char *cells[2 + 2 * MAX_MODES];

		for (k = 0; k < 2 * c.nmodes; k++)
			snprintf(vals[k], sizeof(vals[k]), "-");
		for (j = i; j < c.g.n && !strcmp(c.g.v[j].label[0], c.g.v[i].label[0]) &&
		     !strcmp(c.g.v[j].label[1], c.g.v[i].label[1]); j++) {
			const struct il_grp *p = &c.g.v[j];
			int64_t med = il_grp_pct(p, 50), n = atoll(p->label[1]);

			for (k = 0; k < c.nmodes && strcmp(c.modes[k], p->label[2]); k++)
				;
			if (k == c.nmodes || med < 0)
				continue;
			snprintf(vals[2 * k], sizeof(vals[0]), "%" PRId64, med);
			if (n > 0)
				snprintf(vals[2 * k + 1], sizeof(vals[0]), "%.1f", (double)med / (double)n);
		}
		cells[0] = c.g.v[i].label[0];
		cells[1] = c.g.v[i].label[1];
		for (k = 0; k < 2 * c.nmodes; k++)
			cells[2 + k] = vals[k];
		ret = il_table_add(t, cells);
	}
	if (!ret)
		ret = il_table_note(t, "Round: from the first send to the last target's acknowledgement (ipi_storm), or around one membarrier()/madvise() call; per target = round median / targets.");
out:
	if (ret) {
		il_table_free(t);
		t = NULL;
	}
	*out = t;
	for (k = 0; k < c.nmodes; k++)
		free(c.modes[k]);
	il_grps_free(&c.g);
	return ret;
}
