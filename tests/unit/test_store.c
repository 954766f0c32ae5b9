// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_store.c - the SQLite dataset (harness/store_*.c) on real files.
 *
 * Every case works in its own files under one mkdtemp() directory, because
 * the behaviours that matter are about files: what the migrations leave,
 * that a foreign, newer or non-SQLite file is refused byte-for-byte
 * untouched (and grows no -wal/-shm side files), that READONLY never
 * creates or writes, and that a failed run leaves nothing behind.  Rows are
 * read back with plain SQL so the test checks the schema people query, not
 * just the C round trip.
 */
#include "err.h"
#include "schemas.h"
#include "series.h"
#include "stats.h"
#include "store.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MACHINE	"6f1c2a52-0c3e-4c8e-9a51-1f0d7c2b9e01"
#define RUN1	"0b5e7d1a-3c2f-4e4b-8f6a-2d9c1e0a7b11"
#define RUN2	"0b5e7d1a-3c2f-4e4b-8f6a-2d9c1e0a7b12"

static char tmpdir[] = "/tmp/il-test-store-XXXXXX";

static const char *tpath(const char *name)
{
	static char buf[8][512];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static int side_files(const char *path)
{
	char p[600];
	int n = 0;

	snprintf(p, sizeof(p), "%s-wal", path);
	n += exists(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	n += exists(p);
	snprintf(p, sizeof(p), "%s-journal", path);
	n += exists(p);
	return n;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n ? (size_t)n : 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static int same_bytes(const char *path, const char *old, size_t oldlen)
{
	size_t len;
	char *now = slurp(path, &len);
	int same = now && len == oldlen && !memcmp(now, old, len);

	free(now);
	return same;
}

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(fwrite(data, 1, len, f) == len);
	fclose(f);
}

/* Run SQL on a file with plain SQLite, as another program would. */
static void sql_file(const char *path, const char *sql)
{
	char *err = NULL;
	sqlite3 *db;

	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECKF(sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK, "%s: %s",
	       sql, err ? err : "?");
	sqlite3_free(err);
	sqlite3_close(db);
}

/* First column of the first row, or INT64_MIN on an error. */
static int64_t q(struct il_store *s, const char *sql)
{
	sqlite3 *db = il_store_db(s);
	sqlite3_stmt *st;
	int64_t v = INT64_MIN;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		printf("# query failed: %s: %s\n", sql, sqlite3_errmsg(db));
		return v;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int64_t q_total_rows(struct il_store *s)
{
	return q(s, "SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM run_env)"
		    " + (SELECT count(*) FROM summaries) + (SELECT count(*) FROM histograms)"
		    " + (SELECT count(*) FROM raw_samples) + (SELECT count(*) FROM counters)"
		    " + (SELECT count(*) FROM run_attrs)");
}

static struct il_store *open_new(const char *name)
{
	struct il_store *s = NULL;
	int ret = il_store_open(tpath(name), IL_STORE_CREATE, &s);

	CHECKF(ret == 0, "open %s: %d %s", name, ret, il_errmsg());
	return s;
}

static void put_machine(struct il_store *s)
{
	CHECK(il_store_put_machine(s, MACHINE, "host1", "{\"cpu\":\"x\"}",
				   "<topology/>") == 0);
}

/* The fixture run: four series, three counters, two attributes. */
struct fixture {
	struct il_series *ser[4];
	struct il_counter_result cnt[3];
	struct il_run_attr attr[2];
	struct il_run_rec rec;
};

static void fixture_init(struct fixture *f, const char *uuid)
{
	uint64_t i;

	memset(f, 0, sizeof(*f));
	/* Latencies with a tail, kept raw. */
	f->ser[0] = il_series_new("wake_latency", "ns", 0, -1, -1, false, true);
	for (i = 0; i < 5000; i++)
		il_series_add(f->ser[0], 800 + (i * 7919) % 1200 +
			      (i % 997 == 0 ? 150000 : 0));
	il_series_early(f->ser[0]);
	/* Nothing measured: the statistics must be NULL, not 0. */
	f->ser[1] = il_series_new("intr_latency", "ns", 1, -1, -1, false, false);
	/* Timed samples of a pair, in a sweep group. */
	f->ser[2] = il_series_new("gap", "ns", 0, 1, 4, true, false);
	for (i = 0; i < 10; i++)
		il_series_add_timed(f->ser[2], 1000 * i, 20000 + i);
	/* One sample: no sample standard deviation. */
	f->ser[3] = il_series_new("one", "ns", 2, -1, -1, false, false);
	il_series_add(f->ser[3], 4242);

	snprintf(f->cnt[0].event, sizeof(f->cnt[0].event), "cycles");
	f->cnt[0].cpu = 0;
	f->cnt[0].value = 123456789.0;
	snprintf(f->cnt[0].unit, sizeof(f->cnt[0].unit), "count");
	f->cnt[0].status = IL_CNT_OK;
	snprintf(f->cnt[1].event, sizeof(f->cnt[1].event), "instructions");
	f->cnt[1].cpu = 0;
	f->cnt[1].value = 99;	/* must not be stored */
	f->cnt[1].status = IL_CNT_UNSUPPORTED;
	snprintf(f->cnt[1].reason, sizeof(f->cnt[1].reason),
		 "perf_event_open: ENOENT (no PMU)");
	snprintf(f->cnt[2].event, sizeof(f->cnt[2].event), "msr/smi/");
	f->cnt[2].cpu = -1;
	f->cnt[2].status = IL_CNT_UNAVAILABLE;
	snprintf(f->cnt[2].reason, sizeof(f->cnt[2].reason),
		 "no msr event source");

	f->attr[0] = (struct il_run_attr){ -1, "sched_policy", "SCHED_FIFO" };
	f->attr[1] = (struct il_run_attr){ 0, "numa_node", "0" };

	snprintf(f->rec.uuid, sizeof(f->rec.uuid), "%s", uuid);
	snprintf(f->rec.machine_uuid, sizeof(f->rec.machine_uuid), MACHINE);
	f->rec.bench = "timer_wake";
	f->rec.params_json = "{\"interval_us\":1000}";
	f->rec.placement = "0-2";
	f->rec.cpus_json = "[0,1,2]";
	f->rec.plan_index = -1;
	f->rec.start_ns = UINT64_C(1700000000000000000);
	f->rec.end_ns = f->rec.start_ns + 2000000000u;
	f->rec.status = "ok";
	f->rec.tool_version = "0.1.0";
	f->rec.git_rev = "abc";
	f->rec.cmdline = "idlelab bench timer_wake";
	f->rec.tsc_khz = 2400000;
	f->rec.env_before_json = "{\"qos\":2000000000}";
	f->rec.env_after_json = "{\"qos\":2000000000}";
	f->rec.env_delta_json = "{}";
	f->rec.nseries = 4;
	f->rec.series = f->ser;
	f->rec.ncounters = 3;
	f->rec.counters = f->cnt;
	f->rec.nattrs = 2;
	f->rec.attrs = f->attr;
}

static void fixture_free(struct fixture *f)
{
	int i;

	for (i = 0; i < 4; i++)
		il_series_free(f->ser[i]);
}

static int save_fixture(struct il_store *s, const char *uuid)
{
	struct fixture f;
	int ret;

	fixture_init(&f, uuid);
	ret = il_store_save_run(s, &f.rec);
	fixture_free(&f);
	return ret;
}

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
	      (int64_t)il_hist_percentile(a->hist, 50));
	CHECK(q(s, "SELECT p999 FROM summaries WHERE metric = 'wake_latency'") ==
	      (int64_t)il_hist_percentile(a->hist, 99.9));
	CHECK(q(s, "SELECT p9999 FROM summaries WHERE metric = 'wake_latency'") ==
	      (int64_t)il_hist_percentile(a->hist, 99.99));
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

/* Open @path every way and check it is refused with @err, untouched. */
static void refused_untouched(const char *path, int err, const char *msg)
{
	static const int flags[] = {
		IL_STORE_CREATE, 0, IL_STORE_READONLY,
		IL_STORE_CREATE | IL_STORE_NO_MIGRATE,
	};
	struct il_store *s;
	size_t len, i;
	char *before = slurp(path, &len);
	int ret;

	CHECK(before != NULL);
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		s = (void *)1;
		ret = il_store_open(path, flags[i], &s);
		CHECKF(ret == err && !s, "flags %d: %d (%s)", flags[i], ret,
		       il_errmsg());
		CHECKF(strstr(il_errmsg(), msg) && strstr(il_errmsg(), path),
		       "message: %s", il_errmsg());
		CHECK(same_bytes(path, before, len));
		CHECK(side_files(path) == 0);
	}
	free(before);
}

TEST(foreign_db_refused)
{
	const char *path = tpath("foreign.db");
	/* '?', '#' and '%' would be URI syntax if not escaped. */
	const char *wal = tpath("foreign wal?x=1#%41.db");

	sql_file(path, "CREATE TABLE accounts (id INTEGER, name TEXT);"
		       "INSERT INTO accounts VALUES (1, 'a');");
	refused_untouched(path, -EPROTO, "is not an idlelab database");

	/* A WAL-mode file: a naive read-only open would create -wal/-shm. */
	sql_file(wal, "PRAGMA journal_mode = WAL; CREATE TABLE t (x);"
		      "INSERT INTO t VALUES (1);");
	CHECK(side_files(wal) == 0);
	refused_untouched(wal, -EPROTO, "is not an idlelab database");

	/* Another application's id, even with no tables yet. */
	path = tpath("other-app.db");
	sql_file(path, "PRAGMA application_id = 1234;");
	refused_untouched(path, -EPROTO, "application_id 0x000004d2");
}

TEST(text_file_refused)
{
	const char *path = tpath("notes.txt");
	char text[4096];
	size_t i;

	for (i = 0; i < sizeof(text); i++)
		text[i] = "these are not the droids\n"[i % 25];
	write_file(path, text, sizeof(text));
	refused_untouched(path, -EPROTO, "not an SQLite database");

	/* Shorter than an SQLite header. */
	path = tpath("short.txt");
	write_file(path, "hello\n", 6);
	refused_untouched(path, -EPROTO, "not an SQLite database");
}

TEST(newer_schema_refused)
{
	const char *path = tpath("newer.db");
	struct il_store *s = open_new("newer.db");
	char sql[64];

	if (!s)
		return;
	il_store_close(s);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d;",
		 il_store_latest_version() + 1);
	sql_file(path, sql);
	refused_untouched(path, -EPROTONOSUPPORT, "is newer than this idlelab");
	CHECK(strstr(il_errmsg(), "upgrade idlelab") != NULL);
}

