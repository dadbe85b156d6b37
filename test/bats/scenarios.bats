#!/usr/bin/env bats
# The hang scenarios (test/scenarios): each runs its normal episodes and
# its hang, exits 0 in bounded time, and writes ground truth that is
# complete, consistent, and true of the run: the threads it names are
# alive and so named during the hang, the functions it names are in the
# binary, and what a user would check about each pattern holds.
# test/run: traced, it traces nothing but runs circular-wait, whose
# cw-renderer probes.bats (alone) takes the stacks of and counts.

load helpers

SCEN="$ROOT/test/scenarios"

setup() {
	cd "$BATS_TEST_TMPDIR"
	bgpid=
}

# A scenario left hanging by a failed check goes with the test.
teardown() {
	[ -z "$bgpid" ] || kill -TERM "$bgpid" 2>/dev/null || true
}

# The value of KEY in the truth file (the first, if several).
val() {
	sed -n "s/^$1=//p" truth | head -n 1
}

count() {
	grep -c "^$1=" truth || true
}

now_ms() {
	echo $(( $(date +%s%N) / 1000000 ))
}

# Until KEY is in the truth file, or 5 s.
await() {
	local i
	for i in $(seq 100); do
		grep -q "^$1=" truth 2>/dev/null && return 0
		sleep 0.05
	done
	echo "no $1 in the truth file" >&2
	return 1
}

# ROLE_pid, ROLE_tid, ROLE_comm name a live thread of that name.
alive() {
	local pid tid comm
	pid=$(val "$1_pid") tid=$(val "$1_tid") comm=$(val "$1_comm")
	[ -n "$pid" ]
	[ -n "$tid" ]
	[ -n "$comm" ]
	[ "${#comm}" -le 15 ]
	if [ "$(cat "/proc/$pid/task/$tid/comm" 2>/dev/null)" != "$comm" ]; then
		echo "$1: no thread $pid/$tid named $comm" >&2
		return 1
	fi
}

# Run scenario NAME with -n 2 -H 1 under timeout 20: exit 0 within the
# hang plus 2 s.  Sets $elapsed_ms.
run_scenario() {
	local name=$1 t0 status=0
	t0=$(now_ms)
	timeout 20 "$SCEN/$name" -n 2 -H 1 -t truth 2>stderr 3>&- || status=$?
	elapsed_ms=$(( $(now_ms) - t0 ))
	cat stderr >&2
	[ "$status" -eq 0 ]
	[ "$elapsed_ms" -lt 3000 ]
}

# io-timer needs io_uring, which a seccomp profile may filter: it exits 69.
io_uring_ok() {
	local status=0
	"$SCEN/io-timer" -n 0 --no-hang 2>/dev/null || status=$?
	[ "$status" -ne 69 ]
}

# The scenarios to run here: all of them, less io-timer without io_uring.
scenarios() {
	echo circular-wait long-cpu flag-poll server-loop mutex-contention
	io_uring_ok && echo io-timer
	return 0
}

# What every truth file must say, and how its times must relate.
check_truth() {
	local name=$1 pattern=$2 key b e hb he prev=0
	for key in scenario pattern victim_pid victim_tid victim_comm \
	    victim_function root_pid root_tid root_comm root_function \
	    hang_begin_ns hang_end_ns; do
		[ "$(count "$key")" -eq 1 ] || { echo "$key: not once" >&2; return 1; }
	done
	[ "$(val scenario)" = "$name" ]
	[ "$(val pattern)" = "$pattern" ]
	[ "$(count episode_begin_ns)" -eq 2 ]
	[ "$(count episode_end_ns)" -eq 2 ]

	hb=$(val hang_begin_ns) he=$(val hang_end_ns)
	# The hang: 1 s, give or take half a second.
	[ $(( he - hb )) -gt 500000000 ]
	[ $(( he - hb )) -lt 1500000000 ]
	# Normal episodes: in order, before the hang, each under 50 ms.
	paste <(sed -n 's/^episode_begin_ns=//p' truth) \
	    <(sed -n 's/^episode_end_ns=//p' truth) >episodes
	while read -r b e; do
		[ "$b" -gt "$prev" ]
		[ "$e" -ge "$b" ]
		[ "$e" -lt "$hb" ]
		[ $(( e - b )) -lt 50000000 ] ||
		    { echo "episode $b: $(( (e - b) / 1000000 )) ms" >&2; return 1; }
		prev=$e
	done <episodes
	# Named functions are real functions of the binary, not inlined away.
	for key in root_function victim_function; do
		nm "$SCEN/$name" | grep -Eq " [tT] $(val $key)\$" ||
		    { echo "$key $(val $key): not in $name" >&2; return 1; }
	done
}

@test "scenarios: built, and usage errors exit 64" {
	for s in circular-wait long-cpu flag-poll server-loop mutex-contention \
	    io-timer; do
		[ -x "$SCEN/$s" ]
		run "$SCEN/$s" -n nope
		[ "$status" -eq 64 ]
		[[ "$output" == *"usage: $s"* ]]
		run "$SCEN/$s" -H 0
		[ "$status" -eq 64 ]
	done
}

@test "circular-wait: the browser's request times out, the cycle is named" {
	run_scenario circular-wait
	check_truth circular-wait LongWait
	[ "$(val timed_out)" = 1 ]
	[ "$(val timeout_ms)" = 1000 ]
	[ "$(val cycle)" = "$(val victim_pid),$(val root_pid)" ]
	[ "$(val root_pid)" != "$(val victim_pid)" ]
	# The answer did come, after the timeout broke the cycle.
	[ "$(val late_reply_ns)" -gt "$(val hang_end_ns)" ]
}

