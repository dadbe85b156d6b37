#!/usr/bin/env bats
# argus-waitfor: what blocked threads wait on now, and who holds the other
# end.  Each test sets a wait up between processes of its own (or real
# programs: flock, sh, sleep), takes a snapshot and checks that it names
# the holder the test knows.  Reading other processes' system calls and
# memory takes root: without it the tests skip, saying so.
# test/run: first, a long file: begun last, it would run on alone.

load helpers

setup() {
	T="$BATS_TEST_TMPDIR"
	CASES="$ROOT/test/progs/waitfor-cases"
	PIDS=
}

# Only what this test started, by its id: the cases' children die with
# their parent (PR_SET_PDEATHSIG).
teardown() {
	local p
	for p in $PIDS; do
		kill "$p" 2>/dev/null || true
	done
	for p in ${KILLS:-}; do
		kill -KILL "$p" 2>/dev/null || true
	done
	if [ -n "${NETNS:-}" ]; then
		ip netns del "$NETNS" 2>/dev/null || true
		ip link del "$NETNS-h" 2>/dev/null || true
	fi
	# Gone, not only told: a case's lock outlives the kill until its
	# holder has exited, and the next case takes the same file.
	for p in $PIDS; do
		wait "$p" 2>/dev/null || true
	done
}

# Root, and argus-waitfor built.
need_waitfor() {
	need_prog "$BIN/argus-waitfor"
	need_root "other processes' calls and memory need root"
}

bg() {
	"$@" >/dev/null 2>&1 &
	PIDS="$PIDS $!"
}

# started OUT CMD...: CMD in the background, its output into OUT, and
# its pid in STARTED, once it has said something (5 s at most).
started() {
	local out=$1 i
	shift
	"$@" >"$out" 2>&1 &
	STARTED=$!
	PIDS="$PIDS $STARTED"
	for i in $(seq 50); do
		[ -s "$out" ] && return 0
		sleep 0.1
	done
}

# start_case CASE [WHY]: sets a case of waitfor-cases up: WAITER, WAITER_TID,
# HOLDER, HOLDER_TID; skips the test, saying WHY, where the case says the
# kernel cannot.  Run by $CASE_WRAP where set (a command that execs it).
start_case() {
	local i
	${CASE_WRAP:-} "$CASES" "$1" "$T/lockfile" >"$T/case.out" 2>/dev/null &
	PIDS="$PIDS $!"
	for i in $(seq 100); do
		grep -qxE 'ready|unsupported' "$T/case.out" && break
		sleep 0.1
	done
	if [ -n "${2:-}" ] && grep -qx unsupported "$T/case.out"; then
		skip "$2"
	fi
	grep -qx ready "$T/case.out" || { echo "case $1: never ready"; return 1; }
	read -r _ WAITER WAITER_TID < <(grep '^waiter ' "$T/case.out")
	read -r _ HOLDER HOLDER_TID < <(grep '^holder ' "$T/case.out")
}

# snap TID CALL [ARGS...]: a snapshot (argus-waitfor ARGS) into $T/s.csv
# once thread TID waits in CALL; the thread may take a moment to get there.
snap() {
	local tid=$1 call=$2 i
	shift 2
	for i in $(seq 50); do
		argus-waitfor -q -Z -o "$T/s.csv" "$@"
		[ -n "$(records wait -v t="$tid" -v c="$call" \
		    '$TID == t && $CALL == c' "$T/s.csv")" ] && return 0
		sleep 0.1
	done
	echo "thread $tid never waited in $call:"
	cat "$T/s.csv"
	return 1
}

# The object thread TID waits on in mode MODE.
object_of() {
	records wait -v t="$1" -v m="$2" '$TID == t && $MODE == m { print $OBJECT; exit }' \
	    "$T/s.csv"
}

# "PID RELATION DETAIL" of the holders of what thread TID waits on in
# mode MODE.
holders_in() {	# TID MODE
	records holder -v o="$(object_of "$1" "$2")" \
	    '$OBJECT == o { print $PID, $RELATION, $DETAIL }' "$T/s.csv"
}

# "PID RELATION FD" of the holders of OBJECT.
holders_of() {
	records holder -v o="$1" '$OBJECT == o { print $PID, $RELATION, $FD }' \
	    "$T/s.csv" | sort -n
}

@test "waitfor: --help, bad options, exit codes" {
	run argus-waitfor --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: argus-waitfor"* ]]
	run argus-waitfor --no-such-option
	[ "$status" -eq 64 ]
	run argus-waitfor -p banana
	[ "$status" -eq 64 ]
	run argus-waitfor -p 4194303
	[ "$status" -eq 64 ]
	[[ "$output" == *"no such process"* ]]
	run argus-waitfor -o /nonexistent/dir/s.gz
	[ "$status" -eq 73 ]
}

@test "waitfor: --relations lists argus-stream(5)'s relations" {
	argus-waitfor --relations | awk 'NR > 1 { print $1 }' >"$T/table"
	[ "$(wc -l <"$T/table")" -ge 10 ]
	man_list argus-stream.5 relations >"$T/man"
	diff -u "$T/table" "$T/man"
}

