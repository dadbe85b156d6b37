#!/usr/bin/env bats
# argus-capture on a live system.  Tests that need tracing skip, saying
# why, where it is unavailable (not root, no tracefs); they never pass
# without having traced.
# test/run: alone, these tests start, kill and reap captures: another
# file's captures starting beside them would reap their killed one's
# instance and refuse marker writes while they resize (EBADF).

load helpers
bats_require_minimum_version 1.5.0

setup_file() {
	export TOP="$BATS_TEST_DIRNAME/../.."
	export CAP="$BIN/argus-capture"
	export HELPER="$TOP/test/progs/capture-helper"
	export ACAT="$BIN/argus-cat"
}

setup() {
	T="$BATS_TEST_TMPDIR"
}

teardown() {
	local f
	# A capture a failed test left running (one with no -d runs until
	# told, and would keep bats waiting on its output), or stopped.
	for f in "$BATS_TEST_TMPDIR"/*.kill; do
		[ -f "$f" ] || continue
		kill -INT "$(cat "$f")" 2>/dev/null || true
		kill -CONT "$(cat "$f")" 2>/dev/null || true
	done
	pub_cleanup
}

# A trace_marker write of $1 into $2, an instance's; the kernel refuses
# one (EBADF) while a buffer is being resized, as when another capture
# starts: try again.
mark() {
	local i to=$2
	for i in $(seq 20); do
		{ echo "$1" > "$to"; } 2>/dev/null && return 0
		sleep 0.1
	done
	echo "$1" > "$to"
}

# The instance a capture with this pid uses.
inst_of() { echo "$TFS/instances/argus-$1"; }

# Value of "KEY VALUE" lines the helper prints.
val() { awk -v k="$1" '$1 == k { print $2 }' "$T/helper.out"; }

@test "capture: --help and a bad option" {
	run "$CAP" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: argus-capture"* ]]
	run "$CAP" --no-such-option
	[ "$status" -eq 64 ]
	run "$CAP" -d banana
	[ "$status" -eq 64 ]
	run "$CAP" --ring "$T/r" --ring-size 1M --ring-files 4
	[ "$status" -eq 64 ]
	[[ "$output" == *"per file"* ]]
}

@test "capture: no tracefs exits 69 and says what is missing" {
	ARGUS_TRACEFS=/nonexistent run "$CAP" -d 1 -o "$T/x.gz"
	[ "$status" -eq 69 ]
	[[ "$output" == *"no tracefs at /nonexistent"* ]]
	[ ! -e "$T/x.gz" ]
}

@test "capture: a pipe wakeup, a sleep, a fork and a marker, with pids, tids and order" {
	need_tracing
	need_prog "$HELPER"
	# The helper writes its marker into its parent's (our) instance.
	run timeout 60 "$CAP" -d 20 -o "$T/t.gz" -- sh -c "exec '$HELPER' > '$T/helper.out'"
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$T/t.gz")" = 600 ]
	gzip -t "$T/t.gz"
	zcat "$T/t.gz" > "$T/t.csv"
	pid=$(val pid); main=$(val main_tid); rd=$(val reader_tid); child=$(val child)
	[ -n "$pid" ]
	[ "$main" = "$pid" ]
	[ -n "$rd" ]
	[ -n "$child" ]

	head -1 "$T/t.csv" | grep -qx 'argus-stream,1'
	grep -qx "meta,[0-9]*,,,clock,mono" "$T/t.csv"
	grep -qx "meta,[0-9]*,,,source,tracefs" "$T/t.csv"
	grep -qx "meta,[0-9]*,,,lost,0" "$T/t.csv"
	# The wall-clock anchor: its first event, in clock time, was now.
	grep -Eqx "meta,[0-9]*,,,wallclock,-?[0-9]+" "$T/t.csv"
	first=$("$ACAT" -W -k event "$T/t.csv" | awk -F, 'NR == 2 { print $2 }')
	[ $(( $(date +%s) - $(date -d "${first%.*}" +%s) )) -lt 120 ]

	# One stream in time order.
	awk -F, '$1 == "event" { if ($2 < p) { print "out of order at " NR; exit 1 } p = $2 }' "$T/t.csv"

	# exec: the shell became the helper, same pid and tid.
	grep -q "^event,[0-9]*,$pid,$pid,,[0-9]*,exec,-,.*capture-helper,$pid\$" "$T/t.csv"

	# The reader thread: its fork (a thread: same pid), then blocked in
	# read(2), woken by the main thread's write, running again (a read's
	# exit is not recorded: no rule reads it).  Running again is a switch
	# into it, or its own next event: some kernels leave out switches
	# (a VM's that never reports one out of its second CPU's idle task).
	n_fork=$(grep -n "^event,[0-9]*,$pid,$main,,[0-9]*,fork,-,$pid,$rd,0x[0-9a-f]*,capture-helper\$" "$T/t.csv" | head -1 | cut -d: -f1)
	n_rd=$(grep -n "^event,[0-9]*,$pid,$rd,,[0-9]*,sys_enter,-,[0-9]*,read," "$T/t.csv" | head -1 | cut -d: -f1)
	n_blk=$(awk -F, -v p="$pid" -v t="$rd" -v from="$n_rd" 'NR > from && $1 == "event" && $3 == p && $4 == t && $7 == "switch" && $9 == "S" { print NR; exit }' "$T/t.csv")
	n_wr=$(grep -n "^event,[0-9]*,$pid,$main,,[0-9]*,sys_enter,-,[0-9]*,write,0x[0-9a-f]*,0x[0-9a-f]*,0x1\$" "$T/t.csv" | head -1 | cut -d: -f1)
	n_wake=$(grep -n "^event,[0-9]*,$pid,$main,,[0-9]*,waking,-,$pid,$rd,[0-9]*,capture-helper,[-0-9]*\$" "$T/t.csv" | head -1 | cut -d: -f1)
	n_ret=$(awk -F, -v p="$pid" -v t="$rd" -v from="$n_wake" 'NR > from && $1 == "event" && (($7 == "switch" && $10 == p && $11 == t) || ($4 == t && $8 == "-")) { print NR; exit }' "$T/t.csv")
	echo "fork $n_fork read $n_rd blocked $n_blk write $n_wr waking $n_wake return $n_ret"
	# Should the reader's return be missing: what the trace says of
	# events lost, and of the reader's thread after its wake-up.
	if [ -z "$n_ret" ]; then
		echo "lost records: $(grep -c '^lost,' "$T/t.csv")"
		awk -F, -v p="$pid" -v t="$rd" -v from="$n_wake" 'NR > from &&
		    ($4 == t || $11 == t || $10 == t) { print NR ": " $0; if (++n == 8) exit }' "$T/t.csv"
		tail -3 "$T/t.csv"
	fi
	[ -n "$n_fork" ]
	[ -n "$n_rd" ]
	[ -n "$n_blk" ]
	[ -n "$n_wr" ]
	[ -n "$n_wake" ]
	[ -n "$n_ret" ]
	[ "$n_fork" -lt "$n_rd" ]
	[ "$n_rd" -lt "$n_blk" ]
	[ "$n_blk" -lt "$n_wr" ]
	[ "$n_wr" -lt "$n_wake" ]
	[ "$n_wake" -lt "$n_ret" ]

	# The timed sleep (100 ms): enter, a wakeup from interrupt context
	# (the hrtimer), the thread back on a CPU between 90 ms and 1 s after
	# (its exit is not recorded).
	awk -F, -v p="$pid" -v t="$main" '
	    $1 != "event" { next }
	    $3 == p && $4 == t && $7 == "sys_enter" && $10 == "clock_nanosleep" { s = $2; w = 0 }
	    s && $7 == "waking" && $8 ~ /^[hs]$/ && $9 == p && $10 == t { w = 1 }
	    s && w && (($7 == "switch" && $10 == p && $11 == t) || ($4 == t && $8 == "-")) {
		d = $2 - s; s = 0
		if (d >= 90e6 && d < 1e9) ok = 1
	    }
	    END { exit !ok }' "$T/t.csv"
	! grep -q ",sys_exit,-,[0-9]*,clock_nanosleep," "$T/t.csv" || false

	# The fork: a process of its own, woken new, exiting.
	grep -q "^event,[0-9]*,$pid,$main,,[0-9]*,fork,-,$child,$child,0x[0-9a-f]*,capture-helper\$" "$T/t.csv"
	grep -q "^event,[0-9]*,$pid,$main,,[0-9]*,wakeup_new,-,$child,$child,[0-9]*,capture-helper,[-0-9]*\$" "$T/t.csv"
	grep -q "^event,[0-9]*,$child,$child,,[0-9]*,exit,-,capture-helper,1\$" "$T/t.csv"

	# The marker, quoted as RFC 4180 wants, from the main thread.
	grep -qF "$pid,$main," "$T/t.csv"
	grep -q "^event,[0-9]*,$pid,$main,,[0-9]*,marker,-,\"argus-test marker $pid, \"\"quoted\"\"\"\$" "$T/t.csv"

	# Every thread is introduced by a task record before its first event.
	awk -F, '$1 == "task" { seen[$4] = 1 }
	    $1 == "event" && $4 > 0 && !seen[$4] { print "no task record before line " NR; bad = 1 }
	    END { exit bad }' "$T/t.csv"
	# ... and says where its process runs: its cgroup v2 path, ours.
	cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
	grep -qF "$pid,$rd,capture-helper,$cg" "$T/t.csv"

	# argus-cat reads it back (when it is built).
	if [ -x "$ACAT" ]; then
		run "$ACAT" "$T/t.gz"
		[ "$status" -eq 0 ]
		[[ "$output" == *",marker,-,"* ]]
	fi
}

@test "capture: a read's and a sleep's exits are left off, but a read's that failed with EAGAIN; a futex's and a connect's kept; a write still links to the read it wakes" {
	need_tracing
	need_prog "$HELPER"
	need_prog "$TOP/test/progs/pthread-wake"
	need_prog bash
	# connect(2) to a loopback port nobody listens on: refused, at once.
	# A read with nothing there, non-blocking: EAGAIN (the FIFO's writer
	# is the shell, which holds both ends).
	mkfifo "$T/fifo"
	run timeout 60 "$CAP" -d 30 -o "$T/t.gz" -- bash -c "
	    '$HELPER' > '$T/helper.out'
	    '$TOP/test/progs/pthread-wake' > '$T/pw.out'
	    exec 5<>'$T/fifo'
	    dd if='$T/fifo' iflag=nonblock count=1 of=/dev/null 2>/dev/null &
	    echo \$! > '$T/dd.out'
	    wait
	    echo connect \$\$ > '$T/bash.out'
	    exec 3<>/dev/tcp/127.0.0.1/1" 2>/dev/null
	zcat "$T/t.gz" > "$T/t.csv"
	pid=$(val pid); main=$(val main_tid); rd=$(val reader_tid)
	sh=$(awk '{ print $2 }' "$T/bash.out")
	grep "^meta,[0-9]*,,,lost," "$T/t.csv" || true
	[ -n "$pid" ]
	[ -n "$rd" ]
	[ -n "$sh" ]
	# Entries of reads and sleeps, no exits: no rule reads them; but a
	# read's that failed with EAGAIN (a busy loop's try).
	grep -q "^event,[0-9]*,$pid,$rd,,[0-9]*,sys_enter,-,[0-9]*,read," "$T/t.csv"
	grep -q ",sys_enter,-,[0-9]*,clock_nanosleep," "$T/t.csv"
	! grep -v ',-11$' "$T/t.csv" | grep -Eq ",sys_exit,-,[0-9]+,(read|write|clock_nanosleep)," || false
	dd=$(cat "$T/dd.out")
	grep -Eq "^event,[0-9]*,$dd,$dd,,[0-9]*,sys_exit,-,[0-9]+,read,-11\$" "$T/t.csv"
	# The futex waits' exits (the lock rule ends a wait there), and the
	# refused connect's.
	grep -q ",sys_exit,-,[0-9]*,futex," "$T/t.csv"
	grep -Eq "^event,[0-9]*,$sh,$sh,,[0-9]*,sys_exit,-,[0-9]+,connect,-111\$" "$T/t.csv"
	# The main thread's write wakes the reader blocked in read: a message.
	"$BIN/argus-segment" -q "$T/t.csv" | "$BIN/argus-link" -q -Z > "$T/g.csv"
	awk -F, -v p="$pid" -v r="$rd" -v m="$main" '$1 == "link" &&
	    $3 == p && $4 == r && $8 == "message" && $11 == m { f = 1 }
	    END { exit !f }' "$T/g.csv"
}

@test "capture: SIGINT and SIGTERM leave no instance behind and a finished file" {
	need_tracing
	for sig in INT TERM; do
		"$CAP" -d 60 -o "$T/s.gz" &
		cpid=$!
		wait_capture "$cpid"
		sleep 0.5
		kill -"$sig" "$cpid"
		rc=0; wait "$cpid" || rc=$?
		[ "$rc" -eq 0 ]
		[ ! -e "$(inst_of "$cpid")" ]
		gzip -t "$T/s.gz"
		zcat "$T/s.gz" | grep -q '^meta,[0-9]*,,,end,'
	done
}

@test "capture: SIGKILL leaves nothing under -o's name, the trace to its last flush beside it; the next run reaps the instance" {
	need_tracing
	"$CAP" -d 60 -o "$T/k.gz" &
	cpid=$!
	wait_capture "$cpid"
	# The formatter runs at idle priority and flushes once a second of its
	# own running: beside CPU hogs its first flush comes seconds late.
	# Kill after it, whenever it comes (30 s at most).
	n=0
	for i in $(seq 60); do
		sleep 0.5
		part=$(echo "$T"/k.gz.??????)
		[ -f "$part" ] || continue
		n=$(zcat "$part" 2>/dev/null | grep -c '^event,' || true)
		[ "$n" -gt 0 ] && break
	done
	kill -KILL "$cpid"
	wait "$cpid" || true
	echo "events flushed before the kill: $n, after $i half-seconds"
	[ -d "$(inst_of "$cpid")" ]
	[ ! -e "$T/k.gz" ]
	# Whole gzip members up to the last flush, whatever follows them, in
	# the temporary the capture wrote: k.gz.XXXXXX.
	[ -f "$part" ]
	[ "$(stat -c %a "$part")" = 600 ]
	m=$(zcat "$part" 2>/dev/null | grep -c '^event,' || true)
	echo "events after the kill: $m"
	[ "$n" -gt 0 ]
	[ "$m" -ge "$n" ]
	# A stranger's instance with our prefix but not our name stays.
	mkdir "$TFS/instances/argus-keep-me"
	run timeout 30 "$CAP" -d 0.2 -Z -o "$T/reap.csv"
	rmdir "$TFS/instances/argus-keep-me"
	[ "$status" -eq 0 ]
	[ ! -e "$(inst_of "$cpid")" ]
	# Any capture reaps: on a shared machine another may have come first.
	[[ "$output" == *"removed instance argus-$cpid"* ]] ||
	    skip "another capture on this machine removed the instance first"
}

@test "capture: a command that cannot run exits 127 or 126, saying why, and writes nothing" {
	need_tracing
	run -127 "$CAP" -d 10 -o "$T/c.gz" -- /nonexistent
	[ "$status" -eq 127 ]
	[[ "$output" == *"argus-capture: /nonexistent: No such file or directory"* ]]
	[ ! -e "$T/c.gz" ]
	printf '#!/bin/sh\n' >"$T/noexec"
	chmod 644 "$T/noexec"
	run -126 "$CAP" -d 10 -o "$T/c.gz" -- "$T/noexec"
	[ "$status" -eq 126 ]
	[[ "$output" == *"noexec: Permission denied"* ]]
	[ "$(ls -A "$T" | grep -c '^c\.gz')" = 0 ]
	# One that runs and fails: the capture is whole, the status in it.
	run "$CAP" -d 10 -o "$T/c.gz" -- sh -c 'exit 127'
	[ "$status" -eq 0 ]
	[[ "$output" == *"sh exited with status 127"* ]]
	zcat "$T/c.gz" | grep -qx 'meta,[0-9]*,,,command_status,127'
}

@test "capture: --ring refuses a directory not its user's alone, before tracing" {
	need_nobody
	pub_dir
	echo "root's own" >"$T/victim"
	# The attacker prepares the ring, with a link under a predictable name.
	as_nobody mkdir "$PUB/ring"
	as_nobody ln -s "$T/victim" "$PUB/ring/argus-ring-000000.csv.gz"
	run "$CAP" --ring "$PUB/ring" -d 1
	[ "$status" -eq 77 ]
	[[ "$output" == *"$PUB/ring: owned by uid $(id -u nobody), not by you (uid 0): not using it"* ]]
	[ "$(cat "$T/victim")" = "root's own" ]
	# A link to a directory of root's, and root's own but group-writable.
	mkdir -m 700 "$T/real"
	as_nobody ln -s "$T/real" "$PUB/link"
	run "$CAP" --ring "$PUB/link" -d 1
	[ "$status" -eq 77 ]
	[[ "$output" == *"a symbolic link"* ]]
	[ -z "$(ls -A "$T/real")" ]
	mkdir "$T/gw"
	chmod 775 "$T/gw"
	run "$CAP" --ring "$T/gw" -d 1
	[ "$status" -eq 77 ]
	[[ "$output" == *"writable by others (mode 775)"* ]]
	[ -z "$(ls -A "$T/gw")" ]
}

@test "capture: a ring never grows past its size" {
	need_tracing
	need_prog "$HELPER"
	size=$((6 * 1024 * 1024))
	"$CAP" --ring "$T/ring" --ring-size 6M --ring-files 3 --syscalls all -d 12 \
	    -- "$HELPER" load 10 > /dev/null &
	cpid=$!
	max=0
	while kill -0 "$cpid" 2>/dev/null; do
		used=$(find "$T/ring" -type f -printf '%s\n' 2>/dev/null | awk '{s += $1} END {print s+0}')
		[ "$used" -gt "$max" ] && max=$used
		sleep 0.1
	done
	wait "$cpid"
	used=$(find "$T/ring" -type f -printf '%s\n' | awk '{s += $1} END {print s+0}')
	echo "largest seen $max, at the end $used, limit $size"
	ls -l "$T/ring"
	[ "$max" -le "$size" ]
	[ "$used" -le "$size" ]
	# Created private, its files too.
	[ "$(stat -c %a "$T/ring")" = 700 ]
	[ -z "$(find "$T/ring" -type f ! -perm 600)" ]
	# It wrapped: the oldest files are gone, at most 3 remain, each with
	# its relation index, which goes with it.
	[ ! -e "$T/ring/argus-ring-000000.csv.gz" ]
	[ ! -e "$T/ring/argus-rel-000000.csv.gz" ]
	[ "$(ls "$T"/ring/argus-ring-* | wc -l)" -le 3 ]
	[ "$(ls "$T/ring" | grep '^argus-' | sed 's/^argus-ring-//; s/^argus-rel-//' | sort | uniq -c |
	    awk '$1 != 2' | wc -l)" -eq 0 ]
	# Every file stands alone (header, meta, its threads introduced), in
	# time order.
	for f in "$T"/ring/*.csv.gz; do
		zcat "$f" | head -1 | grep -qx 'argus-stream,1'
		zcat "$f" | grep -q '^meta,[0-9]*,,,clock,mono$'
		# Every thread of its events introduced before them (a last
		# file begun just before the stop may hold none).
		zcat "$f" | awk -F, '$1 == "task" { seen[$4] = 1 }
		    $1 == "event" && $4 > 0 && !($4 in seen) {
		        print FILENAME ": thread " $4 " not introduced"; exit 1 }'
		zcat "$f" | awk -F, '$1 == "event" { if ($2 < p) { print FILENAME ": out of order at " NR; exit 1 } p = $2 }'
	done
	# Each names the kernel functions its events carry, before them: an
	# address named in one file is named in every file that holds it.
	zcat "$T"/ring/argus-ring-*.csv.gz | awk -F, '$1 == "ksym" { print $5 }' | sort -u >"$T/named"
	[ -s "$T/named" ] || skip "no kernel function named: /proc/kallsyms hidden"
	for f in "$T"/ring/argus-ring-*.csv.gz; do
		zcat "$f" | awk -F, -v f="$f" 'NR == FNR { known[$1] = 1; next }
		    $1 == "ksym" { here[$5] = 1 }
		    $1 == "event" && $7 ~ /^(hrtimer_start|hrtimer_expire_entry|timer_start|timer_expire_entry|wq_queue|wq_start|wq_end)$/ &&
		    ($10 in known) && !($10 in here) { print f ": " $10 " unnamed at " FNR; bad = 1; exit }
		    END { exit bad }' "$T/named" -
	done
}

@test "capture: --defer leaves the events in the kernel until SIGUSR1, then writes them and says so" {
	need_tracing
	run "$CAP" --defer --stacks 1 -o "$T/x.gz"
	[ "$status" -eq 64 ]
	# 64 MiB a CPU: the whole system records into it meanwhile, and a
	# loaded machine overwrote 8 MiB, the first marker with it, in 1.5 s.
	# No bridge: its events, written out once the buffers are grown,
	# would be an answer before any request.
	ARGUS_CAPTURE_NO_BRIDGE=1 "$CAP" --defer --ring "$T/ring" -b 64M 2>"$T/err" &
	cpid=$!
	echo "$cpid" >"$T/cap.kill"
	inst=$(inst_of "$cpid")
	# Tracing, not only made: a marker before is refused (EBADF).
	wait_capture "$cpid"
	[ "$(cat "$inst/options/overwrite")" = 1 ]
	echo first >"$inst/trace_marker"
	sleep 1.5
	# Not read: the files hold the preamble only, and nobody was answered.
	! zcat "$T"/ring/*.csv.gz | grep -q '^event,' || false
	[ ! -e "$T/ring/served" ]
	kill -USR1 "$cpid"
	for i in $(seq 100); do [ -e "$T/ring/served" ] && break; sleep 0.05; done
	[ -e "$T/ring/served" ]
	zcat "$T"/ring/*.csv.gz | grep -q ',marker,-,first$'
	echo second >"$inst/trace_marker"
	kill -INT "$cpid"
	wait "$cpid"
	rm -f "$T/cap.kill"	# ended: its pid may be anyone's now
	# And what came after, at the end; each event once.
	zcat "$T"/ring/*.csv.gz | grep -q ',marker,-,second$'
	[ "$(zcat "$T"/ring/*.csv.gz | grep -c ',marker,-,first$')" -eq 1 ]
	[ ! -e "$inst" ]
	[ "$(stat -c %a "$T/ring/served")" = 600 ]
}

@test "capture: two captures at once do not disturb each other" {
	need_tracing
	# Both until told: on a busy machine any fixed duration may run out
	# before the steps below are done.
	"$CAP" -d 120 -o "$T/a.gz" &
	a=$!
	wait_capture "$a"
	"$CAP" -d 60 -o "$T/b.gz" &
	b=$!
	wait_capture "$b"
	# Each into its own instance: the machine's top-level buffer is not
	# ours to write, and another suite's tracing may have it off (EBADF).
	mark "argus-test both" "$(inst_of "$a")/trace_marker"
	mark "argus-test both" "$(inst_of "$b")/trace_marker"
	sleep 0.5
	kill -INT "$b"
	wait "$b"
	[ ! -e "$(inst_of "$b")" ]
	# a still traces after b is gone.
	[ "$(cat "$(inst_of "$a")/tracing_on")" = 1 ]
	mark "argus-test only-a" "$(inst_of "$a")/trace_marker"
	sleep 0.5
	kill -INT "$a"
	wait "$a"
	[ ! -e "$(inst_of "$a")" ]
	zcat "$T/a.gz" | grep -q ',marker,-,argus-test both$'
	zcat "$T/a.gz" | grep -q ',marker,-,argus-test only-a$'
	zcat "$T/b.gz" | grep -q ',marker,-,argus-test both$'
	[ "$(zcat "$T/b.gz" | grep -c 'only-a')" = 0 ]
	zcat "$T/a.gz" | grep -qx 'meta,[0-9]*,,,lost,0'
	zcat "$T/b.gz" | grep -qx 'meta,[0-9]*,,,lost,0'
}

@test "capture: --pid keeps that process's events and those aimed at it" {
	need_tracing
	sleep 30 &
	sp=$!
	"$CAP" -p "$sp" -d 1.5 -o "$T/p.gz" &
	cpid=$!
	wait_capture "$cpid"
	kill "$sp"
	wait "$cpid"
	zcat "$T/p.gz" > "$T/p.csv"
	grep -q "^event,[0-9]*,$sp,$sp,,[0-9]*,signal_deliver," "$T/p.csv" ||
	    grep -q ",signal_generate,.*,$sp,$sp,sleep," "$T/p.csv"
	grep -q "^event,[0-9]*,$sp,$sp,,[0-9]*,exit,-,sleep," "$T/p.csv"
	# Nothing unrelated: each event names the process somewhere.
	[ "$(grep '^event,' "$T/p.csv" | grep -vc ",$sp,")" = 0 ]
}

# A thread's process is learnt from the /proc snapshot at the start, from
# its traced fork, or from /proc when its first event is written.  Here the
# capture is held back (SIGSTOP) while a thread is born, buries its fork
# under markers until the kernel buffer overwrites it, and exits: when the
# capture reads again, nothing tells it the thread's process.
@test "capture: a thread gone before the capture learnt its process: PID empty, every stage reads it" {
	need_tracing
	need_prog "$HELPER"
	local i hpid otid t
	mkfifo "$T/go"
	# Buffers that the helper's 16 MiB of markers overwrite, forgetting
	# the fork, but that what else the machine does while the capture is
	# stopped (the files that trace nothing run beside this one) does not
	# fill again before the capture reads the orphan's last markers.
	"$CAP" -b 2M -Z -o "$T/o.csv" 2>"$T/cap.err" &
	cpid=$!
	echo "$cpid" >"$BATS_TEST_TMPDIR/orphan.kill"
	wait_capture "$cpid"
	"$HELPER" orphan "$(inst_of "$cpid")/trace_marker" <"$T/go" \
	    >"$T/helper.out" 2>&1 &
	hpid=$!
	exec 5>"$T/go"
	for i in $(seq 100); do [ -n "$(val pid)" ] && break; sleep 0.1; done
	kill -STOP "$cpid"
	for i in $(seq 100); do
		! grep -qv '^[0-9]* (.*) T ' /proc/"$cpid"/task/*/stat && break
		sleep 0.05
	done
	echo go >&5
	for i in $(seq 200); do
		[ -n "$(val orphan_tid)" ] && break
		sleep 0.05
	done
	kill -CONT "$cpid"
	otid=$(val orphan_tid)
	sleep 1
	kill -INT "$cpid"
	wait "$cpid"
	rm -f "$BATS_TEST_TMPDIR/orphan.kill"	# ended: its pid may be anyone's now
	exec 5>&-
	wait "$hpid"
	cat "$T/helper.out"
	[ -n "$otid" ]
	# Should the checks fail: what the capture kept of the orphan.
	grep ",$otid," "$T/o.csv" | cut -c1-100 | sed -n '1,4p;$p' || true
	grep '^meta,[0-9]*,,,lost,' "$T/o.csv" || true
	# Its own events and the switches to it: the process is left empty.
	grep -q "^event,[0-9]*,,$otid,,[0-9]*,marker,-,mmm" "$T/o.csv"
	grep -q "^event,[0-9]*,[0-9]*,[0-9]*,,[0-9]*,switch,-,[A-Z+]*,,$otid," "$T/o.csv"
	# Every stage takes it; the thread's vertex keeps its process unknown.
	t=$(grep -m 1 "^event,[0-9]*,,$otid," "$T/o.csv" | cut -d, -f2)
	argus-segment -qZ "$T/o.csv" | argus-link -qZ > "$T/g.csv"
	grep -q "^vertex,[0-9]*,,$otid," "$T/g.csv"
	run argus-spin -qZ --tid "$otid" --at "$t" -o "$T/s.csv" "$T/g.csv"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "^spin,[0-9]*,,$otid," "$T/s.csv"
	# Whether a cause beyond the thread is found depends on the machine's
	# load (exit 0 or 1); reading it whole, PID and all, does not.
	argus-similar -qZ "$T/s.csv" >"$T/b.csv"
	run argus-slice -qZ --auto -o "$T/d.csv" "$T/b.csv"
	echo "$output"
	[ "$status" -eq 0 ] || [ "$status" -eq 1 ]
	grep -q "^root,[0-9]*,,$otid," "$T/d.csv"
}

