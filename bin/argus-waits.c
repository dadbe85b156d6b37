/*
 * argus-waits: the longest waits in an event graph, the first look a
 * user takes before choosing a target: which thread waited, in what
 * call, for how long, and who ended the wait, or that it still goes on.
 *
 * A vertex runs from a wake-up to the next: a wait is its end, from its
 * last event (the thread blocked) to its END, when the thread woke, and
 * the best link into the thread's next vertex says who woke it: a strong
 * one before a weak one, the latest cause among equals.  A vertex still
 * open at the end of the trace in a sleeping state has not been woken.
 * A thread's vertices are kept in order of id, which is their order in
 * time (lib/graph.h, struct vvec): the next vertex is the next element.
 * The reading and the report are in bin/waits/; here, the options.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"
#include "waits/waits.h"

static const char usage[] =
"usage: argus-waits [-a] [-n COUNT] [-m DURATION] [-p PID] [-t TID] [-c COMM]\n"
"                   [FILE ...]\n"
"The longest waits in an event graph (argus-segment | argus-link): the\n"
"thread, the system call it waited in, how long, and who ended the wait\n"
"(the cause the graph links to the thread's next vertex), or 'still\n"
"waiting' when the trace ended first.\n"
"\n"
"  -n, --count COUNT       how many (default 10; 0: all)\n"
"  -m, --min DURATION      only waits at least this long (default 0)\n"
"  -p, --pid PID           only this process's threads\n"
"  -t, --tid TID           only this thread\n"
"  -c, --comm NAME         only threads named NAME, or of a process whose\n"
"                          main thread is\n"
"  -a, --all               idle waits too: those a thread's own timer\n"
"                          ended and after which it woke no one (a loop\n"
"                          idling), and kernel threads idle (state I)\n"
"  -h, --help              this text\n"
USAGE_VERSION_LINE("           ")
"\n"
"Exit: 0 ok (also when there is no wait), 64 usage, 65 bad input, 66\n"
"cannot open.  See argus-waits(1).\n";

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "count",	required_argument, NULL, 'n' },
		{ "min",	required_argument, NULL, 'm' },
		{ "pid",	required_argument, NULL, 'p' },
		{ "tid",	required_argument, NULL, 't' },
		{ "comm",	required_argument, NULL, 'c' },
		{ "all",	no_argument,	   NULL, 'a' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ "version",	no_argument,	   NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	uint64_t count = 10, min = 0, pid = 0, tid = 0;
	const char *comm = NULL;
	size_t nv;
	int ch;

	while ((ch = getopt_long(argc, argv, "n:m:p:t:c:ahV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'n': count = parse_u64("--count", optarg); break;
		case 'm': min = parse_duration_ns("--min", optarg); break;
		case 'p': pid = parse_u64("--pid", optarg); break;
		case 't': tid = parse_u64("--tid", optarg); break;
		case 'c': comm = optarg; break;
		case 'a': all = 1; break;
		default: common_option(&com, ch, optarg, usage);
		}
	}
	catch_signals();
	nv = waits_read(argv + optind, argc - optind);
	stop_if_interrupted();
	if (nv == 0)
		diex(EX_DATAERR, "no vertex records in the input: run "
		    "argus-segment and argus-link first");
	waits_report(count, min, pid, tid, comm, nv);
	return exit_status(1);
}
