#!/usr/bin/env bats
# Every stage on streams written by hand as real captures and fuzzing leave
# them: processes the capture never learnt, malformed and absurd input,
# input cut by a signal.  No tracing here: `make check` also runs this file
# with the sanitizer build of the programs (ARGUS_BIN).

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# A thread gone before the capture learnt its process (20, PID empty)
# keeps app (10/10) waiting 3 s, then wakes it: its events have an empty
# PID, and so do the switches, wakeups, forks and renames that name it.
unknown_pid_stream() {
	stream <<-'EOF'
	meta,100,,,cpus,2
	task,100,10,10,app
	event,100,10,10,,0,sys_enter,-,7,poll,0x3,0x1,0xbb8
	event,1100,10,10,,0,switch,-,S,,20,gone
	task,1100,,20,gone
	event,1200,,20,,0,fork,-,,21,0x3d0f00,gone
	event,1300,,20,,0,comm,-,,20,gone,gone2
	event,1400,,20,,0,sys_enter,-,7,poll,0x4,0x1,0xbb8
	event,1500,,20,,0,switch,-,S,0,0,swapper/0
	event,3000000000,0,0,,0,switch,-,R,,20,gone2
	event,3000000100,,20,,0,sys_exit,-,7,poll,1
	event,3000000200,,20,,0,sys_enter,-,1,write,0x3,0x0,0x1
	event,3000000300,,20,,0,waking,-,10,10,1,app
	event,3000000400,,20,,0,sys_exit,-,1,write,1
	event,3000000500,,20,,0,switch,-,S,10,10,app
	event,3000000600,10,10,,0,sys_exit,-,7,poll,1
	event,3000000700,10,10,,0,exit,-,app,120
	EOF
}

@test "stream: an unknown PID (empty) passes every stage and stays unknown" {
	unknown_pid_stream > u.csv
	argus-cat -Z u.csv | cmp - u.csv
	argus-cat -Z -p 10 u.csv | grep -q '^event,3000000600,10,10,'
	argus-segment -qZ u.csv > seg.csv
	argus-link -qZ seg.csv > link.csv
	argus-spin -qZ --pid 10 link.csv > spin.csv
	argus-similar -qZ spin.csv > similar.csv
	run argus-slice -Z --auto similar.csv
	echo "$output"
	[ "$status" -eq 0 ]
	# Unknown, never made up: 20's vertices, its links and the slice
	# through it have an empty PID, not 0 or another thread's.
	grep -q '^vertex,[0-9]*,,20,' seg.csv
	! grep -q '^vertex,[0-9]*,0,20,' seg.csv || false
	grep -q '^link,[0-9]*,10,10,[0-9]*,[0-9]*,strong,message,3000000300,,20,' link.csv
	grep -q '^spin,[0-9]*,10,10,1,LongWait,' spin.csv
	grep -q '^step,[0-9]*,,20,' <<<"$output"
	grep -q '^root,[0-9]*,,20,' <<<"$output"
	# A PID that is not a number is still bad input, with file and line.
	sed 's/^event,1400,,20,/event,1400,x,20,/' u.csv > x.csv
	run argus-segment -qZ x.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"x.csv:9: "*"'x'"* ]]
	sed 's/^event,1100,10,10,,0,switch,-,S,,/event,1100,10,10,,0,switch,-,S,-1,/' \
	    u.csv > t.csv
	argus-segment -q t.csv > tseg.csv && status=0 || status=$?
	[ "$status" -eq 65 ]
}

@test "stream: input that ends inside a record longer than the buffer: exit 65, not a crash" {
	{ printf 'argus-stream,1\n'; head -c 400000 /dev/zero | tr '\0' a; } > f
	for prog in argus-cat argus-segment argus-link; do
		run "$prog" -Z f
		[ "$status" -eq 65 ]
		[[ "$output" == *"f:2: record cut short"* ]]
	done
	{ printf 'argus-stream,1\nx,"'; head -c 100 /dev/zero | tr '\0' a; } > q
	run argus-cat -Z q
	[ "$status" -eq 65 ]
	[[ "$output" == *"q:2: malformed record: a quoted field is never closed"* ]]
}

@test "stream: a CPU beyond the capture's, or beyond any kernel's, is bad input" {
	printf 'argus-stream,1\nevent,10,1,1,1,4294967295,softirq_entry,s,3,TIMER\n' > wrap
	printf 'argus-stream,1\nevent,10,1,1,1,3000000000,softirq_entry,s,3,TIMER\n' > huge
	stream > over <<-'EOF'
	meta,5,,,cpus,2
	event,10,1,1,1,1,softirq_entry,s,3,TIMER
	event,20,1,1,1,2,softirq_entry,s,3,TIMER
	EOF
	for prog in argus-segment argus-link argus-spin argus-similar \
	    "argus-slice --auto"; do
		run $prog -Z wrap
		[ "$status" -eq 65 ]
		[[ "$output" == *"wrap:2: malformed event: CPU out of range: 4294967295"* ]]
	done
	run argus-link -Z huge
	[ "$status" -eq 65 ]
	[[ "$output" == *"huge:2: malformed event: CPU out of range: 3000000000, no kernel has more than 65536"* ]]
	run argus-link -Z over
	[ "$status" -eq 65 ]
	[[ "$output" == *"over:4: malformed event: CPU out of range: 2, its capture had 2 (meta cpus)"* ]]
	# Streams merged from several captures: the most CPUs any had.
	sed 's/cpus,2/cpus,4/' over > more
	run argus-link -Z over more
	[ "$status" -eq 0 ]
}

