# Argus: `make`, `make check`, `make check-loaded`, `make install PREFIX=...`,
# `make bench`, `make fuzz [FUZZ_SECONDS=600]`.
#
# `make SANITIZE=1` builds everything with AddressSanitizer and
# UndefinedBehaviorSanitizer under build/san/, beside the normal build,
# and `make SANITIZE=1 check` runs the whole suite with those programs.
# `make FUZZ=1` is the instrumented build (clang) of the fuzz targets
# under build/fuzz/; `make fuzz` makes and runs them (test/fuzz/run).

PREFIX	?= /usr/local
CC	?= cc
CFLAGS	?= -O2 -g
CFLAGS	+= -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -Ilib
LDLIBS	 = -lcsv -lz -lm -lpthread
LDLIBS	+= -ldeflate	# lib/writer.c: gzip members, faster than zlib
SAN	 = -fsanitize=address,undefined -fno-sanitize-recover=all \
	   -fno-omit-frame-pointer
FUZZ_CC	?= clang

# Where objects and programs go: P prefixes every one of them.
ifeq ($(SANITIZE),1)
P	:= build/san/
CFLAGS	+= $(SAN)
LDFLAGS	+= $(SAN)
else ifeq ($(FUZZ),1)
P	:= build/fuzz/
CC	:= $(FUZZ_CC)
# clang warns of what gcc does not: the gcc build holds -Werror.  The
# reader's buffers start tiny, so that small inputs grow them.
CFLAGS	+= $(SAN) -fsanitize=fuzzer-no-link -Wno-error -DREAD_CHUNK=64
LDFLAGS	+= $(SAN)
else
P	:=
# The graph stages call the reader, the writer and the event helpers a
# field at a time, from file to file: link-time optimisation inlines them
# into the stages (bench/graph: 7 % fewer instructions in argus-segment
# and argus-link, 4 % in argus-slice).  The objects it reads carry both
# machine code and the compiler's intermediate form: every other program
# links as before, from the machine code.
LTO	:= -flto=auto
LTO_OBJS = $(LIB_OBJS) $(P)bin/argus-segment.o $(SEGMENT_OBJS) \
	   $(P)bin/argus-link.o $(LINK_OBJS) $(P)bin/argus-slice.o $(SLICE_OBJS)
endif

# The tracing back end and its libraries link into argus-capture alone
# nothing downstream of the stream may depend on where a trace came from.
CAPTURE_LIBS = -ltraceevent -ldw -lelf -lpthread

