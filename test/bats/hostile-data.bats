#!/usr/bin/env bats
# What the root recorder reads that others wrote: a patched program's ring
# (patchers/ubuf.h), which its writer controls whole, and the spill's
# files, which a disk (or anyone with root's hands) may damage.  Each is
# checked before it is believed: a bad ring is refused, said and counted,
# a corrupt spill block skipped with a message; the recorder lives.
# test/run: alone, the spill's test floods the kernel's buffers.

load helpers

setup() {
	T="$BATS_TEST_TMPDIR"
	RING="$ROOT/test/progs/hostile-ring"
}

teardown() {
	if [ -f "$T/ring/recorder.pid" ]; then
		argus --ring "$T/ring" stop >/dev/null 2>&1 || true
	fi
	return 0
}

@test "hostile ring: a writer dropped to nobody lies in each field, each ring refused and said; the honest one kept, the recorder lives" {
	need_tracing
	need_prog "$RING"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	mkdir -m 700 "$T/pd"
	# One program a lie, each its ring made as root, then written to as
	# nobody: names the kernel's or a terminal's, a thread of another
	# process (this shell), a CPU the machine has not, a time of no
	# clock, a header's clock of none, a TSC count of none, a head far
	# past its tail, rings of another size than the file's, an event's
	# head published without its second cell, a file cut short once
	# mapped, a thread gone from /proc that the trace saw another
	# process's.
	hows="good exit escape tid cpu ts clock tsc head size cut truncate dead"
	# Started by the capture, once it traces: it ends when they have.
	run timeout 120 argus-capture -Z -o "$T/t.csv" -s none --patch-dir "$T/pd" -- \
	    sh -c 'for how in $1; do "$2" "$3" "$how" "$4" > "$5/$how.out" 2> "$5/$how.err" & done; wait' \
	    sh "$hows" "$RING" "$T/pd" $$ "$T"
	echo "$output"
	[ "$status" -eq 0 ]
	for how in $hows; do
		cat "$T/$how.err"
		[ ! -s "$T/$how.err" ]
	done
	good=$(awk '{ print $2 }' "$T/good.out")
	[ -n "$good" ]
	# The honest ring's three events, its own thread's.
	n=$(awk -F, -v p="$good" '$1 == "event" && $3 == p && $4 == p && $7 == "hostile_hit"' "$T/t.csv" | wc -l)
	[ "$n" -eq 3 ]
	# Each other refused, saying why, none of its events written (but
	# for those written before it lied, in the last two).
	for how in exit escape tid cpu ts clock tsc head size cut truncate dead; do
		pid=$(awk '{ print $2 }' "$T/$how.out")
		[ -n "$pid" ]
		grep -q "patched process $pid's ring .* refused: " <<<"$output"
		# Its events' one argument, 42, is no kernel event's.
		case $how in
		truncate) ;;
		dead) [ -z "$(awk -F, -v p="$pid" '$1 == "event" && $3 == p && $4 != p && $9 == "0x2a"' "$T/t.csv")" ] ;;
		*) [ -z "$(awk -F, -v p="$pid" '$1 == "event" && $3 == p && $9 == "0x2a"' "$T/t.csv")" ] ;;
		esac
	done
	grep -q "refused: event name 0 not one a probe may give" <<<"$output"
	grep -q "refused: an event of thread $$, not of process " <<<"$output"
	grep -q "refused: an event on cpu 65535" <<<"$output"
	grep -q "refused: an event stamped 18446744073709551615" <<<"$output"
	grep -q "refused: its header names no clock" <<<"$output"
	tsc=$(awk '{ print $2 }' "$T/tsc.out")
	grep -q "process $tsc's ring .* refused: an event stamped [0-9]*, outside the ring's time" <<<"$output"
	grep -q "refused: head 2098179 beyond its ring" <<<"$output"
	grep -q "refused: a file of [0-9]* bytes for rings of 131072 cells" <<<"$output"
	grep -q "refused: an event's second cell past its head" <<<"$output"
	grep -q "refused: its file cut short under the recorder" <<<"$output"
	grep -q "refused: an event of thread [0-9]*, which is process [0-9]*'s" <<<"$output"
	# Counted in the stream too, as patch_lost counts.
	n=$(awk -F, '$1 == "meta" && $5 == "patch_refused" { n += $6 } END { print n + 0 }' "$T/t.csv")
	[ "$n" -eq 12 ]
	# Nothing the writers chose reached the terminal or the stream.
	! grep -q $'\033' <<<"$output" || false
	! grep -q $'\033' "$T/t.csv" || false
	# What reads the stream reads it.
	run argus-summary "$T/t.csv"
	[ "$status" -eq 0 ]
	# Every file removed: the refused at once, the honest one read out.
	[ -z "$(ls "$T/pd")" ]
}

