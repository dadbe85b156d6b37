#!/bin/sh
# argus-hosts.sh: many machines' nightly archives (argus.cron) looked at in
# bulk with GNU parallel: the longest waits of each host's day (argus
# waits), each line tagged with its host, one job per host, on this
# machine's cores (-j) or on others (-S, parallel's --sshlogin: each
# archive is sent to the machine that reads it and removed after; argus
# must be on that machine's PATH).  make install puts it in
# PREFIX/share/doc/argus/examples.
#
# The archives as the cron example leaves them on each host, gathered in
# one directory by host name, e.g. for h in web1 web2 db1; do rsync -a
# $h:/var/archive/argus/ /srv/argus/$h/; done:
#
#	ARCHIVE/HOST/DAY/ring.gz
#
#	sh argus-hosts.sh /srv/argus 2026-11-25
#	sh argus-hosts.sh -S 8/:,8/worker1 -c postgres /srv/argus
#
# A wait that ends on another host (a client on web1 waiting on db1) is
# then followed across them by merging their rings, which aligns the
# clocks by the connections they share (argus-cat(1), HOSTS):
#
#	argus-cat /srv/argus/web1/DAY/ring.gz /srv/argus/db1/DAY/ring.gz |
#	    argus-segment | argus-link | argus-spin --pid PID |
#	    argus-slice --auto
#
# Exit: 0 done, 64 usage, 66 no archive of that day, 69 no GNU parallel,
# else how many hosts' jobs failed (parallel's).
set -eu

usage() {
	echo "usage: argus-hosts.sh [-j JOBS] [-S SSHLOGIN,...] [-n COUNT] [-c COMM] ARCHIVE [DAY]" >&2
	exit 64
}

jobs= logins= count=5 comm=
while getopts j:S:n:c: o; do
	case $o in
	j) jobs=$OPTARG ;;
	S) logins=$OPTARG ;;
	n) count=$OPTARG ;;
	c) comm=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] && [ $# -le 2 ] || usage
if ! command -v parallel >/dev/null 2>&1; then
	echo "argus-hosts.sh: GNU parallel is not installed (Debian: parallel)" >&2
	exit 69
fi
archive=$1
day=${2:-$(date -d yesterday +%F)}
cd "$archive" || exit 66

# HOST/DAY/ring.gz, relative: what -S sends keeps its path there.
set -- */"$day"/ring.gz
if [ ! -e "$1" ]; then
	echo "argus-hosts.sh: $archive: no HOST/$day/ring.gz" >&2
	exit 66
fi

# The host's name tags its lines; -k keeps the hosts in their order.
arg='{}'
printf '%s\n' "$@" | parallel -k --tagstring '{= s:/.*:: =}' \
    ${jobs:+-j "$jobs"} ${logins:+-S "$logins" --transferfile "$arg" --cleanup} \
    argus waits -n "$count" ${comm:+--comm "$comm"} {}
