#!/usr/bin/env bats
# The transcripts of share/examples are real: share/examples/regen re-runs
# what each shows and says whether it still prints that.  Those whose
# captures are kept re-run here, without tracing.

load helpers

@test "examples: the transcripts whose captures are kept print what they show" {
	run "$ROOT/share/examples/regen" -n
	echo "$output"
	[ "$status" -eq 0 ]
	for e in argus-cat argus-segment argus-link argus-relate argus-summary; do
		grep -qx "$e: as its commands print it" <<<"$output"
	done
	# The others say what they need instead of passing silently.
	grep -qx 'argus-slice: needs root and tracing: share/examples/regen -c argus-slice' <<<"$output"
}

@test "examples: a transcript that no longer shows what its commands print is caught" {
	cp -r "$ROOT/share/examples" "$BATS_TEST_TMPDIR/ex"
	sed -i 's/^rounds=5$/rounds=6/' "$BATS_TEST_TMPDIR/ex/argus-cat_example.txt"
	# regen finds the tree from where it lives: give it this one's.
	mkdir -p "$BATS_TEST_TMPDIR/tree/share"
	ln -s "$ROOT/bin" "$ROOT/test" "$ROOT/patchers" "$BATS_TEST_TMPDIR/tree/"
	mv "$BATS_TEST_TMPDIR/ex" "$BATS_TEST_TMPDIR/tree/share/examples"
	run "$BATS_TEST_TMPDIR/tree/share/examples/regen" -n argus-cat
	[ "$status" -eq 1 ]
	[[ "$output" == *"argus-cat: differs from what its commands print now"* ]]
	[[ "$output" == *"-rounds=6"* ]]
}
