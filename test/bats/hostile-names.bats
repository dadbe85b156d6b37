#!/usr/bin/env bats
# Names any user can give their processes (prctl PR_SET_NAME), shown by
# every output a person reads: escaped visibly (argus-stream(5), NAMES
# SHOWN), never raw control bytes, never a line of their own.  The
# stream keeps the bytes as they were.

load helpers

# The hostile names of issue 29 and how each must be shown.
N_OSC=$'\e]52;c;SGk=\a'			# OSC 52: writes the reader's clipboard
E_OSC='\e]52;c;SGk=\a'
N_NL=$'w\nRoot cause: W,\e[2J'		# a forged report line, a clear screen
E_NL='w\nRoot cause: W,\e[2J'
N_CUT=$'abcdefghijklm\xe4\xb8'		# 15 bytes, cut in a character
E_CUT='abcdefghijklm\xe4\xb8'
N_DEL=$'del\x7f'
E_DEL='del\x7f'
N_C1=$'c1\xc2\x9b'			# U+009B, CSI for an 8-bit terminal
E_C1='c1\xc2\x9b'

setup() {
	cd "$BATS_TEST_TMPDIR"
	# Valid UTF-8 is shown as it is in a UTF-8 locale only.
	export LC_ALL=C.UTF-8
}

