#!/usr/bin/env bats
# xnu-diff/argus.diff against the XNU release it names.  The real check
# needs a checkout of apple-oss-distributions/xnu, which CI cannot fetch:
# ARGUS_XNU_CHECKOUT points at one where there is.

load helpers

@test "check-xnu-diff: skips without a checkout, refuses what is not one" {
	run "$ROOT/share/scripts/check-xnu-diff"
	[ "$status" -eq 0 ]
	[[ "$output" == *"skipped: no XNU checkout given"* ]]
	run "$ROOT/share/scripts/check-xnu-diff" "$BATS_TEST_TMPDIR"
	[ "$status" -eq 66 ]
	[[ "$output" == *"not an XNU checkout"* ]]
}

@test "xnu-diff: every hunk of code says why, in an Argus comment" {
	# Hunks of C; the header's and trace_codes' are the codes themselves.
	awk '
		/^diff --git/	{ if (n && !why) bad++; n = 0; c = $3 ~ /\.c$/ }
		/^@@/		{ if (n && !why) bad++; n = c; why = 0 }
		/^\+.*Argus/	{ why = 1 }
		END		{ if (n && !why) bad++; exit bad > 0 }
	' "$ROOT/xnu-diff/argus.diff"
	# The codes the importer maps are the patch's.
	for c in MSG_SEND MSG_RECV MSG_BACKTRACE WAIT WAKE CLEAR_WAIT \
	    TCALL_ARM TCALL_INVOKE INTR_HANDLER INTR_TIMERS; do
		grep -q "^+#define ARGUS_$c  *0x" "$ROOT/xnu-diff/argus.diff"
		grep -q "ARGUSDBG_CODE(ARGUS_$c)" "$ROOT/xnu-diff/argus.diff"
	done
	n=$(grep -c '^#define ARGUS_[A-Z_]*[[:space:]]*KD_EVENTID(KD_MACH,' \
	    "$ROOT/lib/kdebug.h")
	[ "$n" -eq 10 ]
}

@test "check-xnu-diff: the patch applies to xnu-11417.121.6" {
	local x=${ARGUS_XNU_CHECKOUT:-}
	[ -n "$x" ] || skip "no XNU checkout: set ARGUS_XNU_CHECKOUT (CI has no network)"
	run "$ROOT/share/scripts/check-xnu-diff" "$x"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"applies to"* ]]
}
