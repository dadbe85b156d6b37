#!/usr/bin/env bats
# End to end: each hang scenario (test/scenarios/) captured system-wide,
# with whatever else the machine is doing, then segmented, linked and
# diagnosed with a scripted answer file; the root cause found is checked
# against the scenario's own ground truth.  Twice: on a capture that ends
# after the hang, and on one cut while the hang is still in progress, the
# way a user meets it.
# test/run: first, a long file: begun last, it would run on alone.  Every
# edge of each diagnosis is checked, and beside a file that flooded the
# kernel's buffers a capture once lacked one (the cycle's "blocks" edge):
# those (test/run: alone) never run beside it.

load helpers

SCENARIOS="circular-wait long-cpu flag-poll server-loop mutex-contention io-timer"

# capture SCENARIO MODE: $D/SCENARIO-MODE.{gz,truth}
capture() {
	local s=$1 m=$2 base="$D/$1-$2"
	scenario_prio "$s"
	if [ "$m" = over ]; then
		timeout 60 argus-capture -o "$base.gz" -- \
		    "${PRIO[@]}" "$ROOT/test/scenarios/$s" -n 5 -H 2 -t "$base.truth" \
		    >/dev/null 2>"$base.err"
		return
	fi
	capture_cut "$base.gz" "$base.truth" "${PRIO[@]}" \
	    "$ROOT/test/scenarios/$s" -n 5 -H 4 -t "$base.truth" 2>"$base.err"
}

# diagnose SCENARIO MODE ANSWERS...: the diagnosis as records in $D/...csv,
# exported to $D/....dot and $D/....json
diagnose() {
	local base="$D/$1-$2" rc
	shift 2
	printf '%s\n' "$@" >"$base.answers"
	load_ids "$base.truth"
	argus-segment -q "$base.gz" | argus-link -q |
	    argus-spin -q --pid "$victim_pid" --tid "$victim_tid" --threshold 1s |
	    argus-similar -q |
	    argus-slice --threshold 1s --answers "$base.answers" -Z \
	    --dot "$base.dot" --json "$base.json" \
	    >"$base.csv" 2>"$base.report" && rc=0 || rc=$?
	echo "$rc" >"$base.status"
}

setup_file() {
	export D="$BATS_FILE_TMPDIR"
	can_trace || return 0
	for s in $SCENARIOS; do
		capture "$s" over
		capture "$s" live
	done
}

# The root records that are not the victim, as "KIND TID".
culprits() { awk -F, '$1 == "root" && $6 != "victim" { print $6, $4 }' "$D/$1-$2.csv"; }
spin_of() { awk -F, '$1 == "spin" { print $6, $11 }' "$D/$1-$2.csv"; }

# The DOT's edges as "FROM TO LABEL", one a line.
dot_edges() {
	sed -n 's/^\t\(v[0-9]*\) -> \(v[0-9]*\) \[label="\([^"]*\)".*/\1 \2 \3/p' "$1"
}

# The exports of a diagnosis, as a user reads them (scenario mode): the
# JSON binds every flow the way Perfetto does, names every track, holds
# no slice twice (check_json); each DOT edge is drawn once and is a flow
# of the JSON, and those left out are counted; every step the walk took
# between two vertices drawn is an edge; the victim, each culprit and
# root are labelled with what they are in both.
check_exports() {
	local base="$D/$1-$2" v kind next rule
	check_json "$base.json"
	[ "$(dot_edges "$base.dot" | sort | uniq -d | wc -l)" -eq 0 ]
	# The DOT may leave out links far from the chain, and counts them.
	[ $(($(dot_edges "$base.dot" | wc -l) + $(dot_left_out "$base.dot"))) -eq \
	    "$(grep -c '"ph":"s"' "$base.json")" ]
	while read -r v next rule; do
		dot_edges "$base.dot" | grep -qx "v$next v$v $rule" ||
		    ! grep -q "^	v$next \[" "$base.dot" ||
		    ! grep -q "^	v$v \[" "$base.dot" ||
		    { echo "step v$next -> v$v ($rule) not drawn"; return 1; }
	done < <(records step '$NEXT != 0 { print $VERTEX, $NEXT, $RULE }' "$base.csv")
	while read -r v kind; do
		grep -q "^	v$v \[label=\"[a-z, ]*$kind[a-z, ]*\\\\n" "$base.dot" ||
		    { echo "v$v not labelled $kind:"; grep "v$v " "$base.dot"; return 1; }
		grep -q "\"vertex\":$v,.*\"role\":\"[a-z, ]*$kind" "$base.json" ||
		    { echo "vertex $v not said $kind in the JSON"; return 1; }
	done < <(awk -F, '$1 == "root" { print $5, $6 }' "$base.csv")
}

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
	check_exports circular-wait over
	# The circle drawn: culprit and victim hold each other up.
	load_ids "$D/circular-wait-over.truth"
	dot_edges "$D/circular-wait-over.dot" | awk '{ print $1, $2 }' |
	    tsort 2>&1 >/dev/null | grep -q 'contains a loop'
	# root records: VERTEX is $5, KIND $6 (the first column is KIND too)
	v=$(awk -F, '$1 == "root" && $6 == "victim" { print $5 }' "$D/circular-wait-over.csv")
	u=$(awk -F, -v t="$root_tid" '$1 == "root" && $6 == "culprit" && $4 == t { print $5 }' \
	    "$D/circular-wait-over.csv")
	dot_edges "$D/circular-wait-over.dot" | grep -qx "v$u v$v blocks"
	dot_edges "$D/circular-wait-over.dot" | grep -qx "v$v v$u blocks"
	# The threads of the chain with their scheduling slices.
	grep -q "\"tid\":$victim_tid,\"name\":\"running on CPU" "$D/circular-wait-over.json"
	grep -q "\"tid\":$root_tid,\"name\":\"running on CPU" "$D/circular-wait-over.json"
}

