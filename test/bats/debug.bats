#!/usr/bin/env bats
# argus debug as a person uses it (issue 24): the hang going on now, the
# report on stdout, the diagnosis as JSON, mistakes said at once, its
# files rotated, and where the threads of the chain wait now.
# Its start -b 32M keeps the mark in the kernel's buffers, which a
# neighbour's flood of events overwrote in a trial: the files that flood
# (test/run: alone) never run beside it.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	local f
	if [ -f "$BATS_TEST_TMPDIR/ring/recorder.pid" ]; then
		argus --ring "$BATS_TEST_TMPDIR/ring" stop >/dev/null 2>&1 || true
	fi
	for f in "$BATS_TEST_TMPDIR"/*.kill; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
	done
	pub_cleanup
}

# Runs the rest of the line, stdout into out.txt, stderr into err.txt;
# its exit status in $rc.
split() {
	rc=0
	"$@" >out.txt 2>err.txt || rc=$?
	echo "exit $rc"; echo "--- stdout"; cat out.txt; echo "--- stderr"; cat err.txt
}

@test "argus debug: the hang going on now, not an older mark's; the report on stdout, the moment said" {
	need_tracing
	command -v flock >/dev/null || skip "flock (util-linux) missing"
	ring="$BATS_TEST_TMPDIR/ring"
	recorder
	run argus --ring "$ring" mark an old incident
	[ "$status" -eq 0 ]
	sleep 1
	# The holder's sleep outlasts the test, however slow the machine (a
	# sanitizer build's five diagnoses took 40 s); teardown ends it.
	flock lock sleep 600 &
	echo $! >holder.kill
	sleep 0.5
	pgrep -P "$(cat holder.kill)" >sleep.kill
	flock lock true &
	waiter=$!
	echo $waiter >waiter.kill
	sleep 3.5
	split argus --ring "$ring" debug --pid "$waiter" --auto
	[ "$rc" -eq 0 ]
	# The report, whole, where a person redirects it; the doing elsewhere.
	grep -q '^Moment: the hang going on now (' out.txt
	grep -q "^Wait chain: flock $waiter " out.txt
	grep -q '^Root cause: ' out.txt
	! grep -q 'argus: diagnosing' out.txt || false
	grep -q 'argus: diagnosing the last 60 s' err.txt
	! grep -q 'Wait chain' err.txt || false
	# A moment that long ago, as asked.
	split argus --ring "$ring" debug --pid "$waiter" --auto --at -1s
	[ "$rc" -eq 0 ]
	grep -q '^Moment: .*, as asked (--at)$' out.txt
	grep -q "^Wait chain: flock $waiter " out.txt
	# A clock time, as a person reads it off a log.
	split argus --ring "$ring" debug --pid "$waiter" --auto --at "$(date -d '-1 sec' +%H:%M:%S)"
	[ "$rc" -eq 0 ]
	grep -q '^Moment: .*, as asked (--at)$' out.txt
	grep -q "^Wait chain: flock $waiter " out.txt
	# The mark, when asked for: it is from before the waiter was.
	split argus --ring "$ring" debug --pid "$waiter" --auto --at mark
	[ "$rc" -eq 1 ]
	grep -q "^Moment: the last 'argus mark', " out.txt
	! grep -q 'run argus-spin first' err.txt || false
	# No terminal and no --auto: no question, so no need of one.
	rc=0
	setsid -w argus --ring "$ring" debug --pid "$waiter" </dev/null \
	    >out.txt 2>err.txt || rc=$?
	cat out.txt err.txt
	grep -q '^Queries asked: 0\.' out.txt
	[ "$rc" -eq 0 ]
	# A process not in the recording: said at once, before any pipeline.
	start=$(date +%s)
	split argus --ring "$ring" debug --pid 3999999 --auto
	[ "$rc" -eq 66 ]
	grep -q 'debug: --pid 3999999: not in the recording of the last 60 s' err.txt
	! grep -q 'diagnosing\|argus-relate' err.txt || false
	[ $(($(date +%s) - start)) -lt 20 ]
	! grep -q 'argus-spin\|argus-segment' err.txt
}

@test "argus debug: mistakes are said before anything runs, in the porcelain's words" {
	none="$BATS_TEST_TMPDIR/none"
	for at in garbage 12 +5s; do
		run argus --ring "$none" debug --pid 1 --at "$at"
		echo "$output"
		[ "$status" -eq 64 ]
		[[ "$output" == *"debug: --at: '$at' is not a moment: now, mark, -DURATION (-20s) or a clock time (HH:MM[:SS])"* ]]
	done
	run argus --ring "$none" debug --pid 1 --at -2m --last 60s
	[ "$status" -eq 64 ]
	[[ "$output" == *"--at -2m is before the 60 s read (give a longer --last)"* ]]
	run argus --ring "$none" debug --pid 1 --at 25:99
	[ "$status" -eq 64 ]
	[[ "$output" == *"not a clock time"* ]]
	run argus --ring "$none" debug --pid 0
	[ "$status" -eq 64 ]
	[[ "$output" == *"--pid 0: not a process or thread id"* ]]
	run argus --ring "$none" debug --pid 1 --keep lots
	[ "$status" -eq 64 ]
	[[ "$output" == *"--keep: 'lots' is neither a number of files nor a size"* ]]
	run argus --ring "$none" debug --pid 1 --auto --answers x
	[ "$status" -eq 64 ]
	run argus --ring "$none" debug --threshold 3s
	[ "$status" -eq 64 ]
	[[ "$output" == *"say which program hangs"* ]]
	# None of them got as far as the recording.
	[[ "$output" != *"no recording"* ]]
}

@test "argus debug --json: the diagnosis for scripts, its moment, chain, root causes and stacks" {
	need_tracing
	ring="$BATS_TEST_TMPDIR/ring"
	recorder
	"$ROOT/test/scenarios/circular-wait" -n 1 -H 30 -t truth >/dev/null 3>&- &
	echo $! >scen.kill
	for i in $(seq 100); do grep -q '^hang_begin_ns=' truth && break; sleep 0.1; done
	sleep 3
	load_ids truth
	split argus --ring "$ring" debug --pid "$victim_pid" --auto --json -
	[ "$rc" -eq 0 ]
	# stdout is the JSON alone; the report went to stderr.
	grep -q '^Wait chain: ' err.txt
	python3 - "$victim_pid" "$root_pid" <<'EOF'
import json, sys
d = json.load(open("out.txt"))
victim, root = int(sys.argv[1]), int(sys.argv[2])
assert d["argus_debug"] == 1 and d["status"] == 0 and d["found"] is True
assert d["moment"]["kind"] == "now" and d["moment"]["ns"] > 0, d["moment"]
diag = d["diagnoses"][0]
assert diag["victim"]["pid"] == victim, diag["victim"]
assert root in [t["pid"] for t in diag["chain"]], diag["chain"]
assert diag["root_causes"] and all(t["evidence"] for t in diag["root_causes"])
fns = {s["pid"]: s for s in d["stacks"]}
assert fns[victim]["state"] in "SD" and fns[victim]["user"], fns
assert fns[root]["kernel"] and fns[root]["function"], fns[root]
EOF
	# Into a file, with the report on stdout as without it.
	split argus --ring "$ring" debug --pid "$victim_pid" --auto --json d.json
	[ "$rc" -eq 0 ]
	grep -q '^Wait chain: ' out.txt
	[ "$(stat -c %a d.json)" = 600 ]
	python3 -c 'import json; json.load(open("d.json"))'
}

@test "argus debug: each run its own file, however close; the oldest go beyond --keep" {
	need_tracing
	ring="$BATS_TEST_TMPDIR/ring"
	recorder
	# A target that keeps acting, in the recording however late it began.
	sh -c 'while :; do sleep 0.5; done' &
	echo $! >sleep.kill
	sleep 2.5
	# Two at once: the same second, two files.
	argus --ring "$ring" debug --pid "$(cat sleep.kill)" --auto --no-snapshot >a.txt 2>a.err &
	a=$!
	argus --ring "$ring" debug --pid "$(cat sleep.kill)" --auto --no-snapshot >b.txt 2>b.err &
	b=$!
	wait $a || true
	wait $b || true
	cat a.err b.err
	# The last file each names: one that read the spill back made its
	# diagnosis again, into a file of its own, the first removed.
	fa=$(sed -n 's/.*the graph and the diagnosis go to //p' a.err | tail -n 1)
	fb=$(sed -n 's/.*the graph and the diagnosis go to //p' b.err | tail -n 1)
	[ -n "$fa" ]
	[ -n "$fb" ]
	[ "$fa" != "$fb" ]
	[ -s "$fa" ]
	[ -s "$fb" ]
	[ "$(ls "$ring"/debug-*.gz | wc -l)" -eq 2 ]
	run argus --ring "$ring" debug --pid "$(cat sleep.kill)" --auto --no-snapshot --keep 2
	[ "$(ls "$ring"/debug-*.gz | wc -l)" -eq 2 ]
	# The newest is kept: the one just made.
	new=$(sed -n 's/.*the graph and the diagnosis go to //p' <<<"$output" | tail -n 1)
	[ -s "$new" ]
	ARGUS_DEBUG_KEEP=1 argus --ring "$ring" debug --pid "$(cat sleep.kill)" --auto --no-snapshot >/dev/null 2>&1 || true
	[ "$(ls "$ring"/debug-*.gz | wc -l)" -eq 1 ]
	# A size: no more than fits, this run's whatever it costs.
	argus --ring "$ring" debug --pid "$(cat sleep.kill)" --auto --no-snapshot --keep 1K >/dev/null 2>&1 || true
	[ "$(ls "$ring"/debug-*.gz | wc -l)" -eq 1 ]
	[ -z "$(find "$ring" -name '*.report')" ]
}

@test "argus debug: where a real server waits now, by function (redis-server in DEBUG SLEEP)" {
	need_tracing
	command -v redis-server >/dev/null || skip "redis-server missing (share/scripts/install-deps)"
	ring="$BATS_TEST_TMPDIR/ring"
	port=$(free_port)
	redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
	    --enable-debug-command yes --dir "$BATS_TEST_TMPDIR" >redis.log 2>&1 &
	echo $! >redis.kill
	for i in $(seq 100); do redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
	recorder
	redis-cli -p "$port" DEBUG SLEEP 30 >/dev/null &
	cli=$!
	echo $cli >cli.kill
	sleep 3
	split argus --ring "$ring" debug --pid "$cli" --auto -v
	[ "$rc" -eq 0 ]
	grep -q "^Wait chain: redis-cli $cli → redis-server $(cat redis.kill)" out.txt
	grep -q '^Where they wait now:' out.txt
	grep -E "^  redis-server $(cat redis.kill)/[0-9]+ \(S\): in debugCommand from call \(.*nanosleep\)$" out.txt
	# -v: the whole stacks, kernel and user.
	grep -qE '^      kernel  .*nanosleep' out.txt
	grep -qE '^      user    debugCommand\+0x' out.txt
}

@test "argus debug: where a python server waits now, by function (time.sleep)" {
	need_tracing
	py=$(command -v python3)
	lib=$("$py" -c 'import sysconfig, os; print(os.path.join(sysconfig.get_config_var("LIBDIR") or "", sysconfig.get_config_var("LDLIBRARY") or ""))')
	{ nm "$lib" 2>/dev/null; nm "$(readlink -f "$py")" 2>/dev/null; } | grep -qw time_sleep ||
	    skip "$py has no symbol table: time_sleep cannot be named (its debug symbols are not installed)"
	ring="$BATS_TEST_TMPDIR/ring"
	cat >srv.py <<'EOF'
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0)); s.listen(1)
open("port", "w").write(str(s.getsockname()[1]))
c, _ = s.accept(); c.recv(100); time.sleep(30); c.send(b"late\n")
EOF
	"$py" srv.py &
	echo $! >srv.kill
	for i in $(seq 100); do [ -s port ] && break; sleep 0.1; done
	recorder
	"$py" -c 'import socket, sys; s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.send(b"hi"); s.recv(10)' "$(cat port)" &
	cli=$!
	echo $cli >cli.kill
	# 3 s of the client's wait, from when the server sleeps (it has the
	# request): python's start took 1.3 s of them on a busy machine.
	for i in $(seq 300); do
		[ "$(cat "/proc/$(cat srv.kill)/wchan" 2>/dev/null)" = hrtimer_nanosleep ] &&
		    break
		sleep 0.1
	done
	sleep 3
	split argus --ring "$ring" debug --pid "$cli" --auto
	[ "$rc" -eq 0 ]
	grep -E "^  python3[.0-9]* $(cat srv.kill)/[0-9]+ \(S\): in time_sleep " out.txt
}

@test "argus mark keeps where blocked threads wait: debug at the mark names the function after the hang ended" {
	need_tracing
	command -v redis-server >/dev/null || skip "redis-server missing (share/scripts/install-deps)"
	ring="$BATS_TEST_TMPDIR/ring"
	port=$(free_port)
	redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
	    --enable-debug-command yes --dir "$BATS_TEST_TMPDIR" >redis.log 2>&1 &
	echo $! >redis.kill
	for i in $(seq 100); do redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
	recorder
	redis-cli -p "$port" DEBUG SLEEP 6 >/dev/null &
	cli=$!
	sleep 3
	run argus --ring "$ring" mark redis froze
	[ "$status" -eq 0 ]
	# Beside the snapshot, the stacks it took: records argus-cat reads.
	argus-cat -k stack "$ring"/argus-stk-*.csv.gz | grep -q ",debugCommand+0x"
	[ "$(stat -c %a "$ring"/argus-stk-*.csv.gz)" = 600 ]
	wait "$cli"
	split argus --ring "$ring" debug --pid "$cli" --auto
	[ "$rc" -eq 0 ]
	grep -q "^Moment: the last 'argus mark', .* (the target does not hang now)$" out.txt
	grep -q '^Where they waited at the mark:$' out.txt
	grep -E "^  redis-server $(cat redis.kill)/[0-9]+ \(S\): in debugCommand from call" out.txt
}
