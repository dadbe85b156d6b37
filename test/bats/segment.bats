#!/usr/bin/env bats
# argus-segment on small streams written by hand: each heuristic, what
# --no-NAME changes, and the vertex records.  No tracing needed.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# A thread's vertices as "BEGAN_BY ENDED_BY WAIT", in order.
vertices_of() {
	records vertex -v t="$1" '$TID == t { print $BEGAN_BY, $ENDED_BY, $WAIT }' | head -100
}

# The VERTEX an event of a thread at a time was given.
vertex_at() {
	records event -v t="$1" -v at="$2" '$TID == t && $TIME == at { print $VERTEX }'
}

# A server, srv 10, reads client 6, sleeps in poll and is woken at 130,
# the waking in context $1 (- or h); its return from poll is not
# recorded (argus-capture leaves it off).  The events after are on
# stdin.  The stream goes to s.csv, argus-segment's graph of it to g.csv.
segment_woken_server() {
	{
		cat <<-EOF
		task,95,10,10,srv
		event,100,10,10,,0,sys_enter,-,45,recvfrom,0x6,0x0,0x10,0x40,0x0,0x0
		event,110,10,10,,0,sys_enter,-,7,poll,0x0,0x2,0xffffffff
		event,120,10,10,,0,switch,-,S,0,0,swapper/0
		event,130,0,0,,0,waking,$1,10,10,0,srv
		EOF
		cat
	} | stream >s.csv
	argus-segment -q -Z s.csv >g.csv
}

# srv's vertices when it reads two clients in the run after the wake-up:
# the first read joins the new vertex's peer set, the second ends it.
WOKEN_READS_TWO="start wait S
wakeup peer-set 
peer-set open S"

