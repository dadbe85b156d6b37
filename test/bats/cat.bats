#!/usr/bin/env bats
# argus-cat: the first reader of the stream, and the conventions every
# program shares (options, exit codes, errors that name file and line).

load helpers

teardown() {
	pub_cleanup
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	stream >a.csv <<-'EOF'
	meta,,,,source,test
	event,100,10,11,0,switch,-,S,20,21
	event,300,20,21,1,waking,s,10,11,0
	# a comment
	event,500,10,12,0,marker,-,"hello, ""world"""
	EOF
	stream >b.csv <<-'EOF'
	event,200,30,31,1,sys_enter,-,0,read
	event,400,30,31,1,sys_exit,-,0,read,5
	EOF
}

@test "--help and --version" {
	run argus-cat --help
	[ "$status" -eq 0 ]
	[[ "$output" == usage:\ argus-cat* ]]
	[[ "$output" == *--since* ]]
	run argus-cat --version
	[ "$status" -eq 0 ]
	[[ "$output" == *"record stream version 1"* ]]
}

@test "usage errors exit 64" {
	run argus-cat --no-such-option
	[ "$status" -eq 64 ]
	[[ "$output" == *"usage: argus-cat"* ]]
	run argus-cat --pid abc a.csv
	[ "$status" -eq 64 ]
	[[ "$output" == *"--pid: not a number: 'abc'"* ]]
	run argus-cat --since +3parsecs a.csv
	[ "$status" -eq 64 ]
}

@test "a missing file exits 66 and names it" {
	run argus-cat a.csv nosuch.gz
	[ "$status" -eq 66 ]
	[[ "$output" == *"nosuch.gz: No such file or directory"* ]]
}

@test "plain into a pipe, byte for byte" {
	argus-cat a.csv | cmp - a.csv
}

@test "compressed into a file, mode 0600, readable by zcat and by argus-cat" {
	argus-cat -o a.gz a.csv
	[ "$(stat -c %a a.gz)" = 600 ]
	zcat a.gz | cmp - a.csv
	argus-cat a.gz | cmp - a.csv
	# Standard output is text, as zcat's, a regular file too; -z gzips.
	argus-cat a.csv >redirected
	cmp redirected a.csv
	argus-cat -z a.csv >redirected.gz
	zcat redirected.gz | cmp - a.csv
	argus-cat -Z -o plain a.csv
	cmp plain a.csv
	[ "$(argus-cat -z a.csv | zcat | wc -l)" -eq 6 ]
}

@test "an existing file is tightened to 0600, a device is left alone" {
	install -m 644 /dev/null old.gz
	argus-cat -o old.gz a.csv
	[ "$(stat -c %a old.gz)" = 600 ]
	mknod null c 1 3
	chmod 666 null
	argus-cat -o null a.csv
	[ "$(stat -c %a null)" = 666 ]
}

@test "stdin, and - for stdin" {
	gzip -c a.csv | argus-cat | cmp - a.csv
	argus-cat - <a.csv | cmp - a.csv
}

@test "several files merge by time, comments stay with their record" {
	run argus-cat a.csv b.csv
	[ "$status" -eq 0 ]
	[ "$output" = "$(stream <<-'EOF'
	meta,,,,source,test
	event,100,10,11,0,switch,-,S,20,21
	event,200,30,31,1,sys_enter,-,0,read
	event,300,20,21,1,waking,s,10,11,0
	# a comment
	event,400,30,31,1,sys_exit,-,0,read,5
	event,500,10,12,0,marker,-,"hello, ""world"""
	EOF
	)" ]
}

