#!/usr/bin/env bats
# argus-import -f kdebug: macOS kernel traces into the record stream.
# These machines cannot trace macOS; test/progs/kdebug-write writes kdebug
# files from XNU's layouts (lib/kdebug.h), from a readable spec or from a
# Linux capture re-encoded as the patched kernel (xnu-diff/) would have
# traced it.

load helpers

KW="$ROOT/test/progs/kdebug-write"
SPEC="$ROOT/test/bats/kdebug/all.spec"

setup() {
	cd "$BATS_TEST_TMPDIR"
	need_prog "$KW"
}

# The records of an import but its meta records and header.
body() { grep -v -e '^meta,' -e '^argus-stream,' "$@"; }

@test "import: --help lists the formats; an unknown one is a usage error" {
	run argus-import --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"kdebug"*"RAW 1, version 3"* ]]
	run argus-import -f nosuch /dev/null
	[ "$status" -eq 64 ]
	[[ "$output" == *"-f nosuch: unknown format; known:"*kdebug* ]]
	# An output that is an input would be lost before it is read.
	"$KW" -o t.trace "$SPEC"
	cp t.trace t.orig
	ln -s t.trace link
	run argus-import -o link t.trace
	[ "$status" -eq 64 ]
	[[ "$output" == *"link: the same file as input t.trace: not writing over it"* ]]
	cmp t.trace t.orig
}

@test "import kdebug: RAW 1, every mapped code becomes its record" {
	"$KW" -o all.trace "$SPEC"
	argus-import -o all.gz all.trace
	[ "$(stat -c %a all.gz)" = 600 ]
	argus-cat -Z all.gz >all.csv
	body all.csv | diff -u "$ROOT/test/bats/kdebug/all.csv" -
	grep -qx 'meta,,,,layout,raw1' all.csv
	grep -qx 'meta,,,,timebase,1/1,assumed' all.csv
	grep -qx 'meta,1970,,,raw,3' all.csv
	# The thread map: each thread introduced once, with its process.
	[ "$(grep -c '^task,[0-9]*,50,101,browser$' all.csv)" -eq 1 ]
	grep -q '^task,[0-9]*,0,7,kernel_task$' all.csv
}

@test "import kdebug: version 3, in each of its variants, holds the same events" {
	"$KW" -o v1.trace "$SPEC"
	argus-import -Z v1.trace | body >v1.csv
	for opts in "-3" "-3 -K" "-3 -L" "-3 -n 7" "-3 -S" "-3 -K -L -n 1 -S"; do
		"$KW" $opts -o v3.trace "$SPEC"
		argus-import -Z v3.trace >v3.csv
		body v3.csv | diff -u v1.csv - || { echo "kdebug-write $opts"; return 1; }
		grep -qx 'meta,,,,timebase,1/1,header' v3.csv
	done
	grep -qx 'meta,,,,layout,v3-kernel' v3.csv
}

@test "import kdebug: the timebase turns ticks into ns" {
	# Apple silicon: 24 MHz ticks, 125/3 ns each.
	"$KW" -3 -T 125/3 -o v3.trace "$SPEC"
	argus-import -Z v3.trace >v3.csv
	grep -qx 'meta,,,,timebase,125/3,header' v3.csv
	# 1010 ns is 24.24 ticks: 24 in the file, 1000 ns back.
	grep -qx 'event,1000,50,101,,0,sys_exit,-,133,sendto,16' v3.csv
	"$KW" -o v1.trace "$SPEC"
	ARGUS_KDEBUG_TIMEBASE=3/1 argus-import -Z v1.trace >v1.csv
	grep -qx 'meta,,,,timebase,3/1,environment' v1.csv
	grep -q '^event,3000,50,101,,0,sys_enter,-,133,sendto,' v1.csv
	ARGUS_KDEBUG_TIMEBASE=3 run argus-import v1.trace
	[ "$status" -eq 64 ]
}

@test "import kdebug: read from a pipe, format told by its first bytes" {
	"$KW" -3 -o v3.trace "$SPEC"
	cat v3.trace | argus-import -Z >pipe.csv
	argus-import -Z -f kdebug - <v3.trace >f.csv
	body pipe.csv | diff -u "$ROOT/test/bats/kdebug/all.csv" -
	diff -u pipe.csv f.csv
	# Two files, one stream: each file's records after its own meta.
	"$KW" -o v1.trace "$SPEC"
	argus-import -Z v1.trace v3.trace >two.csv
	[ "$(grep -c '^meta,,,,source,kdebug$' two.csv)" -eq 2 ]
}

