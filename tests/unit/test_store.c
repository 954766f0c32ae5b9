// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_store.c - the SQLite dataset (harness/store_*.c) on real files:
 * what the migrations leave, a run saved and read back with plain SQL (so
 * the test checks the schema people query, not just the C round trip),
 * machine upserts, URI escaping and batched runs.  The refusals, read-only
 * opens, failed runs and damage checks are test_store_refuse.c; the files
 * and fixtures both use are store_fixture.h.
 */
#include "store_fixture.h"

TEST(create_and_migrate)
{
	struct il_store *s = open_new("create.db");

	if (!s)
		return;
	CHECK(il_store_latest_version() >= 2);
	CHECK(il_store_latest_version() == il_migrations[il_nmigrations - 1].version);
	CHECK(il_store_schema_version(s) == il_store_latest_version());
	CHECK(q(s, "PRAGMA application_id") == IL_APPLICATION_ID);
	CHECK(q(s, "PRAGMA foreign_keys") == 1);
	CHECK(q(s, "SELECT journal_mode = 'wal' FROM pragma_journal_mode") == 1);
	CHECK(q(s, "SELECT synchronous FROM pragma_synchronous") == 1);
	CHECK(q(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN"
		   " ('machines', 'runs', 'run_env', 'summaries', 'histograms',"
		   " 'raw_samples', 'counters', 'run_attrs')") == 8);
	CHECK(q(s, "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name IN"
		   " ('v_report', 'v_report_hist', 'v_counters', 'v_runs')") == 4);
	/* Every table is STRICT. */
	CHECK(q(s, "SELECT count(*) FROM pragma_table_list WHERE schema = 'main'"
		   " AND type = 'table' AND name NOT LIKE 'sqlite_%' AND strict = 0") == 0);
	il_store_close(s);
}

TEST(migrate_twice_is_noop)
{
	const char *path = tpath("twice.db");
	struct il_store *s = open_new("twice.db");
	size_t len;
	char *before;

	if (!s)
		return;
	CHECK(il_store_migrate(s) == 0);
	CHECK(il_store_migrate(s) == 0);
	CHECK(il_store_schema_version(s) == il_store_latest_version());
	il_store_close(s);

	before = slurp(path, &len);
	CHECK(il_store_open(path, IL_STORE_CREATE, &s) == 0);
	if (s) {
		CHECK(il_store_migrate(s) == 0);
		CHECK(sqlite3_total_changes(il_store_db(s)) == 0);
		CHECK(il_store_schema_version(s) == il_store_latest_version());
		il_store_close(s);
	}
	CHECK(same_bytes(path, before, len));
	CHECK(side_files(path) == 0);
	free(before);
}

/* A file left at version 1 by an older idlelab, upgraded in place. */
TEST(older_schema)
{
	const char *path = tpath("old.db");
	struct il_store *s = NULL;
	char *sql, *before;
	size_t len;
	int ret;

	CHECK(il_migrations[0].version == 1);
	if (asprintf(&sql, "BEGIN; %s PRAGMA user_version = 1; COMMIT;",
		     il_migrations[0].sql) < 0)
		return;
	sql_file(path, sql);
	free(sql);
	before = slurp(path, &len);

	ret = il_store_open(path, IL_STORE_CREATE | IL_STORE_NO_MIGRATE, &s);
	CHECKF(ret == -ESTALE && !s, "%d", ret);
	CHECK(strstr(il_errmsg(), "idlelab db migrate") != NULL);
	CHECK(same_bytes(path, before, len));
	CHECK(side_files(path) == 0);

	/* Plain read-write open leaves the version alone... */
	ret = il_store_open(path, 0, &s);
	CHECKF(ret == 0, "%d %s", ret, il_errmsg());
	if (s) {
		CHECK(il_store_schema_version(s) == 1);
		/* ... and migrate upgrades it. */
		CHECK(il_store_migrate(s) == 0);
		CHECK(il_store_schema_version(s) == il_store_latest_version());
		CHECK(q(s, "SELECT count(*) FROM v_report") == 0);
		il_store_close(s);
	}
	free(before);
}

