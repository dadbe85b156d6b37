/*
 * argus-waits' reading: each thread's vertices, as the stream's vertex,
 * link and event records describe them.  Apart from the report so that
 * what a wait is (report.c) is not mixed with how records are taken.
 */
#include <stdio.h>
#include <string.h>

#include "event.h"
#include "ksym.h"
#include "util.h"
#include "waits.h"

struct thread *threads;

struct thread *
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
		snprintf(v->call, sizeof(v->call), "%s",
		    event_str(ev, SYSCALL_NAME));
}

/* The best cause of a vertex: strong before weak, then the latest. */
static void
take_link(const struct link_rec *l)
{
	struct wv *v;

	/* An idle CPU, or the thread's own previous vertex: no cause. */
	if ((l->from == 0 && l->from_tid == 0) || (l->props & LR_ORDER))
		return;
	if (l->from != 0 && l->from_tid != 0 && l->from_tid != l->tid)
		vertex(l->from_tid, l->from)->woke = 1;
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
	/* Its name as it was then: an exec renames what follows only. */
	snprintf(v->comm, sizeof(v->comm), "%s", r->comm);
	v->end = r->end;
	v->waited = strcmp(r->ended_by, VE_WAIT) == 0;
	v->open = strcmp(r->ended_by, VE_OPEN) == 0 && r->wait[0] != '\0' &&
	    strchr("SDI", r->wait[0]) != NULL;
	v->idle_state = r->wait[0] == 'I';
}

/* The stream into the threads; the number of vertex records. */
size_t
waits_read(char **files, int nfiles)
{
	const struct record *rec;
	struct vertex_rec vr;
	struct link_rec lr;
	struct event ev;
	struct source *src;
	size_t nv = 0;

	src = source_open(files, nfiles);
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
	return nv;
}
