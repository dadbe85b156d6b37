#!/usr/bin/env bats
# The porcelain: the flight recorder (start, mark, debug, stop) and the
# demo, as a user runs them.
# test/run: alone, start -b 32M keeps a hang in the kernel's buffers, which
# another file's flood of system calls (capture.bats' load) overwrites;
# and --spill floods them itself.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# COUNT one-byte reads and writes by dd on each CPU, for the spill: some
# 9 MiB of pages a CPU for 100000.  Their pids in dds.
syscall_flood() {
	local c
	dds=()
	for c in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$c" dd if=/dev/zero of=/dev/null bs=1 count="$1" 2>/dev/null &
		dds+=($!)
	done
	wait "${dds[@]}"
}

# The events the ring's files hold of the first dd of syscall_flood,
# between $started and $loaded.
dd_events() {
	argus-cat -k event -p "${dds[0]}" -s "$started" -u "$loaded" \
	    "$ring"/argus-ring-*.csv.gz | grep -c '^event,' || true
}

# argus start ARGS into $ring with a real-time spiller: at idle priority
# (the default) it waits while other work takes both CPUs, as under
# test/progs/burn, and the kernel's buffer overwrites as without it.
spill_start() {
	run env ARGUS_SPILL_SCHED=fifo argus --ring "$ring" start "$@"
	[ "$status" -eq 0 ]
}

# A test that fails half-way must not leave its recorder tracing.
teardown() {
	if [ -f "$BATS_TEST_TMPDIR/ring/recorder.pid" ]; then
		argus --ring "$BATS_TEST_TMPDIR/ring" stop >/dev/null 2>&1 || true
	fi
	if [ -f "$BATS_TEST_TMPDIR/noise.pid" ]; then
		kill "$(cat "$BATS_TEST_TMPDIR/noise.pid")" 2>/dev/null || true
	fi
	pub_cleanup
}

@test "argus: --help, an unknown command, debug without a target" {
	run argus --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: argus"*"debug"*"demo"* ]]
	run argus frobnicate
	[ "$status" -eq 64 ]
	[[ "$output" == *"'frobnicate' is not a command"* ]]
	run argus --ring "$BATS_TEST_TMPDIR/none" debug
	[ "$status" -eq 64 ]
	[[ "$output" == *"say which program hangs"* ]]
	# Stopping what does not run is done already, as systemctl has it;
	# status says so, with the LSB exit for it.
	run argus --ring "$BATS_TEST_TMPDIR/none" stop
	[ "$status" -eq 0 ]
	[[ "$output" == *"the recorder is not running"* ]]
	run argus --ring "$BATS_TEST_TMPDIR/none" status
	[ "$status" -eq 3 ]
	[[ "$output" == *"recorder:    not running"* ]]
	[[ "$output" == *"recording:   none yet"* ]]
}

@test "argus: every command has --help; bad options are usage errors" {
	for c in start stop status flush mark waits debug demo watch; do
		run argus "$c" --help
		[ "$status" -eq 0 ]
		[[ "$output" == "usage: argus $c"* ]]
	done
	run argus demo --frobnicate
	[ "$status" -eq 64 ]
	[[ "$output" == *"Try 'argus demo --help'"* ]]
	run argus --ring "$BATS_TEST_TMPDIR/none" debug --pid 1 --bogus
	[ "$status" -eq 64 ]
	run argus stop now
	[ "$status" -eq 64 ]
}

@test "argus: an argument is never reparsed by a shell" {
	# A ring directory whose name a shell would expand or split.
	dir="$BATS_TEST_TMPDIR/a b;\$(touch pwned)'\""
	mkdir -p "$dir"
	run argus --ring "$dir" debug --comm "x'; touch pwned2 #" --auto
	[ ! -e pwned ]
	[ ! -e pwned2 ]
	[[ "$output" == *"no recording in it yet"* ]]
}

