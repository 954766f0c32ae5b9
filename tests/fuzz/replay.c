// SPDX-License-Identifier: GPL-2.0-only
/*
 * replay.c - the main() a fuzz target gets outside libFuzzer: each
 * argument is a file, or a directory whose regular files are read in name
 * order, and each file is handed to LLVMFuzzerTestOneInput() once, as
 * libFuzzer does with a corpus.  A target that crashes aborts the replay
 * under the sanitizers; otherwise it prints how many inputs it ran.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *p;

			cap = cap ? cap * 2 : 4096;
			p = realloc(buf, cap);
			if (!p) {
				free(buf);
				fclose(f);
				fprintf(stderr, "replay: out of memory\n");
				return -1;
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	/* An exact-size copy, so ASan sees a read past the input's end. */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		memcpy(exact, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	int i, j, n, ran = 0;

	for (i = 1; i < argc; i++) {
		struct dirent **ents;
		struct stat st;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (replay_file(argv[i]))
				return 2;
			ran++;
			continue;
		}
		n = scandir(argv[i], &ents, NULL, by_name);
		if (n < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		for (j = 0; j < n; j++) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", argv[i], ents[j]->d_name);
			if (ents[j]->d_name[0] != '.' && !stat(path, &st) &&
			    S_ISREG(st.st_mode)) {
				if (replay_file(path))
					return 2;
				ran++;
			}
			free(ents[j]);
		}
		free(ents);
	}
	printf("replayed %d inputs\n", ran);
	return 0;
}
