#!/usr/bin/env bats
# argus-link on small streams written by hand: each rule's links, what
# --no-NAME changes, and the order of a wake-up's links.  No tracing
# needed: the streams go through argus-segment first, as a capture would.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# graph FILE [ARGUS-LINK OPTION...]: the links, one "RULE STRENGTH FROM TO
# LABEL" a line, program order and wait back edges left out.
graph() {
	local f=$1
	shift
	argus-segment -q "$f" | argus-link -q -Z "$@" >g.csv
	records link '$RULE != "order" && $RULE != "wait" {
	    print $RULE, $STRENGTH, $FROM, $TO, $LABEL }' g.csv
}

@test "link: a wake-up, its wait back edge, and program order" {
	stream >s.csv <<-'EOF'
	event,100,1,1,,0,sys_enter,-,0,read,0x3,0x0,0x1
	event,110,1,1,,0,switch,-,S,2,2,b
	event,120,2,2,,0,sys_enter,-,202,futex,0x1000,0x81,0x1
	event,130,2,2,,0,waking,-,1,1,0,a
	event,140,2,2,,0,sys_exit,-,202,futex,1
	event,150,2,2,,0,switch,-,S,1,1,a
	event,160,1,1,,0,sys_exit,-,0,read,1
	EOF
	[ "$(graph s.csv)" = "wakeup strong 2 3 " ]
	# Written when the wakee runs, in this order; the wakee's thread and
	# the waker's, each side's time.
	records link '{ print $TIME, $TID, $FROM, $TO, $STRENGTH, $RULE, $FROM_TIME, $FROM_TID }' g.csv >links
	[ "$(cat links)" = "160 1 2 3 strong wakeup 130 2
160 2 1 2 weak wait 160 1
160 1 1 3 weak order 160 1" ]
	[ "$(graph s.csv --no-wait; records link '{ print $RULE }' g.csv | tr '\n' ' ')" = "wakeup strong 2 3 
wakeup order " ]
	[ "$(graph s.csv --no-wakeup; records link '{ print $RULE }' g.csv)" = "order" ]
}

@test "link: a message, and the reply from the vertex that received the request" {
	stream >s.csv <<-'EOF'
	event,100,5,5,,1,sys_enter,-,0,read,0x3,0x0,0x1
	event,105,5,5,,1,switch,-,S,0,0,swapper/1
	event,110,1,1,,0,sys_enter,-,1,write,0x4,0x0,0x1
	event,115,1,1,,0,waking,-,5,5,1,srv
	event,120,1,1,,0,sys_exit,-,1,write,1
	event,125,1,1,,0,sys_enter,-,0,read,0x4,0x0,0x1
	event,130,1,1,,0,switch,-,S,0,0,swapper/0
	event,135,0,0,,1,switch,-,I,5,5,srv
	event,140,5,5,,1,sys_exit,-,0,read,1
	event,145,5,5,,1,sys_enter,-,202,futex,0x2000,0x80,0x0
	event,150,5,5,,1,switch,-,S,5,6,helper
	event,155,5,6,,1,sys_enter,-,202,futex,0x2000,0x81,0x1
	event,160,5,6,,1,waking,-,5,5,1,srv
	event,165,5,6,,1,switch,-,S,5,5,srv
	event,170,5,5,,1,sys_exit,-,202,futex,0
	event,175,5,5,,1,sys_enter,-,1,write,0x3,0x0,0x1
	event,180,5,5,,1,waking,-,1,1,0,client
	event,185,5,5,,1,sys_exit,-,1,write,1
	event,190,0,0,,0,switch,-,I,1,1,client
	event,195,1,1,,0,sys_exit,-,0,read,1
	EOF
	[ "$(graph s.csv)" = "message strong 2 3 
wakeup strong 4 5 
reply strong 3 5 
message strong 5 6 " ]
	[ "$(graph s.csv --no-reply)" = "message strong 2 3 
wakeup strong 4 5 
message strong 5 6 " ]
	[ "$(graph s.csv --no-message)" = "wakeup strong 2 3 
wakeup strong 4 5 
wakeup strong 5 6 " ]
}

@test "link: without reads' and writes' exits (argus-capture leaves them off) the same messages and reply" {
	# The stream of the test above as argus-capture now records it: a
	# send lasts to the thread's next call, the futex's exit still ends
	# its lock wait.
	stream >s.csv <<-'EOF'
	event,100,5,5,,1,sys_enter,-,0,read,0x3,0x0,0x1
	event,105,5,5,,1,switch,-,S,0,0,swapper/1
	event,110,1,1,,0,sys_enter,-,1,write,0x4,0x0,0x1
	event,115,1,1,,0,waking,-,5,5,1,srv
	event,125,1,1,,0,sys_enter,-,0,read,0x4,0x0,0x1
	event,130,1,1,,0,switch,-,S,0,0,swapper/0
	event,135,0,0,,1,switch,-,I,5,5,srv
	event,145,5,5,,1,sys_enter,-,202,futex,0x2000,0x80,0x0
	event,150,5,5,,1,switch,-,S,5,6,helper
	event,155,5,6,,1,sys_enter,-,202,futex,0x2000,0x81,0x1
	event,160,5,6,,1,waking,-,5,5,1,srv
	event,165,5,6,,1,switch,-,S,5,5,srv
	event,170,5,5,,1,sys_exit,-,202,futex,0
	event,175,5,5,,1,sys_enter,-,1,write,0x3,0x0,0x1
	event,180,5,5,,1,waking,-,1,1,0,client
	event,190,0,0,,0,switch,-,I,1,1,client
	event,200,1,1,,0,sys_enter,-,1,write,0x1,0x0,0x1
	EOF
	[ "$(graph s.csv)" = "message strong 2 3 
wakeup strong 4 5 
reply strong 3 5 
message strong 5 6 " ]
	# A write, then the thread exits: what its exit wakes is no message.
	stream >x.csv <<-'EOF'
	event,100,5,5,,1,sys_enter,-,61,wait4,0x7,0x0,0x0,0x0
	event,105,5,5,,1,switch,-,S,7,7,child
	event,110,7,7,,1,sys_enter,-,1,write,0x1,0x0,0x1
	event,120,7,7,,1,exit,-,child,1
	event,125,7,7,,1,waking,-,5,5,1,parent
	event,130,7,7,,1,switch,-,X,5,5,parent
	event,140,5,5,,1,sys_enter,-,1,write,0x1,0x0,0x1
	EOF
	[ "$(graph x.csv)" = "wakeup strong 2 3 " ]
}

@test "link: a mutex hand-off is weak, a condition's signal strong (pthread probes)" {
	stream >s.csv <<-'EOF'
	event,100,1,1,,0,sys_enter,-,202,futex,0x3000,0x80,0x2
	event,105,1,1,,0,switch,-,S,2,2,b
	event,110,2,2,,0,sys_enter,-,202,futex,0x3000,0x81,0x1
	event,115,2,2,,0,waking,-,1,1,0,a
	event,120,2,2,,0,sys_exit,-,202,futex,1
	event,125,2,2,,0,cond_signal,-,0xc0ffee
	event,130,2,2,,0,sys_enter,-,202,futex,0x4000,0x81,0x1
	event,135,2,2,,0,waking,-,3,3,1,c
	event,140,2,2,,0,cond_signal_end,-,0x0
	event,145,2,2,,0,switch,-,S,1,1,a
	event,150,1,1,,0,sys_exit,-,202,futex,0
	event,160,3,3,,1,sys_exit,-,202,futex,0
	EOF
	[ "$(graph s.csv)" = "lock weak 2 3 
cond strong 2 4 0xc0ffee" ]
	[ "$(graph s.csv --no-lock --no-cond)" = "wakeup strong 2 3 
wakeup strong 2 4 " ]
}

# A thread (1) sleeps on its own timer, then waits for one another thread
# armed, then for a block request it issued, then for a device.
timers() {
	stream <<-'EOF'
	event,100,1,1,,0,sys_enter,-,230,clock_nanosleep,0x1,0x0,0x7ff0,0x0
	event,101,1,1,,0,hrtimer_start,-,0xa1,0xf1,1000,1000,0x1
	event,105,1,1,,0,switch,-,S,0,0,swapper/0
	event,110,2,2,,1,sys_enter,-,0,read,0x5,0x0,0x1
	event,111,2,2,,1,hrtimer_start,-,0xa2,0xf2,1000,1000,0x1
	event,112,2,2,,1,switch,-,R,0,0,swapper/1
	event,200,0,0,,0,hrtimer_expire_entry,h,0xa1,0xf1,200
	event,201,0,0,,0,waking,h,1,1,0,a
	event,202,0,0,,0,hrtimer_expire_exit,h,0xa1
	event,210,0,0,,0,switch,-,I,1,1,a
	event,220,1,1,,0,sys_exit,-,230,clock_nanosleep,0
	event,225,1,1,,0,sys_enter,-,0,read,0x3,0x0,0x1
	event,230,1,1,,0,switch,-,S,0,0,swapper/0
	event,300,0,0,,0,hrtimer_expire_entry,h,0xa2,0xf2,300
	event,301,0,0,,0,waking,h,1,1,0,a
	event,302,0,0,,0,hrtimer_expire_exit,h,0xa2
	event,310,0,0,,0,switch,-,I,1,1,a
	event,320,1,1,,0,sys_exit,-,0,read,1
	event,325,1,1,,0,block_issue,-,8:0,1234,8,4096,W
	event,330,1,1,,0,switch,-,D,0,0,swapper/0
	event,400,0,0,,0,irq_entry,h,24,nvme0q1
	event,401,0,0,,0,block_complete,h,8:0,1234,8,0,W
	event,402,0,0,,0,waking,h,1,1,0,a
	event,403,0,0,,0,irq_exit,h,24,1
	event,410,0,0,,0,switch,-,I,1,1,a
	event,420,1,1,,0,sys_enter,-,0,read,0x3,0x0,0x1
	event,425,1,1,,0,switch,-,S,0,0,swapper/0
	event,500,0,0,,0,irq_entry,h,25,eth0
	event,501,0,0,,0,waking,h,1,1,0,a
	event,502,0,0,,0,irq_exit,h,25,1
	event,510,0,0,,0,switch,-,I,1,1,a
	event,520,1,1,,0,sys_exit,-,0,read,1
	EOF
}

@test "link: timers, a timeout, block I/O and interrupts, attributed" {
	timers >s.csv
	[ "$(graph s.csv)" = "timeout strong 1 3 0xf1
timer strong 2 4 0xf2
block strong 4 5 8:0
irq weak 0 6 eth0" ]
	# The timeout's link goes from the arming to the thread's own next
	# vertex, back in time: from the sleep, not from the idle CPU.
	[ "$(records link '$RULE == "timeout" { print $FROM_TIME, $FROM_TID }' g.csv)" = "101 1" ]
	[ "$(graph s.csv --no-timeout | head -1)" = "timer strong 1 3 0xf1" ]
	# Without the timer rule, what the expiry wakes is the interrupt's.
	[ "$(graph s.csv --no-timer | head -2)" = "irq weak 0 3 hardirq
irq weak 0 4 hardirq" ]
	# Without irq, what no rule attributes makes no link.
	[ "$(graph s.csv --no-block --no-irq)" = "timeout strong 1 3 0xf1
timer strong 2 4 0xf2" ]
}

@test "link: a kernel function by the name a ksym record gives; one none gives as written" {
	# 0xf1 named; 0xf2 not (a module loaded after the capture began); a
	# text trace's work function is a name already (argus-import).
	{ echo 'ksym,,,,0xf1,hrtimer_wakeup'; timers | sed 1d; } | stream >s.csv
	cat >>s.csv <<-'EOF'
	event,600,2,2,,1,wq_queue,-,0xb1,vmstat_update,events,0,0
	event,610,9,9,,1,wq_start,-,0xb1,vmstat_update
	EOF
	[ "$(graph s.csv | grep -v -e ^block -e ^irq)" = "timeout strong 1 3 hrtimer_wakeup
timer strong 2 4 0xf2
async strong 2 7 vmstat_update" ]
	# argus-cat -y shows the names in the events; the rest as they are.
	[ "$(argus-cat -y -k event s.csv | grep -c ',0xa1,hrtimer_wakeup,')" -eq 2 ]
	[ "$(argus-cat -y -k event s.csv | grep -c ',0xa2,0xf2,')" -eq 2 ]
	diff <(argus-cat -y s.csv | grep -v hrtimer_wakeup) <(grep -v ,0xf1, s.csv)
	# A ksym record without a 0x address or a name is bad input.
	for bad in 'ksym,,,,f1,x' 'ksym,,,,0xf1' 'ksym,,,,0x-1,x'; do
		printf '%s\n' "$bad" | stream >b.csv
		run argus-link -q b.csv
		echo "$output"
		[ "$status" -eq 65 ]
		[[ "$output" == *"b.csv:2: ksym"* ]]
	done
}

@test "link: softirqs, work items, run-loop sources, forks and data flags" {
	stream >s.csv <<-'EOF'
	event,100,1,1,,0,sys_enter,-,0,recvfrom,0x3,0x0,0x1
	event,105,1,1,,0,switch,-,S,2,2,b
	event,110,2,2,,0,sys_enter,-,44,sendto,0x4,0x0,0x1
	event,111,2,2,,0,softirq_entry,s,3,NET_RX
	event,112,2,2,,0,waking,s,1,1,0,a
	event,113,2,2,,0,softirq_exit,s,3,NET_RX
	event,114,2,2,,0,sys_exit,-,44,sendto,1
	event,115,2,2,,0,softirq_entry,s,1,TIMER
	event,116,2,2,,0,waking,s,3,3,0,c
	event,117,2,2,,0,softirq_exit,s,1,TIMER
	event,120,2,2,,0,wq_queue,-,0xb1,0xfa,0xc,0,0
	event,121,2,2,,0,wakeup_new,-,4,4,0,child
	event,122,2,2,,0,flag_write,-,0x601000,1,0x401000,ready
	event,125,2,2,,0,switch,-,S,1,1,a
	event,130,1,1,,0,sys_exit,-,0,recvfrom,1
	event,131,1,1,,0,runloop_submit,-,0x55,0x0
	event,132,1,1,,0,flag_read,-,0x601000,1,0x401100,ready
	event,133,1,1,,0,runloop_begin,-,0x55
	event,134,1,1,,0,runloop_end,-,0x0
	event,140,3,3,,1,sys_exit,-,0,read,1
	event,150,4,4,,1,sys_exit,-,56,clone,0
	event,160,7,7,,1,wq_start,-,0xb1,0xfa
	event,161,7,7,,1,wq_end,-,0xb1,0xfa
	EOF
	# Loopback's receive softirq runs for the sender: strong; a timer
	# softirq cannot be pinned on the thread it interrupted: weak.
	[ "$(graph s.csv)" = "softirq strong 2 3 NET_RX
flag strong 2 3 ready
runloop strong 3 4 0x55
softirq weak 2 5 TIMER
fork strong 2 6 
async strong 2 7 0xfa" ]
	[ "$(graph s.csv --no-softirq | head -1)" = "irq weak 2 3 softirq" ]
	[ "$(graph s.csv --no-async --no-runloop --no-fork --no-flag --no-softirq --no-irq)" = "" ]
}

@test "link: a loopback connect wakes the listener from the connector's softirq: strong" {
	# Server 1 idle in epoll_wait on its listener; client 2's connect
	# completes the handshake in its own NET_RX softirq, which wakes it.
	stream >c.csv <<-'EOF'
	event,100,1,1,,0,sys_enter,-,232,epoll_wait,0x5,0x0,0x1,0xffffffff
	event,105,1,1,,0,switch,-,S,2,2,client
	event,110,2,2,,0,sys_enter,-,42,connect,0x3,0x0,0x10
	event,111,2,2,,0,softirq_entry,s,3,NET_RX
	event,112,2,2,,0,waking,s,1,1,0,server
	event,113,2,2,,0,softirq_exit,s,3,NET_RX
	event,114,2,2,,0,sys_exit,-,42,connect,0
	event,125,2,2,,0,switch,-,S,1,1,server
	event,130,1,1,,0,sys_exit,-,232,epoll_wait,1
	EOF
	[ "$(graph c.csv)" = "softirq strong 2 3 NET_RX" ]
	# Outside a send or a connect (here an open), it stays weak.
	sed 's/,42,connect,/,2,open,/' c.csv >o.csv
	[ "$(graph o.csv)" = "softirq weak 2 3 NET_RX" ]
}

@test "link: a connect a full listen queue held up, from the listener's owner, weak" {
	# Server 1 listens on 127.0.0.1:8080; a connection's socket copied
	# from the listener (LISTEN to SYN_RECV) is no end of it.  Client 2's
	# connect waits (its SYN dropped); its handshake ends 3 s later in a
	# NET_RX softirq that interrupted thread 3, whose wake-up is the
	# listener's owner's: the connect went to its address.
	stream >l.csv <<-'EOF'
	event,100,1,1,,0,sock_state,-,0xa1,CLOSE,LISTEN,tcp,127.0.0.1:8080,0.0.0.0:0
	event,110,1,1,,0,sock_state,s,0xa2,LISTEN,SYN_RECV,tcp,127.0.0.1:8080,127.0.0.1:50000
	event,120,1,1,,0,sys_enter,-,230,clock_nanosleep,0x0,0x0,0x7ffc
	event,125,1,1,,0,switch,-,S,2,2,client
	event,200,2,2,,0,sys_enter,-,42,connect,0x3,0x0,0x10
	event,201,2,2,,0,sock_state,-,0xb1,CLOSE,SYN_SENT,tcp,127.0.0.1:0,127.0.0.1:8080
	event,205,2,2,,0,switch,-,S,3,3,other
	event,3000000000,3,3,,0,sys_enter,-,0,read,0x3,0x0,0x1
	event,3000000010,3,3,,0,softirq_entry,s,3,NET_RX
	event,3000000020,3,3,,0,sock_state,s,0xb1,SYN_SENT,ESTABLISHED,tcp,127.0.0.1:50002,127.0.0.1:8080
	event,3000000030,3,3,,0,waking,s,2,2,0,client,120
	event,3000000040,3,3,,0,softirq_exit,s,3,NET_RX
	event,3000000050,3,3,,0,switch,-,S,2,2,client
	event,3000000060,2,2,,0,sys_exit,-,42,connect,0
	EOF
	[ "$(graph l.csv)" = "listen weak 1 4 127.0.0.1:8080" ]
	# Listening on every address, the same.
	sed 's/,127.0.0.1:8080,0.0.0.0:0$/,0.0.0.0:8080,0.0.0.0:0/' l.csv >a.csv
	[ "$(graph a.csv)" = "listen weak 1 4 127.0.0.1:8080" ]
	# A listener on another port, or closed, is no one's: the softirq's.
	sed 's/,127.0.0.1:8080,0.0.0.0:0$/,127.0.0.1:8081,0.0.0.0:0/' l.csv >p.csv
	[ "$(graph p.csv)" = "softirq weak 3 4 NET_RX" ]
	sed 's/^event,110,1,1,,0,sock_state,s,0xa2,LISTEN,SYN_RECV,.*/event,110,1,1,,0,sock_state,-,0xa1,LISTEN,CLOSE,tcp,127.0.0.1:8080,0.0.0.0:0/' l.csv >c.csv
	[ "$(graph c.csv)" = "softirq weak 3 4 NET_RX" ]
	[ "$(graph l.csv --no-listen)" = "softirq weak 3 4 NET_RX" ]
}

@test "link: a connect refused until a listen, from the listen; while none, weakly from the last gone" {
	# Thread 1 listened on 127.0.0.1:8080 and closed it.  Client 2's
	# connects to it are refused (SYN_SENT to CLOSE) between naps; the
	# first of the run is linked weakly from 1's listen, the second not
	# again.  Thread 3 listens on the port on every address; 2's next
	# try is linked from it, strong: what ended the loop.
	stream >r.csv <<-'EOF'
	event,50,1,1,,0,sock_state,-,0xa1,CLOSE,LISTEN,tcp,127.0.0.1:8080,0.0.0.0:0
	event,60,1,1,,0,sock_state,-,0xa1,LISTEN,CLOSE,tcp,127.0.0.1:8080,0.0.0.0:0
	event,70,1,1,,0,exit,-,1,0
	event,100,2,2,,0,sys_enter,-,42,connect,0x3,0x0,0x10
	event,101,2,2,,0,sock_state,-,0xb1,CLOSE,SYN_SENT,tcp,127.0.0.1:0,127.0.0.1:8080
	event,102,2,2,,0,sock_state,-,0xb1,SYN_SENT,CLOSE,tcp,127.0.0.1:50001,127.0.0.1:8080
	event,103,2,2,,0,sys_exit,-,42,connect,-111
	event,104,2,2,,0,sys_enter,-,230,clock_nanosleep,0x0,0x0,0x7ffc
	event,105,2,2,,0,switch,-,S,0,0,swapper
	event,200,2,2,,0,sys_exit,-,230,clock_nanosleep,0
	event,201,2,2,,0,sys_enter,-,42,connect,0x4,0x0,0x10
	event,202,2,2,,0,sock_state,-,0xb2,CLOSE,SYN_SENT,tcp,127.0.0.1:0,127.0.0.1:8080
	event,203,2,2,,0,sock_state,-,0xb2,SYN_SENT,CLOSE,tcp,127.0.0.1:50002,127.0.0.1:8080
	event,204,2,2,,0,sys_exit,-,42,connect,-111
	event,205,2,2,,0,sys_enter,-,230,clock_nanosleep,0x0,0x0,0x7ffc
	event,206,2,2,,0,switch,-,S,0,0,swapper
	event,300,3,3,,0,sock_state,-,0xc1,CLOSE,LISTEN,tcp,0.0.0.0:8080,0.0.0.0:0
	event,400,2,2,,0,sys_exit,-,230,clock_nanosleep,0
	event,401,2,2,,0,sys_enter,-,42,connect,0x5,0x0,0x10
	event,402,2,2,,0,sock_state,-,0xb3,CLOSE,SYN_SENT,tcp,127.0.0.1:0,127.0.0.1:8080
	event,403,2,2,,0,sock_state,s,0xb3,SYN_SENT,ESTABLISHED,tcp,127.0.0.1:50003,127.0.0.1:8080
	event,404,2,2,,0,sys_exit,-,42,connect,0
	EOF
	[ "$(graph r.csv)" = "refused weak 1 2 127.0.0.1:8080
refused strong 4 5 0.0.0.0:8080" ]
	# A listen on another port ends nothing; nor one before the refusals.
	sed 's/,0xc1,CLOSE,LISTEN,tcp,0.0.0.0:8080,/,0xc1,CLOSE,LISTEN,tcp,0.0.0.0:8081,/' r.csv >p.csv
	[ "$(graph p.csv)" = "refused weak 1 2 127.0.0.1:8080" ]
	sed '/,0xa1,LISTEN,CLOSE,/d' r.csv >b.csv
	[ "$(graph b.csv)" = "" ]
	[ "$(graph r.csv --no-refused)" = "" ]
}

@test "link: a signal's wake-up is strong, from the sender, labelled with the signal" {
	# The kernel traces a signal just after the wake-up it makes.
	stream >s.csv <<-'EOF'
	event,100,8,8,,0,sys_enter,-,34,pause
	event,105,8,8,,0,switch,-,S,7,7,parent
	event,110,7,7,,0,sys_enter,-,62,kill,0x8,0xa
	event,111,7,7,,0,waking,-,8,8,0,child
	event,112,7,7,,0,signal_generate,-,10,8,8,child,0,1,0
	event,113,7,7,,0,sys_exit,-,62,kill,0
	event,114,7,7,,0,sys_enter,-,202,futex,0x1000,0x81,0x1
	event,115,7,7,,0,waking,-,9,9,0,other
	event,116,7,7,,0,sys_exit,-,202,futex,1
	event,117,7,7,,0,sys_enter,-,62,kill,0x9,0x11
	event,118,7,7,,0,signal_generate,-,17,9,9,other,0,1,1
	event,119,7,7,,0,switch,-,S,8,8,child
	event,120,8,8,,0,sys_exit,-,34,pause,-4
	event,130,9,9,,1,sys_exit,-,202,futex,0
	EOF
	# The second signal was ignored (RESULT 1) and woke nobody: the
	# futex's wake-up before it stays what it was.
	[ "$(graph s.csv)" = "signal strong 2 3 SIGUSR1
wakeup strong 2 4 " ]
	[ "$(graph s.csv --no-signal)" = "wakeup strong 2 3 
wakeup strong 2 4 " ]
	# SIGKILL to a process wakes each of its threads, then is traced
	# once: each wake-up is the signal's.
	stream >k.csv <<-'EOF'
	event,100,8,8,,0,sys_enter,-,202,futex,0x1000,0x80,0x2
	event,105,8,8,,0,switch,-,S,7,7,parent
	event,106,8,9,,1,sys_enter,-,202,futex,0x2000,0x80,0x2
	event,107,8,9,,1,switch,-,S,0,0,swapper/1
	event,110,7,7,,0,sys_enter,-,62,kill,0x8,0x9
	event,111,7,7,,0,waking,-,8,8,0,child
	event,112,7,7,,0,waking,-,8,9,1,child
	event,113,7,7,,0,signal_generate,-,9,8,8,child,0,1,0
	event,114,7,7,,0,sys_exit,-,62,kill,0
	event,115,7,7,,0,switch,-,S,8,8,child
	event,120,8,8,,0,exit,-,child,0
	event,121,8,9,,1,exit,-,child,0
	EOF
	[ "$(graph k.csv | sort)" = "signal strong 3 4 SIGKILL
signal strong 3 5 SIGKILL" ]
}

@test "link: a stop signal that finds its target awake is a weak stop link into the vertex it ends" {
	# Thread 8 runs when 7 stops it: no wake-up, and the signal taken
	# with its default action ends its vertex stopped.  The SIGTSTP
	# before, taken by a handler, stops nothing: no link.
	stream >r.csv <<-'EOF'
	event,100,8,8,,1,sys_enter,-,0,read,0x3,0x0,0x1
	event,105,8,8,,1,sys_exit,-,0,read,1
	event,106,7,7,,0,sys_enter,-,62,kill,0x8,0x14
	event,107,7,7,,0,signal_generate,-,20,8,8,child,0,1,0
	event,108,7,7,,0,sys_exit,-,62,kill,0
	event,109,8,8,,1,signal_deliver,-,20,0,0x55aa00,0x4000000
	event,110,7,7,,0,sys_enter,-,62,kill,0x8,0x13
	event,112,7,7,,0,signal_generate,-,19,8,8,child,0,1,0
	event,113,7,7,,0,sys_exit,-,62,kill,0
	event,114,7,7,,0,sys_enter,-,34,pause
	event,116,7,7,,0,switch,-,S,0,0,swapper
	event,120,8,8,,1,signal_deliver,-,19,0,0x0,0x0
	event,121,8,8,,1,switch,-,T,0,0,swapper
	EOF
	[ "$(graph r.csv)" = "stop weak 2 1 SIGSTOP" ]
	records link '$RULE == "stop" { print $TIME, $TID, $FROM_TIME, $FROM_TID }' g.csv >links
	[ "$(cat links)" = "120 8 112 7" ]
	[ "$(graph r.csv --no-stop)" = "" ]
	# Thread 8 woken by 9, stopped by 7 before it ran: 9's wake-up
	# begins its vertex, 7's stop ends it.  Thread 6 asleep: the stop
	# woke it, the signal rule's, and no stop link besides.
	stream >w.csv <<-'EOF'
	event,90,6,6,,1,sys_enter,-,34,pause
	event,91,6,6,,1,switch,-,S,0,0,swapper
	event,100,8,8,,1,sys_enter,-,202,futex,0x1000,0x80,0x0
	event,101,8,8,,1,switch,-,S,0,0,swapper
	event,110,9,9,,0,sys_enter,-,202,futex,0x1000,0x81,0x1
	event,111,9,9,,0,waking,-,8,8,0,child
	event,112,9,9,,0,sys_exit,-,202,futex,1
	event,113,9,9,,0,sys_enter,-,34,pause
	event,114,9,9,,0,switch,-,S,7,7,parent
	event,120,7,7,,0,sys_enter,-,62,kill,0x8,0x13
	event,121,7,7,,0,signal_generate,-,19,8,8,child,0,1,0
	event,122,7,7,,0,sys_exit,-,62,kill,0
	event,123,7,7,,0,sys_enter,-,62,kill,0x6,0x13
	event,124,7,7,,0,waking,-,6,6,0,sleeper
	event,125,7,7,,0,signal_generate,-,19,6,6,sleeper,0,1,0
	event,126,7,7,,0,sys_exit,-,62,kill,0
	event,127,7,7,,0,switch,-,S,0,0,swapper
	event,130,8,8,,1,sys_exit,-,202,futex,0
	event,131,8,8,,1,signal_deliver,-,19,0,0x0,0x0
	event,132,8,8,,1,switch,-,T,6,6,sleeper
	event,140,6,6,,1,sys_exit,-,34,pause,-4
	event,141,6,6,,1,signal_deliver,-,19,0,0x0,0x0
	event,142,6,6,,1,switch,-,T,0,0,swapper
	EOF
	[ "$(graph w.csv)" = "wakeup strong 3 5 
stop weak 4 5 SIGSTOP
signal strong 4 6 SIGSTOP" ]
	# Without the signal rule, the stop that woke thread 6 is a plain
	# wake-up, and the stop rule says what it was.
	[ "$(graph w.csv --no-signal)" = "wakeup strong 3 5 
stop weak 4 5 SIGSTOP
wakeup strong 4 6 
stop weak 4 6 SIGSTOP" ]
}

@test "link: a rule the table does not know is no option, and --rules lists the table" {
	run argus-link --no-nonesuch
	[ "$status" -eq 64 ]
	run argus-link --rules
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "RULE "*" LABEL "* ]]
	printf '%s\n' "${lines[@]}" | grep -Eq '^lock +weak +ends +the mutex'
	printf '%s\n' "${lines[@]}" | grep -Eq '^order +weak +- '
}

@test "link: waitsfor: a blocked reader, from the process that holds the pipe's other end" {
	# 1 reads pipe:77 and is still blocked when the capture is cut; 2 and
	# 3 hold its write end: either may end it, so the links are weak.
	# 4 holds only the read end too: ends nothing.
	stream >s.csv <<-'EOF'
	event,100,2,2,,0,sys_enter,-,1,write,0x5,0x0,0x1
	event,105,2,2,,0,sys_exit,-,1,write,1
	event,110,1,1,,1,sys_enter,-,0,read,0x3,0x0,0x1
	event,120,1,1,,1,switch,-,S,0,0,swapper/1
	event,130,3,3,,0,sys_enter,-,0,nanosleep,0x1000,0x0
	event,140,4,4,,0,sys_enter,-,0,nanosleep,0x1000,0x0
	wait,200,1,1,S,read,3,pipe,pipe:77,in,,,110,,anon_pipe_read,cat,0x3,0x0,0x1
	holder,200,2,0,pipe:77,writer,5,,,producer
	holder,200,3,0,pipe:77,writer,4,,,other
	holder,200,4,0,pipe:77,reader,3,,,bystander
	EOF
	[ "$(graph s.csv)" = "waitsfor weak 1 2 writer pipe:77
waitsfor weak 3 2 writer pipe:77" ]
	# One holder: the kernel names it, strong; the thread that wrote.
	grep -v ',other$' s.csv >one.csv
	[ "$(graph one.csv)" = "waitsfor strong 1 2 writer pipe:77" ]
	[ -z "$(graph one.csv --no-waitsfor)" ]
	# Argus itself, holding the pipe, is never the cause.
	sed 's/,producer$/,argus-capture/' one.csv >obs.csv
	[ -z "$(graph obs.csv)" ]
}

@test "link: waitsfor: a pipe between two threads of a process, from its one thread that waits for input" {
	# git fetch: main thread 1/1 reads pipe:77, whose write end only its
	# own process holds (it wrote the pipe itself once: no word on who
	# will); its thread 1/5 reads the server's socket, whose data it will
	# write into the pipe; 1/6 waits on a futex of its own, 1/7 on an
	# eventfd only its process holds (a mailbox): neither passes input on.
	stream >s.csv <<-'EOF'
	event,99,1,1,,0,sys_enter,-,1,write,0x6,0x0,0x1
	event,100,1,1,,0,fork,-,1,5,0x3d0f00,git
	event,101,1,1,,0,sys_enter,-,0,read,0x4,0x0,0xc
	event,102,1,1,,0,switch,-,S,1,5,git
	event,110,1,5,,0,sys_enter,-,0,read,0x3,0x0,0x4
	event,111,1,5,,0,switch,-,S,0,0,swapper/0
	event,115,1,6,,1,sys_enter,-,202,futex,0x1000,0x80,0x0
	event,116,1,6,,1,switch,-,S,0,0,swapper/1
	event,120,2,2,,1,sys_enter,-,7,poll,0x1000,0x2,0x1388
	event,121,2,2,,1,switch,-,S,0,0,swapper/1
	wait,200,1,1,S,read,4,pipe,pipe:77,in,,,101,,anon_pipe_read,git
	wait,200,1,5,S,read,3,tcp,socket:88,in,,,110,,wait_woken,git
	wait,200,1,6,S,futex,,futex,futex:1:0x1000,futex,,,115,,futex_wait_queue,git
	wait,200,1,7,S,epoll_wait,5,eventfd,eventfd:9,in,,,115,,do_epoll_wait,git
	holder,200,1,0,eventfd:9,holder,5,,,git
	holder,200,1,0,pipe:77,reader,4,,,git
	holder,200,1,0,pipe:77,writer,6,,,git
	holder,200,2,0,socket:88,peer,0,socket:89,tcp,upload-pack
	EOF
	[ "$(graph s.csv)" = "waitsfor strong 2 1 writer pipe:77
waitsfor weak 4 2 peer socket:88" ]
	# Two of its threads wait for input: either may write it, and the
	# kernel names only the process.
	sed '/^wait,200,1,5,/p; s/^wait,200,1,5,\(.*\)socket:88/wait,200,1,8,\1socket:90/' s.csv >two.csv
	echo 'holder,200,2,0,socket:90,peer,1,socket:91,tcp,upload-pack' >>two.csv
	[ "$(graph two.csv)" = "waitsfor weak 4 2 peer socket:88" ]
	# Another process holds the write end too: that one may write it.
	sed '/^holder,200,1,0,pipe:77,writer/a holder,200,3,0,pipe:77,writer,9,,,tee' s.csv >shared.csv
	[[ "$(graph shared.csv)" != *"strong 2 1 writer"* ]]
}

@test "link: waitsfor: a thread the kernel names (a joined thread, a mutex's owner) is the one party" {
	# Main thread 1/1 joins its worker 1/5, asleep; its thread 1/6 waits
	# for a mutex 1/7 owns.  Each holder is one thread of the waiter's
	# own process, named by the kernel or glibc, and waits on nothing the
	# waiter does: strong.
	stream >s.csv <<-'EOF'
	event,100,1,1,,0,sys_enter,-,202,futex,0x7f00,0x109,0x5
	event,101,1,1,,0,switch,-,S,1,5,prog
	event,110,1,5,,0,sys_enter,-,35,clock_nanosleep,0x0,0x0,0x7e00
	event,111,1,5,,0,switch,-,S,1,6,prog
	event,115,1,6,,0,sys_enter,-,202,futex,0x1000,0x80,0x2
	event,116,1,6,,0,switch,-,S,1,7,prog
	event,120,1,7,,0,sys_enter,-,0,read,0x3,0x0,0x4
	event,121,1,7,,0,switch,-,S,0,0,swapper/0
	wait,200,1,1,S,futex,,futex,futex:1:0x7f00,futex,,,100,,futex_do_wait,prog
	wait,200,1,5,S,clock_nanosleep,,,,sleep,5000000000,,110,,hrtimer_nanosleep,prog
	wait,200,1,6,S,futex,,futex,futex:1:0x1000,futex,,,115,,futex_do_wait,prog
	wait,200,1,7,S,read,3,pipe,pipe:77,in,,,120,,anon_pipe_read,prog
	holder,200,1,5,futex:1:0x7f00,thread,,,,prog
	holder,200,1,7,futex:1:0x1000,owner,,mutex,,prog
	EOF
	[ "$(graph s.csv)" = "waitsfor strong 2 1 thread futex:1:0x7f00
waitsfor strong 4 3 owner futex:1:0x1000" ]
	# A named thread that waits on the same futex itself is no party.
	sed 's/^holder,200,1,5,futex:1:0x7f00,thread/holder,200,1,6,futex:1:0x1000,thread/' s.csv >self.csv
	[ "$(graph self.csv)" = "waitsfor strong 4 3 owner futex:1:0x1000" ]
	# An owner the trace saw in another process (a parent's thread whose
	# lock a forked child's copy names) is not this process's.
	sed 's/,1,7,,0,/,9,7,,0,/' s.csv >other.csv
	[ "$(graph other.csv)" = "waitsfor strong 2 1 thread futex:1:0x7f00" ]
}

@test "link: waitsfor: a child waited for is the one party, by its main thread; one of several is not" {
	# bash 1 waits for its one child, timeout 2, in rt_sigsuspend: no
	# thread of the child was seen to use anything, and none needs to.
	stream >s.csv <<-'EOF'
	event,100,1,1,,0,fork,-,2,2,0x1200000,bash
	event,101,1,1,,0,sys_enter,-,61,wait4,0xffffffff,0x0,0x0
	event,102,1,1,,0,switch,-,S,2,2,timeout
	event,110,2,2,,0,sys_enter,-,130,rt_sigsuspend,0x7ffc0,0x8
	event,111,2,2,,0,switch,-,S,0,0,swapper/0
	wait,200,1,1,S,wait4,,child,children:1,child,,,101,,do_wait,bash
	wait,200,2,2,S,rt_sigsuspend,,,,signal,,,110,,sigsuspend,timeout
	holder,200,2,,children:1,child,,,S,timeout
	EOF
	[ "$(graph s.csv | grep waitsfor)" = "waitsfor strong 2 1 child children:1" ]
	# Two children: either may end the wait.
	sed 's/^event,111,2,2,.*/&\
event,112,3,3,,1,switch,-,S,0,0,swapper\/1/; /^holder,200,2,/p; s/^holder,200,2,,/holder,200,3,,/' s.csv >two.csv
	[ "$(graph two.csv | grep -c 'waitsfor weak')" = 2 ]
}

@test "link: waitsfor: a semaphore's last operator is the one party, by its main thread, gone or not" {
	# perl 1 waits in semtimedop; perl 2, its child, took the semaphore
	# last and exited.
	stream >s.csv <<-'EOF'
	event,100,1,1,,0,fork,-,2,2,0x1200000,perl
	event,110,2,2,,1,sys_enter,-,64,semtimedop,0x34,0x7f00,0x1,0x0
	event,111,2,2,,1,exit,-,perl,0
	event,120,1,1,,0,sys_enter,-,64,semtimedop,0x34,0x7f00,0x1,0x0
	event,121,1,1,,0,switch,-,S,0,0,swapper/0
	wait,200,1,1,S,semtimedop,,sem,sem:52:0,lock,,,120,,__do_semtimedop,perl
	holder,200,2,,sem:52:0,last-op,,,exited,perl
	EOF
	[ "$(graph s.csv | grep waitsfor)" = "waitsfor strong 2 1 last-op sem:52:0" ]
}

@test "link: filelock: a lock request that sleeps, from where its holder took the lock" {
	stream >s.csv <<-'EOF'
	event,100,2,2,,0,sys_enter,-,73,flock,0x3,0x2
	event,105,2,2,,0,flock_lock,-,254:0,99,write,FLOCK|SLEEP,0,9223372036854775807,2,0xa,0x0,0,0x1
	event,110,2,2,,0,sys_exit,-,73,flock,0
	event,120,2,2,,0,sys_enter,-,35,nanosleep,0x1000,0x0
	event,125,2,2,,0,switch,-,S,0,0,swapper/0
	event,200,1,1,,1,sys_enter,-,73,flock,0x3,0x2
	event,205,1,1,,1,flock_lock,-,254:0,99,write,FLOCK|SLEEP,0,9223372036854775807,1,0xb,0xa,1,0x2
	event,210,1,1,,1,switch,-,S,0,0,swapper/1
	event,300,1,1,,1,sys_enter,-,73,flock,0x3,0x2
	event,305,1,1,,1,flock_lock,-,254:0,98,read,FLOCK|SLEEP,0,9223372036854775807,1,0xc,0x0,0,0x2
	EOF
	[ "$(graph s.csv)" = "filelock strong 1 2 254:0:99" ]
	[ -z "$(graph s.csv --no-filelock)" ]
	# Once unlocked, a request for it owes the old holder nothing.
	sed '/^event,120/i event,115,2,2,,0,flock_lock,-,254:0,99,unlock,FLOCK,0,9223372036854775807,2,0xa,0x0,0,0x1' s.csv >u.csv
	[ -z "$(graph u.csv)" ]
}