@test "import kdebug: bad input names the file and offset, exits 65" {
	"$KW" -o v1.trace "$SPEC"
	"$KW" -3 -o v3.trace "$SPEC"
	head -c 10 v1.trace >short
	run argus-import short
	[ "$status" -eq 65 ]
	[[ "$output" == *"short: offset 4: file ends inside the header"* ]]
	head -c 3 v1.trace >tiny
	run argus-import -f kdebug tiny
	[ "$status" -eq 65 ]
	[[ "$output" == *"tiny: offset 0: file ends inside the header"* ]]
	printf '\x00\x00\xaa\x55' >v0
	cat v1.trace >>v0
	run argus-import -f kdebug v0
	[ "$status" -eq 65 ]
	[[ "$output" == *"v0: offset 0: unknown version 0x55aa0000"* ]]
	run argus-import v0
	[ "$status" -eq 65 ]
	[[ "$output" == *"v0: not a trace argus-import knows"* ]]
	head -c 100 v1.trace >map
	run argus-import map
	[ "$status" -eq 65 ]
	[[ "$output" == *"map: offset 88: file ends inside the thread map"* ]]
	head -c 50 v3.trace >v3head
	run argus-import v3head
	[ "$status" -eq 65 ]
	[[ "$output" == *"v3head: offset 16: file ends inside the header"* ]]
	# Cut inside an event: what came before is out, whole.
	size=$(stat -c %s v1.trace)
	head -c $((size - 100)) v1.trace >cut
	run argus-import -o cut.gz cut
	[ "$status" -eq 65 ]
	[[ "$output" == *"cut: offset $((size - 128)): file ends inside an event"* ]]
	argus-cat -Z cut.gz | body >cut.csv
	[ "$(wc -l <cut.csv)" -ge 55 ]
	head -n "$(wc -l <cut.csv)" "$ROOT/test/bats/kdebug/all.csv" |
	    diff -u - cut.csv
}

@test "import kdebug: the graph stages read a macOS trace with their rules" {
	# write_nocancel wakes the reader: a message; psynch_mutexwait is a
	# lock waiter, and what wakes it a lock hand-off (weak); a wait ended
	# by its own timer in an interrupt is a timeout; mach_msg2_trap sends.
	cat >g.spec <<-'EOF'
	thread 11 5 client
	thread 21 6 server
	thread 31 5 client
	1000 0 21 BSC:read_nocancel/B 3 0x1000 64
	1010 0 21 ARGUS_WAIT 0xe1 0x100000001 0 0
	1020 0 21 MACH_SCHED 0 11
	1100 0 11 BSC:write_nocancel/B 4 0x2000 64
	1110 0 11 MACH_MAKERUNNABLE 21
	1120 0 11 BSC:write_nocancel/E 0 64 0 5
	1130 0 11 BSC:psynch_mutexwait/B 0x9000 0x101 0 0
	1140 0 11 MACH_SCHED 0 21
	1200 0 21 BSC:read_nocancel/E 0 64 0 6
	1210 1 31 MACH_MAKERUNNABLE 11
	1220 1 31 TIMER_ENTER/B 0x71 0 2000 0
	1230 1 31 ARGUS_WAIT 0xe2 0x100000001 2000 0
	1240 1 31 MACH_SCHED 0 11
	1250 1 11 BSC:psynch_mutexwait/E 0 0 0 5
	1260 1 11 MACH_SCHED 0 0
	2000 1 0 INTR/B 0 0 0 2
	2010 1 0 TIMER_CALLOUT/B 0x71 0xfeed
	2020 1 0 MACH_MAKERUNNABLE 31
	2030 1 0 TIMER_CALLOUT/E 0x71 0xfeed
	2040 1 0 INTR/E 0
	2100 1 31 MACH_SCHED 0 0
	2200 0 21 MSC:mach_msg2_trap/B 0x7000 2 0 0
	2210 0 21 ARGUS_WAIT 0xe3 0x300000002 0 0
	2220 0 21 MACH_SCHED 0 11
	2230 0 11 MSC:mach_msg2_trap/B 0x8000 3 0x1800000013 0x1103
	2240 0 11 MACH_MAKERUNNABLE 21
	2250 0 11 ARGUS_WAIT 0xe4 0x300000002 0 0
	2260 0 11 MACH_SCHED 0 21
	2270 0 21 MSC:mach_msg2_trap/E 0
	EOF
	"$KW" -o g.trace g.spec
	argus-import g.trace | argus-segment -q | argus-link -q -Z >g.csv
	records link '$TID == 21 && $FROM_TID == 11 { print $RULE, $STRENGTH }' \
	    g.csv | grep -qx 'message strong'
	records link '$TID == 11 && $FROM_TID == 31 { print $RULE, $STRENGTH }' \
	    g.csv | grep -qx 'lock weak'
	records link '$TID == 31 { print $RULE }' g.csv | grep -qx timeout
	records link '$TID == 21 && $FROM_TID == 11 && $TIME == 2270 {
	    print $RULE }' g.csv | grep -qx message
}

