#!/usr/bin/env bats
# What another host gives us, trusted for nothing but being a recording to
# read: its host name shown escaped wherever it is shown (a machine's
# name is its owner's to choose), its clock refused where no machine's
# clock is, and a --remote that never ends or never stops sending stopped
# within bounds, leaving no partial file.

load helpers

# A host name with an OSC title write, a bell and a line of its own.
N_HOST=$'e\e]0;x\av\nargus-cat: forged'
E_HOST='e\e]0;x\av\nargus-cat: forged'

setup() {
	cd "$BATS_TEST_TMPDIR"
	export LC_ALL=C.UTF-8
}

# What a failing test left of a fake ssh (see fake_ssh).
teardown() {
	local f=$BATS_TEST_TMPDIR/fake.pid
	[ ! -s "$f" ] || kill -KILL "$(cat "$f")" 2>/dev/null || true
}

# A CSV field, quoted.
q() {
	local s=${1//\"/\"\"}
	printf '"%s"' "$s"
}

# Fails if a line begins with what the host name would forge.
no_forged() {	# file...
	! grep -n '^argus-cat: forged' "$@"
}

# Two hosts by hand (as in hosts.bats): A's client asks B's server, which
# sleeps 3 s on its own timer before it answers; B's clock is 5000 ns
# ahead (offset bounded by 4700 and 5300).  $1: B's host name; times are
# moved by $2 ns (default 0) on both.
two_hosts() {
	local t=${2:-0}
	stream <<-E | shift_times "$t" >a.csv
	meta,100,,,hostname,ha
	meta,100,,,boot_id,b1
	meta,100,,,netns,n1
	meta,100,,,cpus,2
	meta,100,,,wallclock,1000000000000
	task,500,42,42,client
	event,500,42,42,,0,sock_state,-,0xa1,SYN_SENT,ESTABLISHED,tcp,10.0.0.1:5000,10.0.0.2:80
	event,1000,42,42,,0,sys_enter,-,44,sendto,0x3,0x0,0x4f
	event,1100,42,42,,0,sock_send,-,0xa1,79,0x0
	event,1150,42,42,,0,sys_exit,-,44,sendto,79
	event,1200,42,42,,0,sys_enter,-,45,recvfrom,0x3,0x0,0x2000
	event,1250,42,42,,0,switch,-,S,0,0,swapper/0
	event,3000002260,0,0,,0,waking,s,42,42,0,client
	event,3000002290,0,0,,0,switch,-,R,42,42,client
	event,3000002300,42,42,,0,sock_recv,-,0xa1,100,0x0
	event,3000002310,42,42,,0,sys_exit,-,45,recvfrom,100
	E
	stream <<-E | shift_times "$t" >b.csv
	meta,5100,,,hostname,$(q "$1")
	meta,5100,,,boot_id,b2
	meta,5100,,,netns,n1
	meta,5100,,,cpus,2
	meta,5100,,,wallclock,999999995000
	task,5400,42,42,server
	event,5400,42,42,,1,sock_state,s,0xb1,SYN_RECV,ESTABLISHED,tcp,10.0.0.2:80,10.0.0.1:5000
	event,6300,42,42,,1,sock_recv,-,0xb1,79,0x0
	event,6400,42,42,,1,sys_enter,-,230,clock_nanosleep,0x1,0x0,0x0
	event,6500,42,42,,1,switch,-,S,0,0,swapper/1
	event,3000006000,0,0,,1,waking,-,42,42,1,server
	event,3000006100,0,0,,1,switch,-,R,42,42,server
	event,3000006200,42,42,,1,sys_exit,-,230,clock_nanosleep,0
	event,3000007000,42,42,,1,sys_enter,-,44,sendto,0x3,0x0,0x64
	event,3000007100,42,42,,1,sock_send,-,0xb1,100,0x0
	event,3000007150,42,42,,1,sys_exit,-,44,sendto,100
	E
}

# Each record's time, and a wait's SINCE, $1 ns later (exact: perl's
# integers are 64-bit).
shift_times() {
	perl -pe 'BEGIN { $t = shift } next if $. == 1;
	    s/^([a-z]+),(\d+),/"$1," . ($2 + $t) . ","/e;
	    s/^(wait(?:,[^,]*){11}),(\d+),/"$1," . ($2 + $t) . ","/e' "$1"
}

@test "hostile hosts: argus-cat says another host's name escaped, never raw" {
	two_hosts "$N_HOST"
	run argus-cat -o m.csv a.csv b.csv
	echo "$output"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >err
	clean err
	no_forged err
	grep -qF "b.csv (host $E_HOST): clock +5000 ns" err
	# Its own name, its boot: one host twice.
	run argus-cat --hosts b.csv b.csv
	[ "$status" -eq 65 ]
	printf '%s\n' "$output" >err1
	clean err1
	no_forged err1
	grep -qF "all of one host, $E_HOST (boot b2" err1
	# Two names of one boot: the boot and the first host's name.
	stream <<-E >c.csv
	meta,100,,,hostname,$(q "$N_HOST")
	meta,100,,,boot_id,$(q "$N_HOST")
	E
	stream <<-E >d.csv
	meta,100,,,hostname,other
	meta,100,,,boot_id,$(q "$N_HOST")
	E
	run argus-cat -o cd.csv c.csv d.csv
	echo "$output"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >err2
	clean err2
	no_forged err2
	grep -qF "the boot of $E_HOST's ($E_HOST): one clock" err2
	# The stream keeps the bytes as they were.
	argus-cat m.csv | grep -qF "$(q "$N_HOST")"
}

@test "hostile hosts: a diagnosis says 'on host NAME' escaped, in every line that names it" {
	two_hosts "$N_HOST"
	argus-cat a.csv b.csv 2>/dev/null | argus-segment -q | argus-link -q |
	    argus-spin -q --pid 42 --threshold 1s >s.csv
	argus-slice --auto --threshold 1s -o /dev/null s.csv 2>report
	argus-slice -v --auto --threshold 1s -o /dev/null s.csv 2>report.v
	cat report.v
	clean report report.v
	no_forged report report.v
	# Root cause, wait chain, what was found, each step walked.
	grep -qF "Root cause: server 10000042 on host $E_HOST (" report
	grep -qF "Wait chain: client 42 on host ha → server 10000042 on host $E_HOST" report
	grep -qF "root: server 10000042/10000042 on host $E_HOST vertex" report
	[ "$(grep -cF "on host $E_HOST" report.v)" -ge 4 ]
}

# A ring directory of hand-made recordings, as argus start leaves one,
# and argus debug's window about now: the hand-made times moved to now
# less 10 s (CLOCK_MONOTONIC, as a recording's).
ring_now() {	# B's host name
	local now
	need_prog python3
	now=$(python3 -c 'import time; print(time.monotonic_ns())')
	two_hosts "$1" $((now - 10000000000))
	mkdir -m 700 ring
	gzip -c a.csv >ring/argus-ring-000001.gz
	export ARGUS_RING=$PWD/ring
}

@test "hostile hosts: argus debug says where a chain leaves another host, its name and addresses escaped" {
	ring_now "$N_HOST"
	# B's snapshot: its server, the root, waits on a third host.
	t=$(awk -F, '$1 == "event" { t = $2 } END { print t + 1000 }' b.csv)
	cat >>b.csv <<-E
	wait,$t,42,42,S,recvfrom,3,tcp,socket:999,in,,,$((t - 500)),,tcp_recvmsg,server
	sock,$t,42,,socket:999,3,tcp,$(q $'10.0.0.2:80\e[2J'),$(q $'10.0.0.9:5432\nargus-cat: forged'),ESTABLISHED,server
	E
	run argus debug --pid 42 --no-snapshot --auto --threshold 1s --with b.csv
	printf '%s\n' "$output" >out
	cat out
	[ "$status" -eq 0 ]
	clean out
	no_forged out
	grep -qF "Wait chain: client 42 on host ha → server 10000042 on host $E_HOST" out
	grep -qF "argus: thread 10000042 on host $E_HOST waits on 10.0.0.9:5432\\nargus-cat: forged (tcp, from 10.0.0.2:80\\e[2J): no recording given holds its other end" out
}

# A stand-in for ssh, as ARGUS_SSH names it: the shell commands $1, with
# the pid of what they exec in fake.pid.
fake_ssh() {
	cat >fake-ssh <<-E
	#!/bin/sh
	echo \$\$ >"$PWD/fake.pid"
	$1
	E
	chmod +x fake-ssh
	export ARGUS_SSH=$PWD/fake-ssh
}

# No partial window in the ring, and nothing of the fake left running.
nothing_left() {
	! ls ring/*.part 2>/dev/null || false
	[ -s fake.pid ]
	! kill -0 "$(cat fake.pid)" 2>/dev/null
}

@test "hostile hosts: a --remote that never answers is stopped at --remote-timeout, nothing left" {
	ring_now hb
	fake_ssh 'echo "waiting $(printf "\033[2J")for ever" >&2; exec sleep 1000'
	SECONDS=0
	run timeout 60 argus debug --pid 42 --no-snapshot --auto \
	    --remote-timeout 2s --remote hostb
	took=$SECONDS
	echo "$output"
	echo "took $took s"
	[ "$status" -eq 69 ]
	[ "$took" -lt 30 ]
	[[ "$output" == *"--remote hostb: no whole window in 2 s: ssh stopped, its partial window removed"* ]]
	# What it said on stderr, under its name, escaped.
	[[ "$output" == *'argus: hostb: waiting \e[2Jfor ever'* ]]
	nothing_left
	# The bounds are said before it starts, the defaults in --help.
	[[ "$output" == *"over ssh "*"within 2 s and 2048 MiB"* ]]
	run argus debug --help
	[[ "$output" == *"--remote-timeout TIME"*"(default 120s)"* ]]
	[[ "$output" == *"--remote-size SIZE"*"(default"*"2G"* ]]
}

@test "hostile hosts: a --remote that never stops sending is stopped at --remote-size, nothing left" {
	ring_now hb
	fake_ssh 'exec cat /dev/zero'
	SECONDS=0
	run timeout 60 argus debug --pid 42 --no-snapshot --auto \
	    --remote-size 1M --remote hostb
	echo "$output"
	[ "$status" -eq 69 ]
	[ "$SECONDS" -lt 30 ]
	[[ "$output" == *"--remote hostb: the window sent is more than 1 MiB: ssh stopped, its partial window removed"* ]]
	nothing_left
	# Nothing of it anywhere in the ring.
	[ -z "$(find ring -newer ring/argus-ring-000001.gz -type f)" ]
	for bad in 12Q 0 M 1MX; do
		run argus debug --pid 42 --remote-size "$bad" --remote hostb
		[ "$status" -eq 64 ]
	done
	run argus debug --pid 42 --remote-timeout 0 --remote hostb
	[ "$status" -eq 64 ]
}

@test "hostile hosts: argus debug killed while a --remote sends leaves no partial window" {
	ring_now hb
	fake_ssh 'exec sleep 1000'
	argus debug --pid 42 --no-snapshot --auto --remote hostb 2>err &
	pid=$!
	for i in $(seq 100); do
		ls ring/*.part >/dev/null 2>&1 && [ -s fake.pid ] && break
		sleep 0.1
	done
	ls ring/*.part
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	cat err
	[ "$rc" -eq 143 ]
	grep -q -- "--remote hostb: interrupted: ssh stopped, its partial window removed" err
	nothing_left
}

@test "hostile hosts: a --remote's whole window, within the bounds, is kept and used" {
	ring_now hb
	gzip -c b.csv >b.gz
	fake_ssh "exec cat '$PWD/b.gz'"
	run argus debug --pid 42 --no-snapshot --auto --threshold 1s \
	    --remote-size 1M --remote-timeout 30s --remote hostb
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Wait chain: client 42 on host ha → server 10000042 on host hb"* ]]
	[ "$(stat -c %a ring/debug-*-hostb.gz)" = 600 ]
	! ls ring/*.part 2>/dev/null
}

# Clocks no two machines have: times of a recording are CLOCK_MONOTONIC,
# from the machine's boot, and no machine has run 30 years.
@test "hostile hosts: a time past 2^63 ns is refused, naming file and line, not an overflow" {
	two_hosts hb
	# B's answer sent 2^63 ns after A's receipt of it: b - a is INT64_MIN.
	sed -i 's/^event,3000007000,/event,9223372039854778108,/;
	    s/^event,3000007100,/event,9223372039854778208,/;
	    s/^event,3000007150,/event,9223372039854778258,/' b.csv
	run argus-cat -o m.csv a.csv b.csv
	echo "$output"
	[ "$status" -eq 65 ]
	[[ "$output" == *"b.csv:15: time 9223372039854778108 ns, 292 years since its machine's boot: no machine's clock reads that"* ]]
	[ ! -e m.csv ]
}

@test "hostile hosts: clocks 146 years apart are refused on either side; 20 days apart are aligned" {
	far=4600000000000000000
	two_hosts hb
	shift_times "$far" <b.csv >bfar.csv
	run argus-cat -o m.csv a.csv bfar.csv
	echo "$output"
	[ "$status" -eq 65 ]
	[[ "$output" == *"bfar.csv:"*"146 years since its machine's boot"* ]]
	# A's clock the far one: A's file named.
	shift_times "$far" <a.csv >afar.csv
	run argus-cat -o m.csv afar.csv b.csv
	echo "$output"
	[ "$status" -eq 65 ]
	[[ "$output" == *"afar.csv:"*"146 years since its machine's boot"* ]]
	[ ! -e m.csv ]
	# A machine booted 20 days before the other: its offset, exactly.
	days=$((20 * 86400 * 1000000000))
	shift_times "$days" <b.csv >b20.csv
	run argus-cat -o m.csv -Z a.csv b20.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"b20.csv (host hb): clock +$((days + 5000)) ns from ha's, ±300 ns"* ]]
	grep -q '^task,400,10000042,10000042,server$' m.csv
}
