// SPDX-License-Identifier: GPL-2.0-only
/*
 * ipi_modes.c - seed 001's question in one table: the same storm in each
 * destination mode, side by side.  For every benchmark that declares
 * report.ipi_by_mode (ipi_storm), one row per machine x configuration
 * without the mode x target count N, and one column per mode seen, each
 * the median round of that mode's runs with the number of runs behind it.
 *
 * The scaling table (ipi.c) keeps the modes apart as configurations, which
 * is right for the marginal cost and the fit; a reader comparing physical
 * with cluster-logical delivery at one N wants them in one row.
 */
#include "analysis.h"
#include "bench.h"
#include "err.h"
#include "groups.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODES	8

struct modes_ctx {
	struct il_grps g;
	char *mode[MAX_MODES];
	int nmodes;
};

/* @label ("k=v k=v ...") without its "mode=..." token, into @out. */
static void drop_mode(const char *label, char *out, size_t len)
{
	const char *p = label;
	size_t used = 0;

	out[0] = 0;
	while (*p) {
		size_t n = strcspn(p, " ");

		if (strncmp(p, "mode=", 5) && used + n + 2 < len) {
			used += (size_t)snprintf(out + used, len - used, "%s%.*s",
						 used ? " " : "", (int)n, p);
		}
		p += n;
		p += strspn(p, " ");
	}
}

static int mode_index(struct modes_ctx *c, const char *mode)
{
	int i;

	for (i = 0; i < c->nmodes; i++)
		if (!strcmp(c->mode[i], mode))
			return i;
	if (c->nmodes == MAX_MODES)
		return il_errorf(-E2BIG, "more than %d IPI modes", MAX_MODES);
	c->mode[c->nmodes] = strdup(mode);
	if (!c->mode[c->nmodes])
		return il_errorf(-ENOMEM, "out of memory");
	return c->nmodes++;
}

static int add(const struct il_srow *r, void *arg)
{
	struct modes_ctx *c = arg;
	const struct il_bench_report *d = il_bench_report_of(r->bench);
	char label[512], cfg[512], row[1200], key[1300], n[24];
	const char *labels[6];
	int ret;

	if (!d->ipi_metric || !d->ipi_by_mode || strcmp(r->metric, d->ipi_metric) ||
	    r->grp < 0 || !r->mode || !*r->mode || r->is_ref)
		return 0;
	if (il_params_label(r->bench, r->params, IL_PARAMS_DROP_LISTS, label, sizeof(label)))
		return il_errorf(-EINVAL, "run %s: %s", r->run_uuid, il_errmsg());
	drop_mode(label, cfg, sizeof(cfg));
	ret = mode_index(c, r->mode);
	if (ret < 0)
		return ret;
	/* Zero-padded N so the sorted rows put 2 before 10. */
	snprintf(row, sizeof(row), "%s\x1f%s\x1f%s\x1f%s\x1f%010" PRId64, r->host,
		 r->machine_uuid, r->bench, cfg, r->grp);
	snprintf(key, sizeof(key), "%s\x1f%s", row, r->mode);
	snprintf(n, sizeof(n), "%" PRId64, r->grp);
	labels[0] = r->host;
	labels[1] = r->bench;
	labels[2] = cfg;
	labels[3] = n;
	labels[4] = row;
	labels[5] = r->mode;
	return il_grps_add(&c->g, key, labels, r);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int build(struct modes_ctx *c, struct il_table **out)
{
	const char *cols[4 + MAX_MODES], *cells[4 + MAX_MODES];
	char head[MAX_MODES][48], cell[MAX_MODES][48];
	struct il_table *t;
	int i, j, k, ret = 0;

	qsort(c->mode, (size_t)c->nmodes, sizeof(c->mode[0]), by_name);
	cols[0] = "Machine";
	cols[1] = "Benchmark";
	cols[2] = "Configuration";
	cols[3] = "Targets";
	for (k = 0; k < c->nmodes; k++) {
		snprintf(head[k], sizeof(head[k]), "%s: round median, ns (runs)", c->mode[k]);
		cols[4 + k] = head[k];
	}
	t = il_table_new("IPI destination modes side by side", 4 + c->nmodes, cols);
	if (!t)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; !ret && i < c->g.n; i = j) {
		const struct il_grp *p = &c->g.v[i];

		for (k = 0; k < c->nmodes; k++) {
			snprintf(cell[k], sizeof(cell[k]), "-");
			cells[4 + k] = cell[k];
		}
		for (j = i; j < c->g.n && !strcmp(c->g.v[j].label[4], p->label[4]); j++) {
			const struct il_grp *q = &c->g.v[j];
			int64_t med = il_grp_pct(q, 50);

			for (k = 0; k < c->nmodes && strcmp(c->mode[k], q->label[5]); k++)
				;
			if (k < c->nmodes && med >= 0)
				snprintf(cell[k], sizeof(cell[k]), "%" PRId64 " (%d)", med, q->runs);
		}
		cells[0] = p->label[0];
		cells[1] = p->label[1];
		cells[2] = *p->label[2] ? p->label[2] : "-";
		cells[3] = p->label[3];
		ret = il_table_add(t, cells);
	}
	if (!ret)
		ret = il_table_note(t, "One row per machine, benchmark, configuration (the run parameters except "
				    "the mode, sample counts and targets list) and target count; one column per "
				    "destination mode: the median round, from the first send to the last target's "
				    "acknowledgement, over all that mode's rounds, with the number of runs merged. "
				    "'-': the mode did not run there (an unsupported run is not a measurement).");
	if (ret) {
		il_table_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

int il_report_ipi_modes(struct il_store *s, const struct il_analysis_opts *o,
			struct il_table **out)
{
	struct modes_ctx c;
	int i, ret;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	ret = il_rows_foreach(s, o->bench, NULL, add, &c);
	if (!ret && c.g.n) {
		il_grps_sort(&c.g);
		ret = build(&c, out);
	}
	for (i = 0; i < c.nmodes; i++)
		free(c.mode[i]);
	il_grps_free(&c.g);
	return ret;
}
