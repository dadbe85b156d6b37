#!/usr/bin/env bats
# Whole traces in and out: argus-import (perf.data, ftrace text) and
# argus-export (ftrace text, Chrome trace events).  A real capture
# exported to ftrace text and imported back gives the same graph; a
# perf.data and an ftrace text trace recorded here are imported and
# diagnosed to the scenario's own truth; bad input exits 65 naming where.

load helpers

SCEN="$ROOT/test/scenarios"

setup() {
	cd "$BATS_TEST_TMPDIR"
	inst=
}

# A test's own tracefs instance goes with it, whatever happened.
teardown() {
	[ -z "$inst" ] || [ ! -d "$inst" ] || {
		echo 0 >"$inst/tracing_on"
		rmdir "$inst"
	}
}

setup_file() {
	export D="$BATS_FILE_TMPDIR"
	can_trace || return 0
	timeout 60 argus-capture -o "$D/cw.gz" -- "$SCEN/circular-wait" \
	    -n 3 -H 2 -t "$D/cw.truth" >/dev/null 2>"$D/cw.err" || true
}

# vertex and link records of a stream, as argus-segment | argus-link make them.
graph() {
	argus-segment -q "$1" | argus-link -q | grep -E '^(vertex|link),'
}

# Event and task records less what ftrace text cannot carry (see the round
# trip test): the process of a thread never seen running, and of the
# threads listed in file $1 (the capture did not know it at first: the
# text's later lines say it for all).  Task records compare one to one,
# names too: each names the thread from its time on (argus-stream(5)), and
# the text's lines say the name at each event; ftrace text has no cgroup,
# so their CGROUP is left out.
carried() {
	awk -F, -v OFS=, -v unk="${1:-/dev/null}" '
	BEGIN { while ((getline t <unk) > 0) u[t] = 1 }
	{ line[NR] = $0 }
	$1 == "event" { own[$4] = 1 }
	END {
		for (i = 1; i <= NR; i++) {
			$0 = line[i]
			if ($1 == "task") { if (!($4 in own) || $4 in u) $3 = ""; NF = 5 }
			if ($1 == "event" && $4 in u) $3 = ""
			if ($7 == "switch" || $7 == "signal_generate") { if (!($11 in own) || $11 in u) $10 = "" }
			else if ($7 ~ /^(waking|wakeup_new|fork|comm|migrate)$/) { if (!($10 in own) || $10 in u) $9 = "" }
			print
		}
	}'
}

# Less the task records of the threads listed in file $1.
unnamed() {
	awk -F, -v l="$1" 'BEGIN { while ((getline t <l) > 0) u[t] = 1 }
	    !($1 == "task" && $4 in u)'
}

# Diagnose $1 (a stream) against truth $2, answers for circular-wait;
# the root records in diag.csv.
diagnose() {
	load_ids "$2"
	printf 'comm=cw-renderer\nrest=auto\n' >answers
	argus-segment -q "$1" | argus-link -q |
	    argus-spin -q --pid "$victim_pid" --tid "$victim_tid" --threshold 1s |
	    argus-similar -q |
	    argus-slice --threshold 1s --answers answers -Z >diag.csv 2>report
	awk -F, '$1 == "spin" { print $6, $11 }' diag.csv | grep -q '^LongWait ' ||
	    { cat report; return 1; }
	awk -F, '$1 == "root" && $6 != "victim" { print $6, $4 }' diag.csv |
	    grep -Eq "^(culprit|root) $root_tid\$" || { cat report; return 1; }
}

# "id == 0 || id == 1 || ...": the system calls a hang diagnosis reads, by
# this machine's numbers, so that a system-wide recording stays small.
syscall_filter() {
	local h
	for h in /usr/include/x86_64-linux-gnu/asm/unistd_64.h \
	    /usr/include/asm/unistd_64.h /usr/include/asm-generic/unistd.h; do
		[ -f "$h" ] && break
	done
	awk '$1 == "#define" && $2 ~ /^__NR_(read|write|readv|writev|recvfrom|sendto|recvmsg|sendmsg|connect|accept4?|futex|poll|ppoll|select|pselect6|epoll_wait|epoll_pwait|nanosleep|clock_nanosleep|sched_yield|wait4|io_uring_enter)$/ {
		printf "%sid == %s", n++ ? " || " : "", $3 }' "$h"
}

