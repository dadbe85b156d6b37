#!/usr/bin/env bats
# argus-spin and argus-similar: on small streams written by hand, and on
# real captures of the hang scenarios (test/scenarios), once captured
# after the hang ended and once cut while it was going on.  Tests that
# need tracing skip, saying why, where it is unavailable; they never pass
# without having traced.

load helpers

SCENARIOS="circular-wait long-cpu flag-poll server-loop mutex-contention io-timer"

# Each scenario captured once per mode, shared by the tests below:
#   full: -n 5 -H 3, the capture ends when the scenario does;
#   cut:  -n 5 -H 3, the capture ends 1.5 s into the hang (when the truth
#         file says it began), while the scenario goes on.
# D/S-M.csv is the graph (argus-segment | argus-link), D/S-M.truth the
# ground truth, D/S-M.skip why there is none.
setup_file() {
	export D="$BATS_FILE_TMPDIR"
	local why="" rc=0 s m
	can_trace || rc=$?
	case $rc in
	1) why="tracing unavailable: $NO_TRACING" ;;
	2) why=$NO_TRACING ;;	# a fault: the tests fail, saying it
	esac
	for s in $SCENARIOS; do
		for m in full cut; do
			if [ -n "$why" ]; then
				echo "tracing unavailable: $why" > "$D/$s-$m.skip"
				continue
			fi
			capture "$s" "$m"
		done
	done
}

capture() {	# scenario mode
	local f="$D/$1-$2" rc=0 lost
	scenario_prio "$1"
	if [ "$2" = full ]; then
		timeout 60 "$BIN/argus-capture" -o "$f.gz" -- "${PRIO[@]}" \
		    "$ROOT/test/scenarios/$1" -n 5 -H 3 -t "$f.truth" \
		    > "$f.capture.log" 2>&1 || rc=$?
	else
		capture_cut "$f.gz" "$f.truth" "${PRIO[@]}" \
		    "$ROOT/test/scenarios/$1" -n 5 -H 3 -t "$f.truth" \
		    > "$f.capture.log" 2>&1 || rc=$?
	fi
	if [ "$rc" != 0 ] || ! grep -q '^hang_begin_ns=' "$f.truth" 2>/dev/null; then
		echo "capture of $1 failed (exit $rc): $(tail -n 2 "$f.capture.log")" \
		    > "$f.skip"
		return 0
	fi
	# Lost events break vertices apart: what these tests check is then
	# not in the trace.  argus-capture counts them; say so, do not guess.
	lost=$(argus-cat -k meta "$f.gz" | awk -F, '$5 == "lost" { n = $6 } END { print n + 0 }')
	if [ "$lost" -gt 0 ]; then
		echo "overloaded: the capture of $1 lost $lost events" > "$f.skip"
		return 0
	fi
	# A poll that waited for a CPU longer than argus-spin's poll_max (50
	# ms at -T 1s) is no poll of the loop the scenario makes: a machine
	# that busy does not run the scenario these tests check.  Say so.
	if [ "$1" = flag-poll ]; then
		starved=$(cpu_wait_max "$f.gz" "$(tval "$f.truth" victim_tid)" \
		    "$(tval "$f.truth" hang_begin_ns)")
		if [ "$starved" -ge 25000000 ]; then
			echo "overloaded: the poller waited $((starved / 1000000)) ms for a CPU during the hang" > "$f.skip"
			return 0
		fi
	fi
	argus-segment -q "$f.gz" | argus-link -qZ > "$f.csv"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# KEY's value in a truth file (the first).
tval() {
	sed -n "s/^$2=//p" "$1" | head -n 1
}

need() {	# scenario mode
	if [ -e "$D/$1-$2.skip" ]; then
		local why
		why=$(cat "$D/$1-$2.skip")
		[[ "$why" == "tracing unavailable"* ]] && skip "$why"
		[[ "$why" == "overloaded: "* ]] && skip "$why"
		# io_uring filtered (exit 69) is the one scenario failure to skip.
		[[ "$1" == io-timer && "$why" == *"exit 69"* ]] && skip "$why"
		echo "$why" >&2
		return 1
	fi
}

# The spin records of the victim, on the scenario's graph: one, overlapping
# the hang, of class CLASS, open (cut) or not (full).
check_spin() {	# scenario mode class
	local f="$D/$1-$2" pid tid hb thr=()
	need "$1" "$2"
	pid=$(tval "$f.truth" victim_pid)
	tid=$(tval "$f.truth" victim_tid)
	hb=$(tval "$f.truth" hang_begin_ns)
	[ "$2" = cut ] && thr=(-T 1s)
	run argus-spin -Z "${thr[@]}" --pid "$pid" -o "$f.spin" "$f.csv"
	echo "$output"
	[ "$status" -eq 0 ]
	grep '^spin,' "$f.spin" > "$BATS_TEST_TMPDIR/spins"
	cat "$BATS_TEST_TMPDIR/spins"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/spins")" -eq 1 ]
	IFS=, read -r kind time spid stid vertex class begin end oncpu waits \
	    ended waker last comm < "$BATS_TEST_TMPDIR/spins"
	[ "$stid" = "$tid" ]
	[ "$spid" = "$pid" ]
	[ "$class" = "$3" ]
	# Should it begin late, the victim's vertices since the hang say why.
	echo "hang began at $hb; the victim's vertices and links before the spin:"
	awk -F, -v t="$tid" -v a="$hb" -v b="$begin" '$4 == t &&
	    ($1 == "vertex" || $1 == "link") && $2 >= a && $2 <= b' "$f.csv" |
	    tail -n 16
	# Begins at the hang (within 100 ms), lasts most of it.
	[ "$begin" -le $((hb + 100000000)) ]
	[ "$end" -ge $((hb + 1000000000)) ]
	[ "$end" -gt "$begin" ]
	# The vertex is the victim's own.
	awk -F, -v v="$vertex" -v t="$tid" '$1 == "vertex" && $5 == v && $4 == t { ok = 1 }
	    END { exit !ok }' "$f.csv"
	if [ "$2" = cut ]; then
		[ "$ended" = open ]
		[ "$waker" = 0 ]
	else
		[ "$ended" != open ]
	fi
	if [ "$3" = RepeatedYield ]; then
		[ "$last" -gt "$vertex" ]
	else
		[ "$last" = "$vertex" ]
	fi
}

# similar's first baseline is a vertex of the victim that overlaps one of
# the truth's normal episodes (with "earlier" as a fourth argument: that
# ends before the hang, for scenarios whose victim has other normal waits
# of the same kind between its episodes).
check_baseline() {	# scenario mode class [earlier]
	local f="$D/$1-$2" tid sel=()
	need "$1" "$2"
	[ -e "$f.spin" ] || check_spin "$1" "$2" "$3"
	tid=$(tval "$f.truth" victim_tid)
	[ "$2" = full ] && sel=(--tid "$tid")
	[ "$2" = cut ] && sel=(-T 1s)
	run argus-similar -Z "${sel[@]}" -o "$f.similar" "$f.spin"
	echo "$output"
	[ "$status" -eq 0 ]
	grep '^baseline,' "$f.similar" || true
	b=$(awk -F, '$1 == "baseline" && $7 == 1 { print $6 }' "$f.similar")
	[ -n "$b" ]
	awk -F, -v v="$b" -v t="$tid" '$1 == "vertex" && $5 == v && $4 == t {
	    print $6, $7 }' "$f.csv" > "$BATS_TEST_TMPDIR/bv"
	read -r vb ve < "$BATS_TEST_TMPDIR/bv"
	[ -n "$vb" ]
	# Should what follows fail, the victim's vertices and the truth say why.
	echo "baseline vertex $b: $vb..$ve"
	awk -F, -v t="$tid" '$1 == "vertex" && $4 == t' "$f.csv" | tail -n 12
	grep -E '^(episode|hang)_' "$f.truth"
	if [ "${4:-}" = earlier ]; then
		[ "$ve" -le "$(tval "$f.truth" hang_begin_ns)" ]
	else
		paste -d' ' <(sed -n 's/^episode_begin_ns=//p' "$f.truth") \
		    <(sed -n 's/^episode_end_ns=//p' "$f.truth") |
		    awk -v vb="$vb" -v ve="$ve" '$1 <= ve && vb <= $2 { ok = 1 }
		    END { exit !ok }'
	fi
	# Its wake-up path starts at a vertex of another thread.
	w=$(awk -F, '$1 == "baseline" && $7 == 1 { print $9 }' "$f.similar")
	[ "$w" -gt 0 ]
}

