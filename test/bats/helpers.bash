# Shared by every .bats file: the programs under test come first on PATH,
# those of bin/ or of ARGUS_BIN (the sanitizer build's: test/run).
ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
BIN=$(cd "$ROOT" && cd "${ARGUS_BIN:-bin}" && pwd)
PATH="$BIN:$PATH"

# A stream from here-document lines, header included.
stream() {
	printf 'argus-stream,1\n'
	cat
}

# Fails, saying where, if a file holds a control byte other than newline
# and tab, a C1 control, or invalid UTF-8: what a terminal would act on.
clean() {	# file...
	local f
	for f; do
		perl -0777 -ne '
			utf8::decode($_) or do { print "invalid UTF-8\n"; exit 1 };
			if (/([\x00-\x08\x0b-\x1f\x7f-\x9f])/) {
				printf "raw control 0x%02x\n", ord($1); exit 1
			}' "$f" || { echo "in $f:"; cat -A "$f"; return 1; }
	done
}

# Prerequisites: each skips the test, saying why, where what it needs is
# not here; a test never passes without what it checks.  need_tracing
# and its kin in every file: no file probes for itself.

# need_root [WHAT]: root; WHAT is the skip's message, what is missing
# without it ("watchpoints unavailable").
need_root() {
	[ "$(id -u)" = 0 ] || skip "${1:-this test needs root}: not root"
}

