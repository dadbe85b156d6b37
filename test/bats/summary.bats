#!/usr/bin/env bats
# argus-summary and argus summary: the first look at a capture.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	export TZ=UTC
	# Two CPUs for one second, from 1 s (16:00:00 UTC by the anchor).
	# CPU 0: worker 10/11 runs, blocks in read at 1.1 s, is woken at
	# 1.4 s by hog and runs at 1.45 s (50 ms delay), is preempted by
	# other 30/31 at 1.5 s and runs again at 1.58 s (80 ms), blocks in
	# clock_nanosleep at 1.8 s to the end.  CPU 1: hog 20/21 runs to
	# 1.6 s, is preempted by helper 30/32, runs again at 1.7 s (100 ms)
	# to the end.  On CPU: hog 600+300, worker 100+50+220, helper 100,
	# other 80 ms; 1450 of 2000 ms busy.
	stream >s.csv <<-'EOF'
	meta,1000000000,,,source,test
	meta,1000000000,,,cpus,2
	meta,1000000000,,,wallclock,1763999999000000000
	task,1000000000,10,11,worker
	task,1000000000,20,21,hog
	event,1000000000,10,11,,0,sys_enter,-,0,read,3,0x0,0x1
	event,1000000000,20,21,,1,sys_enter,-,1,write,1,0x0,0x1
	event,1010000000,20,21,,1,sys_exit,-,1,write,1
	event,1100000000,10,11,,0,switch,-,S,0,0,swapper/0
	event,1400000000,20,21,,1,waking,-,10,11,0,worker
	event,1450000000,0,0,,0,switch,-,R,10,11,worker
	event,1500000000,10,11,,0,switch,-,R+,30,31,other
	lost,1500000000,,,1,7
	event,1580000000,30,31,,0,switch,-,S,10,11,worker
	event,1600000000,20,21,,1,switch,-,R+,30,32,helper
	event,1700000000,30,32,,1,switch,-,S,20,21,hog
	event,1750000000,10,11,,0,sys_enter,-,230,clock_nanosleep,1,0x0,0x0,0x0
	event,1800000000,10,11,,0,switch,-,S,0,0,swapper/0
	event,2000000000,20,21,,1,sys_enter,-,202,futex,0x0,0x80,0x2
	meta,2000000000,,,lost,7
	EOF
}

# The table row of a thread, after the table's title.
row() {	# title thread
	sed -n "/^Threads by time $1/,/^\$/p" <<<"$output" | grep -F " $2 "
}

@test "summary: span, events, losses and CPUs of a capture" {
	run argus-summary s.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "span     2025-11-24T16:00:00.000000000 to 2025-11-24T16:00:01.000000000, 1.000 s" ]
	[[ "$output" == *$'\ncpus     2, busy 72.5% of the span\n'* ]]
	[[ "$output" == *$'\nevents   13, 13 a second:\n         switch 7, sys_enter 4, waking 1, sys_exit 1\n'* ]]
	[[ "$output" == *$'\nrecords  meta 4, task 2, lost 1\n'* ]]
	[[ "$output" == *$'\nlost     7 events: cpu1 7\n'* ]]
	[[ "$output" == *$'\nthreads  4 in 3 processes, 0 exited\n'* ]]
	# A capture that did not close says that it does not know.
	grep -v ',lost,7$' s.csv >open.csv
	run argus-summary open.csv
	[[ "$output" == *$'\nlost     7 events: cpu1 7\n'* ]]
	grep -v '^lost,' open.csv >none.csv
	run argus-summary none.csv
	[[ "$output" == *"lost     none said: no closing meta lost (a capture cut short, or still recording)"* ]]
}

