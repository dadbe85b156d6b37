#!/usr/bin/env bats
# An event type is one line of lib/events.def and its entry in
# argus-stream(5): the capture, the import and the export follow from
# them.  sched_migrate_task (type migrate) came in that way.

load helpers

@test "events: a migration in a kernel's ftrace text is imported as a migrate record" {
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' '# tracer: nop' \
	    '         taskset-700   (  700) [001] d..2.   5.000001: sched_migrate_task: comm=spinner pid=812 prio=120 orig_cpu=0 dest_cpu=1' \
	    >t.txt
	argus-import -Z t.txt >s.csv
	grep -qx 'event,5000001000,700,700,,1,migrate,-,,812,0,1,spinner' s.csv ||
	    { cat s.csv; return 1; }
	! grep -q '^meta,.*,skipped,' s.csv || false
	# And back: argus-export's line is read the same.
	argus-export -f ftrace s.csv >back.txt
	grep -q 'sched_migrate_task: .*pid=812' back.txt
	argus-import -Z back.txt | grep -qx 'event,5000001000,700,700,,1,migrate,-,,812,0,1,spinner'
}

@test "events: argus-capture records a thread that taskset moves to another CPU" {
	need_tracing
	need_prog taskset
	[ "$(nproc)" -ge 2 ] || skip "one CPU: nowhere to migrate to"
	cd "$BATS_TEST_TMPDIR"
	ln -s "$(command -v yes)" migrant
	./migrant >/dev/null &
	local m=$! i
	# Moved back and forth while the capture runs, from 1 s in on.
	( sleep 1; for i in 0 1 0 1 0 1; do taskset -p -c "$i" "$m"; sleep 0.3; done ) \
	    >/dev/null 2>&1 &
	local mover=$!
	argus-capture -Z -s none -c migrant -d 4 -o t.csv
	wait "$mover" || true
	kill "$m"
	grep -qE "^event,[0-9]+,[0-9]*,[0-9]+,,[01],migrate,[-shn],$m,$m,[01],[01],migrant\$" t.csv ||
	    { grep ',migrate,' t.csv | head; return 1; }
}

@test "events: a wake-up's PRIO, a column of lib/events.def, is imported and exported; a stream without it exports 120" {
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' '# tracer: nop' \
	    '          chrt-700   (  700) [001] d..2.   5.000001: sched_waking: comm=rt pid=812 prio=89 target_cpu=001' \
	    >t.txt
	argus-import -Z t.txt >s.csv
	grep -qx 'event,5000001000,700,700,,1,waking,-,,812,1,rt,89' s.csv ||
	    { cat s.csv; return 1; }
	argus-export -f ftrace s.csv >back.txt
	grep -q 'sched_waking: comm=rt pid=812 prio=89 target_cpu=001$' back.txt
	# Before the column: the kernel's priority at nice 0, as always.
	sed 's/,89$//' s.csv >old.csv
	argus-export -f ftrace old.csv | grep -q 'sched_waking: comm=rt pid=812 prio=120 target_cpu=001$'
}
