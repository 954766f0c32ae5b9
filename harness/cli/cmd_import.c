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
#include "run_execute.h"
#include "store.h"
#include "topo.h"

#include <jansson.h>
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
	"       idlelab import reference [FILE] [--db FILE]\n\n"
	"cyclictest: one run from rt-tests' cyclictest --json (run it with -h N so\n"
	"it writes a histogram); reference: the seeds' published figures as\n"
	"reference machines (default file: data/reference/seeds.json, then\n"
	IL_PREFIX "/share/idlelab/reference/seeds.json).  See idlelab-import(1).\n\n";

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
		return cli_usage_error("import: what to import? cyclictest FILE.json or reference [FILE] (see idlelab import --help)");
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
	} else {
		return cli_usage_error("import: unknown source '%s' (use cyclictest or reference)", what);
	}
	ret = il_store_open(db, IL_STORE_CREATE, &store);
	if (ret)
		return cli_usage_error("import: %s", il_errmsg());
	if (!strcmp(what, "cyclictest")) {
		ret = import_cyclictest(store, file, which);
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