@test "select by kind, pid, tid" {
	run argus-cat -k event -p 10 a.csv b.csv
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c '^event')" -eq 2 ]
	! printf '%s\n' "$output" | grep -q '^meta' || false
	run argus-cat -t 12 a.csv
	[ "$(printf '%s\n' "$output" | grep '^event' | cut -d, -f2)" = 500 ]
	# meta has no pid: it is not about a thread, and stays.
	run argus-cat -p 30 a.csv b.csv
	[ "$(printf '%s\n' "$output" | grep -c '^meta')" -eq 1 ]
	[ "$(printf '%s\n' "$output" | grep -c '^event')" -eq 2 ]
	# A thread's whose process the capture never learnt (PID empty) is
	# no process's: not selected by -p, selected by its -t.
	stream >nopid.csv <<-'EOF'
	meta,,,,source,test
	event,100,,41,0,sys_enter,-,0,read
	event,200,30,31,1,sys_enter,-,0,read
	EOF
	run argus-cat -p 30 nopid.csv
	[ "$status" -eq 0 ]
	[ "$(sed 1d <<<"$output")" = "$(printf '%s\n' 'meta,,,,source,test' 'event,200,30,31,1,sys_enter,-,0,read')" ]
	run argus-cat -t 41 nopid.csv
	[ "$(sed 1d <<<"$output")" = "$(printf '%s\n' 'meta,,,,source,test' 'event,100,,41,0,sys_enter,-,0,read')" ]
	# A kind Argus does not write: selected (a user's own), and said on
	# stderr in case it is a typo.  A word no kind can be: a usage error.
	run argus-cat -k event,nosuchkind a.csv
	[ "$status" -eq 0 ]
	[[ "$output" == *"--kind: 'nosuchkind' is no kind Argus writes"* ]]
	for k in Event 'no te' 9note note-1 ''; do
		run argus-cat -k "$k" a.csv
		[ "$status" -eq 64 ]
	done
	run argus-cat -k ksym,summary,wait a.csv
	[ "$status" -eq 0 ]
	[[ "$output" != *"no kind Argus writes"* ]]
}

@test "select a user's own kind: a filter's notes, with a warning on stderr only" {
	printf '%s\n' 'argus-stream,1' 'note,100,10,11,the heuristic says so' \
	    'event,200,10,11,,0,switch,-,S,0,0,x' 'note,300,,,another' >n.csv
	argus-cat -k note n.csv >out 2>err
	[ "$(cat out)" = "$(printf '%s\n' 'argus-stream,1' \
	    'note,100,10,11,the heuristic says so' 'note,300,,,another')" ]
	grep -q "argus-cat: --kind: 'note' is no kind Argus writes" err
	# By thread too: the four shared columns select any kind.
	argus-cat -k note -t 11 n.csv 2>/dev/null | grep -qx 'note,100,10,11,the heuristic says so'
	! argus-cat -k note -t 12 n.csv 2>/dev/null | grep -q heuristic
}

@test "select by time, absolute and relative to the first record" {
	run argus-cat -s 200 -u 400 -k event a.csv b.csv
	[ "$(printf '%s\n' "$output" | grep '^event' | cut -d, -f2 | tr '\n' ' ')" = "200 300 400 " ]
	run argus-cat -s +250ns -k event a.csv b.csv
	[ "$(printf '%s\n' "$output" | grep '^event' | cut -d, -f2 | tr '\n' ' ')" = "400 500 " ]
}

@test "quoted fields survive selection untouched" {
	argus-cat -k event -t 12 a.csv | grep -qxF 'event,500,10,12,0,marker,-,"hello, ""world"""'
}

@test "a malformed line: file and line named, exit 65, earlier records kept whole" {
	stream >bad.csv <<-'EOF'
	event,1,1,1,0,x
	event,2,1,1,0,y"z
	event,3,1,1,0,x
	EOF
	run argus-cat -o out.gz bad.csv
	[ "$status" -eq 65 ]
	[[ "$output" == "argus-cat: bad.csv:3: malformed record"* ]]
	[ "$(zcat out.gz)" = "$(printf 'argus-stream,1\nevent,1,1,1,0,x')" ]
}

@test "a stream of an unknown version is refused" {
	printf 'argus-stream,9\nevent,1\n' >v9.csv
	run argus-cat v9.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"v9.csv:1: record stream version '9' is not supported"* ]]
	echo 'event,1' >nohdr.csv
	run argus-cat nohdr.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"nohdr.csv:1: not an Argus record stream"* ]]
}

