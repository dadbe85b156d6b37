#!/usr/bin/env bats
# argus-import on files made to hurt it (issue 29): a count, size or
# index that a foreign file gives never sizes an allocation past what the
# file could hold, never indexes outside what was allocated; a bad file
# is a message naming it and where, exit 65.  Each reproducer here once
# crashed the importer (exit 139) or made it grow to gigabytes; the
# fuzz targets' findings (test/fuzz/import_*) are kept as their seeds.

load helpers

FUZZ="$ROOT/test/fuzz/corpus"

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# Runs argus-import in bounded memory (LIMIT KB of address space, 256 MB
# unless said, and unbounded when sanitized: ASan reserves terabytes) and
# time; the output in out, the messages in err, the exit in rc.
import_bounded() {
	rc=0
	if ldd "$(command -v argus-import)" 2>/dev/null | grep -q libasan; then
		timeout 20 argus-import -Z "$@" >out 2>err || rc=$?
	else
		(ulimit -v "${LIMIT:-262144}"; exec timeout 20 argus-import -Z "$@") \
		    >out 2>err || rc=$?
	fi
}

# A RAW 1 kdebug file: header, no threads, the padding to 4 KB, then one
# event (a MACH_SCHED switch) on CPU $1.
kdebug_cpu() {
	python3 -c '
import struct, sys
cpu = int(sys.argv[1], 0)
h = struct.pack("<II", 0x55aa0101, 0) + bytes(16)
h += bytes(4096 - len(h))
h += struct.pack("<Q", 1000) + bytes(32) + struct.pack("<QII", 1, 0x01400000, cpu) + bytes(8)
sys.stdout.buffer.write(h)' "$1"
}

@test "hostile kdebug: CPU 0xffffffff or 0x10000000 is refused, exit 65 naming the offset: no stream the readers refuse" {
	# Imported once (the CPU table no longer wraps: a heap overflow
	# before), the stream was then refused by every reader.
	for cpu in 0xffffffff 0x10000000; do
		kdebug_cpu "$cpu" >cpu.kd
		[ "$(stat -c %s cpu.kd)" = 4160 ]
		import_bounded cpu.kd
		cat err
		[ "$rc" = 65 ]
		grep -q "cpu.kd: offset 4096: CPU out of range: $((cpu)), no kernel has more than 65536" err
	done
	# The last CPU a reader takes is imported, and read.
	kdebug_cpu 65535 >last.kd
	import_bounded last.kd
	[ "$rc" = 0 ]
	grep -q '^event,1000,,1,,65535,switch,' out
	argus-summary out >/dev/null
}

@test "hostile perf.data and ftrace text: a CPU past the readers' bound is refused, exit 65 naming where" {
	# The first sample's CPU (after its id, pid, tid and time).
	perf_patch '
off = struct.unpack_from("<Q", d, 40)[0]
while struct.unpack_from("<I", d, off)[0] != 9:
	off += struct.unpack_from("<H", d, off + 6)[0]
struct.pack_into("<I", d, off + 32, 0xffffffff)' >cpu.data
	import_bounded cpu.data
	cat err
	[ "$rc" = 65 ]
	grep -q 'cpu.data: offset [0-9]*: CPU out of range: 4294967295, no kernel has more than 65536' err
	printf '%s\n' '          bash-900   [99999] .....   1.000001: sched_waking: comm=a pid=901 prio=120 target_cpu=000' >cpu.trace
	import_bounded cpu.trace
	cat err
	[ "$rc" = 65 ]
	grep -q 'cpu.trace:1: CPU out of range: no kernel has more than 65536' err
	{ sed 's/99999/001/' cpu.trace; printf 'CPU:4294967296 [LOST 3 EVENTS]\n'; } >lost.trace
	import_bounded lost.trace
	[ "$rc" = 65 ]
	grep -q 'lost.trace:2: CPU out of range' err
}

@test "hostile kdebug: a chunk that claims 64 MB of a 60-byte file: exit 65, naming the offset" {
	# A version 3 header (64-bit, timebase 1/1), then a chunk of tag
	# 0x7777 whose length says 64 MB.
	python3 -c '
import struct, sys
h = struct.pack("<IIQ", 0x55aa0300, 0, 40) + struct.pack("<II", 1, 1) + bytes(28) + struct.pack("<I", 1)
h += struct.pack("<IIQ", 0x7777, 0, 64 << 20) + struct.pack("<Q", 0x53544b43)
sys.stdout.buffer.write(h)' >claim.kd
	LIMIT=40960 import_bounded claim.kd
	cat err
	[ "$rc" = 65 ]
	grep -q 'claim.kd: offset 72: file ends inside a chunk' err
}

