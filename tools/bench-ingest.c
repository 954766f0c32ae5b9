// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-ingest.c - BENCHMARKS.md figure 2: sample ingest, from measured
 * samples to a committed database with histogram and raw BLOB.
 *
 * The same N synthetic wake latencies (generated in memory first, outside
 * every timing) go into a fresh database file two ways:
 *
 *   idlelab  il_series_add() for every sample (exact summary, histogram,
 *            raw copy), then il_store_save_run() with keep_raw: one
 *            transaction holding the summary row, the histogram BLOB and
 *            the raw BLOB, committed.  Timed from the first sample to the
 *            return of the COMMIT, which includes SQLite's automatic WAL
 *            checkpoint and its fsync()s.
 *   rows     the plain alternative: one prepared INSERT per sample into
 *            samples(run INTEGER, value INTEGER) inside one transaction,
 *            same WAL and synchronous=NORMAL settings, timed from BEGIN to
 *            the return of COMMIT.  It computes no statistics at all, so
 *            it is a lower bound on the cost of that design.
 *
 * Opening the file and creating the schema are per-database costs, not per
 * sample, and stay outside both timings.  Each repetition uses a new file.
 * The last line, "RESULT ...", is for scripts (tools/bench-ingest.sh).
 */
#include "err.h"
#include "series.h"
#include "stats.h"
#include "store.h"
#include "store_sqlite.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MACHINE_UUID	"00000000-0000-4000-8000-000000000000"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_next(uint64_t *x)
{
	/* xorshift64*: fast, and the same data on every run and host. */
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * UINT64_C(2685821657736338717);
}

/*
 * A wake-latency-like distribution: a floor, an exponential body and a
 * sparse long tail, so the histogram spans a realistic number of buckets.
 */
static uint64_t *make_samples(size_t n)
{
	uint64_t *v = malloc(n * sizeof(*v)), x = 1;
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < n; i++) {
		double u = ((double)(rng_next(&x) >> 11) + 0.5) * 0x1p-53;

		v[i] = 700 + (uint64_t)(-300.0 * log(u));
		if (rng_next(&x) % 1000 == 0)
			v[i] += 10000 + rng_next(&x) % 1000000;
	}
	return v;
}

static double file_mb(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (double)st.st_size / 1e6;
}

struct timing {
	double add;	/* il_series_add over all samples */
	double save;	/* il_store_save_run, COMMIT included */
	double close;	/* final checkpoint */
	double mb;
};

static int run_idlelab(const char *path, const uint64_t *v, size_t n,
		       struct timing *t)
{
	struct il_run_rec rec = { 0 };
	struct il_store *s;
	struct il_series *se;
	double t0, t1, t2;
	int64_t stored = -1, bytes = -1;
	sqlite3_stmt *st;
	size_t i;
	int ret;

	il_store_remove(path);
	ret = il_store_open(path, IL_STORE_CREATE, &s);
	if (!ret)
		ret = il_store_put_machine(s, MACHINE_UUID, "bench-ingest", "{}",
					   NULL);
	if (ret) {
		fprintf(stderr, "bench-ingest: %s\n", il_errmsg());
		return ret;
	}

	t0 = now_s();
	se = il_series_new("wake_latency", "ns", 0, -1, -1, false, true);
	if (!se) {
		il_store_close(s);
		return -ENOMEM;
	}
	se->raw_limit = n;
	for (i = 0; i < n; i++)
		il_series_add(se, v[i]);
	t1 = now_s();

	snprintf(rec.uuid, sizeof(rec.uuid), "00000000-0000-4000-8000-000000000001");
	snprintf(rec.machine_uuid, sizeof(rec.machine_uuid), MACHINE_UUID);
	rec.bench = "bench_ingest";
	rec.params_json = "{}";
	rec.placement = "0";
	rec.cpus_json = "[0]";
	rec.plan_index = -1;
	rec.status = "ok";
	rec.tool_version = "bench-ingest";
	rec.nseries = 1;
	rec.series = &se;
	ret = il_store_save_run(s, &rec);
	t2 = now_s();
	il_series_free(se);
	if (ret) {
		fprintf(stderr, "bench-ingest: %s\n", il_errmsg());
		il_store_close(s);
		return ret;
	}

	/* What was committed is what was measured (untimed). */
	if (sqlite3_prepare_v2(il_store_db(s),
			       "SELECT s.count, length(r.blob) FROM summaries s"
			       " JOIN raw_samples r ON r.summary_id = s.id", -1,
			       &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			stored = sqlite3_column_int64(st, 0);
			bytes = sqlite3_column_int64(st, 1);
		}
		sqlite3_finalize(st);
	}
	t->add = t1 - t0;
	t->save = t2 - t1;
	t0 = now_s();
	il_store_close(s);
	t->close = now_s() - t0;
	t->mb = file_mb(path);
	if (stored != (int64_t)n || bytes != (int64_t)(8 * n)) {
		fprintf(stderr, "bench-ingest: stored %" PRId64 " samples, %" PRId64 " raw bytes; expected %zu\n",
			stored, bytes, n);
		return -EIO;
	}
	return 0;
}

