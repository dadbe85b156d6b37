#!/usr/bin/env bats
# User-space probes: probe sets and --probe in argus-capture, run-loop
# callouts in argus-segment, submit -> invoke links in argus-link.  Tests
# that need tracing skip, saying why, where it is unavailable.
# test/run: alone, a capture here takes the stacks of every cw-renderer
# and counts its own perf events: another file's scenario would add some.

load helpers

setup_file() {
	export GLOOP="$ROOT/test/progs/gloop"
	export GLIB_PROBES="$ROOT/patchers/glib.probes"
	export PWAKE="$ROOT/test/progs/pthread-wake"
	export PTHREAD_PROBES="$ROOT/patchers/pthread.probes"
}

setup() {
	T="$BATS_TEST_TMPDIR"
}

# need_uprobes [PROGRAM]: tracing, uprobes, and the test program built.
need_uprobes() {
	need_tracing
	[ -e "$TFS/uprobe_events" ] || skip "uprobes unavailable: no $TFS/uprobe_events (CONFIG_UPROBE_EVENTS)"
	[ "${1:-$GLOOP}" != "$GLOOP" ] || [ -x "$GLOOP" ] ||
	    skip "test/progs/gloop not built (needs libglib2.0-dev, pkg-config)"
	need_prog "${1:-$GLOOP}"
}

# Our probes, by the capture's pid, in the global uprobe_events.
probes_of() { grep -c "^[pr]:argus_$1/" "$TFS/uprobe_events" || true; }



@test "probes: malformed --probe and probe files are usage errors" {
	run argus-capture --probe nocolon -d 1 -o /dev/null
	[ "$status" -eq 64 ]
	[[ "$output" == *"expected LIB:SYMBOL"* ]]
	run argus-capture --probe 'libc.so.6:malloc=bad-name' -d 1 -o /dev/null
	[ "$status" -eq 64 ]
	run argus-capture --probe 'libc.so.6:malloc+zz' -d 1 -o /dev/null
	[ "$status" -eq 64 ]
	run argus-capture --probe 'libc.so.6:malloc%exit' -d 1 -o /dev/null
	[ "$status" -eq 64 ]
	printf 'libc.so.6 malloc\n' > "$T/bad.probes"
	run argus-capture --probes "$T/bad.probes" -d 1 -o /dev/null
	[ "$status" -eq 64 ]
	[[ "$output" == *"bad.probes:1:"* ]]
	printf '# ok\nlibc.so.6 malloc alloc sometimes\n' > "$T/bad.probes"
	run argus-capture --probes "$T/bad.probes" -d 1 -o /dev/null
	[ "$status" -eq 64 ]
	[[ "$output" == *"bad.probes:2:"* ]]
	run argus-capture --probes "$T/none.probes" -d 1 -o /dev/null
	[ "$status" -eq 66 ]
}

