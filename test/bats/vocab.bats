#!/usr/bin/env bats
# The words the stages share (link rules, segment heuristics, spin
# classes) are tables in lib/graph.c; the programs' --help comes from
# them, and the man pages must list exactly what the tables hold.

load helpers

# The names --help gives a --no- switch to, one a line.
switches() { "$1" --help | sed -n 's/^  --no-\([^ ]*\) .*/\1/p'; }

same() {	# what: lists as files
	diff -u "$2" "$3" || { echo "$1 disagree"; return 1; }
}

@test "vocab: argus-link's rules are argus-link(1)'s and argus-stream(5)'s" {
	cd "$BATS_TEST_TMPDIR"
	switches argus-link >help
	[ "$(wc -l <help)" -ge 16 ]
	argus-link --rules | awk 'NR > 1 { print $1 }' >table
	man_list argus-link.1 rules >link.1
	man_list argus-stream.5 rules >stream.5
	same "argus-link --help and --rules" help table
	same "argus-link --help and argus-link(1)" help link.1
	same "argus-link --help and argus-stream(5)" help stream.5
}

@test "vocab: argus-segment's heuristics are argus-segment(1)'s" {
	cd "$BATS_TEST_TMPDIR"
	switches argus-segment >help
	[ "$(wc -l <help)" -ge 6 ]
	man_list argus-segment.1 heuristics >segment.1
	same "argus-segment --help and argus-segment(1)" help segment.1
}

@test "vocab: argus-spin's classes are argus-spin(1)'s and argus-stream(5)'s" {
	cd "$BATS_TEST_TMPDIR"
	argus-spin --help | sed -n '/^classify it:/,/^$/s/^  \([^ ]*\) .*/\1/p' >help
	[ "$(wc -l <help)" -ge 3 ]
	man_list argus-spin.1 classes >spin.1
	man_list argus-stream.5 classes >stream.5
	same "argus-spin --help and argus-spin(1)" help spin.1
	same "argus-spin --help and argus-stream(5)" help stream.5
}

@test "vocab: every --no- switch of argus-link and argus-segment works alone" {
	cd "$BATS_TEST_TMPDIR"
	stream >s.csv </dev/null
	for p in argus-link argus-segment; do
		for r in $(switches "$p"); do
			run "$p" -q "--no-$r" s.csv
			[ "$status" -eq 0 ] || { echo "$p --no-$r: $output"; return 1; }
			[[ "$output" == *"summary,"* ]]
		done
	done
	run argus-link --no-such-rule s.csv
	[ "$status" -eq 64 ]
}

# The keys of a program's summary record, but those of its totals.
summary_keys() {
	awk -F, -v p="$1" '$1 == "summary" && $5 == p {
		for (i = 6; i < NF; i += 2) print $i }' | grep -vx -e strong -e weak \
	    -e events -e vertices -e culled
}

@test "vocab: the summaries count by the tables' names" {
	cd "$BATS_TEST_TMPDIR"
	stream >s.csv </dev/null
	argus-link -q -Z s.csv | summary_keys argus-link >link
	switches argus-link >help
	same "argus-link's summary and --help" help link
	argus-segment -q -Z s.csv | summary_keys argus-segment >segment
	switches argus-segment >help
	same "argus-segment's summary and --help" help segment
}

@test "vocab: argus-cat --header names the columns argus-stream(5) gives each kind" {
	for k in vertex link spin baseline step root holder ksym sock; do
		man=$(grep -E "^$k,TIME,PID,TID," "$ROOT/share/man/argus-stream.5")
		[ -n "$man" ]
		head=$(printf 'argus-stream,1\n' | argus-cat -H -k "$k")
		echo "$k: $head / $man"
		[ "$head" = "KIND,${man#$k,}" ]
	done
}