# --- Small streams written by hand ---------------------------------------

# Thread 10 "app" (the capture's command): a normal poll (vertex 3, woken
# by a message from thread 20), then a 3 s one (vertex 4), then an open
# vertex.  Vertex 1, before, waited in a bare poll.
graph() {
	stream <<-'EOF'
	meta,100,,,command_pid,10
	task,100,10,10,app
	task,100,20,20,peer
	event,150,10,10,1,0,sys_enter,-,7,poll,0x1,0x1,0x0
	vertex,200,20,20,2,100,200,150,3,start,wait,S,peer
	vertex,1000,10,10,1,100,1000,500,3,start,wait,S,app
	link,1000,10,10,2,3,strong,message,990,20,20,
	event,1010,10,10,3,0,sys_enter,-,1,write,0x4,0x0,0x1
	event,1020,10,10,3,0,sys_enter,-,7,poll,0x1,0x1,0x0
	event,1030,10,10,3,0,switch,-,S,0,0,swapper/0
	link,1100,10,10,6,4,strong,message,1090,20,20,
	vertex,1100,10,10,3,1000,1100,30,4,wakeup,wait,S,app
	event,1110,10,10,4,0,sys_enter,-,1,write,0x4,0x0,0x1
	event,1120,10,10,4,0,sys_enter,-,7,poll,0x1,0x1,0x0
	event,1130,10,10,4,0,switch,-,S,0,0,swapper/0
	link,3000001100,10,10,7,5,strong,wakeup,3000001090,20,20,
	vertex,3000001100,10,10,4,1100,3000001100,30,4,wakeup,wait,S,app
	vertex,3000002000,10,10,5,3000001100,3000002000,900,1,wakeup,open,,app
	EOF
}

@test "spin: --help, --version and bad usage" {
	run argus-spin --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: argus-spin"* ]]
	run argus-spin --version
	[ "$status" -eq 0 ]
	[[ "$output" == *"record stream version 1"* ]]
	run argus-spin --no-such-option
	[ "$status" -eq 64 ]
	run argus-spin --threshold banana
	[ "$status" -eq 64 ]
	run argus-spin --at 12x
	[ "$status" -eq 64 ]
	run argus-similar --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: argus-similar"* ]]
	run argus-similar --min-score 2
	[ "$status" -eq 64 ]
}

@test "spin: a LongWait in a graph by hand, records passed through, summary" {
	graph > g
	run argus-spin -q -o out g
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# Everything passes, in order; the moment taken, the spin and the
	# summary follow.
	[ "$(zcat out | head -n -3)" = "$(cat g)" ]
	zcat out | tail -n 3 | head -n 1 | grep -qx 'meta,3000002000,,,moment,every'
	zcat out | tail -n 2 | head -n 1 |
	    grep -qx 'spin,3000002000,10,10,4,LongWait,1100,3000001100,30,1,wakeup,7,4,app'
	zcat out | tail -n 1 | grep -q '^summary,3000002000,,,argus-spin,spins,1,'
	# Without -q, a line for the person.
	run argus-spin -Z -o /dev/null g
	[[ "$output" == *"app 10/10: LongWait in vertex 4, 3.000 s"*"ended by wakeup from vertex 7"* ]]
}

@test "spin: --threshold, --at, an argus-mark, --comm, --tid" {
	graph > g
	run argus-spin -qZ --threshold 10s g
	[ "$status" -eq 1 ]
	[[ "$output" == *"no episode of app 10/10 as long as 10.000 s"*"vertex 4"* ]]
	[ "$(grep -c '^spin,' <<<"$output")" -eq 0 ]
	# A moment: the vertex that holds it, however short.
	run argus-spin -qZ --at 1050 g
	[ "$status" -eq 0 ]
	grep -q '^spin,3000002000,10,10,3,LongWait,1000,1100,' <<<"$output"
	run argus-spin -qZ --at +3.0000015s g
	grep -q '^spin,[0-9]*,10,10,5,LongRunning,3000001100,3000002000,900,0,open,0,5,app$' <<<"$output"
	# The last argus-mark annotation, in any thread.
	{ graph | head -n 11
	  echo 'event,1040,99,99,0,1,marker,-,argus-mark the app froze'
	  graph | tail -n +12; } > m
	run argus-spin -qZ m
	grep -q '^spin,[0-9]*,10,10,3,' <<<"$output"
	# By name, or by thread; and one that does not exist.
	run argus-spin -qZ --comm app g
	grep -q '^spin,[0-9]*,10,10,4,LongWait,' <<<"$output"
	run argus-spin -qZ --tid 10 g
	grep -q '^spin,[0-9]*,10,10,4,LongWait,' <<<"$output"
	run argus-spin -qZ --comm nosuch g
	[ "$status" -eq 1 ]
	[[ "$output" == *"no vertex of a thread named 'nosuch'"* ]]
}

@test "spin: LongRunning, and RepeatedYield over a chain of naps" {
	{ stream <<-'EOF'
	vertex,2600000000,10,10,1,100,2600000000,2000000000,9,start,wait,S,busy
	EOF
	  t=2600000000
	  for i in $(seq 2 45); do
		n=$((t + 50000000))
		echo "link,$t,10,10,$((i - 1)),$i,strong,timeout,$((t - 50000000)),10,10,0xffff"
		echo "vertex,$n,10,10,$i,$t,$n,20000,5,wakeup,wait,S,busy"
		t=$n
	  done
	  echo "link,$t,10,10,77,46,strong,wakeup,$t,20,20,"
	  echo "vertex,$((t + 5000)),10,10,46,$t,$((t + 5000)),5000,2,wakeup,exit,,busy"
	} > y
	run argus-spin -qZ --pid 10 y
	[ "$status" -eq 0 ]
	grep '^spin,' <<<"$output"
	grep -q '^spin,[0-9]*,10,10,1,LongRunning,100,2600000000,2000000000,0,timeout,1,1,busy$' <<<"$output"
	grep -q '^spin,[0-9]*,10,10,2,RepeatedYield,2600000000,4800000000,880000,0,wakeup,77,45,busy$' <<<"$output"
}

@test "spin: a thread whose process the capture never learnt (empty TPID)" {
	# Under load, a short-lived thread may exit before the capture reads
	# its process: its pid columns are empty, which is no error.
	stream > e <<-'EOF'
	event,100,10,10,1,0,switch,-,S,,33,gone
	event,110,,33,2,0,fork,-,,34,0x0,gone2
	event,120,,34,3,0,comm,-,,34,gone2,renamed
	vertex,3000000200,10,10,1,100,3000000200,0,1,start,open,S,app
	EOF
	run argus-spin -qZ --tid 10 e
	[ "$status" -eq 0 ]
	[ "$(records spin '{ print $VERTEX, $CLASS }' <<<"$output")" = "1 LongWait" ]
}

