/*
 * argus-spin: find where a thread hung, and say how (LongRunning,
 * LongWait, RepeatedYield).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "spin/spin.h"

static const char usage[] =
"usage: argus-spin [-zZq] [-p PID] [-t TID] [-c COMM] [-a TIME] [-T DURATION]\n"
"                  [-o FILE] [FILE ...]\n"
"Find the hang of a thread in a graph (argus-segment | argus-link) and\n"
"classify it: LongRunning, LongWait or RepeatedYield.\n"
"\n"
"  -p, --pid PID         the process's main thread (tid = PID)\n"
"  -t, --tid TID         that thread\n"
"  -c, --comm NAME       the main thread of the process whose main thread\n"
"                        is NAME, else the first thread named NAME\n"
"                        (default: the process the capture started)\n"
"  -a, --at TIME         the hang is the vertex holding TIME: ns of\n"
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

static struct episode *episodes;
static size_t nepisodes;

static void
add(const struct tracked *t, size_t first, size_t last, enum sclass c)
{
	struct episode *e;

	episodes = xrealloc(episodes, (nepisodes + 1) * sizeof(*episodes));
	e = &episodes[nepisodes++];
	memset(e, 0, sizeof(*e));
	e->first = first;
	e->last = last;
	e->class = c;
	episode_close(t, e);
}

/* The vertex holding the moment, and the polling chain it is part of. */
static int
at_moment(const struct tracked *t, uint64_t when, uint64_t poll_max)
{
	size_t i, found = t->nv, first, last;

	for (i = 0; i < t->nv; i++)
		if (t->v[i].recorded && t->v[i].begin <= when &&
		    when <= t->v[i].end)
			found = i;
	if (found == t->nv)
		return 0;
	chain_extend(t, found, poll_max, &first, &last);
	if (first != last)
		add(t, first, last, REPEATED_YIELD);
	else
		add(t, found, found, classify_vertex(&t->v[found]));
	return 1;
}

/* Every vertex, or polling chain, at least threshold long. */
static void
long_episodes(const struct tracked *t, uint64_t threshold, uint64_t poll_max)
{
	size_t i, first, last;
	const struct vsum *v;

	for (i = 0; i < t->nv; i++) {
		v = &t->v[i];
		if (!v->recorded)
			continue;
		if (chain_joined(t, i, poll_max)) {
			chain_extend(t, i, poll_max, &first, &last);
			if (t->v[last].end - t->v[first].begin >= threshold)
				add(t, first, last, REPEATED_YIELD);
			i = last;
			continue;
		}
		if (v->end - v->begin >= threshold)
			add(t, i, i, classify_vertex(v));
	}
}

static void
longest(const struct tracked *t, char *buf, size_t len)
{
	size_t i, best = 0;

	for (i = 1; i < t->nv; i++)
		if (t->v[i].end - t->v[i].begin >
		    t->v[best].end - t->v[best].begin)
			best = i;
	snprintf(buf, len, "%zu vertices, the longest %.3f s (vertex %llu)",
	    t->nv, (t->v[best].end - t->v[best].begin) / 1e9,
	    (unsigned long long)t->v[best].id);
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
	struct moment m = { 0, 0, 0, NO_TIME, NO_TIME };
	uint64_t threshold = 2000000000ULL, last = NO_TIME, when;
	uint64_t byclass[NCLASSES] = { 0 };
	const struct record *rec;
	struct tracked *t;
	struct source *src;
	struct writer *out;
	struct event ev;
	char what[128];
	int ch, quiet = 0, isev;
	size_t i;

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
			threshold = parse_duration_ns("--threshold", optarg);
			if (threshold == 0)
				diex(EX_USAGE, "--threshold: must be more than 0");
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			common_option(&com, ch, optarg, usage);
		}
	}
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
		if (isev) {
			if (ev.vertex == UNSEGMENTED)
				diex(EX_DATAERR, "%s:%lu: event without a "
				    "vertex: run argus-segment and argus-link "
				    "first", rec->file, rec->line);
			history_event(&tg, &ev);
		} else if (strcmp(rec->f[COL_KIND], "vertex") == 0)
			history_vertex(&tg, rec);
		else if (strcmp(rec->f[COL_KIND], "link") == 0)
			history_link(rec);
		else if (strcmp(rec->f[COL_KIND], "task") == 0) {
			uint64_t pid = 0, tid;

			if (record_u64_opt(rec, COL_TID, &tid)) {
				record_u64_opt(rec, COL_PID, &pid);
				history_name(&tg, pid, tid,
				    record_str(rec, COL_FIRST_OWN));
			}
		} else if (strcmp(rec->f[COL_KIND], "meta") == 0)
			target_meta(&tg, rec);
	}
	history_finish(last);
	if (!tg.pid && !tg.tid && tg.comm == NULL)
		diex(EX_USAGE, "no target: give --pid, --tid or --comm (the "
		    "input names no command_pid)");
	if (nvertex_records == 0)
		diex(EX_DATAERR, "no vertex records in the input: run "
		    "argus-segment and argus-link first");
	if ((t = target_pick(&tg)) == NULL) {
		report_summary(out, last, 0, byclass, !quiet);
		warnx_("no vertex of %s in the input",
		    target_describe(&tg, what, sizeof(what)));
		writer_close(out);
		return 1;
	}
	when = moment_when(&m);
	if (when != NO_TIME) {
		if (!at_moment(t, when, threshold / 20))
			warnx_("%s %u/%u has no vertex at %llu%s", t->comm,
			    t->pid, t->tid, (unsigned long long)when,
			    m.set ? "" : " (the last argus-mark)");
	} else
		long_episodes(t, threshold, threshold / 20);
	for (i = 0; i < nepisodes; i++) {
		report_spin(out, last, t, &episodes[i], !quiet);
		byclass[episodes[i].class]++;
	}
	report_summary(out, last, nepisodes, byclass, !quiet);
	if (nepisodes == 0 && when == NO_TIME) {
		longest(t, what, sizeof(what));
		warnx_("no episode of %s %u/%u as long as %.3f s: %s", t->comm,
		    t->pid, t->tid, threshold / 1e9, what);
	}
	writer_close(out);
	source_close(src);
	if (interrupted)
		return exit_status(1);
	return nepisodes > 0 ? 0 : 1;
}
