# SPDX-License-Identifier: GPL-2.0-only
#
# idlelab build.  `make` leaves the CLI at build/idlelab.
#   make SAN=1        ASan + UBSan build in build-san/ (what the tests use)
#   make FUZZ=1 fuzz  the libFuzzer targets of tests/fuzz/, built with clang
#                     (ASan + UBSan) in build-fuzz/fuzz/ (tools/fuzz-long.sh)
#   make test         build the tests and run them (tests/run.sh)
#   make install      CLI and man pages under $(PREFIX)
#   make -C kmod      the helper kernel modules (see kmod/Makefile)
#
# Every .c in harness/, bench/ and analysis/ goes into libidlelab.a, so a new
# benchmark is one new file plus one registry line, never a Makefile edit;
# harness/cli/ is the command line, linked into the binary only.

PREFIX ?= /usr/local
SAN ?= 0
FUZZ ?= 0
ifeq ($(FUZZ),1)
# libFuzzer is clang's.  The library gets coverage instrumentation
# (fuzzer-no-link) so the fuzzers see its branches.
BUILD ?= build-fuzz
CC = clang
SANFLAGS := -fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer
OPT := -O1
else ifeq ($(SAN),1)
BUILD ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
OPT := -O1
else
BUILD ?= build
SANFLAGS :=
OPT := -O2
endif

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
GIT_REV := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)

CC ?= cc
CPPFLAGS += -D_GNU_SOURCE -Iharness -Ianalysis -Ikmod/include -I$(BUILD)/gen \
	-DIL_VERSION='"$(VERSION)"' -DIL_GIT_REV='"$(GIT_REV)"'
# Where `make install` puts the data the CLI reads (the reference
# figures, harness/cli/cmd_import.c); see $(PREFIX_STAMP) below.
CPPFLAGS += -DIL_PREFIX='"$(PREFIX)"'
CFLAGS ?= $(OPT) -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -pthread $(SANFLAGS) -MMD -MP
LDFLAGS += $(SANFLAGS) -pthread
# nettle: SHA-256 of campaign files (campaign_stored.c), Debian nettle-dev.
LDLIBS := -lhwloc -lpfm -lnuma -lsqlite3 -ljansson -lyaml -lnettle -lm

# Trace capture for --causes (harness/trace_*.c): Debian's libtracefs and
# libtraceevent, located through pkg-config.
TRACE_PKGS := libtracefs libtraceevent
CPPFLAGS += $(shell pkg-config --cflags $(TRACE_PKGS))
LDLIBS += $(shell pkg-config --libs $(TRACE_PKGS))

# PAPI is an optional counter backend; build it in when its header exists.
# Without it counters_nopapi.c stands in for counters_papi.c, so the
# choice is made here once rather than by #ifdefs in the sources.
ifneq ($(wildcard /usr/include/papi.h),)
CPPFLAGS += -DIL_HAVE_PAPI=1
LDLIBS += -lpapi
NOT_BUILT := harness/counters_nopapi.c
else
NOT_BUILT := harness/counters_papi.c
endif

