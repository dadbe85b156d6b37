# test/real/lib.sh: what every real-program case shares (sourced).
#
# A case is a bash script, test/real/cases/NAME, that runs real programs on
# loopback and private paths, makes one of them hang, and writes the ground
# truth as key=value lines (see test/real/README).  Interface:
#
#	NAME [-n EPISODES] [-H SECONDS] [-t TRUTH] [--check]
#
# --check only says whether the programs are there (exit 0, or 69 with a
# message).  Everything a case starts is ended by pid when it exits, on
# SIGTERM and SIGINT too, and its private directory removed.
set -u

REAL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CASE=$(basename "$0")
EPISODES=5
HANG=5
TRUTH=/dev/null
CHECK=0

usage() {
	echo "usage: $CASE [-n EPISODES] [-H SECONDS] [-t TRUTH] [--check]" >&2
	exit 64
}
while [ $# -gt 0 ]; do
	case $1 in
	-n) [ $# -ge 2 ] || usage; EPISODES=$2; shift 2 ;;
	-H) [ $# -ge 2 ] || usage; HANG=$2; shift 2 ;;
	-t) [ $# -ge 2 ] || usage; TRUTH=$2; shift 2 ;;
	--check) CHECK=1; shift ;;
	*) usage ;;
	esac
done
case $EPISODES in ''|*[!0-9]*) usage ;; esac
case $HANG in ''|*[!0-9.]*) usage ;; esac

MONOTIME=$REAL_ROOT/test/progs/monotime

# need PROGRAM...: every one on PATH, else say which is missing and exit 69
# (EX_UNAVAILABLE), which the runner reports as a skip.  Ends a --check run.
need() {
	local p
	[ -x "$MONOTIME" ] || { echo "$CASE: $MONOTIME not built (make)" >&2; exit 69; }
	for p; do
		command -v "$p" >/dev/null 2>&1 || {
			echo "$CASE: $p is not installed (share/scripts/install-deps)" >&2
			exit 69
		}
	done
	[ "$CHECK" = 0 ] || exit 0
	start_case
}

now_ns() { "$MONOTIME"; }

# truth KEY VALUE: one line, one write, so a reader polling the file never
# sees half of it.
truth() { printf '%s=%s\n' "$1" "$2" >>"$TRUTH"; }

# Only the processes started here, ended by pid, children first: a
# server's per-connection children would outlive it otherwise.
STARTED=()
WORK=

# descendants PID: every descendant, parents before children.  Read from
# ps, as /proc/PID/task/TID/children may be missing from the kernel.
descendants() {
	ps -e -o pid=,ppid= | awk -v root="$1" '
		{ kids[$2] = kids[$2] " " $1 }
		END { walk(root) }
		function walk(p,   n, a, i) {
			n = split(kids[p], a, " ")
			for (i = 1; i <= n; i++) { print a[i]; walk(a[i]) }
		}'
}

# find_child PID COMMAND-LINE: the descendant of PID that runs exactly
# COMMAND-LINE (words joined by spaces); 1 if none.
find_child() {
	local c
	for c in $(descendants "$1"); do
		[ "$( { tr '\0' ' ' <"/proc/$c/cmdline"; } 2>/dev/null)" = "$2 " ] &&
		    { echo "$c"; return 0; }
	done
	return 1
}

stop_all() {
	local p all= i
	# A pid is ours while it is our child, reaped or not: never a
	# recycled one.
	for p in "${STARTED[@]}"; do
		[ "$(ps -o ppid= -p "$p" 2>/dev/null | tr -d ' ')" = $$ ] || continue
		all="$all $p $(descendants "$p" | tr '\n' ' ')"
	done
	[ -n "${all// /}" ] || return 0
	kill -TERM $all 2>/dev/null
	for i in $(seq 40); do
		kill -0 $all 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL $all 2>/dev/null
	wait 2>/dev/null
}

