#!/usr/bin/env bats
# Every header of lib/, capture/ and bin/*/ compiles alone, with the
# build's flags (make check-headers): it includes what it uses, so a file
# may include it first, or alone.

load helpers

@test "headers: each compiles alone" {
	need_prog make
	run make -s -C "$ROOT" check-headers
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "headers: one that uses a type it does not include is caught" {
	need_prog make
	printf '#include <stdint.h>\nsize_t half(size_t);\n' >"$BATS_TEST_TMPDIR/bad.h"
	run make -s -C "$ROOT" check-headers HEADER_FILES="$BATS_TEST_TMPDIR/bad.h"
	[ "$status" -ne 0 ]
	[[ "$output" == *"bad.h: does not compile alone"* ]]
}
