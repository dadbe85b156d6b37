#!/usr/bin/env bats
# What a newcomer meets first (issue 38): the right process by name, no
# question nobody can answer or that has one answer, no false line beside
# a right answer, and a JSON that says what the report says, as surely.
# test/run: alone, its recorders' 32M buffers hold a hang's beginning only
# without a neighbour's flood of events (as debug.bats's).

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	# Vertex 3 (gamma) has two strong causes, alpha's message and beta's:
	# a question.  Vertex 5 (epsilon) has one cause, a weak link from
	# alpha, another process: no question, the rule's to take or not.
	stream >g.csv <<-'EOF'
	vertex,100,10,10,1,0,100,50,2,start,wait,S,alpha
	link,105,20,20,1,2,strong,wakeup,95,10,10,
	vertex,110,20,20,2,105,110,4,2,wakeup,wait,S,beta
	link,200,30,30,1,3,strong,message,90,10,10,
	link,200,30,30,2,3,strong,message,108,20,20,
	vertex,300,30,30,3,200,300,90,2,wakeup,open,,gamma
	link,700,50,50,1,5,weak,wait,95,10,10,
	vertex,700,50,50,5,600,700,90,2,wakeup,wait,S,epsilon
	EOF
}

teardown() {
	local f
	if [ -f "$BATS_TEST_TMPDIR/ring/recorder.pid" ]; then
		argus --ring "$BATS_TEST_TMPDIR/ring" stop >/dev/null 2>&1 || true
	fi
	for f in "$BATS_TEST_TMPDIR"/*.kill; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
	done
	# A redis-server in DEBUG SLEEP would finish it before its SIGTERM.
	[ ! -f "$BATS_TEST_TMPDIR/redis.kill" ] ||
	    kill -KILL "$(cat "$BATS_TEST_TMPDIR/redis.kill")" 2>/dev/null || true
	if [ -f "$BATS_TEST_TMPDIR/hosts.up" ]; then
		ARGUS_RING="$BATS_TEST_TMPDIR/ring" argus stop >/dev/null 2>&1 || true
		hosts_down
	fi
}

# The rest of the line, stdout into out.txt, stderr into err.txt, with no
# controlling terminal (as from cron); its exit status in $rc.
script_run() {
	rc=0
	setsid -w "$@" >out.txt 2>err.txt </dev/null || rc=$?
	echo "exit $rc"; echo "--- stdout"; cat out.txt; echo "--- stderr"; cat err.txt
}

@test "newcomer: without a terminal the rule answers, and says so, where there was a refusal (exit 69)" {
	need_prog setsid
	script_run argus-slice -Z --from 3 g.csv
	[ "$rc" -eq 0 ]
	grep -q 'no terminal to ask on.*answering by rule, as --auto does' err.txt
	# The rule's answer: the most recent cause, beta's message.
	grep -q '^step,[0-9]*,30,30,1,1,3,2,message,strong,auto$' out.txt
	# As --auto would have it, step for step.
	argus-slice -Z -q --from 3 --auto g.csv | grep '^step,' >auto.steps
	diff auto.steps <(grep '^step,' out.txt)
}

@test "newcomer: a question with one answer is never asked (no 'choose 1-1')" {
	need_prog script
	# Typed: nothing; a question would meet the end of input and stop.
	: >typed
	script -qec 'argus-slice -Z --from 5 g.csv >out.csv' /dev/null <typed >tty || true
	tr -d '\r' <tty >tty.raw
	cat tty.raw out.csv
	! grep -q 'Which of these' tty.raw || false
	! grep -q 'choose 1-1' tty.raw || false
	grep -q 'Queries asked: 0\.' tty.raw
	# The rule's word on a weak link into another process: not followed.
	grep -q '^step,[0-9]*,50,50,1,1,5,0,,,untouched$' out.csv
}

@test "newcomer: the report's path length is the slice from the hang, not 'interactive' steps nobody was asked about" {
	run argus-slice -Z --from 2 --auto g.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Queries asked: 0."* ]]
	[[ "$output" != *" interactive"* ]]
	n=$(grep -c '^step,[0-9]*,[0-9]*,[0-9]*,1,' <<<"$output")
	[[ "$output" == *"Path length: $n from the hang, "*" by the rule alone."* ]]
}

# redis-server on loopback; $port, its pid in redis.kill.
redis_up() {
	port=$(free_port)
	redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
	    --enable-debug-command yes --dir "$BATS_TEST_TMPDIR" >redis.log 2>&1 &
	echo $! >redis.kill
	for i in $(seq 100); do redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
}

@test "newcomer: argus debug --comm takes the thread of that name blocked longest now, says which, lists the others; from a script, no refusal; loopback is no other host" {
	need_tracing
	need_prog redis-server redis-cli flock setsid
	ring="$BATS_TEST_TMPDIR/ring"
	# The real programs under names of this test's own: the machine is
	# shared, and others' redis-cli and flock are no part of it.
	cli=rcli$$ flk=flk$$
	cp "$(command -v redis-cli)" "$cli"
	cp "$(command -v flock)" "$flk"
	redis_up
	recorder
	# Earlier clients of the same name, exited: not the hang.
	for i in 1 2 3; do ./"$cli" -p "$port" ping >/dev/null; done
	# When a thread last ran is known to the CPUs' scheduler clocks,
	# which drift apart on a loaded virtual machine (seconds): the hang
	# begins well inside the recording, its two clients well apart.
	sleep 3
	./"$cli" -p "$port" DEBUG SLEEP 40 >/dev/null &
	sleeper=$!
	echo $sleeper >sleeper.kill
	sleep 1.5
	./"$cli" -p "$port" GET k >/dev/null &
	get=$!
	echo $get >get.kill
	# A lock's holder (waiting for its child) and its waiter, both flock.
	./"$flk" lock sleep 40 &
	echo $! >holder.kill
	sleep 0.5
	./"$flk" lock true &
	waiter=$!
	echo $waiter >waiter.kill
	sleep 3.5
	# The GET's connection is on this host, in the listener's backlog:
	# no "another host".
	script_run argus --ring "$ring" debug --pid "$get" --auto
	[ "$rc" -eq 0 ]
	grep -q "^Wait chain: $cli $get → redis-server $(cat redis.kill)" out.txt
	! grep -q 'another host' err.txt || false
	! grep -q 'Path length: [0-9]* interactive' out.txt || false
	# As the README's quick start has it, from a script: no --auto.
	script_run argus --ring "$ring" debug --comm "$cli"
	[ "$rc" -eq 0 ]
	grep -q "^argus-spin: --comm $cli: $cli $sleeper/$sleeper, blocked [0-9.]* s in [a-z]* at the end, the longest of 2 blocked; the others: $cli $get/$get [0-9.]* s in [a-z]*; [0-9]* more of that name ran or exited\$" err.txt
	grep -q "^Wait chain: $cli $sleeper → redis-server $(cat redis.kill)" out.txt
	! grep -q '/dev/tty' err.txt || false
	script_run argus --ring "$ring" debug --comm "$flk"
	[ "$rc" -eq 0 ]
	grep -q "^argus-spin: --comm $flk: $flk $waiter/$waiter, blocked [0-9.]* s in flock at the end, the longest of 2 blocked; the others: $flk $(cat holder.kill)/$(cat holder.kill) [0-9.]* s in wait4 (its own child)" err.txt
	grep -q "^Wait chain: $flk $waiter → $flk $(cat holder.kill)" out.txt
}

@test "newcomer: argus debug's JSON says what its report says, as surely: confidence, chain, functions, wall-clock times" {
	need_tracing
	need_prog redis-server redis-cli python3
	ring="$BATS_TEST_TMPDIR/ring"
	redis_up
	recorder
	sleep 3		# the hang well inside the recording, as above
	redis-cli -p "$port" DEBUG SLEEP 40 >/dev/null &
	cli=$!
	echo $cli >cli.kill
	sleep 3
	split_run() { rc=0; "$@" >out.txt 2>err.txt || rc=$?; cat out.txt err.txt; }
	split_run argus --ring "$ring" debug --pid "$cli" --auto --json d.json
	[ "$rc" -eq 0 ]
	python3 - <<'PY'
import json, re, time
d = json.load(open("d.json"))
text = open("out.txt").read()
head = re.search(r"^Root cause: (.*)$", text, re.M).group(1)
m = re.match(r"(probably )?(.*?) \(([^);]*)[;)]", head)
assert m, head
probably, who, conf = bool(m.group(1)), m.group(2), m.group(3)
assert d["confidence"] == conf, (d["confidence"], conf)
assert d["probably"] is probably, (d["probably"], probably)
diag = d["diagnoses"][0]
assert diag["confidence"] == conf and diag["probably"] is probably
# The chain: the same threads, in the same order, as the text's.
chain = re.search(r"^Wait chain: (.*)$", text, re.M).group(1).split(" → ")
pids = [int(h.split()[1].split("/")[0]) for h in chain]
assert [diag["victim"]["pid"]] + [t["pid"] for t in diag["chain"]] == pids, (pids, diag)
assert who.split()[1] == str(diag["root_causes"][0]["pid"]), (who, diag["root_causes"])
# Each hop says how sure it is; the victim has none.
assert diag["victim"]["hop"] is None
assert all(t["hop"] for t in diag["chain"]), diag["chain"]
# Where the text's stacks name a thread's function, its entry does too.
fns = {s["tid"]: s["function"] for s in d["stacks"]}
for t in [diag["victim"]] + diag["chain"]:
    if fns.get(t["tid"]):
        assert t["function"], t
        assert "in %s " % t["function"] in text, (t["function"], text)
# Wall-clock times beside the monotonic ones, by the capture's anchor.
now_wall, now_mono = time.time(), time.clock_gettime_ns(time.CLOCK_MONOTONIC)
for t in [diag["victim"]] + diag["chain"]:
    for k in ("begin", "end"):
        w = time.mktime(time.strptime(t[k][:19], "%Y-%m-%dT%H:%M:%S"))
        w += float("0." + t[k][20:])
        want = now_wall - (now_mono - t[k + "_ns"]) / 1e9
        assert abs(w - want) < 2, (t, w, want)
PY
}

# Two hosts as hosts.bats makes them (network namespaces, a host name
# each), on addresses of their own; redis-server on B.
NSA=argus-nca-$$ NSB=argus-ncb-$$ VA=argnca$$ VB=argncb$$

on() {
	local ns=$NSA name=hosta
	[ "$1" = B ] && ns=$NSB name=hostb
	shift
	nsenter --net="/run/netns/$ns" unshare --uts sh -c \
	    'hostname "$0"; exec "$@"' "$name" "$@"
}

on_bg() {
	local ns=$NSA name=hosta
	[ "$1" = B ] && ns=$NSB name=hostb
	shift
	(exec nsenter --net="/run/netns/$ns" unshare --uts sh -c \
	    'hostname "$0"; exec "$@"' "$name" "$@") &
}

hosts_down() {
	ip netns del "$NSA" 2>/dev/null || true
	ip netns del "$NSB" 2>/dev/null || true
}

@test "newcomer: across hosts, a connection both recordings hold is a hop the connection says, not a guess; no 'no recording' beside it" {
	need_tracing
	need_prog ip nsenter unshare redis-server redis-cli
	local t
	for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -e $t/events/sock/sock_send_length ] && break
		t=
	done
	[ -n "$t" ] || skip "no sock:sock_send_length tracepoint (Linux 6.3 or later)"
	hosts_down
	ip netns add "$NSA"
	ip netns add "$NSB"
	echo hosts >hosts.up
	ip link add "$VA" type veth peer name "$VB"
	ip link set "$VA" netns "$NSA"
	ip link set "$VB" netns "$NSB"
	ip -n "$NSA" addr add 10.232.0.1/24 dev "$VA"
	ip -n "$NSB" addr add 10.232.0.2/24 dev "$VB"
	ip -n "$NSA" link set "$VA" up
	ip -n "$NSB" link set "$VB" up
	ip -n "$NSA" link set lo up
	ip -n "$NSB" link set lo up
	on_bg B redis-server --port 6391 --bind 10.232.0.2 --protected-mode no --save '' --appendonly no \
	    --enable-debug-command yes --dir "$BATS_TEST_TMPDIR" >redis.log 2>&1
	echo $! >redis.kill
	for i in $(seq 100); do on A redis-cli -h 10.232.0.2 -p 6391 ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
	export ARGUS_RING=$BATS_TEST_TMPDIR/ring
	# The GET on A, once told: a few answered at once, then the one
	# that waits while another client's DEBUG SLEEP holds the server.
	on_bg A sh -c 'while [ ! -e go ]; do sleep 0.05; done
	    for i in 1 2 3; do redis-cli -h 10.232.0.2 -p 6391 GET k; done
	    touch warm; while [ ! -e slept ]; do sleep 0.05; done; sleep 1.5
	    exec redis-cli -h 10.232.0.2 -p 6391 GET k' >/dev/null
	echo $! >get.kill
	run on A argus start --live -p "$(cat get.kill)"
	echo "$output"
	rec=$(echo "$output" | sed -n 's/.*(pid \([0-9]*\),.*/\1/p')
	on_bg B argus-capture -p "$(cat redis.kill)" -d 12 -o B.gz 2>B.err
	cb=$!
	wait_capture "$cb" && wait_capture "$rec"
	touch go
	while [ ! -e warm ]; do sleep 0.05; done
	on_bg B sh -c 'touch slept; exec redis-cli -h 10.232.0.2 -p 6391 DEBUG SLEEP 40' >/dev/null
	echo $! >sleeper.kill
	wait "$cb"
	get=$(cat get.kill)
	run on A argus debug --pid "$get" --auto --json d.json --with B.gz
	echo "$output"
	on A argus stop >/dev/null 2>&1 || true
	kill "$get" "$(cat sleeper.kill)" 2>/dev/null || true
	kill -KILL "$(cat redis.kill)" 2>/dev/null || true
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "^Wait chain: redis-cli $get on host hosta → redis-server 100[0-9]* on host hostb\$"
	echo "$output" | grep -q "^Root cause: redis-server 100[0-9]* on host hostb (the connection says)"
	! echo "$output" | grep -q 'a guess from timing' || false
	! echo "$output" | grep -q 'no recording' || false
	python3 -c 'import json; d = json.load(open("d.json")); assert d["confidence"] == "the connection says" and d["probably"] is False, d'
}

