#!/usr/bin/env bats
# argus-relate and argus-cat --related: the threads related to a target,
# and a graph of only them.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	# victim 100 was forked by parent 800 at 1 s.  server 200 was woken
	# by client-old 300 at 2 s, then by client-new 400 at 3 s, and woke
	# the victim at 4 s: only the client whose wake-up began that
	# segment of the server matters.  At 5 s a timer armed by armer 700
	# fires in a hard interrupt of noise 500 and wakes the victim: the
	# armer matters, not the thread it interrupted.  At 6 s noise2 600
	# wakes noise 500.  At 7 s the victim asks for a lock locker 1000
	# holds, and is refused.  At 10 s a snapshot: the victim waits on a
	# pipe whose writer is process 900 (threads 900, 901).
	stream >s.csv <<-'EOF'
	task,0,100,100,victim
	task,0,200,200,server
	task,0,300,300,client-old
	task,0,400,400,client-new
	task,0,500,500,noise
	task,0,600,600,noise2
	task,0,700,700,armer
	task,0,800,800,parent
	task,0,900,900,holder
	task,0,900,901,holder
	task,0,1000,1000,locker
	event,500000000,700,700,,1,hrtimer_start,-,0xabc,0xffffffff81000000,5000000000,5000000000,0
	event,600000000,1000,1000,,1,posix_lock,-,8:1,42,write,POSIX,0,100,1000,0xf00,0x0,0,0x0
	event,1000000000,800,800,,0,fork,-,100,100,0x0,victim
	event,1000000100,800,800,,0,wakeup_new,-,100,100,0,victim
	event,2000000000,300,300,,0,waking,-,200,200,0,server
	event,3000000000,400,400,,0,waking,-,200,200,0,server
	event,4000000000,200,200,,0,waking,-,100,100,0,victim
	event,4000000100,500,500,,1,switch,-,R+,100,100,victim
	event,4500000000,100,100,,1,switch,-,S,500,500,noise
	event,5000000000,500,500,,1,hrtimer_expire_entry,h,0xabc,0xffffffff81000000,5000000000
	event,5000000100,500,500,,1,waking,h,100,100,1,victim
	event,5000000200,500,500,,1,hrtimer_expire_exit,h,0xabc
	event,6000000000,600,600,,0,waking,-,500,500,1,noise
	event,7000000000,100,100,,1,posix_lock,-,8:1,42,read,POSIX,0,100,100,0xf11,0x0,-11,0x0
	wait,10000000000,100,100,S,read,3,pipe,pipe:77,in,,,9000000000,,pipe_read,victim
	holder,10000000000,900,,pipe:77,writer,4,,,holder
	EOF
}

@test "relate: the threads whose segments made the target's run on" {
	run argus-relate --tid 100 s.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "100,200,400,700,800,900,901,1000" ]
	# By name and by process, and more than one target.
	run argus-relate --comm victim s.csv
	[ "$output" = "100,200,400,700,800,900,901,1000" ]
	run argus-relate -p 500 s.csv
	[ "$output" = "500,600" ]
	run argus-relate -v -t 300 -t 600 s.csv
	[ "${lines[0]}" = "300,600" ]
	[[ "${lines[1]}" == "argus-relate: 2 threads related, from "*" relations" ]]
}

@test "relate: -v twice says what brought each thread in" {
	argus-relate -vv --tid 100 s.csv 2>why >/dev/null
	cat why
	grep -qx '100/100 victim: a target' why
	# The server by its wake-up at 4 s, the client by the one before it.
	grep -qx '200/200 server: into 100 at 4000000000 (1 relation from a target)' why
	grep -qx '400/400 client-new: into 200 at 3000000000 (2 relations from a target)' why
	# The timer's armer for its interrupt's wake-up, not the one it came in.
	grep -qx '700/700 armer: into 100 at 5000000100 (1 relation from a target)' why
	[ "$(grep -c ': ' why)" -eq 9 ]
}

