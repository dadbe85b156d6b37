#!/usr/bin/env bats
# Runtime providers in the wait-for snapshot (argus-waitfor(1), PROVIDERS;
# issue 39): a provider of a user's, found, run and trusted by the
# protocol; three bad ones (a hang, a flood, lies) bounded and said; and
# the three of capture/providers/ on a real HotSpot JVM, MariaDB and PostgreSQL,
# each a server of the test's own on a socket of its own, where the
# headline names the holder with the runtime's word.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	mkdir -m 755 prov
}

teardown() {
	local f
	for f in "$BATS_TEST_TMPDIR"/*.kill; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
	done
	[ ! -f "$BATS_TEST_TMPDIR/stop" ] || sh "$BATS_TEST_TMPDIR/stop" || true
}

# Two processes named provcat, each blocked reading a FIFO a sleep holds
# open (not the test's shell, whose children would hold it too): $waiter, whose wait the provider is asked about, and $holder,
# which a test provider says holds it.
two_cats() {
	need_root "argus-waitfor reads other processes' system calls"
	cp "$(command -v cat)" provcat
	mkfifo f1 f2
	./provcat <f1 >/dev/null 3>&- &
	waiter=$!
	echo $waiter >waiter.kill
	./provcat <f2 >/dev/null 3>&- &
	holder=$!
	echo $holder >holder.kill
	sleep 600 >f1 3>&- &
	echo $! >writer1.kill
	sleep 600 >f2 3>&- &
	echo $! >writer2.kill
	echo "$holder" >prov/holder.pid
	sleep 0.3
}

# A provider of a user's: the one in argus-waitfor(1), EXAMPLES.
user_provider() {
	cat >prov/testrt <<'EOF'
#!/bin/sh
# argus-says: the test runtime
# argus-match: comm provcat
holder=$(cat "$(dirname "$0")/holder.pid")
while IFS='	' read -r pid tid mode object; do
	[ "$pid" = "$holder" ] && continue
	echo "holder,,$holder,$holder,$object,runtime,,lock 7,the test runtime,"
done
EOF
	chmod 755 prov/testrt
}

# Nothing of snapshot $2 is missing from snapshot $1: the waiter's wait,
# and its holders.  What the closure adds from there (the test's
# shell, its children) changes from one snapshot to the next.
loses_nothing() {
	local obj
	obj=$(waiter_object "$2")
	[ -n "$obj" ] || return 1
	[ "$(records wait -v w="$waiter" '$PID == w { print $TID, $STATE, $CALL, $OBJECT, $MODE }' "$1")" = \
	    "$(records wait -v w="$waiter" '$PID == w { print $TID, $STATE, $CALL, $OBJECT, $MODE }' "$2")" ]
	records holder -v o="$obj" '$OBJECT == o { print $PID, $OBJECT, $RELATION, $FD }' "$1" | sort >h1
	records holder -v o="$obj" '$OBJECT == o { print $PID, $OBJECT, $RELATION, $FD }' "$2" | sort >h2
	[ -s h2 ]
	cmp h1 h2
}

# The object the waiter waits on, from a snapshot.
waiter_object() {
	records wait -v p="$waiter" '$PID == p && $VIA == "" { print $OBJECT; exit }' "$1"
}

@test "providers: a user's provider names the holder; the snapshot keeps it, its process, and what it did" {
	two_cats
	user_provider
	run argus-waitfor -Z -p "$waiter" --providers prov -o s.csv
	echo "$output"
	[ "$status" -eq 0 ]
	obj=$(waiter_object s.csv)
	[ -n "$obj" ]
	records holder '$RELATION == "runtime"' s.csv >h.txt
	cat h.txt
	[ "$(wc -l <h.txt)" -eq 1 ]
	records holder -v o="$obj" -v h="$holder" '$OBJECT == o && $PID == h && $TID == h &&
	    $THROUGH == "lock 7" && $DETAIL == "the test runtime" && $COMM == "provcat"' s.csv | grep -q .
	# The closure goes on from the holder the runtime named.
	records wait -v h="$holder" '$PID == h' s.csv | grep -q .
	grep -q '^meta,[0-9]*,,,provider,testrt: the test runtime named 1 holders for 1 waits of 1 processes' s.csv
	# ARGUS_PROVIDERS the same; empty, none; --no-providers, none.
	ARGUS_PROVIDERS=$PWD/prov argus-waitfor -qZ -p "$waiter" | grep -q ',runtime,,lock 7,'
	! ARGUS_PROVIDERS= argus-waitfor -qZ -p "$waiter" | grep -q ',runtime,' || false
	! ARGUS_PROVIDERS=$PWD/prov argus-waitfor -qZ --no-providers -p "$waiter" | grep -q ',runtime,' || false
	# argus-cat and argus-link read it: a strong link of rule runtime,
	# labelled with the runtime's name and its word for the object.
	argus-cat s.csv >/dev/null
}

@test "providers: one others may write, or without a header, is left out, and said to be" {
	two_cats
	user_provider
	chmod g+w prov/testrt
	run argus-waitfor -Z -p "$waiter" --providers prov -o s.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"provider $PWD/prov/testrt: left out: others may write it"* ]]
	! grep -q ',runtime,' s.csv || false
	chmod g-w prov/testrt
	printf '#!/bin/sh\necho hi\n' >prov/nohead
	chmod 755 prov/nohead
	run argus-waitfor -Z -p "$waiter" --providers prov -o s.csv
	[[ $output == *"provider $PWD/prov/nohead: left out: no argus-says: and argus-match: header"* ]]
	grep -q ',runtime,,lock 7,' s.csv
}

@test "providers: one that hangs is killed at its time limit, with what it started; the snapshot loses nothing" {
	two_cats
	cat >prov/sleeper <<'EOF'
#!/bin/sh
# argus-says: a sleepy runtime
# argus-match: comm provcat
cat >/dev/null
sleep 10 &
echo $! >"$(dirname "$0")/child.pid"
wait
EOF
	chmod 755 prov/sleeper
	argus-waitfor -qZ -p "$waiter" --no-providers -o base.csv
	t0=$(date +%s%N)
	run argus-waitfor -Z -p "$waiter" --providers prov -o s.csv
	t1=$(date +%s%N)
	echo "$output; $(((t1 - t0) / 1000000)) ms"
	[ "$status" -eq 0 ]
	# 1 s of limit; 10 s if it were waited for.
	[ $((t1 - t0)) -lt 5000000000 ]
	[[ $output == *"provider sleeper: killed past its time limit of 1.0 s"* ]]
	grep -q '^meta,[0-9]*,,,provider_error,sleeper: killed past its time limit of 1.0 s; 0 records taken before$' s.csv
	gone "$(cat prov/child.pid)"
	loses_nothing s.csv base.csv
	# --provider-timeout sets the limit.
	t0=$(date +%s%N)
	argus-waitfor -qZ -p "$waiter" --providers prov --provider-timeout 200ms -o s2.csv
	t1=$(date +%s%N)
	[ $((t1 - t0)) -lt 3000000000 ]
	grep -q 'sleeper: killed past its time limit of 0.2 s' s2.csv
	run argus-waitfor --provider-timeout 0 -o /dev/null
	[ "$status" -eq 64 ]
}

@test "providers: one that prints 100 MB is stopped at its 1 MiB cap; the snapshot loses nothing" {
	two_cats
	cat >prov/flood <<'EOF'
#!/bin/sh
# argus-says: a chatty runtime
# argus-match: comm provcat
cat >/dev/null
yes 'holder,,1,1,nothing-asked,runtime,,x,a chatty runtime,' | head -c 100000000
EOF
	chmod 755 prov/flood
	argus-waitfor -qZ -p "$waiter" --no-providers -o base.csv
	t0=$(date +%s%N)
	run argus-waitfor -Z -p "$waiter" --providers prov -o s.csv
	t1=$(date +%s%N)
	echo "$output; $(((t1 - t0) / 1000000)) ms"
	[ "$status" -eq 0 ]
	[ $((t1 - t0)) -lt 5000000000 ]
	grep -q '^meta,[0-9]*,,,provider_error,"flood: stopped at 1048576 bytes of output, its cap; 0 records taken before"$' s.csv
	# Its records, such as they are, are checked like any.
	grep -q '^meta,[0-9]*,,,provider_error,flood: [0-9]* bad records dropped (line 1: a process it does not speak for)$' s.csv
	! grep -q ',runtime,' s.csv || false
	loses_nothing s.csv base.csv
	[ "$(wc -c <s.csv)" -lt 100000 ]
}

@test "providers: one that lies or prints garbage has each bad record dropped, named by line; the good one kept; its stderr kept" {
	two_cats
	cat >prov/liar <<'EOF'
#!/bin/sh
# argus-says: a lying runtime
# argus-match: comm provcat
holder=$(cat "$(dirname "$0")/holder.pid")
read -r pid tid mode object
echo "this is no record"
echo "holder,,$holder,$holder,pipe:1,runtime,,not asked,,"
echo "holder,,$holder,$holder,$object,peer,,a kernel relation,,"
echo "holder,,1,1,$object,runtime,,init,,"
echo "holder,,$holder,$holder,$object,runtime,,x,the kernel,"
echo "holder,,$holder,999999999,$object,runtime,,x,,"
echo "holder,,$holder,$holder,\"$object\",runtime,7,by a descriptor,,"
printf 'holder,,%s,%s,%s,runtime,,\033]52;c;x\007,,\n' "$holder" "$holder" "$object"
echo "holder,,$holder,$holder,\"unterminated"
echo "holder,,$holder,$holder,$object,runtime,,\"the good one, quoted\",,"
echo "something went wrong, said on stderr" >&2
exit 3
EOF
	chmod 755 prov/liar
	run argus-waitfor -Z -p "$waiter" --providers prov -o s.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"provider liar: line 1: not a holder record: 'this is no record'"* ]]
	[[ $output == *"provider liar: 9 bad records dropped"* ]]
	[[ $output == *"provider liar: exited with status 3"* ]]
	grep -q '^meta,[0-9]*,,,provider_error,liar: 9 bad records dropped (line 1: not a holder record)$' s.csv
	grep -q '^meta,[0-9]*,,,provider_error,liar: exited with status 3 in [0-9.]* s; 1 records taken$' s.csv
	grep -q '^meta,[0-9]*,,,provider_stderr,"liar: something went wrong, said on stderr"' s.csv
	records holder '$RELATION == "runtime"' s.csv >h.txt
	cat h.txt
	[ "$(wc -l <h.txt)" -eq 1 ]
	grep -q ',runtime,,"the good one, quoted",a lying runtime,provcat$' h.txt
}

@test "providers: argus debug with a provider that hangs, one that floods and one that lies answers, says what each did, loses nothing" {
	need_tracing
	command -v flock >/dev/null || skip "flock (util-linux) missing"
	for p in sleeper flood liar; do
		printf '#!/bin/sh\n# argus-says: a bad runtime\n# argus-match: comm flock\ncat >/dev/null\n' >prov/$p
		chmod 755 prov/$p
	done
	echo 'sleep 10' >>prov/sleeper
	echo "yes 'holder,,1,1,x,runtime,,x,,' | head -c 100000000" >>prov/flood
	echo 'echo "this is no record"' >>prov/liar
	ring="$BATS_TEST_TMPDIR/ring"
	echo "argus --ring '$ring' stop" >stop
	recorder
	# A ring that a neighbour's flood of events turned over while the
	# hang began holds nothing of how it began (exit 66): once more.
	for try in 1 2; do
		flock lock$try sleep 40 3>&- &
		echo $! >holder.kill
		sleep 0.5
		flock lock$try true 3>&- &
		waiter=$!
		echo $waiter >waiter.kill
		sleep 2.5
		rc=0
		ARGUS_PROVIDERS=$PWD/prov argus --ring "$ring" debug --pid "$waiter" \
		    --auto >out.txt 2>err.txt || rc=$?
		cat out.txt err.txt
		[ "$rc" -eq 66 ] && grep -q 'before the recording began' err.txt || break
		kill "$waiter"
		wait "$waiter" || true
	done
	[ "$rc" -eq 0 ]
	# The kernel's answer, whole: the flock that holds the lock.
	grep -q "^Root cause: sleep [0-9]* (the kernel says)" out.txt
	grep -q "^Wait chain: flock $waiter → flock $(cat holder.kill)" out.txt
	# What each provider did, in the report and on stderr.
	grep -q '^Runtime provider sleeper: killed past its time limit of 1.0 s' out.txt
	grep -q '^Runtime provider flood: stopped at 1048576 bytes of output' out.txt
	grep -q '^Runtime provider liar: 1 bad records dropped (line 1: not a holder record)' out.txt
	grep -q 'argus-waitfor: provider sleeper: killed past its time limit of 1.0 s' err.txt
	# The snapshot itself took the time limit, not the sleeper's 10 s.
	ns=$(argus-cat "$ring"/argus-snap-*.csv.gz | sed -n 's/^meta,[0-9]*,,,snapshot_ns,//p' | tail -1)
	echo "snapshot: $ns ns"
	[ "$ns" -lt 4000000000 ]
}

# A capture cut while a real program's hang goes on, diagnosed as
# realcases' inprogress cut is: the report in report.txt.  $1 the hung
# thread; the hang is started by the caller's function hang_start.
capture_while() {
	local cap tid
	argus-capture -o cap.gz 3>&- 2>cap.err &
	cap=$!
	echo $cap >cap.kill
	wait_capture "$cap" || true
	hang_start
	sleep 1.5
	kill -INT "$cap"
	wait "$cap"
	rm cap.kill
	tid=$(cat hung.tid)
	argus-segment -q cap.gz | argus-link -q | argus-spin -q -t "$tid" -T 1s |
	    argus-similar -q | argus-slice --auto -Z -o diag.csv 2>report.txt || true
	cat report.txt
	argus-cat -k meta cap.gz | grep -E ',provider(_error)?,' || true
	# A provider killed at its time limit did what it must on a machine
	# too busy to answer in 1 s; what these tests check did not happen.
	if argus-cat -k meta cap.gz | grep -q ',provider_error,.*killed past its time'; then
		skip "overloaded: a provider was killed past its time limit"
	fi
}

@test "providers: a HotSpot JVM's monitor: the JVM names the holder thread, and that it sleeps, in the snapshot and the headline" {
	need_tracing
	need_prog javac java
	cat >Lock.java <<'EOF'
import java.io.*; import java.nio.file.*;
public class Lock {
  static final Object m = new Object();
  static String tid() throws IOException {
    String s = Files.readSymbolicLink(Paths.get("/proc/thread-self")).toString();
    return s.substring(s.lastIndexOf('/') + 1);
  }
  static void put(String f, String v) throws IOException { Files.write(Paths.get(f), (v + "\n").getBytes()); }
  public static void main(String[] a) throws Exception {
    Thread w = new Thread(() -> { try { synchronized (m) { put("holder.tid", tid()); Thread.sleep(6000); } } catch (Exception e) {} }, "holder");
    w.start(); Thread.sleep(300);
    put("hung.tid", tid());
    synchronized (m) { }
  }
}
EOF
	javac -d . Lock.java
	hang_start() {
		java -Xshare:auto -cp . Lock 3>&- &
		echo $! >java.kill
		for i in $(seq 100); do [ -s hung.tid ] && break; sleep 0.1; done
	}
	capture_while
	jpid=$(cat java.kill)
	holder=$(cat holder.tid)
	# The snapshot: the JVM's holder of the main thread's wait.
	argus-cat -k holder cap.gz | grep ",$jpid,$holder,.*,runtime,,monitor <0x[0-9a-f]*> (a java.lang.Object),the JVM,java$"
	# And that the holder only sleeps (Thread.sleep: a timed futex).
	argus-cat -k holder cap.gz | grep ",$jpid,$holder,futex:$jpid:0x[0-9a-f]*,runtime,,sleeping in Thread.sleep,the JVM,java$"
	grep -E "^Root cause: holder $jpid/$holder \(the JVM says\): asleep on its own timer in futex for [0-9.]+ s so far \(the JVM says: sleeping in Thread.sleep\)" report.txt
}

# A MariaDB server of the test's own, its options and these (OPTION...),
# on a unix socket in $D, and q: its client as root.
mariadb_up() {	# [OPTION...]
	need_prog mariadbd mariadb mariadb-install-db
	D=$PWD/mdb
	mkdir -p "$D"
	mariadb-install-db --no-defaults --user=root --datadir="$D/data" \
	    --auth-root-authentication-method=socket >install.log 2>&1
	mariadbd --no-defaults --user=root --datadir="$D/data" --socket="$D/sock" \
	    --skip-networking --pid-file="$D/pid" --log-error="$D/err" "$@" 3>&- &
	echo $! >mariadbd.kill
	q() { mariadb --no-defaults -uroot -S "$D/sock" -N "$@"; }
	for i in $(seq 150); do q -e 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done
}

# Session A runs statements A, its connection's thread noted in t.tids
# (who 'a') first; once A runs, session B runs statement B, which hangs.
two_sessions() {	# A B
	q -e "insert into t.tids select 'a', tid from information_schema.processlist
	    where id = connection_id(); $1" >/dev/null 3>&- &
	echo $! >a.kill
	for i in $(seq 100); do [ "$(q -e 'select count(*) from t.tids')" = 1 ] && break; sleep 0.1; done
	sleep 0.3
	q -e "$2" 3>&- &
	echo $! >b.kill
}

@test "providers: an InnoDB row lock: InnoDB names the holding connection's thread, and that it sleeps, in the snapshot and the headline" {
	need_tracing
	mariadb_up
	q -e "create database t; create table t.r (id int primary key, x int) engine=innodb;
	    create table t.tids (who char(1), tid bigint); insert into t.r values (1, 0);"
	hang_start() {
		two_sessions "begin; update t.r set x = x + 1 where id = 1;
		    select sleep(6); commit;" "update t.r set x = x + 1 where id = 1"
		for i in $(seq 100); do
			t=$(q -e "select tid from information_schema.processlist where info like 'update t.r%'")
			[ -n "$t" ] && break
			sleep 0.05
		done
		echo "$(cat b.kill)" >hung.tid
		echo "$t" >waiter.tid
	}
	capture_while
	srv=$(cat mariadbd.kill)
	holder=$(q -e "select tid from t.tids where who = 'a'")
	argus-cat -k holder cap.gz | grep ",$srv,$holder,.*,runtime,,row lock \`t\`.\`r\` PRIMARY X,InnoDB,mariadbd$"
	argus-cat -k holder cap.gz | grep ",$srv,$holder,futex:$srv:0x[0-9a-f]*,runtime,,sleeping in SLEEP(),InnoDB,mariadbd$"
	grep -E "^Root cause: mariadbd $srv/$holder \(InnoDB says\): asleep on its own timer in futex for [0-9.]+ s so far \(InnoDB says: sleeping in SLEEP\(\)\)" report.txt
}

@test "providers: a table's metadata lock: the server names the connection whose transaction holds it, in the snapshot and the headline" {
	need_tracing
	# MariaDB instruments metadata locks when told (MySQL 8 by default).
	mariadb_up --performance-schema=ON \
	    --performance-schema-instrument='wait/lock/metadata/sql/mdl=ON'
	q -e "create database t; create table t.m (id int primary key) engine=innodb;
	    create table t.tids (who char(1), tid bigint); insert into t.m values (1);"
	# Session A reads the table in a transaction it leaves open while it
	# sleeps; session B's ALTER TABLE waits for the table's lock.
	hang_start() {
		two_sessions "begin; select * from t.m; select sleep(6); commit;" \
		    "alter table t.m comment 'late'"
		echo "$(cat b.kill)" >hung.tid
	}
	capture_while
	srv=$(cat mariadbd.kill)
	holder=$(q -e "select tid from t.tids where who = 'a'")
	argus-cat -k holder cap.gz | grep ",$srv,$holder,futex:$srv:0x[0-9a-f]*,runtime,,metadata lock t.m SHARED_READ,InnoDB,mariadbd$"
	grep -E "^Root cause: mariadbd $srv/$holder \(InnoDB says\): asleep on its own timer in futex for [0-9.]+ s so far \(InnoDB says: sleeping in SLEEP\(\)\); InnoDB says it holds what mariadbd [0-9]+ waits on: metadata lock t.m SHARED_READ" report.txt
}

@test "providers: a PostgreSQL row lock: PostgreSQL names the holding backend, and that it sleeps, in the snapshot and the headline" {
	need_tracing
	B=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -1)
	[ -n "$B" ] && [ -x "$B/initdb" ] || skip "postgresql not installed (share/scripts/install-deps)"
	id postgres >/dev/null 2>&1 || skip "no user postgres"
	D=$(mktemp -d /tmp/argus-pg.XXXXXX)
	echo "rm -rf '$D'" >stop
	chown postgres "$D"
	# From /: the test's directory is root's alone.
	as() { (cd / && exec setpriv --reuid postgres --regid "$(id -g postgres)" --clear-groups "$@"); }
	port=$((20000 + RANDOM % 20000))
	as "$B/initdb" -D "$D/data" >initdb.log 2>&1
	as "$B/pg_ctl" -D "$D/data" -o "-k $D -p $port -c listen_addresses=''" \
	    -l "$D/log" -w start >/dev/null 3>&-
	echo "setpriv --reuid postgres --regid $(id -g postgres) --clear-groups \
	    $B/pg_ctl -D '$D/data' -m immediate -w stop; rm -rf '$D'" >stop
	Q() { as psql -X -h "$D" -p "$port" -d postgres -qAt "$@"; }
	Q -c "create table t (id int primary key, v int); insert into t values (1, 0);"
	hang_start() {
		printf 'begin;\nselect pg_backend_pid();\nupdate t set v = v + 1 where id = 1;\nselect pg_sleep(6);\ncommit;\n' |
		    Q >a.out 3>&- &
		echo $! >a.kill
		for i in $(seq 100); do [ -s a.out ] && break; sleep 0.05; done
		sleep 0.3
		as psql -X -h "$D" -p "$port" -d postgres -qAt -c "update t set v = v + 1 where id = 1" 3>&- &
		echo $! >b.kill
		for i in $(seq 100); do
			t=$(Q -c "select pid from pg_stat_activity where query like 'update t set%' and wait_event_type = 'Lock'")
			[ -n "$t" ] && break
			sleep 0.05
		done
		echo "$t" >backend.pid
		# The client hangs, as a person meets it; psql is the
		# subshell's exec'd setpriv's exec'd program.
		pgrep -n -x psql -P "$(cat b.kill)" >hung.tid || cat b.kill >hung.tid
	}
	capture_while
	holder=$(head -1 a.out)
	argus-cat -k holder cap.gz | grep ",$holder,$holder,epoll:$(cat backend.pid):[0-9]*,runtime,,transactionid [0-9]*,PostgreSQL,postgres$"
	argus-cat -k holder cap.gz | grep ",$holder,$holder,epoll:$holder:[0-9]*,runtime,,sleeping in pg_sleep(),PostgreSQL,postgres$"
	grep -E "^Root cause: postgres $holder \(PostgreSQL says\): asleep on its own timer in epoll_wait for [0-9.]+ s so far \(PostgreSQL says: sleeping in pg_sleep\(\)\)" report.txt
}