@test "long-cpu: the main thread computes for the whole hang" {
	run_scenario long-cpu
	check_truth long-cpu LongRunning
	[ "$(val root_tid)" = "$(val victim_tid)" ]
	[ "$(val trigger_comm)" = lc-watcher ]
	# Never blocked: on a CPU, or waiting for one (a loaded machine), for
	# the whole hang; on an idle one, CPU time is wall time.
	local wall cpu runq
	wall=$(val victim_wall_ns) cpu=$(val victim_cpu_ns) runq=$(val victim_runq_ns)
	[ "$wall" -gt 900000000 ]
	[ "$(val victim_voluntary_switches)" -eq 0 ]
	if [ "$runq" -ge 0 ]; then
		[ $(( (cpu + runq) * 10 )) -gt $(( wall * 9 )) ]
	else
		[ $(( cpu * 2 )) -gt "$wall" ]
	fi
}

@test "flag-poll: the main thread polls the flag again and again" {
	run_scenario flag-poll
	check_truth flag-poll RepeatedYield
	# A poll a millisecond on an idle machine, some 900 in the 1 s hang;
	# with every CPU busy each yield may cost a time slice (30 to 270
	# measured).  Enough for argus-spin's yield loop (YIELD_MIN, 10).
	[ "$(val polls)" -ge 10 ]
	[ "$(val flag_symbol)" = settings_ready ]
	[ "$(val flag_writer_tid)" = "$(val root_tid)" ]
	# The address is the symbol's, in the PIE as loaded: same page offset.
	local off addr
	off=$(nm "$SCEN/flag-poll" | awk '$3 == "settings_ready" { print $1 }')
	addr=$(val flag_address)
	[ $(( addr & 0xfff )) -eq $(( 0x$off & 0xfff )) ]
	# Set late, and the poller saw it within a few polls.
	[ "$(val flag_set_ns)" -gt "$(val hang_begin_ns)" ]
	[ $(( $(val hang_end_ns) - $(val flag_set_ns) )) -lt 50000000 ]
}

@test "server-loop: the editor waits while fontd serves the slow client" {
	run_scenario server-loop
	check_truth server-loop LongWait
	# fontd was busy with the indexer through the editor's wait...
	[ "$(val slow_serve_begin_ns)" -lt "$(val hang_begin_ns)" ]
	[ "$(val slow_serve_end_ns)" -lt "$(val hang_end_ns)" ]
	[ $(( $(val hang_end_ns) - $(val slow_serve_end_ns) )) -lt 50000000 ]
	# ...and replied to it and took the editor's request in one pass.
	[ "$(val reply_then_receive)" = 1 ]
	[ "$(val trigger_comm)" = sl-indexer ]
}

@test "mutex-contention: workers block on the lock one of them holds" {
	run_scenario mutex-contention
	check_truth mutex-contention LongWait
	[[ ",$(val workers)," == *",$(val root_tid),"* ]]
	[[ "$(val root_comm)" == mc-worker-[123] ]]
	[ "$(val contenders)" -ge 1 ]
}

@test "io-timer: the save completes on an io-wq worker after the timer" {
	io_uring_ok || skip "io_uring is disabled or filtered here"
	run_scenario io-timer
	check_truth io-timer LongWait
	[ "$(val save_result)" = 65536 ]
	[ "$(val kworker_comm)" = "iou-wrk-$(val root_tid)" ]
	[ -n "$(val kworker_tids)" ]
	[ $(( $(val hang_end_ns) - $(val hang_begin_ns) )) -ge "$(val timer_delay_ns)" ]
}

@test "scenarios: --no-hang runs only the normal episodes" {
	for s in $(scenarios); do
		run timeout 20 "$SCEN/$s" -n 1 --no-hang -t truth
		[ "$status" -eq 0 ]
		[ "$(count episode_begin_ns)" -eq 1 ]
		[ "$(count hang_begin_ns)" -eq 0 ]
		[ "$(val hang)" = 0 ]
	done
}

# Scenario-specific checks while it hangs.
hang_check() {
	case $1 in
	io-timer)	# the kernel worker: a thread of the victim's process
		grep -qx "iou-wrk-$(val root_tid)" /proc/"$(val victim_pid)"/task/*/comm ;;
	esac
}

@test "scenarios: in the hang, the truth names live threads; SIGTERM ends all" {
	local s pid status pids p t0
	for s in $(scenarios); do
		# Not the last scenario's truth, read before this one
		# truncates it: its hang began, this one's has not.
		rm -f truth
		"$SCEN/$s" -n 1 -H 20 -t truth 3>&- &
		pid=$! bgpid=$!
		await hang_begin_ns
		await root_function	# mutex-contention: the holder says so
		[ "$(val victim_pid)" = "$pid" ]
		alive victim
		alive root
		hang_check "$s"
		pids="$(val root_pid) $(val trigger_pid)"
		t0=$(now_ms)
		kill -TERM "$pid"
		status=0
		wait "$pid" || status=$?
		bgpid=
		[ "$status" -eq 143 ]
		# At once, not at the end of the hang (lenient: loaded machines).
		[ $(( $(now_ms) - t0 )) -lt 5000 ]
		for p in $pids; do
			[ ! -e "/proc/$p" ] ||
			    { echo "$s: $p left behind" >&2; return 1; }
		done
	done
}
