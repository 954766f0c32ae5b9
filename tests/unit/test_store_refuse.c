// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_store_refuse.c - the SQLite dataset (harness/store_*.c) where it
 * must say no and keep everything: a foreign, newer or non-SQLite file is
 * refused byte-for-byte untouched (and grows no -wal/-shm side files),
 * READONLY never creates or writes, a failed run leaves nothing behind,
 * a campaign's plan index is unique, and `db check` finds damage.  Every
 * case works in its own files under one mkdtemp() directory
 * (store_fixture.h), because these behaviours are about files.
 */
#include "store_fixture.h"

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

int main(void)
{
	if (fixture_dir_make())
		return 1;
	RUN(foreign_db_refused);
	RUN(text_file_refused);
	RUN(newer_schema_refused);
	RUN(readonly_missing_not_created);
	RUN(readonly_never_writes);
	RUN(empty_file_is_new);
	RUN(failed_run_leaves_nothing);
	RUN(campaign_plan_unique);
	RUN(check_finds_damage);
	return fixture_dir_done();
}
