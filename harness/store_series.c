// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_series.c - the part of a run's transaction (store_run.c) that
 * writes its series: per series one summaries row with the percentiles,
 * the histogram BLOB and, on request, the raw samples as a little-endian
 * BLOB; or a summary known only from published figures.
 *
 * It is apart from store_run.c because it is its own job: what a series'
 * figures become in the database (which statistics are NULL rather than
 * 0, exact or bucketed percentiles, how many raw samples fit in a BLOB),
 * while store_run.c writes the run's other rows and owns the transaction.
 */
#include "store.h"
#include "err.h"
#include "stats.h"
#include "store_internal.h"

#include <endian.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * One summaries row, whichever way its figures were obtained: measured
 * (store_put_series()) or published (store_put_published()).  Statistics
 * not known are left unbound, which stores NULL rather than a fake 0.
 */
struct summary_row {
	const char *metric, *unit;
	int cpu, cpu2;
	int64_t grp;
	uint64_t count, dropped, early, dropped_raw;
	const uint64_t *drop;		/* by reason, IL_DROP_NREASONS;
					 * NULL: not known, stored as NULL */
	bool has_stats;			/* min, max and mean */
	uint64_t min, max;
	double mean;
	bool has_stddev;
	double stddev;
	int npct;			/* p50, p90, p99, p99.9, p99.99 known */
	uint64_t pct[5];
};

static int put_summary_row(struct il_store *s, const char *run,
			   const struct summary_row *row, int64_t *id)
{
	sqlite3_stmt *st;
	int i, rc, ret;

	ret = store_stmt(s, ST_SUMMARY, &st);
	if (ret)
		return ret;
	rc = store_bind_text(st, 1, run) ?:
	     store_bind_text(st, 2, row->metric) ?:
	     store_bind_text(st, 3, row->unit) ?:
	     store_bind_i64(st, 4, row->cpu) ?:
	     store_bind_i64(st, 5, row->cpu2) ?:
	     store_bind_i64(st, 6, row->grp) ?:
	     store_bind_u64(st, 7, row->count) ?:
	     store_bind_u64(st, 17, row->dropped) ?:
	     store_bind_u64(st, 18, row->early) ?:
	     store_bind_u64(st, 19, row->dropped_raw);
	for (i = 0; !rc && row->drop && i < IL_DROP_NREASONS; i++)
		rc = store_bind_u64(st, 20 + i, row->drop[i]);
	if (!rc && row->has_stats)
		rc = store_bind_u64(st, 8, row->min) ?:
		     store_bind_u64(st, 9, row->max) ?:
		     sqlite3_bind_double(st, 10, row->mean);
	if (!rc && row->has_stddev)
		rc = sqlite3_bind_double(st, 11, row->stddev);
	for (i = 0; !rc && i < row->npct; i++)
		rc = store_bind_u64(st, 12 + i, row->pct[i]);
	ret = store_step_bound(s, st, rc, "storing a summary");
	if (!ret)
		*id = sqlite3_last_insert_rowid(s->db);
	return ret;
}

static int percentiles_of(const struct il_series *se, const double *pct,
			  int n, uint64_t *out);

/*
 * The stored percentiles of one run's series: exact order statistics
 * where every sample was kept raw (issue 22: the bucket's top had stood
 * for them), else the bucket midpoint clamped to the exact Min and Max.
 * Samples dropped for range (a cyclictest import's overflow) rank above
 * every recorded one (il_pct_over()): a percentile whose rank falls among
 * them is not known, only "above the histogram", and is left out: the
 * return is how many of @pct (ascending) are known, the rest stay NULL.
 */
static int exact_percentiles(const struct il_series *se, const double *pct,
			     int n, uint64_t *out)
{
	uint64_t over = se->sum.drop_split ? se->sum.drop[IL_DROP_RANGE] : 0;
	double p[8];
	int known;

	for (known = 0; known < n && known < 8; known++) {
		p[known] = pct[known];
		if (!il_pct_over(se->sum.count, over, &p[known]))
			break;
	}
	return percentiles_of(se, p, known, out);
}

/* Percentiles @pct of @se: from its raw samples if all kept, else its
 * histogram. */
static int percentiles_of(const struct il_series *se, const double *pct,
			  int n, uint64_t *out)
{
	size_t k, nv = se->raw_layout == IL_RAW_TIMED ? se->raw_len / 2 : se->raw_len;
	uint64_t *v = NULL;
	int i;

	/* Only when the raw samples are the histogram's samples, all of them. */
	if (se->raw && nv && nv == se->sum.count && !se->dropped_raw)
		v = malloc(nv * sizeof(*v));
	for (k = 0; v && k < nv; k++)
		v[k] = se->raw_layout == IL_RAW_TIMED ? se->raw[2 * k + 1] : se->raw[k];
	for (i = 0; i < n; i++)
		out[i] = v ? il_percentile_exact(v, nv, pct[i]) :
		     il_hist_percentile_in(se->hist, pct[i], se->sum.min,
					   se->sum.max);
	free(v);
	return n;
}

