#!/bin/sh
# pipecycle.sh TRUTH: a pipe deadlock broken by a timer, for patterns.bats.
# perl writes 8 MB of lines into sed -u without reading sed's output: sed
# blocks on its full stdout, perl on sed's full stdin.  A shell timer
# kills sed after 3 s.  TRUTH gets victim_pid (perl), root_pid (sed) and
# hang_begin_ns, hang_end_ns (when perl's write failed).
T=$1
perl -e '
use IPC::Open2; use Time::HiRes;
open(my $t, ">>", $ARGV[0]) or die; $t->autoflush(1);
my $pid = open2(my $out, my $in, "sed", "-u", "s/y/Y/");
for (1..3) { print $in "ping\n"; $in->flush; my $l = <$out>; Time::HiRes::sleep(0.2); }
print $t "victim_pid=$$\nroot_pid=$pid\n";
{ my $ns = `$ARGV[1]`; chomp $ns; print $t "hang_begin_ns=$ns\n"; }
$SIG{PIPE} = "IGNORE";
print $in (("y" x 99 . "\n") x 80000); close $in;
{ my $ns = `$ARGV[1]`; chomp $ns; print $t "hang_end_ns=$ns\n"; }
waitpid($pid, 0);
' "$T" "${MONO:-$(dirname "$0")/monotime}" &
p=$!
for i in $(seq 100); do grep -q '^root_pid=' "$T" 2>/dev/null && break; sleep 0.05; done
sleep 3
kill "$(sed -n 's/^root_pid=//p' "$T")"
wait $p