@test "spin: streams it cannot use: no vertices, no VERTEX column, no target" {
	stream <<-'EOF' > e
	meta,100,,,command_pid,10
	task,100,10,10,app
	EOF
	run argus-spin -Z e
	[ "$status" -eq 65 ]
	[[ "$output" == *"no vertex records in the input: run argus-segment and argus-link first"* ]]
	# Events as captured, before argus-segment set their VERTEX.
	stream <<-'EOF' > u
	event,150,10,10,,0,sys_enter,-,7,poll,0x1,0x1,0x0
	EOF
	run argus-spin -Z --pid 10 u
	[ "$status" -eq 65 ]
	[[ "$output" == *"u:2: event without a vertex: run argus-segment"* ]]
	graph | grep -v '^meta' > n
	run argus-spin -Z n
	[ "$status" -eq 64 ]
	[[ "$output" == *"no target: give --pid, --tid or --comm"* ]]
	stream <<-'EOF' > bad
	vertex,200,20,20,x,100,200,150,3,start,wait,S,peer
	EOF
	run argus-spin -Z --pid 20 bad
	[ "$status" -eq 65 ]
	[[ "$output" == *"bad:2:"* ]]
}

@test "similar: the same calls ended by a peer, most recent first; none: exit 0" {
	graph > g
	argus-spin -qZ g > s
	run argus-similar -Z s
	[ "$status" -eq 0 ]
	grep '^baseline,' <<<"$output"
	grep -q '^baseline,3000002000,10,10,4,3,1,1.000,6,"same system calls write,poll; woken by message from 20/20' <<<"$output"
	grep -q '^baseline,3000002000,10,10,4,1,2,' <<<"$output"
	[ "$(grep -c '^baseline,' <<<"$output")" -eq 2 ]
	run argus-similar -qZ -n 1 s
	[ "$(grep -c '^baseline,' <<<"$output")" -eq 1 ]
	# Vertex 1 alike enough only at a lower bar.
	run argus-similar -qZ --min-score 0.9 s
	[ "$(grep -c '^baseline,' <<<"$output")" -eq 1 ]
	# Ended by its own timeout: not normal.
	sed 's/^link,1100,10,10,6,4,strong,message/link,1100,10,10,3,4,strong,timeout/' s > t
	run argus-similar -Z -n 1 t
	grep -q '^baseline,[0-9]*,10,10,4,1,1,' <<<"$output"
	# Too long (here: over the threshold): not normal either.
	run argus-similar -Z -T 500ns t
	[ "$status" -eq 0 ]
	[ "$(grep -c '^baseline,' <<<"$output")" -eq 0 ]
	[[ "$output" == *"no baseline for app 10/10 vertex 4 (LongWait)"* ]]
	# Nothing to do.
	run argus-similar -Z g
	[ "$status" -eq 0 ]
	[[ "$output" == *"no spin records in the input"* ]]
	# Only the history of another thread kept.
	run argus-similar -Z --tid 20 s
	[ "$status" -eq 0 ]
	[[ "$output" == *"not in the history kept"* ]]
}

@test "spin, similar, slice: what woke a vertex is its first waking link, not a later reply" {
	# Vertex 3 is where thread 1 runs after its 3 s wait (vertex 2): woken
	# by thread 2's vertex 4.  A reply link into it, written after, is
	# thread 3's answer to a request, not what ended the wait.
	stream > r <<-'EOF'
	vertex,1000000000,3,3,1,500000000,1000000000,1000,1,start,wait,S,c
	vertex,3950000000,2,2,4,3900000000,3950000000,1000,1,start,wait,S,b
	vertex,4000000000,1,1,2,1000000000,4000000000,1000,1,start,wait,S,a
	link,4000000000,1,1,4,3,strong,wakeup,3940000000,2,2,
	link,4000000000,1,1,1,3,strong,reply,900000000,3,3,
	vertex,4100000000,1,1,3,4000000000,4100000000,1000,1,wakeup,open,,a
	EOF
	argus-spin -qZ --tid 1 r > s
	[ "$(records spin '{ print $VERTEX, $CLASS, $ENDED, $WAKER }' s)" = "2 LongWait wakeup 4" ]
	# The slice of the wait starts where the spin says the wake-up came from.
	# (Its waker was not stuck: nothing found, exit 1.)
	argus-slice -q --auto -Z s > d || [ "$?" -eq 1 ]
	[ "$(records step '$PATH == 1 && $N == 1 { print $VERTEX }' d)" = 4 ]
}

@test "similar: a link's rule is a kind of its own, cond, runloop and flag too" {
	# Thread 1 hangs in vertex 14, woken into it by a condition variable.
	# Vertex 10 was woken by one too, vertex 12 (more recent) by a run
	# loop: alike but for that, vertex 10 is the better baseline.
	stream > c <<-'EOF'
	vertex,1001000000,1,1,10,1000000000,1001000000,1000,1,wakeup,wait,S,a
	vertex,1002000000,1,1,11,1001000000,1002000000,1000,1,wakeup,wait,S,a
	vertex,1003000000,1,1,12,1002000000,1003000000,1000,1,wakeup,wait,S,a
	vertex,1004000000,1,1,13,1003000000,1004000000,1000,1,wakeup,wait,S,a
	vertex,5000000000,1,1,14,2000000000,5000000000,0,0,wakeup,open,S,a
	link,5000000000,1,1,20,10,strong,cond,999000000,2,2,0xc0
	link,5000000000,1,1,20,11,strong,wakeup,1000900000,2,2,
	link,5000000000,1,1,20,12,strong,runloop,1001900000,2,2,0x55
	link,5000000000,1,1,20,13,strong,wakeup,1002900000,2,2,
	link,5000000000,1,1,20,14,strong,cond,1999000000,2,2,0xc0
	vertex,5000000000,2,2,20,900000000,5000000000,1000,1,start,open,,b
	EOF
	argus-spin -qZ --tid 1 c | argus-similar -qZ > b
	[ "$(records baseline '$RANK == 1 { print $VERTEX, $SCORE }' b)" = "10 1.000" ]
	[ "$(records baseline '$VERTEX == 12 { print $SCORE }' b)" = "0.750" ]
}

@test "similar: a wait's baseline is the same wait answered, whatever calls its vertex began with" {
	# Thread 10 (a client) hangs in vertex 6: write, then a request to
	# fontd on socket 5 and its recvfrom, unanswered.  In the round
	# before, it asked the indexer on socket 9 and waited for it (vertex
	# 2, the hang's calls by name, woken by 30), then asked fontd: its
	# sendto went into the vertex the indexer's answer began (3), and the
	# recvfrom on 5 that waited was cut into a vertex of its own (4, a
	# peer-set cut), answered by fontd, 20.  Vertex 4 is the same wait.
	stream > g <<-'EOF'
	task,100,10,10,ed
	vertex,100,10,10,1,0,100,50,1,start,wait,S,ed
	event,1010,10,10,2,0,sys_enter,-,1,write,0x3,0x0,0x1
	link,1010,10,10,1,2,strong,timeout,100,10,10,hrtimer_wakeup
	event,1020,10,10,2,0,sys_enter,-,44,sendto,0x9,0x0,0x8
	event,1030,10,10,2,0,sys_enter,-,45,recvfrom,0x9,0x0,0x8
	event,1040,10,10,2,0,switch,-,S,0,0,swapper/0
	link,1500,10,10,31,3,strong,message,1490,30,30,
	vertex,1500,10,10,2,1000,1500,30,4,wakeup,wait,S,ed
	event,1510,10,10,3,0,sys_enter,-,44,sendto,0x5,0x0,0x10
	vertex,1520,10,10,3,1500,1520,10,1,wakeup,peer-set,,ed
	event,1520,10,10,4,0,sys_enter,-,45,recvfrom,0x5,0x0,0x10
	link,1520,10,10,3,4,weak,order,1520,10,10,
	event,1530,10,10,4,0,switch,-,S,0,0,swapper/0
	link,2000,10,10,21,5,strong,message,1990,20,20,
	vertex,2000,10,10,4,1520,2000,10,2,peer-set,wait,S,ed
	event,2010,10,10,5,0,sys_enter,-,230,clock_nanosleep,0x1,0x0,0x0
	event,2020,10,10,5,0,switch,-,S,0,0,swapper/0
	vertex,3000,10,10,5,2000,3000,10,2,wakeup,wait,S,ed
	event,3010,10,10,6,0,sys_enter,-,1,write,0x3,0x0,0x1
	link,3010,10,10,5,6,strong,timeout,2020,10,10,hrtimer_wakeup
	event,3020,10,10,6,0,sys_enter,-,44,sendto,0x5,0x0,0x10
	event,3030,10,10,6,0,sys_enter,-,45,recvfrom,0x5,0x0,0x10
	event,3040,10,10,6,0,switch,-,S,0,0,swapper/0
	link,3000003000,10,10,22,7,strong,message,3000002990,20,20,
	vertex,3000003000,10,10,6,3000,3000003000,40,4,wakeup,wait,S,ed
	vertex,3000004000,10,10,7,3000003000,3000004000,1000,1,wakeup,open,,ed
	EOF
	argus-spin -qZ --tid 10 g | argus-similar -qZ > b
	records baseline '{ print $RANK, $VERTEX, $SCORE, $REASON }' b
	[ "$(records baseline '$RANK == 1 { print $VERTEX }' b)" = 4 ]
	grep -q '^baseline,.*,4,1,.*the same wait; woken by message from 20/20' b
	# Vertex 2 scores higher on its calls, and comes after.
	[ "$(records baseline '$RANK == 2 { print $VERTEX }' b)" = 2 ]
	s4=$(records baseline '$VERTEX == 4 { print $SCORE * 1000 }' b)
	s2=$(records baseline '$VERTEX == 2 { print $SCORE * 1000 }' b)
	[ "$s2" -gt "$s4" ]
	! grep -q '^baseline,.*,2,2,.*the same wait' b
}