# need_prog NAME...: each a program on PATH (bin/ first), or, given as a
# path, one built there.
need_prog() {
	local p
	for p; do
		case $p in
		*/*) [ -x "$p" ] || skip "${p#"$ROOT"/} not built" ;;
		*) command -v "$p" >/dev/null || skip "$p not installed" ;;
		esac
	done
}

# The tracefs mount: /sys/kernel/tracing, or its older place in debugfs.
TFS=/sys/kernel/tracing
[ -d "$TFS/instances" ] || [ ! -d /sys/kernel/debug/tracing/instances ] ||
    TFS=/sys/kernel/debug/tracing

# need_tracefs: root and a tracefs with instances, at $TFS.
need_tracefs() {
	need_root "tracefs unavailable"
	[ -d "$TFS/instances" ] || skip "tracefs unavailable: no $TFS/instances"
}

# can_trace: 0 if argus-capture can trace here.  Else why not in
# NO_TRACING, and 1 where tracing is unavailable (not root, no tracefs:
# the capture exits 69), 2 where the capture failed otherwise: a fault
# to report, no reason to skip.  For setup_file, which cannot skip.
can_trace() {
	local rc=0
	NO_TRACING=
	if [ ! -x "$BIN/argus-capture" ]; then
		NO_TRACING="bin/argus-capture not built"
		return 1
	fi
	if [ "$(id -u)" != 0 ]; then
		NO_TRACING="not root"
		return 1
	fi
	NO_TRACING=$(timeout 20 argus-capture -d 0.1 -o /dev/null 2>&1) || rc=$?
	case $rc in
	0) NO_TRACING= ;;
	69) return 1 ;;
	*) NO_TRACING="argus-capture -d 0.1: exit $rc: $NO_TRACING"; return 2 ;;
	esac
}

# need_tracing: argus-capture can trace here; a capture that fails
# otherwise fails the test.
need_tracing() {
	local rc=0
	can_trace || rc=$?
	[ "$rc" != 1 ] || skip "tracing unavailable: $NO_TRACING"
	[ "$rc" = 0 ] || { echo "$NO_TRACING"; return 1; }
}

# need_perf: perf(1) installed and able to record a tracepoint of the
# whole system here.
need_perf() {
	need_root "perf unavailable"
	need_prog perf
	local out data="${BATS_TEST_TMPDIR:-/tmp}/need_perf.data"
	out=$(timeout 30 perf record -q -a -o "$data" -e sched:sched_switch \
	    -- true 2>&1) || skip "perf record cannot trace here: $out"
	rm -f "$data"
}

# gone PID [SECONDS]: the process ended within SECONDS (default 5): no
# longer there, or a zombie (dead, its new parent yet to reap it, which
# kill -0 cannot tell from alive).
gone() {
	local i state
	for ((i = 0; i < ${2:-5} * 20; i++)); do
		state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || true
		[ -n "$state" ] && [ "$state" != Z ] || return 0
		sleep 0.05
	done
	echo "process $1 still there (state $state)"
	return 1
}

# "key=value" lines of a file, as shell variables.
load_ids() {
	eval "$(grep -E '^[a-z_]+=[-0-9a-zA-Z_.,/]*$' "$1")"
}

# Waits (10 s at most) until the capture with this pid traces; 1 if it
# does not.  A new instance reads tracing_on 1 before the capture turns it
# off to configure it, so its events must be set too: then tracing_on 1 is
# the capture's own.
# The wake-ups a pthread-wake run's producer made of its consumer, from
# trace $1 and graph $2: each one made inside pthread_cond_signal (between
# the producer's cond_signal and cond_signal_end events) is a strong cond
# link labelled with the condition; at least 4 of its 5 rounds are seen.
# A wake-up outside the call (the kernel's, of a consumer about to sleep
# on something else) may be anything but a cond link.
check_cond_links() {
	awk -F, -v from="$producer" -v to="$consumer" -v obj="$cond" '
	    FILENAME == ARGV[1] && $1 == "event" && $4 == from && $7 == "cond_signal" { b[++ni] = $2 }
	    FILENAME == ARGV[1] && $1 == "event" && $4 == from && $7 == "cond_signal_end" && ni { e[ni] = $2 }
	    FILENAME == ARGV[2] && $1 == "link" && $4 == to && $11 == from && $8 != "order" && $8 != "wait" {
		inside = 0
		for (i = 1; i <= ni; i++)
			if ($9 >= b[i] && (!(i in e) || $9 <= e[i])) inside = 1
		cond = $8 == "cond" && $7 == "strong" && $12 == obj
		print (inside ? "inside " : "outside ") $0
		if (inside && cond) n++
		else if (inside || $8 == "cond") bad++
	    }
	    END { print ni + 0 " signals, " n + 0 " cond links, " bad + 0 " wrong"; exit !(n >= 4 && bad == 0) }' "$1" "$2"
}

wait_capture() {
	local inst="$TFS/instances/argus-$1" i
	for i in $(seq 100); do
		[ -n "$(cat "$inst/set_event" 2>/dev/null)" ] &&
		    [ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ] && return 0
		sleep 0.1
	done
	return 1
}

# capture_cut OUT TRUTH COMMAND...: a capture of the whole machine into
# OUT, cut while COMMAND's hang goes on, the way a user meets a hang: the
# capture starts first, then COMMAND (a program of test/scenarios writing
# its ground truth to TRUTH: its -t), and the capture is interrupted 1.5 s
# after TRUTH says the hang began.  COMMAND is then ended (SIGTERM: a
# scenario takes its children down) and waited for before this returns,
# so that the next capture does not trace it; what the hang does after
# the cut is in no trace, so nothing waits for it.
# The capture's messages go to stderr; its exit status is returned.
capture_cut() {
	local out=$1 truth=$2 cap cmd i rc=0
	shift 2
	argus-capture -o "$out" 3>&- &
	cap=$!
	wait_capture "$cap" || true
	timeout 60 "$@" >/dev/null 2>&1 3>&- &
	cmd=$!
	for i in $(seq 100); do
		grep -q '^hang_begin_ns=' "$truth" 2>/dev/null && break
		sleep 0.1
	done
	sleep 1.5
	kill -INT "$cap" 2>/dev/null || true
	wait "$cap" || rc=$?
	kill -TERM "$cmd" 2>/dev/null || true
	wait "$cmd" || true
	return "$rc"
}

# The columns of a record kind, KIND first, as argus-stream(5) lists them:
# its literal line "KIND,TIME,PID,TID,...".  An event's arguments go on
# "ARG1,ARG2,...": to ARG9 here.
columns() {
	local cols
	cols=$(grep -m1 "^$1,TIME,PID,TID" "$ROOT/share/man/argus-stream.5" |
	    sed 's/^[a-z]*,/KIND,/; s/,\.\.\.$//' | tr , ' ')
	case $cols in
	*ARG2) cols="$cols ARG3 ARG4 ARG5 ARG6 ARG7 ARG8 ARG9" ;;
	esac
	echo "$cols"
}

# records KIND [-v VAR=VALUE ...] 'AWK PROGRAM' [FILE...]: the program over
# a stream's KIND records only, each column named by its argus-stream(5)
# name:  records link -v r=wakeup '$RULE == r { print $FROM, $TO }' g.csv
records() {
	local kind=$1 prog i=1 name cols
	local -a vars=()
	shift
	while [ "$1" = -v ]; do
		vars+=(-v "$2")
		shift 2
	done
	prog=$1
	shift
	cols=$(columns "$kind")
	[ -n "$cols" ] || { echo "records: no kind '$kind' in argus-stream(5)" >&2; return 2; }
	for name in $cols; do
		prog=$(printf '%s' "$prog" | sed "s/\\\$$name\\b/\$$i/g")
		i=$((i + 1))
	done
	awk -F, "${vars[@]}" "\$1 != \"$kind\" { next } $prog" "$@"
}

# The names a man page lists between its '.\" LIST: begin' and
# '.\" LIST: end' comments, one a line.
man_list() {
	sed -n "/^\\.\\\\\" $2: begin/,/^\\.\\\\\" $2: end/p" "$ROOT/share/man/$1" |
	    sed -n 's/^\.It Cm \([^ ]*\).*/\1/p'
}