@test "segment: a wait ends a vertex, preemption does not, interrupts are culled" {
	stream >s.csv <<-'EOF'
	task,95,10,10,srv
	event,95,10,10,,0,sys_exit,-,7,poll,1
	event,100,10,10,,0,sys_enter,-,0,read,0x3,0x0,0x1
	event,120,10,10,,0,irq_entry,h,5,eth0
	event,121,10,10,,0,irq_exit,h,5,1
	event,140,10,10,,0,switch,-,R+,20,20,other
	event,150,20,20,,0,switch,-,R+,10,10,srv
	event,160,10,10,,0,switch,-,S,0,0,swapper/0
	event,170,0,0,,0,waking,-,10,10,0,srv
	event,200,0,0,,0,switch,-,I,10,10,srv
	event,210,10,10,,0,sys_exit,-,0,read,1
	EOF
	argus-segment -q -Z s.csv >g.csv
	[ "$(vertices_of 10 <g.csv)" = "start wait S
wakeup open " ]
	# The wait's vertex lasts until its thread runs again.
	[ "$(records vertex '$TID == 10 && $ID == 1 { print $BEGIN, $END, $EVENTS }' g.csv)" = "95 200 4" ]
	[ "$(vertex_at 10 120 <g.csv)" = 0 ]
	[ "$(vertex_at 0 200 <g.csv)" = 0 ]
	# Kept, the interrupt is part of the thread's vertex.
	argus-segment -q -Z --no-cull-interrupts s.csv >g2.csv
	[ "$(vertex_at 10 120 <g2.csv)" = 1 ]
	# Without split-at-wait, one vertex, open at the end.
	argus-segment -q -Z --no-split-at-wait s.csv >g3.csv
	[ "$(vertices_of 10 <g3.csv)" = "start open " ]
}

@test "segment: a receive from a new channel splits a server's vertex (peer-set)" {
	stream >s.csv <<-'EOF'
	event,95,10,10,,0,sys_exit,-,7,poll,1
	event,100,10,10,,0,sys_enter,-,0,read,0x3,0x0,0x1
	event,110,10,10,,0,sys_enter,-,1,write,0x1,0x0,0x1
	event,120,10,10,,0,sys_enter,-,0,read,0x3,0x0,0x1
	event,130,10,10,,0,sys_enter,-,45,recvfrom,0x4,0x0,0x1
	event,140,10,10,,0,sys_exit,-,45,recvfrom,1
	EOF
	argus-segment -q -Z s.csv >g.csv
	[ "$(vertices_of 10 <g.csv)" = "start peer-set 
peer-set open " ]
	[ "$(vertex_at 10 130 <g.csv)" = 2 ]
	argus-segment -q -Z --no-peer-set s.csv >g2.csv
	[ "$(vertices_of 10 <g2.csv)" = "start open " ]
}

@test "segment: a work item is a vertex of its own, and a wait inside it does not split it" {
	stream >s.csv <<-'EOF'
	event,295,30,30,,1,sys_exit,-,0,read,0
	event,300,30,30,,1,wq_start,-,0xffff1,func
	event,310,30,30,,1,switch,-,D,0,0,swapper/1
	event,320,0,0,,1,switch,-,I,30,30,kworker/1:0
	event,330,30,30,,1,wq_end,-,0xffff1,func
	event,340,30,30,,1,wq_start,-,0xffff2,func2
	event,350,30,30,,1,wq_end,-,0xffff2,func2
	EOF
	argus-segment -q -Z s.csv >g.csv
	[ "$(vertices_of 30 <g.csv)" = "start callout 
callout callout 
callout callout " ]
	[ "$(vertex_at 30 330 <g.csv)" = "$(vertex_at 30 300 <g.csv)" ]
	argus-segment -q -Z --no-callout s.csv >g2.csv
	[ "$(vertices_of 30 <g2.csv)" = "start wait D
wakeup open " ]
}

@test "segment: boundary and cull hints from a filter upstream" {
	stream >s.csv <<-'EOF'
	event,400,40,40,,0,sys_enter,-,39,getpid
	boundary,405,40,40,mine
	event,410,40,40,,0,sys_exit,-,39,getpid,40
	cull,415,40,40,430,noise
	event,420,40,40,,0,sys_enter,-,39,getpid
	event,430,40,40,,0,sys_exit,-,39,getpid,40
	event,440,40,40,,0,sys_enter,-,39,getpid
	EOF
	argus-segment -q -Z s.csv >g.csv
	[ "$(vertices_of 40 <g.csv)" = "start hint 
hint open " ]
	[ "$(vertex_at 40 420 <g.csv)" = 0 ]
	[ "$(vertex_at 40 430 <g.csv)" = 0 ]
	[ "$(vertex_at 40 440 <g.csv)" = 2 ]
	# The hints pass on.
	grep -q '^boundary,405,40,40,mine$' g.csv
	grep -q '^cull,415,40,40,430,noise$' g.csv
	argus-segment -q -Z --no-hints s.csv >g2.csv
	[ "$(vertices_of 40 <g2.csv)" = "start open " ]
	[ "$(vertex_at 40 420 <g2.csv)" = 1 ]
}

@test "segment: a hint without a thread names its file and line" {
	stream >s.csv <<-'EOF'
	event,400,40,40,,0,sys_enter,-,39,getpid
	boundary,405,,,mine
	EOF
	run argus-segment -q -Z s.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"s.csv:3: boundary hint without a time and a thread"* ]]
}

@test "segment: wake-ups of the scheduler's kernel threads are culled" {
	stream >s.csv <<-'EOF'
	event,500,40,40,,0,sys_enter,-,39,getpid
	event,510,40,40,,0,waking,-,15,15,0,ksoftirqd/0
	event,520,40,40,,0,waking,-,21,21,0,worker
	EOF
	argus-segment -q -Z s.csv >g.csv
	[ "$(vertex_at 40 510 <g.csv)" = 0 ]
	[ "$(vertex_at 40 520 <g.csv)" = 1 ]
	argus-segment -q -Z --no-cull-housekeeping s.csv >g2.csv
	[ "$(vertex_at 40 510 <g2.csv)" = 1 ]
}

@test "segment: a child's first vertex began by fork, a thread's last ended by exit" {
	stream >s.csv <<-'EOF'
	event,600,40,40,,0,fork,-,41,41,0x0,child
	event,610,41,41,,1,sys_enter,-,39,getpid
	event,620,41,41,,1,exit,-,child,1
	event,630,41,41,,1,switch,-,X,0,0,swapper/1
	EOF
	argus-segment -q -Z s.csv >g.csv
	[ "$(vertices_of 41 <g.csv)" = "fork exit " ]
	records vertex '$TID == 41 { print $COMM }' g.csv | grep -qx child
	# What the dead thread still does is its last vertex's.
	[ "$(vertex_at 41 630 <g.csv)" = "$(vertex_at 41 620 <g.csv)" ]
}

@test "segment: an exiting thread preempted on its way out has no vertex after its last; its number forked again is a new thread" {
	# Preempted after its exit (R+), run again with no switch-in in the
	# trace (a kernel that leaves some out), it wakes its parent, and
	# sleeps once in the way out (D) before its dead switch (X).
	stream >s.csv <<-'EOF'
	event,600,40,40,,0,fork,-,41,41,0x0,child
	event,610,41,41,,1,sys_enter,-,39,getpid
	event,620,41,41,,1,exit,-,child,1
	event,625,41,41,,1,switch,-,R+,50,50,other
	event,640,41,41,,0,waking,-,40,40,0,parent
	event,645,41,41,,0,switch,-,D,0,0,swapper/0
	event,650,0,0,,0,switch,-,R,41,41,child
	event,655,41,41,,0,switch,-,X,0,0,swapper/0
	event,660,40,40,,0,fork,-,41,41,0x0,again
	event,670,41,41,,1,sys_enter,-,39,getpid
	EOF
	argus-segment -q -Z s.csv >g.csv
	cat g.csv
	[ "$(vertices_of 41 <g.csv | tr '\n' ' ')" = "fork exit  fork open  " ]
	for t in 625 640 645 655; do
		[ "$(vertex_at 41 $t <g.csv)" = "$(vertex_at 41 620 <g.csv)" ]
	done
	[ "$(records vertex '$TID == 41 { print $COMM }' g.csv | tr '\n' ' ')" = "child again " ]
	# Its dead switch and the fork of its number both lost: the system
	# call the number then makes is a new thread's, not the dead one's.
	stream >s2.csv <<-'EOF'
	event,600,40,40,,0,fork,-,41,41,0x0,child
	event,610,41,41,,1,sys_enter,-,39,getpid
	event,620,41,41,,1,exit,-,child,1
	event,625,41,41,,1,switch,-,R+,50,50,other
	event,670,41,41,,1,sys_enter,-,39,getpid
	EOF
	argus-segment -q -Z s2.csv >g2.csv
	[ "$(vertices_of 41 <g2.csv | tr '\n' ' ')" = "fork exit  start open  " ]
	[ "$(vertex_at 41 670 <g2.csv)" != "$(vertex_at 41 620 <g2.csv)" ]
}

@test "segment: an event on a CPU no kernel has is bad input, not a huge allocation" {
	stream >s.csv <<-'EOF'
	event,10,1,1,,4000000000,switch,-,S,2,2,x
	EOF
	run argus-segment -Z s.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"s.csv:2: malformed event: CPU out of range"* ]]
}

@test "segment: a woken thread's first receive joins its new vertex's peer set (no wait's exit before it)" {
	# The woken server reads client 8, then client 6 in the same run.
	segment_woken_server - <<-'EOF'
	event,140,0,0,,0,switch,-,I,10,10,srv
	event,150,10,10,,0,sys_enter,-,45,recvfrom,0x8,0x0,0x10,0x40,0x0,0x0
	event,160,10,10,,0,sys_enter,-,45,recvfrom,0x6,0x0,0x10,0x40,0x0,0x0
	event,170,10,10,,0,switch,-,S,0,0,swapper/0
	EOF
	[ "$(vertices_of 10 <g.csv)" = "$WOKEN_READS_TWO" ]
}

@test "segment: a woken thread's first event ends its wait's vertex even with no switch-in recorded" {
	# As above, but the switch from the idle task that runs it is not in
	# the trace: its first own event is still judged in the new vertex.
	segment_woken_server h <<-'EOF'
	event,150,10,10,,0,sys_enter,-,45,recvfrom,0x6,0x0,0x10,0x40,0x0,0x0
	event,160,10,10,,0,sys_enter,-,45,recvfrom,0x8,0x0,0x10,0x40,0x0,0x0
	event,170,10,10,,0,switch,-,S,0,0,swapper/0
	EOF
	[ "$(vertices_of 10 <g.csv)" = "$WOKEN_READS_TWO" ]
}

@test "segment: a thread woken onto an idle CPU runs from its wake-up, though its first event comes after computing" {
	# srv is woken at 130 onto an idle CPU (no switch-in recorded), then
	# computes 5 ms with no system call before its next one: that work is
	# the new vertex's, which begins at the wake-up, as its wait ends.
	segment_woken_server - <<-'EOF'
	event,5000130,10,10,,0,sys_enter,-,1,write,0x1,0x0,0x10
	event,5000150,10,10,,0,sys_enter,-,0,read,0x3,0x0,0x10
	event,5000170,10,10,,0,switch,-,S,0,0,swapper/0
	EOF
	records vertex '$TID == 10 { print $ID, $BEGIN, $END, $ONCPU }' g.csv
	[ "$(records vertex '$TID == 10 && $ID == 1 { print $END }' g.csv)" = 130 ]
	[ "$(records vertex '$TID == 10 && $ID == 2 { print $BEGIN }' g.csv)" = 130 ]
	[ "$(records vertex '$TID == 10 && $ID == 2 { print $ONCPU }' g.csv)" -ge 5000000 ]
}

@test "segment: a thread woken onto an idle CPU that sleeps again at once is not on a CPU while it sleeps" {
	# Its first own event after the wake-up is its switch-out (the
	# system call that sent it back to sleep is not traced); then it
	# sleeps for the rest of the trace, 2 s.
	segment_woken_server - <<-'EOF'
	event,150,10,10,,0,switch,-,S,0,0,swapper/0
	event,2000000150,20,20,,1,sys_enter,-,0,read,0x3,0x0,0x10
	EOF
	records vertex '$TID == 10 { print $ID, $BEGIN, $END, $ONCPU }' g.csv
	[ "$(records vertex '$TID == 10 && $ID == 2 { print $BEGIN }' g.csv)" = 130 ]
	[ "$(records vertex '$TID == 10 && $ID == 2 { print $ONCPU }' g.csv)" -le 20 ]
}

@test "segment: a thread woken while its CPU runs one whose switch-out is not recorded runs from the other's last event" {
	# As above, but thread 30 runs on the CPU at 140 (its timer's
	# interrupt says so) and the kernel records no switch out of it (a
	# thread it hides, as a VM's agent): srv ran from 30's last event on,
	# and its 5 ms of computing are its new vertex's.
	segment_woken_server h <<-'EOF'
	event,140,30,30,,0,hrtimer_expire_entry,h,0xffff,0xffff,140
	event,5000130,10,10,,0,sys_enter,-,1,write,0x1,0x0,0x10
	event,5000150,10,10,,0,sys_enter,-,0,read,0x3,0x0,0x10
	event,5000170,10,10,,0,switch,-,S,0,0,swapper/0
	EOF
	records vertex '$TID == 10 { print $ID, $BEGIN, $END, $ONCPU }' g.csv
	[ "$(records vertex '$TID == 10 && $ID == 1 { print $END }' g.csv)" = 140 ]
	[ "$(records vertex '$TID == 10 && $ID == 2 { print $BEGIN, $ONCPU }' g.csv)" = "140 5000030" ]
}

@test "segment: an interrupt in a waiting thread with no switch-in or wake-up recorded ends its wait there" {
	# srv's wake-up and switch-in are not in the trace (a thread the
	# kernel hides woke it); a timer's interrupt at 3000000 came in srv,
	# so srv ran then: its new vertex begins there, not at its next
	# system call, 2 ms later.
	stream >s.csv <<-'EOF'
	task,95,10,10,srv
	event,100,10,10,,0,sys_enter,-,7,poll,0x0,0x2,0xffffffff
	event,120,10,10,,0,switch,-,S,0,0,swapper/0
	event,3000000,10,10,,1,hrtimer_expire_entry,h,0xffff,0xffff,3000000
	event,5000130,10,10,,1,sys_enter,-,1,write,0x1,0x0,0x10
	event,5000170,10,10,,1,switch,-,S,0,0,swapper/1
	EOF
	argus-segment -q -Z s.csv >g.csv
	records vertex '$TID == 10 { print $ID, $BEGIN, $END, $ONCPU }' g.csv
	[ "$(records vertex '$TID == 10 && $ID == 1 { print $END }' g.csv)" = 3000000 ]
	[ "$(records vertex '$TID == 10 && $ID == 2 { print $BEGIN }' g.csv)" = 3000000 ]
	# The interrupt's event itself is no one's work.
	[ "$(vertex_at 10 3000000 <g.csv)" = 0 ]
}

@test "segment: a thread whose switch-out the kernel lost is off its CPU from its last event, in a wait of a state unknown" {
	# cli blocks in its read at 300 on CPU 1; the kernel loses that
	# CPU's events for a while (a ring that overflowed), then idle's
	# timer and another thread run there, with no switch out of cli.
	# cli is not busy for the 4 ms left: its vertex ends in a wait whose
	# state the trace lost, on a CPU for 100 ns of them.  srv, whose
	# switch-in is seen on CPU 0 after its last event on CPU 1, ran on.
	stream >s.csv <<-'EOF'
	task,95,10,10,cli
	task,95,20,20,srv
	event,100,0,0,,1,switch,-,R,10,10,cli
	event,150,0,0,,0,switch,-,R,20,20,srv
	event,200,10,10,,1,sys_enter,-,1,write,0x1,0x0,0x10
	event,300,10,10,,1,sys_enter,-,0,read,0x3,0x0,0x10
	lost,2000000,,,1,500
	event,2000000,0,0,,1,hrtimer_expire_entry,h,0xffff,0xffff,2000000
	event,2000100,30,30,,1,sys_enter,-,1,write,0x1,0x0,0x10
	event,3000000,20,20,,0,sys_enter,-,1,write,0x1,0x0,0x10
	event,4000000,20,20,,0,sys_enter,-,1,write,0x1,0x0,0x10
	event,4000010,20,20,,0,switch,-,R,0,0,swapper/0
	event,4000020,0,0,,0,switch,-,R,20,20,srv
	event,4000200,20,20,,0,sys_enter,-,1,write,0x1,0x0,0x10
	event,4000300,30,30,,1,sys_enter,-,1,write,0x1,0x0,0x10
	EOF
	argus-segment -q -Z s.csv >g.csv
	records vertex '$TID == 10 { print $ID, $BEGIN, $END, $ONCPU, $ENDED_BY, $WAIT }' g.csv
	[ "$(records vertex '$TID == 10 { print $ENDED_BY, $WAIT, $ONCPU }' g.csv)" = "open ? 100" ]
	# srv's preemption is no wait, nor is the event that came after it.
	[ "$(records vertex '$TID == 20 { print $ENDED_BY, $WAIT }' g.csv)" = "open " ]
	# And the wait's last read is in its vertex: spin sees one long wait.
	argus-spin -q -Z --tid 10 -T 2ms g.csv >spin.csv
	[ "$(records spin '{ print $CLASS }' spin.csv)" = LongWait ]
	# And the report says why the wait has no state.
	argus-link -q g.csv | argus-spin -q --tid 10 -T 2ms |
	    argus-slice --auto 2>report >/dev/null || true
	cat report
	grep '^Hang: ' report | grep -q 'ends waiting (its switch-out lost by the kernel)'
	# And what the kernel lost, which may have been on the chain.
	grep -qx 'Lost: the kernel lost 500 events of CPU 1, said at +0.002 s, 500 of them in the hang: a switch or a wake-up of the chain may be missing' report
	# Two more on CPUs 2 and 3: a thread it hides from tracing runs in
	# job's place at 500 (an interrupt's event in it), and job's next
	# event is its own, with no switch-in: job ran on, one vertex.  bg's
	# switch-out is lost, and a switch into it at 3 ms says it had left:
	# its vertex ends in a wait there, on a CPU for the 100 ns it was
	# seen running.
	stream >more.csv <<-'EOF'
	task,95,40,40,job
	task,95,50,50,bg
	event,100,0,0,,2,switch,-,R,40,40,job
	event,100,0,0,,3,switch,-,R,50,50,bg
	event,200,40,40,,2,sys_enter,-,1,write,0x1,0x0,0x10
	event,200,50,50,,3,sys_enter,-,1,write,0x1,0x0,0x10
	event,300,50,50,,3,sys_enter,-,0,read,0x3,0x0,0x10
	event,500,74,74,,2,hrtimer_expire_entry,h,0xffff,0xffff,500
	event,1000000,60,60,,3,sys_enter,-,1,write,0x1,0x0,0x10
	event,3000000,40,40,,2,sys_enter,-,1,write,0x1,0x0,0x10
	event,3000000,60,60,,3,switch,-,S,50,50,bg
	event,3000100,50,50,,3,sys_enter,-,1,write,0x1,0x0,0x10
	EOF
	argus-segment -q -Z more.csv >g.csv
	records vertex '$TID >= 40 { print $TID, $ID, $BEGIN, $END, $ONCPU, $ENDED_BY, $WAIT }' g.csv
	[ "$(records vertex '$TID == 40 { print $ENDED_BY, $WAIT }' g.csv)" = "open " ]
	[ "$(records vertex '$TID == 50 { print $END, $ONCPU, $ENDED_BY, $WAIT }' g.csv | head -1)" = "3000000 100 wait ?" ]
}