@test "relate: a chain is followed back as deep as asked" {
	# 1 woken by 2, woken by 3, ... by 6, each once.
	{
		for t in 1 2 3 4 5 6; do echo "task,0,$t,$t,t$t"; done
		for t in 6 5 4 3 2; do
			echo "event,$(( (7 - t) * 1000 )),$t,$t,,0,waking,-,$((t - 1)),$((t - 1)),0,t$((t - 1))"
		done
	} | stream >chain.csv
	run argus-relate -t 1 chain.csv
	[ "$output" = "1,2,3,4,5,6" ]
	run argus-relate -d 2 -t 1 chain.csv
	[ "$output" = "1,2,3" ]
	run argus-relate --depth 0 -t 1 chain.csv
	[ "$output" = "1,2,3,4,5,6" ]
}

@test "relate: the earlier runs of the target's program by the same parent, its nearest siblings, and who ended their waits" {
	# Script 800 runs watch 110, which mv 130 (a child of job 120) wakes
	# at 2 s; then grep 140 and watch 150, which waits.  Watch 160, another
	# script's (900), woken by 170, is not the target's.
	{
		for t in 800 900 110 120 130 140 150 160 170; do echo "task,0,$t,$t,t$t"; done
		fork() {	# T PARENT CHILD COMM
			echo "event,$1,$2,$2,,0,fork,-,$3,$3,0x0,sh"
			echo "event,$(($1 + 1)),$3,$3,,0,comm,-,$3,$3,sh,$4"
		}
		fork 1000000000 800 110 watch
		fork 1100000000 800 120 job
		fork 1200000000 120 130 mv
		echo "event,2000000000,130,130,,0,waking,-,110,110,0,watch"
		fork 2500000000 800 140 grep
		fork 2600000000 900 160 watch
		echo "event,2700000000,170,170,,0,waking,-,160,160,0,watch"
		fork 3000000000 800 150 watch
	} | stream >runs.csv
	run argus-relate --tid 150 runs.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "110,120,130,140,150,800" ]
	# Of a program the parent ran again and again, the 8 latest runs:
	# 9 watchers before 250, each 10 s before the next, 201 the first.
	# Of what it forks after 250, the 3 first: 260, 261, 262.  Watch 271,
	# run through timeout 270, is a run too, the latest: 202 drops out.
	# Job 280, forked just before 270 but gone before 250 came, is no
	# part of its task: the 3 siblings before 250 are 270, 209, 208.
	{
		cat runs.csv
		for i in $(seq 9); do
			echo "event,$((i * 10))000000000,800,800,,0,fork,-,$((200 + i)),$((200 + i)),0x0,sh"
			echo "event,$((i * 10))000000001,$((200 + i)),$((200 + i)),,0,comm,-,$((200 + i)),$((200 + i)),sh,watch"
		done
		echo "event,94000000000,800,800,,0,fork,-,280,280,0x0,sh"
		echo "event,95000000000,800,800,,0,fork,-,270,270,0x0,sh"
		echo "event,95000000001,270,270,,0,comm,-,270,270,sh,timeout"
		echo "event,95100000000,270,270,,0,fork,-,271,271,0x0,timeout"
		echo "event,95100000001,271,271,,0,comm,-,271,271,timeout,watch"
		echo "event,95200000000,280,280,,0,exit,-,job,1"
		echo "event,100000000000,800,800,,0,fork,-,250,250,0x0,sh"
		echo "event,100000000001,250,250,,0,comm,-,250,250,sh,watch"
		for i in 0 1 2 3; do
			echo "event,10${i}100000000,800,800,,0,fork,-,26$i,26$i,0x0,sh"
		done
	} | argus-cat -Z - >many.csv
	run argus-relate --tid 250 many.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "203,204,205,206,207,208,209,250,260,261,262,270,271,800" ]
	# Still there when 250 came, it is.
	sed 's/^event,95200000000,280,/event,101000000000,280,/' many.csv |
	    argus-cat -Z - >later.csv
	[ "$(argus-relate --tid 250 later.csv)" = \
	    "203,204,205,206,207,208,209,250,260,261,262,270,271,280,800" ]
}

