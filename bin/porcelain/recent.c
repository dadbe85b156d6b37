/*
 * The commands that read a capture or the recorder's recent recording
 * (waits, summary): their options, and their inputs.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "porcelain.h"

/*
 * -n COUNT, --last TIME; and which threads, as the stage takes them:
 * --all (idle ones too), --pid, --tid, --comm.  Returns optind.
 */
int
recent_options(const struct command *c, int argc, char *argv[],
    struct recent *r)
{
	static const struct option longopts[] = {
		{ "count",	required_argument, NULL, 'n' },
		{ "last",	required_argument, NULL, 'l' },
		{ "all",	no_argument,	   NULL, 'a' },
		{ "pid",	required_argument, NULL, 'p' },
		{ "tid",	required_argument, NULL, 't' },
		{ "comm",	required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	memset(r, 0, sizeof(*r));
	r->count = "10";
	r->last = 60 * 1000000000ULL;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "n:ap:t:c:", longopts, NULL)) !=
	    -1) {
		if (r->nfilter + 2 > (int)ARRAY_LEN(r->filter))
			command_usage(c);
		switch (ch) {
		case 'n':
			parse_u64("--count", optarg);
			r->count = optarg;
			break;
		case 'l':
			r->last = parse_duration_ns("--last", optarg);
			break;
		case 'a':
			r->filter[r->nfilter++] = "--all";
			break;
		case 'p':
		case 't':
			parse_u64(ch == 'p' ? "--pid" : "--tid", optarg);
			r->filter[r->nfilter++] = ch == 'p' ? "--pid" : "--tid";
			r->filter[r->nfilter++] = optarg;
			break;
		case 'c':
			r->filter[r->nfilter++] = "--comm";
			r->filter[r->nfilter++] = optarg;
			break;
		default:
			command_usage(c);
		}
	}
	return optind;
}

void
recent_filters(struct pipeline *p, const struct recent *r)
{
	int i;

	for (i = 0; i < r->nfilter; i++)
		pipeline_arg(p, r->filter[i]);
}

/*
 * Its inputs, as arguments of p's last stage: the FILEs given, or the
 * recorder's last `last', written out of the kernel first ("--" before
 * the files when sep: the stage reads options after them).
 */
void
recent_inputs(struct pipeline *p, char *files[], int nfiles, uint64_t last,
    int sep)
{
	unsigned long long bytes;
	char since[32], when[64];
	uint64_t from, reach, oldest;
	time_t newest;
	pid_t pid;
	int i;

	if (nfiles > 0) {
		if (sep)
			pipeline_arg(p, "--");
		for (i = 0; i < nfiles; i++)
			pipeline_arg(p, files[i]);
		return;
	}
	if (ring_open(0) == -1)
		diex(EX_NOINPUT, "%s: no recording ('argus start' first, or "
		    "name a capture)", ring);
	from = now_ns() > last ? now_ns() - last : 0;
	if ((pid = recorder()) != 0)
		recorder_drain(pid);
	/* The whole window: what of it the recorder spilled too. */
	if (pid != 0 && recorder_reach() > from)
		recorder_deepen(pid, from, &reach, &oldest);
	pipeline_arg(p, "--live");
	pipeline_arg(p, "-s");
	snprintf(since, sizeof(since), "%llu", (unsigned long long)from);
	pipeline_arg(p, since);
	if (sep)
		pipeline_arg(p, "--");
	if (ring_files(p, 0, &bytes, &newest) == 0)
		diex(EX_NOINPUT, "%s: no recording in it yet", ring);
	/* A ring last written before the window holds nothing of it. */
	if (newest < time(NULL) - (time_t)(last / 1000000000ULL)) {
		strftime(when, sizeof(when), "%F %T", localtime(&newest));
		diex(EX_NOINPUT, "%s: nothing recorded in the last %.0f s: its "
		    "newest file was written %s%s", ring, last / 1e9, when,
		    pid != 0 ? "" : "; the recorder is not running ('argus "
		    "start')");
	}
}
