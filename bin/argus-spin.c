/*
 * argus-spin: find where a thread hung, and say how (LongRunning,
 * LongWait, RepeatedYield).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "spin/spin.h"
#include "stage.h"

static const char head[] =
"usage: argus-spin [-zZq] [-p PID] [-t TID] [-c COMM] [-a TIME] [-T DURATION]\n"
"                  [-o FILE] [FILE ...]\n"
"Find the hang of a thread in a graph (argus-segment | argus-link) and\n"
"classify it:\n";

static const char tail[] =
"\n"
"  -p, --pid PID         the process's main thread (tid = PID)\n"
"  -t, --tid TID         that thread\n"
"  -c, --comm NAME       the thread named NAME blocked longest at the end\n"
"                        (alive); none: the main thread of the process\n"
"                        whose main thread is NAME, else the first one\n"
"                        seen (default: the process the capture started)\n"
"  -a, --at TIME         the hang is the episode holding TIME: ns of\n"
"                        CLOCK_MONOTONIC, or +DURATION from the first record\n"
"                        (default: the last `argus mark', else every episode\n"
"                        longer than the threshold); 'mark': the last mark\n"
"                        only; 'now': the hang going on at the end of the\n"
"                        input, else as by default\n"
"  -T, --threshold DUR   an episode this long is a hang (default 2s)\n"
"  -q, --quiet           no lines on stderr about what was found\n"
USAGE_COMMON
"\n"
"Every record passes; spin records follow at the end of the input.\n"
"Exit: 0 ok, 1 no hang found, 64 usage, 65 bad input, 66 cannot open.\n"
"See argus-spin(1).\n";

/* The help text, with a line for each class. */
static char *
usage_text(void)
{
	size_t i, len = sizeof(head) + sizeof(tail);
	char *u, *p;

	for (i = 0; i < nsclasses; i++)
		len += strlen(sclasses[i].name) + strlen(sclasses[i].help) + 8;
	p = u = xmalloc(len);
	p += sprintf(p, "%s", head);
	for (i = 0; i < nsclasses; i++)
		p += sprintf(p, "  %-14s %s\n", sclasses[i].name,
		    sclasses[i].help);
	sprintf(p, "%s", tail);
	return u;
}

/* A record other than an event: what history.c and target.c keep. */
static void
see_record(struct target *tg, const struct record *rec)
{
	struct vertex_rec v;
	struct link_rec l;
	uint64_t pid = 0, tid;

	if (vertex_parse(rec, &v))
		history_vertex(tg, &v);
	else if (link_parse(rec, &l))
		history_link(&l);
	else if (strcmp(rec->f[COL_KIND], KIND_TASK) == 0) {
		if (record_u64_opt(rec, COL_TID, &tid)) {
			record_u64_opt(rec, COL_PID, &pid);
			history_name(tg, pid, tid, record_str(rec, TASK_COMM));
		}
	} else if (strcmp(rec->f[COL_KIND], KIND_META) == 0) {
		target_meta(tg, rec);
		wall_learn(rec);	/* --at may be a clock time */
	}
}

/* What the loop reads into: the target named, the moment asked. */
struct seen {
	struct target	*tg;
	struct moment	*m;
};

static int
take_event(void *arg, const struct record *rec, struct event *ev)
{
	struct seen *s = arg;

	moment_see(s->m, rec, ev);
	history_event(s->tg, ev);
	return 1;
}

static int
take_record(void *arg, const struct record *rec)
{
	struct seen *s = arg;

	moment_see(s->m, rec, NULL);
	see_record(s->tg, rec);
	return 1;
}

static const struct stage_ops ops = {
	.needs = "argus-segment and argus-link",
	.flags = STAGE_PASS | STAGE_VERTEX,
	.event = take_event,
	.record = take_record,
};

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "pid",	required_argument, NULL, 'p' },
		{ "tid",	required_argument, NULL, 't' },
		{ "comm",	required_argument, NULL, 'c' },
		{ "at",		required_argument, NULL, 'a' },
		{ "threshold",	required_argument, NULL, 'T' },
		{ "quiet",	no_argument,	   NULL, 'q' },
		COMMON_LONG,
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	struct target tg = { 0, 0, NULL, 0 };
	struct moment m = { AT_DEFAULT, { 0, 0, 0, 0, NULL }, NO_TIME, NO_TIME };
	struct spin_opts o = { HANG_NS, 0 };
	struct seen seen = { &tg, &m };
	struct stage st = { .arg = &seen };
	char *usage = usage_text();
	int ch, quiet = 0;
	size_t n;

	while ((ch = getopt_long(argc, argv, "p:t:c:a:T:q" COMMON_SHORT,
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			tg.pid = parse_u64("--pid", optarg);
			break;
		case 't':
			tg.tid = parse_u64("--tid", optarg);
			break;
		case 'c':
			tg.comm = optarg;
			break;
		case 'a':
			moment_parse(&m, optarg);
			break;
		case 'T':
			o.threshold = parse_duration_ns("--threshold", optarg);
			if (o.threshold == 0)
				diex(EX_USAGE, "--threshold: must be more than 0");
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			common_option(&com, ch, optarg, usage);
		}
	}
	o.poll_max = o.threshold / POLL_SHARE;
	episodes_init();
	stage_open(&st, &ops, argv + optind, argc - optind, &com, 0);
	stage_run(&st, &ops);
	history_finish(st.last);
	if (!tg.pid && !tg.tid && tg.comm == NULL)
		diex(EX_USAGE, "no target: give --pid, --tid or --comm (the "
		    "input names no command_pid)");
	if (nvertex_records == 0)
		diex(EX_DATAERR, "no vertex records in the input: run "
		    "argus-segment and argus-link first");
	n = report_hang(st.out, st.last, &tg, &m, &o, quiet);
	stage_close(&st);
	return exit_status(n > 0);
}