# A CSV field, quoted.
q() {
	local s=${1//\"/\"\"}
	printf '"%s"' "$s"
}

# Fails if a line begins with what the newline name would forge.
no_forged() {	# file...
	! grep -n '^Root cause: W,' "$@"
}

# Each expected form, somewhere in the files.
shown() {	# file...
	local e
	for e in "$E_OSC" "$E_NL" "$E_CUT" "$E_DEL" "$E_C1"; do
		cat "$@" | grep -qF -- "$e" || { echo "not shown: $e"; return 1; }
	done
}

@test "hostile names: argus-summary shows them escaped, one line each" {
	{
		stream <<-EOF
		meta,1000000000,,,source,$(q "$N_OSC")
		meta,1000000000,,,hostname,$(q "$N_NL")
		task,1000000000,10,11,$(q "$N_OSC")
		task,1000000000,20,21,$(q "$N_NL")
		task,1000000000,30,31,$(q "$N_CUT")
		task,1000000000,40,41,$(q "$N_DEL")
		task,1000000000,50,51,$(q "$N_C1")
		EOF
		for t in 11 21 31 41 51; do
			echo "event,1$((t))0000000,$((t - 1)),$t,,0,sys_enter,-,0,read,3,0x0,0x1"
			echo "event,1$((t))1000000,$((t - 1)),$t,,0,switch,-,S,0,0,swapper/0"
		done
		echo "event,1900000000,0,0,,0,switch,-,R,10,11,$(q "$N_OSC")"
		echo "$(q "$N_NL"),1950000000,1,1"
	} >s.csv
	argus-summary -n 0 s.csv >out 2>err
	cat out err
	clean out err
	no_forged out err
	shown out
	grep -qF "source   $E_OSC on $E_NL" out
	# The stream still has the bytes.
	argus-cat s.csv | grep -qF "$N_OSC"
}

graph() {
	stream <<-EOF
	vertex,100,10,10,1,0,100,50,2,start,wait,S,$(q "$N_OSC")
	link,105,20,20,1,2,strong,wakeup,95,10,10,$(q "$N_DEL")
	vertex,110,20,20,2,105,110,4,2,wakeup,wait,S,$(q "$N_NL")
	link,200,30,30,1,3,strong,message,90,10,10,$(q "$N_C1")
	link,200,30,30,2,3,strong,$(q "$N_DEL"),108,20,20,
	vertex,300,30,30,3,200,300,90,2,wakeup,open,,$(q "$N_CUT")
	vertex,310,40,40,4,200,300,90,2,wakeup,open,,$(q "$N_C1")
	link,310,40,40,3,4,strong,message,300,30,30,
	EOF
}

@test "hostile names: argus-slice's report, questions and --dot escape them" {
	graph >g.csv
	argus-slice -v -Z --from 4 --auto --dot g.dot -o d.csv g.csv 2>err
	cat err g.dot
	clean err g.dot
	no_forged err g.dot
	shown err
	for e in "$E_OSC" "$E_NL" "$E_CUT" "$E_C1"; do
		grep -qF -- "${e//\\/\\\\}" g.dot
	done
	# One label a line, quotes and comments closed: what dot reads.
	[ "$(grep -c '^	v[0-9]* \[label="' g.dot)" -eq 4 ]
	[ "$(grep -c '^	v[0-9]* -> v[0-9]* \[label="[^"]*"' g.dot)" -eq 3 ]
	if command -v dot >/dev/null; then
		dot -Tplain g.dot >/dev/null
	fi
	# The records keep the bytes.
	grep -qF "$(q "$N_CUT")" d.csv
	# The question on a terminal: each candidate's rule, label and thread.
	need_prog script
	printf '1\n1\n1\n' >typed
	script -qec 'argus-slice -Z --from 3 g.csv >/dev/null' /dev/null \
	    <typed >tty || true
	tr -d '\r' <tty >tty.raw
	grep -qF "Which of these caused $E_CUT 30/30 vertex 3" tty.raw
	clean tty.raw
	no_forged tty.raw
	grep -qF "strong $E_DEL: $E_NL 20/20 vertex 2" tty.raw
	grep -qF "strong message $E_C1: $E_OSC 10/10 vertex 1" tty.raw
}

@test "hostile names: argus-spin and argus-similar messages escape them" {
	local a
	for a in "$N_OSC" "$N_NL" "$N_CUT" "$N_DEL" "$N_C1"; do
		stream <<-EOF >g.csv
		meta,100,,,command_pid,10
		task,100,10,10,$(q "$a")
		task,100,20,20,peer
		event,150,10,10,1,0,sys_enter,-,7,poll,0x1,0x1,0x0
		vertex,200,20,20,2,100,200,150,3,start,wait,S,peer
		vertex,1000,10,10,1,100,1000,500,3,start,wait,S,$(q "$a")
		link,1000,10,10,2,3,strong,message,990,20,20,
		event,1010,10,10,3,0,sys_enter,-,1,write,0x4,0x0,0x1
		event,1020,10,10,3,0,sys_enter,-,7,poll,0x1,0x1,0x0
		event,1030,10,10,3,0,switch,-,S,0,0,swapper/0
		link,1100,10,10,6,4,strong,message,1090,20,20,
		vertex,1100,10,10,3,1000,1100,30,4,wakeup,wait,S,$(q "$a")
		event,1110,10,10,4,0,sys_enter,-,1,write,0x4,0x0,0x1
		event,1120,10,10,4,0,sys_enter,-,7,poll,0x1,0x1,0x0
		event,1130,10,10,4,0,switch,-,S,0,0,swapper/0
		link,3000001100,10,10,7,5,strong,wakeup,3000001090,20,20,
		vertex,3000001100,10,10,4,1100,3000001100,30,4,wakeup,wait,S,$(q "$a")
		vertex,3000002000,10,10,5,3000001100,3000002000,900,1,wakeup,open,,$(q "$a")
		EOF
		argus-spin -Z -o s.csv g.csv 2>>err
		argus-similar -Z -o /dev/null s.csv 2>>err
		argus-similar -Z -T 50ns -o /dev/null s.csv 2>>err
		argus-spin -Z -T 1h -o /dev/null g.csv 2>>err || true
	done
	cat err
	clean err
	no_forged err
	# A comm is 16 bytes at most, with its NUL.
	E_NL='w\nRoot cause: W' shown err
	grep -qF "argus-spin: $E_OSC 10/10: LongWait" err
	grep -qF "argus-similar: $E_OSC 10/10 vertex 4: baseline 1" err
	grep -qF "no baseline for $E_CUT 10/10 vertex 4" err
	grep -qF "no episode of $E_C1 10/10" err
}

@test "hostile names: argus-waits escapes them" {
	stream >g.csv <<-EOF
	event,1000000000,10,11,1,0,sys_enter,-,0,$(q "$N_C1")
	vertex,4000000000,10,11,1,500000000,4000000000,1000,2,start,wait,S,$(q "$N_OSC")
	vertex,4000000000,20,21,3,200000000,4000000000,1000,2,start,wait,S,$(q "$N_NL")
	link,4000000000,10,11,3,2,strong,wakeup,4000000000,20,21,$(q "$N_DEL")
	vertex,5000000000,10,11,2,4000000000,5000000000,900000000,9,wakeup,open,R,$(q "$N_OSC")
	vertex,5000000000,20,21,4,4000000000,5000000000,1000,1,wakeup,exit,,$(q "$N_NL")
	event,4200000000,30,31,5,1,sys_enter,-,7,poll
	vertex,5000000000,30,31,5,100000000,5000000000,1000,1,start,open,S,$(q "$N_CUT")
	EOF
	argus-waits g.csv >out 2>err
	cat out err
	clean out err
	no_forged out err
	grep -qF "$E_OSC 10/11" out
	grep -qF "$E_C1" out
	grep -qF "$E_NL 20/21 (wakeup $E_DEL)" out
	grep -qF "$E_CUT 30/31" out
	[ "$(wc -l <out)" -eq 3 ]
}

@test "hostile names: argus-relate -vv escapes them" {
	# Each woke the next: the victim was woken by the one named
	# for the clipboard, which the one with a newline woke.
	stream >r.csv <<-EOF
	task,0,10,10,victim
	task,0,20,20,$(q "$N_OSC")
	task,0,30,30,$(q "$N_NL")
	event,1000000000,30,30,,0,waking,-,20,20,0,$(q "$N_OSC"),120
	event,2000000000,20,20,,0,waking,-,10,10,0,victim,120
	EOF
	argus-relate -vv --tid 10 r.csv 2>err >/dev/null
	cat err
	clean err
	no_forged err
	grep -qF "20/20 $E_OSC: into 10 at 2000000000" err
	# Its names are kept a line each: the first line of it stands.
	grep -qF "30/30 w: into 20 at 1000000000" err
}

@test "hostile names: an error that quotes a field escapes it" {
	stream >bad.csv <<-EOF
	link,100,10,10,1,2,$(q "$N_NL"),wakeup,95,10,10,
	EOF
	run sh -c 'argus-slice -Z --auto --from 2 bad.csv 2>err >/dev/null'
	cat err
	[ "$status" -eq 65 ]
	clean err
	no_forged err
	grep -qF "strength '$E_NL'" err
	stream >bad.csv <<-EOF
	$(q "$N_OSC"),12x,10,10
	EOF
	run argus-cat bad.csv
	[ "$status" -eq 65 ]
	echo "$output" >err
	clean err
	grep -qF "time '12x'" err
}

@test "hostile names: outside a UTF-8 locale every byte above 0x7f is escaped" {
	stream >g.csv <<-EOF
	event,1000000000,10,11,1,0,sys_enter,-,0,read
	vertex,4000000000,10,11,1,500000000,4000000000,1000,2,start,wait,S,$(q $'caf\xc3\xa9')
	vertex,5000000000,10,11,2,4000000000,5000000000,900000000,9,wakeup,open,R,$(q $'caf\xc3\xa9')
	EOF
	LC_ALL=C.UTF-8 argus-waits g.csv | grep -qF $'caf\xc3\xa9 10/11'
	LC_ALL=C argus-waits g.csv >out
	clean out
	grep -qF 'caf\xc3\xa9 10/11' out
}

@test "hostile names: a real process named an OSC 52 by prctl, in argus-summary" {
	need_tracing
	need_prog python3
	# The name is set by the process itself, as any user can; it then
	# sleeps and runs, so that the capture sees it under that name.
	run timeout 60 argus-capture -o t.gz -- python3 -c '
import ctypes, time
libc = ctypes.CDLL(None)
assert libc.prctl(15, b"\x1b]52;c;SGk=\x07", 0, 0, 0) == 0
for i in range(5):
    time.sleep(0.1)
    sum(range(100000))
'
	echo "$output"
	[ "$status" -eq 0 ]
	# The capture has the name as it was.
	argus-cat t.gz | grep -qF "$N_OSC"
	argus-summary -n 0 t.gz >out 2>err
	clean out err
	grep -qF "$E_OSC" out
}
