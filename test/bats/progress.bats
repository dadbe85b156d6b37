#!/usr/bin/env bats
# The status line (-P, --progress, and argus debug's): on a terminal only,
# one line for a whole pipe, gone when the work is, and the stream the
# same with it or without it.  The terminal is a pty of script(1).

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	need_prog script	# a terminal to test on
	# script(1) runs its command with $SHELL, which CI may leave unset
	# (/bin/sh, dash: killed by the Ctrl-C that its child handles).  A
	# user's shell is bash, and a Ctrl-C does not end it.
	export SHELL=/bin/bash
}

# N records 0.1 ms apart: enough for the stages to report as they go
# (every 65536 records).
notes() {
	awk -v n="$1" 'BEGIN { print "argus-stream,1"
	    for (i = 0; i < n; i++)
		printf "note,%.0f,,,note %d\n", 1e9 + i * 1e5, i }'
}

# CMD run by a shell on a terminal; what it wrote there in tty.out, its
# exit status in tty_status.
on_tty() {
	tty_status=0
	timeout 120 script -qfec "$1" /dev/null </dev/null >tty.out ||
	    tty_status=$?
}

# What a terminal shows after the bytes of FILE: \r goes back to the start
# of the line, ESC [ K erases from there to its end.
screen() {
	awk '{
		line = ""; col = 0; s = $0
		while (s != "") {
			if (substr(s, 1, 1) == "\r") {
				col = 0; s = substr(s, 2)
			} else if (substr(s, 1, 3) == "\033[K") {
				line = substr(line, 1, col); s = substr(s, 4)
			} else {
				line = substr(line, 1, col) substr(s, 1, 1) \
				    substr(line, col + 2)
				col++; s = substr(s, 2)
			}
		}
		print line
	}' "$1"
}

# The lines redrawn in place: what follows each \r, up to the next.
redrawn() {
	tr '\r' '\n' <"$1" | sed 's/\x1b\[K$//' | grep -E "$2"
}

# A ring as `argus start' leaves it, of one capture, written just now.
ring_of() {
	mkdir -m 700 ring
	install -m 600 "$1" ring/argus-ring-000001.csv.gz
}

@test "progress: a stage's line on a terminal, redrawn in place and gone at the end; the stream unchanged" {
	notes 300000 >n.csv
	argus-segment -Z n.csv >plain.out 2>plain.err
	on_tty "argus-segment -P -Z n.csv >tty.stream"
	[ "$tty_status" -eq 0 ]
	cmp plain.out tty.stream
	# Redrawn as it went, from the first 65536 records on ...
	redrawn tty.out '^argus-segment: segmenting [0-9]+ records, up to \+[0-9.]+ s$'
	# ... and nothing of it left: the summary alone, as in a file.
	diff <(tr -d '\r' <plain.err) <(screen tty.out | grep -v '^$')
}

@test "progress: stages in one pipe on one terminal draw one line, one stage at a time" {
	notes 300000 >n.csv
	argus-cat -Z n.csv | argus-segment -q | argus-link -q >plain.out
	on_tty "argus-cat -P -Z n.csv | argus-segment -qP | argus-link -qP >tty.stream"
	[ "$tty_status" -eq 0 ]
	cmp plain.out tty.stream
	# Until argus-cat's last line, one stage alone drew: the others did
	# not write over it.
	tr '\r' '\n' <tty.out | sed -n '/^argus-cat: read /q; /^argus-/p' |
	    cut -d: -f1 | sort -u >drawers
	cat drawers tty.out
	[ "$(wc -l <drawers)" -eq 1 ]
	# What stays on the terminal: argus-cat's last line, nothing else.
	[ "$(screen tty.out | grep -v '^$')" = \
	    "argus-cat: read 300000 records, up to +30.0 s" ]
}

@test "progress: into a file, a plain line now and then: no \\r, no escapes" {
	notes 300000 >n.csv
	argus-segment -q -P -Z n.csv >/dev/null 2>err
	cat -A err
	grep -Eqx 'argus-segment: segmenting [0-9]+ records, up to \+[0-9.]+ s' err
	! grep -q $'[\r\033]' err || false
	# Not asked, nothing: a script's stderr stays its own.
	argus-cat -Z n.csv | argus-link -q >/dev/null 2>err
	[ ! -s err ]
}