@test "a gzip file cut short: records up to the cut, then exit 65" {
	# Many members, as a capture flushing every second writes them.
	for i in $(seq 1 20); do
		stream <<<"event,$i,1,1,0,x" | gzip -1
	done >cut.gz
	head -c $(( $(stat -c %s cut.gz) - 10 )) cut.gz >cut2.gz
	run argus-cat -Z -o got cut2.gz
	[ "$status" -eq 65 ]
	[[ "$output" == *"cut2.gz: compressed data cut short after line"* ]]
	[ "$(grep -c '^event' got)" -eq 19 ]
}

@test "--live reads a file still being written up to its last flush" {
	for i in $(seq 1 5); do
		stream <<<"event,$i,1,1,0,x" | gzip -1
	done >live.gz
	head -c $(( $(stat -c %s live.gz) - 10 )) live.gz >cut.gz
	run argus-cat -L -Z cut.gz
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c '^event')" -eq 4 ]
	printf 'argus-stream,1\nevent,1,1,1,0,x\nevent,2,1,1' >half.csv
	run argus-cat --live -Z half.csv
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c '^event')" -eq 1 ]
	# A ring's newest file, made and nothing flushed into it yet: no
	# records, no error; without --live an empty file is no stream.
	: >new.csv.gz
	run argus-cat --live -Z live.gz new.csv.gz
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c '^event')" -eq 5 ]
	run argus-cat -Z new.csv.gz
	[ "$status" -eq 65 ]
	[[ "$output" == *"empty input"* ]]
}

@test "SIGINT: output so far is kept, finished and valid" {
	mkfifo in
	# 3>&-: bats waits for whatever holds its descriptor 3 open.
	(stream <<<'event,1,1,1,0,before'; exec sleep 30) >in 3>&- &
	feeder=$!
	argus-cat -o out.gz in 3>&- &
	cat=$!
	# Open once the first record of each input is read.
	wait_output "$cat" "$PWD"
	kill -INT "$cat"
	wait "$cat" || status=$?
	kill "$feeder"
	[ "$status" -eq 130 ]
	[ "$(zcat out.gz | grep -c '^event,1,1,1,0,before')" -eq 1 ]
}

@test "-o one of the inputs is refused, exit 64, the input intact" {
	argus-cat -o t.gz a.csv b.csv
	cp t.gz before.gz
	run argus-cat -k event -o t.gz t.gz
	[ "$status" -eq 64 ]
	[[ "$output" == *"t.gz: both an input and the output: not writing over it"* ]]
	cmp t.gz before.gz
	# The same file by another name, or as standard input or output.
	ln t.gz hard.gz
	run argus-cat -o hard.gz a.csv t.gz
	[ "$status" -eq 64 ]
	run argus-cat -o t.gz - <t.gz
	[ "$status" -eq 64 ]
	run bash -c 'argus-cat t.gz >>t.gz'
	[ "$status" -eq 64 ]
	cmp t.gz before.gz
}

# argus-cat -o $1 from a pipe that stays open, killed with SIGKILL once
# its output is open (its input's first record read).
kill_half_way() {
	(stream <<<'event,1,1,1,0,before'; exec sleep 30) >in 3>&- &
	feeder=$!
	argus-cat -o "$1" in 3>&- &
	cat=$!
	wait_output "$cat" "$PWD"
	kill -KILL "$cat"
	wait "$cat" || true
	kill "$feeder"
}

@test "SIGKILL half-way: nothing under the name, no temporary, the old file intact" {
	argus-cat -o out.gz b.csv
	cp out.gz before.gz
	mkfifo in
	kill_half_way out.gz
	cmp out.gz before.gz
	[ "$(ls -A | sort | tr '\n' ' ')" = "a.csv b.csv before.gz in out.gz " ]
	# A new name stays absent.
	kill_half_way new.gz
	[ ! -e new.gz ]
	[ "$(ls -A | sort | tr '\n' ' ')" = "a.csv b.csv before.gz in out.gz " ]
}