# COUNT one-byte reads and writes by dd on each CPU: some 9 MiB of pages
# a CPU for 100000, more than a 1 MiB kernel buffer holds.
syscall_flood() {
	local c dds=()
	for c in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$c" dd if=/dev/zero of=/dev/null bs=1 count="$1" 2>/dev/null &
		dds+=($!)
	done
	wait "${dds[@]}"
}

@test "hostile spill: a block whose length is past the reader's buffer is refused with a message; the recorder lives and serves" {
	need_tracing
	need_prog taskset python3
	ring="$T/ring" spill="$T/spill"
	# A real-time spiller: at idle priority a busy machine starves it.
	run env ARGUS_SPILL_SCHED=fifo argus --ring "$ring" start -s default -b 1M --spill "$spill" --spill-size 256M
	echo "$output"
	[ "$status" -eq 0 ]
	pid=$(cat "$ring/recorder.pid")
	for i in $(seq 5); do
		syscall_flood 100000
		ls "$spill"/spill-cpu0.* >/dev/null 2>&1 && break
	done
	sleep 1
	f=$(ls "$spill"/spill-cpu0.* | sort -t. -k2 -n | tail -1)
	echo "corrupting $f"
	# Its first block now says 2,111,488 deflated bytes (a batch
	# deflates to 1 MiB and a little), and the file holds them.
	python3 - "$f" <<'PY'
import struct, sys
with open(sys.argv[1], 'r+b') as f:
    ts = struct.unpack('<Q', f.read(8))[0]
    f.seek(0)
    f.write(struct.pack('<QII', ts, 2111488, 1 << 20))
    f.seek(0, 2)
    if f.tell() < 2111488 + 24 + 4096:
        f.truncate(2111488 + 24 + 4096)
PY
	# A flush reads the spill's newest page, then all of it back.
	run timeout 120 argus --ring "$ring" flush
	echo "$output"
	[ "$status" -eq 0 ]
	kill -0 "$pid"
	grep "spill $spill: cpu0 file" "$ring/recorder.log"
	grep -q "spill $spill: cpu0 file [0-9]*: a block longer than a batch deflates to at 0; the pages from there on are left out" "$ring/recorder.log"
	run argus --ring "$ring" stop
	[ "$status" -eq 0 ]
	! kill -0 "$pid" 2>/dev/null
}

@test "hostile ring: under --patch, a ring may name only the events of the sets the recorder gave" {
	need_tracing
	need_prog "$RING"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	# Without it --patch runs the command unpatched, with no rings.
	[ -f "$BIN/../patchers/libargus-patch.so" ] || skip "no patchers/libargus-patch.so beside $BIN (needs libzydis-dev; not in sanitizer builds)"
	# Sets of a library the program has not loaded: the patcher places
	# nothing and makes no ring; the program's own is the only one.
	printf 'libnotloaded.so.1 nothing hostile_hit\n' > "$T/same.probes"
	printf 'libnotloaded.so.1 nothing other_hit\n' > "$T/other.probes"
	run timeout 60 argus-capture -Z -o "$T/same.csv" -s none --patch --probes "$T/same.probes" -- "$RING" - good
	echo "$output"
	[ "$status" -eq 0 ]
	pid=$(awk '$1 == "pid" { print $2 }' <<<"$output")
	[ -n "$pid" ]
	n=$(awk -F, -v p="$pid" '$1 == "event" && $3 == p && $7 == "hostile_hit"' "$T/same.csv" | wc -l)
	[ "$n" -eq 3 ]
	run timeout 60 argus-capture -Z -o "$T/other.csv" -s none --patch --probes "$T/other.probes" -- "$RING" - good
	echo "$output"
	[ "$status" -eq 0 ]
	pid=$(awk '$1 == "pid" { print $2 }' <<<"$output")
	[ -n "$pid" ]
	grep -q "patched process $pid's ring .* refused: event name 0 in none of the probe sets given" <<<"$output"
	[ -z "$(awk -F, -v p="$pid" '$1 == "event" && $3 == p && $9 == "0x2a"' "$T/other.csv")" ]
	grep -q '^meta,[0-9]*,,,patch_refused,1$' "$T/other.csv"
}
