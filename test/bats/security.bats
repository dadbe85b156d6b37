#!/usr/bin/env bats
# A root tool among other users: what any local user (nobody here) can
# plant where root's argus looks must neither hang it nor steer it.
# Every root command runs under timeout: a hang is a failure, not a hung
# suite.  Robust to other captures running: only our own processes and
# instances are looked at.

load helpers

setup() {
	T="$BATS_TEST_TMPDIR"
	cd "$T"
	MAPFIFO="$ROOT/test/progs/mapfifo"
}

# Whatever a failed test left: its processes, its recorders (a capture
# hung in its exit, as a refused start left one, is killed), their
# instances, what nobody planted.
teardown() {
	local f p
	for f in "$T"/*.kill; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
	done
	for f in "$T"/ring*; do
		[ -d "$f" ] || continue
		if [ -f "$f/recorder.pid" ]; then
			timeout 60 argus --ring "$f" stop >/dev/null 2>&1 || true
		fi
		for p in $(pgrep -f -- "^argus-capture --ring $f "); do
			kill -KILL "$p" 2>/dev/null || true
			sleep 0.2
			rmdir "$TFS/instances/argus-$p-early" "$TFS/instances/argus-$p" 2>/dev/null || true
		done
	done
	[ -z "${SQUAT:-}" ] || rm -rf "$SQUAT"
	pub_cleanup
}

# mapfifo_start NAME MODE [TARGET]: mapfifo as nobody in $PUB/NAME; its
# pid in $mf_pid once its trap is set.
mapfifo_start() {
	local name=$1 i
	shift
	as_nobody mkdir "$PUB/$name"
	# Not through as_nobody, a function: $! is then mapfifo's pid
	# (setpriv execs it).  Without bats' descriptor 3, or bats waits.
	setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups \
	    "$MAPFIFO" "$PUB/$name" "$@" >"$T/$name.out" 2>&1 3>&- &
	mf_pid=$!
	echo "$mf_pid" >"$T/$name.kill"
	for i in $(seq 300); do
		grep -q '^ready$' "$T/$name.out" && return 0
		kill -0 "$mf_pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$T/$name.out"
	return 1
}

@test "security: a FIFO or a link at a mapped file's name in /proc/PID/maps holds no root tool, nor has it open what nobody chose" {
	need_nobody
	need_tracing
	need_prog "$MAPFIFO"
	pub_dir
	ring="$T/ring"
	run timeout 120 argus --ring "$ring" start -b 64M
	echo "$output"
	[ "$status" -eq 0 ]
	# A FIFO only root may open: following nobody's link to it blocks.
	mkdir -m 700 "$T/rootonly"
	mkfifo "$T/rootonly/fifo"
	mapfifo_start f fifo
	fifo_pid=$mf_pid
	mapfifo_start l link "$T/rootonly/fifo"
	link_pid=$mf_pid
	grep -q "$PUB/f/p (deleted)" "/proc/$fifo_pid/maps"
	[ -p "$PUB/f/p (deleted)" ]
	[ -L "$PUB/l/p (deleted)" ]
	# Blocked a second and more: mark takes the stacks of such threads;
	# and past debug's 2 s threshold, a hang it reports (at 1.5 s, a
	# debug found the wait 1.9 s long when it cut it: no hang).
	sleep 3
	for p in "$fifo_pid" "$link_pid"; do
		run timeout 60 argus --ring "$ring" debug --pid "$p" --auto
		echo "debug --pid $p: $status: $output"
		# 0 or 1 (a hang found or not): not 124, timed out.
		[ "$status" -le 1 ]
		# Its own frames still named, through the kernel's reference.
		[[ "$output" == *"mapfifo $p/$p"*"in main"* ]]
	done
	run timeout 60 argus --ring "$ring" mark it hangs
	echo "mark: $output"
	[ "$status" -eq 0 ]
	for p in "$fifo_pid" "$link_pid"; do
		run timeout 60 argus-capture --stacks "$p" -d 1 -o "$T/s$p.gz"
		echo "argus-capture --stacks $p: $status: $output"
		[ "$status" -eq 0 ]
	done
	# What nobody planted is still there, untouched.
	[ -p "$PUB/f/p (deleted)" ]
	[ -L "$PUB/l/p (deleted)" ]
	run timeout 60 argus --ring "$ring" stop
	[ "$status" -eq 0 ]
}

@test "security: a program on another user's FUSE file system whose daemon answers nothing holds no root tool" {
	need_nobody
	need_tracing
	need_prog "$ROOT/test/progs/fusestall"
	ring="$T/ring"
	run timeout 120 argus --ring "$ring" start -b 64M
	echo "$output"
	[ "$status" -eq 0 ]
	# As nobody's fusermount with allow_other would mount it: root may
	# look in.  The daemon takes each request and answers none: a look
	# at the program's file would wait for it uninterruptibly.
	"$ROOT/test/progs/fusestall" "$(id -u nobody)" "$(command -v sleep)" 100 \
	    >"$T/fs.out" 2>&1 3>&- &
	echo $! >"$T/fusestall.kill"
	for i in $(seq 100); do
		grep -qxE 'ready|unsupported' "$T/fs.out" && break
		sleep 0.1
	done
	cat "$T/fs.out"
	if grep -qx unsupported "$T/fs.out"; then
		timeout 60 argus --ring "$ring" stop
		skip "no FUSE here (/dev/fuse, a mount)"
	fi
	read -r _ prog < <(grep '^program ' "$T/fs.out")
	grep -q ' /mnt/fs/prog$' "/proc/$prog/maps"
	# Past debug's 2 s threshold, a hang it reports.
	sleep 3
	run timeout 60 argus --ring "$ring" debug --pid "$prog" --auto
	echo "debug --pid $prog: $status: $output"
	# 0 or 1 (a hang found or not): not 124, timed out.
	[ "$status" -le 1 ]
	[[ "$output" == *"prog $prog/$prog (S): in prog+0x"*"(clock_nanosleep)"* ]]
	run timeout 60 argus --ring "$ring" mark it hangs
	echo "mark: $output"
	[ "$status" -eq 0 ]
	run timeout 60 argus-capture --stacks "$prog" -d 1 -o "$T/s.gz"
	echo "argus-capture --stacks $prog: $status: $output"
	[ "$status" -eq 0 ]
	run timeout 60 argus --ring "$ring" stop
	[ "$status" -eq 0 ]
}

@test "security: a patch directory's old name taken by nobody, or a --patch-dir of nobody's: start returns, leaving no recorder nor instance" {
	need_nobody
	need_tracing
	[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no /dev/shm"
	pub_dir
	ring="$T/ring"
	mkdir -m 700 "$ring"
	# The name argus start used to give it, from the ring's device and
	# inode: anyone could compute it and take it first.
	read -r dev ino < <(stat -c '%d %i' "$ring")
	SQUAT=$(printf '/dev/shm/argus-patch-0-%x-%x' "$dev" "$ino")
	as_nobody mkdir "$SQUAT"
	run timeout 60 argus --ring "$ring" start -b 8M
	echo "$output"
	[ "$status" -eq 0 ]
	# Patched programs' directory: unguessable, root's alone, linked
	# from the ring's directory, gone at stop.
	pdir=$(readlink "$ring/patch")
	[[ "$pdir" == /dev/shm/argus-patch.* ]]
	[ "$(stat -c '%U %a' "$pdir")" = "root 700" ]
	run timeout 60 argus --ring "$ring" stop
	[ "$status" -eq 0 ]
	[ ! -e "$pdir" ]
	[ ! -L "$ring/patch" ]
	[ "$(stat -c %U "$SQUAT")" = nobody ]

	# A directory of nobody's given: refused, and the start returns.
	as_nobody mkdir "$PUB/squat"
	ring="$T/ring2"
	ls "$TFS/instances" >"$T/before"
	run timeout 60 argus --ring "$ring" start -b 8M --patch-dir "$PUB/squat"
	echo "$output"
	[ "$status" -eq 77 ]
	[[ "$output" == *"$PUB/squat: "*"not"* ]]
	[[ "$output" == *"the recorder did not start"* ]]
	! pgrep -f -- "^argus-capture --ring $ring " >/dev/null || false
	# No instance of a capture that is gone appeared meanwhile (one of
	# another file's captures may end, its instance with it, as we look).
	for n in $(ls "$TFS/instances" | grep -vxF -f "$T/before" | grep -E '^argus-[0-9]+(-early)?$'); do
		i=${n#argus-}
		kill -0 "${i%-early}" 2>/dev/null || [ ! -e "$TFS/instances/$n" ]
	done
	[ -z "$(ls -A "$PUB/squat")" ]
	[ ! -e "$ring/recorder.pid" ]
}
