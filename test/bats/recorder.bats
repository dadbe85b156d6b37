#!/usr/bin/env bats
# The flight recorder itself (argus start, status, flush): when it
# records, how much kernel memory it takes, and what it says when its
# disk is full.
# test/run: alone, its tests flood the kernel's buffers with a million
# system calls (a neighbour's capture would lose its events) and keep a
# hang in 128 MiB buffers that a neighbour's flood would overwrite.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# A test that fails half-way must not leave its recorder tracing, nor
# its file system mounted.
teardown() {
	local r
	for r in "$BATS_TEST_TMPDIR/ring" "$BATS_TEST_TMPDIR/fs/ring"; do
		[ ! -f "$r/recorder.pid" ] ||
		    argus --ring "$r" stop >/dev/null 2>&1 || true
	done
	! mountpoint -q "$BATS_TEST_TMPDIR/fs" || umount "$BATS_TEST_TMPDIR/fs"
}

# The kernel buffer per CPU argus start picks by default, in MiB: the
# smallest of RAM/16, 4 x the ring's size and 512 MiB, split between the
# CPUs.
machine_mb() {
	local ram ring=$1 ncpu total
	ram=$(( $(getconf _PHYS_PAGES) * $(getconf PAGESIZE) ))
	ncpu=$(getconf _NPROCESSORS_CONF)
	total=$(( ram / 16 ))
	[ $(( ring * 4 )) -ge "$total" ] || total=$(( ring * 4 ))
	[ $(( 512 << 20 )) -ge "$total" ] || total=$(( 512 << 20 ))
	echo $(( total / ncpu >> 20 ))
}

@test "recorder: start returns once it records: a process run right after is in the recording" {
	need_tracing
	ring="$BATS_TEST_TMPDIR/ring"
	# Buffers of hundreds of MiB, which the kernel takes seconds to
	# allocate on a busy machine.
	run argus --ring "$ring" start --ring-size 256M
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "argus: recording since "[0-9]*-[0-9]*-[0-9]*" "[0-9]*:[0-9]*:[0-9]*.[0-9]*" into $ring "* ]]
	sh -c 'exec sleep 0.1' &
	p=$!
	wait "$p"
	# The bridge that recorded while the buffers were allocated goes by
	# itself, its events written out, its memory back.
	early=/sys/kernel/tracing/instances/argus-$(cat "$ring/recorder.pid")-early
	for i in $(seq 200); do [ -d "$early" ] || break; sleep 0.1; done
	[ ! -d "$early" ]
	run argus --ring "$ring" flush
	[ "$status" -eq 0 ]
	argus-cat -k event -p "$p" "$ring"/argus-ring-*.csv.gz | grep -q ',exec,'
	# Since when it records, as start said it.
	run argus --ring "$ring" status
	echo "$output"
	[[ "$output" == *"recorder:    running, argus-capture pid "*", recording since 20"* ]]
	run argus --ring "$ring" stop
	[ "$status" -eq 0 ]
}

@test "recorder: kernel buffers sized by the machine, the total in status; -b overrides" {
	need_tracing
	ring="$BATS_TEST_TMPDIR/ring"
	mb=$(machine_mb $((64 << 20)))
	[ "$mb" -ge 8 ] || mb=8
	run argus --ring "$ring" start --ring-size 64M
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"kernel buffers ${mb}M per CPU, by "* ]]
	pid=$(cat "$ring/recorder.pid")
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--defer -b ${mb}M"
	ncpu=$(ls -d /sys/kernel/tracing/instances/argus-"$pid"/per_cpu/cpu* | wc -l)
	run argus --ring "$ring" status
	echo "$output"
	grep -Eq "^buffers: +$ncpu x $mb MiB in the kernel, $((ncpu * mb)) MiB in all, .* the last [0-9.]+ s," <<<"$output"
	argus --ring "$ring" stop
	run argus --ring "$ring" start -b 16M
	[ "$status" -eq 0 ]
	pid=$(cat "$ring/recorder.pid")
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--buffer-size 16M --defer"
	run argus --ring "$ring" status
	grep -Eq "^buffers: +$ncpu x 16 MiB in the kernel, $((ncpu * 16)) MiB in all" <<<"$output"
}

