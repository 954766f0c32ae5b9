// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_opts.c - the declarative parameter table: parsing every type,
 * strictness (no signs, junk, overflow), ranges, near-miss suggestions and
 * the JSON echo stored with every run.
 */
#include "err.h"
#include "opts.h"
#include "tap.h"

#include <string.h>

struct params {
	uint64_t samples;
	bool flag;
	int mode;
	struct il_u64_list targets;
};

static const char *const modes[] = { "madvise", "mprotect", NULL };

static const struct il_opt table[] = {
	{ .name = "samples", .type = IL_OPT_U64, .offset = offsetof(struct params, samples),
	  .min = 1, .max = 1000000, .def = "100", .unit = "count", .help = "h" },
	{ .name = "flag", .type = IL_OPT_BOOL, .offset = offsetof(struct params, flag),
	  .def = "false", .unit = "", .help = "h" },
	{ .name = "mode", .type = IL_OPT_ENUM, .offset = offsetof(struct params, mode),
	  .def = "mprotect", .unit = "", .help = "h", .choices = modes },
	{ .name = "targets", .type = IL_OPT_LIST, .offset = offsetof(struct params, targets),
	  .min = 1, .max = 64, .def = "1,2,4", .unit = "cpus", .help = "h" },
	IL_OPT_END,
};

TEST(defaults)
{
	struct params p;

	memset(&p, 0xa5, sizeof(p));
	CHECK(il_opts_defaults(table, &p) == 0);
	CHECK(p.samples == 100);
	CHECK(p.flag == false);
	CHECK(p.mode == 1);
	CHECK(p.targets.n == 3 && p.targets.v[2] == 4);
}

TEST(u64_strict)
{
	struct params p;

	il_opts_defaults(table, &p);
	CHECK(il_opts_set(table, &p, "samples", "5000") == 0 && p.samples == 5000);
	CHECK(il_opts_set(table, &p, "samples", "abc") == -EINVAL);
	CHECK(strstr(il_errmsg(), "samples") && strstr(il_errmsg(), "abc"));
	CHECK(il_opts_set(table, &p, "samples", "-1") == -EINVAL);
	CHECK(il_opts_set(table, &p, "samples", "+1") == -EINVAL);
	CHECK(il_opts_set(table, &p, "samples", "1e3") == -EINVAL);
	CHECK(il_opts_set(table, &p, "samples", "12 ") == -EINVAL);
	CHECK(il_opts_set(table, &p, "samples", "") == -EINVAL);
	/* Digits beyond 64 bits: an integer out of range, and said so. */
	CHECK(il_opts_set(table, &p, "samples", "99999999999999999999999") == -EINVAL);
	CHECKF(strstr(il_errmsg(), "out of range [1, 1000000]") &&
	       !strstr(il_errmsg(), "not a non-negative integer"),
	       "message: %s", il_errmsg());
	CHECK(il_opts_set(table, &p, "targets", "1,99999999999999999999999") == -EINVAL);
	CHECKF(strstr(il_errmsg(), "out of range"), "message: %s", il_errmsg());
	CHECK(il_opts_set(table, &p, "samples", "0") == -EINVAL);
	CHECK(strstr(il_errmsg(), "out of range"));
	CHECK(il_opts_set(table, &p, "samples", "1000001") == -EINVAL);
	CHECK(p.samples == 5000);
}

TEST(bool_enum)
{
	struct params p;

	il_opts_defaults(table, &p);
	CHECK(il_opts_set(table, &p, "flag", "yes") == 0 && p.flag);
	CHECK(il_opts_set(table, &p, "flag", "off") == 0 && !p.flag);
	CHECK(il_opts_set(table, &p, "flag", "maybe") == -EINVAL);
	CHECK(il_opts_set(table, &p, "mode", "madvise") == 0 && p.mode == 0);
	CHECK(il_opts_set(table, &p, "mode", "mmap") == -EINVAL);
	CHECK(strstr(il_errmsg(), "madvise|mprotect"));
}

TEST(lists)
{
	struct params p;

	il_opts_defaults(table, &p);
	CHECK(il_opts_set(table, &p, "targets", "8") == 0 && p.targets.n == 1);
	CHECK(il_opts_set(table, &p, "targets", "1,,2") == -EINVAL);
	CHECK(il_opts_set(table, &p, "targets", "1,2,") == -EINVAL);
	CHECK(il_opts_set(table, &p, "targets", "1,65") == -EINVAL);
	CHECK(il_opts_set(table, &p, "targets", "1,x") == -EINVAL);
	CHECK(p.targets.n == 1 && p.targets.v[0] == 8);
}

TEST(unknown_key_suggests)
{
	struct params p;

	il_opts_defaults(table, &p);
	CHECK(il_opts_set(table, &p, "sample", "1") == -ENOENT);
	CHECK(strstr(il_errmsg(), "did you mean 'samples'"));
	CHECK(il_opts_set(table, &p, "zzzzzzzz", "1") == -ENOENT);
	CHECK(!strstr(il_errmsg(), "did you mean"));
	CHECK(il_opts_set_kv(table, &p, "samples") == -EINVAL);
	CHECK(il_opts_set_kv(table, &p, "=5") == -EINVAL);
	CHECK(il_opts_set_kv(table, &p, "samples=7") == 0 && p.samples == 7);
}

