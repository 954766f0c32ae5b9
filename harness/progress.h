/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * progress.h - the progress line of a command that reads a dataset
 * (report, export, merge, publish, db, advise, import), on stderr when
 * it is a terminal and the command has run for 2 s (issue 23: a fleet's
 * year of runs makes these take minutes).  bench and run draw their own
 * line, with an ETA from the benchmarks' estimates.
 *
 * One line for the process: the loops that know how much is done sit
 * several calls below the command (the report's row loop, the streaming
 * compare), and threading a handle down to each would change a dozen
 * signatures for a line of text.  Where no command began one, every call
 * is a no-op.  Between explicit counts, the store keeps the line alive
 * from SQLite's progress handler, so a long query (merge, publish's copy)
 * shows that it is working.
 */
#ifndef IDLELAB_PROGRESS_H
#define IDLELAB_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/* Start the line for command @what; drawn only on a terminal stderr, once
 * IDLELAB_PROGRESS_AFTER_MS (default 2000) have passed. */
void il_progress_begin(const char *what);
/* Whether a line may be drawn: a command began one and stderr is a TTY. */
bool il_progress_active(void);
/* @n things of @unit done so far ("runs read"); redraws at most 4 times
 * a second. */
void il_progress_count(uint64_t n, const char *unit);
/* Redraw the elapsed time if due, with the last count. */
void il_progress_poll(void);
/* Clear the line if it was drawn, before other text on the terminal; it
 * is drawn again at the next count or poll. */
void il_progress_clear(void);
/* Clear the line if it was drawn, and stop. */
void il_progress_end(void);

#endif /* IDLELAB_PROGRESS_H */
