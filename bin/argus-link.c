/*
 * argus-link: add causal edges between the vertices argus-segment made.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "link/link.h"

static const char usage[] =
"usage: argus-link [-zZq] [--no-RULE ...] [-o FILE] [FILE ...]\n"
"Add causal links between vertices: the event graph's second half.\n"
"\n"
"Rules, each on by default; --no-NAME switches one off, so that a filter\n"
"of your own can do its job instead:\n"
"  --no-message   a wake-up from a send is a plain wake-up; no reply links\n"
"  --no-lock      mutex hand-offs count as strong wake-ups\n"
"  --no-cond      no condition-variable signals named (pthread.probes)\n"
"  --no-timer     timer expiries are not traced back to their arming\n"
"  --no-softirq   softirq wake-ups are not attributed to the sender\n"
"  --no-block     block I/O completions are not traced back to the issuer\n"
"  --no-irq       no interrupt names on unattributed wake-ups\n"
"  --no-async     no links from queuing a work item to running it\n"
"  --no-runloop   no links from attaching a run-loop source to its dispatch\n"
"  --no-fork      no links from a parent to its child\n"
"  --no-wakeup    no wake-up links at all\n"
"  --no-order     no program-order links within a thread\n"
"  --no-flag      no links from a data flag's writer to its readers\n"
"\n"
"  -q, --quiet           no summary on stderr\n"
"  -o, --output FILE     write to FILE (mode 0600) instead of stdout\n"
"  -z, --compress        gzip the output even into a pipe or terminal\n"
"  -Z, --no-compress     plain output even into a regular file\n"
"  -h, --help            this text\n"
"  -V, --version         version and record stream version\n"
"\n"
"Input must come from argus-segment (events with their VERTEX set).\n"
"Exit: 0 ok, 64 usage, 65 bad input, 66 cannot open.  See argus-link(1).\n";

/*
 * Order matters: a request's receiver is seen before its wake-up is used.
 * The n-th --no- option (longopts' values) switches off the n-th rule.
 */
static struct rule *rules[] = {
	&message, &lock_handoff, &timer, &softirq, &block_io, &irq,
	&async_task, &fork_child, &wakeup, &program_order, &runloop, &flag,
	&cond_signal,
};

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "no-message",	no_argument, NULL, 1 },
		{ "no-lock",	no_argument, NULL, 2 },
		{ "no-timer",	no_argument, NULL, 3 },
		{ "no-softirq",	no_argument, NULL, 4 },
		{ "no-block",	no_argument, NULL, 5 },
		{ "no-irq",	no_argument, NULL, 6 },
		{ "no-async",	no_argument, NULL, 7 },
		{ "no-fork",	no_argument, NULL, 8 },
		{ "no-wakeup",	no_argument, NULL, 9 },
		{ "no-order",	no_argument, NULL, 10 },
		{ "no-runloop",	no_argument, NULL, 11 },
		{ "no-flag",	no_argument, NULL, 12 },
		{ "no-cond",	no_argument, NULL, 13 },
		{ "quiet",	no_argument, NULL, 'q' },
		COMMON_LONG,
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	const struct record *rec;
	struct source *src;
	struct writer *out;
	struct event ev;
	uint64_t last = NO_TIME;
	int ch, quiet = 0;

	while ((ch = getopt_long(argc, argv, "q" COMMON_SHORT, longopts,
	    NULL)) != -1) {
		if (ch >= 1 && ch <= (int)ARRAY_LEN(rules))
			rules[ch - 1]->off = 1;
		else if (ch == 'q')
			quiet = 1;
		else
			common_option(&com, ch, optarg, usage);
	}
	catch_signals();
	src = source_open(argv + optind, argc - optind);
	out = writer_open(com.out, com.z);
	link_init(out);
	while ((rec = source_next(src)) != NULL) {
		if (rec->time != NO_TIME)
			last = rec->time;
		/* The event first: a link it makes follows it in time. */
		writer_record(out, rec);
		if (!event_parse(rec, &ev))
			continue;
		if (ev.vertex == UNSEGMENTED)
			diex(EX_DATAERR, "%s:%lu: event without a vertex: "
			    "run argus-segment first", rec->file, rec->line);
		link_event(&ev, rules, ARRAY_LEN(rules));
	}
	link_summary(out, last, !quiet, rules, ARRAY_LEN(rules));
	writer_close(out);
	source_close(src);
	return exit_status(1);
}
