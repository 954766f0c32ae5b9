/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_fixture.h - what the two SQLite dataset tests share (test_store.c:
 * migrations, saving and reading back; test_store_refuse.c: files that
 * must be refused untouched, read-only opens, failed runs, damage): one
 * mkdtemp() directory of real files, helpers to read files and rows, and
 * a run fixture to save.  Included once by each test; the helpers are
 * static inline so that a test need not use them all.
 */
#ifndef IDLELAB_STORE_FIXTURE_H
#define IDLELAB_STORE_FIXTURE_H

#include "err.h"
#include "schemas.h"
#include "series.h"
#include "stats.h"
#include "store.h"
#include "store_sqlite.h"
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

static inline const char *tpath(const char *name)
{
	static char buf[8][512];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

static inline int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static inline int side_files(const char *path)
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

static inline char *slurp(const char *path, size_t *len)
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

static inline int same_bytes(const char *path, const char *old, size_t oldlen)
{
	size_t len;
	char *now = slurp(path, &len);
	int same = now && len == oldlen && !memcmp(now, old, len);

	free(now);
	return same;
}

static inline void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(fwrite(data, 1, len, f) == len);
	fclose(f);
}

/* Run SQL on a file with plain SQLite, as another program would. */
static inline void sql_file(const char *path, const char *sql)
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
static inline int64_t q(struct il_store *s, const char *sql)
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

static inline int64_t q_total_rows(struct il_store *s)
{
	return q(s, "SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM run_env)"
		    " + (SELECT count(*) FROM summaries) + (SELECT count(*) FROM histograms)"
		    " + (SELECT count(*) FROM raw_samples) + (SELECT count(*) FROM counters)"
		    " + (SELECT count(*) FROM run_attrs)");
}

static inline struct il_store *open_new(const char *name)
{
	struct il_store *s = NULL;
	int ret = il_store_open(tpath(name), IL_STORE_CREATE, &s);

	CHECKF(ret == 0, "open %s: %d %s", name, ret, il_errmsg());
	return s;
}

static inline void put_machine(struct il_store *s)
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

static inline void fixture_init(struct fixture *f, const char *uuid)
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

static inline void fixture_free(struct fixture *f)
{
	int i;

	for (i = 0; i < 4; i++)
		il_series_free(f->ser[i]);
}

static inline int save_fixture(struct il_store *s, const char *uuid)
{
	struct fixture f;
	int ret;

	fixture_init(&f, uuid);
	ret = il_store_save_run(s, &f.rec);
	fixture_free(&f);
	return ret;
}

static inline void rm_tmpdir(void)
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

/* The tests' directory: made before the first case, 0 or 1 (said why). */
static inline int fixture_dir_make(void)
{
	if (mkdtemp(tmpdir))
		return 0;
	perror("mkdtemp");
	return 1;
}

/* After the last case: the directory removed, TAP's exit status. */
static inline int fixture_dir_done(void)
{
	rm_tmpdir();
	return tap_done();
}

#endif