CLI_SRCS := $(wildcard harness/cli/*.c)
LIB_SRCS := $(filter-out $(CLI_SRCS) $(NOT_BUILT),$(wildcard harness/*.c bench/*.c analysis/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/gen/schemas.o
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
TEST_SRCS := $(wildcard tests/unit/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TEST_HELPERS := $(wildcard tests/helpers/*.c)
TEST_HELPER_BINS := $(TEST_HELPERS:tests/helpers/%.c=$(BUILD)/tests/%)
MIGRATIONS := $(sort $(wildcard schemas/[0-9]*.sql))
MANPAGES := $(wildcard man/*.1)

.PHONY: all tests test install clean vmtest tools fuzz FORCE
all: $(BUILD)/idlelab

# The PREFIX the CLI was compiled with, rewritten only when it changes,
# so that `make install PREFIX=/opt/x` after a plain `make` recompiles
# the CLI rather than installing one that looks under /usr/local.
PREFIX_STAMP := $(BUILD)/gen/prefix
$(PREFIX_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(PREFIX)' | cmp -s - $@ 2>/dev/null || echo '$(PREFIX)' > $@
$(CLI_OBJS): $(PREFIX_STAMP)

$(BUILD)/idlelab: $(CLI_OBJS) $(BUILD)/libidlelab.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libidlelab.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The migrations are compiled in, so a binary always carries its schema.
$(BUILD)/gen/schemas.c: $(MIGRATIONS) tools/embed-schemas.sh
	@mkdir -p $(dir $@)
	sh tools/embed-schemas.sh $(MIGRATIONS) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/schemas.o: $(BUILD)/gen/schemas.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libidlelab.a tests/tap.h $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libidlelab.a $(LDLIBS)

$(BUILD)/tests/%: tests/helpers/%.c $(BUILD)/libidlelab.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libidlelab.a $(LDLIBS)

# Standalone tools linked against the library: ab-sim (issue 12), fleet-gen
# and bench-hl (issue 23).  A tool's own objects besides its main file are
# listed as its prerequisites below.
TOOL_SRCS := tools/ab-sim.c tools/fleet-gen.c tools/bench-hl.c
TOOL_BINS := $(TOOL_SRCS:tools/%.c=$(BUILD)/tools/%)

$(BUILD)/tools/%: tools/%.c $(BUILD)/libidlelab.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(filter %.o,$^) $(BUILD)/libidlelab.a $(LDLIBS)

# The old pooled bootstrap is ab-sim's alone, not the library's.
$(BUILD)/tools/ab-sim: $(BUILD)/tools/ab_bootstrap.o

tools: $(TOOL_BINS)

# Fuzz targets: tests/fuzz/fuzz_NAME.c.  Every build links each with
# replay.c as $(BUILD)/fuzz/replay/fuzz_NAME, which the tests run over the
# committed corpus (test_fuzz_corpus.sh); `make FUZZ=1 fuzz` links them
# with libFuzzer as $(BUILD)/fuzz/fuzz_NAME.  They link the CLI's objects
# (fuzz_argv parses the option table) with cli.c's main() renamed.
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
REPLAY_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/replay/%)
FUZZ_CLI_OBJS := $(filter-out $(BUILD)/harness/cli/cli.o,$(CLI_OBJS)) $(BUILD)/fuzz/cli_nomain.o

$(BUILD)/fuzz/cli_nomain.o: harness/cli/cli.c $(PREFIX_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Dmain=il_cli_main -c -o $@ $<

$(BUILD)/fuzz/replay/%: tests/fuzz/%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(FUZZ_CLI_OBJS) $(BUILD)/libidlelab.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iharness/cli -Itests/fuzz $(CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/replay.c $(FUZZ_CLI_OBJS) $(BUILD)/libidlelab.a $(LDLIBS)

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(FUZZ_CLI_OBJS) $(BUILD)/libidlelab.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iharness/cli -Itests/fuzz $(CFLAGS) $(LDFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_CLI_OBJS) $(BUILD)/libidlelab.a $(LDLIBS)

fuzz: $(FUZZ_BINS)

tests: $(BUILD)/idlelab $(TEST_BINS) $(TEST_HELPER_BINS) $(TOOL_BINS) $(REPLAY_BINS)

test: tests
	BUILD=$(BUILD) sh tests/run.sh

install: $(BUILD)/idlelab
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BUILD)/idlelab $(DESTDIR)$(PREFIX)/bin/idlelab
	install -m 0644 $(MANPAGES) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(PREFIX)/share/idlelab/reference
	install -m 0644 data/reference/seeds.json $(DESTDIR)$(PREFIX)/share/idlelab/reference/

vmtest:
	sh tests/vm/run-qemu.sh

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
