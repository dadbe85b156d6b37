#!/usr/bin/env bats
# Real-program hangs (test/real/cases), end to end against their truth:
# each case captured system-wide twice, cut while the hang lasts and after
# it ended, and diagnosed with --auto as a new user would
# (test/real/diagnose).  Done when, in both cuts, the diagnosis names the
# right process first and at most three processes.
#
# Not part of test/bats (make check) until the diagnosis passes them.
# REAL_CORPUS=DIR reuses captures in DIR/CASE-CUT/ (bench/real -d DIR)
# instead of capturing anew.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

# check CASE: capture (or reuse) both cuts and hold the diagnosis to the
# issue's bar; a case whose programs are missing, or no tracing, skips.
check() {
	local c=$1 cut d rc out l fails=
	for cut in during after; do
		if [ -n "${REAL_CORPUS:-}" ]; then
			d=$REAL_CORPUS/$c-$cut
			[ -s "$d/trace.gz" ] || skip "no capture $d"
			# Diagnosed in a copy: the corpus stays as it was made.
			mkdir -p "$BATS_TEST_TMPDIR/$c-$cut"
			cp "$d/trace.gz" "$d/truth" "$BATS_TEST_TMPDIR/$c-$cut/"
		fi
		d=$BATS_TEST_TMPDIR/$c-$cut
		if [ -z "${REAL_CORPUS:-}" ]; then
			rc=0
			out=$("$ROOT/test/real/run" "$c" --cut "$cut" -o "$d" 2>&1) || rc=$?
			[ "$rc" != 69 ] || skip "$out"
			[ "$rc" = 0 ] || { echo "$out"; return 1; }
		fi
		l=$("$ROOT/test/real/diagnose" "$d")
		echo "$c $cut: $l"
		case " $l " in
		*" class=none "*) fails="$fails $cut:no-hang-found" ;;
		esac
		case " $l " in
		*" first=yes "*) ;;
		*) fails="$fails $cut:right-process-not-first" ;;
		esac
		[ "$(sed 's/.* n=\([0-9]*\).*/\1/' <<<"$l")" -le 3 ] ||
		    fails="$fails $cut:more-than-3-named"
		[ -z "$fails" ] || { cat "$d/report"; }
	done
	[ -z "$fails" ] || { echo "failed:$fails"; return 1; }
}

@test "real: redis-server busy on another client's DEBUG SLEEP, redis-cli waits" {
	check redis-busy
}

@test "real: curl -> lighttpd -> slow CGI script" {
	check lighttpd-cgi
}

@test "real: socat client -> two socat relays -> slow backend" {
	check socat-chain
}

@test "real: gdbus call -> dbus-daemon -> slow service" {
	check dbus-call
}

@test "real: sqlite3 polling the lock another sqlite3 session holds" {
	check sqlite-busy
}

@test "real: redis-cli BLPOP waiting for a late producer" {
	check redis-queue
}

@test "real: xargs -P waiting for a slow child" {
	check xargs-child
}

@test "real: make -j waiting for a slow recipe (make -> sh -> sleep)" {
	check make-child
}

@test "real: tar blocked on a full pipe: tar | gzip | stalled reader" {
	check tar-pipe
}

@test "real: multiprocessing.Pool: main thread, result thread, slow worker" {
	check py-pool
}

@test "real: multiprocessing.Pool: a worker killed with the task, its answer lost" {
	check py-pool-kill
}

@test "real: an UPDATE waits for a row lock held idle in transaction while the script feeding psql sleeps" {
	check pg-idle
}

@test "real: flock(1) waiting for another flock(1)'s lock" {
	check flock-wait
}

@test "real: fcntl(F_SETLKW) waiting for a POSIX lock's holder" {
	check fcntl-lock
}

@test "real: fcntl(F_OFD_SETLKW) waiting for an OFD lock's holder" {
	check ofd-lock
}

@test "real: curl -> one of gunicorn's pre-forked workers, slow" {
	check gunicorn-prefork
}

@test "real: logger blocked on a Unix datagram socket a syslog stopped reading" {
	check dgram-full
}

@test "real: inotifywait waiting for a file a job beside it writes late" {
	check inotify-wait
}

@test "real: curl -> nginx reverse proxy -> slow backend" {
	check nginx-proxy
}

@test "real: a ThreadPoolExecutor's caller waits on a worker thread waiting on a slow server" {
	check futures-http
}

@test "real: curl -> a Python handler computing in GIL slices" {
	check http-compute
}

@test "real: a UDP client sends its request again every 100 ms to a server waiting for its child" {
	check udp-retry
}

@test "real: a Unix datagram client's tries queue up, unread, at a server waiting for its child" {
	check unix-retry
}

@test "real: a child forked while another thread of its parent held a lock waits on it" {
	check fork-lock
}

@test "real: a Python thread holds a lock across a timed condition wait" {
	check py-condlock
}

@test "real: a Python parent and cat deadlocked on each other's full pipe, cat killed" {
	check py-pipe-deadlock
}

@test "real: two asyncio loops with sockets both ways, one waiting on a sleeping backend: no circular wait" {
	local cut chain
	check py-duplex
	# Each loop has the other's sockets in its epoll set: the chain is
	# victim -> B -> backend, in both cuts, and no circle.
	for cut in during after; do
		d=$BATS_TEST_TMPDIR/py-duplex-$cut
		[[ "$(cat "$d/report")" != *"circular wait"* ]]
		chain=$(grep '^chain_pids=' "$d/truth" | cut -d= -f2)
		grep -q "^Wait chain: python3 ${chain%%,*} → python3 $(cut -d, -f2 <<<"$chain") → python3 ${chain##*,}\$" "$d/report"
	done
}
