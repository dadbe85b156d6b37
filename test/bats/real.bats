#!/usr/bin/env bats
# Real Debian programs hung while a system-wide capture runs, cut while
# the hang lasts, the way `argus debug` meets them (test/real/run), and
# diagnosed with --auto as a new user would (test/real/diagnose).  The
# bar: the root cause reported is the right process, and no more than
# three are named.  One case for each kind of fact the kernel gives:
# a TCP server's queue, a file lock, a pipe chain, a child waited for, a
# relay of sockets; and for what the history adds: a consumer whose
# producer is a new process each time (the baseline's, mapped to the
# present one by relation), a lock held by a session that a script feeds;
# and five that none of those is like: a stopped producer, a datagram
# server, a lock between a server's threads, a semaphore in shared memory
# between processes, a database's row lock (skipped without PostgreSQL,
# which share/scripts/install-deps does not install: a service); and five
# more: a pre-forked worker among several sharing a listener, a Unix
# datagram socket's full queue, an inotify watch a late job ends (a
# baseline by relation again, with helpers forked between), a reverse
# proxy idle in its event loop beside its master, a thread pool's future;
# and a Python handler at work in slices its GIL cuts; and a UDP client
# whose retries are the hang, no single wait of theirs, and a Unix
# datagram one whose tries nobody reads; and a child that
# waits on a lock held at its fork by a thread it does not have; and a
# pool whose worker was killed with the task, its answer lost.
# Every case and both cuts, to the same bar: test/real/real.bats.
# test/run: first, the longest file: begun last, it would run on alone.

load helpers

# during CASE: capture it cut during its hang, diagnose, check.
during() {
	local d=$BATS_TEST_TMPDIR/$1 rc=0 out l
	need_tracing
	out=$("$ROOT/test/real/run" "$1" --cut during -o "$d" 2>&1) || rc=$?
	[ "$rc" != 69 ] || skip "$out"
	[ "$rc" = 0 ] || { echo "$out"; return 1; }
	l=$("$ROOT/test/real/diagnose" "$d")
	echo "$1: $l"
	cat "$d/report"
	# Should the checks fail: what the walk had to go on.
	argus-cat -k baseline,step,root "$d/diagnosis.csv" 2>/dev/null | cut -c1-300 || true
	grep -E '^(episode|hang)_' "$d/truth" || true
	# And what the kernel lost of it (a loaded machine's ring overflowed).
	argus-cat -k lost "$d/trace.gz" 2>/dev/null | grep '^lost,' || true
	[[ " $l " == *" first=yes "* ]]
	[ "$(sed 's/.* n=\([0-9]*\).*/\1/' <<<"$l")" -le 3 ]
	# The report's first line is the answer.
	grep -m1 . "$d/report" | grep -q '^Root cause: '
}

@test "real, in progress: redis-cli waits; redis-server asleep with its connection queued" {
	during redis-busy
}

@test "real, in progress: flock(1) waits for the lock another flock(1) holds" {
	during flock-wait
}

@test "real, in progress: tar | gzip | a slow stage, through pipes" {
	during tar-pipe
}

@test "real, in progress: make -j waits for a slow recipe (make -> sh -> sleep)" {
	during make-child
}

@test "real, in progress: socat client -> two relays -> slow backend" {
	during socat-chain
}

@test "real, in progress: a redis-cli consumer waits for a late producer (baseline by relation)" {
	during redis-queue
}

@test "real, in progress: sqlite3 naps for a lock a session holds while its script sleeps" {
	during sqlite-busy
}

@test "real, in progress: grep reads a pipe whose writer was stopped (SIGSTOP)" {
	during stopped-producer
}

@test "real, in progress: dig waits for a slow DNS server over UDP" {
	during dig-udp
}

@test "real, in progress: curl -> a threaded HTTP server whose handler waits for a lock another holds" {
	during http-threadlock
}

@test "real, in progress: a parent waits on a multiprocessing.Lock its worker holds" {
	during py-semlock
}

@test "real, in progress: a PostgreSQL UPDATE waits for a row another session holds" {
	during pg-rowlock
}

@test "real, in progress: curl -> one of gunicorn's pre-forked workers, slow" {
	during gunicorn-prefork
}

@test "real, in progress: logger blocked on a Unix datagram socket a syslog stopped reading" {
	during dgram-full
}

@test "real, in progress: inotifywait waits for a file a job beside it writes late (baseline by relation)" {
	during inotify-wait
}

@test "real, in progress: curl -> nginx, idle in its event loop -> slow backend" {
	during nginx-proxy
}

@test "real, in progress: a ThreadPoolExecutor's caller waits on its worker thread's slow server" {
	during futures-http
}

@test "real, in progress: a UDP client sends its request again every 100 ms to a server waiting for its child" {
	during udp-retry
}

@test "real, in progress: a Unix datagram client's tries, unread, queue up at a server waiting for its child" {
	during unix-retry
}

@test "real, in progress: a child forked while another thread of its parent held a lock waits on it" {
	during fork-lock
}