# The diagnosis of a capture, as "KIND PID TID DEPTH CLASS" lines of its
# root records and "spin CLASS ENDED" of its spin record.
diagnosis() {
	printf 'comm=cw-renderer\nrest=auto\n' >answers
	argus-segment -q "$1" | argus-link -q |
	    argus-spin -q --pid "$victim_pid" --tid "$victim_tid" --threshold 1s |
	    argus-similar -q |
	    argus-slice --threshold 1s --answers answers -Z >"$1.csv" 2>"$1.report"
	records spin '{ print "spin", $CLASS, $ENDED }' "$1.csv"
	records root '{ print $KIND, $PID, $TID, $DEPTH, $CLASS }' "$1.csv"
}

@test "import kdebug: a scenario's capture, traced as the patched kernel would, diagnosed the same" {
	need_tracing
	timeout 60 argus-capture -o cw.gz -- "$ROOT/test/scenarios/circular-wait" \
	    -n 5 -H 2 -t cw.truth >/dev/null 2>cw.err
	load_ids cw.truth
	diagnosis cw.gz >linux
	cat linux
	# The Linux diagnosis is right, or the comparison says little.
	grep -qx "spin LongWait timeout" linux
	grep -Eq "^(culprit|root) $root_pid $root_tid " linux
	# RAW 1, and version 3 in chunks: both diagnose alike.
	"$KW" -e -o cw.trace cw.gz
	argus-import -o cw-raw1.gz cw.trace
	"$KW" -e -3 -n 5000 -o cw.ktrace cw.gz
	argus-import -o cw-v3.gz cw.ktrace
	for f in cw-raw1.gz cw-v3.gz; do
		diagnosis "$f" >macos
		diff -u linux macos || { cat "$f.report"; return 1; }
	done
	# The patch's points were there, and read.
	argus-cat -Z -k event cw-v3.gz | awk -F, '{ print $7 }' | sort -u >types
	grep -qx wait_reason types
	grep -qx wake_reason types
	grep -qx switch types
}

@test "import kdebug: argus-summary counts a macOS trace's own types by name" {
	# Types lib/events.def has (EF_KDEBUG), not "other": a type it
	# did not know.
	cat >s.spec <<-'EOF2'
	thread 101 50 browser
	thread 201 60 renderer
	1000 0 101 ARGUS_MSG_SEND 0xd00d 0x2eed 0x110300001103 0x4800000000
	1010 0 101 ARGUS_WAIT 0xe0e 0x300000002 0 0xffffff8000123456
	1020 0 101 MACH_WAIT 0xe0f 1 5000
	1030 0 101 MACH_SCHED 0 201
	1040 0 201 ARGUS_WAKE 101 0 0 0xffffff8000222222
	1050 0 201 MACH_MAKERUNNABLE 101 31 0 1
	1060 0 201 0x01400024 1 2 3 4
	EOF2
	"$KW" -o s.trace s.spec
	argus-import s.trace | argus-summary >s.out
	cat s.out
	for t in msg_send wait_reason mach_wait wake_reason kdebug; do
		grep -Eq "[ ,]$t 1(,|$)" s.out || { echo "no $t"; return 1; }
	done
	! grep -q 'other [0-9]' s.out
}