@test "similar: a wait in vfork is the same wait as the launches before it, whatever it called first" {
	# Thread 10 (a launcher) vforks each job and waits in vfork until the
	# job execs: its fork events (CLONE_VM|CLONE_VFORK) say so, as no
	# default capture traces vfork(2).  Vertex 2 is a launch answered by
	# its child, 20; in vertex 4, the hang, it logged first (a write) and
	# its child, 30, never execs.
	stream > v <<-'EOF'
	task,100,10,10,launcher
	vertex,100,10,10,1,0,100,50,1,start,wait,S,launcher
	link,1010,10,10,1,2,strong,timeout,100,10,10,hrtimer_wakeup
	event,1020,10,10,2,0,fork,-,20,20,0x4100,launcher
	link,1021,20,20,2,21,strong,fork,1020,10,10,
	event,1030,10,10,2,0,switch,-,D,20,20,launcher
	link,1500,10,10,21,3,strong,wakeup,1490,20,20,
	vertex,1500,10,10,2,1000,1500,30,2,wakeup,wait,D,launcher
	event,1510,10,10,3,0,sys_enter,-,230,clock_nanosleep,0x1,0x0,0x0
	event,1520,10,10,3,0,switch,-,S,0,0,swapper/0
	vertex,3000,10,10,3,1500,3000,10,2,wakeup,wait,S,launcher
	link,3010,10,10,3,4,strong,timeout,1520,10,10,hrtimer_wakeup
	event,3010,10,10,4,0,sys_enter,-,1,write,0x3,0x0,0x1
	event,3020,10,10,4,0,fork,-,30,30,0x4100,launcher
	link,3021,30,30,4,31,strong,fork,3020,10,10,
	event,3030,10,10,4,0,switch,-,D,30,30,launcher
	vertex,3000003000,10,10,4,3000,3000003000,40,3,wakeup,open,D,launcher
	EOF
	argus-spin -qZ --tid 10 v | argus-similar -qZ > b
	records baseline '{ print $RANK, $VERTEX, $SCORE, $REASON }' b
	[ "$(records baseline '$RANK == 1 { print $VERTEX }' b)" = 2 ]
	grep -q '^baseline,.*,2,1,.*the same wait; woken by wakeup from 20/20' b
}

# --- Real captures --------------------------------------------------------

@test "spin: circular-wait, ended: LongWait, ended by its own timeout" {
	check_spin circular-wait full LongWait
	[ "$ended" = timeout ]
}

@test "spin: circular-wait, cut during the hang: LongWait, open" {
	check_spin circular-wait cut LongWait
}

@test "spin: long-cpu: LongRunning, ended and cut" {
	check_spin long-cpu full LongRunning
	check_spin long-cpu cut LongRunning
}

@test "spin: flag-poll: RepeatedYield, ended and cut" {
	check_spin flag-poll full RepeatedYield
	check_spin flag-poll cut RepeatedYield
}

@test "spin: server-loop: LongWait, ended by fontd's reply, and cut" {
	check_spin server-loop full LongWait
	[ "$ended" = message ]
	check_spin server-loop cut LongWait
}

@test "spin: mutex-contention: LongWait, ended and cut" {
	check_spin mutex-contention full LongWait
	check_spin mutex-contention cut LongWait
}

@test "spin: io-timer: LongWait, ended and cut" {
	check_spin io-timer full LongWait
	check_spin io-timer cut LongWait
}

@test "similar: circular-wait: a normal poll woken by the renderer, ended and cut" {
	for m in full cut; do
		# Between episodes the browser also serves the renderer's
		# requests: as normal a wait for the renderer as an episode.
		check_baseline circular-wait $m LongWait earlier
		rt=$(tval "$D/circular-wait-$m.truth" root_tid)
		grep -q "^baseline,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,1,.*woken by message from [0-9]*/$rt " "$D/circular-wait-$m.similar"
	done
}

@test "similar: long-cpu: a normal layout, ended and cut" {
	check_baseline long-cpu full LongRunning
	check_baseline long-cpu cut LongRunning
}

@test "similar: server-loop: a normal request woken by fontd, ended and cut" {
	for m in full cut; do
		check_baseline server-loop $m LongWait
		rt=$(tval "$D/server-loop-$m.truth" root_tid)
		grep -q "^baseline,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,1,.*from [0-9]*/$rt " "$D/server-loop-$m.similar"
	done
}

@test "similar: mutex-contention and io-timer: normal waits, ended and cut" {
	check_baseline mutex-contention full LongWait
	check_baseline mutex-contention cut LongWait
	check_baseline io-timer full LongWait
	check_baseline io-timer cut LongWait
}

@test "similar: flag-poll: no peer ever ends a poll: no baseline, exit 0" {
	local pid
	for m in full cut; do
		need flag-poll $m
		f="$D/flag-poll-$m"
		[ -e "$f.spin" ] || check_spin flag-poll $m RepeatedYield
		# The capture is of the whole machine: another test's fp-prefs,
		# killed by a signal in a nap, would be a baseline from another
		# process of the same program.  The poller's own history has none.
		pid=$(tval "$f.truth" victim_pid)
		run argus-similar -Z -T 1s --pid "$pid" -o "$f.similar" "$f.spin"
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"no baseline for fp-prefs"* ]]
		! grep -q '^baseline,' "$f.similar" || false
	done
}

