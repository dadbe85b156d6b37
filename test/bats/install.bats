#!/usr/bin/env bats
# make install and make uninstall into a DESTDIR: the programs, man pages,
# scenarios, probe sets, examples, runtime providers and the systemd unit,
# and nothing left behind; an installed argus-capture finds a probe set by
# its name.

load helpers

setup() {
	D=$BATS_TEST_TMPDIR/root
	make -s -C "$ROOT" install DESTDIR="$D" PREFIX=/usr >/dev/null
}

@test "install: everything a user needs, where the man pages say" {
	for f in bin/argus bin/argus-capture bin/argus-slice bin/argus-waitfor \
	    share/man/man1/argus.1 share/man/man5/argus-stream.5 \
	    libexec/argus/circular-wait share/argus/probes/pthread.probes \
	    share/argus/probes/glib.probes \
	    share/doc/argus/examples/argus-slice_example.txt \
	    share/doc/argus/examples/argus.cron lib/systemd/system/argus.service \
	    lib/systemd/system/argus-watch.service \
	    share/doc/argus/examples/watch.conf \
	    lib/argus/providers/jvm lib/argus/providers/innodb \
	    lib/argus/providers/postgresql lib/argus/providers/libexec/jvm-attach \
	    share/bash-completion/completions/argus \
	    share/bash-completion/completions/argus-cat; do
		[ -s "$D/usr/$f" ] || { echo "missing: /usr/$f"; return 1; }
	done
	# The unit runs the installed programs.
	grep -qx 'ExecStart=/usr/bin/argus start $ARGUS_OPTS' \
	    "$D/usr/lib/systemd/system/argus.service"
	grep -qx 'Environment="ARGUS_OPTS=--ring-size 2G"' \
	    "$D/usr/lib/systemd/system/argus.service"
	grep -qx 'ExecStop=/usr/bin/argus stop' \
	    "$D/usr/lib/systemd/system/argus.service"
	! grep -q @BINDIR@ "$D/usr/lib/systemd/system/argus.service" || false
	# The watcher's, after the recorder's; its example config is good.
	grep -qx 'ExecStart=/usr/bin/argus watch --config /etc/argus/watch.conf $ARGUS_WATCH_OPTS' \
	    "$D/usr/lib/systemd/system/argus-watch.service"
	grep -qx 'After=argus.service' "$D/usr/lib/systemd/system/argus-watch.service"
	grep -qx 'Restart=on-failure' "$D/usr/lib/systemd/system/argus-watch.service"
	run "$D/usr/bin/argus" --ring "$BATS_TEST_TMPDIR/none" watch \
	    --config "$D/usr/share/doc/argus/examples/watch.conf"
	[ "$status" -eq 69 ]
	[[ "$output" == *"no recorder runs"* ]]
}

@test "install: the units keep what a root tracer can of systemd's sandbox, and take /etc/default/argus" {
	local u score
	for u in argus argus-watch; do
		f=$D/usr/lib/systemd/system/$u.service
		grep -qx 'EnvironmentFile=-/etc/default/argus' "$f"
		for k in NoNewPrivileges=yes PrivateTmp=yes ProtectHome=read-only \
		    ProtectSystem=strict MemoryDenyWriteExecute=yes UMask=0077; do
			grep -qx "$k" "$f" || { echo "$u: no $k"; return 1; }
		done
	done
	# Was 9.6 UNSAFE; systemd-analyze 250 and later score a unit file.
	command -v systemd-analyze >/dev/null || skip "systemd-analyze not installed"
	for u in argus argus-watch; do
		score=$(systemd-analyze security --offline=yes \
		    "$D/usr/lib/systemd/system/$u.service" 2>&1 |
		    sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p') ||
		    true
		[ -n "$score" ] || skip "systemd-analyze security --offline unsupported"
		echo "$u: $score"
		awk -v s="$score" 'BEGIN { exit !(s <= 6.0) }'
	done
}

@test "install: uninstall removes what install put there" {
	make -s -C "$ROOT" uninstall DESTDIR="$D" PREFIX=/usr >/dev/null
	[ -z "$(find "$D" -type f)" ]
	[ ! -e "$D/usr/share/argus" ]
	[ ! -e "$D/usr/libexec/argus" ]
	[ ! -e "$D/usr/lib/argus/providers" ]
}

@test "install: an installed capture finds a probe set by its name" {
	need_tracing
	run timeout 60 "$D/usr/bin/argus-capture" --probes nosuch -d 0.1 -o /dev/null
	[ "$status" -eq 66 ]
	[[ "$output" == *"--probes nosuch"* ]]
	run timeout 60 "$D/usr/bin/argus-capture" --probes pthread -d 0.2 -Z -o "$BATS_TEST_TMPDIR/t.csv"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^meta,.*,probe,' "$BATS_TEST_TMPDIR/t.csv"
}

@test "install: the cron example runs the installed programs; a night archives that day's files and stops at a failure" {
	cron="$D/usr/share/doc/argus/examples/argus.cron"
	grep -qx 'PATH=/usr/bin:/usr/bin:/bin' "$cron"
	! grep -q '@BINDIR@\|/usr/local' "$cron" || false
	# The nightly line, on directories of this test's.
	T=$BATS_TEST_TMPDIR
	line=$(grep -P '^30 3 ' "$cron" | cut -f3- | sed -e 's/\\%/%/g' \
	    -e "s|/var/lib/argus|$T/ring|g" -e "s|/var/archive/argus|$T/archive|g")
	mkdir -m 700 "$T/ring" "$T/archive"
	printf 'argus-stream,1\nmeta,1,,,source,test\n' | gzip >"$T/ring/argus-ring-000001.csv.gz"
	for f in debug-1.gz debug-2.gz debug-3.gz argus-snap-5.csv.gz; do
		echo x | gzip >"$T/ring/$f"
	done
	touch -d "yesterday 12:00" "$T/ring/debug-1.gz" "$T/ring/argus-snap-5.csv.gz"
	touch -d "2 days ago 12:00" "$T/ring/debug-2.gz"
	chmod 600 "$T"/ring/*
	day=$(date -d yesterday +%F)
	run env ARGUS_RING="$T/ring" PATH="$D/usr/bin:/usr/bin:/bin" sh -c "$line"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(ls "$T/archive/$day")" = "$(printf '%s\n' argus-snap-5.csv.gz debug-1.gz ring.gz)" ]
	[ "$(stat -c %a "$T/archive/$day")" = 700 ]
	# Run again, the day's directory is there: it fails, and goes no further.
	rm "$T/archive/$day/ring.gz"
	run env ARGUS_RING="$T/ring" PATH="$D/usr/bin:/usr/bin:/bin" sh -c "$line"
	[ "$status" -ne 0 ]
	[ ! -e "$T/archive/$day/ring.gz" ]
}
