/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_advise.h - shared by the two files of `idlelab advise`: the parsed
 * options (cmd_advise.c) and --verify's confirmation campaign
 * (cmd_advise_verify.c).
 */
#ifndef IDLELAB_CMD_ADVISE_H
#define IDLELAB_CMD_ADVISE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct il_adv_machine;
struct il_budget;

struct adv_args {
	const char *budget, *wake, *db, *machine, *conf, *format;
	const char *map, *scale;
	bool verify;
	const char *blocks, *samples, *seed, *idle_us, *cpus;
};

/* What --verify ran, for its report. */
struct vf_result {
	char name[2][64];	/* the campaigns: advised, current */
	char allowed[512];	/* the advised states, "POLL, C1" */
	uint64_t seed;
	int blocks;
};

/**
 * advise_verify() - run the confirmation campaign for machine @m's advice
 * (this machine) and print its verdict; in json, set *@out to the
 * verdict's object (the caller adds it to the machine's).  Return: 0 when
 * the budget is met, IL_EXIT_NOT_MET when it is not shown to be, or
 * another exit code (with a message).
 */
int advise_verify(const struct adv_args *a, const struct il_adv_machine *m,
		  const struct il_budget *b, double conf, json_t **out);

#endif