@test "relate: the children the target forked last, which nothing relates to it while it waits" {
	# Parent 100 forks 101 to 105, one a second, and waits: for one of
	# them, a lock one took, nobody says.  Child 105 forks 106.
	{
		for t in 100 101 102 103 104 105 106; do echo "task,0,$t,$t,t$t"; done
		for t in 101 102 103 104 105; do
			echo "event,$((t - 100))000000000,100,100,,0,fork,-,$t,$t,0x0,t100"
		done
		echo "event,5500000000,105,105,,1,fork,-,106,106,0x0,t105"
		echo "event,6000000000,100,100,,0,switch,-,S,0,0,swapper/0"
	} | stream >kids.csv
	run argus-relate --tid 100 kids.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "100,103,104,105" ]
}

@test "relate: argus-cat --related keeps what a graph of those threads needs" {
	run argus-cat -r 100,200,400,700,800 s.csv
	echo "$output"
	[ "$status" -eq 0 ]
	# The related threads' own events, the switch that gives one the CPU,
	# an interrupt whatever it interrupted, every thread's name.
	grep -q '^event,4000000000,200,200,,0,waking,-,100,100,0,victim$' <<<"$output"
	grep -q '^event,4000000100,500,500,,1,switch,-,R+,100,100,victim$' <<<"$output"
	grep -q '^event,5000000100,500,500,,1,waking,h,100,100,1,victim$' <<<"$output"
	grep -q '^task,0,600,600,noise2$' <<<"$output"
	# A wake-up of a related thread by any other is kept (it names it);
	# the unrelated threads' own doings are not.
	grep -q '^event,2000000000,300,300,,0,waking,-,200,200,0,server$' <<<"$output"
	! grep -q '^event,6000000000,600,' <<<"$output" || false
	# A record about no thread, or a process as a whole, is kept.
	grep -q '^holder,10000000000,900,,pipe:77,' <<<"$output"
	[ "$(grep -c '^event,' <<<"$output")" -eq 12 ]
	run argus-cat -r 4294967296 s.csv
	[ "$status" -eq 64 ]
}

@test "relate: argus-cat --related keeps the life of a thread a related one starts, not of a process it forks" {
	# Server 20 starts helper thread 20/21 and child process 30, each
	# gone in a moment: without the helper's switches and exit, a later
	# stage would see it begin at its fork and run on to the end.
	stream >birth.csv <<-'EOF'
	task,0,20,20,server
	event,1000,20,20,,0,fork,-,20,21,0x3d0f00,server
	event,1100,20,20,,0,fork,-,30,30,0x1200011,server
	event,1200,20,20,,0,switch,-,S,20,21,server
	event,1300,20,21,,0,sys_enter,-,7,poll,0x7ffe0,0x1,0x1388
	event,1400,20,21,,0,exit,-,server,0
	event,1500,20,21,,0,switch,-,X,30,30,server
	event,1600,30,30,,0,sys_enter,-,59,execve,0x7ffe0,0x0,0x0
	event,1700,30,30,,0,exit,-,helper,0
	EOF
	run argus-cat -r 20 birth.csv
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^event,1300,20,21,,0,sys_enter,-,7,poll,' <<<"$output"
	grep -q '^event,1400,20,21,,0,exit,-,server,0$' <<<"$output"
	grep -q '^event,1500,20,21,,0,switch,-,X,30,30,server$' <<<"$output"
	# The child process's fork is the server's; its own life is not kept.
	grep -q '^event,1100,20,20,,0,fork,-,30,30,' <<<"$output"
	! grep -q '^event,1[67]00,30,' <<<"$output" || false
}