@test "recorder: a full disk is said, ENOSPC by name, with what was written kept" {
	need_tracing
	fs="$BATS_TEST_TMPDIR/fs"
	ring="$fs/ring"
	mkdir "$fs"
	mount -t tmpfs -o size=1M,mode=0700 argus-test "$fs"
	run argus --ring "$ring" start --ring-size 64M -b 16M
	[ "$status" -eq 0 ]
	pdir=$(readlink "$ring/patch")
	[ -d "$pdir" ]
	# More events than a MiB holds compressed.
	for i in 1 2 3 4; do
		dd if=/dev/zero of=/dev/null bs=1 count=300000 2>/dev/null
	done
	run argus --ring "$ring" flush
	echo "$output"
	[ "$status" -eq 69 ]
	[[ "$output" == *"stopped before it wrote out its kernel buffers: "*"No space left on device (ENOSPC)"*"what it wrote stays in $ring: make room on its file system and 'argus start' again"* ]]
	run argus --ring "$ring" status
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"recorder:    not running: "*"(ENOSPC)"* ]]
	# What it wrote before is there, and readable.
	argus-cat --live -k event "$ring"/argus-ring-*.csv.gz | grep -q '^event,'
	# Full from the start: start says why, on its own stderr.
	rm -f "$ring"/argus-r*
	head -c 2M /dev/zero >"$fs/fill" 2>/dev/null || true
	run argus --ring "$ring" start --ring-size 64M -b 16M
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"No space left on device"* ]]
	for i in $(seq 50); do
		pgrep -f "argus-capture --ring $ring" >/dev/null || break
		sleep 0.1
	done
	! pgrep -f "argus-capture --ring $ring" >/dev/null || false
	# Neither the patched programs' directory of the recorder the full
	# disk stopped, nor one of the start that failed, is left behind.
	[ ! -e "$pdir" ]
	[ ! -e "$ring/patch" ] && [ ! -L "$ring/patch" ]
	umount "$fs"
}

@test "recorder: debug of a hang that began before the recording says so, exit 66" {
	need_tracing
	ring="$BATS_TEST_TMPDIR/ring"
	sleep 1000 3>&- &
	old=$!
	sleep 3
	run argus --ring "$ring" start -b 32M
	[ "$status" -eq 0 ]
	# Wide margins: a wait's start is known to a fraction of a second.
	sleep 2
	sleep 1000 3>&- &
	new=$!
	sleep 2
	run argus --ring "$ring" debug --pid "$old" --auto
	echo "$output"
	[ "$status" -eq 66 ]
	[[ "$output" == *"the target has waited since "*", before the recording began ("*"): it holds nothing of how the hang began"* ]]
	[[ "$output" != *"argus-spin"* ]]
	# One that began after is diagnosed.
	run argus --ring "$ring" debug --pid "$new" --auto
	echo "$output"
	kill "$old" "$new"
	[ "$status" -ne 66 ]
	[[ "$output" == *"sleep $new"* ]]
}

@test "recorder: under a system-call load, debug answers with the hang's threads from its start; status says what the buffers keep" {
	need_tracing
	command -v flock >/dev/null || skip "flock (util-linux) missing"
	ring="$BATS_TEST_TMPDIR/ring"
	run argus --ring "$ring" start -b 128M
	[ "$status" -eq 0 ]
	pid=$(cat "$ring/recorder.pid")
	# The kernel keeps the listed calls' own events, a few arguments
	# each, not raw_syscalls' six for every call (issue 27).
	grep -qx 'syscalls:sys_enter_write' "/sys/kernel/tracing/instances/argus-$pid/set_event"
	! grep -q '^raw_syscalls:' "/sys/kernel/tracing/instances/argus-$pid/set_event" || false
	flock lock sleep 60 3>&- &
	holder=$!
	sleep 0.5
	flock lock true 3>&- &
	waiter=$!
	sleep 1
	# Reads and writes of a byte on both CPUs, hundreds of thousands,
	# after the hang began: well within 2 x 128 MiB.
	loads=
	for i in 1 2; do
		nice -n 10 dd if=/dev/zero of=/dev/null bs=1 count=100000 2>/dev/null &
		loads="$loads $!"
	done
	wait $loads
	sleep 1
	run argus --ring "$ring" status
	echo "$output"
	grep -Eq '^retention: +at this rate the kernel buffers keep the last [0-9.]+ s; [0-9]+ events lost to overwriting so far$' <<<"$output"
	start=$(date +%s)
	run timeout 120 argus --ring "$ring" debug --pid "$waiter" --auto
	echo "$output"
	kill "$holder" 2>/dev/null || true
	[ "$status" -eq 0 ]
	[[ "$output" == *"Wait chain: flock $waiter "* ]]
	[ $(($(date +%s) - start)) -lt 120 ]
	# The hang's threads from where it began, as the rules read them:
	# the waiter's flock call and its holder's.
	argus-cat -k event -p "$waiter" "$ring"/argus-ring-*.csv.gz | grep -q ',sys_enter,-,[0-9]*,flock,'
	argus-cat -k event "$ring"/argus-ring-*.csv.gz | grep -q ",sys_enter,-,[0-9]*,flock,"
}