# perf.data: the fuzz target's seed (test/fuzz/mkperf), patched by python.
perf_patch() {
	python3 -c "
import struct, sys
d = bytearray(open('$FUZZ/import_perf/file', 'rb').read())
$1
sys.stdout.buffer.write(d)"
}

@test "hostile perf.data: an ids section of 0x8000000000000008 bytes: exit 65 (was a heap overflow)" {
	# The first attribute's ids section size, at attrs.offset +
	# attr_size - 8, made to overflow (nids + n) * 16; 1 MB more file for
	# the old loop to write past its 16 bytes.
	perf_patch '
asz = struct.unpack_from("<Q", d, 16)[0]
attrs = struct.unpack_from("<Q", d, 24)[0]
struct.pack_into("<Q", d, attrs + asz - 8, 0x8000000000000008)
d += bytes(1 << 20)' >ids.data
	import_bounded ids.data
	cat err
	[ "$rc" = 65 ]
	grep -q 'ids.data: offset [0-9]*: 1152921504606846977 event ids: more than the file holds' err
}

@test "hostile perf.data: a format whose print format names a field it lacks is read, not crashed on" {
	# libtraceevent 1.7 dereferenced NULL on this (the import_perf fuzz
	# target's first finding): the importer reads formats itself now.
	perf_patch 'd = d.replace(b"field:long prev_state;", b"field:long pr0v_state;")' >renamed.data
	grep -q pr0v_state renamed.data
	import_bounded renamed.data
	cat err
	[ "$rc" = 0 ]
	# The switch is there, its state column empty: the field is not.
	grep -q '^event,5000000010,4242,4242,,0,switch,-,,0,0,swapper/0$' out
}

@test "hostile perf.data: sizes and counts past the file are exit 65, naming the offset" {
	# A tracing data section longer than the file; a COMM record too
	# short for its name.
	perf_patch '
feat = struct.unpack_from("<Q", d, 40)[0] + struct.unpack_from("<Q", d, 48)[0]
struct.pack_into("<Q", d, feat + 8, 1 << 40)' >feat.data
	import_bounded feat.data
	[ "$rc" = 65 ]
	grep -q 'feat.data: offset [0-9]*: feature section: [0-9]* bytes past the end of the file' err
	perf_patch '
data = struct.unpack_from("<Q", d, 40)[0]
struct.pack_into("<H", d, data + 6, 12)' >comm.data
	import_bounded comm.data
	[ "$rc" = 65 ]
	grep -q 'comm.data: offset [0-9]*: a record .*short' err
}