LIB_SRCS	:= $(wildcard lib/*.c)
LIB_OBJS	:= $(LIB_SRCS:%.c=$(P)%.o)
CAPTURE_SRCS	:= $(wildcard capture/*.c)
CAPTURE_OBJS	:= $(CAPTURE_SRCS:%.c=$(P)%.o)
PROG_SRCS	:= $(wildcard bin/*.c)
PROGS		:= $(PROG_SRCS:%.c=$(P)%)
UNIT_SRCS	:= $(wildcard test/unit/*.c)
TEST_PROG_SRCS	:= $(wildcard test/progs/*.c) $(wildcard test/scenarios/*.c)
TEST_PROGS	:= $(TEST_PROG_SRCS:%.c=$(P)%)
SCENARIOS	:= $(patsubst %.c,$(P)%,$(wildcard test/scenarios/*.c))
SCENARIO_LIBS	 =
MAN1		:= $(wildcard share/man/*.1)
MAN5		:= $(wildcard share/man/*.5)
PROBE_SETS	:= $(wildcard patchers/*.probes)
EXAMPLES	:= $(wildcard share/examples/*.txt) share/examples/argus.cron
EXAMPLES	+= share/examples/argus-hosts.sh share/examples/watch.conf
FUZZ_TARGETS	:= $(patsubst test/fuzz/%.c,build/fuzz/test/fuzz/%,$(wildcard test/fuzz/*.c))

all: $(PROGS) $(TEST_PROGS)

# The jvm provider's attach client (capture/providers/jvm): beside it, in a
# directory of its own, where no provider is looked for.
PROVIDERS	:= capture/providers/jvm capture/providers/innodb capture/providers/postgresql
PROVIDER_HELPERS := capture/providers/libexec/jvm-attach
all: $(PROVIDER_HELPERS)
capture/providers/libexec/%: capture/providers/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

# A user's heuristic as a C filter on the stage driver (lib/stage.h):
# built to show and test it, not installed.
EXAMPLE_PROGS	:= $(P)share/examples/drop-links
all: $(EXAMPLE_PROGS)
$(P)share/examples/%: $(P)share/examples/%.o $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(P)lib/libargus.a: $(LIB_OBJS)
	rm -f $@; $(AR) rcs $@ $^

$(P)capture/libcapture.a: $(CAPTURE_OBJS)
	rm -f $@; $(AR) rcs $@ $^

$(P)bin/argus-capture: $(P)bin/argus-capture.o $(P)capture/libcapture.a $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CAPTURE_LIBS) $(LDLIBS)

# The wait-for snapshot alone: the capture's /proc and sock_diag reader.
$(P)bin/argus-waitfor: $(P)bin/argus-waitfor.o $(P)capture/libcapture.a $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CAPTURE_LIBS) $(LDLIBS)

# A stage with heuristics keeps them one per file in bin/STAGE/.
SEGMENT_OBJS	:= $(patsubst %.c,$(P)%.o,$(wildcard bin/segment/*.c))
LINK_OBJS	:= $(patsubst %.c,$(P)%.o,$(wildcard bin/link/*.c))
SPIN_OBJS	:= $(patsubst %.c,$(P)%.o,$(wildcard bin/spin/*.c))
SIMILAR_OBJS	:= $(patsubst %.c,$(P)%.o,$(wildcard bin/similar/*.c))
SLICE_OBJS	:= $(patsubst %.c,$(P)%.o,$(wildcard bin/slice/*.c))
WATCH_OBJS	:= $(patsubst %.c,$(P)%.o,$(wildcard bin/watch/*.c))
PORCELAIN_OBJS	:= $(patsubst %.c,$(P)%.o,$(wildcard bin/porcelain/*.c))
IMPORT_OBJS	:= $(patsubst %.c,$(P)%.o,$(wildcard bin/import/*.c))
EXPORT_OBJS	:= $(patsubst %.c,$(P)%.o,$(wildcard bin/export/*.c))

ifneq ($(LTO),)
$(LTO_OBJS): CFLAGS += $(LTO) -ffat-lto-objects
$(P)bin/argus-segment $(P)bin/argus-link $(P)bin/argus-slice: \
    LDFLAGS += $(CFLAGS) $(LTO)
endif

$(P)bin/argus-segment: $(P)bin/argus-segment.o $(SEGMENT_OBJS) $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(P)bin/argus-link: $(P)bin/argus-link.o $(LINK_OBJS) $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(P)bin/argus-spin: $(P)bin/argus-spin.o $(SPIN_OBJS) $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(P)bin/argus-similar: $(P)bin/argus-similar.o $(SIMILAR_OBJS) $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(P)bin/argus-slice: $(P)bin/argus-slice.o $(SLICE_OBJS) $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(P)bin/argus-watch: $(P)bin/argus-watch.o $(WATCH_OBJS) $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# perf.data's event formats are read by bin/import/perf.c: libtraceevent
# crashes on crafted ones, and a foreign file must not crash the importer.
$(P)bin/argus-import: $(P)bin/argus-import.o $(IMPORT_OBJS) $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(P)bin/argus-export: $(P)bin/argus-export.o $(EXPORT_OBJS) $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# A program with more than main and options keeps the rest in bin/PROG/.
WAITS_OBJS	:= $(patsubst %.c,$(P)%.o,$(wildcard bin/waits/*.c))

$(P)bin/argus-waits: $(P)bin/argus-waits.o $(WAITS_OBJS) $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

SUMMARY_OBJS	:= $(patsubst %.c,$(P)%.o,$(wildcard bin/summary/*.c))

$(P)bin/argus-summary: $(P)bin/argus-summary.o $(SUMMARY_OBJS) $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

CAT_OBJS	:= $(patsubst %.c,$(P)%.o,$(wildcard bin/cat/*.c))

$(P)bin/argus-cat: $(P)bin/argus-cat.o $(CAT_OBJS) $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(P)bin/argus: $(P)bin/argus.o $(PORCELAIN_OBJS) $(P)capture/libcapture.a $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CAPTURE_LIBS) $(LDLIBS)

$(P)bin/%: $(P)bin/%.o $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(P)test/unit/run: $(UNIT_SRCS:%.c=$(P)%.o) $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Writes the kdebug files of the import tests; reads Argus streams.
$(P)test/progs/kdebug-write: $(P)test/progs/kdebug-write.o $(P)lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(P)test/progs/%: test/progs/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< -lpthread

# Writes rings as the patcher lays them out.
$(P)test/progs/hostile-ring: patchers/ubuf.h
# Serve a FUSE file system by hand.
$(P)test/progs/waitfor-cases $(P)test/progs/fusestall: test/progs/fusefile.h

# Built as Debian builds: the stacks it shows need no frame pointers.
$(P)test/progs/nofp: test/progs/nofp.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -O2 -fomit-frame-pointer $(LDFLAGS) -o $@ $<

# A GLib main loop, for the user-space probe tests.
$(P)test/progs/gloop: test/progs/gloop.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(shell pkg-config --cflags glib-2.0) $(LDFLAGS) -o $@ $< \
	    $(shell pkg-config --libs glib-2.0)

# Hang scenarios: the programs Argus is tested and demonstrated on.
# Frame pointers: the functions their ground truth names must show in stacks.
$(P)test/scenarios/%: test/scenarios/%.c test/scenarios/scenario.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fno-omit-frame-pointer $(LDFLAGS) -o $@ $< -lpthread \
	    $(SCENARIO_LIBS)

# The patcher (patchers/README): preloaded into traced programs, so built
# on its own, position-independent, exporting nothing, and with no
# floating point in the code a probe hit runs (it must leave the vector
# registers of the program as they were).  Not in the sanitizer builds.
ifeq ($(P)$(wildcard /usr/include/Zydis/Zydis.h),/usr/include/Zydis/Zydis.h)
all: patchers/libargus-patch.so
endif
PATCH_CFLAGS = $(filter-out -fsanitize%,$(CFLAGS)) -fPIC -fvisibility=hidden \
	   -Ipatchers
patchers/patch.pic.o: patchers/patch.c patchers/ubuf.h lib/elfsym.h \
	    lib/probeset.h
	$(CC) $(PATCH_CFLAGS) -mgeneral-regs-only -c -o $@ $<
patchers/probeset.pic.o: lib/probeset.c lib/probeset.h
	$(CC) $(PATCH_CFLAGS) -mgeneral-regs-only -c -o $@ $<
patchers/elfsym.pic.o: lib/elfsym.c lib/elfsym.h lib/procopen.h
	$(CC) $(PATCH_CFLAGS) -c -o $@ $<
patchers/procopen.pic.o: lib/procopen.c lib/procopen.h
	$(CC) $(PATCH_CFLAGS) -c -o $@ $<
patchers/libargus-patch.so: patchers/patch.pic.o patchers/elfsym.pic.o \
	    patchers/procopen.pic.o patchers/probeset.pic.o
	$(CC) -shared -Wl,-z,defs -Wl,-z,now -o $@ $^ -lZydis -ldl -lpthread

# The loader's auditor (LD_AUDIT) that has the patcher patch the libraries
# dlopen()ed after start-up, and a library for its test.
ifeq ($(P)$(wildcard /usr/include/Zydis/Zydis.h),/usr/include/Zydis/Zydis.h)
all: patchers/libargus-audit.so
endif
patchers/libargus-audit.so: patchers/audit.c patchers/elfsym.pic.o \
	    patchers/procopen.pic.o lib/elfsym.h
	$(CC) $(PATCH_CFLAGS) -Ilib -shared -Wl,-z,defs -o $@ $< \
	    patchers/elfsym.pic.o patchers/procopen.pic.o
all: $(P)test/progs/libdlhit.so
$(P)test/progs/libdlhit.so: test/progs/libdlhit.S
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $<

bench/gen-events: bench/gen-events.o lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bench/shift: bench/shift.o lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(P)%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# The fuzz targets (test/fuzz/*.c), with FUZZ=1: each links what it parses.
build/fuzz/test/fuzz/%: test/fuzz/%.c test/fuzz/fuzz.h build/fuzz/lib/libargus.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ $< \
	    build/fuzz/lib/libargus.a $(LDLIBS)

build/fuzz/test/fuzz/answers: test/fuzz/answers.c test/fuzz/fuzz.h \
    $(filter-out %/ask.o,$(SLICE_OBJS)) build/fuzz/lib/libargus.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ibin/slice -fsanitize=fuzzer $(LDFLAGS) -o $@ \
	    $(filter-out %.h,$^) $(LDLIBS)

build/fuzz/test/fuzz/probes: test/fuzz/probes.c test/fuzz/fuzz.h \
    build/fuzz/capture/libcapture.a build/fuzz/lib/libargus.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Icapture -fsanitize=fuzzer $(LDFLAGS) -o $@ \
	    $(filter-out %.h,$^) $(CAPTURE_LIBS) $(LDLIBS)

# The capture's readers of what others wrote: the spill's blocks, the
# patched processes' rings.
build/fuzz/test/fuzz/spill build/fuzz/test/fuzz/ring: build/fuzz/test/fuzz/%: \
    test/fuzz/%.c test/fuzz/fuzz.h build/fuzz/capture/libcapture.a \
    build/fuzz/lib/libargus.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Icapture -fsanitize=fuzzer $(LDFLAGS) -o $@ \
	    $(filter-out %.h,$^) $(CAPTURE_LIBS) $(LDLIBS)

# argus-import's importers, each a target: the objects, less the program.
build/fuzz/test/fuzz/import_%: test/fuzz/import_%.c test/fuzz/import.h test/fuzz/fuzz.h \
    $(IMPORT_OBJS) build/fuzz/lib/libargus.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ \
	    $(filter-out %.h,$^) $(LDLIBS)

fuzz-targets: $(FUZZ_TARGETS)

# Each header compiles alone, with the build's flags: it includes what it
# uses (test/bats/headers.bats runs this).
HEADER_FILES	:= $(wildcard lib/*.h capture/*.h bin/*/*.h)
check-headers:
	@for h in $(HEADER_FILES); do \
		$(CC) $(CFLAGS) -fsyntax-only -include $$h -x c /dev/null || \
		    { echo "$$h: does not compile alone" >&2; exit 1; }; \
	done
