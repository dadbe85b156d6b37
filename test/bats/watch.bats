#!/usr/bin/env bats
# argus-watch: a data flag's reads and writes from hardware watchpoints,
# and what the graph and the diagnosis make of them.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

need_watchpoints() {
	need_root "watchpoints unavailable"
	local out rc=0
	out=$(argus-watch -s settings_ready -o /dev/null -- \
	    "$ROOT/test/scenarios/flag-poll" -n 1 -H 0.1 --no-hang 2>&1) || rc=$?
	[ "$rc" != 69 ] || skip "watchpoints unavailable: $out"
	[ "$rc" = 0 ] || { echo "$out"; return 1; }
}

@test "watch: usage, a missing symbol, a missing process" {
	run argus-watch -s x
	[ "$status" -eq 64 ]
	run argus-watch -p 1 -s x -a 0x10
	[ "$status" -eq 64 ]
	run argus-watch -p 999999999 -a 0x1000
	[ "$status" -eq 66 ]
	need_watchpoints
	run argus-watch -s no_such_flag -- "$ROOT/test/scenarios/flag-poll" --no-hang
	[ "$status" -eq 65 ]
	[[ "$output" == *"no symbol 'no_such_flag'"* ]]
}

@test "watch: the poller's reads and the writer's writes, on the capture's clock" {
	need_watchpoints
	# At the priority the next test gives it: beside CPU hogs (make
	# check-loaded) the poller, at nice 0, polled 100 times or fewer in
	# its half-second hang.
	scenario_prio flag-poll
	run "${PRIO[@]}" argus-watch -s settings_ready -o w.gz -- \
	    "$ROOT/test/scenarios/flag-poll" -n 3 -H 0.5 -t truth
	[ "$status" -eq 0 ]
	[ "$(stat -c %a w.gz)" = 600 ]
	load_ids truth
	argus-cat -Z -k event w.gz >w.csv
	# The display thread sets it, once per episode and for the hang.
	[ "$(awk -F, -v t="$flag_writer_tid" '$4 == t && $7 == "flag_write"' w.csv | wc -l)" -eq 4 ]
	# The main thread reads it, many times, and clears it before each.
	[ "$(awk -F, -v t="$victim_tid" '$4 == t && $7 == "flag_read"' w.csv | wc -l)" -gt 100 ]
	[ "$(awk -F, -v t="$victim_tid" '$4 == t && $7 == "flag_write"' w.csv | wc -l)" -eq 4 ]
	# The address is the truth's, and the times are CLOCK_MONOTONIC.
	awk -F, -v a="$flag_address" '$7 ~ /^flag_/ && $9 != a { exit 1 }' w.csv
	awk -F, -v hb="$hang_begin_ns" -v he="$hang_end_ns" -v t="$flag_writer_tid" \
	    '$7 == "flag_write" && $4 == t && $2 >= hb && $2 <= he + 50000000 { f = 1 }
	    END { exit !f }' w.csv
}

@test "watch: the flag links its writer to the poller; the diagnosis names the writer" {
	need_watchpoints
	need_tracing
	argus-capture -o cap.gz 2>/dev/null 3>&- &
	cap=$!
	sleep 1
	# argus-watch finds the flag in the program it starts: chrt runs it.
	scenario_prio flag-poll
	"${PRIO[@]}" argus-watch -s settings_ready -o w.gz -- \
	    "$ROOT/test/scenarios/flag-poll" -n 5 -H 2 -t truth
	kill -INT "$cap"
	wait "$cap"
	load_ids truth
	# A poll that waited for a CPU past argus-spin's poll_max is no round
	# of a RepeatedYield: the machine's doing, not the program's (as in
	# spin.bats's flag-poll).
	starved=$(cpu_wait_max cap.gz "$victim_tid" "$hang_begin_ns")
	[ "$starved" -lt 25000000 ] ||
	    skip "overloaded: the poller waited $((starved / 1000000)) ms for a CPU during the hang"
	echo rest=auto >answers
	argus-cat cap.gz w.gz | argus-segment -q | argus-link -q |
	    argus-spin -q --pid "$victim_pid" --tid "$victim_tid" |
	    argus-similar -q | argus-slice --answers answers -Z >out.csv 2>report
	cat report
	awk -F, -v w="$flag_writer_tid" -v r="$victim_tid" '$1 == "link" &&
	    $8 == "flag" && $11 == w && $4 == r' out.csv | grep -q .
	awk -F, '$1 == "spin" { print $6 }' out.csv | grep -qx RepeatedYield
	awk -F, -v t="$root_tid" '$1 == "root" && $4 == t &&
	    ($6 == "root" || $6 == "culprit")' out.csv | grep -q .
}