# The kernel's text symbols, "0xADDRESS NAME" (a module's "NAME [MODULE]"),
# as the capture writes addresses: without leading zeros.
kallsyms() {
	awk '$2 ~ /^[tTwW]$/ { a = $1; sub(/^0+/, "", a); n = $3
	    if (NF > 3) n = n " " $4; print "0x" a, n }' /proc/kallsyms
}

@test "capture: kernel functions are named as /proc/kallsyms names them, in the records and argus-link's labels" {
	need_tracing
	kallsyms | awk '$2 == "hrtimer_wakeup" && $1 != "0x" { f = 1 } END { exit !f }' ||
	    skip "/proc/kallsyms hides its addresses (kernel.kptr_restrict) or lacks hrtimer_wakeup"
	addr=$(kallsyms | awk '$2 == "hrtimer_wakeup" { print $1; exit }')
	# nanosleep arms a timer whose function, hrtimer_wakeup, ends it.
	timeout 60 "$CAP" -Z -o "$T/t.csv" -- sleep 0.3 2>"$T/err"
	cat "$T/err"
	pid=$(awk -F, '$1 == "meta" && $5 == "command_pid" { print $6 }' "$T/t.csv")
	[ -n "$pid" ]
	# Its timer's arming, its function named once, before it.
	grep -q "^event,[0-9]*,$pid,$pid,,[0-9]*,hrtimer_start,-,0x[0-9a-f]*,$addr," "$T/t.csv"
	[ "$(grep -c "^ksym,,,,$addr,hrtimer_wakeup\$" "$T/t.csv")" -eq 1 ]
	awk -F, -v a="$addr" '$1 == "ksym" && $5 == a { named = 1 }
	    $1 == "event" && $10 == a { exit !named }' "$T/t.csv"
	# Every name is the one /proc/kallsyms gives its address, or inside it.
	kallsyms >"$T/kallsyms"
	awk -F, '$1 == "ksym" { print $5, $6 }' "$T/t.csv" >"$T/ksyms"
	[ "$(wc -l <"$T/ksyms")" -ge 2 ]
	awk 'NR == FNR { s[$1] = substr($0, length($1) + 2); next }
	    !($1 in s) && $2 !~ /\+0x[0-9a-f]+$/ || ($1 in s) && s[$1] != substr($0, length($1) + 2) {
		print "named otherwise: " $0; bad = 1 }
	    END { exit bad }' "$T/kallsyms" "$T/ksyms"
	# What a person reads: argus-cat -y, and the link the timer made.
	argus-cat -y -k event -p "$pid" "$T/t.csv" | grep -q ",hrtimer_start,-,0x[0-9a-f]*,hrtimer_wakeup,"
	argus-segment -qZ "$T/t.csv" | argus-link -qZ >"$T/g.csv"
	grep -q "^link,[0-9]*,$pid,$pid,[0-9]*,[0-9]*,strong,timeout,[0-9]*,$pid,$pid,hrtimer_wakeup\$" "$T/g.csv"
}

