#!/usr/bin/env bats
# argus-waits and argus waits: the longest waits of an event graph.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	# editor 10/11 blocks in read at 1 s until saver 20/21 wakes it at
	# 4 s; saver sleeps from 1.5 s until its own timer ends it at 4 s;
	# daemon 30/31 blocks in poll at 4.2 s and the trace ends at 5 s.
	# The timer's function is an address the stream names (ksym).
	stream >g.csv <<-'EOF'
	ksym,,,,0xffffffff8141e4b0,hrtimer_wakeup
	event,1000000000,10,11,1,0,sys_enter,-,0,read
	event,1500000000,20,21,3,1,sys_enter,-,230,clock_nanosleep
	vertex,4000000000,10,11,1,500000000,4000000000,1000,2,start,wait,S,editor
	vertex,4000000000,20,21,3,200000000,4000000000,1000,2,start,wait,S,saver
	link,4000000000,10,11,3,2,strong,wakeup,4000000000,20,21,
	link,4000000000,20,21,3,4,strong,timeout,4000000000,20,21,0xffffffff8141e4b0
	link,4000000000,10,11,1,2,weak,order,4000000000,10,11,
	event,4200000000,30,31,5,1,sys_enter,-,7,poll
	vertex,5000000000,10,11,2,4000000000,5000000000,900000000,9,wakeup,open,R,editor
	vertex,5000000000,20,21,4,4000000000,5000000000,1000,1,wakeup,exit,,saver
	vertex,5000000000,30,31,5,100000000,5000000000,1000,1,start,open,S,daemon
	EOF
}

@test "waits: the longest first, who ended each, or still waiting" {
	run argus-waits g.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "     3.000 s  editor 10/11                     read             saver 20/21 (wakeup)" ]
	[ "${lines[2]}" = "     2.500 s  saver 20/21                      clock_nanosleep  its own timer (timeout hrtimer_wakeup)" ]
	[ "${lines[3]}" = "     0.800 s  daemon 30/31                     poll             still waiting" ]
	[ "${#lines[@]}" -eq 4 ]
	# How many, how long, whose.
	run argus-waits -n 1 g.csv
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[2]}" = "(2 more: -n 0 for all)" ]
	run argus-waits -m 1s g.csv
	[ "${#lines[@]}" -eq 3 ]
	run argus-waits -p 30 g.csv
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[1]}" == *"daemon 30/31"*"still waiting" ]]
}

@test "waits: idle waits left out unless --all: a loop's own timer that woke no one, a kernel thread idle; --comm" {
	# poller 40/41 sleeps in epoll_wait from 1 s to 4 s, its own timer
	# ends it, and it goes back to sleep having woken no one: a loop
	# idling.  kworker 50/51 idles in state I.  editor waits for saver.
	stream >idle.csv <<-'EOF'
	event,1000000000,10,11,1,0,sys_enter,-,0,read
	event,1000000000,40,41,6,1,sys_enter,-,232,epoll_wait
	event,1000000000,50,51,8,1,switch,-,I,0,0,swapper
	vertex,4000000000,10,11,1,500000000,4000000000,1000,2,start,wait,S,editor
	vertex,4000000000,40,41,6,500000000,4000000000,1000,2,start,wait,S,poller
	vertex,4000000000,50,51,8,500000000,4000000000,1000,2,start,wait,I,kworker
	link,4000000000,40,41,6,7,strong,timeout,4000000000,40,41,
	link,4000000000,10,11,3,2,strong,wakeup,4000000000,20,21,
	link,4000000000,50,51,0,9,strong,wakeup,4000000000,0,0,
	vertex,4100000000,40,41,7,4000000000,4100000000,1000,1,timeout,wait,S,poller
	vertex,4100000000,50,51,9,4000000000,4100000000,1000,1,wakeup,wait,I,kworker
	vertex,5000000000,10,11,2,4000000000,5000000000,900000000,9,wakeup,open,R,editor
	vertex,5000000000,20,21,3,200000000,5000000000,1000,2,start,open,R,saver
	EOF
	run argus-waits idle.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[1]}" == *"editor 10/11"*"saver 20/21 (wakeup)" ]]
	[ "${lines[2]}" = "(2 idle waits left out: a loop's own timer, or a kernel thread idle; -a shows them)" ]
	run argus-waits --all idle.csv
	echo "$output"
	[ "${#lines[@]}" -eq 4 ]
	[[ "$output" == *"poller 40/41"*"epoll_wait"*"its own timer"* ]]
	[[ "$output" == *"kworker 50/51"* ]]
	run argus-waits -a --comm poller idle.csv
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[1]}" == *"poller 40/41"* ]]
	# The porcelain passes them on, checked first.
	stream >cap.csv <<-'EOF'
	meta,,,,source,test
	event,100,10,11,,0,switch,-,S,20,21
	EOF
	run argus waits --all --comm kworker --pid 50 cap.csv
	echo "$output"
	[ "$status" -eq 0 ]
	run argus waits --pid abc cap.csv
	[ "$status" -eq 64 ]
	run argus summary --all --comm kworker --tid 51 cap.csv
	[ "$status" -eq 0 ]
}

@test "waits: the porcelain builds the graph of a capture; bad input and usage" {
	stream >cap.csv <<-'EOF'
	meta,,,,source,test
	event,100,10,11,,0,switch,-,S,20,21
	EOF
	run argus waits -n 5 cap.csv
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "      WAITED  THREAD                           CALL             ENDED BY" ]
	run argus-waits a-file-that-is-not-there
	[ "$status" -eq 66 ]
	run argus-waits -n lots g.csv
	[ "$status" -eq 64 ]
	stream >events.csv <<-'EOF'
	event,100,10,11,,0,switch,-,S,20,21
	EOF
	run argus-waits events.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"no vertex records in the input: run argus-segment and argus-link first"* ]]
	run argus waits --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: argus waits"* ]]
}

@test "waits: each wait under the name its thread had then: an exec renames what follows only" {
	# 10/11 waits in read as bash, then runs flock (exec) and waits in
	# flock as flock, still waiting.
	stream >exec.csv <<-'EOF'
	event,1000000000,10,11,1,0,sys_enter,-,0,read
	vertex,3000000000,10,11,1,500000000,3000000000,1000,2,start,wait,S,bash
	link,3000000000,10,11,7,2,strong,wakeup,3000000000,20,21,
	event,3100000000,10,11,2,0,exec,-,/usr/bin/flock,10
	event,3200000000,10,11,2,0,sys_enter,-,73,flock
	vertex,6000000000,10,11,2,3000000000,6000000000,1000,3,wakeup,open,S,flock
	vertex,6000000000,20,21,7,500000000,6000000000,1000,2,start,open,R,shell
	EOF
	run argus-waits exec.csv
	echo "$output"
	[[ "${lines[1]}" == *"flock 10/11"*"flock"*"still waiting" ]]
	[[ "${lines[2]}" == *"bash 10/11"*"read"*"shell 20/21 (wakeup)" ]]
}
