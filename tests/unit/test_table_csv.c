// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_table_csv.c - the csv of a report table (analysis/table.c), as
 * issue 20 wants csv readers to take it: "-" and "n/a: why" are empty
 * fields, and a column marked as holding intervals is split into numeric
 * columns, "NAME lo" and "NAME hi" (after the estimate's, NAME, for an
 * "est [lo, hi]" column), whose fields are the numbers md shows, digits
 * as written, or empty where the cell holds no interval.
 */
#include "analysis.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* @t as csv, in a buffer the caller frees. */
static char *csv_of(const struct il_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	il_table_print(t, IL_FMT_CSV, f);
	fclose(f);
	return buf;
}

static struct il_table *three_cols(void)
{
	static const char *const cols[] = { "Name", "Shift CI", "p50 [CI]" };
	struct il_table *t = il_table_new("t", 3, cols);

	if (t) {
		il_table_col_kind(t, 1, IL_COL_INTERVAL);
		il_table_col_kind(t, 2, IL_COL_EST_INTERVAL);
	}
	return t;
}

static int add(struct il_table *t, const char *a, const char *b, const char *c)
{
	const char *cells[] = { a, b, c };

	return il_table_add(t, cells);
}

TEST(header)
{
	struct il_table *t = three_cols();
	char *s = csv_of(t);

	CHECK(s && !strcmp(s, "Name,Shift CI lo,Shift CI hi,p50 [CI],p50 [CI] lo,p50 [CI] hi\n"));
	free(s);
	il_table_free(t);
}

TEST(intervals_split)
{
	struct il_table *t = three_cols();
	char *s;

	CHECK(!add(t, "a", "[+4.73, -0.12]", "12.3 [10.1, 14.2]"));
	CHECK(!add(t, "b,c", "not possible with 3 vs 3 runs", "12.3 [too few]"));
	CHECK(!add(t, "-", "-", "-"));
	CHECK(!add(t, "n/a: why", "[1e3, 2]", "7 [1, 2] more"));
	s = csv_of(t);
	CHECK(s && !strcmp(s,
		"Name,Shift CI lo,Shift CI hi,p50 [CI],p50 [CI] lo,p50 [CI] hi\n"
		"a,+4.73,-0.12,12.3,10.1,14.2\n"
		"\"b,c\",,,12.3,,\n"
		",,,,,\n"
		",1e3,2,7,,\n"));
	free(s);
	il_table_free(t);
}

/* What is not a whole interval gives empty ends, never half of one. */
TEST(malformed_intervals_empty)
{
	static const char *const bad[] = {
		"[1, 2", "[1, 2] x", "[1,2]", "1, 2]", "[nan, 2]", "[1, inf]",
		"[, 2]", "[1, ]", "[]", "[", "",
	};
	static const char *const cols[] = { "CI" };
	struct il_table *t = il_table_new("t", 1, cols);
	char *s, want[256] = "CI lo,CI hi\n";
	size_t i;

	il_table_col_kind(t, 0, IL_COL_INTERVAL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(!il_table_add(t, &bad[i]));
		strcat(want, ",\n");
	}
	s = csv_of(t);
	CHECK(s && !strcmp(s, want));
	free(s);
	il_table_free(t);
}

/* md keeps the cells as they are: only csv splits. */
TEST(md_unchanged)
{
	struct il_table *t = three_cols();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(!add(t, "a", "[+4.73, -0.12]", "12.3 [10.1, 14.2]"));
	il_table_print(t, IL_FMT_MD, f);
	fclose(f);
	CHECK(buf && strstr(buf, "| a | [+4.73, -0.12] | 12.3 [10.1, 14.2] |"));
	free(buf);
	il_table_free(t);
}

int main(void)
{
	RUN(header);
	RUN(intervals_split);
	RUN(malformed_intervals_empty);
	RUN(md_unchanged);
	return tap_done();
}