@test "newcomer: a perf.data import of every system call: the Hang line names the flock it blocks in, not only the first calls (geteuid)" {
	need_perf
	need_prog flock
	: >lockfile
	ino=$(stat -c %i lockfile)
	# Every system call of the command and its children, as a user
	# records them: flock(1) makes a dozen before the one it blocks in.
	run timeout 90 perf record -q -k mono -o p.data \
	    -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup_new \
	    -e sched:sched_process_exec -e sched:sched_process_exit \
	    -e task:task_newtask -e task:task_rename \
	    -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit \
	    -- sh -c "
	    flock '$PWD/lockfile' sleep 3 & i=0
	    until grep -q ' FLOCK .*:$ino ' /proc/locks; do
		i=\$((i + 1)); [ \$i -lt 300 ] || break; sleep 0.1
	    done
	    flock '$PWD/lockfile' true; wait"
	[ "$status" -eq 0 ] || skip "perf record cannot trace here: $output"
	argus-import -o p.gz p.data
	rm -f p.data
	# The waiter: the flock process whose last call before its long wait
	# is flock(2) (number 73 on x86-64, by name after the import).
	v=$(argus-cat -Z -k event p.gz | awk -F, '$7 == "sys_enter" && $10 == "flock" { t = $4 } END { print t }')
	[ -n "$v" ]
	out=$(argus-segment -q p.gz | argus-link -q | argus-spin -q --tid "$v" -T 1s |
	    argus-similar -q 2>/dev/null | argus-slice --auto -Z 2>&1 >/dev/null) || true
	echo "$out"
	grep -Eq "^Hang: flock $v/$v .*, calls ([a-z0-9_]+,)*(\.\.\.,)?flock(,|, |$)" <<<"$out"
}

