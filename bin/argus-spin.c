/*
 * argus-spin: find where a thread hung, and say how (LongRunning,
 * LongWait, RepeatedYield).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "show.h"
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
			history_name(tg, pid, tid, record_str(rec, COL_FIRST_OWN));
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
	uint64_t last, when;
	struct episode *e;
	struct tracked *t;
	struct writer *out;
	char what[128], *usage = usage_text();
	const char *how;
	int ch, quiet = 0;
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
	out = st.out;
	last = st.last;
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
	if (!quiet)
		target_said(&tg, t);
	when = moment_when(&m);
	how = m.ask == AT_TIME ? "at" : "mark";
	if (m.ask == AT_NOW && episodes_hung_at(t, last, &o)) {
		/* The hang going on: a mark before it was of another. */
		when = last;
		how = "now";
	} else if (m.ask == AT_NOW && when != NO_TIME && !quiet)
		warnx_("%s %u/%u does not hang now: taking the last argus-mark",
		    show(t->comm), t->pid, t->tid);
	if (m.ask == AT_MARK && when == NO_TIME) {
		report_summary(out, last, 0, NULL);
		warnx_("no argus-mark in the input");
		writer_close(out);
		return 1;
	}
	if (strcmp(how, "now") == 0)
		;
	else if (when == NO_TIME) {
		how = "every";
		episodes_long(t, &o);
	} else if (!episodes_at(t, when, &o))
		warnx_("%s %u/%u has no vertex at %llu%s", show(t->comm), t->pid,
		    t->tid, (unsigned long long)when,
		    m.ask == AT_TIME ? "" : " (the last argus-mark)");
	/* Which moment was taken, for the report. */
	if (when == NO_TIME)
		meta_write(out, last, META_MOMENT, "%s", how);
	else
		meta_write(out, last, META_MOMENT, "%s %llu", how,
		    (unsigned long long)when);
	e = episodes(&n);
	for (i = 0; i < n; i++)
		report_spin(out, last, t, &e[i], !quiet);
	report_summary(out, last, n, e);
	if (n == 0 && strcmp(how, "every") == 0) {
		longest_vertex(t, what, sizeof(what));
		warnx_("no episode of %s %u/%u as long as %.3f s: %s",
		    show(t->comm), t->pid, t->tid, o.threshold / 1e9, what);
	}
	stage_close(&st);
	if (interrupted)
		return exit_status(1);
	return n > 0 ? 0 : 1;
}