@test "spin: a span without progress is one episode, whatever its naps' length" {
	# curl polls its socket with a 1 s timeout, three times in vain and
	# a fourth still going: one LongWait, first vertex to last.
	{ stream
	  t=1000000000
	  for i in 1 2 3 4; do
		[ "$i" = 1 ] || echo "link,$t,10,10,$((i - 1)),$i,strong,timeout,$((t - 1000000000)),10,10,0xffff"
		echo "event,$((t + 1000)),10,10,$i,0,sys_enter,-,7,poll,0x7ffc,0x1,0x3e8"
		echo "event,$((t + 2000)),10,10,$i,0,switch,-,S,0,0,swapper/0"
		[ "$i" = 4 ] && end=open || end=wait
		echo "vertex,$((t + 1000000000)),10,10,$i,$t,$((t + 1000000000)),30000,2,timeout,$end,S,curl"
		t=$((t + 1000000000))
	  done
	} >p
	run argus-spin -qZ --tid 10 p
	[ "$status" -eq 0 ]
	grep '^spin,' <<<"$output"
	grep -q '^spin,[0-9]*,10,10,1,LongWait,1000000000,5000000000,120000,4,open,0,4,curl$' <<<"$output"
	# Its second round woken by what no rule explains (the timer's events
	# lost on a loaded machine: an interrupt's weak link), into a poll
	# again with nothing read: still one wait.
	sed 's/^link,2000000000,10,10,1,2,strong,timeout,1000000000,10,10,0xffff$/link,2000000000,10,10,1,2,weak,irq,1999999000,0,0,hardirq/' p >q
	! cmp -s p q || false
	run argus-spin -qZ --tid 10 q
	grep '^spin,' <<<"$output"
	grep -q '^spin,[0-9]*,10,10,1,LongWait,1000000000,5000000000,120000,4,open,0,4,curl$' <<<"$output"
	# Woken so, it read what came: the wait before it ended there.
	sed '/^event,2000001000,10,10,2,0,sys_enter/i event,2000000500,10,10,2,0,sys_enter,-,0,read,0x3,0x7ffc,0x1000' q >r
	run argus-spin -qZ --tid 10 r
	grep '^spin,' <<<"$output"
	grep -q '^spin,[0-9]*,10,10,2,LongWait,2000000000,5000000000,' <<<"$output"
	# A busy handler's naps, growing from 1 ms to 512 ms between tries of
	# a lock: one RepeatedYield, though most naps pass a twentieth of 1 s.
	{ stream
	  t=1000000000 n=1000000 i=1
	  while [ "$n" -le 512000000 ]; do
		[ "$i" = 1 ] || echo "link,$t,20,20,$((i - 1)),$i,strong,timeout,$((t - n / 2)),20,20,0xffff"
		echo "event,$((t + 1000)),20,20,$i,0,sys_enter,-,72,fcntl,0x3,0x6,0x7ffc"
		echo "event,$((t + 2000)),20,20,$i,0,sys_enter,-,230,clock_nanosleep,0x0,0x0,0x7ffc"
		echo "event,$((t + 3000)),20,20,$i,0,switch,-,S,0,0,swapper/0"
		echo "vertex,$((t + n)),20,20,$i,$t,$((t + n)),20000,3,timeout,wait,S,sqlite3"
		t=$((t + n)) n=$((n * 2)) i=$((i + 1))
	  done
	} >b
	run argus-spin -qZ -T 1s --tid 20 b
	[ "$status" -eq 0 ]
	grep '^spin,' <<<"$output"
	grep -q '^spin,[0-9]*,20,20,1,RepeatedYield,1000000000,2023000000,200000,10,wait,0,10,sqlite3$' <<<"$output"
}

@test "spin: a select of no descriptor between tries is a nap: RepeatedYield" {
	# Perl's select(undef, undef, undef, 0.2), the portable short sleep,
	# between a script's tries: pselect6 with a count of 0 waits on
	# nothing, so only its timer ends it.  The same rounds in a select of
	# 4 descriptors wait on someone: LongWait.
	for n in 0x0 0x4; do
		{ stream
		  t=1000000000
		  for i in 1 2 3 4 5 6 7 8; do
			[ "$i" = 1 ] || echo "link,$t,10,10,$((i - 1)),$i,strong,timeout,$((t - 1000)),10,10,0xffff"
			echo "event,$((t + 1000)),10,10,$i,0,sys_enter,-,61,wait4,0xffffffff,0x7ffc,0x1"
			echo "event,$((t + 2000)),10,10,$i,0,sys_enter,-,270,pselect6,$n,0x0,0x0"
			echo "event,$((t + 3000)),10,10,$i,0,switch,-,S,0,0,swapper/0"
			[ "$i" = 8 ] && end=open || end=wait
			echo "vertex,$((t + 200000000)),10,10,$i,$t,$((t + 200000000)),30000,3,timeout,$end,S,perl"
			t=$((t + 200000000))
		  done
		} >"p$n"
	done
	run argus-spin -qZ -T 1s --tid 10 p0x0
	[ "$status" -eq 0 ]
	grep -q '^spin,[0-9]*,10,10,1,RepeatedYield,1000000000,2600000000,240000,8,open,0,8,perl$' <<<"$output"
	run argus-spin -qZ -T 1s --tid 10 p0x4
	[ "$status" -eq 0 ]
	grep -q '^spin,[0-9]*,10,10,1,LongWait,1000000000,2600000000,240000,8,open,0,8,perl$' <<<"$output"
}

@test "spin: a receive that fails between naps took nothing in: RepeatedYield" {
	# A UDP client asks a closed port each round: send, a receive the
	# port's ICMP error fails (sock_recv -111, ECONNREFUSED), a nap.
	# The same rounds whose receive got 4 bytes took something in: each
	# a step of work, no episode.
	for r in -111 4; do
		{ stream
		  t=1000000000
		  for i in 1 2 3 4 5 6 7 8; do
			[ "$i" = 1 ] || echo "link,$t,10,10,$((i - 1)),$i,strong,timeout,$((t - 1000)),10,10,0xffff"
			echo "event,$((t + 1000)),10,10,$i,0,sys_enter,-,44,sendto,0x3,0x7f00,0x4,0x0,0x0,0x0"
			echo "event,$((t + 2000)),10,10,$i,0,sock_send,-,0xffff01,4,0x0"
			echo "event,$((t + 3000)),10,10,$i,0,sys_enter,-,45,recvfrom,0x3,0x7f10,0x64,0x0,0x0,0x0"
			echo "event,$((t + 4000)),10,10,$i,0,sock_recv,-,0xffff01,$r,0x40"
			echo "event,$((t + 5000)),10,10,$i,0,sys_enter,-,230,clock_nanosleep,0x1,0x1,0x7ffc"
			echo "event,$((t + 6000)),10,10,$i,0,switch,-,S,0,0,swapper/0"
			[ "$i" = 8 ] && end=open || end=wait
			echo "vertex,$((t + 200000000)),10,10,$i,$t,$((t + 200000000)),30000,6,timeout,$end,S,python3"
			t=$((t + 200000000))
		  done
		} >"u$r"
	done
	run argus-spin -qZ -T 1s --tid 10 u-111
	[ "$status" -eq 0 ]
	grep -q '^spin,[0-9]*,10,10,1,RepeatedYield,1000000000,2600000000,240000,8,open,0,8,python3$' <<<"$output"
	run argus-spin -qZ -T 1s --tid 10 u4
	[ "$status" -eq 1 ]
}

