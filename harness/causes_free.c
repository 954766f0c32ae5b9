// SPDX-License-Identifier: GPL-2.0-only
/*
 * causes_free.c - freeing a --causes run's state (causes.h): its trace
 * capture, the idle states entered, the attributed samples and the notes.
 * il_run_release() (run_context.c) calls it for every run, and
 * causes_run.c reads the run's series and attributes through
 * run_context.c, so it is a file of its own: run_context.c and
 * causes_run.c then do not call each other in a circle.
 */
#include "causes.h"

#include <stdlib.h>

void il_causes_free(struct il_causes_run *c)
{
	size_t k;
	int i;

	if (!c)
		return;
	il_trace_free(c->trace);
	il_causes_states_free(c);
	for (k = 0; k < c->nsamples; k++)
		free(c->samples[k].causes);
	free(c->samples);
	for (i = 0; i < c->nnotes; i++)
		free(c->notes[i].v);
	free(c->notes);
	free(c);
}