@test "relate: argus-cat --related keeps how a thread seen waking a related one stops: its switches till it sleeps, its exit" {
	# Subshell 30 wakes related shell 20 and exits; worker 40, preempted
	# by related 20, runs on, then sleeps; both go on with lives of their
	# own after.  Without their stops a later stage would see each run
	# from that moment to the end: on a CPU, for all it knows, through
	# the hang.
	stream >glimpse.csv <<-'EOF'
	task,0,20,20,sh
	event,1000,30,30,,0,waking,-,20,20,0,sh,120
	event,1100,30,30,,0,sys_enter,-,1,write,0x1,0x0,0x1
	event,1200,30,30,,0,exit,-,sh,0
	event,1300,30,30,,0,switch,-,Z,20,20,sh
	event,2000,40,40,,1,switch,-,R+,20,20,sh
	event,2100,20,20,,1,switch,-,S,40,40,worker
	event,2200,40,40,,1,sys_enter,-,0,read,0x3,0x0,0x1
	event,2300,40,40,,1,switch,-,R,50,50,other
	event,2400,40,40,,1,switch,-,S,0,0,swapper/1
	event,2500,40,40,,1,sys_enter,-,0,read,0x3,0x0,0x1
	event,2600,40,40,,1,switch,-,S,0,0,swapper/1
	event,2700,40,40,,1,exit,-,worker,0
	EOF
	run argus-cat -r 20 glimpse.csv
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^event,1200,30,30,,0,exit,-,sh,0$' <<<"$output"
	grep -q '^event,1300,30,30,,0,switch,-,Z,' <<<"$output"
	grep -q '^event,2300,40,40,,1,switch,-,R,50,' <<<"$output"
	grep -q '^event,2400,40,40,,1,switch,-,S,0,' <<<"$output"
	# Not their own doings, nor their lives after they stopped.
	! grep -q '^event,1100,' <<<"$output" || false
	! grep -q '^event,2[2567]00,' <<<"$output" || false
	# A graph of it: neither runs on to the end (an open vertex that is
	# in no wait).
	argus-cat -r 20 glimpse.csv | argus-segment -q | argus-cat -k vertex |
	    awk -F, '$4 == 30 || $4 == 40 { print; n++
	    if ($11 == "open" && $12 == "") bad = 1 } END { exit bad || n != 2 }'
}

@test "relate: argus-cat --related forgets a related thread's id at its death: another may take it" {
	# Related 30 exits; a minute later a busy machine gives its id to
	# an unrelated process (a loop of the user's), whose own doings are
	# not the graph's.
	stream >reuse.csv <<-'EOF'
	task,0,30,30,job
	event,1000,30,30,,0,sys_enter,-,0,read,0x3,0x0,0x1
	event,1100,30,30,,0,exit,-,job,0
	event,1200,30,30,,0,switch,-,Z,0,0,swapper/0
	task,5000,30,30,noise
	event,5100,30,30,,0,sys_enter,-,61,wait4,0xffffffff,0x0,0x0,0x0
	event,5200,30,30,,0,fork,-,31,31,0x1200011,noise
	EOF
	run argus-cat -r 30 reuse.csv
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^event,1100,30,30,,0,exit,' <<<"$output"
	grep -q '^event,1200,30,30,,0,switch,-,Z,' <<<"$output"
	! grep -q '^event,5[12]00,' <<<"$output" || false
	# But a snapshot taken after names it still: a lock it left locked.
	printf '%s\n' 'holder,6000,30,30,futex:40:0x10,owner,,,exited,job' \
	    'holder,6000,77,77,futex:40:0x20,owner,,,,other' >>reuse.csv
	run argus-cat -r 30 reuse.csv
	echo "$output"
	grep -q '^holder,6000,30,30,futex:40:0x10,' <<<"$output"
	! grep -q '^holder,6000,77,' <<<"$output" || false
}