@test "waitfor: the stream is well formed, 0600, and every blocked thread has a record" {
	need_waitfor
	bg sleep 100
	# Until it sleeps: a loaded machine may take a while to start it.
	for i in $(seq 50); do
		[ "$(cat /proc/${PIDS# }/wchan 2>/dev/null)" = hrtimer_nanosleep ] &&
		    break
		sleep 0.1
	done
	argus-waitfor -q -o "$T/s.gz"
	[ "$(stat -c %a "$T/s.gz")" = 600 ]
	argus-cat -Z "$T/s.gz" >"$T/s.csv"
	head -1 "$T/s.csv" | grep -qx 'argus-stream,1'
	grep -q '^meta,.*,snapshot_ns,[0-9]' "$T/s.csv"
	# One time for the whole snapshot.
	[ "$(awk -F, '$1 == "wait" || $1 == "holder" { print $2 }' "$T/s.csv" |
	    sort -u | wc -l)" -eq 1 ]
	# Our sleep, with its 100 s timeout and no holder.
	records wait -v p="${PIDS# }" '$PID == p { print $CALL, $MODE, $TIMEOUT, $OBJECT }' \
	    "$T/s.csv" >"$T/sleep"
	[ "$(cat "$T/sleep")" = "clock_nanosleep sleep 100000000000 " ] ||
	    [ "$(cat "$T/sleep")" = "nanosleep sleep 100000000000 " ]
	# Itself is not in it.
	[ -z "$(records wait '$COMM == "argus-waitfor"' "$T/s.csv")" ]
}

@test "waitfor: a pipe's reader waits for the process that holds the write end" {
	need_waitfor
	start_case pipe
	snap "$WAITER_TID" read -p "$WAITER"
	obj=$(object_of "$WAITER_TID" in)
	[[ $obj == pipe:* ]]
	records wait -v t="$WAITER_TID" '$TID == t { print $TYPE }' "$T/s.csv" |
	    grep -qx pipe
	holders_of "$obj" >"$T/h"
	cat "$T/h"
	grep -qx "$HOLDER writer [0-9]*" "$T/h"
	grep -qx "$WAITER reader [0-9]*" "$T/h"
	[ "$(wc -l <"$T/h")" -eq 2 ]
	# --pid follows the chain to the holder's own wait.
	records wait -v p="$HOLDER" '$PID == p { print $CALL }' "$T/s.csv" |
	    grep -qx pause
}

@test "waitfor: a unix socket's peer, through sock_diag" {
	need_waitfor
	start_case unix
	snap "$WAITER_TID" read -p "$WAITER"
	obj=$(object_of "$WAITER_TID" in)
	[[ $obj == socket:* ]]
	records wait -v t="$WAITER_TID" '$TID == t { print $TYPE }' "$T/s.csv" |
	    grep -qx unix
	records holder -v o="$obj" '$OBJECT == o { print $PID, $RELATION, $THROUGH, $DETAIL }' \
	    "$T/s.csv" >"$T/h"
	cat "$T/h"
	[ "$(wc -l <"$T/h")" -eq 1 ]
	grep -qx "$HOLDER peer socket:[0-9]* unix" "$T/h"
	# The peer is another socket than the waiter's.
	! grep -q " $obj " "$T/h"
}

@test "waitfor: a unix socket's peer in another network namespace (a container's), through its sock_diag" {
	need_waitfor
	need_prog unshare
	unshare -n true 2>/dev/null || skip "no network namespace of our own here"
	CASE_WRAP="unshare -n"
	start_case unix
	snap "$WAITER_TID" read -p "$WAITER"
	holders_in "$WAITER_TID" in | tee "$T/h"
	grep -qx "$HOLDER peer unix" "$T/h"
}

@test "waitfor: among more network namespaces than are dumped (any user may make thousands), the root's is" {
	need_waitfor
	need_prog unshare
	unshare -n true 2>/dev/null || skip "no network namespace of our own here"
	for i in $(seq 70); do
		bg unshare -n sleep 60
	done
	CASE_WRAP="unshare -n"
	start_case unix
	snap "$WAITER_TID" read -p "$WAITER"
	holders_in "$WAITER_TID" in | tee "$T/h"
	grep -qx "$HOLDER peer unix" "$T/h"
}

@test "waitfor: a TCP client waits for the server in the network namespace it is routed to (a container's)" {
	need_waitfor
	need_prog ip
	need_prog python3
	NETNS=awf$$
	ip netns add "$NETNS" || skip "no network namespaces here (ip netns add)"
	ip link add "$NETNS-h" type veth peer name "$NETNS-c"
	ip link set "$NETNS-c" netns "$NETNS"
	ip addr add 10.233.0.1/24 dev "$NETNS-h"
	ip link set "$NETNS-h" up
	ip -n "$NETNS" addr add 10.233.0.2/24 dev "$NETNS-c"
	ip -n "$NETNS" link set "$NETNS-c" up
	# A server that takes the request and never answers; a client that
	# waits for the answer.
	started "$T/server" ip netns exec "$NETNS" python3 -c '
import socket, time
s = socket.socket()
s.bind(("10.233.0.2", 9000)); s.listen(1); print("up", flush=True)
c, _ = s.accept(); c.recv(1); time.sleep(60)'
	server=$STARTED
	started "$T/client" python3 -c '
import socket
c = socket.create_connection(("10.233.0.2", 9000), timeout=5)
c.settimeout(None); print("connected", flush=True); c.sendall(b"q"); c.recv(1)'
	client=$STARTED
	grep -qx connected "$T/client"
	snap "$client" recvfrom -p "$client"
	holders_in "$client" in | tee "$T/h"
	grep -qx "$server peer tcp" "$T/h"
}