@test "import: ftrace text of each kind, to the records argus-capture writes" {
	cat >trace <<'EOF'
# tracer: nop
#
#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION
#              | |           |       |   |||||     |         |
     Web Content-812     (    800) [001] d..2.   100.000001: sched_switch: prev_comm=Web Content prev_pid=812 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          <idle>-0       (-------) [001] d.h2.   100.000100: sched_waking: comm=Web Content pid=812 prio=120 target_cpu=001
          <idle>-0       (-------) [001] d.h1.   100.000200: hrtimer_expire_entry: hrtimer=000000000671dcdf function=tick_nohz_handler now=100000199000
     Web Content-812     (    800) [001] .....   100.000300: sys_enter: NR 202 (7f00, 80, 2, 0, 0, 0)
     Web Content-812     (    800) [001] .....   100.000400: sys_exit: NR 202 = -110
     Web Content-812     (    800) [001] .....   100.000500: tracing_mark_write: it froze
CPU:1 [LOST 7 EVENTS]
     Web Content-812     (    800) [001] ..s1.   100.000600: softirq_entry: vec=1 [action=TIMER]
            bash-900     (    900) [000] .....   100.000700: task_newtask: pid=901 comm=bash clone_flags=1200000 oom_score_adj=0
            bash-900     (    900) [000] .....   100.000800: block_dirty_buffer: 254,0 sector=1 size=4096
EOF
	run argus-import -Z trace
	[ "$status" -eq 0 ]
	echo "$output" >out
	grep -qx 'meta,100000001000,,,source,ftrace' out
	grep -qx 'task,100000001000,800,812,Web Content' out
	grep -qx 'event,100000001000,800,812,,1,switch,-,S,0,0,swapper/1' out
	grep -qx 'event,100000100000,0,0,,1,waking,h,800,812,1,Web Content,120' out
	grep -qx 'event,100000200000,0,0,,1,hrtimer_expire_entry,h,0x671dcdf,tick_nohz_handler,100000199000' out
	grep -qx 'event,100000300000,800,812,,1,sys_enter,-,202,futex,0x7f00,0x80,0x2,0x0,0x0,0x0' out
	grep -qx 'event,100000400000,800,812,,1,sys_exit,-,202,futex,-110' out
	grep -qx 'event,100000500000,800,812,,1,marker,-,it froze' out
	grep -qx 'lost,100000500000,,,1,7' out
	grep -qx 'event,100000600000,800,812,,1,softirq_entry,s,1,TIMER' out
	grep -qx 'event,100000700000,900,900,,0,fork,-,901,901,0x1200000,bash' out
	# What the text lacks is said, not made up.
	grep -q '^meta,.*,lacks,"\?clock:' out
	grep -q '^meta,.*,lacks,time: 6 digits' out
	grep -q '^meta,.*,lacks,"\?function addresses: 1 ' out
	grep -qx 'meta,100000800000,,,skipped,block_dirty_buffer 1' out

	# No TGID, no irq-info column (trace_pipe with options off).
	printf '%s\n' '            bash-900     [000]   100.000001: sched_waking: comm=sleep pid=901 prio=120 target_cpu=000' >pipe
	run argus-import -Z pipe
	[ "$status" -eq 0 ]
	echo "$output" | grep -qx 'event,100000001000,,900,,0,waking,-,,901,0,sleep,120'
	echo "$output" | grep -q 'lacks,pid: no TGID column'
	echo "$output" | grep -q 'lacks,"ctx: no irq-info column'

	# From a pipe, recognised all the same; several files merged by time.
	run argus-import -Z - <trace
	[ "$status" -eq 0 ]
	[ "$(grep -c '^event,' <<<"$output")" -eq 8 ]
	printf '%s\n' '            bash-900     (    900) [000] .....   100.000002: sched_waking: comm=sleep pid=901 prio=120 target_cpu=000' >second
	run argus-import -Z trace second
	[ "$status" -eq 0 ]
	grep '^event,' <<<"$output" | cut -d, -f2 | sort -c -n
	grep -q '^event,100000002000,900,900,,0,waking' <<<"$output"

	# trace-cmd report's sched plugin, and systrace HTML around the text.
	printf '%s\n' 'cpus=2' '            bash-900   [000]   100.000001: sched_switch:         bash:900 [120] S ==> swapper/0:0 [120]' >tc
	run argus-import -Z tc
	[ "$status" -eq 0 ]
	echo "$output" | grep -qx 'event,100000001000,,900,,0,switch,-,S,0,0,swapper/0'
	{ printf '<!DOCTYPE html>\n<html><head></head><body>\n'
	  printf '<script class="trace-data" type="application/text">\n'
	  cat trace
	  printf '</script>\n</body></html>\n'; } >systrace.html
	run argus-import -Z systrace.html
	[ "$status" -eq 0 ]
	echo "$output" | grep -qx 'meta,100000001000,,,source,systrace'
	echo "$output" | grep -qx 'event,100000001000,800,812,,1,switch,-,S,0,0,swapper/1'
}

