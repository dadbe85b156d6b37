/*
 * argus-segment: group each thread's events into vertices.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "segment/segment.h"
#include "stage.h"

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
USAGE_COMMON
"\n"
"Every event record leaves with its VERTEX column set (0: culled); a\n"
"vertex record follows each vertex's last event.  Other records pass.\n"
"Exit: 0 ok, 64 usage, 65 bad input, 66 cannot open.  See argus-segment(1).\n";

static int
take_event(void *arg, const struct record *rec, struct event *ev)
{
	(void)arg, (void)rec;
	segment_event(ev);	/* it writes the event, its VERTEX set */
	return 1;
}

static int
take_record(void *arg, const struct record *rec)
{
	(void)arg;
	segment_record(rec);
	return 1;
}

/* The vertices its events name, even of an input cut short. */
static void
finish(void *arg, uint64_t last)
{
	(void)arg;
	segment_finish(last);
}

static const struct stage_ops ops = {
	.doing = "segmenting",
	.event = take_event,
	.record = take_record,
	.finish = finish,
	.start = segment_init,
	.summary = segment_summary,
};

int
main(int argc, char *argv[])
{
	struct common com = { NULL, Z_AUTO };
	struct heuristic **h;
	struct toggle *tg;
	int quiet = 0, show = 0;
	size_t i;

	h = segment_heuristics();
	tg = xcalloc(nsheuristics, sizeof(*tg));
	for (i = 0; i < nsheuristics; i++)
		tg[i] = (struct toggle){ h[i]->name, sheuristics[i].help,
		    &h[i]->off };
	stage_toggle_options(argc, argv, head, tail, tg, nsheuristics, NULL,
	    NULL, &com, &quiet, &show);
	return stage_main(&ops, argv + optind, argc - optind, &com, show,
	    quiet);
}
