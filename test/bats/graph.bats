#!/usr/bin/env bats
# argus-segment and argus-link on real captures of small programs whose
# graphs are known (test/progs/graph-cases.c).  Each case is captured once,
# system-wide, and the tests read the graph built from it.

load helpers

CASES="pingpong tcp mutex sleep server"

setup() {
	cd "$BATS_TEST_TMPDIR"
}

setup_file() {
	export G="$BATS_FILE_TMPDIR"
	can_trace || return 0
	for c in $CASES; do
		# Some disk writes with fsync, for work items and block I/O.
		timeout 60 argus-capture -o "$G/$c.gz" -- sh -c "
		    '$ROOT/test/progs/graph-cases' $c >'$G/$c.ids' &&
		    dd if=/dev/zero of='$G/$c.dd' bs=64k count=16 conv=fsync 2>/dev/null" \
		    2>"$G/$c.err" || return 0
		argus-segment -q "$G/$c.gz" | argus-link -q -Z >"$G/$c.csv"
	done
}

# Records of KIND whose PID is $1, one per line.
of_pid() { awk -F, -v k="$1" -v p="$2" '$1 == k && $3 == p' "$3"; }

@test "graph: pipe ping-pong alternates vertices joined by strong message links" {
	need_tracing
	load_ids "$G/pingpong.ids"
	# Every round the ponger blocks in read until the pinger writes.
	n=$(awk -F, -v a="$ping_pid" -v b="$pong_pid" '$1 == "link" &&
	    $10 == a && $3 == b && $7 == "strong" && $8 == "message"' "$G/pingpong.csv" | wc -l)
	[ "$n" -eq "$rounds" ]
	# Each of the ponger's wake-ups starts a vertex of its own.
	woken=$(of_pid vertex "$pong_pid" "$G/pingpong.csv" | awk -F, '$10 == "wakeup"' | wc -l)
	[ "$woken" -ge "$rounds" ]
	# And the answers go back: at least the rounds where the pinger waited
	# (the ponger answers 20 ms after it is woken).
	back=$(awk -F, -v a="$ping_pid" -v b="$pong_pid" '$1 == "link" &&
	    $10 == b && $3 == a && $7 == "strong"' "$G/pingpong.csv" | wc -l)
	[ "$back" -ge 1 ]
}

@test "graph: a request and reply over loopback TCP link both ways, strong" {
	need_tracing
	load_ids "$G/tcp.ids"
	# The receive softirq runs in the sender's context: still the sender's.
	req=$(awk -F, -v c="$client_pid" -v s="$server_pid" '$1 == "link" &&
	    $10 == c && $3 == s && $7 == "strong" && ($8 == "softirq" || $8 == "message")' "$G/tcp.csv" | wc -l)
	rep=$(awk -F, -v c="$client_pid" -v s="$server_pid" '$1 == "link" &&
	    $10 == s && $3 == c && $7 == "strong" && ($8 == "softirq" || $8 == "message")' "$G/tcp.csv" | wc -l)
	[ "$req" -ge $((rounds - 1)) ]
	[ "$rep" -ge $((rounds - 1)) ]
}

@test "graph: a mutex hand-off is a weak lock link" {
	need_tracing
	load_ids "$G/mutex.ids"
	awk -F, -v h="$holder_tid" -v w="$waiter_tid" '$1 == "link" &&
	    $11 == h && $4 == w && $7 == "weak" && $8 == "lock"' "$G/mutex.csv" | grep -q .
	# and not a strong wake-up
	! awk -F, -v h="$holder_tid" -v w="$waiter_tid" '$1 == "link" &&
	    $11 == h && $4 == w && $7 == "strong" && $8 != "fork"' "$G/mutex.csv" | grep -q .
}

@test "graph: a timed sleep is armed -> fired, a timeout of its own" {
	need_tracing
	load_ids "$G/sleep.ids"
	# The 100 ms sleep: a vertex ending in a wait, and the next one linked
	# from it by the thread's own timer, whose function, named from
	# /proc/kallsyms, is an address only where the kernel hides them.
	awk -F, -v p="$pid" '$1 == "link" && $4 == p && $11 == p &&
	    $7 == "strong" && $8 == "timeout" &&
	    $12 ~ /^(hrtimer_wakeup|0x[0-9a-f]+)$/ &&
	    $2 - $9 > 90000000 && $2 - $9 < 1000000000' "$G/sleep.csv" | grep -q .
}

@test "graph: a work item gets a vertex of its own in a kernel worker, linked from its queuer" {
	need_tracing
	n=0
	for c in $CASES; do
		n=$((n + $(awk -F, '$1 == "vertex" && $10 == "callout" &&
		    $13 ~ /^kworker/' "$G/$c.csv" | wc -l)))
	done
	[ "$n" -ge 1 ]
	cat "$G"/*.csv | awk -F, '$1 == "link" && $8 == "async"' | grep -q .
}

@test "graph: a server answering two clients in one loop is split by the peer set" {
	need_tracing
	load_ids "$G/server.ids"
	of_pid vertex "$server_pid" "$G/server.csv" | awk -F, '$10 == "peer-set"' | grep -q .
	# Without the rule, no split of that kind.
	argus-segment -q --no-peer-set "$G/server.gz" | argus-cat -Z |
	    awk -F, '$1 == "vertex" && $10 == "peer-set"' >"$G/nopeer"
	[ ! -s "$G/nopeer" ]
}

@test "graph: a three-line awk filter that inserts a boundary hint changes the graph" {
	need_tracing
	load_ids "$G/sleep.ids"
	before=$(argus-segment -q "$G/sleep.gz" | awk -F, -v p="$pid" '$1 == "vertex" && $4 == p' | wc -l)
	after=$(argus-cat "$G/sleep.gz" |
	    awk -F, -v p="$pid" '{ print }
	        $1 == "event" && $4 == p && $7 == "sys_enter" {
	            print "boundary," $2 "," $3 "," $4 ",each-syscall" }' |
	    argus-segment -q | awk -F, -v p="$pid" '$1 == "vertex" && $4 == p' | tee "$G/hinted" | wc -l)
	[ "$after" -gt "$before" ]
	grep -q ',hint,' "$G/hinted"
}

@test "graph: the summaries count vertices, links and culled events" {
	need_tracing
	run sh -c "argus-segment '$G/sleep.gz' | argus-link >/dev/null"
	[ "$status" -eq 0 ]
	[[ "$output" == *"argus-segment: "*" vertices, "*" events culled"* ]]
	[[ "$output" == *"argus-link: "*" strong and "*" weak links"* ]]
	grep -q '^summary,[0-9]*,,,argus-link,strong,' "$G/sleep.csv"
}

@test "graph: argus-link refuses events that were never segmented" {
	printf 'argus-stream,1\nevent,10,1,1,,0,switch,-,S,2,2,x\n' >raw.csv
	run argus-link raw.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"raw.csv:2: event without a vertex: run argus-segment first"* ]]
}

@test "graph: argus-segment names the file and line of a malformed event" {
	printf 'argus-stream,1\nevent,10,1,1,,0,switch\n' >short.csv
	run argus-segment short.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"short.csv:2: malformed event"* ]]
}
