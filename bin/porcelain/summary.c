/*
 * argus summary: the first look at a capture, or at the recorder's last
 * minute: its span, events, losses, and the threads that ran, were
 * blocked and waited for a CPU most (argus-summary).  The recorder's
 * files are read whole, from before the minute too: what they say before
 * it (who sleeps since when, the clock's anchor) is what the minute means.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "porcelain.h"

static const char usage[] =
"usage: argus summary [-n COUNT] [--last TIME] [FILE ...]\n"
"The first look at a capture (FILE...) or at the flight recorder's recent\n"
"recording: its span, events by type, what was lost, CPUs, and the\n"
"threads that ran most, were blocked most, and waited longest for a CPU\n"
"(argus-summary(1)).\n"
"\n"
"  -n, --count COUNT   threads in each table (default 10; 0: all)\n"
"  --last TIME         how much of the recording to read (default 60s)\n";

static int
summary(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "count",	required_argument, NULL, 'n' },
		{ "last",	required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t last = 60 * 1000000000ULL;
	unsigned long long bytes;
	struct pipeline *p;
	const char *count = "10";
	char since[32];
	time_t newest;
	pid_t pid;
	int ch, i, status;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "n:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			parse_u64("--count", optarg);
			count = optarg;
			break;
		case 'l':
			last = parse_duration_ns("--last", optarg);
			break;
		default:
			command_usage(&cmd_summary);
		}
	}
	p = pipeline_new();
	pipeline_stage(p, "argus-summary");
	pipeline_arg(p, "-n");
	pipeline_arg(p, count);
	if (optind < argc) {
		pipeline_arg(p, "--");
		for (i = optind; i < argc; i++)
			pipeline_arg(p, argv[i]);
	} else {
		if (ring_open(0) == -1)
			diex(EX_NOINPUT, "%s: no recording ('argus start' "
			    "first, or name a capture)", ring);
		if ((pid = recorder()) != 0)
			recorder_drain(pid);
		pipeline_arg(p, "--live");
		pipeline_arg(p, "-s");
		snprintf(since, sizeof(since), "%llu", (unsigned long long)
		    (now_ns() > last ? now_ns() - last : 0));
		pipeline_arg(p, since);
		pipeline_arg(p, "--");
		if (ring_files(p, 0, &bytes, &newest) == 0)
			diex(EX_NOINPUT, "%s: no recording in it yet", ring);
	}
	status = pipeline_run(p);
	pipeline_free(p);
	return status;
}

const struct command cmd_summary = { "summary", usage, summary };