@test "probes: a GLib main loop, one callout vertex per dispatched callback, submit -> invoke links" {
	need_uprobes
	run timeout 60 argus-capture -d 20 -Z -o "$T/t.csv" --probes "$GLIB_PROBES" -- "$GLOOP"
	echo "$output"
	[ "$status" -eq 0 ]
	calls=$(awk '$1 == "calls" { print $2 }' <<< "$output")
	[ "$calls" = 16 ]
	pid=$(awk -F, '$1 == "meta" && $5 == "command_pid" { print $6 }' "$T/t.csv")
	[ -n "$pid" ]
	grep -q '^meta,[0-9]*,,,probe,runloop_begin .*libglib-2.0.so.*:\*g_idle_funcs+0x10$' "$T/t.csv"
	grep -q '^meta,[0-9]*,,,probe,runloop_submit .*:g_source_attach$' "$T/t.csv"
	# Named after the capture, and gone with it.
	cap=$(awk -F, '$1 == "meta" && $5 == "instance" { sub(/.*argus-/, "", $6); print $6 }' "$T/t.csv")
	[ -n "$cap" ]
	[ "$(probes_of "$cap")" = 0 ]

	argus-segment -q "$T/t.csv" | argus-link -q -Z > "$T/g.csv"
	# Each dispatch (16: 5 ticks, 5 idles, 5 one-shot timeouts, a quit)
	# is a vertex of the main thread of its own, begun by the callout
	# heuristic, its runloop_end in the same vertex.
	awk -F, -v p="$pid" '
	    $1 == "event" && $3 == p && $4 == p && $7 == "runloop_begin" {
		nb++; if ($5 in begin) dup++; begin[$5] = 1; src[$5] = $9 }
	    $1 == "event" && $3 == p && $4 == p && $7 == "runloop_end" { end[$5]++ }
	    $1 == "vertex" && $3 == p && $4 == p { by[$5] = $10 }
	    $1 == "link" && $8 == "runloop" { link[$6] = $5; lfrom[$6] = $10 "/" $11; label[$6] = $12 }
	    END {
		nl = 0
		for (v in begin) {
			if (by[v] != "callout") { print "vertex " v " began by " by[v]; bad++ }
			if (end[v] != 1) { print "vertex " v ": " end[v] + 0 " runloop_end"; bad++ }
			if (v in link) {
				nl++
				if (lfrom[v] != p "/" p) { print "link to " v " from " lfrom[v]; bad++ }
				if (label[v] != src[v]) { print "link to " v " labelled " label[v] " for " src[v]; bad++ }
			}
		}
		print nb " dispatches, " dup + 0 " sharing a vertex, " nl " runloop links"
		exit !(nb == 16 && dup == 0 && nl == 12 && bad == 0)
	    }' "$T/g.csv"
	# Every runloop link ends at a dispatch.
	[ "$(grep -c '^link,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,strong,runloop,' "$T/g.csv")" = 12 ]
	# --no-runloop switches the rule off.
	run sh -c "argus-segment -q '$T/t.csv' | argus-link -q --no-runloop | grep -c '^link,.*,runloop,'"
	[ "$output" = 0 ]
}

@test "probes: removed from uprobe_events after the capture, also after SIGINT and SIGTERM" {
	need_uprobes
	run timeout 60 argus-capture -d 0.5 -o /dev/null --probes "$GLIB_PROBES"
	[ "$status" -eq 0 ]
	argus-capture -d 60 -o "$T/t.gz" --probes "$GLIB_PROBES" 2> "$T/err" &
	cap=$!
	wait_capture "$cap"
	n=$(probes_of "$cap")
	echo "probes while running: $n"
	[ "$n" -ge 3 ]
	"$GLOOP" > /dev/null
	kill -INT "$cap"
	wait "$cap"
	[ "$(probes_of "$cap")" = 0 ]
	[ ! -d "$TFS/instances/argus-$cap" ]
	zcat "$T/t.gz" | grep -q ',runloop_begin,'
	# And SIGTERM.
	argus-capture -d 60 -o /dev/null --probes "$GLIB_PROBES" 2>/dev/null &
	cap=$!
	wait_capture "$cap"
	[ "$(probes_of "$cap")" -ge 3 ]
	kill -TERM "$cap"
	wait "$cap" || true
	[ "$(probes_of "$cap")" = 0 ]
}

@test "probes: stale probes of a capture killed with SIGKILL are removed by the next" {
	need_uprobes
	argus-capture -d 60 -o /dev/null --probes "$GLIB_PROBES" 2>/dev/null &
	cap=$!
	wait_capture "$cap"
	[ "$(probes_of "$cap")" -ge 3 ]
	kill -KILL "$cap"
	wait "$cap" || true
	[ "$(probes_of "$cap")" -ge 3 ]
	run timeout 60 argus-capture -d 0.2 -o /dev/null
	[ "$status" -eq 0 ]
	[ "$(probes_of "$cap")" = 0 ]
	# Any capture reaps: on a shared machine another may have come first.
	[[ "$output" == *"removed uprobe argus_$cap/"* ]] ||
	    skip "another capture on this machine removed the probes first"
}

