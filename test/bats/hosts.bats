#!/usr/bin/env bats
# Two hosts on this machine: network namespaces joined by a veth pair, each
# with a host name of its own (a UTS namespace), a capture in each of its
# own processes, host B's clock shifted by a known offset as if another
# machine had taken it.  A client on A waits on an HTTP server on B
# (test/progs/lockserver.py) that waits on a file lock a sleeping
# flock(1) on B holds.

load helpers

OFFSET=37000000		# ns: host B's clock ahead of A's

need_hosts() {
	need_tracing
	for p in ip nsenter unshare curl python3 flock; do
		command -v $p >/dev/null || skip "$p missing"
	done
	local t
	for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -e $t/events/sock/sock_send_length ] && return 0
	done
	skip "no sock:sock_send_length tracepoint (Linux 6.3 or later)"
}

setup_file() {
	export NSA=argus-ha-$$ NSB=argus-hb-$$ VA=argva$$ VB=argvb$$
}

teardown_file() {
	local p
	for p in $(cat "$BATS_FILE_TMPDIR"/*.pid 2>/dev/null); do
		kill "$p" 2>/dev/null || true
	done
	for p in ring ringA5 ringB; do
		[ ! -d "$BATS_FILE_TMPDIR/$p" ] ||
		    ARGUS_RING="$BATS_FILE_TMPDIR/$p" argus stop >/dev/null 2>&1 || true
	done
	ip netns del "$NSA" 2>/dev/null || true
	ip netns del "$NSB" 2>/dev/null || true
}

# On host A or B, with its network and its host name.
on() {
	local ns=$NSA name=hosta
	[ "$1" = B ] && ns=$NSB name=hostb
	shift
	nsenter --net="/run/netns/$ns" unshare --uts sh -c \
	    'hostname "$0"; exec "$@"' "$name" "$@"
}

# The same in the background, as one process from here on: $! is its pid
# (a capture's -p selects it and its children).
on_bg() {
	local ns=$NSA name=hosta
	[ "$1" = B ] && ns=$NSB name=hostb
	shift
	(exec nsenter --net="/run/netns/$ns" unshare --uts sh -c \
	    'hostname "$0"; exec "$@"' "$name" "$@") &
}

hosts_up() {
	D=$BATS_FILE_TMPDIR
	ip netns list | grep -q "^$NSA" && return 0
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
	on_bg B "$ROOT/test/progs/lockserver.py" 10.231.0.2 8080 "$D/lock"
	echo $! >"$D/server.pid"
	for i in $(seq 50); do
		on A curl -s -m 2 http://10.231.0.2:8080/ >/dev/null && return 0
		sleep 0.1
	done
	echo "the server on B never answered"
	return 1
}

# The requests from A, once $D/goN exists: three answered at once, then,
# once B's lock is held, one that waits on it (a Python client: one
# recv(2) with no timeout).  $1: N.
CLIENT='D=$0
	while [ ! -e "$D/go$1" ]; do sleep 0.05; done
	for i in 1 2 3; do curl -s -m 2 http://10.231.0.2:8080/; done
	touch "$D/warm$1"
	while [ ! -e "$D/locked$1" ]; do sleep 0.05; done
	sleep 0.5
	exec python3 -c "import urllib.request as u; u.urlopen(\"http://10.231.0.2:8080/\", timeout=30)"'

# The lock's holder on B, after the client's first requests, for 12 s (or
# $2 s), or until it is killed (-o: its child does not hold the lock).
# $1: N.
holder() {
	on_bg B sh -c 'while [ ! -e "$0/warm$1" ]; do sleep 0.05; done
	    exec flock -o "$0/lock" sh -c "touch \"\$1\"; exec sleep $2" \
	    "$0" "$0/locked$1" "$2"' "$D" "$1" "${2:-12}"
	echo $! >"$D/holder$1.pid"
}

# The scenario, once: A.gz, B.gz, and B.csv (B's, shifted) in $D.  The
# captures trace before anything happens.
scenario() {
	hosts_up
	[ -e "$D/B.csv" ] && return 0
	holder 1
	on_bg A sh -c "$CLIENT" "$D" 1 >/dev/null
	echo $! >"$D/client.pid"
	on_bg B argus-capture -p "$(cat "$D/server.pid"),$(cat "$D/holder1.pid")" \
	    -d 8 -o "$D/B.gz" 2>"$D/B.err"
	CB=$!
	on_bg A argus-capture -p "$(cat "$D/client.pid")" \
	    -d 8 -o "$D/A.gz" 2>"$D/A.err"
	CA=$!
	wait_capture "$CB" && wait_capture "$CA"
	touch "$D/go1"
	wait "$CA" "$CB"
	kill "$(cat "$D/client.pid")" "$(cat "$D/holder1.pid")" 2>/dev/null || true
	argus-cat "$D/B.gz" | "$ROOT/test/progs/clockshift.py" "$OFFSET" >"$D/B.csv"
}

@test "hosts: argus-cat recovers host B's clock offset within its stated bound" {
	need_hosts
	scenario
	cd "$D"
	run argus-cat -o M.gz A.gz B.csv
	echo "$output"
	[ "$status" -eq 0 ]
	# argus-cat: B.csv (host hostb): clock +N ns from hosta's, ±E ns (K exchanges...
	theta=$(echo "$output" | sed -n 's/.*clock \([-+][0-9]*\) ns.*/\1/p')
	err=$(echo "$output" | sed -n 's/.*±\([0-9]*\) ns.*/\1/p')
	n=$(echo "$output" | sed -n 's/.*(\([0-9]*\) exchanges.*/\1/p')
	echo "true $OFFSET recovered $theta bound $err from $n" >&3
	[[ "$output" == *"(host hostb): clock"*"from hosta's"* ]]
	[ -n "$theta" ]
	[ -n "$err" ]
	[ "$n" -ge 6 ]
	d=$((theta - OFFSET)); d=${d#-}
	[ "$d" -le "$err" ]
	[ "$err" -lt 5000000 ]
	# Said in the stream too, and B's PIDs and CPUs moved apart.
	argus-cat M.gz | grep -q "^meta,,,,host,1,hostb,.*,10000000,[0-9]*,${theta#+},$err\$"
	argus-cat M.gz | awk -F, '$1 == "task" && $3 >= 10000000' | grep -q python3
	# The unshifted capture: a namespace of this boot, offset about 0.
	run argus-cat -o M0.gz A.gz B.gz
	theta=$(echo "$output" | sed -n 's/.*clock \([-+][0-9]*\) ns.*/\1/p')
	err=$(echo "$output" | sed -n 's/.*±\([0-9]*\) ns.*/\1/p')
	echo "true 0 recovered $theta bound $err" >&3
	d=${theta#[-+]}
	[ "$d" -le "$err" ]
}

@test "hosts: argus-link links each request on A to its receipt on B and back" {
	need_hosts
	scenario
	cd "$D"
	argus-cat A.gz B.csv 2>/dev/null | argus-segment -q | argus-link -q |
	    argus-cat -k link | grep ',remote,' >remote
	cat remote
	# A's (PID < 10000000) sends to B's server (PID >= 10000000): four
	# requests, the last of which B still holds; and three replies.
	[ "$(awk -F, '$3 >= 10000000 && $10 < 10000000' remote | wc -l)" -ge 4 ]
	[ "$(awk -F, '$3 < 10000000 && $10 >= 10000000' remote | wc -l)" -ge 3 ]
	grep -q ',strong,remote,.*10.231.0.1:[0-9]*>10.231.0.2:8080$' remote
}

@test "hosts: the diagnosis goes from the client on A to the lock's holder on B" {
	need_hosts
	scenario
	cd "$D"
	client=$(cat client.pid)
	argus-cat A.gz B.csv 2>/dev/null | argus-segment -q | argus-link -q |
	    argus-spin -q --pid "$client" --threshold 1s |
	    argus-slice -v --auto --threshold 1s -o diag.gz 2>report || true
	cat report
	# The client's wait, then the server on B by the connection, then the
	# lock's holder on B.
	grep -Eq "^Wait chain: python3 $client on host hosta → python3 100[0-9]* on host hostb( → .*)? → flock 100[0-9]* on host hostb( → sleep 100[0-9]* on host hostb)?\$" report
	grep -q "python3 100[0-9]*/[0-9]* on host hostb.*calls.*flock" report
	# Without B's recording the chain ends at the connection.
	argus-segment -q A.gz | argus-link -q |
	    argus-spin -q --pid "$client" --threshold 1s |
	    argus-slice -v --auto --threshold 1s 2>report1 >/dev/null || true
	! grep -q 'on host' report1 || false
	! grep -q 'hostb' report1
}

@test "hosts: argus debug --with takes host B's recording and walks into it" {
	need_hosts
	hosts_up
	export ARGUS_RING=$D/ring
	holder 2
	on_bg A sh -c "$CLIENT" "$D" 2 >/dev/null
	echo $! >"$D/client2.pid"
	# A flight recorder of the client, --live: in the kernel's buffers a
	# busy machine's other events would overwrite the client's in seconds.
	run on A argus start --live -p "$(cat "$D/client2.pid")"
	echo "$output"
	rec=$(echo "$output" | sed -n 's/.*(pid \([0-9]*\),.*/\1/p')
	on_bg B argus-capture -p "$(cat "$D/server.pid"),$(cat "$D/holder2.pid")" \
	    -d 7 -o "$D/B2.gz" 2>"$D/B2.err"
	CB=$!
	wait_capture "$CB" && wait_capture "$rec"
	touch "$D/go2"
	wait "$CB"
	argus-cat "$D/B2.gz" | "$ROOT/test/progs/clockshift.py" -$OFFSET >"$D/B2.csv"
	client=$(cat "$D/client2.pid")
	run on A argus debug --pid "$client" --threshold 1s --auto --last 30s \
	    --with "$D/B2.csv"
	echo "$output"
	on A argus stop >/dev/null 2>&1 || true
	kill "$client" "$(cat "$D/holder2.pid")" 2>/dev/null || true
	[ "$status" -eq 0 ]
	[[ "$output" == *"(host hostb): clock -"*" ns from hosta's"* ]]
	theta=$(echo "$output" | sed -n 's/.*clock \([-+][0-9]*\) ns.*/\1/p')
	err=$(echo "$output" | sed -n 's/.*±\([0-9]*\) ns.*/\1/p')
	echo "debug --with: true -$OFFSET recovered $theta bound $err" >&3
	d=$((theta + OFFSET)); d=${d#-}
	[ "$d" -le "$err" ]
	echo "$output" | grep -q "^Wait chain: python3 $client on host hosta → python3 100[0-9]* on host hostb → .* on host hostb\$"
	# Without it: the chain ends at the connection, and says where to.
	holder 3
	on_bg A sh -c "$CLIENT" "$D" 3 >/dev/null
	echo $! >"$D/client3.pid"
	run on A argus start --live -p "$(cat "$D/client3.pid")"
	rec=$(echo "$output" | sed -n 's/.*(pid \([0-9]*\),.*/\1/p')
	wait_capture "$rec"
	touch "$D/go3"
	for i in $(seq 100); do [ -e "$D/locked3" ] && break; sleep 0.1; done
	sleep 3.5
	client=$(cat "$D/client3.pid")
	run on A argus debug --pid "$client" --threshold 1s --auto --last 30s
	echo "$output"
	on A argus stop >/dev/null 2>&1 || true
	kill "$client" "$(cat "$D/holder3.pid")" 2>/dev/null || true
	[[ "$output" == *"waits on 10.231.0.2:8080 (tcp, from 10.231.0.1:"*"), another host: no recording of it here (argus debug --remote HOST, or --with ITS-RECORDING)"* ]]
}

@test "hosts: one host twice, or hosts sharing no connection, are said, not guessed" {
	need_hosts
	scenario
	cd "$D"
	run argus-cat --hosts A.gz A.gz
	echo "$output"
	[ "$status" -eq 65 ]
	[[ "$output" == *"all of one host, hosta"* ]]
	argus-cat -k meta B.csv >Bmeta.csv
	run argus-cat A.gz Bmeta.csv
	echo "$output"
	[ "$status" -eq 65 ]
	[[ "$output" == *"share no connection"*"unknown"* ]]
	# One host's files merge as they always did.
	run argus-cat A.gz A.gz
	[ "$status" -eq 0 ]
}

# Two hosts by hand, with equal PIDs: host B's clock is 5000 ns ahead.  A
# sends at 1000 (its call's entry), B has it at 6300 (its clock): offset at
# most 5300; B sends at 7000, A has it at 2300: at least 4700.
two_hosts() {
	stream >a.csv <<-'E'
	meta,100,,,hostname,ha
	meta,100,,,boot_id,b1
	meta,100,,,netns,n1
	meta,100,,,cpus,2
	meta,100,,,wallclock,1000000000000
	task,500,42,42,client
	event,500,42,42,,0,sock_state,-,0xa1,SYN_SENT,ESTABLISHED,tcp,10.0.0.1:5000,10.0.0.2:80
	event,1000,42,42,,0,sys_enter,-,44,sendto,0x3,0x0,0x4f
	event,1100,42,42,,0,sock_send,-,0xa1,79,0x0
	event,2300,42,42,,0,sock_recv,-,0xa1,100,0x0
	E
	stream >b.csv <<-'E'
	meta,5100,,,hostname,hb
	meta,5100,,,boot_id,b2
	meta,5100,,,netns,n1
	meta,5100,,,cpus,2
	meta,5100,,,wallclock,999999995000
	task,5400,42,42,server
	event,5400,42,42,,1,sock_state,s,0xb1,SYN_RECV,ESTABLISHED,tcp,10.0.0.2:80,10.0.0.1:5000
	event,6300,42,42,,1,sock_recv,-,0xb1,79,0x0
	event,7000,42,42,,1,sys_enter,-,44,sendto,0x3,0x0,0x64
	event,7100,42,42,,1,sock_send,-,0xb1,100,0x0
	event,7200,42,42,,1,waking,-,42,43,1,server,120
	event,7250,42,43,,1,comm,-,42,43,server,worker
	event,7260,42,43,,1,hrtimer_start,-,0xab,0xcd,9000,9100,1
	event,7270,42,43,,1,timer_start,-,0xef,0xcd,4302862000,4302861975,0x0
	event,7300,0,0,,0,migrate,s,42,43,1,0,server
	wait,8000,42,42,S,futex,,futex,futex:42:0x10,futex,,,7200,,futex_wait,server
	E
}

@test "hosts: by hand, the NTP bounds exactly, and equal PIDs and CPUs kept apart" {
	cd "$BATS_TEST_TMPDIR"
	two_hosts
	run argus-cat -o m.csv -Z a.csv b.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "argus-cat: b.csv (host hb): clock +5000 ns from ha's, ±300 ns (2 exchanges; wall clocks said +5000); PIDs +10000000, CPUs +2" ]]
	cat m.csv
	grep -qx 'meta,,,,host,1,hb,b2,n1,10000000,2,5000,300' m.csv
	grep -qx 'task,500,42,42,client' m.csv
	grep -qx 'task,400,10000042,10000042,server' m.csv
	grep -qx 'event,1300,10000042,10000042,,3,sock_recv,-,0xb1,79,0x0' m.csv
	grep -qx 'meta,100,,,cpus,4' m.csv
	# Threads and CPUs an event names besides its own are B's too.
	grep -qx 'event,2200,10000042,10000042,,3,waking,-,10000042,10000043,3,server,120' m.csv
	grep -qx 'event,2300,0,0,,2,migrate,s,10000042,10000043,3,2,server' m.csv
	grep -qx 'event,2250,10000042,10000043,,3,comm,-,10000042,10000043,server,worker' m.csv
	# An hrtimer's expiry is a time on B's clock; a timer's, in jiffies, is not.
	grep -qx 'event,2260,10000042,10000043,,3,hrtimer_start,-,0xab,0xcd,4000,4100,1' m.csv
	grep -qx 'event,2270,10000042,10000043,,3,timer_start,-,0xef,0xcd,4302862000,4302861975,0x0' m.csv
	grep -qx 'wait,3000,10000042,10000042,S,futex,,futex,futex:10000042:0x10,futex,,,2200,,futex_wait,server' m.csv
	# Time order kept across the hosts.
	argus-cat m.csv >/dev/null
	# Selections come after the merge.
	run argus-cat -k event a.csv b.csv
	[ "$status" -eq 64 ]
}

@test "hosts: by hand, one side's bound only is said, not guessed" {
	cd "$BATS_TEST_TMPDIR"
	two_hosts
	grep -v sock_recv a.csv >a1.csv
	run argus-cat a1.csv b.csv
	echo "$output"
	[ "$status" -eq 65 ]
	[[ "$output" == *"carried bytes only from the first to the second"*"(at most +5300 ns)"* ]]
}

# The same hang, over before the captures end: B's lock held 3 s.  A4.gz,
# B4.csv (B's, shifted) in $D.
scenario_over() {
	hosts_up
	[ -e "$D/B4.csv" ] && return 0
	holder 4 3
	on_bg A sh -c "$CLIENT" "$D" 4 >/dev/null
	echo $! >"$D/client4.pid"
	on_bg B argus-capture -p "$(cat "$D/server.pid"),$(cat "$D/holder4.pid")" \
	    -d 9 -o "$D/B4.gz" 2>"$D/B4.err"
	CB=$!
	on_bg A argus-capture -p "$(cat "$D/client4.pid")" \
	    -d 9 -o "$D/A4.gz" 2>"$D/A4.err"
	CA=$!
	wait_capture "$CB" && wait_capture "$CA"
	touch "$D/go4"
	wait "$CA" "$CB"
	kill "$(cat "$D/client4.pid")" "$(cat "$D/holder4.pid")" 2>/dev/null || true
	argus-cat "$D/B4.gz" | "$ROOT/test/progs/clockshift.py" "$OFFSET" >"$D/B4.csv"
}

@test "hosts: cut after the hang, the client's wake-up on A is B's reply, and the chain goes on to B's lock" {
	need_hosts
	scenario_over
	cd "$D"
	client=$(cat client4.pid)
	run argus-cat -o M4.gz A4.gz B4.csv
	echo "$output"
	theta=$(echo "$output" | sed -n 's/.*clock \([-+][0-9]*\) ns.*/\1/p')
	err=$(echo "$output" | sed -n 's/.*±\([0-9]*\) ns.*/\1/p')
	echo "over: true $OFFSET recovered $theta bound $err" >&3
	d=$((theta - OFFSET)); d=${d#-}
	[ "$d" -le "$err" ]
	argus-segment -q M4.gz | argus-link -q >L4.gz
	# The reply's receipt on A: one wake-up, B's send (the softirq that
	# carried it on A, held until the receive, is not another).
	to=$(argus-cat -k link L4.gz |
	    awk -F, -v c="$client" '$3 == c && $8 == "remote" { print $6 }' | tail -1)
	[ -n "$to" ]
	argus-cat -k link L4.gz | awk -F, -v c="$client" -v t="$to" \
	    '$3 == c && $6 == t && $8 != "wait" && $8 != "order"' >into
	cat into
	[ "$(wc -l <into)" -eq 1 ]
	grep -q ",strong,remote,[0-9]*,100[0-9]*,100[0-9]*,10.231.0.2:8080>10.231.0.1:" into
	argus-spin -q --pid "$client" --threshold 1s L4.gz |
	    argus-slice -v --auto --threshold 1s -o diag4.gz 2>report4 || true
	cat report4
	grep -q "^Hang: python3 $client/$client on host hosta " report4
	grep -A1 "^Hang:" report4 | grep -q "LongWait, remote"
	grep -Eq "^Wait chain: python3 $client on host hosta → python3 100[0-9]* on host hostb( → .*)? → flock 100[0-9]* on host hostb( → sleep 100[0-9]* on host hostb)?\$" report4
	grep -Eq "^Root cause: (flock|sleep) 100[0-9]* on host hostb" report4
}

# An sshd of its own on host B (port 2222, its keys, its config; no
# system sshd or config touched), and an ssh config on A to reach it as
# hostb.  argus there is this build's, its ring $D/ringB.
sshd_up() {
	local k=$D/ssh
	mkdir -p "$k"
	chmod 700 "$k"
	[ -e "$k/host_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$k/host_key"
	[ -e "$k/id" ] || ssh-keygen -q -t ed25519 -N '' -f "$k/id"
	cp "$k/id.pub" "$k/authorized_keys"
	cat >"$k/sshd_config" <<-E
	ListenAddress 10.231.0.2:2222
	HostKey $k/host_key
	PidFile none
	AuthorizedKeysFile $k/authorized_keys
	PermitRootLogin prohibit-password
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	UsePAM no
	StrictModes no
	SetEnv PATH=$BIN:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin ARGUS_RING=$D/ringB
	E
	cat >"$k/config" <<-E
	Host hostb
	    HostName 10.231.0.2
	    Port 2222
	    User root
	    IdentityFile $k/id
	    IdentitiesOnly yes
	    UserKnownHostsFile /dev/null
	    StrictHostKeyChecking no
	    LogLevel ERROR
	E
	# sshd's privilege separation directory, which its package's boot
	# scripts make.
	[ -d /run/sshd ] || mkdir -m 755 /run/sshd
	/usr/sbin/sshd -t -f "$k/sshd_config" || return 1
	on_bg B /usr/sbin/sshd -D -e -f "$k/sshd_config" 2>"$D/sshd.err"
	echo $! >"$D/sshd.pid"
	export ARGUS_SSH="ssh -F $k/config"
	for i in $(seq 50); do
		on A $ARGUS_SSH hostb true 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$D/sshd.err"
	return 1
}

@test "hosts: argus debug --remote fetches host B's window over ssh and walks into it" {
	need_hosts
	[ -x /usr/sbin/sshd ] || skip "sshd missing (openssh-server)"
	need_prog ssh ssh-keygen
	hosts_up
	sshd_up
	holder 5
	on_bg A sh -c "$CLIENT" "$D" 5 >/dev/null
	echo $! >"$D/client5.pid"
	# A flight recorder on each host: A's of the client, B's of the
	# server and the lock's holder.
	run on A env ARGUS_RING="$D/ringA5" argus start --live -p "$(cat "$D/client5.pid")"
	echo "$output"
	reca=$(echo "$output" | sed -n 's/.*(pid \([0-9]*\),.*/\1/p')
	run on B env ARGUS_RING="$D/ringB" argus start --live \
	    -p "$(cat "$D/server.pid"),$(cat "$D/holder5.pid")"
	echo "$output"
	recb=$(echo "$output" | sed -n 's/.*(pid \([0-9]*\),.*/\1/p')
	wait_capture "$reca" && wait_capture "$recb"
	touch "$D/go5"
	for i in $(seq 100); do [ -e "$D/locked5" ] && break; sleep 0.1; done
	sleep 3.5
	client=$(cat "$D/client5.pid")
	run on A env ARGUS_RING="$D/ringA5" argus debug --pid "$client" \
	    --threshold 1s --auto --last 30s --remote hostb
	echo "$output"
	on A env ARGUS_RING="$D/ringA5" argus stop >/dev/null 2>&1 || true
	on B env ARGUS_RING="$D/ringB" argus stop >/dev/null 2>&1 || true
	kill "$client" "$(cat "$D/holder5.pid")" 2>/dev/null || true
	[ "$status" -eq 0 ]
	[[ "$output" == *"hostb's recording of the window, over ssh"* ]]
	[[ "$output" == *"(host hostb): clock "*" ns from hosta's"* ]]
	theta=$(echo "$output" | sed -n 's/.*clock \([-+][0-9]*\) ns.*/\1/p')
	err=$(echo "$output" | sed -n 's/.*±\([0-9]*\) ns.*/\1/p')
	echo "debug --remote: true 0 recovered $theta bound $err" >&3
	d=${theta#[-+]}
	[ "$d" -le "$err" ]
	echo "$output" | grep -q "^Wait chain: python3 $client on host hosta → python3 100[0-9]* on host hostb → .* on host hostb\$"
	# B's window, kept beside A's recording, 0600.
	f=$(ls "$D"/ringA5/debug-*-hostb.gz)
	[ "$(stat -c %a "$f")" = 600 ]
	! ls "$D"/ringA5/*.part 2>/dev/null || false
	# A host that is no [user@]host, and one ssh cannot reach.
	run on A env ARGUS_RING="$D/ringA5" argus debug --pid "$client" \
	    --remote -oProxyCommand=true
	[ "$status" -eq 64 ]
	run on A env ARGUS_RING="$D/ringA5" argus debug --pid "$client" \
	    --auto --remote nosuchhost.invalid
	echo "$output"
	[ "$status" -eq 69 ]
	[[ "$output" == *"--remote nosuchhost.invalid: ssh exited 255 (ssh could not connect or log in)"* ]]
}

# Host A's side again, the reply's arrival as a real machine shows it:
# the client waits in poll(2), the network's softirq runs in another
# program's sendto(2) (so the softirq rule would call it strong) and wakes
# it, then it receives.  $1: the socket it receives on (0xa1: the
# connection's; another: bytes no send is known for).
client_woken() {
	stream <<-E
	meta,100,,,hostname,ha
	meta,100,,,boot_id,b1
	meta,100,,,netns,n1
	meta,100,,,cpus,2
	meta,100,,,wallclock,1000000000000
	task,500,42,42,client
	task,500,77,77,other
	event,500,42,42,,0,sock_state,-,0xa1,SYN_SENT,ESTABLISHED,tcp,10.0.0.1:5000,10.0.0.2:80
	event,1000,42,42,,0,sys_enter,-,44,sendto,0x3,0x0,0x4f
	event,1100,42,42,,0,sock_send,-,0xa1,79,0x0
	event,1150,42,42,,0,sys_exit,-,44,sendto,79
	event,1200,42,42,,0,sys_enter,-,7,poll,0x0,0x1,0x1f4
	event,1250,42,42,,0,switch,-,S,77,77,other
	event,1300,77,77,,0,sys_enter,-,44,sendto,0x4,0x0,0x10
	event,2250,77,77,,0,softirq_entry,s,3,NET_RX
	event,2260,77,77,,0,waking,s,42,42,1,client
	event,2270,77,77,,0,softirq_exit,s,3,NET_RX
	event,2280,77,77,,0,sys_exit,-,44,sendto,16
	event,2290,77,77,,0,switch,-,S,42,42,client
	event,2295,42,42,,0,sys_exit,-,7,poll,1
	event,2298,42,42,,0,sys_enter,-,45,recvfrom,0x3,0x0,0x2000
	event,2300,42,42,,0,sock_recv,-,$1,100,0x0
	event,2310,42,42,,0,sys_exit,-,45,recvfrom,100
	E
}

# send_alone A [T]: host A's stream A merged with b.csv and linked, the
# client's vertex after its wait has the server's send (its event at T,
# 2100 on A's clock) alone for its cause.
send_alone() {
	argus-cat "$1" b.csv 2>/dev/null | argus-segment -q | argus-link -q |
	    argus-cat -k link >links
	cat links
	to=$(awk -F, '$3 == 42 && $8 == "remote" { print $6 }' links)
	[ -n "$to" ]
	awk -F, -v t="$to" '$3 == 42 && $6 == t && $8 != "wait" && $8 != "order"' links >into
	cat into
	[ "$(wc -l <into)" -eq 1 ]
	grep -q ",strong,remote,${2:-2100},10000042,10000042,10.0.0.2:80>10.0.0.1:5000\$" into
}

@test "hosts: by hand, a receive from another host is its wake-up, not the softirq that carried it" {
	cd "$BATS_TEST_TMPDIR"
	two_hosts
	client_woken 0xa1 >a2.csv
	send_alone a2.csv
	# The same, the client preempted on its way to the receive (a busy
	# machine's): still the send alone, no softirq link beside it.
	client_woken 0xa1 | sed '/,sys_exit,-,7,poll,1$/a\
event,2296,42,42,,0,switch,-,R,77,77,other\
event,2297,77,77,,0,switch,-,S,42,42,client' >a4.csv
	send_alone a4.csv
	# The same, B's end established only after A's first send (the
	# handshake's last ACK on its way, as on any network slower than the
	# client's turn from connect to send): still the send alone.
	sed -i 's/^event,5400,42,42,,1,sock_state,/event,6200,42,42,,1,sock_state,/' b.csv
	client_woken 0xa1 >a5.csv
	send_alone a5.csv
	two_hosts
	# The same, B's send event (at the send's end) after A's receive of
	# its bytes on the merged clock: the wake-up is held for it, and the
	# send is still the one cause (not the softirq's link beside it).
	sed -i '/^event,7100,42,42,,1,sock_send,/d; /^event,7300,0,0,,0,migrate,/a\
event,7350,42,42,,1,sock_send,-,0xb1,100,0x0' b.csv
	client_woken 0xa1 >a6.csv
	send_alone a6.csv 2350
	two_hosts
	# Bytes no send is known for first: the softirq's wake-up, as it was
	# (the connection's reply, received after, keeps the clocks bound).
	{ client_woken 0xa9
	  echo 'event,2400,42,42,,0,sys_enter,-,45,recvfrom,0x3,0x0,0x2000'
	  echo 'event,2410,42,42,,0,sock_recv,-,0xa1,100,0x0'
	  echo 'event,2420,42,42,,0,sys_exit,-,45,recvfrom,100'; } >a3.csv
	argus-cat a3.csv b.csv 2>/dev/null | argus-segment -q | argus-link -q |
	    argus-cat -k link >links3
	cat links3
	awk -F, '$3 == 42 && $8 == "softirq"' links3 | grep -q ',strong,softirq,2260,77,77,NET_RX$'
}