/* What the store keeps as a run's percentile: the exact order statistic
 * where every sample is raw, else the clamped bucket midpoint. */
static uint64_t stored_pct(const struct il_series *se, double p)
{
	size_t k, n = se->raw_layout == IL_RAW_TIMED ? se->raw_len / 2 : se->raw_len;
	uint64_t *v, r;

	if (!se->raw || !n || n != se->sum.count || se->dropped_raw)
		return il_hist_percentile_in(se->hist, p, se->sum.min, se->sum.max);
	v = malloc(n * sizeof(*v));
	if (!v)
		return 0;
	for (k = 0; k < n; k++)
		v[k] = se->raw_layout == IL_RAW_TIMED ? se->raw[2 * k + 1] : se->raw[k];
	r = il_percentile_exact(v, n, p);
	free(v);
	return r;
}

TEST(save_and_read_back)
{
	struct il_store *s = open_new("save.db");
	const struct il_series *a, *c;
	struct il_hist *h = NULL;
	uint8_t *enc = NULL;
	sqlite3_stmt *st;
	struct fixture f;
	size_t enclen, i;
	char *report = NULL;
	sqlite3 *db;
	int ret;

	if (!s)
		return;
	db = il_store_db(s);
	put_machine(s);
	fixture_init(&f, RUN1);
	a = f.ser[0];
	c = f.ser[2];
	ret = il_store_save_run(s, &f.rec);
	CHECKF(ret == 0, "%d %s", ret, il_errmsg());

	CHECK(q(s, "SELECT count(*) FROM runs") == 1);
	CHECK(q(s, "SELECT count(*) FROM run_env") == 3);
	CHECK(q(s, "SELECT count(*) FROM summaries") == 4);
	CHECK(q(s, "SELECT count(*) FROM histograms") == 4);
	CHECK(q(s, "SELECT count(*) FROM raw_samples") == 2);
	CHECK(q(s, "SELECT count(*) FROM counters") == 3);
	CHECK(q(s, "SELECT count(*) FROM run_attrs") == 2);
	CHECK(q(s, "SELECT plan_index IS NULL AND campaign IS NULL AND tsc_khz = 2400000"
		   " AND end_ns - start_ns = 2000000000 FROM runs") == 1);

	/* Exact summary and histogram percentiles of the busy series. */
	CHECK(q(s, "SELECT count FROM summaries WHERE metric = 'wake_latency'") ==
	      (int64_t)a->sum.count);
	CHECK(q(s, "SELECT min FROM summaries WHERE metric = 'wake_latency'") ==
	      (int64_t)a->sum.min);
	CHECK(q(s, "SELECT max FROM summaries WHERE metric = 'wake_latency'") ==
	      (int64_t)a->sum.max);
	CHECK(q(s, "SELECT p50 FROM summaries WHERE metric = 'wake_latency'") ==
	      (int64_t)stored_pct(a, 50));
	CHECK(q(s, "SELECT p999 FROM summaries WHERE metric = 'wake_latency'") ==
	      (int64_t)stored_pct(a, 99.9));
	CHECK(q(s, "SELECT p9999 FROM summaries WHERE metric = 'wake_latency'") ==
	      (int64_t)stored_pct(a, 99.99));
	CHECK(q(s, "SELECT early FROM summaries WHERE metric = 'wake_latency'") == 1);
	if (sqlite3_prepare_v2(db, "SELECT mean, stddev FROM summaries WHERE metric = 'wake_latency'",
			       -1, &st, NULL) == SQLITE_OK) {
		CHECK(sqlite3_step(st) == SQLITE_ROW);
		CHECK(sqlite3_column_double(st, 0) == a->sum.mean);
		CHECK(sqlite3_column_double(st, 1) == il_summary_stddev(&a->sum));
		sqlite3_finalize(st);
	}

	/* The empty series stores NULLs, never zeros. */
	CHECK(q(s, "SELECT count = 0 AND min IS NULL AND max IS NULL AND mean IS NULL"
		   " AND stddev IS NULL AND p50 IS NULL AND p90 IS NULL AND p99 IS NULL"
		   " AND p999 IS NULL AND p9999 IS NULL FROM summaries"
		   " WHERE metric = 'intr_latency'") == 1);
	CHECK(q(s, "SELECT count = 1 AND min = 4242 AND max = 4242 AND mean = 4242"
		   " AND stddev IS NULL FROM summaries WHERE metric = 'one'") == 1);
	CHECK(q(s, "SELECT cpu = 0 AND cpu2 = 1 AND grp = 4 FROM summaries"
		   " WHERE metric = 'gap'") == 1);

	/* Counters that did not count have no value, only a reason. */
	CHECK(q(s, "SELECT value FROM counters WHERE event = 'cycles' AND status = 'ok'") ==
	      123456789);
	CHECK(q(s, "SELECT count(*) FROM counters WHERE status <> 'ok' AND value IS NULL"
		   " AND reason IS NOT NULL") == 2);
	CHECK(q(s, "SELECT count(*) FROM counters WHERE status = 'unavailable' AND cpu = -1"
		   " AND unit IS NULL") == 1);
	CHECK(q(s, "SELECT count(*) FROM run_attrs WHERE (cpu, key, value) IN"
		   " (VALUES (-1, 'sched_policy', 'SCHED_FIFO'), (0, 'numa_node', '0'))") == 2);
	CHECK(q(s, "SELECT count(*) FROM run_env WHERE json_valid(json)") == 3);

	/* Histogram round trip: the stored BLOB decodes to the same histogram. */
	if (sqlite3_prepare_v2(db, "SELECT h.layout, h.blob FROM histograms h JOIN summaries s"
			       " ON s.id = h.summary_id WHERE s.metric = 'wake_latency'",
			       -1, &st, NULL) == SQLITE_OK) {
		CHECK(sqlite3_step(st) == SQLITE_ROW);
		CHECK(sqlite3_column_int(st, 0) == IL_HIST_LAYOUT);
		CHECK(il_hist_decode(sqlite3_column_blob(st, 1),
				     (size_t)sqlite3_column_bytes(st, 1), &h) == 0);
		CHECK(il_hist_encode(a->hist, &enc, &enclen) == 0);
		CHECK(enc && enclen == (size_t)sqlite3_column_bytes(st, 1) &&
		      !memcmp(enc, sqlite3_column_blob(st, 1), enclen));
		if (h) {
			CHECK(il_hist_count(h) == a->sum.count);
			CHECK(il_hist_percentile(h, 99) == il_hist_percentile(a->hist, 99));
			CHECK(il_hist_min(h) == il_hist_min(a->hist));
			CHECK(il_hist_max(h) == il_hist_max(a->hist));
		}
		sqlite3_finalize(st);
		free(enc);
		il_hist_free(h);
	}

	/* Raw BLOBs are little-endian u64, read here byte by byte. */
	if (sqlite3_prepare_v2(db, "SELECT r.layout, r.count, r.blob, s.metric FROM raw_samples r"
			       " JOIN summaries s ON s.id = r.summary_id ORDER BY s.id",
			       -1, &st, NULL) == SQLITE_OK) {
		int rows = 0;

		while (sqlite3_step(st) == SQLITE_ROW) {
			const struct il_series *se = rows ? c : a;
			const uint8_t *b = sqlite3_column_blob(st, 2);
			size_t n = (size_t)sqlite3_column_bytes(st, 2) / 8;
			int bad = 0;

			CHECK(sqlite3_column_int(st, 0) ==
			      (rows ? IL_RAW_TIMED : IL_RAW_VALUES));
			CHECK(sqlite3_column_int64(st, 1) == (int64_t)se->sum.count);
			CHECK(n == se->raw_len);
			for (i = 0; i < n && i < se->raw_len; i++) {
				uint64_t v = 0;
				int k;

				for (k = 7; k >= 0; k--)
					v = v << 8 | b[i * 8 + (size_t)k];
				bad += v != se->raw[i];
			}
			CHECK(bad == 0);
			rows++;
		}
		CHECK(rows == 2);
		sqlite3_finalize(st);
	}

	/* The views people and reports query. */
	CHECK(q(s, "SELECT count(*) FROM v_report WHERE run_uuid = '" RUN1 "'"
		   " AND hostname = 'host1' AND bench = 'timer_wake' AND status = 'ok'") == 4);
	CHECK(q(s, "SELECT count(*) FROM v_report_hist WHERE hist IS NOT NULL") == 4);
	CHECK(q(s, "SELECT count(*) FROM v_counters WHERE hostname = 'host1'"
		   " AND run_status = 'ok'") == 3);
	CHECK(q(s, "SELECT nseries FROM v_runs") == 4);
	CHECK(q(s, "SELECT nsamples FROM v_runs") ==
	      (int64_t)(a->sum.count + c->sum.count + 1));

	ret = il_store_check(s, &report);
	CHECKF(ret == 0 && report && !strcmp(report, "ok\n"), "%d: %s", ret,
	       report ? report : "(null)");
	free(report);
	fixture_free(&f);
	il_store_close(s);
}