TEST(readonly_missing_not_created)
{
	const char *path = tpath("missing.db");
	struct il_store *s = (void *)1;

	CHECK(il_store_open(path, IL_STORE_READONLY, &s) == -ENOENT && !s);
	CHECK(strstr(il_errmsg(), path) != NULL);
	CHECK(!exists(path) && side_files(path) == 0);
	/* READONLY wins over CREATE. */
	CHECK(il_store_open(path, IL_STORE_READONLY | IL_STORE_CREATE, &s) == -ENOENT);
	CHECK(!exists(path));
	/* Without CREATE a writer does not create either. */
	CHECK(il_store_open(path, 0, &s) == -ENOENT);
	CHECK(!exists(path));
}

TEST(readonly_never_writes)
{
	const char *path = tpath("ro.db");
	struct il_store *s = open_new("ro.db");
	struct fixture f;
	char *before, *report = NULL;
	size_t len;

	if (!s)
		return;
	put_machine(s);
	CHECK(save_fixture(s, RUN1) == 0);
	il_store_close(s);
	before = slurp(path, &len);

	CHECK(il_store_open(path, IL_STORE_READONLY, &s) == 0);
	if (s) {
		fixture_init(&f, RUN2);
		CHECK(il_store_save_run(s, &f.rec) == -EROFS);
		fixture_free(&f);
		CHECK(il_store_put_machine(s, MACHINE, "h", NULL, NULL) == -EROFS);
		CHECK(il_store_migrate(s) == -EROFS);
		CHECK(il_store_check(s, &report) == 0);
		free(report);
		CHECK(sqlite3_exec(il_store_db(s), "DELETE FROM runs", NULL, NULL,
				   NULL) != SQLITE_OK);
		CHECK(q(s, "SELECT count(*) FROM runs") == 1);
		il_store_close(s);
	}
	CHECK(same_bytes(path, before, len));
	free(before);
}

