#!/usr/bin/env bats
# argus-slice on small graphs written by hand: where it asks, how it takes
# answers (terminal, file, rule), and what it does with bad ones.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	# Vertex 3 (gamma) has two strong causes: alpha's message (older) and
	# beta's (newer).  Beta was woken by alpha, strongly.
	stream >g.csv <<-'EOF'
	vertex,100,10,10,1,0,100,50,2,start,wait,S,alpha
	link,105,20,20,1,2,strong,wakeup,95,10,10,
	vertex,110,20,20,2,105,110,4,2,wakeup,wait,S,beta
	link,200,30,30,1,3,strong,message,90,10,10,
	link,200,30,30,2,3,strong,message,108,20,20,
	vertex,300,30,30,3,200,300,90,2,wakeup,open,,gamma
	EOF
}

@test "slice: one strong link is followed without a question" {
	run argus-slice -Z --from 2 --answers /dev/null g.csv
	[ "$status" -eq 0 ]
	[[ "$output" == *"Queries asked: 0."* ]]
	[ "$(printf '%s\n' "$output" | grep -c '^step,')" -eq 2 ]
	printf '%s\n' "$output" | grep -q '^step,300,20,20,1,1,2,1,wakeup,strong,strong$'
}

@test "slice: two strong links: the answer file chooses, then the walk goes on" {
	echo 2 >answers
	run argus-slice -Z --from 3 --answers answers g.csv
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | grep -q '^step,300,30,30,1,1,3,1,message,strong,answer$'
	printf '%s\n' "$output" | grep -q '^step,300,10,10,1,2,1,0,,,end$'
	[[ "$output" == *"Queries asked: 1."* ]]
}

@test "slice: an answer may name the cause instead of its number" {
	echo comm=alpha >answers
	run argus-slice -Z --from 3 --answers answers g.csv
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | grep -q '^step,300,30,30,1,1,3,1,message,strong,answer$'
	echo pid=20 >answers
	run argus-slice -Z --from 3 --answers answers g.csv
	printf '%s\n' "$output" | grep -q '^step,300,30,30,1,1,3,2,message,strong,answer$'
	echo rest=auto >answers
	run argus-slice -Z --from 3 --answers answers g.csv
	printf '%s\n' "$output" | grep -q '^step,300,30,30,1,1,3,2,message,strong,auto$'
}

@test "slice: stop ends the walk where the user says" {
	printf '# a note\nstop\n' >answers
	run argus-slice -Z --from 3 --answers answers g.csv
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | grep -q '^step,300,30,30,1,1,3,0,,,stop$'
}

@test "slice: --auto takes the most recent cause" {
	run argus-slice -Z --from 3 --auto g.csv
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | grep -q '^step,300,30,30,1,1,3,2,message,strong,auto$'
}

@test "slice: an answer out of range names the file and line, exit 65" {
	printf '\n7\n' >answers
	run argus-slice -Z --from 3 --answers answers g.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"answers:2: '7' is not 1 to 2, 'stop', 'auto' or a selector"* ]]
}

@test "slice: an answer file that runs out says so, exit 65" {
	: >answers
	run argus-slice -Z --from 3 --answers answers g.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"answers: no answer left for the question at vertex 3"* ]]
}

@test "slice: on a terminal it asks, re-asks after a bad answer, and follows" {
	command -v script >/dev/null || skip "script(1) not installed"
	printf '9\n1\n' >typed
	run sh -c "script -qec 'argus-slice -Z --from 3 g.csv >out' /dev/null <typed"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Which of these caused gamma 30/30 vertex 3"* ]]
	[[ "$output" == *"[1] strong message: beta 20/20 vertex 2"* ]]
	[[ "$output" == *"'9' is not a choice."* ]]
	grep -q '^step,300,30,30,1,1,3,2,message,strong,user$' out
}

@test "slice: end of input on the terminal stops, without a crash" {
	command -v script >/dev/null || skip "script(1) not installed"
	run sh -c "script -qec 'argus-slice -Z --from 3 g.csv >out' /dev/null </dev/null"
	[ "$status" -eq 0 ]
	grep -q '^step,300,30,30,1,1,3,0,,,stop$' out
}

@test "slice: nothing to diagnose without spin records, exit 1" {
	run argus-slice -Z --auto g.csv
	[ "$status" -eq 1 ]
	[[ "$output" == *"nothing to diagnose: no spin records"* ]]
}