# A TCP (or UDP) case's waiter blocked in read: the holder of its
# socket's other end, in RELATION (peer, or listener for one not accepted
# yet).
tcp_holder() {	# CASE RELATION [TYPE]
	local type=${3:-tcp}
	need_waitfor
	start_case "$1"
	snap "$WAITER_TID" read -p "$WAITER"
	records wait -v t="$WAITER_TID" '$TID == t { print $TYPE }' "$T/s.csv" |
	    grep -qx "$type"
	holders_in "$WAITER_TID" in | tee "$T/h"
	grep -qx "$HOLDER $2 $type" "$T/h"
}

@test "waitfor: a loopback TCP client waits for the server that has its connection" {
	tcp_holder tcp peer
}

@test "waitfor: an IPv6 client of an IPv4 server (a v4-mapped address) waits for the server" {
	tcp_holder tcp-mapped peer
}

@test "waitfor: a UDP client connected to a server's socket, which is only bound, waits for the server" {
	tcp_holder udp peer udp
}

@test "waitfor: a TCP connection not accepted yet waits for the listener's holder" {
	tcp_holder tcp-queued listener
}

# A connect waiting for room in a full listener's queue: no socket is its
# peer yet; the address it connects to names the listener.
full_queue() {	# CASE TYPE
	need_waitfor
	start_case "$1"
	snap "$WAITER_TID" connect -p "$WAITER"
	records wait -v t="$WAITER_TID" '$TID == t { print $TYPE }' "$T/s.csv" |
	    grep -qx "$2"
	holders_in "$WAITER_TID" connect | tee "$T/h"
	grep -qx "$HOLDER listener $2" "$T/h"
}

@test "waitfor: a unix connect to a full queue waits for the listener bound to that file" {
	full_queue unix-full unix
}

@test "waitfor: a unix connect to a full queue waits for the listener of that abstract name" {
	full_queue abstract-full unix
}

@test "waitfor: a TCP connect whose SYN a full listener drops waits for that listener" {
	full_queue tcp-full tcp
}

