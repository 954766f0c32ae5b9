// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_envctl_keys.c - the table of `environment:` keys
 * (harness/envctl_keys.c): every entry is complete, each setter takes
 * what the campaign file documents and refuses the rest with the
 * campaign parser's wording, the dry-run rendering reads back what was
 * set, and idlelab-run(1) names every key of the table, so a key added
 * to the table without documentation fails here.  Run from the
 * repository root (the man page is read from man/).
 */
#include "tap.h"

#include "envctl.h"
#include "err.h"
#include "opts.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MANPAGE "man/idlelab-run.1"

static struct il_envctl_val scalar(const char *text)
{
	return (struct il_envctl_val){ .kind = IL_ENVVAL_SCALAR, .text = text,
				       .plain = true };
}

/* Set @key to the scalar @text in a fresh spec; return its status. */
static int set1(struct il_envctl_spec *s, const char *key, const char *text)
{
	struct il_envctl_val v = scalar(text);

	return il_envctl_key_set(s, il_envctl_key_find(key), &v);
}

static bool msg_is(const char *want)
{
	if (!strcmp(il_errmsg(), want))
		return true;
	printf("# message: '%s'\n#    want: '%s'\n", il_errmsg(), want);
	return false;
}

TEST(every_key_is_complete_and_found)
{
	const struct il_envctl_key *k;
	static const char *const documented[] = {
		"pm_qos_us", "cpuidle_only", "governor", "pin_freq_khz",
		"sched_fifo", "mlockall", NULL,
	};
	const char *const *names = il_envctl_key_names();
	int n = 0;

	for (k = il_envctl_keys; k->name; k++, n++) {
		CHECKF(k->accepts && *k->accepts && k->help && *k->help &&
		       k->changes && *k->changes && k->restore && *k->restore,
		       "%s lacks a description", k->name);
		CHECKF(k->set && k->show, "%s lacks a setter or renderer", k->name);
		CHECKF(il_envctl_key_find(k->name) == k, "%s not found", k->name);
		CHECKF(names[n] && !strcmp(names[n], k->name), "names[%d]", n);
	}
	CHECK(names[n] == NULL);
	/* The keys idlelab-run(1) has documented from the start stay. */
	for (n = 0; documented[n]; n++)
		CHECKF(il_envctl_key_find(documented[n]) != NULL, "%s", documented[n]);
	CHECK(il_envctl_key_find("goverinor") == NULL);
	CHECK(il_suggest("goverinor", il_envctl_key_names()) &&
	      !strcmp(il_suggest("goverinor", il_envctl_key_names()), "governor"));
	CHECK(il_suggest("frobnicate", il_envctl_key_names()) == NULL);
}

TEST(setters_take_the_documented_values)
{
	struct il_envctl_val items[] = { scalar("C1"), scalar("POLL") };
	struct il_envctl_val list = { .kind = IL_ENVVAL_LIST, .nitems = 2,
				      .items = items };
	struct il_envctl_val null = { .kind = IL_ENVVAL_NULL };
	struct il_envctl_spec s = { 0 };

	CHECK(il_envctl_spec_empty(&s));
	CHECK(set1(&s, "pm_qos_us", "0") == 0 && s.pm_qos && s.pm_qos_us == 0);
	CHECK(il_envctl_key_set(&s, il_envctl_key_find("cpuidle_only"), &list) == 0);
	CHECK(s.ncpuidle_only == 2 && !strcmp(s.cpuidle_only[1], "POLL"));
	CHECK(set1(&s, "governor", "performance") == 0 &&
	      !strcmp(s.governor, "performance"));
	CHECK(set1(&s, "pin_freq_khz", "max") == 0 && s.pin == IL_PIN_MAX);
	CHECK(set1(&s, "pin_freq_khz", "min") == 0 && s.pin == IL_PIN_MIN);
	CHECK(set1(&s, "pin_freq_khz", "2000000") == 0 && s.pin == IL_PIN_KHZ &&
	      s.pin_khz == 2000000);
	CHECK(set1(&s, "sched_fifo", "95") == 0 && s.sched_fifo == 95);
	CHECK(set1(&s, "mlockall", "yes") == 0 && s.mlockall);
	/* null leaves a setting alone; "false" switches sched_fifo off */
	CHECK(il_envctl_key_set(&s, il_envctl_key_find("pm_qos_us"), &null) == 0 &&
	      s.pm_qos);
	CHECK(set1(&s, "sched_fifo", "false") == 0 && s.sched_fifo == 0);
	CHECK(set1(&s, "mlockall", "off") == 0 && !s.mlockall);
	il_envctl_spec_free(&s);
	CHECK(!s.governor && !s.cpuidle_only && !s.ncpuidle_only);
}

