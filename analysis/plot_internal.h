/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * plot_internal.h - the plots' script writer and gnuplot run
 * (plot_gnuplot.c), for plot.c and the files that add plots of their own
 * kind (idle_declared_plot.c): a plot is a data file and a
 * NAME.gp script written into the output directory, never over an input
 * (outfile.h), and every script is rendered by one gnuplot process at the
 * end of il_plots().
 */
#ifndef IDLELAB_PLOT_INTERNAL_H
#define IDLELAB_PLOT_INTERNAL_H

#include <stdio.h>

struct il_store;

/* The plots made so far, NULL-terminated, for run_gnuplot() and html. */
struct il_plot_names {
	int n;
	char **v;
};

/**
 * il_plot_open() - DIR/NAME for writing, or NULL with errno set (EEXIST,
 * with the message, when it would be an input).
 */
FILE *il_plot_open(const char *dir, const char *name);

/** il_plot_open_err() - the error of a failed il_plot_open(). */
int il_plot_open_err(const char *dir, const char *name);

/** il_plot_str() - @s as a gnuplot string, quotes doubled. */
void il_plot_str(FILE *f, const char *s);

/**
 * il_plot_render() - NAME.gp that draws @body into NAME.png and NAME.svg,
 * added to @nm for the one gnuplot run.  Return: 0 or -errno.
 */
int il_plot_render(const char *dir, const char *name, const char *body,
		   struct il_plot_names *nm);

/** il_plot_have_gnuplot() - whether the gnuplot binary exists on $PATH. */
int il_plot_have_gnuplot(void);

/**
 * il_plot_run() - run one gnuplot in @dir on the @n scripts @names
 * (NAME.gp each).  Return: 0, or -errno with the message, gnuplot's log
 * named, when it fails.
 */
int il_plot_run(const char *dir, char *const *names, int n);

/**
 * il_plot_declared() - per machine and wake source of the idle_sweep
 * runs: the wake latency against idle time, and the CDF, one series per
 * idle state entered (idle_declared_plot.c).  Return: 0 or -errno.
 */
int il_plot_declared(struct il_store *s, const char *dir,
		     struct il_plot_names *nm);

#endif
