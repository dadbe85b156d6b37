/*
 * argus-segment: group each thread's events into vertices.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "segment/segment.h"

static const char head[] =
"usage: argus-segment [-PqzZ] [--no-HEURISTIC ...] [-o FILE] [FILE ...]\n"
"Group each thread's events into vertices: the event graph's first half.\n"
"\n"
"Heuristics, each on by default; --no-NAME switches one off, so that a\n"
"filter of your own can do its job instead:\n";

static const char tail[] =
"\n"
"  -P, --progress        say on stderr how far it has come\n"
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

int
main(int argc, char *argv[])
{
	static const struct option own[] = {
		{ "progress",	no_argument, NULL, 'P' },
		{ "quiet",	no_argument, NULL, 'q' },
		COMMON_LONG,
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	const struct record *rec;
	struct heuristic **h;
	struct option *longopts;
	struct toggle *tg;
	struct source *src;
	struct writer *out;
	struct event ev;
	uint64_t first = NO_TIME, last = NO_TIME, nrec = 0;
	int ch, quiet = 0, show = 0;
	char *usage;
	size_t i;

	h = segment_heuristics();
	tg = xcalloc(nsheuristics, sizeof(*tg));
	for (i = 0; i < nsheuristics; i++)
		tg[i] = (struct toggle){ h[i]->name, sheuristics[i].help,
		    &h[i]->off };
	usage = toggle_usage(head, tg, nsheuristics, tail);
	longopts = toggle_options(tg, nsheuristics, own);
	while ((ch = getopt_long(argc, argv, "Pq" COMMON_SHORT, longopts,
	    NULL)) != -1) {
		if (ch == 'q')
			quiet = 1;
		else if (ch == 'P')
			show = 1;
		else if (ch != 0)
			common_option(&com, ch, optarg, usage);
	}
	catch_signals();
	show = progress_start(show);
	src = source_open(argv + optind, argc - optind);
	out = writer_open(com.out, com.z);
	segment_init(out);
	while ((rec = source_next(src)) != NULL) {
		if (rec->time != NO_TIME) {
			if (first == NO_TIME)
				first = rec->time;
			last = rec->time;
		}
		if (show && (++nrec & (PROGRESS_EVERY - 1)) == 0)
			progress("segmenting", nrec, last, first);
		if (event_parse(rec, &ev))
			segment_event(&ev);
		else
			segment_record(rec);
	}
	if (show)
		progress_end(NULL, nrec, last, first);	/* the summary says it */
	segment_finish(last);	/* the vertices its events name */
	stop_if_interrupted();
	segment_summary(out, last, !quiet);
	writer_close(out);
	source_close(src);
	return exit_status(1);
}
