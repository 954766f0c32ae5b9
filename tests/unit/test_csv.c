// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_csv.c - il_csv_field(), the one CSV quoting of reports and
 * exports: RFC 4180 quoting where needed (comma, quote, CR, LF), doubled
 * quotes inside, and quotes around everything when asked.
 */
#include "csv.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* @s as il_csv_field() writes it, in a static buffer. */
static const char *field(const char *s, enum il_csv_quote q)
{
	static char buf[256];
	FILE *f;

	/* Nothing written leaves the buffer as it was: start it empty. */
	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf), "w");
	if (!f)
		return "";
	il_csv_field(f, s, q);
	fclose(f);
	return buf;
}

TEST(as_needed)
{
	CHECK(!strcmp(field("timer_wake", IL_CSV_AS_NEEDED), "timer_wake"));
	CHECK(!strcmp(field("", IL_CSV_AS_NEEDED), ""));
	CHECK(!strcmp(field("a,b", IL_CSV_AS_NEEDED), "\"a,b\""));
	CHECK(!strcmp(field("say \"hi\"", IL_CSV_AS_NEEDED), "\"say \"\"hi\"\"\""));
	CHECK(!strcmp(field("two\nlines", IL_CSV_AS_NEEDED), "\"two\nlines\""));
	CHECK(!strcmp(field("cr\r", IL_CSV_AS_NEEDED), "\"cr\r\""));
}

TEST(always)
{
	CHECK(!strcmp(field("timer_wake", IL_CSV_ALWAYS), "\"timer_wake\""));
	CHECK(!strcmp(field("", IL_CSV_ALWAYS), "\"\""));
	CHECK(!strcmp(field("a\"b", IL_CSV_ALWAYS), "\"a\"\"b\""));
}

int main(void)
{
	RUN(as_needed);
	RUN(always);
	return tap_done();
}
