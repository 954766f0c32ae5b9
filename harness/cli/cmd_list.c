// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_list.c - `idlelab list`: every benchmark with its parameters,
 * defaults and units, straight from the option tables, and whether it can
 * run here (and if not, why).
 */
#include "cli.h"
#include "cli_opts.h"
#include "bench.h"
#include "bench_registry.h"
#include "kmod_frame.h"

#include <inttypes.h>
#include <string.h>

static const char list_usage[] =
	"usage: idlelab list [--json] [NAME]\n\n"
	"List the benchmarks, their parameters (type, default, range, unit)\n"
	"and whether each can run on this machine.\n\n";

/* The names of the IL_BF_* flags (bench.h) in `list --json`. */
static const struct {
	unsigned int bit;
	const char *name;
} bench_flags[] = {
	{ IL_BF_PAIRS, "pairs" },
	{ IL_BF_MULTI_CPU, "multi_cpu" },
	{ IL_BF_KMOD, "kmod" },
};

static json_t *flags_json(unsigned int flags)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < sizeof(bench_flags) / sizeof(bench_flags[0]); i++)
		if (flags & bench_flags[i].bit)
			json_array_append_new(a, json_string(bench_flags[i].name));
	return a;
}

static json_t *bench_json(const struct il_bench_ops *b)
{
	const char *why = il_bench_supported(b);
	json_t *o, *params = json_array();
	const struct il_opt *p;
	int i;

	for (p = b->opts; p && p->name; p++) {
		json_t *po = json_pack("{s:s,s:s,s:s,s:s,s:s}", "name", p->name,
				       "type", il_opts_type_name(p->type),
				       "default", p->def ? p->def : "",
				       "unit", p->unit ? p->unit : "",
				       "help", p->help ? p->help : "");

		if (p->type == IL_OPT_U64 || p->type == IL_OPT_LIST) {
			json_object_set_new(po, "min", json_integer((json_int_t)p->min));
			json_object_set_new(po, "max", json_integer((json_int_t)p->max));
		}
		if (p->type == IL_OPT_ENUM) {
			json_t *c = json_array();

			for (i = 0; p->choices[i]; i++)
				json_array_append_new(c, json_string(p->choices[i]));
			json_object_set_new(po, "choices", c);
		}
		json_array_append_new(params, po);
	}
	o = json_pack("{s:s,s:s,s:s,s:s,s:b,s:o}", "name", b->name,
		      "summary", b->summary, "timestamps", b->timestamps,
		      "default_cpus", b->default_cpus ? b->default_cpus : "all",
		      "supported", why == NULL, "params", params);
	json_object_set_new(o, "flags", flags_json(b->flags));
	if (why)
		json_object_set_new(o, "unsupported_reason", json_string(why));
	return o;
}

static void print_bench(const struct il_bench_ops *b)
{
	const char *why = il_bench_supported(b);
	const struct il_opt *p;
	char range[64];
	int i;

	printf("%s - %s\n", b->name, b->summary);
	printf("  measures: %s\n", b->timestamps);
	printf("  cpus:     %s (default)\n", b->default_cpus ? b->default_cpus : "all");
	if (why)
		printf("  UNSUPPORTED here: %s\n", why);
	for (p = b->opts; p && p->name; p++) {
		range[0] = '\0';
		if (p->type == IL_OPT_U64 || p->type == IL_OPT_LIST)
			snprintf(range, sizeof(range), "[%" PRIu64 "..%" PRIu64 "]",
				 p->min, p->max);
		if (p->type == IL_OPT_ENUM) {
			size_t used = 0;

			for (i = 0; p->choices[i] && used < sizeof(range); i++)
				used += snprintf(range + used, sizeof(range) - used,
						 "%s%s", i ? "|" : "", p->choices[i]);
		}
		printf("    %-18s %-5s default %-10s %-6s %-22s %s\n", p->name,
		       il_opts_type_name(p->type), p->def ? p->def : "-",
		       p->unit && *p->unit ? p->unit : "-", range,
		       p->help ? p->help : "");
	}
}

int cmd_list(int argc, char **argv)
{
	bool json = false;
	const struct cli_option options[] = {
		CLI_FLAG('j', "json", &json, "machine-readable"),
		CLI_END
	};
	const struct cli_command cmd = { "list", list_usage, options };
	const struct il_bench_ops *const *b;
	const char *only = NULL;
	json_t *arr;
	int argi, ret;

	ret = cli_parse_options(&cmd, argc, argv, &argi);
	if (ret != CLI_CONTINUE)
		return ret;
	if (argi < argc) {
		only = argv[argi];
		if (!il_bench_find(only))
			return cli_usage_error("list: unknown benchmark '%s'", only);
	}
	arr = json_array();
	for (b = il_benches; *b; b++) {
		if (only && strcmp(only, (*b)->name))
			continue;
		if (json)
			json_array_append_new(arr, bench_json(*b));
		else
			print_bench(*b);
		if (!json && b[1] && !only)
			putchar('\n');
	}
	if (json) {
		json_dumpf(arr, stdout, JSON_INDENT(2));
		putchar('\n');
	}
	json_decref(arr);
	return IL_EXIT_OK;
}
