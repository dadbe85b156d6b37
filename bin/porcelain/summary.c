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
"usage: argus summary [-n COUNT] [--last TIME] [--all] [--pid PID | --tid TID |\n"
"                     --comm NAME] [FILE ...]\n"
"The first look at a capture (FILE...) or at the flight recorder's recent\n"
"recording: its span, events by type, what was lost, CPUs, and the\n"
"threads that ran most, were blocked most, and waited longest for a CPU\n"
"(argus-summary(1)).\n"
"\n"
"  -n, --count COUNT   threads in each table (default 10; 0: all)\n"
"  --last TIME         how much of the recording to read (default 60s)\n"
"  --all               idle threads too (only their own timers woke them\n"
"                      and they woke no one; kernel threads idle), left\n"
"                      out by default\n"
"  --pid, --tid, --comm  only that process's or thread's rows\n";

static int
summary(int argc, char *argv[])
{
	struct pipeline *p;
	struct recent r;
	int status;

	optind = recent_options(&cmd_summary, argc, argv, &r);
	p = pipeline_new();
	pipeline_stage(p, "argus-summary");
	pipeline_arg(p, "-n");
	pipeline_arg(p, r.count);
	recent_filters(p, &r);
	recent_inputs(p, argv + optind, argc - optind, r.last, 1);
	status = pipeline_run(p);
	pipeline_free(p);
	return status;
}

const struct command cmd_summary = { "summary", usage, summary };