@test "spin: a request sent again each time its wait for the answer timed out is one LongWait" {
	# A UDP client's retries: a poll of its socket that a 100 ms timeout
	# ends (Python's settimeout), then the request again; or a recvfrom
	# that SO_RCVTIMEO fails with EAGAIN, seen in the round after.  No
	# answer came: one wait, its first round to its last.  The same
	# rounds whose recvfrom got 4 bytes each took something in: no
	# episode.
	for way in poll rcvtimeo answered; do
		{ stream
		  t=1000000000
		  for i in $(seq 12); do
			if [ "$i" != 1 ]; then
				echo "link,$t,10,10,$((i - 1)),$i,strong,timeout,$((t - 100000000)),10,10,hrtimer_wakeup"
				case $way in
				rcvtimeo) echo "event,$((t + 500)),10,10,$i,0,sys_exit,-,45,recvfrom,-11" ;;
				answered) echo "event,$((t + 500)),10,10,$i,0,sys_exit,-,45,recvfrom,4" ;;
				esac
			fi
			echo "event,$((t + 1000)),10,10,$i,0,sys_enter,-,44,sendto,0x3,0x7f00,0x3,0x0,0x7ffc,0x10"
			echo "event,$((t + 2000)),10,10,$i,0,sock_send,-,0xffff01,3,0x0"
			if [ $way = poll ]; then
				echo "event,$((t + 3000)),10,10,$i,0,sys_enter,-,7,poll,0x7ffc,0x1,0x64"
			else
				echo "event,$((t + 3000)),10,10,$i,0,sys_enter,-,45,recvfrom,0x3,0x7f10,0x64,0x0,0x0,0x0"
			fi
			echo "event,$((t + 4000)),10,10,$i,0,switch,-,S,0,0,swapper/0"
			[ "$i" = 12 ] && end=open || end=wait
			echo "vertex,$((t + 100000000)),10,10,$i,$t,$((t + 100000000)),30000,4,timeout,$end,S,python3"
			t=$((t + 100000000))
		  done
		} >"r-$way"
	done
	for way in poll rcvtimeo; do
		run argus-spin -qZ -T 1s --tid 10 "r-$way"
		[ "$status" -eq 0 ]
		grep '^spin,' <<<"$output"
		grep -q '^spin,[0-9]*,10,10,1,LongWait,1000000000,2200000000,[0-9]*,12,open,' <<<"$output"
	done
	run argus-spin -qZ -T 1s --tid 10 r-answered
	[ "$status" -eq 1 ]
}

# A poller's rounds, as the capture records them: $1 rounds of a 1 ms
# nap; round $2 spends most of its time inside the nap before it is
# switched out; the rounds listed in $3 (1000,1001) most of their time
# on a CPU before they do anything; every round on a CPU $4 ns (default
# 40 us) of it.
poll_rounds() {
	awk -v n="$1" -v stall="$2" -v stray=",$3," -v busy="${4:-40000}" \
	    -v cut="${5:-0}" 'BEGIN {
		t = 1000000000
		for (i = 1; i <= n; i++) {
			on = busy; d = busy + 1000000; nap = t + on - 1000
			if (i == stall) { on = 900000; d = 1050000; nap = t + 20000 }
			if (index(stray, "," i ",")) { on = 4800000; d = 5800000; nap = t + on - 1000 }
			if (i > 1)
				printf "link,%d,30,30,%d,%d,strong,timeout,%d,30,30,0xffff\n", t, i - 1, i, t - 1
			if (i == n && cut) {
				printf "vertex,%d,30,30,%d,%d,%d,%d,0,timeout,open,,poller\n", t + cut, i, t, t + cut, cut
				break
			}
			printf "event,%d,30,30,%d,0,sys_enter,-,24,sched_yield\n", nap - 1000, i
			printf "event,%d,30,30,%d,0,sys_enter,-,230,clock_nanosleep,0x1,0x0,0x7ffc\n", nap, i
			printf "event,%d,30,30,%d,0,switch,-,S,0,0,swapper/0\n", t + on, i
			printf "vertex,%d,30,30,%d,%d,%d,%d,3,timeout,%s,S,poller\n", t + d, i, t, t + d, on, i == n ? "open" : "wait"
			t += d
		}
	}' | stream
}

@test "spin: a poller's round whose CPU went elsewhere unrecorded does not end its RepeatedYield" {
	# A round whose nap began, then held the CPU 0.88 ms before the
	# switch-out; another, alone among idle rounds, on a CPU 4.8 ms of
	# its 5.8 before its first event (a hypervisor's steal, as a loaded
	# VM shows them): one episode, first round to last.
	poll_rounds 2500 1000 2000 >p
	run argus-spin -qZ --tid 30 p
	[ "$status" -eq 0 ]
	grep '^spin,' <<<"$output"
	grep -q '^spin,[0-9]*,30,30,1,RepeatedYield,1000000000,[0-9]*,[0-9]*,2500,open,0,2500,poller$' <<<"$output"
	# Two busy rounds in a row are work: the episode is the 1.3 s after
	# them, short of 2 s.
	poll_rounds 2500 0 1200,1201 >q
	run argus-spin -qZ --tid 30 q
	[ "$status" -eq 1 ]
	run argus-spin -qZ -T 1s --tid 30 q
	[ "$status" -eq 0 ]
	grep '^spin,' <<<"$output"
	grep -q '^spin,[0-9]*,30,30,1202,RepeatedYield,' <<<"$output"
	# A worker on a CPU 5 ms of every 6, napping between: working, not
	# polling.
	poll_rounds 2500 0 0 5000000 >w
	run argus-spin -qZ --tid 30 w
	[ "$status" -eq 1 ]
}

@test "spin: a poller's hang cut while it is on a CPU is still going on" {
	# The recording ends 20 us into a round, before its nap: that round
	# has done no more than any other yet.  One episode, open.
	poll_rounds 2500 0 0 40000 20000 >c
	run argus-spin -qZ --tid 30 c
	[ "$status" -eq 0 ]
	grep '^spin,' <<<"$output"
	grep -q '^spin,[0-9]*,30,30,1,RepeatedYield,1000000000,[0-9]*,[0-9]*,2499,open,0,2500,poller$' <<<"$output"
	# A round on a CPU past poll_max when it ends is work, not a round.
	poll_rounds 2500 0 0 40000 150000000 >w
	run argus-spin -qZ --tid 30 w
	[ "$status" -eq 0 ]
	grep '^spin,' <<<"$output"
	grep -q '^spin,[0-9]*,30,30,1,RepeatedYield,1000000000,[0-9]*,[0-9]*,2499,timeout,2499,2499,poller$' <<<"$output"
}

# Thread 30, ten rounds of a poll (20 ms on a CPU, a 150 ms nap its timer
# ends, on a CPU 10 us after the wake-up), then a 5 ms nap whose wake-up
# waits LATENCY ns for a CPU, then 1.6 s open, on a CPU 80 ms of it: a
# CPU hog came, and the poller is starved.
starved_rounds() {	# LATENCY
	awk -v lat="$1" 'BEGIN {
		t = 1000000000
		printf "task,%d,30,30,client\n", t
		for (i = 1; i <= 11; i++) {
			on = i < 11 ? 20000000 : 400000
			nap = i < 11 ? 150000000 : 5000000
			d = on + nap + (i < 11 ? 10000 : lat)
			if (i > 1)
				printf "link,%d,30,30,%d,%d,strong,timeout,%d,0,0,0xffff\n", t, i - 1, i, t - 1
			printf "event,%d,30,30,%d,0,sys_enter,-,230,clock_nanosleep,0x1,0x0,0x7ffc\n", t + on - 1000, i
			printf "event,%d,30,30,%d,0,switch,-,S,0,0,swapper/0\n", t + on, i
			printf "event,%d,0,0,0,0,waking,h,30,30,0,client,120\n", t + on + nap
			printf "event,%d,0,0,0,0,switch,-,R,30,30,client\n", t + d
			printf "vertex,%d,30,30,%d,%d,%d,%d,4,timeout,wait,S,client\n", t + d, i, t, t + d, on
			t += d
		}
		printf "link,%d,30,30,11,12,strong,timeout,%d,0,0,0xffff\n", t, t - 1
		printf "vertex,%d,30,30,12,%d,%d,80000000,0,timeout,open,,client\n", t + 1600000000, t, t + 1600000000
	}' | stream
}

