#!/usr/bin/env bats
# Where a process runs (issue 38, 9 of "What a user met"): the capture
# writes each process's cgroup v2 path in its task records (argus-stream(5),
# CGROUP), and the report's root cause and hang, and the JSON's threads,
# say the systemd unit or the container it names; a login session's scope,
# where every command typed at a terminal runs, is left out of the text.
# Streams written before the column read as before.

load helpers

ID=3f2a1b0c9d8e7f60112233445566778899aabbccddeeff00112233445566778a

setup() {
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	local cg p
	if [ -f "$BATS_TEST_TMPDIR/ring/recorder.pid" ]; then
		argus --ring "$BATS_TEST_TMPDIR/ring" stop >/dev/null 2>&1 || true
	fi
	# The processes the test put in its cgroups, by their ids, then those.
	for cg in $(cat "$BATS_TEST_TMPDIR/cgroups" 2>/dev/null); do
		for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do
			kill "$p" 2>/dev/null || true
		done
		for p in $(seq 50); do
			rmdir "$cg" 2>/dev/null && break
			sleep 0.1
		done
	done
}

# nap (helpers.bash): client 1 waits for worker 2, asleep on its own
# timer, the root cause.  $1 and $2: the CGROUP columns of their task
# records ("old": none at all).
served() {
	if [ "$1" = old ]; then
		nap 10000000000 accept
	else
		nap 10000000000 accept | sed -e "s|^task,100,1,1,client\$|&,$1|" \
		    -e "s|^task,100,2,2,worker\$|&,$2|"
	fi
}

report() {
	argus-segment -q -Z | argus-link -q | argus-spin -q --tid 1 -T 1s |
	    argus-similar -q 2>/dev/null | argus-slice --auto -Z 2>&1 >/dev/null
}

@test "where: the root cause says the unit or the container its process runs in; a login session is no news" {
	served /user.slice/user-1000.slice/session-4.scope \
	    /system.slice/redis-server.service | report >r.txt
	cat r.txt
	grep -q '^Root cause: worker 2 in unit redis-server.service (the kernel says): ' r.txt
	grep -q '^Hang: client 1/1 vertex ' r.txt
	# The last unit of the path: a user's service under its manager.
	served /system.slice/sshd.service \
	    /user.slice/user-1000.slice/user@1000.service/app.slice/backup.service |
	    report >r.txt
	grep -q '^Root cause: worker 2 in unit backup.service (the kernel says): ' r.txt
	grep -q '^Hang: client 1/1 in unit sshd.service vertex ' r.txt
	# A container by its short id, whatever its runtime calls its scope.
	for cg in /system.slice/docker-$ID.scope /docker/$ID \
	    /kubepods.slice/kubepods-pod1.slice/cri-containerd-$ID.scope \
	    /machine.slice/libpod-$ID.scope/container; do
		served / "$cg" | report >r.txt
		grep -q '^Root cause: worker 2 in container 3f2a1b0c9d8e (the kernel says): ' r.txt ||
		    { echo "$cg:"; cat r.txt; false; }
	done
	# podman's monitor runs outside its container: only its unit.
	served / /machine.slice/libpod-conmon-$ID.scope | report >r.txt
	grep -q "^Root cause: worker 2 in unit libpod-conmon-$ID.scope (the kernel says): " r.txt
	# The root cgroup, or a path the owner of a delegated subtree chose,
	# shown as a thread's name is.
	served / / | report >r.txt
	grep -q '^Root cause: worker 2 (the kernel says): ' r.txt
	served / $'/user.slice/x\e[2J.service' | report >r.txt
	grep -q '^Root cause: worker 2 in unit x\\e\[2J.service (the kernel says): ' r.txt
	clean r.txt
}

@test "where: a stream written before the CGROUP column reads as before, the column empty" {
	served old | report >r.txt
	cat r.txt
	grep -q '^Root cause: worker 2 (the kernel says): ' r.txt
	grep -q '^Hang: client 1/1 vertex ' r.txt
	served old | argus-cat -H -k task >t.csv
	cat t.csv
	[ "$(sed -n 1p t.csv)" = KIND,TIME,PID,TID,COMM,CGROUP ]
	grep -qx 'task,100,2,2,worker,' t.csv
	served / /system.slice/a.service | argus-cat -H -k task >t.csv
	grep -qx 'task,100,2,2,worker,/system.slice/a.service' t.csv
}

@test "where: argus debug names the unit and the container of a live hang, in the report and its JSON" {
	need_tracing
	command -v flock >/dev/null || skip "flock (util-linux) missing"
	cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$cgroot" ] || skip "cgroup v2 is not mounted"
	# Two cgroups of our own, named as systemd and docker name theirs
	# (systemd-run needs systemd as PID 1; a cgroup of our own does not).
	unit=argus-bats-$$.service
	box=docker-${ID%????????}$(printf %08x $$).scope
	mkdir "$cgroot/$unit" || skip "cannot make a cgroup under $cgroot"
	echo "$cgroot/$unit" >>cgroups
	mkdir "$cgroot/$box"
	echo "$cgroot/$box" >>cgroups
	ring="$BATS_TEST_TMPDIR/ring"
	recorder
	# Each moves itself before its exec, as systemd and runc do.
	sh -c 'echo $$ >"$1/cgroup.procs" && exec flock lock sleep 40' sh \
	    "$cgroot/$unit" &
	sleep 0.5
	sh -c 'echo $$ >"$1/cgroup.procs" && exec flock lock true' sh \
	    "$cgroot/$box" &
	waiter=$!
	sleep 3.5
	run argus --ring "$ring" debug --pid "$waiter" --auto --json d.json
	echo "$output"
	[ "$status" -eq 0 ]
	short=$(cut -c1-12 <<<"${box#docker-}")
	[[ "$output" == *"Root cause: sleep "[0-9]*" in unit $unit (the kernel says): "* ]]
	[[ "$output" == *"Hang: flock $waiter/$waiter in container $short vertex "* ]]
	python3 - "$unit" "${box#docker-}" "$waiter" <<'EOF'
import json, sys
unit, box, waiter = sys.argv[1], sys.argv[2][:-6], int(sys.argv[3])
d = json.load(open("d.json"))
diag = d["diagnoses"][0]
v = diag["victim"]
assert v["pid"] == waiter and v["container"] == box, v
assert v["cgroup"].endswith("/docker-%s.scope" % box), v
root = diag["root_causes"][0]
assert root["unit"] == unit and root["container"] is None, root
assert root["cgroup"].endswith("/" + unit), root
EOF
}
