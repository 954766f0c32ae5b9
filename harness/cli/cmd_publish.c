// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_publish.c - `idlelab publish DIR`: a dataset a lab can share (issue
 * 25).  DIR gets idlelab.db (the selected runs and their machines, made
 * with VACUUM INTO: harness/publish.h), one CSV per table,
 * datapackage.json, metadata.json (for Datasette), README.md and
 * index.html, the comparison site (analysis/publish_bundle.h), and, when
 * redacted (the default, redact.h), redactions.json.
 *
 * DIR must be new or empty: a bundle is one publication, and mixing it
 * with files already there would let a stale CSV pass for part of it.  The
 * input is only ever read; no output may name it (outfile.h).  A failed
 * publish removes what it wrote, and DIR if it made it.
 */
#include "cli.h"
#include "cli_opts.h"
#include "analysis.h"
#include "err.h"
#include "progress.h"
#include "merge.h"
#include "outfile.h"
#include "publish.h"
#include "publish_bundle.h"
#include "redact.h"
#include "store.h"
#include "sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char publish_usage[] =
	"usage: idlelab publish DIR [--db FILE] [--bench NAME] [--run UUID]\n"
	"                       [--where FILTER] [--key FILE] [--no-redact]\n\n"
	"Write a bundle others can use into DIR (new or empty): idlelab.db with\n"
	"the selected runs and their machines, one CSV per table,\n"
	"datapackage.json, README.md and index.html, a comparison site that\n"
	"works from file:// with no network.  Hostnames, machine UUIDs, the kernel\n"
	"command line and hardware serials are redacted unless --no-redact\n"
	"(see idlelab-publish(1)).\n\n";

static int set_where(const struct cli_option *o, const char *arg)
{
	struct il_filter **f = o->value;

	if (*f)
		return cli_usage_error("publish: --where: give one filter (join terms with ',')");
	if (il_filter_parse(arg, f))
		return cli_usage_error("publish: --where: %s", il_errmsg());
	return 0;
}

/* 1 if @dir has an entry besides . and .., 0 if not, -errno. */
static int dir_has_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return -errno;
	while (!found && (e = readdir(d)))
		found = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return found;
}

/* DIR may be written: new, or an empty directory.  Return: 0 or exit code. */
static int check_dir(const char *dir, const char *out_db, int *exists)
{
	struct stat st;
	int n;

	*exists = !stat(dir, &st);
	if (*exists && !S_ISDIR(st.st_mode))
		return cli_usage_error("publish: %s exists and is not a directory", dir);
	if (*exists) {
		n = dir_has_entries(dir);
		if (n < 0)
			return cli_usage_error("publish: %s: %s", dir, strerror(-n));
		if (n)
			return cli_usage_error("publish: %s is not empty: a bundle goes into a new or empty directory",
					       dir);
	}
	if (il_outfile_check(out_db))
		return cli_usage_error("publish: %s", il_errmsg());
	return 0;
}