@test "import kdebug: a lost-events mark (no count) is summarised and exported as unknown, and imported back so" {
	"$KW" -o all.trace "$SPEC"
	argus-import -f kdebug -o all.gz all.trace
	[ "$(argus-cat -k lost all.gz | grep -c '^lost,[0-9]*,,,0,$')" -eq 1 ]
	run argus-summary all.gz
	echo "$output"
	[ "$status" -eq 0 ]
	grep -Eq '^lost +events: cpu0 \?; \? where the trace said not how many \(1 time\)$' <<<"$output"
	# A waking whose target CPU kdebug does not trace: exported empty.
	run argus-export -f ftrace -o all.txt all.gz
	[ "$status" -eq 0 ]
	grep -q 'sched_waking: comm=browser pid=101 prio=120 target_cpu=$' all.txt
	# The kernel's own line for a loss of no known count, and back.
	grep -qx 'CPU:0 \[LOST EVENTS\]' all.txt
	argus-import -f ftrace -o back.gz all.txt
	[ "$(argus-cat -k lost back.gz | grep -c '^lost,[0-9]*,,,0,$')" -eq 1 ]
}

@test "round trip: a macOS trace's system calls and Mach traps, exported to ftrace text and imported back, keep their names and arguments" {
	"$KW" -o all.trace "$SPEC"
	argus-import -f kdebug -o all.gz all.trace
	argus-export -f ftrace -o all.txt all.gz
	# The kernel's lines have numbers only, a Mach trap's negative.
	grep -q ': sys_enter: NR -59 (0, 0, 0, 0, 0, 0)$' all.txt
	grep -qx '# syscall -59 0 swtch_pri' all.txt
	argus-import -f ftrace -o back.gz all.txt
	argus-cat -k event all.gz | grep -E ',sys_(enter|exit),' >a.sys
	argus-cat -k event back.gz | grep -E ',sys_(enter|exit),' >b.sys
	[ "$(wc -l <a.sys)" -ge 8 ]
	grep -q ',sys_enter,-,-59,swtch_pri$' a.sys
	grep -q ',sys_enter,-,133,sendto,0x3,0x7000,0x10,0x0$' a.sys
	diff a.sys b.sys
	# Named by the text, not by this machine's table.
	! argus-cat -k meta back.gz | grep -q ',lacks,"*syscall' || false
	# The kernel's own text (no such lines) is still named by this
	# machine's table, with all six registers, and says so.
	grep -v '^# syscall ' all.txt | sed 's/^# argus-export -f ftrace.*/#/' >kernel.txt
	argus-import -f ftrace -o kern.gz kernel.txt
	argus-cat -k event kern.gz | grep -q ',sys_enter,-,-59,,0x0,0x0,0x0,0x0,0x0,0x0$'
	argus-cat -k meta kern.gz | grep -q ',lacks,"syscall names: the trace has numbers'
}

@test "import ftrace: a bad system call line of argus-export's text names the file and line, exits 65" {
	"$KW" -o all.trace "$SPEC"
	argus-import -f kdebug -o all.gz all.trace
	argus-export -f ftrace -o all.txt all.gz
	for bad in '# syscall x 0 read' '# syscall 1 9 read' '# syscall 1 0' \
	    "# syscall 1 0 $(printf '%070d' 0)" '# syscall 99999999999999999999999 0 x'; do
		{ cat all.txt; printf '%s\n' "$bad"; } >bad.txt
		run argus-import -f ftrace -o bad.gz bad.txt
		[ "$status" -eq 65 ] || { echo "$bad: $status"; return 1; }
		[[ "$output" == *"bad.txt:$(wc -l <bad.txt): not a system call's number, count and name"* ]]
	done
	# Unnamed and without a count: read, the registers all six.
	{ cat all.txt; printf '# syscall 133 - \n'; } >odd.txt
	argus-import -f ftrace -o odd.gz odd.txt
	argus-cat -k event odd.gz | grep -q ',sys_enter,-,133,,0x3,0x7000,0x10,0x0,0x0,0x0$'
	argus-cat -k meta odd.gz | grep -q ',lacks,"syscall arguments: 1 sys_enter have all six'
}