@test "capture: --spill takes only a directory of the caller's alone, never through a link, and only with --defer" {
	need_root
	run "$CAP" --spill "$T/sp" -o "$T/x.gz" -d 1
	[ "$status" -eq 64 ]
	[[ "$output" == *"--spill: only with --defer"* ]]
	[ ! -e "$T/sp" ]
	mkdir -m 700 "$T/target"
	ln -s "$T/target" "$T/link"
	run "$CAP" --defer --ring "$T/r1" --spill "$T/link" -b 4M -d 1
	[ "$status" -eq 77 ]
	[[ "$output" == *"$T/link: a symbolic link, not a directory of yours"* ]]
	[ -z "$(ls -A "$T/target")" ]
	mkdir -m 777 "$T/open"
	chmod 777 "$T/open"
	run "$CAP" --defer --ring "$T/r2" --spill "$T/open" -b 4M -d 1
	[ "$status" -eq 77 ]
	[[ "$output" == *"$T/open: writable by others (mode 777)"* ]]
	[ -z "$(ls -A "$T/open")" ]
}

# A flood of system calls on CPU 0 (flooding) into 256 KiB buffers, while
# the capture CAP... runs; its output read as t.csv.  Skips where the
# capture kept up, as nothing then was lost to check.
flooded() {
	local y
	ln -sf "$(command -v yes)" flood
	taskset -c 0 ./flood >/dev/null &
	y=$!
	"$@" 2>cap.err || { kill "$y"; cat cap.err; return 1; }
	kill "$y"
	wait "$y" 2>/dev/null || true
}