@test "progress: Ctrl-C leaves the terminal clean" {
	notes 300000 >n.csv
	# A slow reader: argus-cat still works when the key is hit.
	cat >slow <<-'EOF'
	argus-cat -P -Z n.csv | awk 'NR % 10000 == 0 { system("sleep 0.2") }'
	echo "rc=${PIPESTATUS[0]}"
	EOF
	(sleep 2; printf '\003'; sleep 5) |
	    timeout 120 script -qfec "bash slow" /dev/null >tty.out
	cat -A tty.out
	redrawn tty.out '^argus-cat: reading '
	grep -q 'rc=130' tty.out
	# The line is gone, whatever was on it.
	! screen tty.out | grep -q 'argus-cat'
}

@test "argus debug: one line for all the stages on a terminal, none in a file; the diagnosis unchanged" {
	ring_of "$ROOT/share/examples/data/argus-waits/files/it.gz"
	load_ids "$ROOT/share/examples/data/argus-waits/files/truth"
	# The capture is from long ago: a window that holds it.
	args="--ring ring debug --pid $victim_pid --last 100000000s --auto --no-snapshot"
	on_tty "argus $args"
	cat -A tty.out
	[ "$tty_status" -eq 0 ]
	mv ring/debug-*.gz tty.gz
	# Each stage's part, in the pipe's order; on the screen once.
	screen tty.out | grep -Ex 'argus: read [0-9.]+( [kM])? records of 100000000 s, segmented [0-9.]+( [kM])?, linked [0-9.]+( [kM])?'
	[ "$(screen tty.out | grep -c '^argus: read ')" -eq 1 ]
	# The diagnosis is there, after the line.
	screen tty.out | sed -n '/^argus: read /,$p' | grep -q '^Root cause: '
	argus $args >out 2>err
	! grep -q $'[\r\033]' err || false
	! grep -q 'argus: read ' err || false
	# The report on stdout (argus(1)), whole, no line of ours in it.
	grep -q '^Root cause: ' out
	! grep -q $'[\r\033]' out || false
	cmp <(zcat tty.gz) <(zcat ring/debug-*.gz)
}

@test "argus debug: the line says how far the reading has come, and what follows" {
	notes 300000 | gzip >n.gz
	ring_of n.gz
	on_tty "argus --ring ring debug --pid 1 --last 100000000s --auto --no-snapshot"
	cat -A tty.out
	[ "$tty_status" -eq 65 ]	# argus-spin's: no vertex to judge
	redrawn tty.out '^argus: read [0-9.]+ k \(\+[0-9]+ s of 100000000\)'
	# Nothing to diagnose here: what the stages said, each line whole,
	# and no line of ours left among them.
	screen tty.out | grep -qx 'argus-spin: no vertex records in the input: run argus-segment and argus-link first'
	! screen tty.out | grep -q '^argus: read'
}

@test "argus debug: Ctrl-C stops the stages and leaves no line behind" {
	notes 500000 | gzip -1 >n.gz
	ring_of n.gz
	# argus beside an argus-cat that passes the stages 4 MB of its
	# stream and holds the rest: the line shows, the stages are at work,
	# and they cannot be done before the key, however late script passes
	# it on (the whole took a third of a second here, less than the key
	# once took on a busy machine).  argus runs its stages from its own
	# directory.
	mkdir bin
	cp "$ROOT/bin/argus" bin/
	for f in "$ROOT"/bin/argus-*; do
		[ "$f" = "$ROOT/bin/argus-cat" ] || ln -s "$f" bin/
	done
	printf '#!/bin/sh\n"%s" "$@" | { head -c 4000000; exec sleep 90; }\n' \
	    "$ROOT/bin/argus-cat" >bin/argus-cat
	chmod +x bin/argus-cat
	mkfifo keys
	exec 5<>keys
	timeout 100 script -qfec "bin/argus --ring ring debug --pid 1 --last 100000000s --auto --no-snapshot; echo rc=\$?" \
	    /dev/null <keys >tty.out &
	# The key, once the line shows.
	for i in $(seq 600); do
		grep -q 'argus: read' tty.out && break
		sleep 0.05
	done
	printf '\003' >&5
	wait $!
	exec 5>&-
	cat -A tty.out
	grep -q 'rc=130' tty.out
	! screen tty.out | grep -q '^argus: read'
}

@test "progress: a stage handed no socket in ARGUS_STATUS_FD goes by its own -P" {
	notes 300000 >n.csv
	argus-segment -q -Z n.csv >plain.out
	for fd in 1 junk 99 ''; do
		ARGUS_STATUS_FD=$fd argus-segment -q -P -Z n.csv >out 2>err
		cmp plain.out out
		grep -Eqx 'argus-segment: segmenting [0-9]+ records, up to \+[0-9.]+ s' err
	done
	# And without -P, nothing.
	ARGUS_STATUS_FD=1 argus-segment -q -Z n.csv >out 2>err
	cmp plain.out out
	[ ! -s err ]
}
