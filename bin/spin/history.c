/*
 * The tracked threads' vertices as the stream goes by: their records,
 * the links into them, and from their events what the records do not
 * say: sched_yield calls, blocking waits and how long they lasted.
 * Nothing is kept for a thread that is not tracked but, while the target
 * is looked for by name, nothing at all: names come with the events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spin.h"

static struct tracked	*tracked;
static uint64_t		 ntracked;
uint64_t		 nvertex_records;

struct tracked *
tracked_find(uint32_t tid)
{
	struct tracked *t;

	HASH_FIND(hh, tracked, &tid, sizeof(tid), t);
	return t;
}

struct tracked *
tracked_add(uint32_t tid, uint32_t pid)
{
	struct tracked *t;

	if ((t = tracked_find(tid)) == NULL) {
		t = xcalloc(1, sizeof(*t));
		t->tid = tid;
		t->order = ntracked++;
		t->blocked_since = NO_TIME;
		HASH_ADD(hh, tracked, tid, sizeof(t->tid), t);
	}
	if (pid != 0)
		t->pid = pid;
	return t;
}

struct tracked *
tracked_all(void)
{
	return tracked;
}

/* The thread, tracked if it is or may be the target. */
static struct tracked *
want(const struct target *tg, uint32_t pid, uint32_t tid, const char *comm)
{
	struct tracked *t;

	if ((t = tracked_find(tid)) != NULL) {
		if (pid != 0)
			t->pid = pid;
		return t;
	}
	return target_wants(tg, pid, tid, comm) ? tracked_add(tid, pid) : NULL;
}

void
history_name(const struct target *tg, uint32_t pid, uint32_t tid,
    const char *comm)
{
	struct tracked *t;

	if (comm == NULL || comm[0] == '\0')
		return;
	if ((t = want(tg, pid, tid, comm)) != NULL)
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

/* Vertex ids grow with time within a thread: look from the end. */
static size_t
vsum_ix(struct tracked *t, uint64_t id)
{
	size_t i = t->nv;

	while (i > 0 && t->v[i - 1].id > id)
		i--;
	if (i > 0 && t->v[i - 1].id == id)
		return i - 1;
	if (t->nv == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	memmove(&t->v[i + 1], &t->v[i], (t->nv - i) * sizeof(*t->v));
	memset(&t->v[i], 0, sizeof(*t->v));
	t->v[i].id = id;
	t->nv++;
	if (t->blocked_since != NO_TIME && t->blocked_ix >= i)
		t->blocked_ix++;
	return i;
}

static int
blocking(const char *state)
{
	return state[0] != '\0' && state[0] != 'R';
}

void
history_event(const struct target *tg, const struct event *ev)
{
	struct tracked *t, *o;
	struct vsum *v;
	size_t ix;

	switch (ev->type) {
	case E_SWITCH:
		/* The next thread runs: a wait of it is over. */
		o = want(tg, event_u64(ev, 1), event_u64(ev, 2),
		    event_str(ev, 3));
		if (o != NULL) {
			if (o->comm[0] == '\0')
				snprintf(o->comm, sizeof(o->comm), "%s",
				    event_str(ev, 3));
			if (o->blocked_since != NO_TIME) {
				if (ev->time > o->blocked_since)
					o->v[o->blocked_ix].blocked +=
					    ev->time - o->blocked_since;
				o->blocked_since = NO_TIME;
			}
		}
		break;
	case E_FORK:
		history_name(tg, event_u64(ev, 0), event_u64(ev, 1),
		    event_str(ev, 3));
		break;
	case E_COMM:
		history_name(tg, event_u64(ev, 0), event_u64(ev, 1),
		    event_str(ev, 3));
		break;
	default:
		break;
	}
	if (ev->ctx != '-' || ev->vertex == NO_VERTEX ||
	    ev->vertex == UNSEGMENTED)
		return;
	if ((t = want(tg, ev->pid, ev->tid, NULL)) == NULL)
		return;
	ix = vsum_ix(t, ev->vertex);	/* may move t->v */
	v = &t->v[ix];
	if (ev->type == E_SYS_ENTER &&
	    strcmp(event_str(ev, 1), "sched_yield") == 0)
		v->yields++;
	else if (ev->type == E_SWITCH && blocking(event_str(ev, 0))) {
		v->waits++;
		t->blocked_since = ev->time;
		t->blocked_ix = v - t->v;
	}
}

static int
wake_rule(const char *rule)
{
	/* Not what woke it: program order, a waiter's back edge, a reply. */
	return strcmp(rule, "order") != 0 && strcmp(rule, "wait") != 0 &&
	    strcmp(rule, "reply") != 0;
}

void
history_link(const struct record *rec)
{
	struct tracked *t;
	struct vsum *v;
	uint64_t tid;
	size_t ix;

	if (!record_u64_opt(rec, COL_TID, &tid) ||
	    (t = tracked_find(tid)) == NULL)
		return;
	ix = vsum_ix(t, record_u64(rec, COL_FIRST_OWN + 1));
	v = &t->v[ix];
	if (v->woke || !wake_rule(record_str(rec, COL_FIRST_OWN + 3)))
		return;
	v->woke = 1;
	v->waker = record_u64(rec, COL_FIRST_OWN);
	snprintf(v->wake_rule, sizeof(v->wake_rule), "%s",
	    record_str(rec, COL_FIRST_OWN + 3));
}

/* vertex,TIME,PID,TID,ID,BEGIN,END,ONCPU,EVENTS,BEGAN_BY,ENDED_BY,WAIT,COMM */
void
history_vertex(const struct target *tg, const struct record *rec)
{
	struct tracked *t;
	struct vsum *v;
	uint64_t pid = 0, tid;
	const size_t c = COL_FIRST_OWN;
	size_t ix;

	nvertex_records++;
	if (!record_u64_opt(rec, COL_TID, &tid))
		diex(EX_DATAERR, "%s:%lu: vertex without a thread", rec->file,
		    rec->line);
	record_u64_opt(rec, COL_PID, &pid);
	history_name(tg, pid, tid, record_str(rec, c + 8));
	if ((t = want(tg, pid, tid, record_str(rec, c + 8))) == NULL)
		return;
	ix = vsum_ix(t, record_u64(rec, c));
	v = &t->v[ix];
	v->begin = record_u64(rec, c + 1);
	v->end = record_u64(rec, c + 2);
	v->oncpu = record_u64(rec, c + 3);
	v->events = record_u64(rec, c + 4);
	snprintf(v->began_by, sizeof(v->began_by), "%s", record_str(rec, c + 5));
	snprintf(v->ended_by, sizeof(v->ended_by), "%s", record_str(rec, c + 6));
	snprintf(v->wait, sizeof(v->wait), "%s", record_str(rec, c + 7));
	if (v->end < v->begin)
		diex(EX_DATAERR, "%s:%lu: vertex %llu ends before it begins",
		    rec->file, rec->line, (unsigned long long)v->id);
	v->recorded = 1;
}

/* A wait still going on when the trace ended lasts until its end. */
void
history_finish(uint64_t end)
{
	struct tracked *t;

	for (t = tracked; t != NULL; t = t->hh.next) {
		if (t->blocked_since != NO_TIME && end != NO_TIME &&
		    end > t->blocked_since)
			t->v[t->blocked_ix].blocked += end - t->blocked_since;
		t->blocked_since = NO_TIME;
	}
}