/* The drop reasons are stored with the total; a total a caller counted by
 * hand, which the reasons do not account for, leaves them NULL (not
 * known) rather than failing the run or storing zeros. */
TEST(drop_reasons_stored)
{
	struct il_store *s = open_new("drops.db");
	struct fixture f;
	int ret;

	if (!s)
		return;
	put_machine(s);
	fixture_init(&f, RUN1);
	il_series_drop(f.ser[0], IL_DROP_OVERRUN);
	il_series_drop(f.ser[0], IL_DROP_OVERRUN);
	il_series_drop(f.ser[0], IL_DROP_LOST);
	il_series_add(f.ser[3], IL_HIST_HIGHEST + 1);	/* range */
	f.ser[2]->sum.dropped++;			/* by hand */
	ret = il_store_save_run(s, &f.rec);
	CHECKF(ret == 0, "%d %s", ret, il_errmsg());
	fixture_free(&f);
	CHECK(q(s, "SELECT dropped FROM summaries WHERE metric = 'wake_latency'") == 3);
	CHECK(q(s, "SELECT dropped_overrun * 100 + dropped_lost * 10 + dropped_range + dropped_race"
		   " FROM summaries WHERE metric = 'wake_latency'") == 210);
	CHECK(q(s, "SELECT dropped_range FROM summaries WHERE metric = 'one'") == 1);
	CHECK(q(s, "SELECT count(*) FROM summaries WHERE metric = 'gap' AND dropped = 1"
		   " AND dropped_range IS NULL AND dropped_lost IS NULL") == 1);
	CHECK(q(s, "SELECT dropped_race + dropped_lost FROM summaries WHERE metric = 'intr_latency'") == 0);
	CHECK(il_store_check(s, NULL) == 0);
	il_store_close(s);
}