# Waits (10 s at most) until process $1 writes an output file in directory
# $2 that is not yet under its name: an unnamed O_TMPFILE ("#INODE
# (deleted)") or a temporary NAME.XXXXXX beside it.  1 if it does not.
wait_output() {
	local i
	for i in $(seq 100); do
		ls -l "/proc/$1/fd" 2>/dev/null |
		    grep -qE -- "-> $2/(#[0-9]+ \(deleted\)|.*\.[A-Za-z0-9]{6})$" &&
		    return 0
		sleep 0.1
	done
	return 1
}

# An unprivileged local user, for the attacker's steps of a test: runs
# the rest of the line as nobody.  need_nobody skips, saying why, where
# that cannot be done.
need_nobody() {
	[ "$(id -u)" = 0 ] || skip "not root: cannot act as another user"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) missing"
}
as_nobody() {
	setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups "$@"
}

# A directory like /tmp (1777), for what nobody plants: the test's own
# $BATS_TEST_TMPDIR is root's alone.  Removed by pub_cleanup (teardown).
pub_dir() {
	PUB=$(mktemp -d /tmp/argus-test-pub.XXXXXX)
	chmod 1777 "$PUB"
}
pub_cleanup() {
	[ -z "${PUB:-}" ] || rm -rf "$PUB"
}

# How many links argus-slice --dot left out of its picture, far from the
# chain (it says so in a comment); 0 if none.
dot_left_out() {	# file
	sed -n 's|^	/\* left out: [0-9]* vertices, \([0-9]*\) links \*/$|\1|p' "$1" |
	    grep . || echo 0
}