@test "relate: a dead thread's id given to another, and a kernel thread's work for others, bring nobody in" {
	# Worker 300 wakes the victim at 1 s and exits; at 2 s noise 500
	# forks a new 300 (a busy machine reuses ids within seconds).  At
	# 3 s the victim asks migration/1 to move it, which wakes it; at 4 s
	# noise 600 asks it in turn.
	stream >lives.csv <<-'EOF'
	task,0,100,100,victim
	task,0,23,23,migration/1
	task,0,300,300,worker
	task,0,500,500,noise
	task,0,600,600,noise2
	event,1000000000,300,300,,0,waking,-,100,100,0,victim
	event,1100000000,300,300,,0,exit,-,worker,0
	event,2000000000,500,500,,0,fork,-,300,300,0x1200011,noise
	event,2100000000,300,300,,0,sys_enter,-,0,read,0x3,0x0,0x1
	event,2900000000,100,100,,1,waking,-,23,23,1,migration/1
	event,3000000000,23,23,,1,waking,-,100,100,0,victim
	event,4000000000,600,600,,1,waking,-,23,23,1,migration/1
	EOF
	run argus-relate --tid 100 lives.csv
	echo "$output"
	[ "$status" -eq 0 ]
	# The worker's life till its id's next: a graph of it keeps not the
	# noise's fork of the next 300, nor that one's own doings.
	[ "$output" = "23,100,300@0-2000000000" ]
	run argus-cat -r "$output" lives.csv
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^event,1100000000,300,300,,0,exit,' <<<"$output"
	! grep -q '^event,2[01]00000000,' <<<"$output" || false
	# The other way round: the noise's child gone, a worker takes its id.
	sed -e 's/^task,0,300,300,worker$/task,0,300,300,noise-child/' \
	    -e 's/^event,1000000000,300,300,,0,waking,-,100,100,/event,1000000000,300,300,,0,waking,-,600,600,/' \
	    -e 's/^event,2000000000,500,500,/event,2000000000,700,700,/' \
	    -e 's/^event,2100000000,300,300,,0,sys_enter,-,0,read,0x3,0x0,0x1$/event,2100000000,300,300,,0,waking,-,100,100,0,victim/' \
	    lives.csv >later.csv
	run argus-relate --tid 100 later.csv
	echo "$output"
	[ "$output" = "23,100,300@2000000000,700" ]
	run argus-cat -r "$output" later.csv
	grep -q '^event,2000000000,700,700,,0,fork,-,300,300,' <<<"$output"
	! grep -q '^event,1[01]00000000,' <<<"$output" || false
	# A new thread's task record comes before its fork, at its time:
	# the name is the new life's.
	sed 's/^event,2000000000,700,700,/task,2000000000,300,300,newname\n&/' \
	    later.csv >named.csv
	run argus-relate --comm newname named.csv
	echo "$output"
	[ "$output" = "300@2000000000,700" ]
	run argus-cat -r 1@2-1 lives.csv
	[ "$status" -eq 64 ]
	[[ "$output" == *"a life that ends before it begins"* ]]
	# migration/1 woken by noise2 at 2.8 s, the victim's request taken
	# while it ran (no wake-up recorded): the stopper's wake-up is the
	# kernel's bookkeeping, and brings noise2 in no more than before.
	sed -e 's/^event,2900000000,100,100,,1,waking,-,23,/event,2800000000,600,600,,1,waking,-,23,/' \
	    lives.csv >stopper.csv
	run argus-relate --tid 100 stopper.csv
	echo "$output"
	[ "$output" = "23,100,300@0-2000000000" ]
}

@test "relate: no thread of the target, usage, bad input" {
	run argus-relate --tid 4242 s.csv
	[ "$status" -eq 1 ]
	[[ "$output" == *"no thread of the target in the input"* ]]
	run argus-relate s.csv
	[ "$status" -eq 64 ]
	run argus-relate --tid x s.csv
	[ "$status" -eq 64 ]
	run argus-relate --tid 1 a-file-that-is-not-there
	[ "$status" -eq 66 ]
	stream >bad.csv <<-'EOF'
	event,x,1,1,,0,waking,-,2,2,0,b
	EOF
	run argus-relate --tid 1 bad.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"bad.csv:2:"* ]]
	run argus-relate --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: argus-relate"* ]]
}