TEST(machine_upsert)
{
	struct il_store *s = open_new("machine.db");
	int64_t first;

	if (!s)
		return;
	CHECK(il_store_put_machine(s, MACHINE, "host1", "{\"v\":1}", "<a/>") == 0);
	first = q(s, "SELECT first_seen FROM machines");
	CHECK(il_store_put_machine(s, MACHINE, "host1", "{\"v\":2}", NULL) == 0);
	CHECK(q(s, "SELECT count(*) FROM machines") == 1);
	CHECK(q(s, "SELECT fingerprint ->> '$.v' FROM machines") == 2);
	CHECK(q(s, "SELECT hwloc_xml = '<a/>' FROM machines") == 1);
	CHECK(q(s, "SELECT first_seen FROM machines") == first);
	CHECK(q(s, "SELECT last_seen >= first_seen AND is_reference = 0 FROM machines") == 1);
	/* Not JSON is refused by the schema. */
	CHECK(il_store_put_machine(s, MACHINE, "host1", "{oops", NULL) == -EINVAL);
	il_store_close(s);
}

TEST(sqlite_uri_escapes)
{
	char *u;

	/* Every URI-significant byte is escaped; an absolute path gets "//". */
	u = il_sqlite_uri("/d/a b?#%x.db", "mode=ro");
	CHECKF(u && !strcmp(u, "file:///d/a%20b%3F%23%25x.db?mode=ro"), "%s",
	       u ? u : "NULL");
	free(u);
	u = il_sqlite_uri("rel/x-1_~.db", NULL);
	CHECKF(u && !strcmp(u, "file:rel/x-1_~.db"), "%s", u ? u : "NULL");
	free(u);
}