static int sql(sqlite3 *db, const char *q)
{
	if (sqlite3_exec(db, q, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	fprintf(stderr, "bench-ingest: %s: %s\n", q, sqlite3_errmsg(db));
	return -EIO;
}

static int run_rows(const char *path, const uint64_t *v, size_t n,
		    struct timing *t)
{
	sqlite3_stmt *st = NULL;
	double t0, t1;
	sqlite3 *db;
	size_t i;
	int ret;

	il_store_remove(path);
	if (sqlite3_open(path, &db) != SQLITE_OK) {
		fprintf(stderr, "bench-ingest: %s: %s\n", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return -EIO;
	}
	ret = sql(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
		      "CREATE TABLE samples (run INTEGER NOT NULL,"
		      " value INTEGER NOT NULL) STRICT");
	if (!ret && sqlite3_prepare_v2(db, "INSERT INTO samples (run, value) VALUES (1, ?1)",
				       -1, &st, NULL) != SQLITE_OK)
		ret = sql(db, "-- prepare");
	if (ret)
		goto out;

	t0 = now_s();
	ret = sql(db, "BEGIN IMMEDIATE");
	for (i = 0; !ret && i < n; i++) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)v[i]);
		if (sqlite3_step(st) != SQLITE_DONE)
			ret = sql(db, "-- insert");
		sqlite3_reset(st);
	}
	if (!ret)
		ret = sql(db, "COMMIT");
	t1 = now_s();
	t->add = 0;
	t->save = t1 - t0;
out:
	sqlite3_finalize(st);
	t0 = now_s();
	sqlite3_close(db);
	t->close = now_s() - t0;
	t->mb = file_mb(path);
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench-ingest [-n SAMPLES] [-r REPS] [-R ROW_REPS] [-d DIR] [-k]\n"
		"  -n SAMPLES  synthetic samples per run (default 20000000)\n"
		"  -r REPS     idlelab repetitions (default 3)\n"
		"  -R REPS     row-per-sample repetitions (default 1; 0 skips)\n"
		"  -d DIR      where the database files go (default $TMPDIR or /tmp)\n"
		"  -k          keep the database files\n");
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], path_il[4200], path_rows[4200];
	size_t n = 20000000;
	int reps = 3, row_reps = 1, keep = 0, opt, i;
	double *rate_il, *rate_rows, med_il = 0, med_rows = 0, best_il = 0;
	struct timing t;
	uint64_t *v;

	snprintf(dir, sizeof(dir), "%s/bench-ingest-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	while ((opt = getopt(argc, argv, "n:r:R:d:kh")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'R':
			row_reps = atoi(optarg);
			break;
		case 'd':
			snprintf(dir, sizeof(dir), "%s/bench-ingest-XXXXXX", optarg);
			break;
		case 'k':
			keep = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!n || reps < 1 || row_reps < 0 || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (!mkdtemp(dir)) {
		perror(dir);
		return 1;
	}
	snprintf(path_il, sizeof(path_il), "%s/idlelab.db", dir);
	snprintf(path_rows, sizeof(path_rows), "%s/rows.db", dir);
	v = make_samples(n);
	rate_il = calloc((size_t)reps, sizeof(*rate_il));
	rate_rows = calloc((size_t)row_reps + 1, sizeof(*rate_rows));
	if (!v || !rate_il || !rate_rows) {
		fprintf(stderr, "bench-ingest: out of memory\n");
		return 1;
	}
	printf("bench-ingest: %zu synthetic latency samples, SQLite %s, files in %s\n",
	       n, sqlite3_libversion(), dir);

	for (i = 0; i < reps; i++) {
		if (run_idlelab(path_il, v, n, &t))
			return 1;
		rate_il[i] = (double)n / (t.add + t.save);
		if (rate_il[i] > best_il)
			best_il = rate_il[i];
		printf("idlelab rep %d: series_add %.3f s + save_run %.3f s = %.3f s -> %.2f M samples/s"
		       " (close %.3f s, file %.1f MB)\n", i + 1, t.add, t.save,
		       t.add + t.save, rate_il[i] / 1e6, t.close, t.mb);
		fflush(stdout);
	}
	for (i = 0; i < row_reps; i++) {
		if (run_rows(path_rows, v, n, &t))
			return 1;
		rate_rows[i] = (double)n / t.save;
		printf("rows    rep %d: INSERT per sample + COMMIT %.3f s -> %.2f M samples/s"
		       " (close %.3f s, file %.1f MB)\n", i + 1, t.save,
		       rate_rows[i] / 1e6, t.close, t.mb);
		fflush(stdout);
	}
	med_il = median(rate_il, reps);
	if (row_reps)
		med_rows = median(rate_rows, row_reps);
	printf("idlelab ingest: median %.2f M samples/s (best %.2f) over %d reps\n",
	       med_il / 1e6, best_il / 1e6, reps);
	if (row_reps)
		printf("row-per-sample: median %.2f M samples/s over %d reps; idlelab is %.1fx faster\n",
		       med_rows / 1e6, row_reps, med_il / med_rows);
	printf("RESULT samples=%zu idlelab_samples_per_s=%.0f rows_samples_per_s=%.0f\n",
	       n, med_il, med_rows);

	if (!keep) {
		il_store_remove(path_il);
		il_store_remove(path_rows);
		rmdir(dir);
	}
	free(v);
	free(rate_il);
	free(rate_rows);
	return 0;
}