TEST(json_echo)
{
	struct params p;
	json_t *j;
	char buf[64];

	il_opts_defaults(table, &p);
	j = il_opts_to_json(table, &p);
	CHECK(json_integer_value(json_object_get(j, "samples")) == 100);
	CHECK(json_is_false(json_object_get(j, "flag")));
	CHECK(!strcmp(json_string_value(json_object_get(j, "mode")), "mprotect"));
	CHECK(json_array_size(json_object_get(j, "targets")) == 3);
	json_decref(j);
	il_opts_format(&table[3], &p, buf, sizeof(buf));
	CHECK(!strcmp(buf, "1,2,4"));
}

/* A bool added late stays out of the params text while false. */
TEST(json_omit_false)
{
	static const struct il_opt late[] = {
		{ .name = "late", .type = IL_OPT_BOOL,
		  .offset = offsetof(struct params, flag), .def = "false",
		  .unit = "", .help = "h", .omit_false = true },
		IL_OPT_END,
	};
	struct params p;
	json_t *j;

	il_opts_defaults(late, &p);
	j = il_opts_to_json(late, &p);
	CHECK(json_object_size(j) == 0);
	json_decref(j);
	CHECK(il_opts_set(late, &p, "late", "true") == 0);
	j = il_opts_to_json(late, &p);
	CHECK(json_is_true(json_object_get(j, "late")));
	json_decref(j);
}

TEST(edit_distance)
{
	CHECK(il_edit_distance("kitten", "sitting") == 3);
	CHECK(il_edit_distance("", "abc") == 3);
	CHECK(il_edit_distance("same", "same") == 0);
}

/* The one suggestion rule every "did you mean" in idlelab goes through. */
TEST(suggest_threshold)
{
	static const char *const names[] = { "interval_us", "samples", "db", NULL };
	struct il_suggester s;

	CHECK(!strcmp(il_suggest("intervl_us", names), "interval_us"));
	/* Exactly IL_SUGGEST_MAX_DISTANCE edits still suggests, one more not. */
	CHECK(il_edit_distance("sam", "samples") == IL_SUGGEST_MAX_DISTANCE + 1);
	CHECK(il_suggest("sam", names) == NULL);
	CHECK(il_edit_distance("samp", "samples") == IL_SUGGEST_MAX_DISTANCE);
	CHECK(!strcmp(il_suggest("samp", names), "samples"));
	/* A word no longer than its distance "means" nothing. */
	CHECK(il_suggest("", names) == NULL);
	CHECK(il_suggest("x", names) == NULL);
	CHECK(!strcmp(il_suggest("dv", names), "db"));
	CHECK(il_suggest("anything", NULL) == NULL);
	/* The same rule through the incremental form and the option table. */
	il_suggest_init(&s, "samplez");
	il_suggest_consider(&s, "zzzzzz");
	il_suggest_consider(&s, "samples");
	il_suggest_consider(&s, "samplex");
	CHECK(s.best && !strcmp(s.best, "samples"));
	CHECK(!strcmp(il_opts_suggest(table, "sampels"), "samples"));
}

/* A number or a choice added late stays out of the params text at 0. */
TEST(json_omit_zero)
{
	static const struct il_opt late[] = {
		{ .name = "n", .type = IL_OPT_U64,
		  .offset = offsetof(struct params, samples), .min = 0,
		  .max = 9, .def = "0", .unit = "", .help = "h",
		  .omit_zero = true },
		{ .name = "m", .type = IL_OPT_ENUM,
		  .offset = offsetof(struct params, mode), .def = "madvise",
		  .unit = "", .help = "h", .choices = modes,
		  .omit_zero = true },
		IL_OPT_END,
	};
	struct params p;
	json_t *j;

	il_opts_defaults(late, &p);
	j = il_opts_to_json(late, &p);
	CHECK(json_object_size(j) == 0);
	json_decref(j);
	CHECK(il_opts_set(late, &p, "n", "3") == 0);
	CHECK(il_opts_set(late, &p, "m", "mprotect") == 0);
	j = il_opts_to_json(late, &p);
	CHECK(json_integer_value(json_object_get(j, "n")) == 3);
	CHECK(!strcmp(json_string_value(json_object_get(j, "m")), "mprotect"));
	json_decref(j);
}

int main(void)
{
	RUN(defaults);
	RUN(u64_strict);
	RUN(bool_enum);
	RUN(lists);
	RUN(unknown_key_suggests);
	RUN(json_echo);
	RUN(json_omit_false);
	RUN(json_omit_zero);
	RUN(edit_distance);
	RUN(suggest_threshold);
	return tap_done();
}
