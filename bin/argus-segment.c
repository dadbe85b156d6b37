/*
 * argus-segment: group each thread's events into vertices.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "segment/segment.h"

static const char usage[] =
"usage: argus-segment [-zZq] [--no-HEURISTIC ...] [-o FILE] [FILE ...]\n"
"Group each thread's events into vertices: the event graph's first half.\n"
"\n"
"Heuristics, each on by default; --no-NAME switches one off, so that a\n"
"filter of your own can do its job instead:\n"
"  --no-cull-interrupts  keep interrupt sequences in the thread they hit\n"
"  --no-cull-housekeeping  keep wake-ups of the scheduler's kernel threads\n"
"  --no-split-at-wait    do not end a vertex at a blocking wait\n"
"  --no-callout          no vertex of its own for each work item\n"
"  --no-peer-set         do not split at a message with a new peer\n"
"  --no-hints            ignore boundary and cull hint records\n"
"\n"
"  -q, --quiet           no summary on stderr\n"
"  -o, --output FILE     write to FILE (mode 0600) instead of stdout\n"
"  -z, --compress        gzip the output even into a pipe or terminal\n"
"  -Z, --no-compress     plain output even into a regular file\n"
"  -h, --help            this text\n"
"  -V, --version         version and record stream version\n"
"\n"
"Every event record leaves with its VERTEX column set (0: culled); a\n"
"vertex record follows each vertex's last event.  Other records pass.\n"
"Exit: 0 ok, 64 usage, 65 bad input, 66 cannot open.  See argus-segment(1).\n";

static struct heuristic *heuristics[] = {
	&cull_interrupts, &hints, &callout, &split_at_wait, &peer_set,
	&cull_housekeeping,
};

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "no-cull-interrupts",	no_argument, NULL, 1 },
		{ "no-hints",		no_argument, NULL, 2 },
		{ "no-callout",		no_argument, NULL, 3 },
		{ "no-split-at-wait",	no_argument, NULL, 4 },
		{ "no-peer-set",	no_argument, NULL, 5 },
		{ "no-cull-housekeeping", no_argument, NULL, 6 },
		{ "quiet",		no_argument, NULL, 'q' },
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
		if (ch >= 1 && ch <= (int)ARRAY_LEN(heuristics))
			heuristics[ch - 1]->off = 1;
		else if (ch == 'q')
			quiet = 1;
		else
			common_option(&com, ch, optarg, usage);
	}
	catch_signals();
	src = source_open(argv + optind, argc - optind);
	out = writer_open(com.out, com.z);
	segment_init(out);
	while ((rec = source_next(src)) != NULL) {
		if (rec->time != NO_TIME)
			last = rec->time;
		if (event_parse(rec, &ev))
			segment_event(&ev, heuristics, ARRAY_LEN(heuristics));
		else if (!rec->comment && !hints.off &&
		    (strcmp(rec->f[0], "boundary") == 0 ||
		    strcmp(rec->f[0], "cull") == 0))
			segment_hint(rec);
		else if (!rec->comment && strcmp(rec->f[0], "task") == 0)
			segment_task(rec);
		else
			writer_record(out, rec);
	}
	segment_finish(last);
	segment_summary(out, last, !quiet);
	writer_close(out);
	source_close(src);
	return exit_status(1);
}
