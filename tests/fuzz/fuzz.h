/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz.h - what every fuzz target in tests/fuzz/ shares.  A target is one
 * file defining LLVMFuzzerTestOneInput() (libFuzzer's entry point): built
 * with clang's -fsanitize=fuzzer by `make FUZZ=1 fuzz` it is a fuzzer, and
 * linked with replay.c by the ordinary build it replays the committed
 * corpus (tests/fuzz/corpus/NAME/) and the crashes found so far under the
 * tests' ASan+UBSan, so a crash once fixed stays fixed
 * (tests/integration/test_fuzz_corpus.sh).  A target's own checks fail
 * with fuzz_fail(), which aborts as a sanitizer report would.
 */
#ifndef IDLELAB_FUZZ_H
#define IDLELAB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define fuzz_fail(...) do {						\
		fprintf(stderr, "fuzz: %s:%d: ", __FILE__, __LINE__);	\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		abort();						\
	} while (0)

#endif