@test "summary: CPU time, waits and scheduling delays, as computed by hand" {
	run argus-summary s.csv
	echo "$output"
	[ "$(row 'on CPU' hog)" = "     900.000   90.0%         1  hog 20/21" ]
	[ "$(row 'on CPU' worker)" = "     370.000   37.0%         2  worker 10/11" ]
	[ "$(row 'on CPU' helper)" = "     100.000   10.0%         1  helper 30/32" ]
	[ "$(row 'on CPU' other)" = "      80.000    8.0%         1  other 30/31" ]
	# Blocked: worker 300 ms in read, then 200 ms in clock_nanosleep to
	# the end; other and helper from their switch-out to the end.
	[ "$(row blocked worker)" = "     500.000       2       300.000  worker 10/11                     read" ]
	[ "$(row blocked other)" = "     420.000       1       420.000  other 30/31                      still waiting" ]
	[ "$(row blocked helper)" = "     300.000       1       300.000  helper 30/32                     still waiting" ]
	[ -z "$(row blocked hog)" ]
	# Delays: from the wake-up or the preemption to the switch-in.
	[ "$(row waiting hog)" = "     100.000       100.000         1  hog 20/21                        16:00:00.700000000" ]
	[ "$(row waiting worker)" = "      80.000        65.000         2  worker 10/11                     16:00:00.580000000" ]
	# The largest first, in each table.
	sed -n '/^Threads by time on CPU/,/^$/p' <<<"$output" | sed -n 3p | grep -q ' hog 20/21$'
	sed -n '/^Threads by time blocked/,/^$/p' <<<"$output" | sed -n 3p | grep -q ' worker 10/11 '
	run argus-summary -n 1 s.csv
	[[ "$output" == *$'hog 20/21\n(3 more: -n 0 for all)\n'* ]]
}

@test "summary: a window counts what falls in it, knowing what came before" {
	# From 1.5 s: hog 100 + 300 ms; worker's read is over, its sleep
	# is not; its delay at 1.58 s counts from its preemption at 1.5 s.
	for since in +0.5s 1500000000 '2025-11-24 16:00:00.5'; do
		run argus-summary -s "$since" s.csv
		echo "$output"
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "span     2025-11-24T16:00:00.500000000 to 2025-11-24T16:00:01.000000000, 0.500 s" ]
		[ "$(row 'on CPU' hog)" = "     400.000   80.0%         1  hog 20/21" ]
		[ "$(row blocked worker)" = "     200.000       1       200.000  worker 10/11                     clock_nanosleep, still waiting" ]
		[ "$(row waiting worker)" = "      80.000        80.000         1  worker 10/11                     16:00:00.580000000" ]
	done
	# To 1.5 s: hog ran all of it; worker's read ended at 1.4 s.
	run argus-summary -u +0.5s s.csv
	echo "$output"
	[ "$(row 'on CPU' hog)" = "     500.000  100.0%         0  hog 20/21" ]
	[ "$(row blocked worker)" = "     300.000       1       300.000  worker 10/11                     read" ]
	[[ "$output" == *$'\nlost     7 events: cpu1 7\n'* ]]
	# A clock time needs the anchor.
	grep -v wallclock s.csv >nowall.csv
	run argus-summary -s '2025-11-24 16:00:00.5' nowall.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"wall-clock anchor"* ]]
	run argus-summary nowall.csv
	[ "${lines[0]}" = "span     1000000000 to 2000000000 ns, 1.000 s" ]
}

@test "summary: bad input names its file and line; usage; no input" {
	sed 's/^event,1100000000,10,11,,0,switch,-,S,0,0,/event,1100000000,10,11,,0,switch,-,S,0,x,/' s.csv >bad.csv
	run argus-summary bad.csv
	echo "$output"
	[ "$status" -eq 65 ]
	[[ "$output" == "argus-summary: bad.csv:10: "*"expected a number, got 'x'"* ]]
	sed 's/^lost,1500000000,,,1,7$/lost,1500000000,,,1,many/' s.csv >bad.csv
	run argus-summary bad.csv
	[ "$status" -eq 65 ]
	[[ "$output" == "argus-summary: bad.csv:14: "* ]]
	printf 'argus-stream,1\nevent,1,10,11,,0,switch,-,S\n' >bad.csv
	run argus-summary bad.csv
	[ "$status" -eq 65 ]
	run argus-summary no-such-file
	[ "$status" -eq 66 ]
	run argus-summary -n lots s.csv
	[ "$status" -eq 64 ]
	run argus-summary --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: argus-summary"* ]]
	# Nothing to count is no error.
	stream </dev/null >empty.csv
	run argus-summary empty.csv
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "span     none: no record in the input" ]
}