static int put_summary(struct il_store *s, const char *run,
		       const struct il_series *se, uint64_t dropped_raw,
		       int64_t *id)
{
	static const double pct[] = { 50, 90, 99, 99.9, 99.99 };
	const struct il_summary *sum = &se->sum;
	struct summary_row row = {
		.metric = se->metric, .unit = se->unit,
		.cpu = se->cpu, .cpu2 = se->cpu2, .grp = se->group,
		.count = sum->count, .dropped = sum->dropped,
		.early = sum->early, .dropped_raw = dropped_raw,
	};
	uint64_t split = 0;
	int i;

	/* The split is stored only where it accounts for the total: a
	 * caller that counted sum.dropped by hand left it unknown. */
	for (i = 0; i < IL_DROP_NREASONS; i++)
		split += sum->drop[i];
	if (sum->drop_split && split == sum->dropped)
		row.drop = sum->drop;

	/* Statistics of no samples stay NULL. */
	if (sum->count) {
		row.has_stats = true;
		row.min = sum->min;
		row.max = sum->max;
		row.mean = sum->mean;
		/* One sample has no sample standard deviation. */
		row.has_stddev = sum->count > 1;
		row.stddev = row.has_stddev ? il_summary_stddev(sum) : 0;
		row.npct = exact_percentiles(se, pct,
					     (int)(sizeof(pct) / sizeof(pct[0])),
					     row.pct);
	}
	return put_summary_row(s, run, &row, id);
}

static int put_hist(struct il_store *s, int64_t id, const struct il_hist *h)
{
	sqlite3_stmt *st;
	uint8_t *buf;
	size_t len;
	int rc, ret;

	ret = il_hist_encode(h, &buf, &len);
	if (ret)
		return ret;
	ret = store_stmt(s, ST_HIST, &st);
	if (ret)
		goto out;
	rc = store_bind_i64(st, 1, id) ?:
	     store_bind_i64(st, 2, IL_HIST_LAYOUT) ?:
	     sqlite3_bind_blob64(st, 3, buf, len, SQLITE_STATIC);
	ret = store_step_bound(s, st, rc, "storing a histogram");
out:
	free(buf);
	return ret;
}

/*
 * How many raw samples fit in one BLOB: SQLite refuses a row longer than
 * SQLITE_LIMIT_LENGTH (10^9 bytes by default), which 64 M timed samples
 * exceed.  What does not fit is counted in dropped_raw like any other
 * sample that was not kept, rather than failing the whole run.
 */
static size_t raw_fit(struct il_store *s, size_t nsamples, size_t words)
{
	int64_t limit = sqlite3_limit(s->db, SQLITE_LIMIT_LENGTH, -1);
	size_t max = (size_t)(limit - 64) / (8 * words);

	return nsamples < max ? nsamples : max;
}

static int put_raw(struct il_store *s, int64_t id, const struct il_series *se,
		   size_t nsamples)
{
	size_t words = se->raw_layout == IL_RAW_TIMED ? 2 : 1;
	size_t nwords = nsamples * words, i;
	const void *blob = se->raw;
	uint64_t *le = NULL;
	sqlite3_stmt *st;
	int rc, ret;

	/*
	 * The BLOB is little-endian by definition, whatever the host.  Where
	 * the host is little-endian the samples already are that byte string
	 * and are bound in place: copying hundreds of MB would cost more than
	 * the rest of the ingest.  Elsewhere they are converted into a copy.
	 */
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) {
		le = malloc(nwords * sizeof(*le));
		if (!le)
			return il_errorf(-ENOMEM, "out of memory for %zu raw samples",
					 nsamples);
		for (i = 0; i < nwords; i++)
			le[i] = htole64(se->raw[i]);
		blob = le;
	}
	ret = store_stmt(s, ST_RAW, &st);
	if (ret)
		goto out;
	rc = store_bind_i64(st, 1, id) ?:
	     store_bind_i64(st, 2, se->raw_layout) ?:
	     store_bind_u64(st, 3, nsamples) ?:
	     sqlite3_bind_blob64(st, 4, blob, nwords * sizeof(uint64_t),
				 SQLITE_STATIC);
	ret = store_step_bound(s, st, rc, "storing raw samples");
out:
	free(le);
	return ret;
}

int store_put_series(struct il_store *s, const char *run,
		     const struct il_series *se)
{
	size_t words = se->raw_layout == IL_RAW_TIMED ? 2 : 1;
	size_t nraw = 0, keep = 0;
	int64_t id = 0;
	int ret;

	if (!se || !se->hist)
		return il_errorf(-EINVAL, "run %s: a series without a histogram",
				 run);
	if (se->keep_raw && se->raw_len) {
		nraw = se->raw_len / words;
		keep = raw_fit(s, nraw, words);
	}
	ret = put_summary(s, run, se, se->dropped_raw + (nraw - keep), &id);
	if (!ret)
		ret = put_hist(s, id, se->hist);
	if (!ret && keep)
		ret = put_raw(s, id, se, keep);
	return ret;
}

/*
 * A summary known only from its published figures: the percentiles past
 * the median stay NULL, and its histogram is the caller's placeholder.
 */
int store_put_published(struct il_store *s, const char *run,
			 const struct il_published_series *p)
{
	static const uint64_t none[IL_DROP_NREASONS];
	struct summary_row row = {
		.metric = p->metric, .unit = p->unit,
		.cpu = -1, .cpu2 = -1, .grp = -1, .count = p->count,
		.has_stats = true, .min = p->min, .max = p->max,
		.mean = p->mean,
		.has_stddev = !isnan(p->stddev), .stddev = p->stddev,
		.npct = 1, .pct = { p->median },
		.drop = none,		/* dropped is 0 */
	};
	int64_t id;
	int ret;

	if (!p->metric || !p->unit || !p->hist)
		return il_errorf(-EINVAL, "run %s: a published series needs metric, unit and histogram",
				 run);
	ret = put_summary_row(s, run, &row, &id);
	return ret ? ret : put_hist(s, id, p->hist);
}