@test "diagnose: circular wait (Chromium), hang in progress" {
	need_tracing
	diagnose circular-wait live comm=cw-renderer rest=auto
	spin_of circular-wait live | grep -q '^LongWait open$'
	check_culprit circular-wait live
	check_exports circular-wait live
}

@test "diagnose: long CPU work (editors): LongRunning, sliced back to the request" {
	need_tracing
	for m in over live; do
		diagnose long-cpu $m rest=auto
		load_ids "$D/long-cpu-$m.truth"
		spin_of long-cpu $m | grep -q '^LongRunning '
		check_exports long-cpu $m
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
	local starved
	for m in over live; do
		diagnose flag-poll $m rest=auto
		# A poll that waited for a CPU past argus-spin's poll bound is
		# the machine's doing, not the program's (as in spin.bats).
		starved=$(cpu_wait_max "$D/flag-poll-$m.gz" "$victim_tid" \
		    "$hang_begin_ns")
		[ "$starved" -lt 25000000 ] ||
		    skip "overloaded: the poller waited $((starved / 1000000)) ms for a CPU during the hang"
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
		check_exports server-loop $m
	done
}

@test "diagnose: mutex contention (Installer): the worker that holds the lock" {
	need_tracing
	for m in over live; do
		diagnose mutex-contention $m rest=auto
		spin_of mutex-contention $m | grep -q '^LongWait '
		check_culprit mutex-contention $m
		check_exports mutex-contention $m
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
		check_exports io-timer $m
	done
}

# A parent in wait4 woken by its child's exit: the SIGCHLD goes out after
# the child's last vertex ended, and the arrow still starts in it.
@test "diagnose: --json and --dot of a wake-up sent at a child's exit" {
	need_tracing
	cd "$BATS_TEST_TMPDIR"
	timeout 30 argus-capture -o ex.gz -- sh -c 'echo $$ >sh.pid; sleep 0.3; true' \
	    >/dev/null 2>ex.err
	argus-segment -q ex.gz | argus-link -q -Z >ex.csv
	# The shell's last vertex, and the link into it from its child.
	read -r sh_v child_v sent < <(records link -v p="$(cat sh.pid)" '$PID == p &&
	    $RULE == "signal" && $LABEL == "SIGCHLD" { print $TO, $FROM, $FROM_TIME }' \
	    ex.csv | tail -n 1) || true
	[ -n "$child_v" ] || { cat ex.err; false; }
	# Sent after the child's exit ended its vertex (unless it was
	# preempted between the two: then a vertex of its own holds it).
	read -r ended by < <(records vertex -v v="$child_v" '$ID == v { print $END, $ENDED_BY }' ex.csv)
	[ "$by" != exit ] || [ "$sent" -gt "$ended" ]
	argus-slice -q -Z --auto --from "$sh_v" --dot ex.dot --json ex.json ex.csv >ex.out
	check_json ex.json
	dot_edges ex.dot | grep -qx "v$child_v v$sh_v signal"
	grep -q "\"ph\":\"s\".*\"name\":\"signal\".*\"from\":$child_v,\"to\":$sh_v" ex.json
}
