// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_export.c - `idlelab export` (analysis/export.c) on a dataset with
 * no rows: the csv header alone must still name every column, as the
 * schema and idlelab-export(1) list them (issue 20: the header was read
 * from column names freed with their statement).  In this sanitizer
 * build the store turns SQLite's lookaside off on every connection it
 * opens (store_open.c, store_sqlite_open()), so that a name kept past
 * sqlite3_finalize() is a heap use after free ASan reports, not a read of
 * a stale lookaside slot that happens to look right.
 */
#include "analysis.h"
#include "err.h"
#include "store.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/il-test-export-XXXXXX";
static struct il_store *store;

/* The csv that il_export() writes for @what, or NULL (with a CHECK). */
static char *export_csv(const char *what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f)
		return NULL;
	ret = il_export(store, what, IL_FMT_CSV, f);
	fclose(f);
	CHECKF(ret == 0, "export %s: %d %s", what, ret, il_errmsg());
	return buf;
}

static void check_header(const char *what, const char *want)
{
	char *csv = export_csv(what);

	CHECKF(csv && !strcmp(csv, want), "%s: got '%s', want '%s'", what,
	       csv ? csv : "(null)", want);
	free(csv);
}

TEST(empty_causes_header)
{
	check_header("causes", "run_uuid,bench,metric,cpu,sample,t_ns,value_ns,"
		     "idle_state,unexplained_ns,kind,name,dur_ns,events,share\n");
}

TEST(empty_runs_header)
{
	check_header("runs", "run_uuid,machine_uuid,hostname,is_reference,source,"
		     "bench,params,placement,campaign,plan_index,status,"
		     "status_reason,start_ns,end_ns,tool_version,git_rev,tsc_khz\n");
}

TEST(empty_summaries_header)
{
	check_header("summaries", "run_uuid,hostname,bench,metric,unit,cpu,cpu2,"
		     "grp,count,min,max,mean,stddev,p50,p90,p99,p999,p9999,"
		     "dropped,early,dropped_range,dropped_overrun,dropped_race,"
		     "dropped_lost,dropped_slept\n");
}

TEST(empty_buckets_header)
{
	check_header("buckets", "run_uuid,metric,unit,cpu,cpu2,grp,lo,hi,count\n");
}

TEST(empty_json_is_an_empty_array)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	CHECK(il_export(store, "causes", IL_FMT_JSON, f) == 0);
	fclose(f);
	CHECK(buf && !strcmp(buf, "[]\n"));
	free(buf);
}

int main(void)
{
	char path[128];
	int ret;

	if (!mkdtemp(tmpdir)) {
		printf("not ok 1 - mkdtemp\n1..1\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/empty.db", tmpdir);
	ret = il_store_open(path, IL_STORE_CREATE, &store);
	if (ret) {
		printf("not ok 1 - open %s: %s\n1..1\n", path, il_errmsg());
		return 1;
	}
	RUN(empty_causes_header);
	RUN(empty_runs_header);
	RUN(empty_summaries_header);
	RUN(empty_buckets_header);
	RUN(empty_json_is_an_empty_array);
	il_store_close(store);
	unlink(path);
	rmdir(tmpdir);
	return tap_done();
}