@test "argus: a recorder directory someone else prepared is refused, its links never followed" {
	need_nobody
	pub_dir
	echo "root's own" >some-file
	# The issue's reproducer: nobody prepares the directory root will use.
	as_nobody mkdir "$PUB/argus-ring"
	as_nobody ln -s "$PWD/some-file" "$PUB/argus-ring/recorder.log"
	for c in start stop status mark "debug --pid 1"; do
		run argus --ring "$PUB/argus-ring" $c
		echo "$c: $output"
		[ "$status" -eq 77 ]
		[[ "$output" == *"$PUB/argus-ring: owned by uid $(id -u nobody), not by you"* ]]
	done
	[ "$(cat some-file)" = "root's own" ]
	[ "$(ls -A "$PUB/argus-ring")" = recorder.log ]
	# Root's own, but others may write into it: the same.
	mkdir -m 777 "$PUB/open"
	chmod 777 "$PUB/open"
	ARGUS_RING="$PUB/open" run argus start
	[ "$status" -eq 77 ]
	[[ "$output" == *"writable by others (mode 777)"* ]]
	[ -z "$(ls -A "$PUB/open")" ]
}

@test "argus: a recorder directory reached through nobody's link or directory is refused, with a trailing slash too" {
	need_nobody
	pub_dir
	mkdir -m 700 real
	# nobody's link to root's directory, in a directory of nobody's
	# and straight in the sticky one.
	as_nobody mkdir "$PUB/x"
	as_nobody ln -s "$PWD/real" "$PUB/x/link"
	as_nobody ln -s "$PWD/real" "$PUB/link"
	for r in "$PUB/x/link/" "$PUB/x/link//" "$PUB/x/link/." "$PUB/x/link" \
	    "$PUB/link/" "$PUB/link/." "$PUB/link"; do
		for c in status "debug --pid 1"; do
			ARGUS_RING="$r" run argus $c
			echo "ARGUS_RING=$r argus $c: $status: $output"
			[ "$status" -eq 77 ]
			[[ "$output" == *"$r: "*"not using it"* ]]
		done
	done
	# Nothing made through them.
	ARGUS_RING="$PUB/link/" run argus start
	[ "$status" -eq 77 ]
	[ -z "$(ls -A real)" ]
	# On the way, a link of root's own is followed; as the directory
	# itself, no link is (the slash or not).
	mkdir -m 700 own
	ln -s "$PWD/own" ownlink
	ARGUS_RING="$PWD/ownlink/ring/" run argus status
	echo "$output"
	[ "$status" -eq 3 ]
	ARGUS_RING="$PWD/ownlink/" run argus status
	[ "$status" -eq 77 ]
}

@test "argus: the default recorder directory: /var/lib/argus for root, ~/.local/state/argus for a user" {
	need_nobody
	pub_dir
	# Root's, in a mount namespace of its own: the machine's /var/lib
	# is never touched.
	mkdir varlib
	run unshare --mount --propagation private sh -c \
	    "mount --bind '$PWD/varlib' /var/lib && env -u ARGUS_RING argus debug --pid 1"
	[ "$status" -ne 1 ] || skip "no mount namespace here: $output"
	echo "$output"
	[ "$status" -eq 66 ]
	[[ "$output" == *"/var/lib/argus: no recording ('argus start' first)"* ]]
	# A user's: created 0700 with its parents, under the user's home.
	as_nobody mkdir "$PUB/home"
	run as_nobody env -u ARGUS_RING -u XDG_STATE_HOME HOME="$PUB/home" argus start
	echo "$output"
	[ "$status" -ne 0 ]	# not root: the recorder cannot trace
	[ "$(stat -c '%U %a' "$PUB/home/.local/state/argus")" = "nobody 700" ]
	[ "$(stat -c %a "$PUB/home/.local")" = 700 ]
	run as_nobody env -u ARGUS_RING XDG_STATE_HOME="$PUB/home/st" argus debug --pid 1
	[ "$status" -eq 66 ]
	[[ "$output" == *"$PUB/home/st/argus: no recording"* ]]
}

