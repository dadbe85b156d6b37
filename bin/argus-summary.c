/*
 * argus-summary: the first look at a capture, as perf sched latency gives
 * one: how long it lasts, what it holds and lost, and the threads that
 * ran most, were blocked most and waited longest for a CPU.
 *
 * One pass over the events, keeping each thread's state as the
 * scheduler's events tell it: on a CPU from its switch-in to its
 * switch-out; blocked from a switch-out that is a wait to its wake-up;
 * runnable from a wake-up, or from a switch-out while still runnable
 * (preempted, yielding), to its switch-in, which is its scheduling delay
 * as perf sched latency measures it.  A thread's state is unknown until
 * an event says it, and a CPU's time before its first event is no one's.
 * The state machine, the reading and the report are in bin/summary/;
 * here, the options.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "summary/summary.h"
#include "util.h"

static const char usage[] =
"usage: argus-summary [-aLP] [-n COUNT] [-s TIME] [-u TIME] [-p PID] [-t TID]\n"
"                     [-c COMM] [FILE ...]\n"
"The first look at a capture: its span, events by type, what was lost,\n"
"CPUs; then the threads that ran most (time on CPU), were blocked most\n"
"(off CPU, not runnable: how often, the longest wait and its system\n"
"call), and waited longest for a CPU once runnable (scheduling delay,\n"
"as perf sched latency shows it).\n"
"\n"
"  -n, --count COUNT   threads in each table (default 10; 0: all)\n"
"  -s, --since TIME    only what happened from TIME\n"
"  -u, --until TIME    only what happened to TIME\n"
"                      TIME is CLOCK_MONOTONIC nanoseconds, +DURATION\n"
"                      (e.g. +1.5s) from the first record's time, or a\n"
"                      clock time: 10:22:15, '2026-11-25 10:22:15.5'\n"
"  -a, --all           idle threads too: those only their own timers woke\n"
"                      that woke no one (a loop idling), kernel threads\n"
"                      idle (state I); left out of the blocked by default\n"
"  -p, --pid PID       only this process's threads in the tables\n"
"  -t, --tid TID       only this thread\n"
"  -c, --comm NAME     only threads named NAME, or of a process whose main\n"
"                      thread is\n"
"  -L, --live          files may still be being written (a flight\n"
"                      recorder's): read each up to its last flush\n"
"  -P, --progress      say on stderr how far the reading has come\n"
"  -h, --help          this text\n"
USAGE_VERSION_LINE("       ")
"\n"
"Times are in milliseconds.  Without FILE, or with -, read stdin.\n"
"Exit: 0 ok, 64 usage, 65 bad input, 66 cannot open.  See\n"
"argus-summary(1).\n";

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "count",	required_argument, NULL, 'n' },
		{ "since",	required_argument, NULL, 's' },
		{ "until",	required_argument, NULL, 'u' },
		{ "live",	no_argument,	   NULL, 'L' },
		{ "progress",	no_argument,	   NULL, 'P' },
		{ "all",	no_argument,	   NULL, 'a' },
		{ "pid",	required_argument, NULL, 'p' },
		{ "tid",	required_argument, NULL, 't' },
		{ "comm",	required_argument, NULL, 'c' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ "version",	no_argument,	   NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	uint64_t count = 10, span;
	int ch, show = 0;

	while ((ch = getopt_long(argc, argv, "n:s:u:LPap:t:c:hV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'n': count = parse_u64("--count", optarg); break;
		case 's': when_parse(&since, "--since", optarg); break;
		case 'u': when_parse(&until, "--until", optarg); break;
		case 'L': reader_live = 1; break;
		case 'P': show = 1; break;
		case 'a': all = 1; break;
		case 'p': only_pid = parse_u64("--pid", optarg); break;
		case 't': only_tid = parse_u64("--tid", optarg); break;
		case 'c': only_comm = optarg; break;
		default: common_option(&com, ch, optarg, usage);
		}
	}
	catch_signals();
	show = progress_start(show);
	span = summary_read(argv + optind, argc - optind, show);
	summary_report(span, count);
	return exit_status(1);
}