TEST(empty_file_is_new)
{
	const char *path = tpath("empty.db");
	struct il_store *s = NULL;

	write_file(path, "", 0);
	CHECK(il_store_open(path, IL_STORE_CREATE | IL_STORE_NO_MIGRATE, &s) == 0);
	if (s) {
		CHECK(il_store_schema_version(s) == il_store_latest_version());
		il_store_close(s);
	}
}

TEST(failed_run_leaves_nothing)
{
	struct il_store *s = open_new("rollback.db");
	struct il_series *dup[2];
	struct il_run_attr bad_attr[3];
	struct fixture f;
	int ret;

	if (!s)
		return;
	put_machine(s);

	/* Refused by the first INSERT: the status CHECK. */
	fixture_init(&f, RUN1);
	f.rec.status = "bogus";
	ret = il_store_save_run(s, &f.rec);
	CHECKF(ret == -EINVAL && strstr(il_errmsg(), "CHECK"), "%d %s", ret,
	       il_errmsg());
	CHECK(q_total_rows(s) == 0);

	/* Refused by the very last INSERT: everything before is undone. */
	f.rec.status = "ok";
	bad_attr[0] = f.attr[0];
	bad_attr[1] = f.attr[1];
	bad_attr[2] = (struct il_run_attr){ -1, NULL, "no key" };
	f.rec.attrs = bad_attr;
	f.rec.nattrs = 3;
	ret = il_store_save_run(s, &f.rec);
	CHECKF(ret == -EINVAL, "%d %s", ret, il_errmsg());
	CHECK(q_total_rows(s) == 0);

	/* Refused in the middle: the same series twice. */
	f.rec.attrs = f.attr;
	f.rec.nattrs = 2;
	dup[0] = f.ser[0];
	dup[1] = f.ser[0];
	f.rec.series = dup;
	f.rec.nseries = 2;
	CHECK(il_store_save_run(s, &f.rec) == -EINVAL);
	CHECK(q_total_rows(s) == 0);

	/* An unknown machine: the foreign key. */
	f.rec.series = f.ser;
	f.rec.nseries = 4;
	snprintf(f.rec.machine_uuid, sizeof(f.rec.machine_uuid),
		 "ffffffff-ffff-4fff-bfff-ffffffffffff");
	CHECK(il_store_save_run(s, &f.rec) == -EINVAL);
	CHECK(q_total_rows(s) == 0);

	/* The store is still usable: no transaction was left open. */
	snprintf(f.rec.machine_uuid, sizeof(f.rec.machine_uuid), MACHINE);
	ret = il_store_save_run(s, &f.rec);
	CHECKF(ret == 0, "%d %s", ret, il_errmsg());
	CHECK(q(s, "SELECT count(*) FROM runs") == 1);
	CHECK(q(s, "SELECT count(*) FROM summaries") == 4);
	CHECK(sqlite3_get_autocommit(il_store_db(s)));
	/* The same run twice is refused, the first copy kept whole. */
	CHECK(il_store_save_run(s, &f.rec) == -EINVAL);
	CHECK(q(s, "SELECT count(*) FROM summaries") == 4);
	fixture_free(&f);
	il_store_close(s);
}