@test "probes: a missing symbol or library warns and the capture goes on" {
	need_uprobes
	run timeout 60 argus-capture -d 20 -Z -o "$T/t.csv" --probes "$GLIB_PROBES" \
	    --probe libglib-2.0.so.0:no_such_symbol --probe libnosuch.so.9:foo -- "$GLOOP"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"no symbol no_such_symbol: no no_such_symbol events"* ]]
	[[ "$output" == *"library libnosuch.so.9 not found"* ]]
	pid=$(awk -F, '$1 == "meta" && $5 == "command_pid" { print $6 }' "$T/t.csv")
	[ "$(grep -c "^event,[0-9]*,$pid,$pid,,[0-9]*,runloop_begin,-,0x" "$T/t.csv")" = 16 ]
	grep -q "^meta,[0-9]*,,,lost,0$" "$T/t.csv"
}

@test "probes: --probe with an offset, a return probe and an event name" {
	need_uprobes
	run timeout 60 argus-capture -d 20 -Z -o "$T/t.csv" \
	    --probe 'libglib-2.0.so.0:g_main_loop_run=loop_run' \
	    --probe 'libglib-2.0.so.0:g_main_loop_run%return=loop_done' \
	    --probe 'libglib-2.0.so.0:g_main_loop_quit+0' -- "$GLOOP"
	echo "$output"
	[ "$status" -eq 0 ]
	pid=$(awk -F, '$1 == "meta" && $5 == "command_pid" { print $6 }' "$T/t.csv")
	grep -q "^event,[0-9]*,$pid,$pid,,[0-9]*,loop_run,-,0x[0-9a-f]*\$" "$T/t.csv"
	grep -q "^event,[0-9]*,$pid,$pid,,[0-9]*,loop_done,-,0x[0-9a-f]*\$" "$T/t.csv"
	grep -q "^event,[0-9]*,$pid,$pid,,[0-9]*,g_main_loop_quit,-,0x[0-9a-f]*\$" "$T/t.csv"
}

@test "probes: pthreads, a wake-up inside pthread_cond_signal is strong, inside pthread_mutex_unlock weak" {
	need_uprobes "$PWAKE"
	run timeout 60 argus-capture -d 20 -Z -o "$T/t.csv" --probes "$PTHREAD_PROBES" -- "$PWAKE"
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" > "$T/ids"
	load_ids "$T/ids"
	[ -n "$consumer" ]
	[ -n "$holder" ]
	[ -n "$mutex" ]
	grep -Eq '^meta,[0-9]*,,,probe,mutex_unlock_end .*libc.so.6:pthread_mutex_unlock%return( skip=5)?$' "$T/t.csv"
	argus-segment -q "$T/t.csv" | argus-link -q -Z > "$T/g.csv"
	# Wake-ups from the producer to the consumer: the condition's
	# signals, strong, labelled with the condition variable.
	check_cond_links "$T/t.csv" "$T/g.csv"
	# The priority-inheritance mutex's hand-offs (FUTEX_LOCK_PI, which
	# the futex lock protocol does not show): weak, labelled with it.
	awk -F, -v from="$holder" -v to="$contender" -v obj="$mutex" '
	    $1 == "link" && $4 == to && $11 == from && $8 == "lock" && $7 == "weak" && $12 == obj { print $9 }
	    ' "$T/g.csv" > "$T/handoffs"
	cat "$T/handoffs"
	[ "$(wc -l < "$T/handoffs")" -ge 4 ]
	# Without the probe events those same wake-ups are strong plain ones.
	grep -Ev ',(cond_signal|cond_signal_end|cond_wait|mutex_lock|mutex_lock_end|mutex_unlock|mutex_unlock_end),-,' "$T/t.csv" |
	    argus-segment -q | argus-link -q -Z > "$T/bare.csv"
	awk -F, 'NR == FNR { want[$1] = 1; next }
	    $1 == "link" && ($9 in want) && $8 != "wait" { print; if ($8 == "wakeup" && $7 == "strong") n++; else bad++ }
	    END { exit !(n == want_n && bad == 0) }' want_n="$(wc -l < "$T/handoffs")" "$T/handoffs" "$T/bare.csv"
	# --no-cond names no signals; --no-lock leaves hand-offs strong.
	[ "$(argus-segment -q "$T/t.csv" | argus-link -q --no-cond | grep -c '^link,.*,cond,')" = 0 ]
	[ "$(argus-segment -q "$T/t.csv" | argus-link -q --no-lock | grep -c "^link,.*,lock,.*,$mutex\$")" = 0 ]
}