TEST(setters_refuse_with_the_parser_wording)
{
	struct il_envctl_val empty = { .kind = IL_ENVVAL_LIST };
	struct il_envctl_val nested[] = { { .kind = IL_ENVVAL_LIST } };
	struct il_envctl_val bad_item = { .kind = IL_ENVVAL_LIST, .nitems = 1,
					  .items = nested };
	struct il_envctl_val quoted = { .kind = IL_ENVVAL_SCALAR,
					.text = "false" };
	struct il_envctl_spec s = { 0 };
	const struct il_envctl_key *only = il_envctl_key_find("cpuidle_only");

	CHECK(set1(&s, "pm_qos_us", "-1") == -EINVAL &&
	      msg_is("expected a whole number, got '-1'"));
	CHECK(set1(&s, "pm_qos_us", "2000000001") == -EINVAL &&
	      msg_is("2000000001 is out of range [0, 2000000000]"));
	CHECK(set1(&s, "cpuidle_only", "C1") == -EINVAL &&
	      msg_is("expected a list of idle state names (e.g. [C1]), got a scalar"));
	CHECK(il_envctl_key_set(&s, only, &empty) == -EINVAL &&
	      msg_is("empty list: at least one idle state must stay enabled (POLL counts)"));
	CHECK(il_envctl_key_set(&s, only, &bad_item) == -EINVAL &&
	      msg_is("expected a string, got a list"));
	CHECK(set1(&s, "sched_fifo", "100") == -EINVAL &&
	      msg_is("100 is out of range [1, 99]"));
	CHECK(il_envctl_key_set(&s, il_envctl_key_find("sched_fifo"), &quoted) == -EINVAL &&
	      msg_is("expected a whole number, got 'false'"));
	CHECK(set1(&s, "pin_freq_khz", "fast") == -EINVAL &&
	      msg_is("expected max, min or a frequency in kHz, got 'fast'"));
	CHECK(set1(&s, "mlockall", "maybe") == -EINVAL &&
	      msg_is("expected true or false, got 'maybe'"));
	il_envctl_spec_free(&s);
}

TEST(describe_renders_what_was_set)
{
	char only0[] = "C1", only1[] = "POLL", gov[] = "performance";
	char *only[] = { only0, only1 };
	struct il_envctl_spec s = {
		.pm_qos = true, .pm_qos_us = 0,
		.ncpuidle_only = 2, .cpuidle_only = only,
		.governor = gov, .pin = IL_PIN_MAX,
		.sched_fifo = 95, .mlockall = true,
	};
	struct il_envctl_spec none = { 0 };
	char buf[256];

	CHECK(il_envctl_spec_describe(&none, buf, sizeof(buf)) == 0 &&
	      !strcmp(buf, "environment: unchanged"));
	CHECK(il_envctl_spec_describe(&s, buf, sizeof(buf)) == 0);
	CHECKF(!strcmp(buf, "environment: pm_qos_us=0 cpuidle_only=C1,POLL governor=performance pin_freq_khz=max sched_fifo=95 mlockall=1"),
	       "%s", buf);
	s.pin = IL_PIN_KHZ;
	s.pin_khz = 1200000;
	s.pm_qos = false;
	CHECK(il_envctl_spec_describe(&s, buf, sizeof(buf)) == 0);
	CHECKF(strstr(buf, " pin_freq_khz=1200000 ") && !strstr(buf, "pm_qos"),
	       "%s", buf);
	CHECK(il_envctl_spec_describe(&s, buf, 16) == -ENOSPC);
}

TEST(keys_print_names_every_key)
{
	const struct il_envctl_key *k;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CHECK(f && il_envctl_keys_print(f) == 0);
	fclose(f);
	for (k = il_envctl_keys; k->name; k++)
		CHECKF(text && strstr(text, k->restore), "%s missing", k->name);
	free(text);
}

/* True if @word occurs in @text with no identifier character either side. */
static bool names_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(text, word); p; p = strstr(p + 1, word)) {
		bool before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool after = isalnum((unsigned char)p[n]) || p[n] == '_';

		if (!before && !after)
			return true;
	}
	return false;
}

TEST(man_page_names_every_key)
{
	const struct il_envctl_key *k;
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(MANPAGE, "r");

	CHECKF(f != NULL, "cannot open %s (run from the repository root)", MANPAGE);
	if (!f)
		return;
	CHECK(getdelim(&text, &len, '\0', f) > 0);
	fclose(f);
	for (k = il_envctl_keys; text && k->name; k++)
		CHECKF(names_word(text, k->name), "%s does not name '%s'",
		       MANPAGE, k->name);
	/* The check itself must be able to fail. */
	CHECK(text && !names_word(text, "pm_qos"));
	free(text);
}

int main(void)
{
	RUN(every_key_is_complete_and_found);
	RUN(setters_take_the_documented_values);
	RUN(setters_refuse_with_the_parser_wording);
	RUN(describe_renders_what_was_set);
	RUN(keys_print_names_every_key);
	RUN(man_page_names_every_key);
	return tap_done();
}
