// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_runjson.c - the JSON Lines that `bench --json` and `run --json`
 * print (cli_runjson.h).  Built with jansson and written compact, one
 * object a line, so `jq -c`, pandas' read_json(lines=True) or a shell
 * `while read` loop take the output as it comes.  Absent values are JSON
 * null, never "" or a made-up number, so a script tests for them in one
 * way; every key is always present, so a script never guesses whether a
 * key is missing on purpose.
 */
#include "cli_runjson.h"
#include "analysis.h"
#include "err.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * @s as a JSON string, or null when there is no text.  jansson refuses
 * text that is not UTF-8 (a reason may quote a file's bytes), and a
 * dropped reason would be a silent loss: such bytes become '?'.
 */
static json_t *str_or_null(const char *s)
{
	json_t *v;
	char *copy, *p;

	if (!s || !*s)
		return json_null();
	v = json_string(s);
	if (v)
		return v;
	copy = strdup(s);
	if (!copy)
		return NULL;
	for (p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	v = json_string(copy);
	free(copy);
	return v;
}

/* Print @o (consumed) as one line and flush. */
static int emit(FILE *f, json_t *o)
{
	int ret = 0;

	if (!o)
		return il_errorf(-ENOMEM, "out of memory");
	if (json_dumpf(o, f, JSON_COMPACT | JSON_ENSURE_ASCII) ||
	    fputc('\n', f) == EOF || fflush(f))
		ret = il_errorf(-EIO, "cannot write the JSON line: %s",
				strerror(errno));
	json_decref(o);
	return ret;
}

int cli_json_run_line(FILE *f, const struct cli_run_line *l)
{
	json_t *o = json_object(), *params = NULL;

	/* The plan's canonical text, parsed back so it nests as an object
	 * and not as a string a script would have to parse again. */
	if (l->params_json)
		params = json_loads(l->params_json, 0, NULL);
	if (o) {
		json_object_set_new(o, "type", json_string("run"));
		json_object_set_new(o, "uuid", str_or_null(l->uuid));
		json_object_set_new(o, "bench", str_or_null(l->bench));
		json_object_set_new(o, "status", str_or_null(l->status));
		json_object_set_new(o, "reason", str_or_null(l->reason));
		json_object_set_new(o, "campaign", str_or_null(l->campaign));
		json_object_set_new(o, "index", l->index >= 0 ?
				    json_integer(l->index) : json_null());
		json_object_set_new(o, "group", str_or_null(l->group));
		json_object_set_new(o, "repetition", l->repetitions ?
				    json_integer(l->repetition) : json_null());
		json_object_set_new(o, "repetitions", l->repetitions ?
				    json_integer(l->repetitions) : json_null());
		json_object_set_new(o, "cpus", str_or_null(l->cpus));
		json_object_set_new(o, "params", params ? params : json_null());
		params = NULL;
		json_object_set_new(o, "stored", json_boolean(l->stored));
		json_object_set_new(o, "kept", str_or_null(l->kept));
		json_object_set_new(o, "report", l->report ? l->report :
				    json_null());
	} else {
		json_decref(params);
		json_decref(l->report);
	}
	return emit(f, o);
}

int cli_json_campaign_line(FILE *f, const struct cli_campaign_line *l)
{
	json_t *o = json_object();

	if (o) {
		json_object_set_new(o, "type", json_string("campaign"));
		json_object_set_new(o, "campaign", str_or_null(l->campaign));
		json_object_set_new(o, "file", str_or_null(l->file));
		json_object_set_new(o, "ok", json_integer(l->ok));
		json_object_set_new(o, "failed", json_integer(l->failed));
		json_object_set_new(o, "unsupported", json_integer(l->unsupported));
		json_object_set_new(o, "skipped", json_integer(l->skipped));
		json_object_set_new(o, "interrupted", json_integer(l->interrupted));
		json_object_set_new(o, "already_done", json_integer(l->done));
		json_object_set_new(o, "not_stored", json_integer(l->unstored));
		json_object_set_new(o, "store_error", str_or_null(l->store_error));
		json_object_set_new(o, "duration_ms", json_integer((json_int_t)l->duration_ms));
		json_object_set_new(o, "stopped", json_boolean(l->stopped));
		json_object_set_new(o, "resume", str_or_null(l->resume));
	}
	return emit(f, o);
}

json_t *cli_json_report_run(struct il_store *store, const char *uuid)
{
	struct il_report_opts ro = { .format = IL_FMT_JSON, .run_uuid = uuid };
	json_error_t jerr;
	char *buf = NULL;
	size_t len = 0;
	json_t *v = NULL;
	FILE *mf;
	int ret;

	/* il_report() writes to a FILE; its text is read back once here
	 * rather than rendered a second way, so the field is exactly what
	 * `report --format json` prints. */
	mf = open_memstream(&buf, &len);
	if (!mf) {
		il_errorf(-ENOMEM, "out of memory");
		return NULL;
	}
	ret = il_report(store, &ro, mf);
	if (fclose(mf) && !ret)
		ret = il_errorf(-ENOMEM, "out of memory");
	if (!ret) {
		v = json_loadb(buf, len, 0, &jerr);
		if (!v)
			il_errorf(-EIO, "the run's report is not JSON: %s",
				  jerr.text);
	}
	free(buf);
	return v;
}