# Every loss of t.csv counted once (its meta lost, the total), each said
# at the first event of its CPU after it (a task record may come between)
# but what no page said, at the end: at most one a CPU; and in time order.
# A loss said there follows a gap in its CPU's events that could hold it,
# at 50 M events a second: said past the gap, it would follow an event of
# the page before by a microsecond.
lost_placed() {
	local total
	total=$(grep '^meta,[0-9]*,,,lost,' t.csv | cut -d, -f6)
	[ "${total:-0}" -gt 0 ] || skip "the capture kept up with the flood: nothing lost to check"
	awk -F, -v t="$total" '$1 == "lost" { n += $6 } END {
	    if (n != t) { print "lost records say " n ", the total " t; exit 1 } }' t.csv
	awk -F, '$1 == "lost" { pend = $2 "," $5; at = $2; next }
	    pend != "" && $1 == "event" && $2 "," $6 == pend { placed++; pend = ""; next }
	    pend != "" && $1 == "event" && $2 > at { unplaced++; pend = "" }
	    END { if (pend != "") unplaced++
		print placed + 0 " placed, " unplaced + 0 " not"
		if (placed == 0 || unplaced > 2) exit 1 }' t.csv
	awk -F, '$1 == "event" || $1 == "lost" { if ($2 < p) { print "out of order at " NR; exit 1 } p = $2 }' t.csv
	# No page read twice, from the kernel and from the spill.
	awk '/^event,/ && seen[$0]++ { print "twice: " NR ": " $0; bad = 1 } END { exit bad }' t.csv
	# A loss said too soon shows its CPU's events around it, each with its
	# line: which of them the gap misses, and whether one came twice.
	awk -F, '$1 == "event" { last[$6] = $2; seen[$6, n[$6]++ % 6] = NR ": " $0
		if (show[$6] > 0 && show[$6]--) print "  after: " NR ": " $0; next }
	    $1 == "lost" && ($5 in last) && $6 >= 10000 && $2 - last[$5] < $6 * 20 {
		print "cpu" $5 ": " $6 " lost said at " $2 ", " $2 - last[$5] " ns after its event before"; bad++
		for (i = n[$5] - 6; i < n[$5]; i++) if (i >= 0) print "  before: " seen[$5, i % 6]
		print "  the loss: " NR ": " $0; show[$5] = 3 }
	    END { exit bad > 0 }' t.csv
}