@test "import: bad input exits 65, naming the file and the line or offset" {
	printf '%s\n' '# tracer: nop' \
	    '          bash-900   (  900) [000] .....   1.000001: sched_switch: prev_comm=bash prev_pid=900 prev_prio=120 prev_state=S ==> next_comm=sh next_pid=9 next_prio=120' \
	    '          bash-900   (  900) [000] .... garbled' >bad.trace
	run argus-import -Z -o out.gz bad.trace
	[ "$status" -eq 65 ]
	[[ "$output" == *"bad.trace:3: not an ftrace line"* ]]
	printf '%s\n' '          bash-900   (  900) [000] .....   1.000001: sys_exit: NR x' >bad2.trace
	run argus-import -Z bad2.trace
	[ "$status" -eq 65 ]
	[[ "$output" == *"bad2.trace:1: sys_exit: cannot read its fields"* ]]
	printf 'PERFILE2' >short.data
	run argus-import short.data
	[ "$status" -eq 65 ]
	[[ "$output" == *"short.data: offset 0: file header"* ]]
	printf 'hello\n' >what
	run argus-import what
	[ "$status" -eq 65 ]
	[[ "$output" == *"what: not a trace argus-import knows"* ]]
	run argus-import -f nosuch what
	[ "$status" -eq 64 ]
	run argus-import /nonexistent/trace
	[ "$status" -eq 66 ]
}