@test "-o through a stranger's symbolic link: the link is replaced, never followed" {
	need_nobody
	pub_dir
	echo "root's own" >victim
	as_nobody mkdir "$PUB/dir"
	as_nobody ln -s "$PWD/victim" "$PUB/dir/t.gz"
	run argus-cat -o "$PUB/dir/t.gz" a.csv
	[ "$status" -eq 0 ]
	[ "$(cat victim)" = "root's own" ]
	[ ! -L "$PUB/dir/t.gz" ]
	[ "$(stat -c '%U %a' "$PUB/dir/t.gz")" = "root 600" ]
	zcat "$PUB/dir/t.gz" | cmp - a.csv
	# As the attacker, into his own directory: the same, unprivileged.
	as_nobody argus-cat -o "$PUB/dir/own.gz" "$PUB/dir/t.gz" 2>&1 ||
	    true	# cannot read root's 0600 file: refused, nothing made
	[ ! -e "$PUB/dir/own.gz" ]
	cp a.csv "$PUB/a.csv"
	chmod 644 "$PUB/a.csv"
	as_nobody argus-cat -o "$PUB/dir/own.gz" "$PUB/a.csv"
	[ "$(stat -c '%U %a' "$PUB/dir/own.gz")" = "nobody 600" ]
}

@test "-o /dev/stdout and a named pipe are written in place" {
	argus-cat -Z -o /dev/stdout a.csv | cmp - a.csv
	[ -L /dev/stdout ]
	mkfifo fifo
	cat fifo >got &
	argus-cat -Z -o fifo a.csv
	wait
	cmp got a.csv
	[ -p fifo ]
	run argus-cat -o . a.csv
	[ "$status" -eq 73 ]
	[[ "$output" == *"is a directory"* ]]
}

@test "--progress: how far the reading has come, on stderr; the stream unchanged" {
	argus-cat --progress -Z -s 200 a.csv b.csv >progress.out 2>progress.err
	argus-cat -s 200 a.csv b.csv | cmp - progress.out
	# Not a terminal: the totals at the end, from the window's start.
	grep -qx 'argus-cat: read 7 records, up to +0.0 s' progress.err
	[ "$(wc -l <progress.err)" -eq 1 ]
}

@test "--comm: a thread's records from when it takes the name: start, exec, rename" {
	stream >n.csv <<-'EOF'
	meta,,,,source,test
	task,100,40,40,bash
	event,100,40,40,,0,sys_enter,-,0,read
	task,110,50,50,editor
	event,110,50,50,,1,sys_enter,-,0,read
	event,120,40,40,,0,exec,-,/usr/bin/editor,40
	event,130,40,40,,0,sys_exit,-,0,read,1
	task,140,50,51,worker
	event,150,50,51,,1,comm,-,50,51,worker,editor
	event,160,50,51,,1,sys_enter,-,0,write
	EOF
	argus-cat -Z --comm editor n.csv >sel.csv
	# The meta record is about no thread; bash's read, before its exec,
	# and the worker's record before its rename are not the editor's.
	[ "$(grep -c . sel.csv)" -eq 8 ]
	! grep -q '^event,100,' sel.csv || false
	! grep -q '^task,140,' sel.csv || false
	grep -q '^event,130,40,40,' sel.csv
	grep -q '^event,160,50,51,' sel.csv
	argus-cat -Z -c nothing,editor -k task n.csv | grep -qx 'task,110,50,50,editor'
}

