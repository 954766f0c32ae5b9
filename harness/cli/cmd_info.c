// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_info.c - `idlelab info`: the machine fingerprint, as the dataset
 * stores it (--json) or as a short human summary.
 */
#include "cli.h"
#include "cli_opts.h"
#include "env.h"
#include "err.h"
#include "kclient.h"
#include "topo.h"

#include <stdlib.h>
#include <string.h>

static const char info_usage[] =
	"usage: idlelab info [--json]\n\n"
	"Print this machine's fingerprint: CPU, kernel, TSC, APIC, cpuidle,\n"
	"cpufreq, SMT, CPUs, NUMA, PM QoS and the idlelab kernel modules\n"
	"(presence, version, ABI).  Values that cannot be read\n"
	"are shown as unknown, with the reason.\n\n";

/* One line per field: "section.key: value", unknowns with their reason. */
static void print_flat(const char *prefix, json_t *v)
{
	const char *key;
	json_t *child, *unk;
	size_t i;
	char name[256];
	char *s;

	unk = json_is_object(v) ? json_object_get(v, "unknown") : NULL;
	if (unk && json_object_size(v) == 1) {
		printf("%-28s unknown (%s)\n", prefix, json_string_value(unk));
		return;
	}
	if (json_is_object(v)) {
		json_object_foreach(v, key, child) {
			snprintf(name, sizeof(name), "%s%s%s", prefix,
				 *prefix ? "." : "", key);
			print_flat(name, child);
		}
		return;
	}
	if (json_is_array(v) && json_array_size(v) &&
	    json_is_object(json_array_get(v, 0))) {
		json_array_foreach(v, i, child) {
			snprintf(name, sizeof(name), "%s[%zu]", prefix, i);
			print_flat(name, child);
		}
		return;
	}
	s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	if (json_is_string(v))
		printf("%-28s %s\n", prefix, json_string_value(v));
	else
		printf("%-28s %s\n", prefix, s ? s : "?");
	free(s);
}

int cmd_info(int argc, char **argv)
{
	bool json = false;
	const struct cli_option options[] = {
		CLI_FLAG('j', "json", &json,
			 "the full fingerprint as JSON (what the database stores)"),
		CLI_END
	};
	const struct cli_command cmd = { "info", info_usage, options };
	struct il_topo *topo;
	json_t *fp;
	char uuid[37];
	int ret;

	ret = cli_parse_options_only(&cmd, argc, argv);
	if (ret != CLI_CONTINUE)
		return ret;
	ret = il_topo_open(&topo);
	if (ret)
		return cli_error(IL_EXIT_FAIL, "info: %s", il_errmsg());
	fp = il_fingerprint(topo);
	il_topo_close(topo);
	if (!fp)
		return cli_error(IL_EXIT_FAIL, "info: cannot build the fingerprint");
	/* Not part of the stored fingerprint: a module loads and unloads. */
	json_object_set_new(fp, "kmods", il_kmods_json());
	if (!il_host_uuid(uuid))
		json_object_set_new(fp, "host_uuid", json_string(uuid));
	if (json) {
		json_dumpf(fp, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		putchar('\n');
	} else {
		print_flat("", fp);
	}
	json_decref(fp);
	return IL_EXIT_OK;
}