@test "spin: a thread starved of a CPU is one LongRunning hang, its own naps between" {
	# The last nap's wake-up waited 0.95 s for a CPU: a wait for a CPU,
	# not a nap of the poll before it; with the 1.6 s after, one hang.
	starved_rounds 950000000 >s
	run argus-spin -qZ --tid 30 s
	[ "$status" -eq 0 ]
	grep '^spin,' <<<"$output"
	grep -q '^spin,[0-9]*,30,30,11,LongRunning,2700100000,5255500000,80400000,1,open,0,12,client$' <<<"$output"
	run argus-spin -qZ -T 1s --tid 30 s
	grep '^spin,' <<<"$output"
	grep -q '^spin,[0-9]*,30,30,1,RepeatedYield,1000000000,2700100000,[0-9]*,10,timeout,10,10,client$' <<<"$output"
	grep -q '^spin,[0-9]*,30,30,11,LongRunning,2700100000,5255500000,' <<<"$output"
	# On a CPU 10 us after that wake-up: the 1.6 s alone, short of 2 s.
	starved_rounds 10000 >n
	run argus-spin -qZ --tid 30 n
	[ "$status" -eq 1 ]
}

# A shell's poll, each round a child run and waited for (CALL: what the
# child does, sleep or read, NAP long).  With dash: as dash runs it, the
# child vforked (the shell waits for its exec), and a line of "waiting"
# written each round first.
shell_poll() {	# CALL NAP ROUNDS [dash]
	awk -v call="$1" -v nap="$2" -v n="$3" -v dash="${4:-}" 'BEGIN {
		t = 1000000000
		for (i = 1; i <= n; i++) {
			k = 100 + i
			printf "event,%d,1,1,,0,sys_enter,-,262,newfstatat,0x3,0x7ffc,0x7ffd,0x0\n", t
			if (dash)
				printf "event,%d,1,1,,0,sys_enter,-,1,write,0x1,0x7ffc,0x8\n", t + 50
			printf "event,%d,1,1,,0,fork,-,%d,%d,%s,sh\n", t + 100, k, k, dash ? "0x4111" : "0x1200000"
			printf "event,%d,1,1,,0,wakeup_new,-,%d,%d,1,sh,120\n", t + 200, k, k
			if (dash) {
				printf "event,%d,1,1,,0,switch,-,D,0,0,swapper/0\n", t + 300
				printf "event,%d,0,0,,1,switch,-,R,%d,%d,sh\n", t + 400, k, k
				printf "event,%d,%d,%d,,1,exec,-,/usr/bin/sleep,%d\n", t + 500, k, k, k
				printf "event,%d,%d,%d,,1,waking,-,1,1,0,sh,120\n", t + 600, k, k
				printf "event,%d,0,0,,0,switch,-,R,1,1,sh\n", t + 700
				printf "event,%d,1,1,,0,sys_enter,-,61,wait4,0xffffffff,0x7ffd0,0x0,0x0\n", t + 800
				printf "event,%d,1,1,,0,switch,-,S,0,0,swapper/0\n", t + 900
			} else {
				printf "event,%d,1,1,,0,sys_enter,-,61,wait4,0xffffffffffffffff,0x7ffd0,0x0,0x0\n", t + 300
				printf "event,%d,1,1,,0,switch,-,S,0,0,swapper/0\n", t + 400
				printf "event,%d,0,0,,1,switch,-,R,%d,%d,sh\n", t + 1000, k, k
			}
			if (call == "read")
				printf "event,%d,%d,%d,,1,sys_enter,-,0,read,0x0,0x7ffc,0x1\n", t + 2000, k, k
			else
				printf "event,%d,%d,%d,,1,sys_enter,-,230,clock_nanosleep,0x0,0x0,0x7ffe0,0x0\n", t + 2000, k, k
			printf "event,%d,%d,%d,,1,switch,-,S,0,0,swapper/1\n", t + 2100, k, k
			if (i == n)
				break
			printf "event,%d,0,0,,1,switch,-,R,%d,%d,sh\n", t + nap, k, k
			printf "event,%d,%d,%d,,1,exit,-,sh,%d\n", t + nap + 100, k, k, k
			printf "event,%d,%d,%d,,1,waking,-,1,1,0,sh\n", t + nap + 200, k, k
			printf "event,%d,%d,%d,,1,switch,-,Z,0,0,swapper/1\n", t + nap + 300, k, k
			printf "event,%d,0,0,,0,switch,-,R,1,1,sh\n", t + nap + 400
			printf "event,%d,1,1,,0,sys_exit,-,61,wait4,%d\n", t + nap + 500, k
			t += nap + 1000
		}
		printf "event,%d,9,9,,1,sys_enter,-,39,getpid\n", t + nap
	}' | stream
}

@test "spin: dash's rounds, a vfork and a line written each, are naps: RepeatedYield" {
	out=$(shell_poll sleep 100000000 15 dash | argus-segment -q -Z |
	    argus-link -q -Z | argus-spin -q -Z --tid 1 -T 1s)
	grep '^spin,' <<<"$out"
	grep -q '^spin,[0-9]*,1,1,[0-9]*,RepeatedYield,' <<<"$out"
	run argus-slice --auto -Z -o /dev/null <<<"$out"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the process polls, a child's sleep between its tries (a shell's loop)"* ]]
}

@test "spin: a shell's rounds that wait for a child that only slept are naps: RepeatedYield" {
	# `while [ ! -e F ]; do sleep 0.1; done`: each round a wait for a
	# child asleep 0.1 s.
	out=$(shell_poll sleep 100000000 15 | argus-segment -q -Z |
	    argus-link -q -Z | argus-spin -q -Z --tid 1 -T 1s)
	grep '^spin,' <<<"$out"
	grep -q '^spin,[0-9]*,1,1,1,RepeatedYield,1000000000,2400013400,13400,14,wakeup,' <<<"$out"
	# What it tests is no flag: argus-slice says so, and where to look.
	run argus-slice --auto -Z -o /dev/null <<<"$out"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the process polls, a child's sleep between its tries (a shell's loop)"* ]]
	# A thread's own naps poll a flag of its program: trace that.
	poll_rounds 2500 0 0 >"$BATS_TEST_TMPDIR/naps"
	run sh -c "argus-spin -q -Z --tid 30 '$BATS_TEST_TMPDIR/naps' |
	    argus-slice --auto -Z -o /dev/null"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the thread polls: only a data flag can tell who should have ended the loop"* ]]
	# Children that read their input are work waited for, not naps.
	shell_poll read 100000000 15 | argus-segment -q -Z |
	    argus-link -q -Z >"$BATS_TEST_TMPDIR/reads"
	run argus-spin -q -Z --tid 1 -T 1s "$BATS_TEST_TMPDIR/reads"
	[ "$status" -eq 1 ]
	# A child asleep as long as a hang is that hang: a LongWait on it.
	out=$(shell_poll sleep 3000000000 2 | argus-segment -q -Z |
	    argus-link -q -Z | argus-spin -q -Z --tid 1 -T 1s)
	grep -q '^spin,[0-9]*,1,1,1,LongWait,1000000000,4000000400,' <<<"$out"
}