.PHONY: check-headers

# The suite; `make check` also runs the unit and stream tests with the
# sanitizer build, and each fuzz target a few seconds where clang has
# libFuzzer (test/run says so where it has not).
# Their builds on every CPU (JOBS), whatever make's own -j: one after
# another, the two builds took minutes of a CI run.
JOBS	?= $(shell nproc 2>/dev/null || echo 1)
SUBMAKE	 = $(MAKE) --no-print-directory -j$(JOBS)
ifeq ($(SANITIZE),1)
# The scenarios too: argus demo runs them from beside its bin/; and the
# providers, where argus-waitfor looks for them from there.
check: $(P)capture/providers
	$(SUBMAKE) $(PROGS) $(SCENARIOS) $(P)test/unit/run
	$(SUBMAKE) SANITIZE= all test/unit/run
	ARGUS_BIN=$(P)bin ARGUS_UNIT=$(P)test/unit/run test/run
$(P)capture/providers:
	@mkdir -p $(@D)
	ln -sfn ../../../capture/providers $@
else
check:
	$(SUBMAKE) all test/unit/run $(TEST_PROGS)
	$(SUBMAKE) SANITIZE=1 build/san/test/unit/run \
	    $(addprefix build/san/,$(PROG_SRCS:.c=))
	ARGUS_SAN=build/san/bin ARGUS_SAN_UNIT=build/san/test/unit/run \
	    ARGUS_FUZZ_SECONDS=3 test/run