@test "round trip: a capture exported to ftrace text and imported back is the same graph" {
	need_tracing
	[ -s "$D/cw.gz" ] || { cat "$D/cw.err"; false; }
	argus-export -f ftrace -o cw.trace "$D/cw.gz"
	[ "$(stat -c %a cw.trace)" = 600 ]
	head -1 cw.trace | grep -qx '# tracer: nop'
	# What the text cannot carry is said at its end.
	tail -1 cw.trace | grep -q 'cannot carry: .*meta [0-9]*, .*task [0-9]*'
	argus-import -Z -o cw2.csv cw.trace
	# Less the records it cannot carry: the wait-for snapshot (its sock
	# records too: the machine's TCP connections, where other programs
	# have some), and the meta records, whose time (the snapshot's) ends
	# the open vertices.
	argus-cat -Z "$D/cw.gz" | grep -Ev '^(wait|holder|sock|meta),' >cw.csv
	# A set of vertices and links: the threads still open at the end
	# come in the order of a hash, which the thread table's history sets.
	graph cw.csv | sort >a.graph
	graph cw2.csv | sort >b.graph
	[ "$(grep -c '^vertex' a.graph)" -gt 100 ]
	[ "$(grep -c '^link' a.graph)" -gt 100 ]
	diff a.graph b.graph
	# Events and threads too, but for what the text cannot carry: the
	# process of a thread that has no line of its own (or that the
	# capture learnt late: a thread of another's running before it
	# exec'd), and the meta records, which say where each came from.
	# System calls keep their names and arguments: the text's "# syscall"
	# lines say them.  The text names kernel functions as the kernel
	# does, by the ksym records.
	argus-cat -y -k event -k task "$D/cw.gz" >a.raw
	awk -F, '($1 == "event" || $1 == "task") && $3 == "" { print $4 }' \
	    a.raw | sort -u >late.pids
	# Nor the names of a thread that exec'd and whose fork is not in the
	# trace: the capture met it late, already by its new name (beside
	# another file's work, a shell that exec'd argus-segment was named
	# so from its first event), where the text's lines say the old one.
	# The capture's own command (the victim) it knew from the start.
	load_ids "$D/cw.truth"
	awk -F, -v v="$victim_tid" '$1 == "event" && $7 == "fork" { f[$10] = 1 }
	    $1 == "event" && $7 == "exec" && $4 != v { e[$4] = 1 }
	    END { for (t in e) if (!(t in f)) print t }' a.raw >renamed.tids
	carried late.pids <a.raw | unnamed renamed.tids >a.events
	argus-cat -k event -k task cw2.csv | carried late.pids |
	    unnamed renamed.tids >b.events
	[ "$(wc -l <a.events)" -gt 1000 ]
	diff a.events b.events
	# The victim ran the scenario (exec) and renamed itself: a task
	# record for each name, in order, both ways.
	for f in a.events b.events; do
		awk -F, -v t="$victim_tid" '$1 == "task" && $4 == t { print $5 }' \
		    $f | tail -2 | paste -sd' ' | grep -qx "circular-wait $victim_comm"
	done
	[ "$(grep -c ',sys_enter,' a.events)" -gt 10 ]
	grep -q '^# syscall [0-9]* [0-6] [a-z_0-9]*$' cw.trace
	! grep -q ',lacks,"*syscall' cw2.csv
}

@test "export -f json: every link a flow that Perfetto binds, slices nest, tracks named" {
	need_tracing
	[ -s "$D/cw.gz" ] || { cat "$D/cw.err"; false; }
	argus-segment -q "$D/cw.gz" | argus-link -q -Z >graph.csv
	argus-export -f json -o cw.json graph.csv
	[ "$(stat -c %a cw.json)" = 600 ]
	check_json cw.json
	links=$(grep -c '^link,' graph.csv)
	flows=$(grep -c '"ph":"s"' cw.json)
	outside=$(sed -n 's/.*"links_from_outside_vertices":\([0-9]*\).*/\1/p' cw.json)
	[ "$flows" -gt 100 ]
	[ $((flows + outside)) -eq "$links" ]
	# A link's label is its flow's (a timer's, the function it ran).
	records link '$LABEL != "" { print $LABEL }' graph.csv | sort -u > labels
	grep -o '"label":"[^"]\+"' cw.json | cut -d'"' -f4 | sort -u > flow-labels
	[ -s flow-labels ]
	[ -z "$(comm -13 labels flow-labels)" ]
	# The hung thread is on a named track, with its vertices.
	load_ids "$D/cw.truth"
	grep -q "\"tid\":$victim_tid,\"name\":\"thread_name\",\"args\":{\"name\":\"cw-browser\"}" cw.json
	# A capture without its graph: scheduling slices, no flows.
	argus-export -f json -o raw.json "$D/cw.gz"
	check_json raw.json
	grep -q '"name":"running on CPU [0-9]*"' raw.json
	! grep -q '"ph":"s"' raw.json || false
	# The checker fails a flow out of place.
	awk '!done && /"ph":"f"/ { sub(/"ts":[0-9.]*/, "\"ts\":1.000"); done = 1 }
	    { print }' cw.json >broken.json
	! check_json broken.json
}

