#!/usr/bin/env bats
# What the root recorder reads that others wrote: the spill's files,
# which a disk (or anyone with root's hands) may damage.  They are
# checked before they are believed: a corrupt spill block is skipped with
# a message; the recorder lives.
# test/run: alone, the spill's test floods the kernel's buffers.

load helpers

setup() {
	T="$BATS_TEST_TMPDIR"
}

teardown() {
	if [ -f "$T/ring/recorder.pid" ]; then
		argus --ring "$T/ring" stop >/dev/null 2>&1 || true
	fi
	return 0
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
    if f.tell() < 2111488 + 16 + 4096:
        f.truncate(2111488 + 16 + 4096)
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
