/*
 * argus-spin: find where a thread hung, and say how (LongRunning,
 * LongWait, RepeatedYield).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "show.h"
#include "spin/spin.h"

static const char head[] =
"usage: argus-spin [-zZq] [-p PID] [-t TID] [-c COMM] [-a TIME] [-T DURATION]\n"
"                  [-o FILE] [FILE ...]\n"
"Find the hang of a thread in a graph (argus-segment | argus-link) and\n"
"classify it:\n";

static const char tail[] =
"\n"
"  -p, --pid PID         the process's main thread (tid = PID)\n"
"  -t, --tid TID         that thread\n"
"  -c, --comm NAME       the main thread of the process whose main thread\n"
"                        is NAME, else the first thread named NAME\n"
"                        (default: the process the capture started)\n"
"  -a, --at TIME         the hang is the episode holding TIME: ns of\n"
"                        CLOCK_MONOTONIC, or +DURATION from the first record\n"
"                        (default: the last `argus mark', else every episode\n"
"                        longer than the threshold)\n"
"  -T, --threshold DUR   an episode this long is a hang (default 2s)\n"
"  -q, --quiet           no lines on stderr about what was found\n"
"  -o, --output FILE     write to FILE (mode 0600) instead of stdout\n"
"  -z, --compress        gzip the output even into a pipe or terminal\n"
"  -Z, --no-compress     plain output even into a regular file\n"
"  -h, --help            this text\n"
"  -V, --version         version and record stream version\n"
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
	else if (strcmp(rec->f[COL_KIND], "task") == 0) {
		if (record_u64_opt(rec, COL_TID, &tid)) {
			record_u64_opt(rec, COL_PID, &pid);
			history_name(tg, pid, tid, record_str(rec, COL_FIRST_OWN));
		}
	} else if (strcmp(rec->f[COL_KIND], "meta") == 0) {
		target_meta(tg, rec);
		wall_learn(rec);	/* --at may be a clock time */
	}
}

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
	struct moment m = { { 0, 0, 0, 0, NULL }, NO_TIME, NO_TIME };
	struct spin_opts o = { HANG_NS, 0 };
	uint64_t last = NO_TIME, when;
	const struct record *rec;
	struct episode *e;
	struct tracked *t;
	struct source *src;
	struct writer *out;
	struct event ev;
	char what[128], *usage = usage_text();
	int ch, quiet = 0, isev;
	size_t i, n;

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
			when_parse(&m.at, "--at", optarg);
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
	catch_signals();
	src = source_open(argv + optind, argc - optind);
	out = writer_open(com.out, com.z);
	while ((rec = source_next(src)) != NULL) {
		writer_record(out, rec);
		if (rec->time != NO_TIME)
			last = rec->time;
		if (rec->comment)
			continue;
		isev = event_parse(rec, &ev);
		moment_see(&m, rec, isev ? &ev : NULL);
		if (!isev)
			see_record(&tg, rec);
		else if (ev.vertex == UNSEGMENTED)
			diex(EX_DATAERR, "%s:%lu: event without a vertex: run "
			    "argus-segment and argus-link first", rec->file,
			    rec->line);
		else
			history_event(&tg, &ev);
	}
	stop_if_interrupted();
	history_finish(last);
	if (!tg.pid && !tg.tid && tg.comm == NULL)
		diex(EX_USAGE, "no target: give --pid, --tid or --comm (the "
		    "input names no command_pid)");
	if (nvertex_records == 0)
		diex(EX_DATAERR, "no vertex records in the input: run "
		    "argus-segment and argus-link first");
	if ((t = target_pick(&tg)) == NULL) {
		report_summary(out, last, 0, NULL);
		warnx_("no vertex of %s in the input",
		    target_describe(&tg, what, sizeof(what)));
		writer_close(out);
		return 1;
	}
	when = moment_when(&m);
	if (when == NO_TIME)
		episodes_long(t, &o);
	else if (!episodes_at(t, when, &o))
		warnx_("%s %u/%u has no vertex at %llu%s", show(t->comm), t->pid,
		    t->tid, (unsigned long long)when,
		    m.at.set ? "" : " (the last argus-mark)");
	e = episodes(&n);
	for (i = 0; i < n; i++)
		report_spin(out, last, t, &e[i], !quiet);
	report_summary(out, last, n, e);
	if (n == 0 && when == NO_TIME) {
		longest_vertex(t, what, sizeof(what));
		warnx_("no episode of %s %u/%u as long as %.3f s: %s",
		    show(t->comm), t->pid, t->tid, o.threshold / 1e9, what);
	}
	writer_close(out);
	source_close(src);
	if (interrupted)
		return exit_status(1);
	return n > 0 ? 0 : 1;
}