@test "waitfor: flock(1) waiting for another flock(1): holder and waiter from /proc/locks" {
	need_waitfor
	need_prog flock
	bg flock "$T/lockfile" sleep 100
	holder=${PIDS# }
	sleep 0.3
	bg flock "$T/lockfile" true
	waiter=${PIDS##* }
	snap "$waiter" flock -p "$waiter"
	obj=$(object_of "$waiter" lock)
	[[ $obj == file:*:*:$(stat -c %i "$T/lockfile") ]]
	records holder -v o="$obj" '$OBJECT == o { print $PID, $RELATION, $DETAIL }' \
	    "$T/s.csv" >"$T/h"
	cat "$T/h"
	grep -qx "$holder lock-holder FLOCK WRITE 0-EOF" "$T/h"
	grep -qx "$waiter lock-waiter FLOCK WRITE 0-EOF" "$T/h"
	# The chain goes on: the holder waits for its child, the sleep.
	records wait -v p="$holder" '$PID == p { print $MODE }' "$T/s.csv" |
	    grep -qx child
	records wait '$CALL ~ /nanosleep/ { print $COMM }' "$T/s.csv" |
	    grep -qx sleep
}

@test "waitfor: a POSIX lock and an OFD lock, by their holders" {
	need_waitfor
	start_case posix
	snap "$WAITER_TID" fcntl -p "$WAITER"
	obj=$(object_of "$WAITER_TID" lock)
	holders_of "$obj" >"$T/h"
	cat "$T/h"
	grep -qx "$HOLDER lock-holder " "$T/h"
	teardown
	PIDS=
	# The waiter too, which its holder's death hands the lock to for the
	# moment before its own (PR_SET_PDEATHSIG) comes: else the next case
	# finds the file locked and never gets ready (seen in CI).
	gone "$WAITER" 10
	# An OFD lock has no pid in /proc/locks: the fd whose fdinfo lists it.
	start_case ofd
	snap "$WAITER_TID" fcntl -p "$WAITER"
	obj=$(object_of "$WAITER_TID" lock)
	holders_of "$obj" >"$T/h"
	cat "$T/h"
	grep -qx "$HOLDER lock-holder [0-9][0-9]*" "$T/h"
	[ "$(wc -l <"$T/h")" -eq 1 ]
}

@test "waitfor: an open that breaks a lease waits for the lease's holder" {
	need_waitfor
	start_case lease
	snap "$WAITER_TID" openat -p "$WAITER"
	records wait -v t="$WAITER_TID" '$TID == t { print $OBJECT, $MODE, $WCHAN }' \
	    "$T/s.csv" >"$T/w"
	cat "$T/w"
	grep -qx "file:[0-9]*:[0-9]*:$(stat -c %i "$T/lockfile") lock __break_lease" "$T/w"
	records holder '{ print $PID, $RELATION, $DETAIL }' "$T/s.csv" >"$T/h"
	cat "$T/h"
	grep -qx "$HOLDER lock-holder LEASE UNLCK 0-EOF" "$T/h"
	[ "$(wc -l <"$T/h")" -eq 1 ]
}

@test "waitfor: a shell waits in wait4 for its slow child" {
	need_waitfor
	bg sh -c 'sleep 100; true'
	sh=${PIDS# }
	snap "$sh" wait4 -p "$sh"
	obj=$(object_of "$sh" child)
	[ "$obj" = "children:$sh" ]
	child=$(holders_of "$obj" | awk '$2 == "child" { print $1 }')
	[ -n "$child" ]
	# The child's own wait is in the chain, once it has one: the shell
	# waits as soon as it has forked, the child still has to exec sleep.
	for i in $(seq 50); do
		records wait -v p="$child" '$PID == p { print $MODE }' "$T/s.csv" |
		    grep -qx sleep && break
		sleep 0.1
		argus-waitfor -q -Z -o "$T/s.csv" -p "$sh"
	done
	cat "$T/s.csv"
	[ "$(cat /proc/"$child"/comm)" = sleep ]
	records wait -v p="$child" '$PID == p { print $MODE }' "$T/s.csv" |
	    grep -qx sleep
}

@test "waitfor: a server that polls its listening sockets waits for connections" {
	need_waitfor
	need_prog python3
	bg python3 -c '
import select, socket, sys
u = socket.socket(socket.AF_UNIX)
u.bind(sys.argv[1]); u.listen()
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen()
c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1])
a, _ = u.accept()
select.select([u, t, a], [], [], 100)' "$T/sock"
	py=${PIDS# }
	snap "$py" pselect6 -p "$py"
	records wait -v t="$py" '$TID == t { print $TYPE, $MODE }' "$T/s.csv" |
	    sort >"$T/m"
	cat "$T/m"
	# The two listeners are ready when a client comes; the connection
	# when its peer sends.
	[ "$(cat "$T/m")" = "tcp accept
unix accept
unix in" ]
}

@test "waitfor: epoll_wait on a pipe: the watched fd, and its writer" {
	need_waitfor
	start_case epoll
	snap "$WAITER_TID" epoll_wait -p "$WAITER"
	records wait -v t="$WAITER_TID" '$TID == t { print $TYPE, $VIA, $TIMEOUT }' \
	    "$T/s.csv" >"$T/w"
	cat "$T/w"
	ep=$(awk '$1 == "epoll" { print $0 }' "$T/w")
	[[ $ep == "epoll  100000000000" ]]
	grep -qx "pipe epoll:$WAITER:[0-9]* 100000000000" "$T/w"
	obj=$(records wait -v t="$WAITER_TID" '$TID == t && $TYPE == "pipe" { print $OBJECT }' \
	    "$T/s.csv")
	holders_of "$obj" | grep -qx "$HOLDER writer [0-9]*"
}

# Once the case's waiter waits in futex: "PID TID RELATION DETAIL" of the
# holders of its word, into $T/h.
futex_holders() {
	snap "$WAITER_TID" futex -t "$WAITER_TID"
	obj=$(object_of "$WAITER_TID" futex)
	records holder -v o="$obj" '$OBJECT == o { print $PID, $TID, $RELATION, $DETAIL }' \
	    "$T/s.csv" >"$T/h"
	cat "$T/h"
}

@test "waitfor: a glibc mutex's waiter names the thread that owns it" {
	need_waitfor
	start_case mutex
	futex_holders
	[[ $obj == futex:$WAITER:0x* ]]
	grep -qx "$WAITER $HOLDER_TID owner mutex" "$T/h"
}

@test "waitfor: a glibc rwlock's reader, and its writer, name the thread that holds it for writing" {
	need_waitfor
	for c in rwlock-r rwlock-w; do
		start_case $c
		futex_holders
		grep -qx "$WAITER $HOLDER_TID owner rwlock" "$T/h"
		teardown
		PIDS=
	done
}

@test "waitfor: a process-shared mutex's waiter names its owner in another process that maps the file" {
	need_waitfor
	start_case pshared
	futex_holders
	grep -qx "$HOLDER $HOLDER_TID owner shared mutex" "$T/h"
}

@test "waitfor: a mutex whose owner thread exited holding it names that thread, exited" {
	need_waitfor
	start_case exited
	futex_holders
	grep -qx "$WAITER $HOLDER_TID owner exited" "$T/h"
	[ "$(wc -l <"$T/h")" -eq 1 ]
}

@test "waitfor: pthread_join names the thread it joins; a word that only holds an id names nobody" {
	need_waitfor
	start_case join
	snap "$WAITER_TID" futex -t "$WAITER_TID"
	obj=$(object_of "$WAITER_TID" futex)
	[[ $obj == futex:$WAITER:0x* ]]
	records holder -v o="$obj" '$OBJECT == o { print $PID, $TID, $RELATION }' \
	    "$T/s.csv" >"$T/h"
	cat "$T/h"
	[ "$(cat "$T/h")" = "$WAITER $HOLDER_TID thread" ]
	# The same value waited for in a word of the program's own data,
	# not in the worker's descriptor: no holder.
	start_case tidword
	snap "$WAITER_TID" futex -t "$WAITER_TID"
	obj=$(object_of "$WAITER_TID" futex)
	records holder -v o="$obj" '$OBJECT == o' "$T/s.csv" >"$T/h"
	cat "$T/h"
	[ ! -s "$T/h" ]
}

@test "waitfor: a pseudo-terminal's reader and stopped writer wait for its master's holder, not its other openers" {
	need_waitfor
	need_prog python3
	# The parent holds the master; a child waits on the slave (reading
	# it, or writing with its output stopped as ^S stops it, or reading
	# /dev/tty, its controlling terminal, which is the slave's object);
	# another child only holds the slave open.
	cat >"$T/term.py" <<'EOF'
import os, pty, sys, termios, time
mode = sys.argv[1]
m, s = pty.openpty()
pid = os.fork()
if pid == 0:
    os.close(m)
    if mode == "out":
        termios.tcflow(s, termios.TCOOFF)
        os.write(s, b"x")
    elif mode == "tty":
        os.setsid()
        import fcntl
        fcntl.ioctl(s, termios.TIOCSCTTY, 0)
        os.read(os.open("/dev/tty", os.O_RDWR), 1)
    else:
        os.read(s, 1)
    os._exit(0)
if os.fork() == 0:
    os.close(m)
    time.sleep(100)
    os._exit(0)
st = os.fstat(s)
os.close(s)
print(pid, "file:%d:%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino), flush=True)
time.sleep(100)
EOF
	for mode in in out tty; do
		started "$T/pty.out" python3 "$T/term.py" "$mode"
		read -r child slave <"$T/pty.out"
		case $mode in out) call=write ;; *) call=read ;; esac
		snap "$child" "$call" -t "$child"
		obj=$(records wait -v t="$child" '$TID == t { print $TYPE, $OBJECT, $MODE }' "$T/s.csv")
		echo "$mode: $obj (the slave: $slave)"
		# /dev/tty is the terminal it stands for, one object with it.
		[ "$obj" = "tty $slave ${mode/tty/in}" ]
		records holder -v o="$slave" '$OBJECT == o { print $PID, $RELATION }' \
		    "$T/s.csv" >"$T/h"
		cat "$T/h"
		[ "$(cat "$T/h")" = "${PIDS##* } terminal" ]
	done
}

@test "waitfor: a System V semaphore's waiter names its last operator, exited or not, never itself" {
	need_waitfor
	need_prog perl
	# The parent waits to take semaphore 1 of a set of two; a child took
	# it last and exits, or sleeps; or the parent took it itself.
	cat >"$T/sem.pl" <<'EOF'
use POSIX ();
use IPC::SysV qw(IPC_PRIVATE IPC_CREAT S_IRUSR S_IWUSR SETVAL);
my $id = semget(IPC_PRIVATE, 2, S_IRUSR | S_IWUSR | IPC_CREAT) // die;
semctl($id, 1, SETVAL, 1) // die;
my $pid = 0;
if ($ARGV[0] eq "self") {
	semop($id, pack("s!3", 1, -1, 0)) or die;
} else {
	$pid = fork() // die;
	if ($pid == 0) {
		semop($id, pack("s!3", 1, -1, 0)) or die;
		sleep 100 if $ARGV[0] eq "alive";
		POSIX::_exit(0);
	}
	select(undef, undef, undef, 0.2);
}
$| = 1;
print "$pid $id\n";
semop($id, pack("s!6", 0, 1, 0, 1, -1, 0)) or die;
EOF
	for mode in dead alive self; do
		started "$T/sem.out" perl "$T/sem.pl" "$mode"
		parent=$STARTED
		read -r child id <"$T/sem.out"
		[ "$child" = 0 ] || PIDS="$PIDS $child"
		snap "$parent" semtimedop -t "$parent"
		ipcrm -s "$id"
		records wait -v t="$parent" '$TID == t { print $TYPE, $OBJECT, $MODE }' "$T/s.csv" >"$T/w"
		records holder -v o="sem:$id:1" '$OBJECT == o { print $PID, $RELATION, $DETAIL }' \
		    "$T/s.csv" >"$T/h"
		echo "$mode: $(cat "$T/w") / $(cat "$T/h")"
		[ "$(cat "$T/w")" = "sem sem:$id:1 lock" ]
		case $mode in
		dead) [ "$(cat "$T/h")" = "$child last-op exited" ] ;;
		alive) [ "$(cat "$T/h")" = "$child last-op " ] ;;
		self) [ ! -s "$T/h" ] ;;
		esac
	done
}

