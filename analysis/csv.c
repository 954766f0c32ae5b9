// SPDX-License-Identifier: GPL-2.0-only
/*
 * csv.c - CSV field quoting (see csv.h), shared by the results table,
 * the generic tables and `idlelab export`, so every CSV idlelab writes
 * parses the same way.
 */
#include "csv.h"

#include <string.h>

void il_csv_field(FILE *out, const char *s, enum il_csv_quote q)
{
	if (q == IL_CSV_AS_NEEDED && !strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}
