#!/usr/bin/env bats
# share/examples/argus-hosts.sh: three machines' nightly archives (small
# captures kept with the examples, as the cron example lays them out:
# ARCHIVE/HOST/DAY/ring.gz) looked at in bulk with GNU parallel, on this
# machine's cores and through parallel's --sshlogin (':', this machine).

load helpers

SCRIPT=share/examples/argus-hosts.sh

archive() {
	local f=$ROOT/share/examples/data/argus-link/files h
	A=$BATS_TEST_TMPDIR/archive
	for h in web1:pp web2:pw db1:sig; do
		mkdir -p "$A/${h%%:*}/2026-11-25"
		cp "$f/${h#*:}.gz" "$A/${h%%:*}/2026-11-25/ring.gz"
	done
	# Another day's, not read.
	mkdir -p "$A/web1/2026-11-24"
	cp "$f/pp.gz" "$A/web1/2026-11-24/ring.gz"
}

@test "hosts bulk: each host's longest waits, tagged with the host, in parallel" {
	need_prog parallel
	archive
	run sh "$ROOT/$SCRIPT" -j 2 -n 2 "$A" 2026-11-25
	echo "$output"
	[ "$status" -eq 0 ]
	# Each host's table, its lines tagged, in the hosts' order.
	[ "$(grep -c $'^db1\t *WAITED  THREAD' <<<"$output")" -eq 1 ]
	[ "$(grep -c $'^web1\t *WAITED  THREAD' <<<"$output")" -eq 1 ]
	[ "$(grep -c $'^web2\t *WAITED  THREAD' <<<"$output")" -eq 1 ]
	grep -q $'^db1\t *0.205 s  sh [0-9]*/[0-9]* *wait4 *sleep [0-9/]* (signal SIGCHLD)' <<<"$output"
	grep -q $'^web1\t *0.100 s  argus-capture ' <<<"$output"
	[ "$(cut -f1 <<<"$output" | uniq | tr '\n' ' ')" = "db1 web1 web2 " ]
	# The same through --sshlogin, and one program's waits only.
	run sh "$ROOT/$SCRIPT" -S 2/: -c sh "$A" 2026-11-25
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q $'^db1\t *0.205 s  sh [0-9]*/[0-9]* *wait4' <<<"$output"
	! grep -q 'argus-capture' <<<"$output"
}

@test "hosts bulk: no archive of the day, a bad option, no parallel: said" {
	archive
	if command -v parallel >/dev/null; then
		run sh "$ROOT/$SCRIPT" "$A" 2026-01-01
		[ "$status" -eq 66 ]
		[[ "$output" == *"no HOST/2026-01-01/ring.gz"* ]]
	fi
	run sh "$ROOT/$SCRIPT" -x "$A"
	[ "$status" -eq 64 ]
	# Without GNU parallel on PATH.
	mkdir "$BATS_TEST_TMPDIR/bin"
	for p in sh date; do ln -s "$(command -v $p)" "$BATS_TEST_TMPDIR/bin/"; done
	run env PATH="$BATS_TEST_TMPDIR/bin" sh "$ROOT/$SCRIPT" "$A" 2026-11-25
	echo "$output"
	[ "$status" -eq 69 ]
	[[ "$output" == *"GNU parallel is not installed (Debian: parallel)"* ]]
}
