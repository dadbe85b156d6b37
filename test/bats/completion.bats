#!/usr/bin/env bats
# share/bash-completion/argus: argus's commands and each one's options,
# and the plumbing tools' options, as their --help says them; process
# names and ids where an option takes one.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	source "$ROOT/share/bash-completion/argus"
}

# complete WORD...: COMPREPLY for the last word, as bash would ask.
complete_() {
	local fn=$1
	shift
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	"$fn"
	printf '%s\n' "${COMPREPLY[@]}"
}

@test "completion: argus's commands, from its --help" {
	[ "$(complete_ _argus argus de)" = "$(printf 'debug\ndemo')" ]
	[ "$(complete_ _argus argus wa)" = "$(printf 'waits\nwatch')" ]
	complete_ _argus argus '' >all
	for c in start stop status flush mark summary waits debug demo run patch watch; do
		grep -qx "$c" all || { echo "no $c"; cat all; return 1; }
	done
	# After --ring DIR, still the command.
	[ "$(complete_ _argus argus --ring /tmp sta)" = "$(printf 'start\nstatus')" ]
}

@test "completion: a command's options, and what they take" {
	[ "$(complete_ _argus argus debug --co)" = --comm ]
	complete_ _argus argus debug --j | grep -qx -- --json
	complete_ _argus argus watch --conf | grep -qx -- --config
	# --comm: the names of running processes; --pid: their ids.
	sleep 30 &
	complete_ _argus argus debug --comm slee | grep -qx sleep
	complete_ _argus argus debug --pid "$!" | grep -qx "$!"
	kill $!
	# A file where one is given.
	touch answers.txt
	[ "$(complete_ _argus argus debug --json answ)" = answers.txt ]
}

@test "completion: the plumbing tools' options" {
	[ "$(complete_ _argus_tool argus-cat --ki)" = --kind ]
	complete_ _argus_tool argus-capture --dur | grep -qx -- --duration
	complete -p argus-slice | grep -q _argus_tool
}