@test "clock times: -s and -u take them by the capture's wall-clock anchor, --wall shows them" {
	# Monotonic 1000 s was 2026-11-25 10:00:00 local time.
	wall=$(date -d '2026-11-25 10:00:00' +%s)
	stream >w.csv <<-EOF
	meta,1000000000000,,,wallclock,$(( wall * 1000000000 - 1000000000000 ))
	event,1000000000000,10,11,0,marker,-,zero
	event,1001000000000,10,11,0,marker,-,one
	event,1002500000000,10,11,0,marker,-,two
	EOF
	run argus-cat -k event -s '2026-11-25 10:00:01' -u '2026-11-25T10:00:02' w.csv
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'argus-stream,1\nevent,1001000000000,10,11,0,marker,-,one')" ]
	run argus-cat -k event -s '2026-11-25 10:00:01.5' w.csv
	[ "$(grep -c '^event,' <<<"$output")" -eq 1 ]
	[[ "$output" == *",two" ]]
	run argus-cat -W -k event -t 11 w.csv
	[ "$status" -eq 0 ]
	[[ "$output" == *"event,2026-11-25T10:00:02.500000000,10,11,0,marker,-,two"* ]]
	# Without an anchor a clock time cannot be placed: said, exit 65.
	run argus-cat -s 10:00:01 a.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"--since: a clock time needs the capture's wall-clock anchor"* ]]
	run argus-cat -s 25:61 a.csv
	[ "$status" -eq 64 ]
	[[ "$output" == *"'25:61' is not a clock time"* ]]
}

@test "clock times on a real capture: its first meta records come before the anchor" {
	f="$ROOT/share/examples/data/argus-waits/files/it.gz"
	# The 100th event's clock time selects it, and the capture's facts
	# stay whatever the window.
	t=$(argus-cat -W -k event "$f" | sed -n '100p' | cut -d, -f2)
	[[ "$t" == 20[0-9][0-9]-*T*:*:* ]]
	run argus-cat -s "$t" -u "$t" "$f"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^event,' <<<"$output")" -ge 1 ]
	grep -q '^meta,[0-9]*,,,cpus,' <<<"$output"
	grep -q '^meta,[0-9]*,,,wallclock,' <<<"$output"
	run argus-cat -W "$f"
	[ "$status" -eq 0 ]
}

@test "--header: one kind as a table: its column names, every row as wide" {
	run argus-cat -H -k event a.csv b.csv
	echo "$output"
	[ "$status" -eq 0 ]
	# As wide as the widest event selected (these have no VERTEX column).
	[ "${lines[0]}" = "KIND,TIME,PID,TID,VERTEX,CPU,TYPE,CTX,ARG1,ARG2" ]
	[ "${#lines[@]}" -eq 6 ]
	[ "${lines[2]}" = "event,200,30,31,1,sys_enter,-,0,read," ]
	[ "$(printf '%s\n' "${lines[@]:0:5}" | awk -F, '{ print NF }' | sort -u)" = 10 ]
	# Quoting stays, the comment goes.
	[ "${lines[5]}" = 'event,500,10,12,0,marker,-,"hello, ""world""",,' ]
	# A kind of fixed columns needs no first reading: stdin will do.
	printf 'argus-stream,1\nlost,5,,,0,12\n' | argus-cat -H -k lost >t.csv
	[ "$(cat t.csv)" = "$(printf 'KIND,TIME,PID,TID,CPU,COUNT\nlost,5,,,0,12')" ]
	if command -v sqlite3 >/dev/null; then
		sqlite3 db ".import --csv t.csv lost" "select COUNT from lost" >n
		[ "$(cat n)" = 12 ]
	else
		echo "# sqlite3 not installed: the table is not imported" >&3
	fi
	# What it cannot do, said.
	run argus-cat -H a.csv
	[ "$status" -eq 64 ]
	run argus-cat -H -k event <a.csv
	[ "$status" -eq 64 ]
	[[ "$output" == *"repeated columns (ARG...) is read twice: name its FILEs"* ]]
	run argus-cat -H -k event b.csv - <a.csv
	[ "$status" -eq 64 ]
	printf 'argus-stream,1\nlost,5,,,0,12,extra\n' >wide.csv
	run argus-cat -H -k lost wide.csv
	[ "$status" -eq 65 ]
	[[ "$output" == *"wide.csv:2: 7 columns, more than the 6 argus-stream(5) names for kind lost"* ]]
}