cleanup() {
	stop_all
	[ -n "$WORK" ] && rm -rf "$WORK"
}

start_case() {
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/argus-real-$CASE.XXXXXX") || exit 1
	trap cleanup EXIT
	trap 'exit 143' TERM
	trap 'exit 130' INT
	trap 'exit 129' HUP
	truth case "$CASE"
	truth episodes "$EPISODES"
	truth hang "$HANG"
}

# spawn CMD...: start CMD in the background, remember it; its pid in $!.
# Its standard input is the caller's (a background command's would be
# /dev/null otherwise).
spawn() {
	"$@" <&0 &
	STARTED+=("$!")
}

# await PID: wait for PID to end, but not for ever: the hang's length and
# 30 s more; its exit status (0 for a grandchild), or 1 after ending it.
await() {
	local st i child=0
	[ "$(ps -o ppid= -p "$1" 2>/dev/null | tr -d ' ')" = $$ ] && child=1
	for i in $(seq $(( (${HANG%.*} + 30) * 20 ))); do
		st=$(ps -o stat= -p "$1" 2>/dev/null)
		case $st in
		''|Z*) [ "$child" = 0 ] || wait "$1"; return ;;
		esac
		sleep 0.05
	done
	echo "$CASE: pid $1 ($(comm_of "$1")) still running; ending it" >&2
	kill -TERM "$1"
	[ "$child" = 0 ] || wait "$1"
	return 1
}

# wait_until SECONDS CMD...: poll CMD every 50 ms; 1 if it never succeeded.
wait_until() {
	local t=$1 i
	shift
	for i in $(seq $((t * 20))); do
		"$@" && return 0
		sleep 0.05
	done
	"$@"
}

# free_port: a TCP port that no socket on this machine has, in a range no
# service claims; each call gives another.
PORTS_GIVEN=" "
free_port() {
	local used p
	used=$(awk 'NR > 1 { split($2, a, ":"); print strtonum("0x" a[2]) }' \
	    /proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u | tr '\n' ' ')
	while :; do
		p=$((20000 + RANDOM % 30000))
		case " $used $PORTS_GIVEN " in *" $p "*) continue ;; esac
		PORTS_GIVEN="$PORTS_GIVEN$p "
		echo "$p"
		return
	done
}

comm_of() { cat "/proc/$1/comm" 2>/dev/null || echo '?'; }

# exec_of PID COMM: wait (5 s at most) until PID, just forked, runs COMM.
exec_of() {
	local i
	for i in $(seq 100); do
		[ "$(comm_of "$1")" = "$2" ] && return 0
		sleep 0.05
	done
	echo "$CASE: pid $1 is $(comm_of "$1"), not $2" >&2
}

# victim PID COMM: the thread that hangs is PID's main thread.
victim() {
	exec_of "$1" "$2"
	truth victim_pid "$1"
	truth victim_tid "$1"
	truth victim_comm "$(comm_of "$1")"
}

# root PID COMM [OTHER...]: PID's main thread is the right answer; OTHER
# processes (its children doing the slow part, say) count as right too.
root() {
	local p list=
	exec_of "$1" "$2"
	truth root_pid "$1"
	truth root_tid "$1"
	truth root_comm "$(comm_of "$1")"
	p=$1
	shift 2
	for p in "$p" "$@"; do list="$list${list:+,}$p"; done
	truth root_pids "$list"
}

# chain PID...: the processes from the victim to the root, each waiting on
# the next: what a full diagnosis shows.
chain() {
	local p pids= comms=
	for p; do
		pids="$pids${pids:+,}$p"
		comms="$comms${comms:+,}$(comm_of "$p")"
	done
	truth chain_pids "$pids"
	truth chain_comms "$comms"
}

# episode CMD...: one normal episode, timed into the truth.
episode() {
	local b
	b=$(now_ns)
	"$@"
	truth episode_begin_ns "$b"
	truth episode_end_ns "$(now_ns)"
}