@test "summary: the porcelain, of files and of the recorder's directory" {
	run argus summary -n 1 s.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(row 'on CPU' hog)" = "     900.000   90.0%         1  hog 20/21" ]
	[[ "$output" == *"(3 more: -n 0 for all)"* ]]
	run argus summary --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: argus summary"* ]]
	run argus --ring "$BATS_TEST_TMPDIR/none" summary
	[ "$status" -eq 66 ]
	[[ "$output" == *"no recording"* ]]
	# A recorder's file of the last seconds, its times moved to now.
	now=$("$ROOT/test/progs/monotime")
	mkdir -m 700 ring
	awk -F, -v OFS=, -v off=$((now - 3000000000)) \
	    'NR > 1 && $2 != "" { $2 = sprintf("%.0f", $2 + off) } { print }' s.csv |
	    gzip >ring/argus-ring-00000001.csv.gz
	run argus --ring ring summary --last 60s
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(row 'on CPU' hog)" = "     900.000   90.0%         1  hog 20/21" ]
	[ "$(row blocked worker)" = "     500.000       2       300.000  worker 10/11                     read" ]
}

@test "summary: a real capture shows a child that sleeps, then spins" {
	need_tracing
	# Names of their own: the capture is of the whole machine, where
	# other sleeps and shells may run.
	cp "$(command -v sleep)" argsleep
	cp "$(command -v sh)" argspin
	run timeout 60 argus-capture -o t.gz -- sh -c \
	    './argsleep 1; timeout 1 ./argspin -c "while :; do :; done"; true'
	echo "$output"
	[ "$status" -eq 0 ]
	# Should it fail: the sleep's own events, from its fork on.
	p=$(argus-cat -k task t.gz | awk -F, '$5 == "argsleep" { print $4; exit }')
	argus-cat -k event -p "$p" t.gz | tail -20
	run argus-summary -n 0 t.gz
	echo "$output" | head -40
	[ "$status" -eq 0 ]
	# The sleep waited its second in clock_nanosleep.
	read -r blocked waits longest rest < <(row blocked argsleep)
	echo "argsleep: $blocked $waits $longest $rest"
	awk -v x="$longest" 'BEGIN { exit !(x >= 900 && x < 5000) }'
	[[ "$rest" == *clock_nanosleep ]]
	# The spinning shell was on a CPU, or waiting for one, most of its
	# second: never blocked.  How much of it on a CPU is the machine's
	# doing (170 ms beside other sessions' builds, load 13 on 2 CPUs).
	read -r oncpu _ _ name tid _ < <(row 'on CPU' argspin | sort -rn | head -1)
	read -r _ avg n _ < <(row 'waiting for a CPU' "$name $tid")
	echo "argspin $tid: $oncpu ms on CPU, $n waits for one of $avg ms"
	awk -v c="$oncpu" -v d="$(awk -v a="${avg:-0}" -v n="${n:-0}" 'BEGIN { print a * n }')" \
	    'BEGIN { exit !(c > 0 && c + d >= 800 && c + d < 5000) }'
	grep -q '^lost     ' <<<"$output"
	[[ "${lines[1]}" == "source   tracefs on "* ]]
}

