// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_import.c - `idlelab import cyclictest FILE.json` and `idlelab import
 * reference [FILE]` (harness/import.c): data measured elsewhere, or
 * published, into the dataset so every report places it beside idlelab's
 * own runs.  Both are idempotent.
 */
#include "cli.h"
#include "cli_opts.h"
#include "err.h"
#include "import.h"
#include "merge.h"
#include "run_execute.h"
#include "store.h"
#include "store_pending.h"
#include "topo.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The source tree's, then the one `make install` put under the PREFIX
 * this binary was built with (the Makefile's IL_PREFIX). */
static const char *const ref_paths[] = {
	"data/reference/seeds.json",
	IL_PREFIX "/share/idlelab/reference/seeds.json",
};

static const char import_usage[] =
	"usage: idlelab import cyclictest FILE.json [--db FILE] [--machine auto|this|json]\n"
	"       idlelab import reference [FILE] [--db FILE]\n"
	"       idlelab import pending [--db FILE]\n\n"
	"cyclictest: one run from rt-tests' cyclictest --json (run it with -h N so\n"
	"it writes a histogram); reference: the seeds' published figures as\n"
	"reference machines (default file: data/reference/seeds.json, then\n"
	IL_PREFIX "/share/idlelab/reference/seeds.json); pending: the runs a\n"
	"database refused to store, kept in DB.pending/.  See idlelab-import(1).\n\n";

static int set_machine(const struct cli_option *o, const char *arg)
{
	if (strcmp(arg, "auto") && strcmp(arg, "this") && strcmp(arg, "json"))
		return cli_usage_error("import: --machine: unknown '%s' (use auto, this or json)", arg);
	*(const char **)o->value = arg;
	return 0;
}

/* The JSON's sysinfo.nodename equals this host's name. */
static bool same_host(const char *path)
{
	char host[256] = "";
	json_t *doc = json_load_file(path, 0, NULL);
	const char *node = json_string_value(json_object_get(json_object_get(doc, "sysinfo"), "nodename"));
	bool same;

	gethostname(host, sizeof(host) - 1);
	same = node && !strcmp(node, host);
	json_decref(doc);
	return same;
}

/*
 * The machine row and the run in one transaction: a file the import
 * refuses leaves the database as it was, this machine's last_seen too.
 */
static int import_cyclictest(struct il_store *store, const char *path, const char *which)
{
	char machine[37], run[37];
	struct il_topo *topo;
	bool this, already;
	int ret;

	this = !strcmp(which, "this") || (!strcmp(which, "auto") && same_host(path));
	ret = il_store_begin(store);
	if (ret)
		return cli_error(IL_EXIT_FAIL, "import: %s", il_errmsg());
	if (this) {
		ret = il_topo_open(&topo);
		if (!ret) {
			ret = il_machine_register(store, topo, machine);
			il_topo_close(topo);
		}
		if (ret) {
			il_store_end(store, false);
			return cli_error(IL_EXIT_FAIL, "import: cannot record this machine: %s", il_errmsg());
		}
	}
	ret = il_import_cyclictest(store, path, this ? machine : NULL, run, &already);
	/* Committed only when whole; the first error's message is kept. */
	if (!ret)
		ret = il_store_end(store, true);
	else
		il_store_end(store, false);
	if (ret == -EINVAL || ret == -ENOENT || ret == -EACCES)
		return cli_usage_error("import: %s", il_errmsg());
	if (ret)
		return cli_error(IL_EXIT_FAIL, "import: %s", il_errmsg());
	printf("%s: %s run %s\n", path, already ? "already imported as" : "imported as", run);
	return IL_EXIT_OK;
}

static void warn_left_out(const char *uuid, const char *why, void *arg)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "import pending: %s", (const char *)arg);
	cli_warn_damaged(cmd, uuid, why);
}

/* A kept run's name in the pending directory: UUID.db, no dot first. */
static bool pending_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n == 36 + 3 && !strcmp(name + 36, ".db");
}

/*
 * The runs a refusing database left beside @db (store_pending.h): each
 * merged in (merge.h, so checked as any input is) and then removed.  A
 * kept run whose plan entry was measured again since (a --resume before
 * the import) stays where it is, named, and the exit is 1.
 */
static int import_pending(struct il_store *store, const char *db)
{
	char dir[4096], path[4400];
	struct il_merge_stats st;
	struct dirent *de;
	int ret, n = 0, kept = 0;
	DIR *d;

	if (!il_store_pending_dir(db, dir, sizeof(dir)))
		return cli_usage_error("import pending: %s: path too long", db);
	d = opendir(dir);
	if (!d && errno == ENOENT) {
		printf("%s: no pending runs\n", db);
		return IL_EXIT_OK;
	}
	if (!d)
		return cli_error(IL_EXIT_FAIL, "import pending: %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (!pending_name(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		ret = il_merge_check_input(path, db);
		if (!ret)
			ret = il_merge_one(store, path, &st, warn_left_out, path);
		if (ret) {
			cli_error(IL_EXIT_FAIL, "import pending: %s: %s; left in place",
				  path, il_errmsg());
			kept++;
			continue;
		}
		printf("%s: %s\n", path, st.runs_new ? "imported" :
		       st.runs_damaged ? "damaged, left out" : "already present");
		il_store_remove(path);
		n++;
	}
	closedir(d);
	rmdir(dir);	/* only once empty */
	printf("%s: %d pending run%s imported, %d left\n", db, n,
	       n == 1 ? "" : "s", kept);
	return kept ? IL_EXIT_FAIL : IL_EXIT_OK;
}

int cmd_import(int argc, char **argv)
{
	const char *db = cli_default_db(), *which = "auto", *what, *file = NULL;
	const struct cli_option options[] = {
		CLI_STRING('d', "db", &db, "FILE",
			   "database (default $IDLELAB_DB or ./idlelab.db)"),
		CLI_CALLBACK('m', "machine", &which, "WHICH",
			     "cyclictest: file the run under this host (this),\n"
			     "a machine named by the JSON's uname (json), or\n"
			     "this host when the uname's nodename is ours (auto)",
			     set_machine),
		CLI_END
	};
	const struct cli_command cmd = { "import", import_usage, options };
	struct il_store *store;
	int argi, ret, n;
	size_t i;

	ret = cli_parse_options(&cmd, argc, argv, &argi);
	if (ret != CLI_CONTINUE)
		return ret;
	if (argi == argc)
		return cli_usage_error("import: what to import? cyclictest FILE.json, reference [FILE] or pending (see idlelab import --help)");
	what = argv[argi++];
	if (argi < argc)
		file = argv[argi++];
	if (argi != argc)
		return cli_usage_error("import: unexpected argument '%s'", argv[argi]);
	if (!strcmp(what, "cyclictest")) {
		if (!file)
			return cli_usage_error("import cyclictest: need FILE.json");
		if (access(file, R_OK))
			return cli_usage_error("import cyclictest: %s: %s", file, strerror(errno));
	} else if (!strcmp(what, "reference")) {
		for (i = 0; !file && i < sizeof(ref_paths) / sizeof(ref_paths[0]); i++)
			if (!access(ref_paths[i], R_OK))
				file = ref_paths[i];
		if (!file)
			return cli_usage_error("import reference: no reference file found (give its path)");
		if (access(file, R_OK))
			return cli_usage_error("import reference: %s: %s", file, strerror(errno));
	} else if (!strcmp(what, "pending")) {
		if (file)
			return cli_usage_error("import pending: takes no FILE; it reads %s.pending/ (give --db)", db);
	} else {
		return cli_usage_error("import: unknown source '%s' (use cyclictest, reference or pending)", what);
	}
	ret = il_store_open(db, IL_STORE_CREATE, &store);
	if (ret)
		return cli_usage_error("import: %s", il_errmsg());
	if (!strcmp(what, "cyclictest")) {
		ret = import_cyclictest(store, file, which);
	} else if (!strcmp(what, "pending")) {
		ret = import_pending(store, db);
	} else {
		ret = il_import_reference(store, file, &n);
		if (ret == -EINVAL || ret == -ENOENT)
			ret = cli_usage_error("import: %s", il_errmsg());
		else if (ret)
			ret = cli_error(IL_EXIT_FAIL, "import: %s", il_errmsg());
		else
			printf("%s: %d reference runs imported\n", file, n);
	}
	il_store_close(store);
	return ret;
}