@test "similar: a new process's baseline is another process of the same program, one a signal killed none" {
	# cli 10 read its answer from srv 30 in 20 ms, and exited; cli 20,
	# new, has waited in the same read for 3 s.  Its own history is
	# empty: 10's wait is the baseline.
	stream >x <<-'EOF'
	event,1000000000,10,10,1,0,sys_enter,-,0,read,0x3,0x0,0x1
	event,1000000100,10,10,1,0,switch,-,S,0,0,swapper/0
	vertex,1020000000,10,10,1,1000000000,1020000000,50000,2,fork,wait,S,cli
	vertex,1020000000,30,30,3,990000000,1020000000,90000,1,start,wait,S,srv
	link,1020000000,10,10,3,2,strong,wakeup,1020000000,30,30,
	vertex,1021000000,10,10,2,1020000000,1021000000,50000,1,wakeup,exit,,cli
	event,2000000000,20,20,4,1,sys_enter,-,0,read,0x3,0x0,0x1
	event,2000000100,20,20,4,1,switch,-,S,0,0,swapper/1
	vertex,5000000000,20,20,4,2000000000,5000000000,50000,2,fork,open,S,cli
	EOF
	argus-spin -qZ -T 1s --tid 20 x >s
	run argus-similar -Z -T 1s s
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^baseline,[0-9]*,20,20,4,1,1,[0-9.]*,3,"another process of the same program, 10/10; same system calls read; woken by wakeup from 30/30' <<<"$output"
	# cli 15 hung in the same read too, until a watchdog (40) killed it:
	# cut short, not answered, and no baseline however recent.
	{ sed -n 1,7p x
	  cat <<-'EOF'
	event,1500000000,15,15,5,0,sys_enter,-,0,read,0x3,0x0,0x1
	event,1500000100,15,15,5,0,switch,-,S,0,0,swapper/0
	vertex,1520000000,15,15,5,1500000000,1520000000,50000,2,fork,wait,S,cli
	vertex,1520000000,40,40,7,1490000000,1520000000,90000,1,start,wait,S,watchdog
	link,1520000000,15,15,7,6,strong,signal,1520000000,40,40,SIGKILL
	vertex,1520100000,15,15,6,1520000000,1520100000,50000,1,signal,exit,,cli
	EOF
	  sed -n '8,$p' x; } >k
	argus-spin -qZ -T 1s --tid 20 k >s
	run argus-similar -Z -T 1s s
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^baseline,[0-9]*,20,20,4,1,1,[0-9.]*,3,"another process of the same program, 10/10;' <<<"$output"
	! grep -q '^baseline,[0-9]*,20,20,4,5,' <<<"$output"
}

@test "similar: a futex wait's baseline waited on the same word, not on any futex" {
	# ui 10 sends its request (sendto 5) and waits on word 0x2000 for the
	# worker's answer; it did so once before (vertex 2, a wake and a write
	# besides), and at its start waited once on another word (vertex 1,
	# that futex alone).  The call names alone, and the links, made the
	# start-up wait the closer; the word says it was another wait.
	stream >x <<-'EOF'
	vertex,1000000000,30,30,7,900000000,1000000000,90000,1,start,wait,S,starter
	link,1000000000,10,10,7,1,strong,wakeup,1000000000,30,30,
	event,1000000000,10,10,1,0,sys_enter,-,202,futex,0x1000,0x80,0x0
	event,1000000100,10,10,1,0,switch,-,S,0,0,swapper/0
	vertex,1020000000,10,10,1,1000000000,1020000000,50000,2,wakeup,wait,S,ui
	vertex,1020000000,30,30,3,1000000000,1020000000,90000,1,wakeup,wait,S,starter
	link,1020000000,10,10,3,2,strong,wakeup,1020000000,30,30,
	event,1020000100,10,10,2,0,sys_enter,-,202,futex,0x3000,0x81,0x1
	link,1020000100,40,40,2,8,strong,wakeup,1020000100,10,10,
	event,1020000200,10,10,2,0,sys_enter,-,44,sendto,0x5,0x0,0x10
	event,1020000300,10,10,2,0,sys_enter,-,1,write,0x7,0x0,0x1
	event,1020000400,10,10,2,0,sys_enter,-,44,sendto,0x5,0x0,0x10
	event,1020000500,10,10,2,0,sys_enter,-,202,futex,0x2000,0x80,0x0
	event,1020000600,10,10,2,0,switch,-,S,0,0,swapper/0
	vertex,1020000900,40,40,8,1020000100,1020000900,800,1,wakeup,wait,S,worker
	vertex,1025000000,10,10,2,1020000000,1025000000,50000,6,wakeup,wait,S,ui
	vertex,1025000000,40,40,9,1020000900,1025000000,90000,1,wakeup,wait,S,worker
	link,1025000000,10,10,9,4,strong,wakeup,1025000000,40,40,
	event,1025000100,10,10,4,0,sys_enter,-,44,sendto,0x5,0x0,0x10
	event,1025000200,10,10,4,0,sys_enter,-,202,futex,0x2000,0x80,0x0
	event,1025000300,10,10,4,0,switch,-,S,0,0,swapper/0
	vertex,5000000000,10,10,4,1025000000,5000000000,50000,3,wakeup,open,S,ui
	EOF
	argus-spin -qZ -T 1s --tid 10 x >s
	run argus-similar -qZ -T 1s s
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^baseline,[0-9]*,10,10,4,2,1,[0-9.]*,9,.*the same wait; woken by wakeup from 40/40' <<<"$output"
	# The start-up wait is still alike, below: the same call, not the
	# same wait.
	grep -q '^baseline,[0-9]*,10,10,4,1,2,.*(hang: sendto,futex); woken by' <<<"$output"
}

@test "similar: the same wait answered in a few tenths of a hang cut short is its baseline, not a disk read on that descriptor's number" {
	# watcher 10 reads descriptor 3: first a file, a wait for the disk
	# (D, vertex 1, 11 ms, woken by the block layer); then, the number
	# reused, a queue writer 20 fills every 200 ms (S, vertices 2-4).
	# The fifth read has waited 1.2 s when the trace ends: the answered
	# reads are a sixth of that, over the tenth a baseline is held to,
	# and the disk read alone was short enough.  It is another wait.
	stream >x <<-'EOF'
	event,980000000,10,10,1,0,sys_enter,-,0,read,0x3,0x0,0x1000
	event,980000100,10,10,1,0,switch,-,D,0,0,swapper/0
	vertex,991000000,10,10,1,970000000,991000000,50000,2,start,wait,D,watcher
	link,991000000,10,10,1,2,strong,block,980000100,10,10,
	event,991000100,10,10,2,0,sys_enter,-,0,read,0x3,0x0,0x1000
	event,991000200,10,10,2,0,switch,-,S,0,0,swapper/0
	vertex,1200000000,20,20,21,1000000000,1200000000,90000,1,start,wait,S,writer
	vertex,1200000000,10,10,2,991000000,1200000000,30000,2,block,wait,S,watcher
	link,1200000000,10,10,21,3,strong,wakeup,1200000000,20,20,
	event,1200000100,10,10,3,0,sys_enter,-,0,read,0x3,0x0,0x1000
	event,1200000200,10,10,3,0,switch,-,S,0,0,swapper/0
	vertex,1400000000,20,20,22,1200000000,1400000000,90000,1,wakeup,wait,S,writer
	vertex,1400000000,10,10,3,1200000000,1400000000,30000,2,wakeup,wait,S,watcher
	link,1400000000,10,10,22,4,strong,wakeup,1400000000,20,20,
	event,1400000100,10,10,4,0,sys_enter,-,0,read,0x3,0x0,0x1000
	event,1400000200,10,10,4,0,switch,-,S,0,0,swapper/0
	vertex,1600000000,20,20,23,1400000000,1600000000,90000,1,wakeup,wait,S,writer
	vertex,1600000000,10,10,4,1400000000,1600000000,30000,2,wakeup,wait,S,watcher
	link,1600000000,10,10,23,5,strong,wakeup,1600000000,20,20,
	event,1600000100,10,10,5,0,sys_enter,-,0,read,0x3,0x0,0x1000
	event,1600000200,10,10,5,0,switch,-,S,0,0,swapper/0
	vertex,2800000000,10,10,5,1600000000,2800000000,30000,2,wakeup,open,S,watcher
	EOF
	argus-spin -qZ -T 1s --tid 10 x >s
	run argus-similar -qZ -T 1s s
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^baseline,[0-9]*,10,10,5,4,1,[0-9.]*,23,same system calls read; woken by wakeup from 20/20' <<<"$output"
	# The disk read is alike still, last: another wait.
	grep -q '^baseline,[0-9]*,10,10,5,1,4,.*; woken by block from 10/10' <<<"$output"
}
