/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli_causes.h - the --causes options of `idlelab bench`, one table
 * fragment shared by the commands that run benchmarks.
 */
#ifndef IDLELAB_CLI_CAUSES_H
#define IDLELAB_CLI_CAUSES_H

#include "cli_opts.h"

/* --causes-threshold NS and --causes-buffer-kb KB into a uint64_t. */
int cli_causes_threshold(const struct cli_option *o, const char *arg);
int cli_causes_buffer(const struct cli_option *o, const char *arg);

#define CLI_CAUSES_OPTIONS(req)						\
	CLI_FLAG(0, "causes", &(req).causes,				\
		 "capture kernel trace events on the measured CPUs and\n" \
		 "store the causes of each outlier (needs root, tracefs)"), \
	CLI_FLAG(0, "causes-lean", &(req).causes_lean,			\
		 "with --causes: leave sched_wakeup and cpu_idle out,\n" \
		 "two events fewer on each wake's path (the idle\n"	\
		 "state per sample is then unknown)"),			\
	CLI_CALLBACK(0, "causes-threshold", &(req).causes_threshold_ns, "NS", \
		     "attribute samples of at least NS ns (default: each\n" \
		     "series' p99; gaps are always attributed)",	\
		     cli_causes_threshold),				\
	CLI_CALLBACK(0, "causes-buffer-kb", &(req).causes_buffer_kb, "KB", \
		     "per-CPU trace buffer (default: sized from the run's\n" \
		     "estimate); what it cannot hold is counted as lost",	\
		     cli_causes_buffer)

#endif
