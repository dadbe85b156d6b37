#!/usr/bin/env bats
# Two hosts on this machine: network namespaces joined by a veth pair, a
# capture in each of its own processes, host B's clock shifted by a known
# offset.  A client on A (curl) waits on an HTTP server on B that waits on
# a file lock a sleeping flock(1) on B holds.

load helpers

OFFSET=37000000		# ns: host B's clock ahead of A's

need_hosts() {
	need_tracing
	for p in ip nsenter curl python3 flock; do
		command -v $p >/dev/null || skip "$p missing"
	done
	[ -e /sys/kernel/tracing/events/sock/sock_send_length ] ||
	    [ -e /sys/kernel/debug/tracing/events/sock/sock_send_length ] ||
	    skip "no sock:sock_send_length tracepoint (Linux 6.3 or later)"
}

setup_file() {
	export NSA=argus-ha-$$ NSB=argus-hb-$$ VA=argva$$ VB=argvb$$
}

teardown_file() {
	[ -z "${SERVER:-}" ] || kill "$SERVER" 2>/dev/null || true
	ip netns del "$NSA" 2>/dev/null || true
	ip netns del "$NSB" 2>/dev/null || true
}

# The scenario, once: A.gz, B.gz (B's clock shifted), in $D.
scenario() {
	D=$BATS_FILE_TMPDIR
	[ -e "$D/B.csv" ] && return 0
	ip netns add "$NSA"
	ip netns add "$NSB"
	ip link add "$VA" type veth peer name "$VB"
	ip link set "$VA" netns "$NSA"
	ip link set "$VB" netns "$NSB"
	ip -n "$NSA" addr add 10.231.0.1/24 dev "$VA"
	ip -n "$NSB" addr add 10.231.0.2/24 dev "$VB"
	ip -n "$NSA" link set "$VA" up
	ip -n "$NSB" link set "$VB" up
	ip -n "$NSA" link set lo up
	ip -n "$NSB" link set lo up
	: >"$D/lock"
	nsenter --net="/run/netns/$NSB" "$ROOT/test/progs/lockserver.py" \
	    10.231.0.2 8080 "$D/lock" & SERVER=$!
	for i in $(seq 50); do
		nsenter --net="/run/netns/$NSA" curl -s -m 2 \
		    http://10.231.0.2:8080/ >/dev/null && break
		sleep 0.1
	done
	# B: the server and, later, the lock's holder (a child of B's shell).
	nsenter --net="/run/netns/$NSB" bash -c 'sleep 2; exec flock "$1" sleep 10' \
	    _ "$D/lock" & HOLDER=$!
	nsenter --net="/run/netns/$NSB" timeout 30 argus-capture -p "$SERVER,$HOLDER" \
	    -d 6 -o "$D/B.gz" 2>"$D/B.err" & CB=$!
	# A: three requests answered at once, then one that waits on B's lock.
	nsenter --net="/run/netns/$NSA" bash -c 'sleep 1.5
	    for i in 1 2 3; do curl -s -m 2 http://10.231.0.2:8080/; done
	    sleep 1.5; exec curl -s -m 20 http://10.231.0.2:8080/' \
	    >"$D/client.out" & CLIENT=$!
	nsenter --net="/run/netns/$NSA" timeout 30 argus-capture -p "$CLIENT" \
	    -d 6 -o "$D/A.gz" 2>"$D/A.err"
	wait "$CB"
	kill "$CLIENT" "$HOLDER" 2>/dev/null || true
	argus-cat "$D/B.gz" | "$ROOT/test/progs/clockshift" "$OFFSET" >"$D/B.csv"
}

@test "hosts: argus-cat recovers host B's clock offset within its stated bound" {
	need_hosts
	scenario
	cd "$BATS_FILE_TMPDIR"
	run argus-cat -o M.gz A.gz B.csv
	echo "$output"
	[ "$status" -eq 0 ]
	# argus-cat: B.csv (host vm): clock +N ns from vm's, ±E ns (K exchanges...
	theta=$(echo "$output" | sed -n 's/.*clock \([-+][0-9]*\) ns.*/\1/p')
	err=$(echo "$output" | sed -n 's/.*±\([0-9]*\) ns.*/\1/p')
	n=$(echo "$output" | sed -n 's/.*(\([0-9]*\) exchanges.*/\1/p')
	echo "true $OFFSET recovered $theta bound $err from $n" >&3
	[ -n "$theta" ] && [ -n "$err" ]
	[ "$n" -ge 6 ]
	d=$((theta - OFFSET)); d=${d#-}
	[ "$d" -le "$err" ]
	[ "$err" -lt 5000000 ]
	# Said in the stream too, and B's PIDs moved apart.
	argus-cat M.gz | grep -q "^meta,,,,host,1,.*,10000000,${theta#+},$err\$"
	argus-cat M.gz | awk -F, '$1 == "task" && $3 >= 10000000' | grep -q python3
}

@test "hosts: argus-link links each request on A to its receipt on B and back" {
	need_hosts
	scenario
	cd "$BATS_FILE_TMPDIR"
	argus-cat A.gz B.csv 2>/dev/null | argus-segment -q | argus-link -q |
	    argus-cat -k link | grep ',remote,' >remote
	cat remote
	# A's curl (PID < 10000000) to B's server (PID >= 10000000): four
	# requests, the last of which B still holds; three replies.
	[ "$(awk -F, '$3 >= 10000000 && $10 < 10000000' remote | wc -l)" -ge 4 ]
	[ "$(awk -F, '$3 < 10000000 && $10 >= 10000000' remote | wc -l)" -ge 3 ]
	grep -q ',strong,remote,.*10.231.0.1:[0-9]*>10.231.0.2:8080$' remote
}

@test "hosts: one host twice, or hosts sharing no connection, are said, not guessed" {
	need_hosts
	scenario
	cd "$BATS_FILE_TMPDIR"
	run argus-cat --hosts A.gz A.gz
	echo "$output"
	[ "$status" -eq 65 ]
	[[ "$output" == *"all of one host"* ]]
	argus-cat -k meta B.csv >Bmeta.csv
	run argus-cat A.gz Bmeta.csv
	echo "$output"
	[ "$status" -eq 65 ]
	[[ "$output" == *"share no connection"*"unknown"* ]]
	# One host's files merge as they always did.
	run argus-cat A.gz A.gz
	[ "$status" -eq 0 ]
}
