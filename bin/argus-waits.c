/*
 * argus-waits: the longest waits in an event graph, the first look a
 * user takes before choosing a target: which thread waited, in what
 * call, for how long, and who ended the wait, or that it still goes on.
 *
 * A vertex runs from a wake-up to the next: a wait is its end, from its
 * last event (the thread blocked) to its END, when the thread woke, and
 * the best link into the thread's next vertex says who woke it: a strong
 * one before a weak one, the latest cause among equals.  A vertex still
 * open at the end of the trace in a sleeping state has not been woken.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "event.h"
#include "graph.h"
#include "util.h"

static const char usage[] =
"usage: argus-waits [-n COUNT] [-m DURATION] [-p PID] [-t TID] [FILE ...]\n"
"The longest waits in an event graph (argus-segment | argus-link): the\n"
"thread, the system call it waited in, how long, and who ended the wait\n"
"(the cause the graph links to the thread's next vertex), or 'still\n"
"waiting' when the trace ended first.\n"
"\n"
"  -n, --count COUNT       how many (default 10; 0: all)\n"
"  -m, --min DURATION      only waits at least this long (default 0)\n"
"  -p, --pid PID           only this process's threads\n"
"  -t, --tid TID           only this thread\n"
"  -h, --help              this text\n"
"  -V, --version           version and record stream version\n"
"\n"
"Exit: 0 ok (also when there is no wait), 64 usage, 65 bad input, 66\n"
"cannot open.  See argus-waits(1).\n";

#define NAME_LEN	24

/* What the events say of a vertex, and what the graph links to it. */
struct vinfo {
	uint64_t	 id;
	uint64_t	 last;		/* its last event's time */
	char		 call[NAME_LEN];	/* its last system call */
	int		 cause;		/* a link into it is known */
	int		 weak;
	uint64_t	 from_time;
	uint32_t	 from_pid, from_tid;
	char		 rule[NAME_LEN];
	UT_hash_handle	 hh;
};

struct vtx {
	uint32_t	 pid, tid;
	uint64_t	 id, begin, end;
	int		 waited, open;	/* ENDED_BY wait; open in a sleep */
	char		 comm[NAME_LEN];
};

struct wait {
	const struct vtx *v;
	uint64_t	 since, len;
	const struct vinfo *ender;	/* NULL: still waiting, or unknown */
	int		 ongoing;
};

static struct vinfo *infos;
static struct vtx *vs;
static size_t nvs, capvs;

static struct vinfo *
info(uint64_t id)
{
	struct vinfo *i;

	HASH_FIND(hh, infos, &id, sizeof(id), i);
	if (i == NULL) {
		i = xcalloc(1, sizeof(*i));
		i->id = id;
		HASH_ADD(hh, infos, id, sizeof(i->id), i);
	}
	return i;
}

static void
take_event(const struct event *ev)
{
	struct vinfo *i;

	if (ev->vertex == NO_VERTEX || ev->vertex == UNSEGMENTED)
		return;
	i = info(ev->vertex);
	if (ev->time >= i->last)
		i->last = ev->time;
	if (ev->type == E_SYS_ENTER)
		snprintf(i->call, sizeof(i->call), "%s", event_str(ev, 1));
}

/* The best cause of a vertex: strong before weak, then the latest. */
static void
take_link(const struct link_rec *l)
{
	struct vinfo *i = info(l->to);

	/* An idle CPU, or the thread's own previous vertex: no cause. */
	if ((l->from == 0 && l->from_tid == 0) || (l->props & LR_ORDER))
		return;
	if (i->cause && (l->weak > i->weak || (l->weak == i->weak &&
	    l->from_time <= i->from_time)))
		return;
	i->cause = 1;
	i->weak = l->weak;
	i->from_time = l->from_time;
	i->from_pid = l->from_pid;
	i->from_tid = l->from_tid;
	snprintf(i->rule, sizeof(i->rule), "%s", l->rule);
}

static void
take_vertex(const struct vertex_rec *r)
{
	struct vtx *v;

	if (nvs == capvs) {
		capvs = capvs ? 2 * capvs : 4096;
		vs = xrealloc(vs, capvs * sizeof(*vs));
	}
	v = &vs[nvs++];
	v->pid = r->pid;
	v->tid = r->tid;
	v->id = r->id;
	v->begin = r->begin;
	v->end = r->end;
	v->waited = strcmp(r->ended_by, "wait") == 0;
	v->open = strcmp(r->ended_by, "open") == 0 &&
	    strchr("SDI", r->wait[0]) != NULL && r->wait[0] != '\0';
	snprintf(v->comm, sizeof(v->comm), "%s", r->comm);
}