@test "stream: argus-slice takes any vertex id, and a huge one costs no more than a small" {
	stream > ids <<-'EOF'
	vertex,100,10,10,18446744073709551615,0,100,50,2,start,wait,S,alpha
	link,105,20,20,18446744073709551615,4294967295,strong,wakeup,95,10,10,
	vertex,110,20,20,4294967295,105,110,4,2,wakeup,wait,S,beta
	link,200,30,30,4294967295,20000000,strong,message,108,20,20,
	vertex,300,30,30,20000000,200,300,90,2,wakeup,open,,gamma
	EOF
	run argus-slice -Z --auto --from 20000000 ids
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^step,300,30,30,1,1,20000000,4294967295,message,strong,strong$' <<<"$output"
	grep -q '^step,300,20,20,1,2,4294967295,18446744073709551615,wakeup,strong,strong$' <<<"$output"
	grep -q '^step,300,10,10,1,3,18446744073709551615,0,,,end$' <<<"$output"
	# 0 is no vertex: bad input.
	sed 's/^vertex,300,30,30,20000000,/vertex,300,30,30,0,/' ids > zero
	run argus-slice -Z --auto zero
	[ "$status" -eq 65 ]
	[[ "$output" == *"zero:6: vertex record: vertex 0"* ]]
}

@test "stream: an answers file's long lines are whole lines, and errors name them" {
	stream > g.csv <<-'EOF'
	vertex,100,10,10,1,0,100,50,2,start,wait,S,alpha
	vertex,110,20,20,2,105,110,4,2,wakeup,wait,S,beta
	link,200,30,30,1,3,strong,message,90,10,10,
	link,200,30,30,2,3,strong,message,108,20,20,
	vertex,300,30,30,3,200,300,90,2,wakeup,open,,gamma
	EOF
	{ printf '# %0300d 1\n' 0; echo 1; } > answers
	run argus-slice -Z --from 3 --answers answers g.csv
	[ "$status" -eq 0 ]
	grep -q '^step,300,30,30,1,1,3,2,message,strong,answer$' <<<"$output"
	{ printf '# %0300d 1\n' 0; echo 7; } > answers
	run argus-slice -Z --from 3 --answers answers g.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"answers:2: '7' is not 1 to 2"* ]]
}

@test "stream: a probe file's long comment is one line; errors name the right one" {
	{ printf '# %01100d libc.so.6 free myfree\n' 0
	  printf 'libc.so.6 malloc\n'; } > long.probes
	run argus-capture --probes long.probes -d 1 -o /dev/null
	[ "$status" -eq 64 ]
	[[ "$output" == *"long.probes:2: expected LIBRARY SYMBOL"* ]]
}

# interrupt SIGNAL INPUT PROG ARGS...: PROG reads INPUT, then a FIFO that
# stays open and says nothing more (a terminal nobody types at), until
# SIGNAL comes while it waits in read(2).  Sets status; out and err.
interrupt() {
	local sig=$1 input=$2 pid i
	shift 2
	rm -f fifo
	mkfifo fifo
	"$@" <fifo >out 2>err &
	pid=$!
	exec 6>fifo
	[ -z "$input" ] || cat "$input" >&6
	for i in $(seq 200); do
		# read(2) is system call 0 on x86-64, 63 on arm64
		case $(cut -d' ' -f1 /proc/"$pid"/syscall 2>/dev/null) in
		0|63) break ;;
		esac
		sleep 0.05
	done
	kill -"$sig" "$pid"
	status=0
	wait "$pid" || status=$?
	exec 6>&-
}

@test "stream: a stage stopped by a signal while it waits for input says nothing" {
	unknown_pid_stream > u.csv
	argus-segment -qZ u.csv | argus-link -qZ > g.csv
	argus-spin -qZ --pid 10 g.csv > s.csv
	for prog in argus-cat argus-segment argus-link "argus-spin --pid 10" \
	    argus-similar "argus-slice --auto"; do
		for sig in TERM INT HUP; do
			interrupt "$sig" "" $prog -Z
			echo "$prog, SIG$sig, nothing read: exit $status: $(cat err)"
			[ "$status" -eq $((128 + $(kill -l "$sig"))) ]
			[ ! -s err ]
		done
	done
	# Half a graph: what was read is passed on, nothing is concluded.
	head -n 12 g.csv > half
	for prog in argus-cat argus-segment argus-link "argus-spin --pid 10" \
	    argus-similar "argus-slice --auto"; do
		interrupt TERM half $prog -Z
		echo "$prog, half a graph: exit $status: $(cat err)"
		[ "$status" -eq 143 ]
		[ ! -s err ]
		grep -q '^event,1500,,20,' out
	done
}