@test "slice: a link to a vertex never introduced is bad input" {
	stream >bad.csv <<-'EOF'
	vertex,100,10,10,1,0,100,50,2,start,wait,S,alpha
	link,200,30,30,1,9,strong,message,90,10,10,
	EOF
	run argus-slice -Z --auto --from 1 bad.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"bad.csv:3: link 1 -> 9 refers to a vertex the stream never introduced"* ]]
}

@test "slice: --dot and --json export the path" {
	run argus-slice -q -Z --from 3 --auto --dot g.dot --json g.json g.csv
	[ "$status" -eq 0 ]
	grep -q '^digraph argus' g.dot
	# Made 0600 whatever the umask, as every file Argus writes.
	[ "$(stat -c %a g.dot) $(stat -c %a g.json)" = "600 600" ]
	grep -q 'v2 -> v3 \[label="message"\]' g.dot
	grep -q '"traceEvents"' g.json
	grep -q '"ph":"s"' g.json
	grep -q '"ph":"f"' g.json
}

@test "slice: --dot and --json hold every hang diagnosed, not the last one" {
	cp g.csv two.csv
	cat >>two.csv <<-'EOF'
	spin,300,30,30,3,LongRunning,200,300,90,0,open,0,3,gamma
	spin,300,20,20,2,LongRunning,105,110,4,0,wait,0,2,beta
	EOF
	run argus-slice -q -Z --auto --dot two.dot --json two.json two.csv
	[ "$status" -eq 0 ]
	[ "$(grep -c '^root,.*,victim,\|^root,.*,root,0,' <<<"$output")" -eq 2 ]
	grep -q 'the hang of gamma 30/30, vertex 3' two.dot
	grep -q 'the hang of beta 20/20, vertex 2' two.dot
	[ "$(grep -c '^digraph' two.dot)" -eq 1 ]
	grep -q '"name":"vertex 3"' two.json
	grep -q '"name":"vertex 2"' two.json
	[ "$(grep -c traceEvents two.json)" -eq 1 ]
}

@test "slice: a spin of a class no table holds is bad input, not a silent root" {
	cp g.csv odd.csv
	echo 'spin,300,30,30,3,LongSulk,200,300,90,0,open,0,3,gamma' >>odd.csv
	run argus-slice -q -Z --auto odd.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"odd.csv:8: spin record: unknown class 'LongSulk'"* ]]
}

# A wait chain as a capture cut during the hang has it: events, then the
# wait-for snapshot.  editor reads a pipe that saver writes; saver reads
# one that backupd writes; backupd sleeps.  Argus' own capture holds the
# first pipe too, and a kernel worker woke editor once.
chain() {
	stream <<-'EOF'
	task,900000000,30,30,backupd
	task,900000000,20,20,saver
	task,900000000,10,10,editor
	task,900000000,40,40,kworker/0:1
	event,1000000000,30,30,,0,sys_enter,-,230,clock_nanosleep,0x1,0x0,0x7ffc
	event,1000000100,30,30,,0,switch,-,S,20,20,saver
	event,1100000000,20,20,,0,sys_enter,-,0,read,0x4,0x0,0x1
	event,1100000100,20,20,,0,switch,-,S,10,10,editor
	event,1200000000,10,10,,0,sys_enter,-,0,read,0x3,0x0,0x1
	event,1200000100,10,10,,0,switch,-,S,40,40,kworker/0:1
	event,1300000000,40,40,,0,waking,-,10,10,0,editor
	event,1300000100,40,40,,0,switch,-,I,0,0,swapper/0
	wait,5000000000,10,10,S,read,3,pipe,pipe:1,in,,,1200000000,,anon_pipe_read,editor,0x3,0x0,0x1
	wait,5000000000,20,20,S,read,4,pipe,pipe:2,in,,,1100000000,,anon_pipe_read,saver,0x4,0x0,0x1
	wait,5000000000,30,30,S,clock_nanosleep,,,,sleep,3000000000,6000000000,1000000000,,hrtimer_nanosleep,backupd,0x1,0x0,0x7ffc
	holder,5000000000,20,0,pipe:1,writer,5,,,saver
	holder,5000000000,50,0,pipe:1,writer,7,,,argus-capture
	holder,5000000000,30,0,pipe:2,writer,6,,,backupd
	EOF
}

diagnose_chain() {
	argus-segment -q c.csv | argus-link -q "$@" |
	    argus-spin -q --tid 10 -T 1s | argus-similar -q |
	    argus-slice --auto -Z >d.csv 2>report
}