@test "import perf.data: a scenario recorded with perf record -k mono, diagnosed" {
	need_perf
	filt=$(syscall_filter)
	[ -n "$filt" ] || skip "no asm/unistd_64.h to number system calls"
	run timeout 60 perf record -q -k mono -a -m 8M -o p.data \
	    -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup_new \
	    -e sched:sched_process_exec -e sched:sched_process_exit \
	    -e task:task_newtask -e task:task_rename \
	    -e raw_syscalls:sys_enter --filter "$filt" \
	    -e raw_syscalls:sys_exit --filter "$filt" \
	    -e timer:hrtimer_start -e timer:hrtimer_cancel \
	    -e timer:hrtimer_expire_entry -e timer:hrtimer_expire_exit \
	    -e irq:softirq_entry -e irq:softirq_exit \
	    -e irq:irq_handler_entry -e irq:irq_handler_exit \
	    -- "$SCEN/circular-wait" -n 3 -H 2 -t truth
	[ "$status" -eq 0 ] || skip "perf record cannot trace here: $output"
	argus-import -o p.gz p.data
	argus-cat -k meta p.gz | grep -qx 'meta,[0-9]*,,,source,perf'
	argus-cat -k meta p.gz | grep -qx 'meta,[0-9]*,,,clock,mono'
	# A trace that lost events is no test of the diagnosis: a timer's
	# expiry lost, its wake-up is the interrupted thread's weak edge.
	# Failed once beside CPU hogs (make check-loaded, a hog named the
	# root), never in 10 runs beside them alone: what perf lost, as
	# slice.bats's flock test met it, is said and skipped.
	lost=$(argus-cat -k meta p.gz | awk -F, '$5 == "lost" { n += $6 } END { print n + 0 }')
	[ "$lost" -eq 0 ] || skip "overloaded: perf lost $lost events"
	diagnose p.gz truth
	# Pipe mode: what a file keeps in its header comes as records.
	timeout 30 perf record -q -k mono -a -o - -e sched:sched_switch \
	    -e task:task_newtask -- sleep 0.3 >pipe.data
	argus-import -Z <pipe.data >pipe.csv
	[ "$(grep -c ',switch,' pipe.csv)" -gt 10 ]
	[ "$(grep -c '^event,' pipe.csv)" -eq "$(perf script -i pipe.data 2>/dev/null | wc -l)" ]
	# A perf.data cut short is bad input, named with its offset.
	head -c 100000 p.data >cut.data
	run argus-import -o cut.gz cut.data
	[ "$status" -eq 65 ]
	[[ "$output" == *"cut.data: offset "*"past the end of the file"* ]]
}