@test "argus: start keeps the events in the kernel until mark writes them out; debug finds the culprit" {
	need_tracing
	ring="$BATS_TEST_TMPDIR/ring"
	run argus --ring "$ring" start -b 32M
	[ "$status" -eq 0 ]
	pid=$(cat "$ring/recorder.pid")
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- '--buffer-size 32M --defer'
	# Something busy besides, that has nothing to do with the hang: not
	# forked by the scenario's parent (its siblings are of its task, for
	# argus-relate(1)), but by a subshell gone at once.
	(sh -c 'while :; do sleep 0.01; done' >/dev/null 3>&- &
	    echo $! >noise.pid)
	noise=$(cat noise.pid)
	sleep 1
	t0=$("$ROOT/test/progs/monotime")
	"$ROOT/test/scenarios/circular-wait" -n 3 -H 6 -t truth >/dev/null 3>&- &
	scen=$!
	# 30 s at most: a loaded machine is slow to start the scenario.
	for i in $(seq 300); do grep -q '^hang_begin_ns=' truth && break; sleep 0.1; done
	sleep 2
	load_ids truth
	# Nobody asked yet: the hang is in the kernel's buffers, not the files.
	run argus --ring "$ring" status
	echo "$output"
	[ "$status" -eq 0 ]
	grep -Eq '^buffers: +[0-9]+ x 32 MiB in the kernel, .* [1-9][0-9]* events not yet written out' <<<"$output"
	# (Since the scenario began: the first file has the recorder's own
	# start, and an earlier process may have had the pid.)
	! argus-cat -k event -p "$root_pid" -s "$t0" "$ring"/argus-ring-*.csv.gz | grep -q ',switch,' || false
	run argus --ring "$ring" mark it hangs now
	[ "$status" -eq 0 ]
	# Now they are, with the mark, before mark returns: what the kernel's
	# buffers held.  Where other work's events filled them (a busy CI
	# machine's, a million a second), the root's went to the spill, which
	# mark leaves for debug to read back.
	argus-cat -k event "$ring"/argus-ring-*.csv.gz | grep -q ',marker,-,argus-mark it hangs now$'
	argus-cat -k event -p "$root_pid" "$ring"/argus-ring-*.csv.gz | grep -q ',switch,' ||
	    [ -n "$(find "$ring/spill" -type f -name 'spill-cpu*' -size +0)" ]
	# Each ring file has its relation index beside it.
	[ "$(ls "$ring"/argus-rel-*.csv.gz | sed 's/.*argus-rel-//')" = \
	    "$(ls "$ring"/argus-ring-*.csv.gz | sed 's/.*argus-ring-//')" ]
	run argus --ring "$ring" debug --pid "$victim_pid" --last 30s --auto
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Wait chain: cw-browser $victim_pid → cw-renderer $root_pid → cw-browser $victim_pid"* ]]
	# Each thread once: the circle closes once, however many paths meet it.
	[ "$(grep -c '^ *cycle: ' <<<"$output")" -eq 1 ]
	# The graph is of the threads related to the victim: not of a busy
	# process that never had to do with it.
	[[ "$output" == *"the "[0-9]*" threads related to the target;"* ]]
	debug=$(ls -t "$ring"/debug-*.gz | head -1)
	argus-cat -k event -p "$root_pid" "$debug" | grep -q ','
	# None of the noise's own calls and forks: its process's records only
	# (a thread whose process the recorder never learnt, PID empty, is
	# not the noise's, though a flood of them once was counted so).
	own='^event,[0-9]*,[0-9]+,[0-9]*,[0-9]*,[0-9]*,(sys_enter|fork|exec|exit),'
	in_debug=$(argus-cat -k event -p "$noise" "$debug" | grep -Ec "$own" || true)
	# All it recorded, the spill's too.
	argus --ring "$ring" flush
	in_ring=$(argus-cat -k event -p "$noise" "$ring"/argus-ring-*.csv.gz | grep -Ec "$own")
	echo "the noise's own events: $in_debug in the debug file, $in_ring in the ring"
	[ "$in_ring" -ge 100 ]
	[ "$in_debug" -eq 0 ]
	run argus --ring "$ring" debug --pid "$victim_pid" --last 30s --auto --all
	[ "$status" -eq 0 ]
	[[ "$output" == *"every thread;"* ]]
	[[ "$output" == *"Wait chain: cw-browser $victim_pid → cw-renderer $root_pid → cw-browser $victim_pid"* ]]
	kill "$noise"
	run argus --ring "$ring" stop
	[ "$status" -eq 0 ]
	wait "$scen"
	gone "$pid"
	cat "$ring/recorder.log" 2>/dev/null || true
	[ ! -e "$TFS/instances/argus-$pid" ]
	[ -z "$(find "$ring" -mindepth 1 ! -perm 600)" ]
	run argus --ring "$ring" flush
	[ "$status" -eq 69 ]
	[[ "$output" == *"the recorder is not running"* ]]
}