endif

# The suite on a machine kept busy, as shared CI machines are: a thread
# spinning on every CPU while it runs (test/progs/burn).
check-loaded:
	$(SUBMAKE) all test/unit/run $(TEST_PROGS)
	test/progs/burn test/run

FUZZ_SECONDS	?= 600
fuzz:
	test/fuzz/run $(FUZZ_SECONDS)

bench: all bench/gen-events
	bench/cat

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(PROGS) $(DESTDIR)$(PREFIX)/bin
	install -d $(DESTDIR)$(PREFIX)/libexec/argus
	install -m 755 $(SCENARIOS) $(DESTDIR)$(PREFIX)/libexec/argus
	$(if $(MAN1),install -m 644 $(MAN1) $(DESTDIR)$(PREFIX)/share/man/man1)
	$(if $(MAN5),install -m 644 $(MAN5) $(DESTDIR)$(PREFIX)/share/man/man5)
	install -d $(DESTDIR)$(PREFIX)/share/argus/probes \
	    $(DESTDIR)$(PREFIX)/share/doc/argus/examples \
	    $(DESTDIR)$(PREFIX)/lib/systemd/system
	install -m 644 $(PROBE_SETS) $(DESTDIR)$(PREFIX)/share/argus/probes
	install -m 644 $(EXAMPLES) $(DESTDIR)$(PREFIX)/share/doc/argus/examples
	install -d $(DESTDIR)$(PREFIX)/lib/argus/providers/libexec
	install -m 755 $(PROVIDERS) $(DESTDIR)$(PREFIX)/lib/argus/providers
	install -m 755 $(PROVIDER_HELPERS) \
	    $(DESTDIR)$(PREFIX)/lib/argus/providers/libexec
	sed 's|@BINDIR@|$(PREFIX)/bin|g' share/examples/argus.cron \
	    >$(DESTDIR)$(PREFIX)/share/doc/argus/examples/argus.cron
	sed 's|@BINDIR@|$(PREFIX)/bin|g' share/systemd/argus.service \
	    >$(DESTDIR)$(PREFIX)/lib/systemd/system/argus.service
	sed 's|@BINDIR@|$(PREFIX)/bin|g' share/systemd/argus-watch.service \
	    >$(DESTDIR)$(PREFIX)/lib/systemd/system/argus-watch.service
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 share/bash-completion/argus \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions/argus
	for p in $(filter-out argus,$(notdir $(PROGS))); do \
		ln -sf argus $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$p; \
	done