@test "summary: a thread's last switch (Z) ends it, its exit event lost: no wait after its last" {
	# sleeper 40/40 sleeps from 1.1 s, a timer wakes it at 1.5 s, it
	# runs and exits at 1.51 s: its exit event was overwritten (a busy
	# CPU's buffer), its last switch, as a zombie, is there.
	stream >z.csv <<-'EOF2'
	meta,1000000000,,,source,test
	task,1000000000,40,40,sleeper
	event,1000000000,40,40,,0,sys_enter,-,230,clock_nanosleep,0,0x0,0x0,0x0
	event,1100000000,40,40,,0,switch,-,S,0,0,swapper/0
	event,1500000000,0,0,,0,hrtimer_expire_entry,h,0x0,0xffffffff8141e4b0
	event,1500000000,0,0,,0,waking,h,40,40,0,sleeper
	event,1500000000,0,0,,0,hrtimer_expire_exit,h,0x0
	event,1500010000,0,0,,0,switch,-,R,40,40,sleeper
	event,1510000000,40,40,,0,switch,-,Z,0,0,swapper/0
	event,2000000000,50,50,,1,sys_enter,-,202,futex,0x0,0x80,0x2
	EOF2
	run argus-summary --all z.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"threads  2 in 2 processes, 1 exited"* ]]
	read -r blocked waits longest rest < <(row blocked sleeper)
	[ "$blocked $waits $longest" = "400.000 1 400.000" ]
	[[ "$rest" == *" clock_nanosleep" ]]
}

@test "summary: idle threads left out unless --all (a loop only its timer woke, a kernel thread idle); --comm, --pid" {
	# poller 40/41 sleeps in epoll_wait at 1.1 s, a timer wakes it at
	# 1.5 s, it sleeps again at 1.51 s waking no one: a loop idling.
	# kworker 50/51 idles in state I.  client 60/61 waits in read from
	# 1.2 s for server 70/71, which wakes it at 1.9 s from its own work.
	stream >idle.csv <<-'EOF2'
	meta,1000000000,,,source,test
	event,1000000000,40,41,,0,sys_enter,-,232,epoll_wait,3,0x0,0x1
	event,1100000000,40,41,,0,switch,-,S,50,51,kworker
	event,1150000000,50,51,,0,switch,-,I,60,61,client
	event,1200000000,60,61,,0,sys_enter,-,0,read,3,0x0,0x1
	event,1210000000,60,61,,0,switch,-,S,70,71,server
	event,1500000000,70,71,,0,hrtimer_expire_entry,h,0x0,0xffffffff8141e4b0
	event,1500000000,70,71,,0,waking,h,40,41,0,poller
	event,1500000000,70,71,,0,hrtimer_expire_exit,h,0x0
	event,1500000000,70,71,,0,switch,-,R,40,41,poller
	event,1510000000,40,41,,0,switch,-,S,70,71,server
	event,1900000000,70,71,,0,waking,-,60,61,0,client
	event,1950000000,70,71,,0,switch,-,S,60,61,client
	event,2000000000,60,61,,0,sys_exit,-,0,read,1
	EOF2
	run argus-summary idle.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[ -n "$(row blocked client)" ]
	[ -z "$(row blocked poller)" ]
	[ -z "$(row blocked kworker)" ]
	[[ "$output" == *"(2 idle threads left out of the blocked: only their own timers woke them and they woke no one, or kernel threads idle; -a shows them)"* ]]
	run argus-summary --all idle.csv
	[ -n "$(row blocked poller)" ]
	[ -n "$(row blocked kworker)" ]
	run argus-summary -a --comm poller idle.csv
	[ -n "$(row blocked poller)" ]
	[ -z "$(row blocked client)" ]
	run argus-summary --pid 60 idle.csv
	[ -n "$(row blocked client)" ]
	[ -z "$(row 'on CPU' server)" ]
}

@test "summary: a ring older than the window is said, exit 66, as debug says it" {
	mkdir -m 700 old
	printf 'argus-stream,1\n' | gzip >old/argus-ring-000001.csv.gz
	chmod 600 old/argus-ring-000001.csv.gz
	touch -d '1 hour ago' old/argus-ring-000001.csv.gz
	run argus --ring old summary --last 60s
	echo "$output"
	[ "$status" -eq 66 ]
	[[ "$output" == *"old: nothing recorded in the last 60 s: its newest file was written "*"; the recorder is not running ('argus start')"* ]]
	run argus --ring old waits --last 60s
	[ "$status" -eq 66 ]
}
