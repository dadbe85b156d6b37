#!/usr/bin/env bats
# A thread's name at each event (argus-stream(5), task): that of its latest
# task record at or before it.  The capture and the importer write one again
# at an exec or a rename; reports, tables and exports name a thread as it
# was then, and read streams that name a thread once (exec, comm events)
# the same way.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	export TZ=UTC
}

# bash 50/50 reads, sleeps, is woken, then becomes flock at 1.4 s (a task
# record, then the rename event the capture traced) and waits in flock(2);
# woken at 1.7 s, it runs as flock from the start of a vertex.
# $1 "old": the stream as captures wrote it before, naming it once: the
# exec event alone says the new name.
renamed() {
	stream <<-'EOF'
	meta,1000000000,,,source,test
	meta,1000000000,,,cpus,1
	task,1000000000,50,50,bash
	event,1000000000,50,50,,0,sys_enter,-,0,read,3,0x0,0x1
	event,1100000000,50,50,,0,sys_exit,-,0,read,1
	event,1200000000,50,50,,0,switch,-,S,0,0,swapper/0
	event,1300000000,0,0,,0,switch,-,R,50,50,bash
	EOF
	[ "$1" = old ] || echo 'task,1400000000,50,50,flock'
	cat <<-'EOF'
	event,1400000000,50,50,,0,comm,-,50,50,bash,flock
	event,1400000000,50,50,,0,exec,-,/usr/bin/flock,50
	event,1500000000,50,50,,0,sys_enter,-,73,flock,3,0x2
	event,1600000000,50,50,,0,switch,-,S,0,0,swapper/0
	event,1700000000,0,0,,0,switch,-,R,50,50,flock
	event,1750000000,50,50,,0,sys_enter,-,0,read,3,0x0,0x1
	event,1800000000,50,50,,0,switch,-,S,0,0,swapper/0
	meta,2000000000,,,lost,0
	EOF
}

@test "names: a hand-written stream, each report and export names the thread as it was then" {
	renamed >new.csv
	renamed old >old.csv
	# The table of names: each, from when.
	argus-cat -H -k task new.csv >tasks.csv
	diff - tasks.csv <<-'EOF'
	KIND,TIME,PID,TID,COMM,CGROUP
	task,1000000000,50,50,bash,
	task,1400000000,50,50,flock,
	EOF
	for f in new.csv old.csv; do
		# The summary: the name at the window's end.
		argus-summary --all "$f" >sum
		grep -q ' flock 50/50' sum && ! grep -q 'bash' sum ||
		    { cat sum; false; }
		# A window that ends before the rename knows only bash.
		argus-summary --all -u 1350000000 "$f" >sum
		grep -q ' bash 50/50' sum && ! grep -q 'flock' sum ||
		    { cat sum; false; }
		# ftrace text: each line by the name at its event.
		argus-export -f ftrace -o t.trace "$f"
		grep -Eq '^ +bash-50 .* 1\.000000000: sys_enter: NR 0 ' t.trace
		grep -Eq '^ +bash-50 .* 1\.200000000: sched_switch: ' t.trace
		grep -Eq '^ +flock-50 .* 1\.500000000: sys_enter: NR 73 ' t.trace
		grep -Eq '^ +flock-50 .* 1\.600000000: sched_switch: ' t.trace
		# Chrome trace events: the track by its last name, each vertex
		# slice by its thread's name when it began.
		argus-segment -q "$f" | argus-export -f json -o t.json
		grep -q '"tid":50,"name":"thread_name","args":{"name":"flock"}' t.json
		grep -q '"comm":"bash"' t.json
		grep -q '"comm":"flock"' t.json
	done
	# A window keeps the names: the task record in force at its start,
	# just before the thread's first record in it, as a ring's file does.
	argus-cat -s 1450000000 new.csv | grep -E '^(task|event),' >win
	head -2 win | diff - <(printf '%s\n' 'task,1500000000,50,50,flock' \
	    'event,1500000000,50,50,,0,sys_enter,-,73,flock,3,0x2')
	argus-cat -s 1100000000 new.csv | grep -c '^task,' | grep -qx 2
	argus-cat -s 1100000000 new.csv | grep -m1 '^task,' |
	    grep -qx 'task,1100000000,50,50,bash'
	! argus-cat -k event -s 1450000000 new.csv | grep -q '^task,' || false
	argus-cat -s 1450000000 new.csv | argus-segment -q | grep '^vertex,' |
	    awk -F, '$NF != "flock" { bad++ } END { exit bad > 0 || NR == 0 }'
	# The rename's own lines: under the new name where the stream says
	# it first (new.csv), under the old where only the event says it.
	argus-export -f ftrace new.csv | grep -Eq '^ +flock-50 .*: task_rename: '
	argus-export -f ftrace old.csv | grep -Eq '^ +bash-50 .*: task_rename: '
}