@test "newcomer: argus-spin --comm takes the thread of that name blocked at the end, the longest, not an earlier one that exited" {
	# cli 10 exited (its last vertex open, a zombie's); cli 20 and 30 are
	# blocked when the input ends, 30 the longer; cli 40 waits for its
	# own child, longest of all.
	stream >s.csv <<-'EOF2'
	task,100,40,40,cli
	event,200000000,40,40,4,0,sys_enter,-,61,wait4,0x1,0x0,0x0,0x0
	vertex,3000000000,10,10,1,0,3000000000,1000,2,start,open,Z,cli
	vertex,3000000000,40,40,4,50000000,3000000000,1000,2,start,open,S,cli
	vertex,3000000000,20,20,2,500000000,3000000000,1000,2,start,open,S,cli
	vertex,3000000000,30,30,3,100000000,3000000000,1000,2,start,open,S,cli
	EOF2
	run argus-spin -Z --comm cli -T 1s s.csv
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^spin,3000000000,30,30,3,LongWait,' <<<"$output"
	[ "$(grep -c '^spin,' <<<"$output")" -eq 1 ]
	# Which one, and the others with their waits.
	[[ "$output" == *"argus-spin: --comm cli: cli 30/30, blocked 2.9 s at the end, the longest of 3 blocked; the others: cli 40/40 3.0 s in wait4 (its own child), cli 20/20 2.5 s; 1 more of that name ran or exited"* ]]
}