@test "argus: start --live, mark, debug while it hangs, stop: the recorder finds the culprit" {
	need_tracing
	ring="$BATS_TEST_TMPDIR/ring"
	# Stacks are sampled as events come: only a live recorder takes them.
	run argus --ring "$ring" start --stacks-comm cw-renderer
	[ "$status" -eq 64 ]
	[[ "$output" == *"add --live"* ]]
	run argus --ring "$ring" start --live --ring-size 256M -s default \
	    --stacks-comm cw-renderer
	[ "$status" -eq 0 ]
	pid=$(cat "$ring/recorder.pid")
	# The capture's own options reach it, as given.
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- '--ring-size 256M --syscalls default --stacks-comm cw-renderer'
	! tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- '--defer' || false
	run argus --ring "$ring" start -s
	[ "$status" -eq 64 ]
	[ "$(stat -c %a "$ring")" = 700 ]
	sleep 1
	# A hang of 10 s: status, mark and debug all within it, under load too.
	"$ROOT/test/scenarios/circular-wait" -n 3 -H 10 -t truth >/dev/null 3>&- &
	scen=$!
	# 30 s at most: a loaded machine is slow to start the scenario.
	for i in $(seq 300); do grep -q '^hang_begin_ns=' truth && break; sleep 0.1; done
	sleep 2.5
	run argus --ring "$ring" status
	[ "$status" -eq 0 ]
	[[ "$output" == *"recorder:    running, argus-capture pid $pid"* ]]
	grep -Eq '^ring: +[1-9][0-9]* files?, [0-9.]+ MiB, written ' <<<"$output"
	run argus --ring "$ring" mark it hangs now
	[ "$status" -eq 0 ]
	sleep 0.5
	load_ids truth
	run argus --ring "$ring" debug --pid "$victim_pid" --last 30s --auto
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"culprit: cw-renderer $root_pid/$root_tid"* ]]
	run argus --ring "$ring" stop
	[ "$status" -eq 0 ]
	wait "$scen"
	# The recorder is gone, and so is its tracefs instance.
	gone "$pid"
	[ ! -e "$TFS/instances/argus-$pid" ]
	# The mark is in the recording, the diagnosis kept beside it; every
	# file of the recorder is its user's alone.
	argus-cat -k event "$ring"/argus-ring-*.csv.gz | grep -q ',marker,-,argus-mark it hangs now$'
	ls "$ring"/debug-*.gz
	# Wait-for snapshots beside the ring: the mark's and debug's, 0600;
	# the diagnosis read both: the victim's wait at each moment.
	[ "$(ls "$ring"/argus-snap-*.csv.gz | wc -l)" -eq 2 ]
	[ "$(stat -c %a "$ring"/argus-snap-*.csv.gz | sort -u)" = 600 ]
	[ "$(argus-cat -k wait -p "$victim_pid" "$ring"/debug-*.gz |
	    awk -F, '$1 == "wait" { print $2 }' | sort -u | wc -l)" -eq 2 ]
	[ -z "$(find "$ring" -mindepth 1 ! -perm 600)" ]
}