# "TYPE COLUMN..." for each event type of lib/events.def, sorted: those
# of a macOS kdebug trace only (EF_KDEBUG) with $1 "kdebug", the others
# with $1 "main".  The table as the compiler reads it, flags and all, so no
# second parser of its own.
table_types() {
	[ -x types ] || printf '%s\n' '#include <stdio.h>' '#include "event.h"' \
	    '#define COL(name, kind, field) " " #name' '#define USE(field)' \
	    '#define EVENT(id, type, sys, tp, flags, cols) \' \
	    '	printf("%s %s%s\n", (flags) & EF_KDEBUG ? "kdebug" : "main", \' \
	    '	    type, "" cols);' \
	    'int main(void) {' '#include "events.def"' 'return 0; }' |
	    "${CC:-cc}" -I "$ROOT/lib" -x c -o types - || return 1
	./types | awk -v list="$1" '$1 == list { $1 = ""; $0 = $0; $1 = $1; print }' |
	    sort
}

# The same from argus-stream(5)'s EVENT TYPES ($1 "main") or its list of
# the types of a macOS kdebug trace ($1 "kdebug"): each ".It Cm TYPE ,
# TYPE" between the list's markers, with the ".Ar" columns of the line
# after it, up to an optional one (Op: a column only another system's
# traces have).
man_types() {
	local m='event types'

	[ "$1" = kdebug ] && m='kdebug event types'
	sed -n "/^\\.\\\\\" $m: begin/,/^\\.\\\\\" $m: end/p" \
	    "$ROOT/share/man/argus-stream.5" |
	    awk '/^\.It Cm / {
		sub(/^\.It /, ""); gsub(/Cm /, ""); gsub(/ , /, " ")
		n = split($0, types, " ")
		getline
		cols = ""
		for (i = 1; i <= NF && $i != "Op"; i++)
			if ($i == "Ar" || $i == ".Ar")
				cols = cols " " $(i + 1)
		for (j = 1; j <= n; j++)
			print types[j] cols
	    }' | sort
}

@test "vocab: argus-stream(5) lists lib/events.def's event types with their columns" {
	cd "$BATS_TEST_TMPDIR"
	table_types main >table
	man_types main >stream.5
	[ "$(wc -l <table)" -ge 40 ]
	grep -qx 'switch STATE TPID TTID TCOMM' table
	same "lib/events.def and argus-stream(5)" table stream.5
	# A macOS trace's own types, in the list after the Linux ones.
	table_types kdebug >table.kdebug
	man_types kdebug >stream.5.kdebug
	grep -qx 'mach_wait EVENT INTERRUPTIBLE DEADLINE' table.kdebug
	grep -qx 'kdebug CODE FUNC ARG1 ARG2 ARG3 ARG4' table.kdebug
	same "lib/events.def's EF_KDEBUG types and argus-stream(5)'s kdebug list" \
	    table.kdebug stream.5.kdebug
}

@test "vocab: an event's column is read by its name in lib/events.def (ECOL), never by number" {
	cd "$BATS_TEST_TMPDIR"
	# event_str(ev, 2), event_u64(ev, 1), record_str(rec, EC_ARG + 3):
	# adding a column to a type would move every number after it.
	grep -rnE --include='*.c' --include='*.h' \
	    'event_[a-z0-9_]+\([^,()]*, *[0-9]|EC_ARG *\+ *[0-9]' \
	    "$ROOT/bin" "$ROOT/lib" "$ROOT/capture" "$ROOT/patchers" >numbers ||
	    true
	[ ! -s numbers ] || { cat numbers; false; }
	# The check sees what it is meant to.
	printf '%s\n' '	s = event_str(ev, 2);' >probe.c
	grep -qE 'event_[a-z0-9_]+\([^,()]*, *[0-9]' probe.c
	grep -q 'ECOL(E_SWITCH, STATE)' "$ROOT/bin/segment/split_at_wait.c"
}

@test "vocab: a record's KIND is named by lib/stream.h's KIND_*, never spelt in a stage" {
	cd "$BATS_TEST_TMPDIR"
	# A kind compared or written as a string of its own: strcmp on the
	# KIND column, writer_begin, is_kind.
	grep -rnE --include='*.c' --include='*.h' \
	    '(f\[(COL_KIND|0)\]|kind), "[a-z_]+"\)|(writer_begin|is_kind)\([^,]*, "[a-z_]+"\)' \
	    "$ROOT/bin" "$ROOT/lib" "$ROOT/capture" >literals || true
	[ ! -s literals ] || { cat literals; false; }
	grep -q '^#define KIND_TASK' "$ROOT/lib/stream.h"
}