@test "waitfor: a thread stopped for its tracer (ptrace) waits for the tracer" {
	need_waitfor
	start_case ptrace
	for i in $(seq 50); do
		argus-waitfor -q -Z -o "$T/s.csv" -p "$WAITER"
		obj=$(records wait -v t="$WAITER_TID" '$TID == t && $MODE == "stop" { print $OBJECT }' "$T/s.csv")
		[ -n "$obj" ] && break
		sleep 0.1
	done
	cat "$T/s.csv"
	[ "$obj" = "ptrace:$WAITER_TID" ]
	[ "$(records holder -v o="$obj" '$OBJECT == o { print $PID, $TID, $RELATION }' "$T/s.csv")" = "$HOLDER $HOLDER_TID tracer" ]
	# Stopped by a signal with no tracer: no holder the kernel names.
	bg sh -c 'kill -STOP $$; true'
	sh=${PIDS##* }
	for i in $(seq 50); do
		argus-waitfor -q -Z -o "$T/t.csv" -p "$sh"
		[ -n "$(records wait -v p="$sh" '$PID == p && $MODE == "stop"' "$T/t.csv")" ] && break
		sleep 0.1
	done
	[ -z "$(records wait -v p="$sh" '$PID == p && $MODE == "stop" { print $OBJECT }' "$T/t.csv")" ]
	kill -CONT "$sh"
}

# snap_flag [ARGS...]: a snapshot into $T/s.csv once the waiter's flag
# wait is in it; the case's loop may take a moment to start.
snap_flag() {
	local i
	for i in $(seq 50); do
		argus-waitfor -q -Z -o "$T/s.csv" "$@"
		[ -n "$(records wait -v t="$WAITER_TID" \
		    '$TID == t && $MODE == "flag"' "$T/s.csv")" ] && return 0
		sleep 0.1
	done
	echo "no flag wait of $WAITER_TID:"
	cat "$T/s.csv"
	return 1
}

@test "waitfor: a loop that spins on a flag in shared memory waits on the mapping, and those that map it are its mappers" {
	need_waitfor
	start_case shm-spin
	read -r _ other _ < <(grep '^other ' "$T/case.out")
	# Machine-wide: a running thread is in it for its shared memory.
	snap_flag
	records wait -v t="$WAITER_TID" '$TID == t && $MODE == "flag" {
	    print $STATE, $TYPE }' "$T/s.csv" | grep -qx 'R shm'
	obj=$(object_of "$WAITER_TID" flag)
	[[ $obj == shm:0:*:[0-9]* ]]
	records holder -v o="$obj" '$OBJECT == o { print $PID, $RELATION, $DETAIL }' \
	    "$T/s.csv" | sort -n >"$T/h"
	cat "$T/h"
	grep -qx "$HOLDER mapper /dev/zero (deleted)" "$T/h"
	grep -qx "$WAITER mapper /dev/zero (deleted)" "$T/h"
	[ -z "$(grep "^$other " "$T/h")" ]
	# --pid: the mappers' own waits come with it.
	snap_flag -p "$WAITER"
	records wait -v p="$HOLDER" '$PID == p { print $CALL }' "$T/s.csv" |
	    grep -qx pause
	[ -z "$(records wait -v p="$other" '$PID == p' "$T/s.csv")" ]
}