@test "argus: demo captures a hang while it happens and names its cause" {
	need_tracing
	# Its trace and graph (tens of MB) are kept where TMPDIR says.
	TMPDIR="$BATS_TEST_TMPDIR" run argus demo
	echo "$output"
	ls -d "$BATS_TEST_TMPDIR"/argus-demo.*
	[ "$status" -eq 0 ]
	# The capture took the scenario's stacks: the culprit's line names
	# the function it waits in, from the scenario's ground truth.
	grep -E '^ *culprit: cw-renderer .*, in [a-z_]+ from ask_browser_for_help$' <<< "$output"
	[[ "$output" == *"Argus found it, in the function too."* ]]
}

@test "argus: debug says when the ring holds nothing of the window, and why" {
	ring="$BATS_TEST_TMPDIR/old"
	mkdir -m 700 "$ring"
	printf 'argus-stream,1\n' | gzip >"$ring/argus-ring-000001.csv.gz"
	chmod 600 "$ring/argus-ring-000001.csv.gz"
	touch -d '1 hour ago' "$ring/argus-ring-000001.csv.gz"
	run argus --ring "$ring" debug --pid 1 --last 60s --no-snapshot
	echo "$output"
	[ "$status" -eq 66 ]
	[[ "$output" == *"$ring: nothing recorded in the last 60 s: its newest file was written "*"; the recorder is not running ('argus start')"* ]]
}

@test "argus: start --spill keeps on disk what the kernel's buffer overwrote; debug still finds the culprit; the spill goes at stop" {
	need_tracing
	ring="$BATS_TEST_TMPDIR/ring" spill="$BATS_TEST_TMPDIR/spill"
	spill_start -b 4M --spill "$spill" --spill-size 512M
	pid=$(cat "$ring/recorder.pid")
	[ "$(stat -c %a "$spill")" = 700 ]
	sleep 1
	"$ROOT/test/scenarios/circular-wait" -n 3 -H 40 -t truth >/dev/null 3>&- &
	scen=$!
	for i in $(seq 100); do grep -q '^hang_begin_ns=' truth && break; sleep 0.1; done
	sleep 1
	load_ids truth
	# More than the kernel's 4 MiB a CPU after the hang began (some
	# 9 MiB of pages on each CPU): system calls, read and write.
	syscall_flood 100000
	sleep 3
	# The full pages went to disk, 0600, and status says how far back.
	run argus --ring "$ring" status
	echo "$output"
	grep -Eq "^spill: +[0-9.]+ MiB on disk in $spill: with the kernel's, the last [0-9.]+ s" <<<"$output"
	ls "$spill"/spill-cpu* >/dev/null
	[ -z "$(find "$spill" -mindepth 1 ! -perm 600)" ]
	run argus --ring "$ring" debug --pid "$victim_pid" --last 60s --auto
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Wait chain: cw-browser $victim_pid → cw-renderer $root_pid → cw-browser $victim_pid"* ]]
	# From before the noise: the hang's beginning, which 2 x 4 MiB of
	# kernel buffer alone had overwritten.
	debug=$(ls -t "$ring"/debug-*.gz | head -1)
	first=$(argus-cat -k event -p "$root_pid" "$debug" | grep -m1 '^event,' | cut -d, -f2)
	[ -n "$first" ]
	[ "$first" -le "$hang_begin_ns" ]
	# In time order, each CPU's spilled pages before its kernel buffer's.
	argus-cat -k event "$ring"/argus-ring-*.csv.gz | grep '^event,' | cut -d, -f2 | sort -c -n
	run argus --ring "$ring" stop
	[ "$status" -eq 0 ]
	# The hang is 40 s wide for a slow machine's sake: end it, not wait.
	kill "$scen" 2>/dev/null || true
	wait "$scen" || true
	gone "$pid"
	[ ! -e "$spill" ]
	# Megabytes of pages, deflated on disk to a fraction of that.
	line=$(grep 'spill: .* MiB spilled, deflated to' "$ring/recorder.log")
	echo "$line"
	pages=$(sed 's/.*spill: \([0-9]*\)\.[0-9] MiB spilled, deflated to \([0-9]*\)\..*/\1/' <<<"$line")
	disk=$(sed 's/.*spill: \([0-9]*\)\.[0-9] MiB spilled, deflated to \([0-9]*\)\..*/\2/' <<<"$line")
	[ "$pages" -ge 4 ]
	[ "$((disk * 3))" -le "$pages" ]
}