@test "slice: a hang in progress, the kernel's wait-for facts followed to a sleeper" {
	chain >c.csv
	diagnose_chain
	# The answer first: the root, then the chain that leads to it.
	[ "$(sed -n 2p report)" = "Root cause: backupd 30: sleeping in clock_nanosleep for 4.0 s so far: its own timer ends it; the kernel says it holds what saver 20 waits on: writer pipe:2 (waitsfor)" ]
	[ "$(sed -n 3p report)" = "Wait chain: editor 10 → saver 20 → backupd 30" ]
	# The same as records; neither Argus nor the kernel worker is named.
	# (KIND is also the name of a record's first column: by number.)
	[ "$(awk -F, '$1 == "root" { print $6, $4, $7 }' d.csv)" = "victim 10 0
culprit 20 1
root 30 2" ]
	# Without the snapshot's links there is nothing to go on but the
	# kernel worker's weak wake-up: no guess is made about it.
	run diagnose_chain --no-waitsfor
	[ "$status" -eq 1 ]
	[ "$(awk -F, '$1 == "root" { print $6, $4 }' d.csv)" = "root 10" ]
	grep -q '^Nothing found beyond the hung thread' report
}

@test "slice: a server idle in its loop is no hang, and the exit says so" {
	stream >idle.csv <<-'EOF'
	task,900000000,10,10,httpd
	event,1000000000,10,10,,0,sys_enter,-,232,epoll_wait,0x4,0x7ffc,0x40,0xffffffff
	event,1000000100,10,10,,0,switch,-,S,0,0,swapper/0
	event,5000000000,20,20,,1,sys_enter,-,0,read,0x3,0x0,0x1
	EOF
	run bash -c 'argus-segment -q idle.csv | argus-link -q |
	    argus-spin -q --tid 10 -T 1s | argus-similar -q 2>/dev/null |
	    argus-slice --auto -Z >d.csv'
	[ "$status" -eq 1 ]
	[[ "$output" == *"Nothing found beyond the hung thread: no hang: httpd 10 is idle in epoll_wait, waiting for work"* ]]
}

@test "slice: a shell at its prompt is no hang: it waits for a person" {
	# bash reads its terminal; script(1) holds the terminal and waits on
	# a pipe that a sleep writes.  None of that is a cause.
	stream >tty.csv <<-'EOF'
	task,900000000,10,10,bash
	task,900000000,20,20,script
	task,900000000,30,30,sleep
	event,1000000000,30,30,,0,sys_enter,-,230,clock_nanosleep,0x0,0x0,0x7ffc
	event,1000000100,30,30,,0,switch,-,S,20,20,script
	event,1000001000,20,20,,0,sys_enter,-,7,poll,0x7ffc,0x3,0xffffffff
	event,1000001100,20,20,,0,switch,-,S,10,10,bash
	event,1000002000,10,10,,0,sys_enter,-,270,pselect6,0x1,0x7ffe,0x0
	event,1000002100,10,10,,0,switch,-,S,0,0,swapper/0
	wait,5000000000,10,10,S,pselect6,0,tty,file:0:25:3,in,,,1000002000,,poll_schedule_timeout,bash,0x1,0x7ffe,0x0,0x0,0x0,0x0
	wait,5000000000,20,20,S,poll,0,pipe,pipe:9,in,,,1000001000,,poll_schedule_timeout,script,0x7ffc,0x3,0xffffffff,0x8,0x0,0x0
	wait,5000000000,30,30,S,clock_nanosleep,,,,sleep,60000000000,,1000000000,,hrtimer_nanosleep,sleep,0x0,0x0,0x7ffc,0x0,0x0,0x0
	holder,5000000000,20,0,file:0:25:3,rdwr,4,,,script
	holder,5000000000,30,0,pipe:9,writer,1,,,sleep
	EOF
	run bash -c 'argus-segment -q tty.csv | argus-link -q |
	    argus-spin -q --tid 10 -T 1s | argus-similar -q 2>/dev/null |
	    argus-slice --auto -Z >d.csv'
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Nothing found beyond the hung thread: no hang: bash 10 waits for input from its terminal, that is for a person"* ]]
	[ "$(awk -F, '$1 == "root" { print $6, $4 }' d.csv)" = "root 10" ]
}

@test "slice: --progress says how far loading the graph came; the stream unchanged" {
	argus-slice -Z --from 2 --answers /dev/null -q g.csv >plain.out
	argus-slice -Z --from 2 --answers /dev/null -q --progress g.csv \
	    >progress.out 2>progress.err
	cmp plain.out progress.out
	# Not a terminal: the totals at the end, from the first record's time.
	grep -qx 'argus-slice: loaded the graph: 6 records, up to +0.0 s' progress.err
}