@test "capture: events the kernel lost are said where it lost them, at the first event of their CPU after them" {
	need_tracing
	need_prog taskset
	cd "$T"
	flooded "$CAP" -b 256K -d 2 -Z -o t.csv
	lost_placed
}

@test "capture: --defer says what the kernel wrote over at the first event a request reads of its CPU, not at the request" {
	need_tracing
	need_prog taskset
	cd "$T"
	# A request a second in, then the end: each reads the kernel's
	# buffers, of which the flood wrote over all but the newest.
	( sleep 1; pkill -USR1 -P $$ -x argus-capture ) &
	ARGUS_CAPTURE_NO_BRIDGE=1 flooded "$CAP" --defer --ring ring -b 256K -d 2
	wait
	ls ring
	[ -e ring/served ]
	"$ACAT" -Z ring/argus-ring-*.csv.gz >t.csv
	lost_placed
}

@test "capture: --defer --spill says what the kernel lost before a spilled page at its first event, as the spill is read back" {
	need_tracing
	need_prog taskset
	[ -x "$ROOT/test/progs/burn" ] || skip "test/progs/burn not built"
	cd "$T"
	# The spiller at idle priority (the default), CPU 1 kept busy: it
	# takes pages now and then, and the kernel writes over the flood's
	# in between, marking the page after each loss.
	taskset -c 1 "$ROOT/test/progs/burn" -j 1 sleep 4 2>/dev/null &
	b=$!
	ARGUS_CAPTURE_NO_BRIDGE=1 flooded "$CAP" --defer --ring ring --spill sp -b 256K -d 2
	wait "$b"
	cat cap.err
	grep -q 'spill: [0-9.]* MiB spilled' cap.err
	grep -q 'spill: 0.0 MiB spilled' cap.err && skip "the spiller got no CPU: nothing spilled"
	"$ACAT" -Z ring/argus-ring-*.csv.gz >t.csv
	lost_placed
	# Where the spill took pages after a loss: not all of CPU 0's said
	# at once, after the spill's events.
	[ "$(grep -c '^lost,[0-9]*,,,0,' t.csv)" -gt 1 ]
}