@test "import ftrace text: a trace from a tracefs instance of our own, diagnosed" {
	need_tracefs
	# Not argus-PID: a capture starting meanwhile reaps those of dead captures.
	inst="$TFS/instances/argus-$$-import"
	mkdir "$inst"
	echo mono >"$inst/trace_clock"
	echo 1 >"$inst/options/record-tgid"
	echo 16384 >"$inst/buffer_size_kb"
	filt=$(syscall_filter)
	# The scenario's system calls only (its threads by name, before and
	# after it names them): a loaded machine's other processes make
	# millions a second, enough to overwrite the whole buffer.  Not
	# set_event_pid: it would drop the timer interrupts that wake the
	# scenario while another task is on the CPU, and with them what
	# tells a timeout from a wake-up by that task.  Switches, wake-ups and
	# interrupts stay system-wide as the capture has them; they fill
	# under 1 MB in 3 s with both cores busy and a system call flood.
	filt="${filt:+($filt) && }(comm == \"circular-wait\" || comm ~ \"cw-*\")"
	for e in sched/sched_switch sched/sched_waking sched/sched_wakeup_new \
	    sched/sched_process_exec sched/sched_process_exit \
	    task/task_newtask task/task_rename raw_syscalls/sys_enter \
	    raw_syscalls/sys_exit timer/hrtimer_start timer/hrtimer_cancel \
	    timer/hrtimer_expire_entry timer/hrtimer_expire_exit \
	    irq/softirq_entry irq/softirq_exit irq/irq_handler_entry \
	    irq/irq_handler_exit; do
		case $e in raw_syscalls/*) echo "$filt" >"$inst/events/$e/filter" ;; esac
		echo 1 >"$inst/events/$e/enable"
	done
	echo 1 >"$inst/tracing_on"
	timeout 20 "$SCEN/circular-wait" -n 3 -H 2 -t truth >/dev/null
	echo 0 >"$inst/tracing_on"
	cat "$inst/trace" >text.trace
	rmdir "$inst"
	inst=
	argus-import -o t.gz text.trace
	argus-cat -k meta t.gz | grep -qx 'meta,[0-9]*,,,source,ftrace'
	diagnose t.gz truth
}

@test "import ftrace text: a flock hang's file lock events, the records the capture gives" {
	need_tracing
	command -v flock >/dev/null || skip "flock(1) not installed"
	local t e
	for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$t/instances" ] && break
	done
	inst="$t/instances/argus-$$-filelock"
	mkdir "$inst"
	echo mono >"$inst/trace_clock"
	echo 1 >"$inst/options/record-tgid"
	echo 0 >"$inst/options/hash-ptr"	# the pointers as the capture has them
	for e in flock_lock_inode posix_lock_inode fcntl_setlk locks_remove_posix; do
		echo 1 >"$inst/events/filelock/$e/enable"
	done
	echo 1 >"$inst/tracing_on"
	: >lockfile
	ino=$(stat -c %i lockfile)
	# The second flock(1) sleeps on the lock the first holds: it starts
	# once /proc/locks lists the first's (30 s at most, however loaded).
	timeout 90 argus-capture -o c.gz -- sh -c "
	    flock '$PWD/lockfile' sleep 1 & i=0
	    until grep -q ' FLOCK .*:$ino ' /proc/locks; do
		i=\$((i + 1)); [ \$i -lt 300 ] || break; sleep 0.1
	    done
	    flock '$PWD/lockfile' true; wait" 2>/dev/null
	echo 0 >"$inst/tracing_on"
	cat "$inst/trace" >text.trace
	rmdir "$inst"
	inst=
	# Every column but the time (the text has microseconds): the same.
	argus-cat -Z c.gz | awk -F, -v i="$ino" '$1 == "event" && $10 == i' |
	    cut -d, -f1,3- >a.locks
	argus-import -Z text.trace | awk -F, -v i="$ino" '$1 == "event" && $10 == i' |
	    cut -d, -f1,3- >b.locks
	cat a.locks
	[ "$(grep -c ',flock_lock,-,.*,write,FLOCK|SLEEP,' a.locks)" -ge 2 ]
	grep -q ',unlock,FLOCK|CLOSE,' a.locks
	diff a.locks b.locks
	! grep -q 'skipped,flock_lock_inode' <(argus-import -Z text.trace) || false
	# Exported as the kernel prints them and imported back: the same
	# records, the time too.
	argus-export -f ftrace -o rt.trace c.gz
	grep -q ': flock_lock_inode: fl=[0-9a-f]\{16\} dev=0x[0-9a-f]*:0x[0-9a-f]* ino=0x' rt.trace
	argus-cat -Z c.gz | awk -F, -v i="$ino" '$1 == "event" && $10 == i' >a.all
	argus-import -Z rt.trace | awk -F, -v i="$ino" '$1 == "event" && $10 == i' >b.all
	diff a.all b.all
}

@test "round trip: a type ftrace text has no format for (sock_state) keeps its words, addresses and context" {
	cd "$BATS_TEST_TMPDIR"
	cat >s.csv <<'CSV'
argus-stream,1
task,1000,31464,31464,python3,,
event,7468242848235,31464,31464,,1,sock_state,-,0xffff8881065d0940,CLOSE,SYN_SENT,tcp,127.0.0.1:0,127.0.0.1:1
event,7468242895046,31464,31464,,0,sock_state,s,0xffff8881065d0940,SYN_SENT,CLOSE,tcp,127.0.0.1:38738,127.0.0.1:1
CSV
	argus-export -f ftrace -o s.trace s.csv
	argus-import -Z -o s2.csv s.trace
	argus-cat -k event s.csv >a
	argus-cat -k event s2.csv >b
	diff a b
}