TEST(campaign_plan_unique)
{
	struct il_store *s = open_new("campaign.db");
	struct fixture f;

	if (!s)
		return;
	put_machine(s);
	fixture_init(&f, RUN1);
	f.rec.campaign = "quick";
	f.rec.plan_index = 3;
	f.rec.param_hash = "h3";
	CHECK(il_store_save_run(s, &f.rec) == 0);
	CHECK(q(s, "SELECT plan_index FROM runs") == 3);
	snprintf(f.rec.uuid, sizeof(f.rec.uuid), RUN2);
	CHECK(il_store_save_run(s, &f.rec) == -EINVAL);
	f.rec.plan_index = 4;
	CHECK(il_store_save_run(s, &f.rec) == 0);
	fixture_free(&f);
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

TEST(check_finds_damage)
{
	struct il_store *s = open_new("check.db");
	char *report = NULL;
	sqlite3 *db;
	int ret;

	if (!s)
		return;
	db = il_store_db(s);
	put_machine(s);
	CHECK(save_fixture(s, RUN1) == 0);
	CHECK(il_store_check(s, &report) == 0);
	CHECK(report && !strcmp(report, "ok\n"));
	free(report);

	/* A BLOB that is not a histogram. */
	CHECK(sqlite3_exec(db, "UPDATE histograms SET blob = x'494c4801ff' WHERE summary_id ="
			       " (SELECT id FROM summaries WHERE metric = 'wake_latency')",
			   NULL, NULL, NULL) == SQLITE_OK);
	report = NULL;
	ret = il_store_check(s, &report);
	CHECKF(ret == -EIO && report && strstr(report, "wake_latency") &&
	       strstr(report, "does not decode"), "%d: %s", ret,
	       report ? report : "(null)");
	free(report);

	/* A valid histogram that disagrees with its summary's count. */
	CHECK(sqlite3_exec(db, "UPDATE histograms SET blob = (SELECT blob FROM histograms h"
			       " JOIN summaries s ON s.id = h.summary_id WHERE s.metric = 'one')"
			       " WHERE summary_id = (SELECT id FROM summaries WHERE metric = 'gap')",
			   NULL, NULL, NULL) == SQLITE_OK);
	/* A summary without its histogram. */
	CHECK(sqlite3_exec(db, "DELETE FROM histograms WHERE summary_id ="
			       " (SELECT id FROM summaries WHERE metric = 'intr_latency')",
			   NULL, NULL, NULL) == SQLITE_OK);
	report = NULL;
	ret = il_store_check(s, &report);
	CHECK(ret == -EIO);
	CHECKF(report && strstr(report, "gap cpu 0->1 grp 4: histogram holds 1 samples, summary says 10") &&
	       strstr(report, "intr_latency cpu 1: summary has no histogram"),
	       "%s", report ? report : "(null)");
	free(report);
	il_store_close(s);
}

static void rm_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlink(tpath(e->d_name));
	closedir(d);
	rmdir(tmpdir);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(create_and_migrate);
	RUN(migrate_twice_is_noop);
	RUN(older_schema);
	RUN(save_and_read_back);
	RUN(drop_reasons_stored);
	RUN(machine_upsert);
	RUN(foreign_db_refused);
	RUN(text_file_refused);
	RUN(newer_schema_refused);
	RUN(readonly_missing_not_created);
	RUN(readonly_never_writes);
	RUN(empty_file_is_new);
	RUN(failed_run_leaves_nothing);
	RUN(campaign_plan_unique);
	RUN(check_finds_damage);
	RUN(sqlite_uri_escapes);
	RUN(batched_runs_and_published_series);
	rm_tmpdir();
	return tap_done();
}
