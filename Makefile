# Argus: `make`, `make check`, `make check-loaded`, `make install PREFIX=...`, `make bench`.

PREFIX	?= /usr/local
CC	?= cc
CFLAGS	?= -O2 -g
CFLAGS	+= -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -Ilib
LDLIBS	 = -lcsv -lz -lm

# The tracing back end and its libraries link into argus-capture alone
# (and libtraceevent into argus-import, for perf.data's event formats):
# nothing downstream of the stream may depend on where a trace came from.
CAPTURE_LIBS = -ltraceevent -ldw -lelf -lpthread

LIB_SRCS	:= $(wildcard lib/*.c)
LIB_OBJS	:= $(LIB_SRCS:.c=.o)
CAPTURE_SRCS	:= $(wildcard capture/*.c)
CAPTURE_OBJS	:= $(CAPTURE_SRCS:.c=.o)
PROG_SRCS	:= $(wildcard bin/*.c)
PROGS		:= $(PROG_SRCS:.c=)
UNIT_SRCS	:= $(wildcard test/unit/*.c)
TEST_PROG_SRCS	:= $(wildcard test/progs/*.c) $(wildcard test/scenarios/*.c)
TEST_PROGS	:= $(TEST_PROG_SRCS:.c=)
SCENARIOS	:= $(patsubst %.c,%,$(wildcard test/scenarios/*.c))
SCENARIO_LIBS	 =
MAN1		:= $(wildcard share/man/*.1)
MAN5		:= $(wildcard share/man/*.5)

all: $(PROGS) $(TEST_PROGS)

lib/libargus.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

capture/libcapture.a: $(CAPTURE_OBJS)
	$(AR) rcs $@ $^

bin/argus-capture: bin/argus-capture.o capture/libcapture.a lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CAPTURE_LIBS) $(LDLIBS)

# The wait-for snapshot alone: the capture's /proc and sock_diag reader.
bin/argus-waitfor: bin/argus-waitfor.o capture/libcapture.a lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CAPTURE_LIBS) $(LDLIBS)

# A stage with heuristics keeps them one per file in bin/STAGE/.
SEGMENT_OBJS	:= $(patsubst %.c,%.o,$(wildcard bin/segment/*.c))
LINK_OBJS	:= $(patsubst %.c,%.o,$(wildcard bin/link/*.c))
SPIN_OBJS	:= $(patsubst %.c,%.o,$(wildcard bin/spin/*.c))
SIMILAR_OBJS	:= $(patsubst %.c,%.o,$(wildcard bin/similar/*.c))
SLICE_OBJS	:= $(patsubst %.c,%.o,$(wildcard bin/slice/*.c))
WATCH_OBJS	:= $(patsubst %.c,%.o,$(wildcard bin/watch/*.c))
PORCELAIN_OBJS	:= $(patsubst %.c,%.o,$(wildcard bin/porcelain/*.c))
IMPORT_OBJS	:= $(patsubst %.c,%.o,$(wildcard bin/import/*.c))
EXPORT_OBJS	:= $(patsubst %.c,%.o,$(wildcard bin/export/*.c))

bin/argus-segment: bin/argus-segment.o $(SEGMENT_OBJS) lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/argus-link: bin/argus-link.o $(LINK_OBJS) lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/argus-spin: bin/argus-spin.o $(SPIN_OBJS) lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/argus-similar: bin/argus-similar.o $(SIMILAR_OBJS) lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/argus-slice: bin/argus-slice.o $(SLICE_OBJS) lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/argus-watch: bin/argus-watch.o $(WATCH_OBJS) lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# perf.data's event formats are parsed by libtraceevent, as the capture's are.
bin/argus-import: bin/argus-import.o $(IMPORT_OBJS) lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ -ltraceevent $(LDLIBS)

bin/argus-export: bin/argus-export.o $(EXPORT_OBJS) lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/argus: bin/argus.o $(PORCELAIN_OBJS) lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/%: bin/%.o lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

test/unit/run: $(UNIT_SRCS:.c=.o) lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Writes the kdebug files of the import tests; reads Argus streams.
test/progs/kdebug-write: test/progs/kdebug-write.o lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

test/progs/%: test/progs/%.c
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< -lpthread

# Built as Debian builds: the stacks it shows need no frame pointers.
test/progs/nofp: test/progs/nofp.c
	$(CC) $(CFLAGS) -O2 -fomit-frame-pointer $(LDFLAGS) -o $@ $<

# A GLib main loop, for the user-space probe tests.
test/progs/gloop: test/progs/gloop.c
	$(CC) $(CFLAGS) $(shell pkg-config --cflags glib-2.0) $(LDFLAGS) -o $@ $< \
	    $(shell pkg-config --libs glib-2.0)

# Hang scenarios: the programs Argus is tested and demonstrated on.
# Frame pointers: the functions their ground truth names must show in stacks.
test/scenarios/%: test/scenarios/%.c test/scenarios/scenario.h
	$(CC) $(CFLAGS) -fno-omit-frame-pointer $(LDFLAGS) -o $@ $< -lpthread \
	    $(SCENARIO_LIBS)

bench/gen-events: bench/gen-events.o lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bench/shift: bench/shift.o lib/libargus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

%.o: %.c
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

check: all test/unit/run $(TEST_PROGS)
	test/run

# The suite on a machine kept busy, as shared CI machines are: a thread
# spinning on every CPU while it runs (test/progs/burn).
check-loaded: all test/unit/run $(TEST_PROGS)
	test/progs/burn test/run

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

.PHONY: all check check-loaded bench install deps demo clean
.SECONDARY:

-include $(wildcard */*.d */*/*.d)