@test "names: ftrace text with an exec and a rename imports a task record for each name, and back" {
	cat >trace <<'EOF'
# tracer: nop
#
            bash-900     (    900) [000] .....   100.000100: sys_enter: NR 0 (3, 0, 1, 0, 0, 0)
            bash-900     (    900) [000] .....   100.000200: task_rename: pid=900 oldcomm=bash newcomm=flock oom_score_adj=0
           flock-900     (    900) [000] .....   100.000300: sched_process_exec: filename=/usr/bin/flock pid=900 old_pid=900
           flock-900     (    900) [000] .....   100.000400: sys_enter: NR 73 (3, 2, 0, 0, 0, 0)
           flock-900     (    900) [000] .....   100.000500: task_rename: pid=900 oldcomm=flock newcomm=locker oom_score_adj=0
          locker-900     (    900) [000] .....   100.000600: sys_exit: NR 73 = 0
EOF
	argus-import -Z -o a.csv trace
	argus-cat -k task a.csv | grep -v '^argus-stream,' >tasks
	diff - tasks <<-'EOF'
	task,100000100000,900,900,bash
	task,100000200000,900,900,flock
	task,100000500000,900,900,locker
	EOF
	# Exported and imported again: the same task records, one to one.
	argus-export -f ftrace -o b.trace a.csv
	argus-import -Z -o b.csv b.trace
	argus-cat -k task b.csv | grep -v '^argus-stream,' | diff tasks -
	argus-cat -k event a.csv >a.events
	argus-cat -k event b.csv | diff a.events -
}

@test "names: a real capture of sh that execs sleep names its events sh before the exec, sleep after" {
	need_tracing
	timeout 60 argus-capture -o cap.gz -- \
	    sh -c 'echo $$ >sh.pid; sleep 0.3; exec sleep 1.5' \
	    >/dev/null 2>err || { cat err; false; }
	argus-cat -k event -k task cap.gz >all.csv
	# The thread that exec'd sh, then sleep.
	tid=$(cat sh.pid)
	grep -q "^event,[0-9]*,$tid,$tid,,[0-9]*,exec,-,.*/sh,$tid\$" all.csv
	grep -q "^event,[0-9]*,$tid,$tid,,[0-9]*,exec,-,.*/sleep,$tid\$" all.csv
	# Its task records: a new one at each name, sh then sleep, the last
	# no later than the exec of sleep.
	awk -F, -v t="$tid" '$1 == "task" && $4 == t { print $5 }' all.csv |
	    tail -2 | paste -sd' ' | grep -qx 'sh sleep'
	ren=$(awk -F, -v t="$tid" '$1 == "task" && $4 == t && $5 == "sleep" { print $2 }' all.csv)
	ex=$(awk -F, -v t="$tid" '$4 == t && $7 == "exec" && $9 ~ /\/sleep$/ { print $2 }' all.csv)
	[ "$ren" -le "$ex" ]
	# The CSV table of task records says both.
	argus-cat -H -k task cap.gz | grep -Eq "^task,[0-9]*,$tid,$tid,sleep(,.*)?\$"
	# ftrace text: sh waits for its child under sh, sleeps under sleep.
	argus-export -f ftrace -o cap.trace cap.gz
	grep -Eq "^ +sh-$tid +.*: sys_enter: NR [0-9]+ " cap.trace
	grep -Eq "^ +sleep-$tid +.*: sys_enter: NR [0-9]+ " cap.trace
	# None of sleep's lines before the rename, none of sh's after it.
	awk -v t="$tid" -v ren="$ren" '
	    $1 ~ "-" t "$" || $1 == "sh-" t || $1 == "sleep-" t {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) ts = $i
		sub(":", "", ts); split(ts, p, "."); ns = p[1] * 1e9 + p[2]
		if ($1 == "sleep-" t && ns < ren) bad++
		if ($1 == "sh-" t && ns >= ren) bad++
	    }
	    END { exit bad > 0 }' cap.trace
	# The summary: its name at the end.
	argus-summary --all -p "$tid" cap.gz >sum
	grep -Eq " sleep $tid/$tid " sum || { cat sum; false; }
}