# after CASE: the same, cut after its hang ended.
after() {
	local d=$BATS_TEST_TMPDIR/$1-after rc=0 out l
	need_tracing
	out=$("$ROOT/test/real/run" "$1" --cut after -o "$d" 2>&1) || rc=$?
	[ "$rc" != 69 ] || skip "$out"
	[ "$rc" = 0 ] || { echo "$out"; return 1; }
	l=$("$ROOT/test/real/diagnose" "$d")
	echo "$1: $l"
	cat "$d/report"
	# Should the checks fail: what the walk had to go on.
	argus-cat -k baseline,step,root "$d/diagnosis.csv" 2>/dev/null | cut -c1-300 || true
	grep -E '^(episode|hang)_' "$d/truth" || true
	# And what the kernel lost of it (a loaded machine's ring overflowed).
	argus-cat -k lost "$d/trace.gz" 2>/dev/null | grep '^lost,' || true
	[[ " $l " == *" first=yes "* ]]
	[ "$(sed 's/.* n=\([0-9]*\).*/\1/' <<<"$l")" -le 3 ]
	grep -m1 . "$d/report" | grep -q '^Root cause: '
}

@test "real, after: a UDP client sent its request again every 100 ms to a server waiting for its child" {
	after udp-retry
}

@test "real, after: a Unix datagram client's tries queued up, unread, at a server waiting for its child" {
	after unix-retry
}

@test "real, after: a child forked while another thread of its parent held a lock waited on it until killed" {
	after fork-lock
}

@test "real, after: a multiprocessing.Pool waited for the answer of a worker killed with its task" {
	after py-pool-kill
}

# A Python handler that computes, its work cut in slices by the GIL its
# server's main thread takes every half second: at work through the hang
# after it as while it lasts, never the curl whose request it serves.
@test "real, in progress: curl waits on a Python handler computing in GIL slices" {
	during http-compute
}

@test "real, after: curl waited on a Python handler computing in GIL slices" {
	after http-compute
	grep -m1 . "$BATS_TEST_TMPDIR/http-compute-after/report" |
	    grep -q '^Root cause: python3 [0-9]*/[0-9]* (a wake-up): .*stuck through the hang'
}

# Issue 23: a thread that holds a lock across a timed condition wait is
# the root, named by its thread; never a cycle through the main thread
# that once woke it.  Issue 39: its timed wait is a wait with a timeout,
# not a sleep on its own timer.
condlock() {	# DIR: the case's capture
	local tid
	tid=$(sed -n 's/^root_thread_tid=//p' "$1/truth")
	! grep -Eq '^Root cause: a circular wait|circular wait:' "$1/report" || false
	! grep -q 'asleep on its own timer in futex' "$1/report" || false
	grep -m1 . "$1/report" | grep -Eq "^Root cause: (probably )?python3 [0-9]+/$tid \\(.*\\): (waits in futex with a timeout|in a wait with a timeout in futex)"
}

@test "real, in progress: a thread holds a Python lock across a timed condition wait" {
	during py-condlock
	condlock "$BATS_TEST_TMPDIR/py-condlock"
}

@test "real, after: a thread held a Python lock across a timed condition wait" {
	after py-condlock
	condlock "$BATS_TEST_TMPDIR/py-condlock-after"
}

# Issue 23: the deadlock subprocess warns of (parent and cat each blocked
# writing the other's full pipe), killed by a timer thread: while it
# lasts the kernel says it is a circular wait; after, cat's death ended
# the parent's wait, and the report says who killed it, never the timer
# as the cause.
@test "real, in progress: a Python parent and cat deadlocked on each other's full pipe" {
	during py-pipe-deadlock
	grep -q '^Root cause: a circular wait (the kernel says)' "$BATS_TEST_TMPDIR/py-pipe-deadlock/report"
}

@test "real, after: a deadlock on each other's full pipe, ended by killing cat" {
	local d=$BATS_TEST_TMPDIR/py-pipe-deadlock-after child
	after py-pipe-deadlock
	child=$(sed -n 's/^root_pid=//p' "$d/truth")
	# The headline: the cycle, or cat, never the timer thread that
	# killed it (cat as far as it is known, blocked writing to a reader
	# its earlier messages did not name); how it ended, where the trace
	# shows cat's death end the parent's write (not when the write's
	# wake-up is seen elsewhere, as on a loaded machine it may be).
	grep -m1 . "$d/report" | grep -Eq "^Root cause: (a circular wait .*|(probably )?cat $child \\(a wake-up[^)]*\\): )"
	! grep -q '^      LongWait, .*ended by' "$d/report" ||
	    grep -q "^      LongWait, wakeup; ended by the death of cat $child, killed by python3 " "$d/report"
}

# Issue 23: cut 1.3 s into a row lock wait, after PostgreSQL's lock
# manager woke the waiting backend on its own timer (deadlock_timeout,
# 1 s) and it waited again for the same lock: one wait, followed to the
# session that holds the row, not the waiting backend's timer.
@test "real, in progress: a PostgreSQL row lock wait cut after its deadlock check" {
	local d=$BATS_TEST_TMPDIR/pg-rowlock-1.3 rc=0 out l
	need_tracing
	out=$("$ROOT/test/real/run" pg-rowlock --cut during --at 1.3 -o "$d" 2>&1) || rc=$?
	[ "$rc" != 69 ] || skip "$out"
	[ "$rc" = 0 ] || { echo "$out"; return 1; }
	l=$("$ROOT/test/real/diagnose" "$d")
	echo "pg-rowlock: $l"
	cat "$d/report"
	[[ " $l " == *" first=yes "* ]]
	! grep -q 'until its own timeout' "$d/report"
}
