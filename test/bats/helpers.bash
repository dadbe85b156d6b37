# Shared by every .bats file: the programs under test come first on PATH.
ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
PATH="$ROOT/bin:$PATH"

# A stream from here-document lines, header included.
stream() {
	printf 'argus-stream,1\n'
	cat
}

# Skips the test, saying why, unless argus-capture can trace here: a test
# that needs a trace never passes without one.
need_tracing() {
	[ -x "$ROOT/bin/argus-capture" ] || skip "bin/argus-capture not built"
	[ "$(id -u)" = 0 ] || skip "tracing unavailable: not root"
	local out rc=0
	out=$(timeout 20 argus-capture -d 0.1 -o /dev/null 2>&1) || rc=$?
	[ "$rc" != 69 ] || skip "tracing unavailable: $out"
	[ "$rc" = 0 ] || { echo "$out"; return 1; }
}

# "key=value" lines of a file, as shell variables.
load_ids() {
	eval "$(grep -E '^[a-z_]+=[-0-9a-zA-Z_.,/]*$' "$1")"
}

# Waits (10 s at most) until the capture with this pid traces; 1 if it
# does not.  A new instance reads tracing_on 1 before the capture turns it
# off to configure it, so its events must be set too: then tracing_on 1 is
# the capture's own.
wait_capture() {
	local inst i
	for inst in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$inst/instances" ] && break
	done
	inst="$inst/instances/argus-$1"
	for i in $(seq 100); do
		[ -n "$(cat "$inst/set_event" 2>/dev/null)" ] &&
		    [ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ] && return 0
		sleep 0.1
	done
	return 1
}