@test "probes: pthreads, the waiter's side: a thread woken inside pthread_mutex_lock was handed a lock" {
	need_uprobes "$PWAKE"
	run timeout 60 argus-capture -d 20 -Z -o "$T/t.csv" --probe 'libc.so.6:pthread_mutex_lock=mutex_lock' \
	    --probe 'libc.so.6:pthread_mutex_lock%return=mutex_lock_end' -- "$PWAKE"
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" > "$T/ids"
	load_ids "$T/ids"
	[ -n "$holder" ]
	[ -n "$mutex" ]
	argus-segment -q "$T/t.csv" | argus-link -q -Z > "$T/g.csv"
	n=$(awk -F, -v from="$holder" -v to="$contender" -v obj="$mutex" '
	    $1 == "link" && $4 == to && $11 == from && $8 == "lock" && $7 == "weak" && $12 == obj' "$T/g.csv" | wc -l)
	echo "$n hand-offs"
	[ "$n" -ge 4 ]
}

@test "probes: skip= goes past the named bytes, or warns and probes the entry" {
	printf 'libc.so.6 pthread_mutex_unlock u skip=b\n' > "$T/bad.probes"
	run argus-capture --probes "$T/bad.probes" -d 1 -o /dev/null
	[ "$status" -eq 64 ]
	[[ "$output" == *"bad.probes:1: skip= takes"* ]]
	printf 'libc.so.6 pthread_mutex_unlock+1 u skip=be\n' > "$T/bad.probes"
	run argus-capture --probes "$T/bad.probes" -d 1 -o /dev/null
	[ "$status" -eq 64 ]
	need_uprobes "$PWAKE"
	# No function begins with an int3.
	printf 'libc.so.6 pthread_cond_signal signalled skip=cc\n' > "$T/cc.probes"
	run timeout 60 argus-capture -d 20 -Z -o "$T/t.csv" --probes "$T/cc.probes" -- "$PWAKE"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cc.probes:1: pthread_cond_signal does not begin with the bytes skip= names"* ]]
	grep -q '^meta,[0-9]*,,,probe,signalled .*libc.so.6:pthread_cond_signal$' "$T/t.csv"
	[ "$(grep -c ',signalled,-,0x' "$T/t.csv")" -ge 5 ]
}

@test "stacks: --stacks of a dead or bad pid is a usage error" {
	run argus-capture --stacks 0 -d 1 -o /dev/null
	[ "$status" -eq 64 ]
	run argus-capture --stacks banana -d 1 -o /dev/null
	[ "$status" -eq 64 ]
	run argus-capture --stacks 4194303 -d 1 -o /dev/null
	[ "$status" -eq 64 ]
	[[ "$output" == *"--stacks 4194303: no such process"* ]]
}

@test "stacks: circular-wait's hang blocks in a stack that names ask_renderer_for_text_rect" {
	need_tracing
	sc="$ROOT/test/scenarios/circular-wait"
	need_prog "$sc"
	# Episodes first (about 1.2 s), so that the capture is on before the hang.
	"$sc" -n 8 -H 1 -t "$T/truth" &
	pid=$!
	run timeout 60 argus-capture -d 4 -Z -o "$T/t.csv" --stacks "$pid"
	wait "$pid"
	[ "$status" -eq 0 ]
	load_ids "$T/truth"
	[ "$victim_tid" = "$pid" ]
	grep -q "^meta,[0-9]*,,,stack_pid,$pid\$" "$T/t.csv"
	# The victim's blocking wait in the hang, and the stack right after it.
	awk -F, -v b="$hang_begin_ns" -v e="$hang_end_ns" -v t="$victim_tid" '
	    ($1 != "event" && $1 != "stack") || $4 != t { next }
	    $1 == "event" { got = ($7 == "switch" && $9 == "S" && $2 >= b && $2 < e); next }
	    got { print; found = 1; exit }
	    END { exit !found }' "$T/t.csv" > "$T/hang.stack"
	cat "$T/hang.stack"
	grep -q ',ask_renderer_for_text_rect+0x[0-9a-f]*,' "$T/hang.stack"
	grep -q ',libc.so.6!' "$T/hang.stack"
	# Stacks are only of the chosen process.
	[ "$(awk -F, '$1 == "stack" && $3 != p' p="$pid" "$T/t.csv" | wc -l)" = 0 ]
}

@test "stacks: a program built without frame pointers unwinds through libc to main" {
	need_tracing
	nofp="$ROOT/test/progs/nofp"
	need_prog "$nofp"
	# A name of its own: a nofp of a suite run beside this one would
	# be named too, sampled late (its first waits missed), and stacked.
	cp "$nofp" "$T/nofp$$"
	nofp="$T/nofp$$"
	# Its maps are read when its first stack is written: the 4 s wait
	# keeps it alive while a formatter on a busy machine catches up.
	run timeout 60 argus-capture -d 20 -Z -o "$T/t.csv" --stacks-comm "nofp$$" -- "$nofp" 4
	echo "$output"
	grep '^meta,[0-9]*,,,stack' "$T/t.csv" || true
	[ "$status" -eq 0 ]
	pid=$(awk -F, '$1 == "meta" && $5 == "command_pid" { print $6 }' "$T/t.csv")
	[ -n "$pid" ]
	# Its blocking read, and the stack right after it: the read, then
	# its two callers and main, in order.
	awk -F, -v t="$pid" '
	    ($1 != "event" && $1 != "stack") || $4 != t { next }
	    $1 == "event" { got = ($7 == "switch" && $9 == "S"); next }
	    got { print; found = 1; exit }
	    END { exit !found }' "$T/t.csv" > "$T/wait.stack"
	cat "$T/wait.stack"
	grep -Eq ',libc\.so\.6![^,]*read[^,]*,wait_for_reply\+0x[0-9a-f]+,ask_server\+0x[0-9a-f]+,main\+0x[0-9a-f]+,' "$T/wait.stack"
	grep -q '^meta,[0-9]*,,,stacks_missed,0$' "$T/t.csv"
	# Stacks are only of the program named: it and the child it forks.
	awk -F, -v p="$pid" '$1 == "event" && $3 == p && $7 == "fork" { named[$9] = 1 }
	    $1 == "stack" { n++; if ($3 != p && !($3 in named)) { print "not nofp:", $0; bad++ } }
	    END { print n " stacks"; exit !(n >= 2 && bad == 0) }' "$T/t.csv"
}

@test "stacks: a process named later gets stacks, and its perf events go when it exits" {
	need_tracing
	sc="$ROOT/test/scenarios/circular-wait"
	need_prog "$sc"
	argus-capture -d 30 -Z -o "$T/t.csv" --stacks-comm cw-renderer 2>/dev/null 3>&- &
	cap=$!
	wait_capture "$cap"
	base=$(ls "/proc/$cap/fd" | wc -l)
	"$sc" -n 20 --no-hang > /dev/null &
	pid=$!
	sleep 1
	during=$(ls "/proc/$cap/fd" | wc -l)
	wait "$pid"
	# The formatter learns of the exit a moment later.
	for i in $(seq 50); do
		[ "$(ls "/proc/$cap/fd" | wc -l)" -le "$base" ] && break
		sleep 0.1
	done
	after=$(ls "/proc/$cap/fd" | wc -l)
	kill -INT "$cap"
	wait "$cap"
	echo "fds: $base before, $during while it ran, $after after"
	[ "$during" -gt "$base" ]
	[ "$after" -le "$base" ]
	n=$(grep -c '^stack,.*,renderer_main+0x' "$T/t.csv")
	echo "$n stacks in renderer_main"
	[ "$n" -ge 10 ]
}
