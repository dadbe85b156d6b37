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
"usage: argus waits [-n COUNT] [--last TIME] [--all] [--pid PID | --tid TID |\n"
"                   --comm NAME] [FILE ...]\n"
"The longest waits in a capture (FILE...) or in the flight recorder's\n"
"recent recording: the thread, the system call it waited in, how long,\n"
"and who ended the wait, or 'still waiting' (argus-waits(1)).  The first\n"
"look to take before 'argus debug' names a target.\n"
"\n"
"  -n, --count COUNT   how many (default 10; 0: all)\n"
"  --last TIME         how much of the recording to read (default 60s)\n"
"  --all               idle waits too (a loop's own timer that woke no\n"
"                      one, kernel threads idle), left out by default\n"
"  --pid, --tid, --comm  only that process's or thread's waits\n";

static int
waits(int argc, char *argv[])
{
	struct pipeline *p;
	struct recent r;
	int status;

	optind = recent_options(&cmd_waits, argc, argv, &r);
	p = pipeline_new();
	pipeline_stage(p, "argus-cat");
	recent_inputs(p, argv + optind, argc - optind, r.last, 0);
	pipeline_stage(p, "argus-segment");
	pipeline_arg(p, "-q");
	pipeline_stage(p, "argus-link");
	pipeline_arg(p, "-q");
	pipeline_stage(p, "argus-waits");
	pipeline_arg(p, "-n");
	pipeline_arg(p, r.count);
	recent_filters(p, &r);
	status = pipeline_run(p);
	pipeline_free(p);
	return status;
}

const struct command cmd_waits = { "waits", usage, waits };