# The rules by which Perfetto's JSON importer binds flows, checked on a
# file of one trace event per line (argus-export -f json, argus-slice
# --json).  Perfetto binds a flow's start ("s") and its end ("f" with
# "bp":"e") to the topmost slice open on the same track (pid, tid) when it
# reads them in time order (FlowTracker::Begin and End,
# SliceTracker::GetTopmostSliceOnTrack); a point with no slice there is
# dropped (flow_no_enclosing_slice), an end met before its start too
# (flow_end_without_start), a second start of an id (flow_duplicate_id).
# An "f" without "bp":"e" would bind to the next slice to begin instead:
# not what these files mean.  So, stricter than the importer: each flow
# point lies within a slice of its own track (slices come first at equal
# times), every end has "bp":"e", is not before its start, each id starts
# and ends once; slices on a track nest; no slice twice (same track, ts,
# dur, name); every track and process used is named.  Prints what fails.
check_json() {
	local events="${BATS_TEST_TMPDIR:-.}/check_json.events"
	awk '
	BEGIN { CONVFMT = OFMT = "%.0f" }	# ns are integers: print them whole
	function val(k,    m) {
		if (match($0, "\"" k "\":(\"[^\"]*\"|[-0-9.]+)")) {
			m = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
			gsub(/"/, "", m)
			return m
		}
		return ""
	}
	function ns(t,    p) {	# "7255.334" us to integer ns
		p = index(t, ".")
		return p ? substr(t, 1, p - 1) * 1000 + substr(t, p + 1) : t * 1000
	}
	/"ph":"M"/ && /"thread_name"/ { named[val("pid") "/" val("tid")] = 1 }
	/"ph":"M"/ && /"process_name"/ { pnamed[val("pid")] = 1 }
	/"ph":"X"/ {
		tr = val("pid") "/" val("tid"); b = ns(val("ts")); e = b + ns(val("dur"))
		print tr, b, 0, "X", e
		if ((tr, b, e, val("name")) in dup) { print "FAIL duplicate slice", tr, b, val("name"); bad++ }
		dup[tr, b, e, val("name")] = 1
		used[tr] = 1; pused[val("pid")] = 1
	}
	/"ph":"[sf]"/ {
		tr = val("pid") "/" val("tid")
		if ((val("ph"), val("id")) in once) { print "FAIL flow", val("ph"), val("id"), "twice"; bad++ }
		once[val("ph"), val("id")] = 1
		if (val("ph") == "f" && val("bp") != "e") { print "FAIL flow end", val("id"), "without \"bp\":\"e\""; bad++ }
		print tr, ns(val("ts")), 1, val("ph"), val("id")
		used[tr] = 1; pused[val("pid")] = 1
	}
	END {
		for (t in used) if (!(t in named)) { print "FAIL unnamed track", t; bad++ }
		for (p in pused) if (!(p in pnamed)) { print "FAIL unnamed process", p; bad++ }
		exit bad > 0
	}' "$1" >"$events" || { grep FAIL "$events"; return 1; }
	# By track and time, slices before flow points at the same time and
	# longest first: a stack checks nesting, and each flow point must fall
	# in an open slice.
	sort -k1,1 -k2,2n -k3,3n -k5,5nr "$events" | awk '
	$1 != track { track = $1; sp = 0 }
	$4 == "X" {
		while (sp > 0 && end[sp] <= $2) sp--
		if (sp > 0 && $5 > end[sp]) { print "FAIL slices overlap on", $1, $2; bad++ }
		end[++sp] = $5; next
	}
	{
		while (sp > 0 && end[sp] < $2) sp--
		if (sp == 0) { print "FAIL flow", $4, $5, "at", $2, "outside every slice of", $1; bad++ }
		if ($4 == "s") start[$5] = $2; else stop[$5] = $2
	}
	END {
		for (i in stop) if (!(i in start) || stop[i] < start[i]) {
			print "FAIL flow", i, "ends before it starts"; bad++ }
		for (i in start) if (!(i in stop)) { print "FAIL flow", i, "never ends"; bad++ }
		exit bad > 0
	}'
}

# Reports draw arrows in UTF-8 only where the locale says UTF-8 (ASCII
# under LC_ALL=C): the tests read them in UTF-8, whatever the machine's.
export LC_ALL=C.UTF-8

# A recorder into ./ring, recording: its buffers take a moment, more on
# a busy machine; its status counts the events they hold.
recorder() {
	local i
	run argus --ring "$BATS_TEST_TMPDIR/ring" start -b 32M
	[ "$status" -eq 0 ]
	for i in $(seq 150); do
		argus --ring "$BATS_TEST_TMPDIR/ring" status 2>/dev/null |
		    grep -Eq ' [1-9][0-9]* events not yet written out' && break
		sleep 0.2
	done
	sleep 1
}

# The command before scenario NAME (test/scenarios) in a test: flag-poll
# at the lowest real-time priority (at nice -10 where that is refused).
# Its poller yields and naps 1 ms a round: at nice 0 beside busy CPUs it
# waited 24-106 ms for a CPU, past argus-spin's bound on a poll in 3 runs
# of 4, and at nice -10 38-44 ms in 3 of 10: no poller the scenario is
# about.  Real-time, under 4 ms in 5 runs of 6, as on an idle machine.
# Every thread of it sleeps between its steps: it takes no CPU from anyone.
scenario_prio() {	# NAME: sets the array PRIO
	PRIO=()
	[ "$1" = flag-poll ] || return 0
	if chrt -f 1 true 2>/dev/null; then
		PRIO=(chrt -f 1)
	else
		PRIO=(nice -n -10)
	fi
}

# The longest thread TID waited for a CPU from BEGIN on, in ns: from a
# wake-up of it, or from its preemption, to when it ran: its switch-in,
# or its first event (one of an interrupt in it too) where the kernel
# recorded no switch-in (none out of a CPU's idle task on some kernels:
# argus-segment(1) BUGS): a poller's polls on such a CPU are no wait.
cpu_wait_max() {	# trace tid begin
	argus-cat -k event -s "$3" "$1" | awk -F, -v t="$2" '
	    since && ($4 == t || $7 == "switch" && $11 == t) {
		if ($2 - since > max) max = $2 - since
		since = 0
	    }
	    $7 == "waking" && $10 == t && !since { since = $2 }
	    $7 == "switch" && $4 == t && $9 ~ /^R/ { since = $2 }
	    END { print max + 0 }'
}

# Client 1 waits for worker 2, the peer of its socket; the wait-for
# snapshot says what worker 2 waits on in epoll_wait (TIMEOUT: a timer of
# its own, or none) and that master 3, which holds the other end of that
# pipe, polls a listening socket (MODE accept).
nap() {	# TIMEOUT MASTER-MODE [EXTRA-WAIT-OF-WORKER]
	stream <<-EOF
	task,100,1,1,client
	task,100,2,2,worker
	task,100,3,3,master
	event,400000000,3,3,,0,sys_enter,-,1,write,0x4,0x0,0x1
	event,400000100,3,3,,0,sys_exit,-,1,write,1
	event,500000000,3,3,,0,sys_enter,-,270,pselect6,0x6,0x0,0x0,0x0,0x0,0x0
	event,500000100,3,3,,0,switch,-,S,0,0,swapper/0
	event,800000000,2,2,,1,sys_enter,-,44,sendto,0x4,0x0,0x1
	event,800000100,2,2,,1,sys_exit,-,44,sendto,1
	event,900000000,2,2,,1,sys_enter,-,232,epoll_wait,0x5,0x0,0x1,0x2710
	event,900000100,2,2,,1,switch,-,S,0,0,swapper/1
	event,1000000000,1,1,,0,sys_enter,-,7,poll,0x1,0x1,0xffffffff
	event,1000000100,1,1,,0,switch,-,S,0,0,swapper/0
	wait,4000000000,1,1,S,poll,3,unix,socket:50,in,,,1000000000,,poll_schedule_timeout,client,0x1,0x1,0xffffffff
	holder,4000000000,2,0,socket:50,peer,4,,unix,worker
	wait,4000000000,2,2,S,epoll_wait,5,epoll,epoll:2:5,in,$1,,900000000,,do_epoll_wait,worker,0x5,0x0,0x1,0x2710
	wait,4000000000,2,2,S,epoll_wait,7,pipe,pipe:77,in,$1,,900000000,epoll:2:5,do_epoll_wait,worker,0x5,0x0,0x1,0x2710
	${3:-note,4000000000,,,-}
	holder,4000000000,3,0,pipe:77,writer,4,,,master
	wait,4000000000,3,3,S,pselect6,6,unix,socket:60,$2,60000000000,,500000000,,poll_schedule_timeout,master,0x6,0x0,0x0,0x0,0x0,0x0
	event,5000000000,3,3,,1,sys_enter,-,39,getpid
	EOF
}

# A TCP port for a test's server on loopback: below the kernel's ephemeral
# range (32768-), where the machine's outgoing connections take theirs,
# and not listened on now (another test's server may still take it first).
free_port() {
	local p hex i
	for i in $(seq 50); do
		p=$((20000 + RANDOM % 12000))
		hex=$(printf '%04X' "$p")
		awk -v h=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == h { f = 1 }
		    END { exit !f }' /proc/net/tcp /proc/net/tcp6 2>/dev/null || {
			echo "$p"
			return 0
		}
	done
	echo "$p"
}