static int write_json(const char *path, json_t *j)
{
	struct il_outfile of = { NULL, NULL, NULL };
	int ret = il_outfile_open(&of, path);

	if (!ret) {
		json_dumpf(j, of.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', of.f);
		ret = il_outfile_commit(&of);
	}
	il_outfile_abort(&of);
	return ret;
}

struct paths {
	char *db, *work, *tmp, *redactions;
};

static int make_paths(struct paths *p, const char *dir)
{
	if (asprintf(&p->db, "%s/idlelab.db", dir) < 0 ||
	    asprintf(&p->work, "%s/.idlelab-work.db", dir) < 0 ||
	    asprintf(&p->tmp, "%s/.idlelab.db.tmp", dir) < 0 ||
	    asprintf(&p->redactions, "%s/redactions.json", dir) < 0)
		return il_errorf(-ENOMEM, "out of memory");
	return 0;
}

/* The bundle's database: copy, cut down, redact, vacuum into place. */
static int make_db(const char *db, const struct paths *p, const char *bench,
		   const char *run, const struct il_filter *where,
		   const struct il_redact_key *key, json_t *redactions, int *nruns)
{
	struct il_store *work;
	int damaged = 0, ret;

	ret = il_publish_copy(db, p->work, &work, &damaged);
	if (ret)
		return ret;
	if (damaged)
		fprintf(stderr, "idlelab: publish: %d damaged runs left out (see idlelab db check)\n",
			damaged);
	ret = il_publish_select(work, bench, run, where);
	*nruns = ret;
	if (ret == 0)
		ret = il_errorf(-ENODATA, "the selection holds no run");
	if (ret > 0)
		ret = il_publish_keep(work);
	if (!ret && key)
		ret = il_publish_redact(work, key, redactions);
	if (!ret)
		ret = il_publish_vacuum(work, p->tmp, p->db);
	il_store_close(work);
	il_store_remove(p->work);
	return ret;
}

/* The files read from the bundle's database. */
static int make_files(const char *dir, const struct paths *p, json_t *redactions)
{
	struct il_store *bundle;
	json_t *tables = json_array();
	int ret = tables ? il_store_open(p->db, IL_STORE_READONLY, &bundle) :
		  il_errorf(-ENOMEM, "out of memory");

	if (ret) {
		json_decref(tables);
		return ret;
	}
	ret = il_publish_tables(bundle, dir, tables) ?:
	      il_publish_package(bundle, dir, tables) ?:
	      il_publish_metadata(dir, tables) ?:
	      il_publish_readme(bundle, dir, redactions) ?:
	      il_publish_site(bundle, dir);
	if (!ret && redactions)
		ret = write_json(p->redactions, redactions);
	il_store_close(bundle);
	json_decref(tables);
	return ret;
}

int cmd_publish(int argc, char **argv)
{
	const char *db = cli_default_db(), *bench = NULL, *run = NULL,
		   *key_file = NULL;
	struct il_filter *where = NULL;
	bool no_redact = false;
	const struct cli_option options[] = {
		CLI_STRING('d', "db", &db, "FILE",
			   "database (default $IDLELAB_DB or ./idlelab.db)"),
		CLI_STRING('b', "bench", &bench, "NAME", "only this benchmark's runs"),
		CLI_STRING('u', "run", &run, "UUID", "only this run"),
		CLI_CALLBACK('w', "where", &where, "FILTER",
			     "only the runs matching KEY=VALUE[,KEY=VALUE]\n"
			     "(the keys of report --compare)", set_where),
		CLI_STRING('k', "key", &key_file, "FILE",
			   "pseudonym key (default $IDLELAB_STATE_DIR/publish-key)"),
		CLI_FLAG('N', "no-redact", &no_redact,
			 "publish hostnames, machine UUIDs, the whole kernel\n"
			 "command line and hardware serials as measured"),
		CLI_END
	};
	const struct cli_command cmd = { "publish", publish_usage, options };
	struct paths p = { NULL, NULL, NULL, NULL };
	struct il_redact_key key;
	json_t *redactions = NULL;
	int argi, code, ret, exists = 0, made = 0, nruns = 0;
	const char *dir;

	code = cli_parse_options(&cmd, argc, argv, &argi);
	if (code != CLI_CONTINUE)
		goto out;
	if (argc - argi != 1) {
		code = cli_usage_error("publish: need one DIR (see idlelab publish --help)");
		goto out;
	}
	dir = argv[argi];
	if (make_paths(&p, dir)) {
		code = cli_error(IL_EXIT_FAIL, "publish: %s", il_errmsg());
		goto out;
	}
	code = cli_check_output("publish", NULL, &db, 1) ?: check_dir(dir, p.db, &exists);
	if (code)
		goto out;
	ret = il_merge_check_input(db, p.db);
	if (ret) {
		code = cli_usage_error("publish: %s", il_errmsg());
		goto out;
	}
	if (!no_redact) {
		ret = il_redact_key_load(key_file, &key, NULL);
		if (ret) {
			code = cli_usage_error("publish: %s", il_errmsg());
			goto out;
		}
		redactions = json_pack("{s:b, s:s}", "redacted", 1, "key_id", key.id);
	}
	ret = il_mkdir_p(dir);
	made = !exists && !ret;
	il_progress_begin("publish");
	ret = ret ?: make_db(db, &p, bench, run, where, no_redact ? NULL : &key,
			     redactions, &nruns) ?:
	      make_files(dir, &p, redactions);
	if (ret) {
		/* DIR held nothing before, so all in it is ours. */
		il_outfile_remove_dir(dir, made);
		code = ret == -ENODATA ? cli_usage_error("publish: %s; nothing written", il_errmsg()) :
		       cli_error(IL_EXIT_FAIL, "publish: %s; nothing written", il_errmsg());
		goto out;
	}
	il_progress_end();
	printf("%s: %d runs%s\n", dir, nruns,
	       no_redact ? ", NOT redacted" : ", redacted (redactions.json)");
	code = IL_EXIT_OK;
out:
	json_decref(redactions);
	il_filter_free(where);
	free(p.db);
	free(p.work);
	free(p.tmp);
	free(p.redactions);
	return code;
}
