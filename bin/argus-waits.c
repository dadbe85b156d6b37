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
 * A thread's vertices are kept in order of id, which is their order in
 * time (lib/graph.h, struct vvec): the next vertex is the next element.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "event.h"
#include "graph.h"
#include "ksym.h"
#include "show.h"
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

/* A vertex as the waits need it: what its events say, its cause. */
struct wv {
	uint64_t	 id;		/* first: struct vvec's key */
	uint64_t	 last;		/* its last event's time */
	uint64_t	 end;
	int		 waited, open;	/* ENDED_BY wait; open and asleep */
	char		 call[NAME_LEN];	/* its last system call */
	int		 cause, weak;	/* the best link into it, if any */
	unsigned	 props;
	uint64_t	 from_time;
	uint32_t	 from_pid, from_tid;
	char		 rule[NAME_LEN];
	char		 label[64];	/* a timer's function, a device, ... */
};

struct thread {
	uint32_t	 tid, pid;
	char		 comm[NAME_LEN];
	struct vvec	 vv;		/* of struct wv */
	UT_hash_handle	 hh;
};

struct wait {
	const struct thread *t;
	const struct wv	*v, *next;	/* next: NULL when still waiting */
	uint64_t	 len;
};

static struct thread *threads;

static struct thread *
thread_find(uint32_t tid)
{
	struct thread *t;

	HASH_FIND(hh, threads, &tid, sizeof(tid), t);
	return t;
}

/* Vertex id of thread tid, made if new. */
static struct wv *
vertex(uint32_t tid, uint64_t id)
{
	struct thread *t;

	if ((t = thread_find(tid)) == NULL) {
		t = xcalloc(1, sizeof(*t));
		t->tid = tid;
		t->vv.size = sizeof(struct wv);
		HASH_ADD(hh, threads, tid, sizeof(t->tid), t);
	}
	return vvec_get(&t->vv, id);
}

static void
take_event(const struct event *ev)
{
	struct wv *v;

	if (ev->vertex == NO_VERTEX || ev->vertex == UNSEGMENTED)
		return;
	v = vertex(ev->tid, ev->vertex);
	if (ev->time >= v->last)
		v->last = ev->time;
	if (ev->type == E_SYS_ENTER)
		snprintf(v->call, sizeof(v->call), "%s", event_str(ev, 1));
}

/* The best cause of a vertex: strong before weak, then the latest. */
static void
take_link(const struct link_rec *l)
{
	struct wv *v;

	/* An idle CPU, or the thread's own previous vertex: no cause. */
	if ((l->from == 0 && l->from_tid == 0) || (l->props & LR_ORDER))
		return;
	v = vertex(l->tid, l->to);
	if (v->cause && (l->weak > v->weak || (l->weak == v->weak &&
	    l->from_time <= v->from_time)))
		return;
	v->cause = 1;
	v->weak = l->weak;
	v->props = l->props;
	v->from_time = l->from_time;
	v->from_pid = l->from_pid;
	v->from_tid = l->from_tid;
	snprintf(v->rule, sizeof(v->rule), "%s", l->rule);
	/* A label that is still an address: the stream may name it. */
	snprintf(v->label, sizeof(v->label), "%s", ksym_name(l->label));
}

static void
take_vertex(const struct vertex_rec *r)
{
	struct wv *v = vertex(r->tid, r->id);
	struct thread *t = thread_find(r->tid);

	t->pid = r->pid;
	snprintf(t->comm, sizeof(t->comm), "%s", r->comm);
	v->end = r->end;
	v->waited = strcmp(r->ended_by, VE_WAIT) == 0;
	v->open = strcmp(r->ended_by, VE_OPEN) == 0 && r->wait[0] != '\0' &&
	    strchr("SDI", r->wait[0]) != NULL;
}

/* The longest first; ties by thread and time, the same on every run. */
static int
longest(const void *a, const void *b)
{
	const struct wait *x = a, *y = b;

	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	if (x->t->tid != y->t->tid)
		return x->t->tid < y->t->tid ? -1 : 1;
	return x->v->id < y->v->id ? -1 : x->v->id > y->v->id;
}

static void
print(const struct wait *w)
{
	const struct wv *e = w->next;
	const struct thread *from;
	char who[128], by[384], how[256] = "";

	snprintf(who, sizeof(who), "%s %u/%u", show(w->t->comm), w->t->pid,
	    w->t->tid);
	if (e != NULL)
		snprintf(how, sizeof(how), "%s%s%s%s", show(e->rule),
		    e->label[0] ? " " : "", show(e->label),
		    e->weak ? ", weak" : "");
	if (w->next == NULL)
		snprintf(by, sizeof(by), "still waiting");
	else if (!e->cause)
		snprintf(by, sizeof(by), "-");
	else if (e->from_tid == w->t->tid)
		snprintf(by, sizeof(by), "its own %s (%s)",
		    e->props & LR_TIMEOUT ? "timer" : "doing", how);
	else
		snprintf(by, sizeof(by), "%s %u/%u (%s)",
		    (from = thread_find(e->from_tid)) != NULL && from->comm[0] ?
		    show(from->comm) : "?", e->from_pid, e->from_tid, how);
	printf("%10.3f s  %-32s %-16s %s\n", w->len / 1e9, who,
	    w->v->call[0] ? show(w->v->call) : "-", by);
}

/*
 * The thread's waits: each vertex that ended in one, woken by the cause
 * of the next; the last, open and asleep, still waiting.
 */
static size_t
waits_of(const struct thread *t, uint64_t min, struct wait *ws)
{
	const struct wv *v;
	size_t i, n = 0;

	for (i = 0; i < t->vv.n; i++) {
		v = VVEC_AT(&t->vv, struct wv, i);
		if (!(v->waited && i + 1 < t->vv.n) && !v->open)
			continue;
		if (v->last == 0 || v->last > v->end || v->end - v->last < min)
			continue;
		ws[n].t = t;
		ws[n].v = v;
		ws[n].next = v->open ? NULL : VVEC_AT(&t->vv, struct wv, i + 1);
		ws[n++].len = v->end - v->last;
	}
	return n;
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
	struct thread *t;
	struct wait *ws = NULL;
	uint64_t count = 10, min = 0, pid = 0, tid = 0;
	size_t i, nw = 0, nv = 0;
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
		else if (vertex_parse(rec, &vr)) {
			take_vertex(&vr);
			nv++;
		}
	}
	source_close(src);
	stop_if_interrupted();
	if (nv == 0)
		diex(EX_DATAERR, "no vertex records in the input: run "
		    "argus-segment and argus-link first");
	ws = xcalloc(nv, sizeof(*ws));
	for (t = threads; t != NULL; t = t->hh.next)
		if ((!pid || t->pid == pid) && (!tid || t->tid == tid))
			nw += waits_of(t, min, ws + nw);
	qsort(ws, nw, sizeof(*ws), longest);
	printf("%12s  %-32s %-16s %s\n", "WAITED", "THREAD", "CALL",
	    "ENDED BY");
	for (i = 0; i < nw && (count == 0 || i < count); i++)
		print(&ws[i]);
	if (count != 0 && nw > count)
		printf("(%zu more: -n 0 for all)\n", nw - count);
	return exit_status(1);
}