@test "argus: start spills by default into the ring; debug reads the spill back for a hang older than the kernel's buffers, in bounded time" {
	need_tracing
	ring="$BATS_TEST_TMPDIR/ring"
	# Small kernel buffers (1 MiB a CPU), the spill by default: into
	# the ring's own directory, 0700, within the ring's size.
	spill_start -b 1M --ring-size 256M
	pid=$(cat "$ring/recorder.pid")
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--spill $ring/spill --spill-size 256M"
	[ "$(stat -c %a "$ring/spill")" = 700 ]
	sleep 1
	"$ROOT/test/scenarios/circular-wait" -n 3 -H 50 -t truth >/dev/null 3>&- &
	scen=$!
	for i in $(seq 100); do grep -q '^hang_begin_ns=' truth && break; sleep 0.1; done
	sleep 1
	load_ids truth
	# Far more than the kernel's 1 MiB a CPU after the hang began.
	syscall_flood 100000
	sleep 2
	ls "$ring"/spill/spill-cpu* >/dev/null
	run argus --ring "$ring" status
	echo "$output"
	grep -Eq "^spill: +[0-9.]+ MiB on disk in $ring/spill: with the kernel's, the last [0-9.]+ s" <<<"$output"
	t0=$("$ROOT/test/progs/monotime")
	run argus --ring "$ring" debug --pid "$victim_pid" --last 60s --auto
	t1=$("$ROOT/test/progs/monotime")
	echo "$output"
	[ "$status" -eq 0 ]
	# The wait is older than the kernel's buffers: the spill read back,
	# whether to the wait's start the snapshot gave (its time is the
	# scheduler's, off by the CPUs' stolen time) or, finding no hang in
	# the kernel's pages, to the window's.
	[[ "$output" == *"argus: "*" read the spill back to "* ]]
	[[ "$output" == *"Wait chain: cw-browser $victim_pid → cw-renderer $root_pid → cw-browser $victim_pid"* ]]
	# Seconds, not minutes, with both CPUs busy (some 2 s here).
	echo "debug took $(( (t1 - t0) / 1000000 )) ms"
	[ $(( t1 - t0 )) -lt 60000000000 ]
	# The hang's beginning is in what was read.
	debug=$(ls -t "$ring"/debug-*.gz | head -1)
	first=$(argus-cat -k event -p "$root_pid" "$debug" | grep -m1 '^event,' | cut -d, -f2)
	[ -n "$first" ]
	[ "$first" -le "$hang_begin_ns" ]
	# The ring's files, read together, are in time order.
	argus-cat -k event "$ring"/argus-ring-*.csv.gz | grep '^event,' | cut -d, -f2 | sort -c -n
	kill "$scen" 2>/dev/null || true
	run argus --ring "$ring" stop
	[ "$status" -eq 0 ]
	wait "$scen" || true
	[ ! -e "$ring/spill" ]
}

@test "argus: stop reads back no more of the deflated spill than the ring's size, the newest pages, and says what it left out" {
	need_tracing
	ring="$BATS_TEST_TMPDIR/ring"
	spill_start -b 1M --ring-size 32M
	sleep 1
	# Some 27 MiB of pages a CPU, deflated to a few on disk: more than
	# the ring's 32M in all.
	t0=$("$ROOT/test/progs/monotime")
	syscall_flood 300000
	sleep 2
	# How far back the spill's size would reach at the rate it filled.
	run argus --ring "$ring" status
	echo "$output"
	grep -Eq "^ +at this rate the spill's 32M would keep the last [0-9]+ s$" <<<"$output"
	run argus --ring "$ring" stop
	[ "$status" -eq 0 ]
	grep 'spill: ' "$ring/recorder.log"
	grep -Eq 'spill: the oldest [0-9.]+ MiB \(deflated\) left out: more than the ring.s 32 MiB' "$ring/recorder.log"
	# About the ring's size of pages read back (some 40 bytes an event):
	# the newest, whoever's they are, so the oldest, before the flood, are
	# gone.  The ring's files in time order.
	n=$(sed -n 's/.*; \([0-9]*\) spilled events written at the end/\1/p' "$ring/recorder.log")
	[ "$n" -gt 300000 ]
	first=$(argus-cat -k event "$ring"/argus-ring-*.csv.gz | grep -m1 '^event,' | cut -d, -f2)
	[ "$first" -gt "$t0" ]
	argus-cat -k event "$ring"/argus-ring-*.csv.gz | grep '^event,' | cut -d, -f2 | sort -c -n
}