/* il_store_begin(): runs inside one transaction, each whole or undone. */
TEST(batched_runs_and_published_series)
{
	struct il_store *s = open_new("batch.db");
	struct il_published_series pub = {
		.metric = "wake_latency", .unit = "ns", .count = 10,
		.min = 100, .max = 900, .median = 300, .mean = 350.5,
		.stddev = NAN,
	};
	struct il_hist *h = il_hist_new();
	struct fixture f;
	int ret;

	if (!s || !h) {
		CHECK(s && h);
		il_hist_free(h);
		il_store_close(s);
		return;
	}
	il_hist_record_n(h, 300, 10);
	pub.hist = h;
	CHECK(il_store_put_reference_machine(s, MACHINE, "ref", NULL, "seed") == 0);
	CHECK(q(s, "SELECT is_reference FROM machines") == 1);
	/* A reference machine already there is left as it is. */
	CHECK(il_store_put_reference_machine(s, MACHINE, "other", NULL, "x") == 0);
	CHECK(q(s, "SELECT count(*) FROM machines WHERE hostname = 'ref'") == 1);
	CHECK(il_store_put_machine_source(s, MACHINE, "ref", NULL, NULL,
					  "elsewhere") == 0);
	CHECK(q(s, "SELECT count(*) FROM machines WHERE source = 'elsewhere'") == 1);

	fixture_init(&f, RUN1);
	f.rec.nseries = 0;
	f.rec.ncounters = 0;
	f.rec.npublished = 1;
	f.rec.published = &pub;
	CHECK(il_store_begin(s) == 0);
	ret = il_store_save_run(s, &f.rec);
	CHECKF(ret == 0, "%d %s", ret, il_errmsg());
	/* A failing second run is undone; the transaction stays open. */
	snprintf(f.rec.uuid, sizeof(f.rec.uuid), RUN2);
	f.rec.status = "bogus";
	CHECK(il_store_save_run(s, &f.rec) == -EINVAL);
	CHECK(!sqlite3_get_autocommit(il_store_db(s)));
	CHECK(il_store_end(s, true) == 0);
	CHECK(sqlite3_get_autocommit(il_store_db(s)));
	CHECK(il_store_has_run(s, RUN1) == 1);
	CHECK(il_store_has_run(s, RUN2) == 0);
	CHECK(q(s, "SELECT p50 FROM summaries") == 300);
	CHECK(q(s, "SELECT count(*) FROM summaries WHERE p90 IS NULL AND stddev IS NULL AND cpu = -1") == 1);
	CHECK(q(s, "SELECT count(*) FROM histograms") == 1);

	/* Rolled back: nothing of the batch stays. */
	f.rec.status = "ok";
	CHECK(il_store_begin(s) == 0);
	CHECK(il_store_save_run(s, &f.rec) == 0);
	CHECK(il_store_end(s, false) == 0);
	CHECK(il_store_has_run(s, RUN2) == 0);
	CHECK(q(s, "SELECT count(*) FROM summaries") == 1);
	fixture_free(&f);
	il_hist_free(h);
	il_store_close(s);
}

int main(void)
{
	if (fixture_dir_make())
		return 1;
	RUN(create_and_migrate);
	RUN(migrate_twice_is_noop);
	RUN(older_schema);
	RUN(save_and_read_back);
	RUN(drop_reasons_stored);
	RUN(machine_upsert);
	RUN(sqlite_uri_escapes);
	RUN(batched_runs_and_published_series);
	return fixture_dir_done();
}
