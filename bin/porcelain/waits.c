/*
 * argus waits: the longest waits of a capture, or of the recorder's last
 * minute, before a target is chosen for `argus debug':
 *
 *	argus-cat FILE... | argus-segment | argus-link | argus-waits -n N
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "porcelain.h"

static const char usage[] =
"usage: argus waits [-n COUNT] [--last TIME] [FILE ...]\n"
"The longest waits in a capture (FILE...) or in the flight recorder's\n"
"recent recording: the thread, the system call it waited in, how long,\n"
"and who ended the wait, or 'still waiting' (argus-waits(1)).  The first\n"
"look to take before 'argus debug' names a target.\n"
"\n"
"  -n, --count COUNT   how many (default 10; 0: all)\n"
"  --last TIME         how much of the recording to read (default 60s)\n";

static int
waits(int argc, char *argv[])
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
			command_usage(&cmd_waits);
		}
	}
	p = pipeline_new();
	pipeline_stage(p, "argus-cat");
	if (optind < argc) {
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
		if (ring_files(p, 0, &bytes, &newest) == 0)
			diex(EX_NOINPUT, "%s: no recording in it yet", ring);
	}
	pipeline_stage(p, "argus-segment");
	pipeline_arg(p, "-q");
	pipeline_stage(p, "argus-link");
	pipeline_arg(p, "-q");
	pipeline_stage(p, "argus-waits");
	pipeline_arg(p, "-n");
	pipeline_arg(p, count);
	status = pipeline_run(p);
	pipeline_free(p);
	return status;
}

const struct command cmd_waits = { "waits", usage, waits };