@test "argus: with the spill full of older pages, debug reads back none of them, the related threads' events of the hang all there" {
	need_tracing
	ring="$BATS_TEST_TMPDIR/ring"
	spill_start -b 4M --ring-size 512M
	pid=$(cat "$ring/recorder.pid")
	sleep 1
	# Load first: some 40 MiB of system calls a CPU, to the spill.
	started=$("$ROOT/test/progs/monotime")
	syscall_flood 100000
	loaded=$("$ROOT/test/progs/monotime")
	sleep 2
	before=$(du -sk "$ring/spill" | cut -f1)
	[ "$before" -gt 0 ]
	# Then the hang, in what the kernel's buffers still hold.
	"$ROOT/test/scenarios/circular-wait" -n 3 -H 30 -t truth >/dev/null 3>&- &
	scen=$!
	for i in $(seq 100); do grep -q '^hang_begin_ns=' truth && break; sleep 0.1; done
	sleep 3
	load_ids truth
	run argus --ring "$ring" debug --pid "$victim_pid" --last 60s --auto
	echo "$output"
	kill "$scen" 2>/dev/null || true
	[ "$status" -eq 0 ]
	[[ "$output" == *"Wait chain: cw-browser $victim_pid → cw-renderer $root_pid → cw-browser $victim_pid"* ]]
	# Of the spill, at most what came after the load (the spiller
	# leaves the kernel's buffers half empty): the load's pages stay,
	# but for a block a CPU read back whole.
	if [ -e "$ring/deepened" ]; then
		[[ "$output" == *"read the spill back"* ]]
		[ "$(cut -d' ' -f1 "$ring/deepened")" -ge "$loaded" ]
	fi
	after=$(du -sk "$ring/spill" | cut -f1)
	echo "spill: $before KiB after the load, $after after debug"
	# Counted in the load's events, not the spill's size: deflated, the
	# load is some 700 KiB, less than a busy neighbour spills in the
	# seconds the read back covers.  What the kernel still held of it
	# and a block a CPU read back whole are a tenth or two of it; the
	# whole spill read back would be all.  Its time, as its id may be
	# another process's before or after it (pid_max may be 32768).
	seen=$(dd_events)
	# The graph of the related threads has both, from before the hang.
	debug=$(ls -t "$ring"/debug-*.gz | head -1)
	for p in "$victim_pid" "$root_pid"; do
		first=$(argus-cat -k event -p "$p" "$debug" | grep -m1 '^event,' | cut -d, -f2)
		[ -n "$first" ]
		[ "$first" -le "$hang_begin_ns" ]
	done
	# And after argus flush, the ring holds all of it, in time order.
	argus --ring "$ring" flush
	[ -e "$ring/deepened" ]
	argus-cat -k event "$ring"/argus-ring-*.csv.gz | grep '^event,' | cut -d, -f2 | sort -c -n
	# One dd's 200,000 calls, far more than its CPU's 4 MiB held.
	n=$(dd_events)
	echo "dd ${dds[0]}: $seen events after debug, $n after flush"
	[ "$n" -gt 150000 ]
	[ "$((seen * 3))" -le "$n" ]
	run argus --ring "$ring" stop
	[ "$status" -eq 0 ]
	wait "$scen" || true
}
