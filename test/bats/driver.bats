#!/usr/bin/env bats
# The stage driver (lib/stage.h) as a user meets it: a heuristic of one's
# own written as a C filter on it (share/examples/drop-links), run in the
# middle of the real pipeline on a kept capture.  No tracing needed.

load helpers

# The build under test's (ARGUS_BIN: the sanitizer build's), where it has
# one; bin/'s otherwise.
DROP=$(cd "$BIN/.." && pwd)/share/examples/drop-links
[ -x "$DROP" ] || DROP="$ROOT/share/examples/drop-links"
PP="$ROOT/share/examples/data/argus-link/files"

setup() {
	need_prog "$DROP"
	cd "$BATS_TEST_TMPDIR"
}

# diagnose [FILTER...]: the pipeline on the ping-pong capture (the pinger
# naps 20 ms and writes a byte the ponger waits for), the filter between
# argus-link and argus-spin, the ponger's 20 ms waits taken as hangs.
diagnose() {
	. "$PP/ids"
	argus-segment -q "$PP/pp.gz" | argus-link -q |
	    if [ $# -gt 0 ]; then "$@"; else cat; fi |
	    argus-spin -q --pid "$pong_pid" --threshold 10ms |
	    argus-similar -q 2>/dev/null |
	    argus-slice -q --auto --threshold 10ms -Z >d.csv || true
}

@test "driver: a user's filter drops a rule's links mid-pipeline, and the diagnosis loses that cause" {
	diagnose
	. "$PP/ids"
	# Without it: each wait ended by the pinger's message, walked back to it.
	[ "$(records spin '{ print $ENDED }' d.csv | sort -u)" = message ]
	records spin '$WAKER == 0 { exit 1 }' d.csv
	[ "$(records step -v p="$ping_pid" '$TID == p && $RULE == "message"' d.csv |
	    wc -l)" -gt 0 ]

	diagnose "$DROP" -q message
	[ "$(records link '$RULE == "message"' d.csv | wc -l)" = 0 ]
	[ "$(records link '$RULE == "reply"' d.csv | wc -l)" -gt 0 ]
	grep -qx 'summary,[0-9]*,,,drop-links,dropped,10,kept,[0-9]*' d.csv
	# With it: the same waits, now ended by nobody the graph knows.
	[ "$(records spin '{ print $ENDED }' d.csv | sort -u)" = wait ]
	records spin '$WAKER != 0 { exit 1 }' d.csv
	[ "$(records step '$RULE == "message"' d.csv | wc -l)" = 0 ]
}

@test "driver: the filter passes every record it does not consume, unchanged and in order" {
	stream >s.csv <<-'EOF'
	# a comment passes
	event,100,1,1,3,0,sys_enter,-,0,read,0x3,0x0,0x1
	link,110,1,1,2,3,strong,message,105,2,2,
	mykind,115,1,1,"a, quoted",field
	link,120,1,1,2,3,weak,wait,105,2,2,
	link,130,1,1,2,3,strong,mine,125,2,2,my label
	EOF
	run "$DROP" -q -Z message,mine s.csv
	[ "$status" = 0 ]
	[ "$(sed '$d' <<<"$output")" = "$(grep -v -e ',message,' -e ',mine,' s.csv)" ]
	[[ "${lines[-1]}" == summary,130,,,drop-links,dropped,2,kept,1 ]]
	# stdin, and the words on stderr without -q
	run sh -c "'$DROP' -Z wait <s.csv 2>&1 >/dev/null"
	[ "$output" = "drop-links: 1 links dropped, 2 kept" ]
}

@test "driver: a filter's bad input is named by file and line; no rule is a usage error" {
	stream >bad.csv <<-'EOF'
	event,100,1,1,3,0,sys_enter,-,0,read,0x3,0x0,0x1
	link,110,1,1,x,3,strong,message,105,2,2,
	EOF
	run "$DROP" -Z message bad.csv
	[ "$status" = 65 ]
	[[ "$output" == *"bad.csv:3:"* ]]
	run "$DROP"
	[ "$status" = 64 ]
	run "$DROP" --help
	[ "$status" = 0 ]
	[[ "$output" == *"usage: drop-links"* ]]
}