# What install put there, and nothing else.
uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(PROGS))) \
	    $(addprefix $(DESTDIR)$(PREFIX)/libexec/argus/,$(notdir $(SCENARIOS))) \
	    $(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(notdir $(MAN1))) \
	    $(addprefix $(DESTDIR)$(PREFIX)/share/man/man5/,$(notdir $(MAN5))) \
	    $(addprefix $(DESTDIR)$(PREFIX)/share/argus/probes/,$(notdir $(PROBE_SETS))) \
	    $(addprefix $(DESTDIR)$(PREFIX)/share/doc/argus/examples/,$(notdir $(EXAMPLES))) \
	    $(DESTDIR)$(PREFIX)/lib/systemd/system/argus.service \
	    $(DESTDIR)$(PREFIX)/lib/systemd/system/argus-watch.service \
	    $(addprefix $(DESTDIR)$(PREFIX)/share/bash-completion/completions/,$(notdir $(PROGS))) \
	    $(addprefix $(DESTDIR)$(PREFIX)/lib/argus/providers/,$(notdir $(PROVIDERS))) \
	    $(addprefix $(DESTDIR)$(PREFIX)/lib/argus/providers/libexec/,$(notdir $(PROVIDER_HELPERS)))
	-rmdir $(DESTDIR)$(PREFIX)/lib/argus/providers/libexec \
	    $(DESTDIR)$(PREFIX)/lib/argus/providers \
	    $(DESTDIR)$(PREFIX)/lib/argus 2>/dev/null
	-rmdir $(DESTDIR)$(PREFIX)/libexec/argus $(DESTDIR)$(PREFIX)/share/argus/probes \
	    $(DESTDIR)$(PREFIX)/share/argus $(DESTDIR)$(PREFIX)/share/doc/argus/examples \
	    $(DESTDIR)$(PREFIX)/share/doc/argus 2>/dev/null

# The patcher and its page: PREFIX/lib/argus, where argus-capture looks
# (../lib/argus from its bin/), and man7.
MAN7		:= $(wildcard share/man/*.7)
install: install-patcher
install-patcher: all
	install -d $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 644 $(MAN7) $(DESTDIR)$(PREFIX)/share/man/man7
	if [ -f patchers/libargus-patch.so ]; then \
	    install -d $(DESTDIR)$(PREFIX)/lib/argus && \
	    install -m 755 patchers/libargus-patch.so $(DESTDIR)$(PREFIX)/lib/argus; fi
	if [ -f patchers/libargus-audit.so ]; then \
	    install -m 755 patchers/libargus-audit.so $(DESTDIR)$(PREFIX)/lib/argus; fi
uninstall: uninstall-patcher
uninstall-patcher:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/man/man7/,$(notdir $(MAN7))) \
	    $(DESTDIR)$(PREFIX)/lib/argus/libargus-patch.so \
	    $(DESTDIR)$(PREFIX)/lib/argus/libargus-audit.so
	-rmdir $(DESTDIR)$(PREFIX)/lib/argus 2>/dev/null

# Debian packages the build, the tests and the capture need.
deps:
	share/scripts/install-deps

demo: all
	bin/argus demo

clean:
	rm -f $(PROGS) bin/*.o bin/*.d bin/*/*.o bin/*/*.d lib/*.o lib/*.d lib/*.a capture/*.o \
	    capture/*.d capture/*.a test/unit/*.o test/unit/*.d test/unit/run \
	    test/progs/*.o test/progs/*.d \
	    $(TEST_PROGS) bench/gen-events bench/shift bench/*.o bench/*.d
	rm -f patchers/*.pic.o patchers/libargus-patch.so patchers/libargus-audit.so \
	    test/progs/libdlhit.so
	rm -rf build
	rm -f $(EXAMPLE_PROGS) share/examples/*.o share/examples/*.d
	rm -rf capture/providers/libexec

.PHONY: all check check-loaded bench install uninstall deps demo clean fuzz fuzz-targets
.PHONY: install-patcher uninstall-patcher
.SECONDARY:

-include $(wildcard $(P)*/*.d $(P)*/*/*.d $(P)*/*/*/*.d)