@test "waitfor: a loop that naps between polls of shared memory has its flag wait beside its sleep" {
	need_waitfor
	start_case shm-nap
	# Caught in its nap, not between two (runnable, on a busy machine,
	# it has its flag wait alone): the sleep and the flag.
	for i in $(seq 50); do
		snap_flag
		records wait -v t="$WAITER_TID" '$TID == t { print $MODE }' \
		    "$T/s.csv" | sort | tr '\n' ' ' >"$T/m"
		[ "$(cat "$T/m")" = "flag sleep " ] && break
	done
	cat "$T/m"
	[ "$(cat "$T/m")" = "flag sleep " ]
	# The thread's records together.
	records wait '{ print $TID }' "$T/s.csv" | uniq | sort | uniq -d >"$T/split"
	[ ! -s "$T/split" ]
	obj=$(object_of "$WAITER_TID" flag)
	holders_of "$obj" | grep -qx "$HOLDER mapper "
}

@test "waitfor: a running thread that shares no memory with another has no record" {
	need_waitfor
	bg sh -c 'while :; do :; done'
	busy=${PIDS# }
	for i in $(seq 50); do
		[ "$(awk '{ print $3 }' /proc/$busy/stat 2>/dev/null)" = R ] &&
		    break
		sleep 0.1
	done
	argus-waitfor -q -Z -o "$T/s.csv"
	[ -z "$(records wait -v p="$busy" '$PID == p' "$T/s.csv")" ]
	[ -z "$(records holder -v p="$busy" '$PID == p && $RELATION == "mapper"' \
	    "$T/s.csv")" ]
}

@test "waitfor: an open held for a fanotify permission event waits for the listener that decides it" {
	need_waitfor
	start_case fanotify "this kernel takes no fanotify permission events"
	snap "$WAITER_TID" openat -p "$WAITER"
	records wait -v t="$WAITER_TID" '$TID == t { print $STATE, $TYPE, $OBJECT, $MODE }' \
	    "$T/s.csv" | grep -qx 'D fanotify fanotify verdict'
	holders_of fanotify >"$T/h"
	cat "$T/h"
	grep -qx "$HOLDER arbiter [0-9]*" "$T/h"
	[ "$(wc -l <"$T/h")" -eq 1 ]
	# --pid follows the chain to the listener's own wait.
	records wait -v p="$HOLDER" '$PID == p { print $CALL }' "$T/s.csv" |
	    grep -qx pause
}

@test "waitfor: a read of a FUSE file waits for the daemon that serves its file system, not another's" {
	need_waitfor
	start_case fuse "no FUSE here (/dev/fuse, a mount namespace, a mount)"
	read -r _ OTHER _ < <(grep '^other ' "$T/case.out")
	snap "$WAITER_TID" read -p "$WAITER"
	obj=$(records wait -v t="$WAITER_TID" '$TID == t && $MODE == "answer" &&
	    $TYPE == "fuse" { print $OBJECT }' "$T/s.csv")
	echo "the read waits on: $obj"
	[[ "$obj" == fuse:* ]]
	holders_of "$obj" >"$T/h"
	cat "$T/h"
	if grep -q '^fuse_connection:' "/proc/$HOLDER/fdinfo/"*; then
		# The kernel says which file system a daemon serves.
		[[ "$obj" == fuse:*:* ]]
		grep -qx "$HOLDER server [0-9]*" "$T/h"
		[ "$(wc -l <"$T/h")" -eq 1 ]
	else
		# It does not: either daemon may be the one.
		grep -qx "$HOLDER server [0-9]*" "$T/h"
		grep -qx "$OTHER server [0-9]*" "$T/h"
	fi
	# --pid follows the chain to the daemon's own wait, for requests.
	records wait -v p="$HOLDER" '$PID == p { print $CALL, $TYPE, $MODE }' \
	    "$T/s.csv" | grep -qx 'read fuse in'
	[ -z "$(records wait -v p="$OTHER" '$PID == p' "$T/s.csv")" ]
}

@test "waitfor: a receive on a POSIX message queue waits for those that hold it open for sending" {
	need_waitfor
	start_case mq "no POSIX message queues in this kernel"
	snap "$WAITER_TID" mq_timedreceive -p "$WAITER"
	obj=$(records wait -v t="$WAITER_TID" '$TID == t && $MODE == "in" &&
	    $TYPE == "mqueue" { print $OBJECT }' "$T/s.csv")
	echo "the receive waits on: $obj"
	[[ "$obj" == mqueue:*:* ]]
	holders_of "$obj" >"$T/h"
	cat "$T/h"
	grep -qx "$HOLDER writer [0-9]*" "$T/h"
	grep -qx "$WAITER reader [0-9]*" "$T/h"
	[ "$(wc -l <"$T/h")" -eq 2 ]
}

@test "waitfor: a poll of a pidfd waits for the process it refers to" {
	need_waitfor
	start_case pidfd "no pidfd_open in this kernel"
	snap "$WAITER_TID" poll -p "$WAITER"
	records wait -v t="$WAITER_TID" '$TID == t { print $TYPE, $OBJECT, $MODE }' \
	    "$T/s.csv" | grep -qx "pidfd pidfd:$HOLDER in"
	holders_of "pidfd:$HOLDER" | grep -qx "$HOLDER process "
}

# The case's waiter, in CALL, waits for an answer on the one object of
# TYPE, whose one holder is HOLDER, in relation REL.
answered_by() {	# CALL TYPE REL
	snap "$WAITER_TID" "$1" -p "$WAITER"
	records wait -v t="$WAITER_TID" '$TID == t { print $TYPE, $OBJECT, $MODE }' \
	    "$T/s.csv" | grep -qx "$2 $2 answer"
	holders_of "$2" | tee "$T/h"
	grep -qx "$HOLDER $3 [0-9]*" "$T/h"
	[ "$(wc -l <"$T/h")" -eq 1 ]
}

@test "waitfor: a call held for a seccomp notification waits for the supervisor that holds the listener" {
	need_waitfor
	start_case seccomp "no seccomp user notification in this kernel"
	answered_by mkdir seccomp supervisor
}

@test "waitfor: a fault on a page registered with a userfaultfd waits for the handler that read it" {
	need_waitfor
	start_case userfault "no userfaultfd in this kernel, or not for root"
	read -r _ OTHER _ < <(grep '^other ' "$T/case.out")
	# Outside any call, a read of the page; not the holder of a
	# userfaultfd with no fault outstanding.
	answered_by "" userfaultfd handler
	! grep -q "^$OTHER " "$T/h"
}

@test "waitfor: a thread in posix_spawn waits for its child, blocked before its exec" {
	need_waitfor
	start_case vfork
	# The child blocks every signal until its exec (glibc's posix_spawn).
	KILLS=$HOLDER
	snap "$HOLDER" openat -p "$WAITER"
	# posix_spawn clones with CLONE_VFORK, by clone3 or clone.
	records wait -v t="$WAITER_TID" '$TID == t { print $CALL, $MODE, $OBJECT }' \
	    "$T/s.csv" | grep -Ex "clone3? child pid:$HOLDER"
	holders_of "pid:$HOLDER" | grep -qx "$HOLDER child "
	# --pid follows the chain to the child's own wait.
	records wait -v p="$HOLDER" '$PID == p { print $CALL }' "$T/s.csv" |
	    grep -qx openat
}

@test "waitfor: --pid keeps the chain and nothing else" {
	need_waitfor
	start_case pipe
	bg sleep 100
	other=${PIDS##* }
	snap "$WAITER_TID" read -p "$WAITER"
	[ -z "$(records wait -v p="$other" '$PID == p' "$T/s.csv")" ]
	records wait '{ print $PID }' "$T/s.csv" | sort -u >"$T/p"
	printf '%s\n' "$WAITER" "$HOLDER" | sort -u | diff - "$T/p"
}

@test "waitfor: a capture cut with SIGINT while a reader waits carries the snapshot" {
	need_waitfor
	need_tracing
	start_case pipe
	snap "$WAITER_TID" read -p "$WAITER"
	argus-capture -p "$WAITER" -o "$T/c.gz" 2>"$T/c.err" &
	cap=$!
	PIDS="$PIDS $cap"
	wait_capture "$cap"
	sleep 0.5
	kill -INT "$cap"
	wait "$cap"
	argus-cat -Z "$T/c.gz" >"$T/c.csv"
	obj=$(records wait -v t="$WAITER_TID" '$TID == t && $MODE == "in" { print $OBJECT }' \
	    "$T/c.csv")
	[[ $obj == pipe:* ]]
	records holder -v o="$obj" '$OBJECT == o { print $PID, $RELATION }' "$T/c.csv" |
	    grep -qx "$HOLDER writer"
	# After the last event, before the closing meta records that count it.
	awk -F, '$1 == "wait" || $1 == "holder" { s = NR }
	    $1 == "event" { e = NR } $1 == "meta" && $5 == "end" { m = NR }
	    END { exit !(e < s && s < m) }' "$T/c.csv"
	n=$(records wait '{ n++ } END { print n }' "$T/c.csv")
	grep -qx "meta,[0-9]*,,,snapshot_waits,$n" "$T/c.csv"
	# Time order holds across it.
	awk -F, '$2 != "" { if ($2 + 0 < t) exit 1; t = $2 + 0 }' "$T/c.csv"
}

@test "waitfor: argus-capture --no-snapshot takes none" {
	need_waitfor
	need_tracing
	argus-capture --no-snapshot -d 0.3 -o "$T/c.gz" 2>/dev/null
	[ -z "$(argus-cat -k wait,holder "$T/c.gz" | grep -v '^argus-stream')" ]
	! argus-cat "$T/c.gz" | grep -q snapshot_
}

@test "waitfor: file locks in the trace: the holder's taking, the waiter put to sleep" {
	need_waitfor
	need_tracing
	need_prog flock
	: >"$T/lockfile"
	d=$(stat -c %d "$T/lockfile")	# st_dev, as glibc encodes it
	dev="$(( (d >> 8 & 0xfff) | (d >> 32 & ~0xfff) )):$(( (d & 0xff) | (d >> 12 & ~0xff) ))"
	ino=$(stat -c %i "$T/lockfile")
	# Each step waits for what the kernel says, not for a time that load
	# can stretch: the second flock(1) once the first holds the lock (so
	# one of them sleeps on it), the OFD case's end once its waiter is
	# listed as blocked (/proc/locks: "->"), 30 s at most each.
	timeout 90 argus-capture -o "$T/c.gz" -- sh -c "
	    until_locks() {
		i=0
		until grep -q \"\$1.*:$ino \" /proc/locks; do
			i=\$((i + 1)); [ \$i -lt 300 ] || break; sleep 0.1
		done
	    }
	    flock '$T/lockfile' sleep 1 & until_locks ' FLOCK '
	    flock '$T/lockfile' true
	    '$CASES' ofd '$T/lockfile' >'$T/ofd.out' & p=\$!
	    until_locks ' -> OFDLCK '; kill \$p" \
	    2>/dev/null
	argus-cat -Z "$T/c.gz" >"$T/c.csv"
	grep -E '^lost,|^meta,.*,lost,' "$T/c.csv" || true
	cat "$T/ofd.out"
	# event,TIME,PID,TID,VERTEX,CPU,TYPE,CTX, then DEV,INODE,LOCK,FLAGS,
	# START,END,LOCK_PID,OWNER,BLOCKER,RET,FL: RET is column 18.
	awk -F, -v d="$dev" -v i="$ino" '$1 == "event" &&
	    $7 ~ /lock|setlk|remove/ && $9 == d && $10 == i {
	    print $4, $7, $11, $12, $18 }' "$T/c.csv" >"$T/l"
	cat "$T/l"
	# flock(1): one takes it, the other sleeps on it, then takes it.
	holder=$(awk '$2 == "flock_lock" && $3 == "write" && $5 == 0 { print $1; exit }' "$T/l")
	waiter=$(awk '$2 == "flock_lock" && $3 == "write" && $5 == 1 { print $1; exit }' "$T/l")
	[ -n "$holder" ]
	[ -n "$waiter" ]
	[ "$holder" != "$waiter" ]
	grep -q "^$waiter flock_lock write FLOCK|SLEEP 0$" "$T/l"
	grep -q "^$holder flock_lock unlock FLOCK" "$T/l"
	# The OFD case: its taker (which /proc/locks does not name), and its
	# waiter put to sleep.
	read -r _ ofd_holder _ < <(grep '^holder ' "$T/ofd.out")
	read -r _ ofd_waiter _ < <(grep '^waiter ' "$T/ofd.out")
	[ -n "$ofd_holder" ]
	[ -n "$ofd_waiter" ]
	# BLOCKER is hex: 0x0, whatever the awk.
	awk -F, -v i="$ino" '$1 == "event" && $7 == "posix_lock" && $10 == i &&
	    $12 == "POSIX|OFD" && ($17 == "0x0" || $17 == "0") { print $15 }' \
	    "$T/c.csv" | grep -qx "$ofd_holder"
	grep -q "^$ofd_waiter posix_lock write POSIX|SLEEP|OFD 1$" "$T/l"
}

# Issue 23: a timed wait is said timed whatever the call: a System V
# semaphore's semtimedop(2), through Python's ctypes.
@test "waitfor: semtimedop's timeout is in its record" {
	need_root
	command -v python3 >/dev/null || skip "python3 is not installed"
	cat >"$T/sem.py" <<-'EOS'
	import ctypes, signal, sys
	# Ended by the test's TERM: the semaphore is removed all the same.
	signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
	libc = ctypes.CDLL(None, use_errno=True)
	class sembuf(ctypes.Structure):
	    _fields_ = [("num", ctypes.c_ushort), ("op", ctypes.c_short), ("flg", ctypes.c_short)]
	class timespec(ctypes.Structure):
	    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]
	sid = libc.semget(0, 1, 0o600)	# IPC_PRIVATE, its value 0
	try:
	    libc.semtimedop(sid, ctypes.byref(sembuf(0, -1, 0)), 1, ctypes.byref(timespec(100, 0)))
	finally:
	    libc.semctl(sid, 0, 0)	# IPC_RMID
	EOS
	bg python3 "$T/sem.py"
	snap "${PIDS# }" semtimedop -p "${PIDS# }"
	records wait -v p="${PIDS# }" '$PID == p { print $CALL, $TIMEOUT }' "$T/s.csv" >"$T/sem"
	cat "$T/sem"
	[ "$(cat "$T/sem")" = "semtimedop 100000000000" ]
}
