#!/usr/bin/env bats
# End to end: each hang scenario (test/scenarios/) captured system-wide,
# with whatever else the machine is doing, then segmented, linked and
# diagnosed with a scripted answer file; the root cause found is checked
# against the scenario's own ground truth.  Twice: on a capture that ends
# after the hang, and on one cut while the hang is still in progress, the
# way a user meets it.

load helpers

SCENARIOS="circular-wait long-cpu flag-poll server-loop mutex-contention io-timer"

# capture SCENARIO MODE: $D/SCENARIO-MODE.{gz,truth}
capture() {
	local s=$1 m=$2 base="$D/$1-$2" cap scen i
	if [ "$m" = over ]; then
		timeout 60 argus-capture -o "$base.gz" -- \
		    "$ROOT/test/scenarios/$s" -n 5 -H 2 -t "$base.truth" \
		    >/dev/null 2>"$base.err"
		return
	fi
	argus-capture -o "$base.gz" 2>"$base.err" 3>&- &
	cap=$!
	wait_capture "$cap"
	"$ROOT/test/scenarios/$s" -n 5 -H 4 -t "$base.truth" >/dev/null 3>&- &
	scen=$!
	for i in $(seq 100); do
		grep -q '^hang_begin_ns=' "$base.truth" 2>/dev/null && break
		sleep 0.1
	done
	sleep 1.5
	kill -INT "$cap"
	wait "$cap"
	wait "$scen" || true
}

# diagnose SCENARIO MODE ANSWERS...: the diagnosis as records in $D/...csv
diagnose() {
	local base="$D/$1-$2" rc
	shift 2
	printf '%s\n' "$@" >"$base.answers"
	load_ids "$base.truth"
	argus-segment -q "$base.gz" | argus-link -q |
	    argus-spin -q --pid "$victim_pid" --tid "$victim_tid" --threshold 1s |
	    argus-similar -q |
	    argus-slice --threshold 1s --answers "$base.answers" -Z \
	    >"$base.csv" 2>"$base.report" && rc=0 || rc=$?
	echo "$rc" >"$base.status"
}

setup_file() {
	export D="$BATS_FILE_TMPDIR"
	[ "$(id -u)" = 0 ] || return 0
	timeout 20 argus-capture -d 0.1 -o /dev/null >/dev/null 2>&1 || return 0
	for s in $SCENARIOS; do
		capture "$s" over
		capture "$s" live
	done
}

# The root records that are not the victim, as "KIND TID".
culprits() { awk -F, '$1 == "root" && $6 != "victim" { print $6, $4 }' "$D/$1-$2.csv"; }
spin_of() { awk -F, '$1 == "spin" { print $6, $11 }' "$D/$1-$2.csv"; }

check_culprit() {	# scenario mode
	load_ids "$D/$1-$2.truth"
	[ "$(cat "$D/$1-$2.status")" = 0 ] || { cat "$D/$1-$2.report"; return 1; }
	culprits "$1" "$2" | grep -Eq "^(culprit|root) $root_tid\$" || {
		cat "$D/$1-$2.report"; return 1; }
}

@test "diagnose: circular wait (Chromium), hang over: the renderer, and the cycle" {
	need_tracing
	diagnose circular-wait over comm=cw-renderer rest=auto
	spin_of circular-wait over | grep -q '^LongWait timeout$'
	check_culprit circular-wait over
	culprits circular-wait over | grep -q '^cycle '
}

@test "diagnose: circular wait (Chromium), hang in progress" {
	need_tracing
	diagnose circular-wait live comm=cw-renderer rest=auto
	spin_of circular-wait live | grep -q '^LongWait open$'
	check_culprit circular-wait live
}

@test "diagnose: long CPU work (editors): LongRunning, sliced back to the request" {
	need_tracing
	for m in over live; do
		diagnose long-cpu $m rest=auto
		load_ids "$D/long-cpu-$m.truth"
		spin_of long-cpu $m | grep -q '^LongRunning '
		# The root is the work itself, and the slice reaches its input.
		awk -F, -v t="$victim_tid" '$1 == "root" && $4 == t && $6 == "root"' \
		    "$D/long-cpu-$m.csv" | grep -q .
	done
	for m in over live; do
		load_ids "$D/long-cpu-$m.truth"
		awk -F, -v p="$trigger_pid" '$1 == "step" && $3 == p' \
		    "$D/long-cpu-$m.csv" | grep -q .
	done
}

@test "diagnose: polling a flag (System Preferences): RepeatedYield, asks for the flag" {
	need_tracing
	for m in over live; do
		diagnose flag-poll $m rest=auto
		spin_of flag-poll $m | grep -q '^RepeatedYield '
		grep -q 'data flag' "$D/flag-poll-$m.report"
		# No flag traced: nothing found, and the exit says so.
		[ "$(cat "$D/flag-poll-$m.status")" = 1 ]
	done
}

@test "diagnose: server loop (fontd): the server busy with another client" {
	need_tracing
	for m in over live; do
		diagnose server-loop $m comm=sl-fontd rest=auto
		spin_of server-loop $m | grep -q '^LongWait '
		check_culprit server-loop $m
	done
}

@test "diagnose: mutex contention (Installer): the worker that holds the lock" {
	need_tracing
	for m in over live; do
		diagnose mutex-contention $m rest=auto
		spin_of mutex-contention $m | grep -q '^LongWait '
		check_culprit mutex-contention $m
	done
}

@test "diagnose: I/O after a timer (TextEdit): the thread that armed it" {
	need_tracing
	grep -q '^save_result=' "$D/io-timer-over.truth" 2>/dev/null ||
	    skip "io_uring unavailable here: $(cat "$D/io-timer-over.err")"
	for m in over live; do
		diagnose io-timer $m rest=auto
		spin_of io-timer $m | grep -q '^LongWait '
		check_culprit io-timer $m
	done
}