static int
by_thread(const void *a, const void *b)
{
	const struct vtx *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static int
longest(const void *a, const void *b)
{
	const struct wait *x = a, *y = b;

	return x->len > y->len ? -1 : x->len < y->len;
}

/* The name of a thread, from its vertices: the last it had. */
static const char *
comm_of(uint32_t tid)
{
	size_t lo = 0, hi = nvs, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (vs[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + 1 < nvs && vs[lo + 1].tid == tid)
		lo++;
	return lo < nvs && vs[lo].tid == tid ? vs[lo].comm : "?";
}

static void
print(const struct wait *w)
{
	char who[64], by[96];
	const struct vinfo *e = w->ender;
	const struct vinfo *self;
	uint64_t id = w->v->id;

	HASH_FIND(hh, infos, &id, sizeof(id), self);
	snprintf(who, sizeof(who), "%s %u/%u", w->v->comm, w->v->pid,
	    w->v->tid);
	if (w->ongoing)
		snprintf(by, sizeof(by), "still waiting");
	else if (e == NULL || !e->cause)
		snprintf(by, sizeof(by), "-");
	else if (e->from_tid == w->v->tid)
		snprintf(by, sizeof(by), "its own %s (%s%s)", strcmp(e->rule,
		    "timeout") == 0 ? "timer" : "doing", e->rule,
		    e->weak ? ", weak" : "");
	else
		snprintf(by, sizeof(by), "%s %u/%u (%s%s)", comm_of(e->from_tid),
		    e->from_pid, e->from_tid, e->rule, e->weak ? ", weak" : "");
	printf("%10.3f s  %-32s %-16s %s\n", w->len / 1e9, who,
	    self != NULL && self->call[0] ? self->call : "-", by);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "count",	required_argument, NULL, 'n' },
		{ "min",	required_argument, NULL, 'm' },
		{ "pid",	required_argument, NULL, 'p' },
		{ "tid",	required_argument, NULL, 't' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ "version",	no_argument,	   NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	const struct record *rec;
	struct vertex_rec vr;
	struct link_rec lr;
	struct event ev;
	struct source *src;
	struct wait *ws = NULL;
	const struct vinfo *start;
	struct vinfo *next;
	uint64_t count = 10, min = 0, pid = 0, tid = 0, id;
	size_t i, nw = 0;
	int ch;

	while ((ch = getopt_long(argc, argv, "n:m:p:t:hV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'n': count = parse_u64("--count", optarg); break;
		case 'm': min = parse_duration_ns("--min", optarg); break;
		case 'p': pid = parse_u64("--pid", optarg); break;
		case 't': tid = parse_u64("--tid", optarg); break;
		default: common_option(&com, ch, optarg, usage);
		}
	}
	catch_signals();
	src = source_open(argv + optind, argc - optind);
	while ((rec = source_next(src)) != NULL) {
		if (event_parse(rec, &ev))
			take_event(&ev);
		else if (link_parse(rec, &lr))
			take_link(&lr);
		else if (vertex_parse(rec, &vr))
			take_vertex(&vr);
	}
	source_close(src);
	stop_if_interrupted();
	if (nvs == 0)
		diex(EX_DATAERR, "no vertex records in the input: run "
		    "argus-segment and argus-link first");
	qsort(vs, nvs, sizeof(*vs), by_thread);
	ws = xcalloc(nvs, sizeof(*ws));
	for (i = 0; i < nvs; i++) {
		if ((pid && vs[i].pid != pid) || (tid && vs[i].tid != tid))
			continue;
		id = vs[i].id;
		HASH_FIND(hh, infos, &id, sizeof(id), start);
		/* A vertex runs until its thread next wakes: the wait ends it. */
		if ((!vs[i].waited && !vs[i].open) || start == NULL ||
		    start->last == 0 || start->last > vs[i].end)
			continue;
		next = NULL;
		if (vs[i].waited && i + 1 < nvs && vs[i + 1].tid == vs[i].tid) {
			id = vs[i + 1].id;
			HASH_FIND(hh, infos, &id, sizeof(id), next);
		}
		ws[nw] = (struct wait){ &vs[i], start->last,
		    vs[i].end - start->last, next, vs[i].open };
		if (ws[nw].len >= min)
			nw++;
	}
	qsort(ws, nw, sizeof(*ws), longest);
	printf("%12s  %-32s %-16s %s\n", "WAITED", "THREAD", "CALL",
	    "ENDED BY");
	for (i = 0; i < nw && (count == 0 || i < count); i++)
		print(&ws[i]);
	if (count != 0 && nw > count)
		printf("(%zu more: -n 0 for all)\n", nw - count);
	return exit_status(1);
}
