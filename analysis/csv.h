/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * csv.h - the one CSV field writer of every report and export.
 *
 * Fields follow RFC 4180: a field holding a comma, a double quote, CR or
 * LF is put in double quotes with its quotes doubled.  Most outputs quote
 * only where that is needed; the results table (report.c) quotes every
 * text column, so spreadsheets never take a benchmark or host name for a
 * number, and it keeps doing so through IL_CSV_ALWAYS.
 */
#ifndef IDLELAB_CSV_H
#define IDLELAB_CSV_H

#include <stdio.h>

enum il_csv_quote {
	IL_CSV_AS_NEEDED,	/* quotes only around a field that needs them */
	IL_CSV_ALWAYS,		/* quotes around every field */
};

/** il_csv_field() - write @s to @out as one CSV field (no separator). */
void il_csv_field(FILE *out, const char *s, enum il_csv_quote q);

#endif