@test "hostile ftrace text: a line cut anywhere, numbers at the very end, exit 65 or records, never a crash" {
	# The last line ends the file inside its numbers: the importer reads
	# no byte past the file.  A file that fills its last page had no byte
	# after it mapped: strtoul() ran off the end.  (A guard: where the
	# next page happened to be mapped, the old importer passed too.)
	line='          bash-900   (  900) [000] .....   1.000001: sched_waking: comm=a pid=901 prio=120 target_cpu=000'
	for n in 40 60 70 90 ${#line}; do
		printf '%s' "${line:0:$n}" >cut
		import_bounded cut
		[ "$rc" = 0 ] || [ "$rc" = 65 ]
	done
	# A file of exactly 4096 bytes, ending in a digit.
	{ printf '%s\n' "$line"; printf 'CPU:1 [LOST '; } >page
	head -c $((4096 - $(stat -c %s page))) /dev/zero | tr '\0' 7 >>page
	[ "$(stat -c %s page)" = 4096 ]
	import_bounded page
	[ "$rc" = 0 ]
	grep -q '^lost,1000001000,,,1,' out
}

# A stream whose names are what an attacker would choose (prctl
# PR_SET_NAME, an exec'd file's name): an OSC 52 clipboard write, commas
# and quotes, a name cut by the kernel inside a UTF-8 character, a
# leading space and a '[' (the task column's anchor), "<...>" (a comm
# the kernel forgot), backslashes that look like escapes, C1 and DEL; an
# exec'd file name holding a newline and a whole forged exec line.
hostile_stream() {
	python3 -c '
import sys
def q(f):
    if isinstance(f, int): f = str(f)
    if isinstance(f, str): f = f.encode()
    if any(c in f for c in b",\"\n\r"):
        f = b"\"" + f.replace(b"\"", b"\"\"") + b"\""
    return f
def rec(*f):
    sys.stdout.buffer.write(b",".join(q(x) for x in f) + b"\n")
osc = b"\x1b]52;c;SGk=\x07"
cut = "héllo wörld ab".encode()[:14] + b"\xc3"
forged = b"/bin/sh\n            evil-666     (    666) [000] .....   100.000009: sched_process_exec: filename=/pwn pid=666 old_pid=666"
names = [osc, b"a,b \"q\" pid=9", cut, b" lead[0] x", b"<...>",
    b"back\\slash=\\x41", b"c1\xc2\x85del\x7f"]
sys.stdout.buffer.write(b"argus-stream,1\n")
t = 100000000000
for i, n in enumerate(names):
    tid = 700 + i
    rec("task", t, tid, tid, n)
    rec("event", t + 1, tid, tid, "", 0, "waking", "-", tid, tid + 100, 1, n, 120)
    rec("task", t + 2, tid, tid + 100, n)
    rec("event", t + 2, tid, tid, "", 0, "switch", "-", "S", tid, tid + 100, n)
    rec("event", t + 3, tid, tid + 100, "", 0, "comm", "-", tid, tid + 100, n, n[::-1])
    rec("event", t + 4, tid, tid + 100, "", 0, "fork", "-", tid + 200, tid + 200, "0x1200000", n)
    rec("event", t + 5, tid, tid + 100, "", 0, "marker", "-", b"mark " + n)
    t += 10
rec("event", t, 700, 700, "", 0, "exec", "-", forged, 700)
rec("event", t + 1, 701, 701, "", 0, "exec", "-", b"/usr/bin/" + osc + b"\n" + cut, 701)'
}

@test "hostile names: ftrace export never splits a line nor forges an event; imported back, the same records" {
	hostile_stream >hostile.csv
	argus-export -f ftrace -o h.trace hostile.csv
	# One line per event, no raw control byte, the forged line inside
	# its exec's filename, escaped.
	[ "$(grep -ac ': sched_process_exec: ' h.trace)" = 2 ]
	! grep -aq "$(printf '\033')" h.trace || false
	! grep -aq "$(printf '\a')" h.trace || false
	grep -aq 'filename=/bin/sh\\n *evil-666 .*filename\\x3d/pwn pid\\x3d666' h.trace
	argus-import -Z -o back.csv h.trace
	# No record of the forged pid: its line is data, inside the filename.
	! grep -aq '^[a-z]*,[0-9]*,666,' back.csv || false
	# Every event the same, byte for byte; each thread's name the same.
	argus-cat -k event hostile.csv >a.events
	argus-cat -k event back.csv >b.events
	[ "$(grep -ac "^event," a.events)" = 37 ]
	cmp a.events b.events
	# Its names in order: a task record for each (argus-stream(5)), the
	# renames and execs (comm, exec events) of the stream included.
	python3 -c '
import csv
def rows(p):
    return csv.reader(open(p, encoding="latin-1", newline=""))
def add(d, tid, name):
    if d.setdefault(tid, [])[-1:] != [name]:
        d[tid].append(name)
want, got = {}, {}
for r in rows("hostile.csv"):
    if r[0] == "task":
        add(want, r[3], r[4])
    elif r[0] == "event" and r[6] == "comm":
        add(want, r[9], r[11])
    elif r[0] == "event" and r[6] == "exec":
        add(want, r[3], r[8].rsplit("/", 1)[-1][:15])
for r in rows("back.csv"):
    if r[0] == "task" and r[3] in want:
        got.setdefault(r[3], []).append(r[4])
bad = [t for t in want if got.get(t) != want[t]]
for t in bad:
    print("thread", t, ascii(got.get(t)), "!=", ascii(want[t]))
exit(bad != [] or len(got) < 14 or sum(map(len, got.values())) < 21)'
	# The kernel's own text is read as the kernel wrote it: no decoding.
	printf '%s\n' '          a\x41-900   (  900) [000] .....   1.000001: sched_waking: comm=b\x42 pid=901 prio=120 target_cpu=000' >kernel.trace
	argus-import -Z kernel.trace | grep -q '^event,1000001000,900,900,,0,waking,-,,901,0,b\\x42,120$'
}

@test "hostile names: export -f json is valid UTF-8 JSON, bad bytes shown as \\\\xHH, controls as \\\\u00HH" {
	hostile_stream >hostile.csv
	argus-export -f json -o h.json hostile.csv
	python3 -c '
import json, sys
raw = open("h.json", "rb").read()
raw.decode("utf-8")                     # strict: no invalid byte at all
d = json.loads(raw)
names = {e["args"]["name"] for e in d["traceEvents"] if e.get("name") == "thread_name"}
want = ["\x1b]52;c;SGk=\x07", "héllo wörld \\xc3", "a,b \"q\" pid=9", "c1\x85del\x7f"]
miss = [w for w in want if w not in names]
sys.exit("missing %r in %r" % (miss, sorted(names)) if miss else 0)'
	# The escapes in the file itself: the control bytes never raw.
	! grep -aq "$(printf '\033')" h.json || false
	grep -q '"\\u001b\]52;c;SGk=\\u0007"' h.json
	grep -q 'wörld \\\\xc3"' h.json
}
