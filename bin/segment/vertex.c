/*
 * Threads, their open vertices, and the records that close them.  Events
 * come in time order; each is tagged with its vertex as it passes, so the
 * output stays in time order and memory holds only the live threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "segment.h"

static struct thread	*threads;
static struct writer	*out;
static uint64_t		 next_id = 1;
static uint64_t		 nvertices, nevents, nculled;

void
segment_init(struct writer *w)
{
	out = w;
}

struct thread *
thread_find(uint32_t tid)
{
	struct thread *t;

	HASH_FIND(hh, threads, &tid, sizeof(tid), t);
	return t;
}

struct thread *
thread_get(uint32_t tid, uint32_t pid)
{
	struct thread *t;

	if ((t = thread_find(tid)) == NULL) {
		t = xcalloc(1, sizeof(*t));
		t->tid = tid;
		t->oncpu_since = NO_TIME;
		t->cull_until = NO_TIME;
		t->began_by = "start";
		HASH_ADD(hh, threads, tid, sizeof(t->tid), t);
	}
	if (pid != 0)
		t->pid = pid;
	return t;
}

static void
set_comm(struct thread *t, const char *comm)
{
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

static void
open_vertex(struct thread *t, uint64_t now)
{
	t->vertex = next_id++;
	t->begin = now;
	t->nevents = 0;
	t->oncpu = 0;
	t->npeers = 0;
	if (t->oncpu_since != NO_TIME)
		t->oncpu_since = now;	/* time before belongs to the last one */
}

static void
close_vertex(struct thread *t, uint64_t end, const char *ended_by)
{
	if (t->vertex == 0)
		return;
	if (t->oncpu_since != NO_TIME && end > t->oncpu_since) {
		t->oncpu += end - t->oncpu_since;
		t->oncpu_since = end;
	}
	writer_begin(out, "vertex");
	writer_u64(out, end);
	writer_u64(out, t->pid);
	writer_u64(out, t->tid);
	writer_u64(out, t->vertex);
	writer_u64(out, t->begin);
	writer_u64(out, end);
	writer_u64(out, t->oncpu);
	writer_u64(out, t->nevents);
	writer_str(out, t->began_by);
	writer_str(out, ended_by);
	writer_str(out, t->waiting ? t->wait_state : "");
	writer_str(out, t->comm);
	writer_end(out);
	nvertices++;
	t->vertex = 0;
	t->waiting = 0;
}

/* A waiting vertex ends when its thread runs again. */
static void
resume(struct thread *t, uint64_t now)
{
	if (!t->waiting)
		return;
	close_vertex(t, now, "wait");
	t->began_by = "wakeup";
}

/* What an event tells about threads other than the one it ran in. */
static void
other_threads(const struct event *ev, struct thread *t)
{
	struct thread *o;

	switch (ev->type) {
	case E_SWITCH:
		if (t->oncpu_since != NO_TIME) {
			t->oncpu += ev->time - t->oncpu_since;
			t->oncpu_since = NO_TIME;
		}
		o = thread_get(event_u64(ev, 2), event_pid(ev, 1));
		if (o->comm[0] == '\0')
			set_comm(o, event_str(ev, 3));
		resume(o, ev->time);
		o->oncpu_since = ev->time;
		break;
	case E_FORK:
		o = thread_get(event_u64(ev, 1), event_pid(ev, 0));
		set_comm(o, event_str(ev, 3));
		o->began_by = "fork";
		break;
	case E_COMM:
		set_comm(thread_get(event_u64(ev, 1), event_pid(ev, 0)),
		    event_str(ev, 3));
		break;
	default:
		break;
	}
}

static void
tag(const struct event *ev, uint64_t vertex)
{
	char id[24];

	snprintf(id, sizeof(id), "%llu", (unsigned long long)vertex);
	writer_splice(out, ev->rec, EC_VERTEX, id);
}

void
segment_event(struct event *ev, struct heuristic **h, int nh)
{
	struct thread *t = thread_get(ev->tid, ev->pid);
	const char *cut = NULL, *end = NULL;
	enum verdict v;
	int i, cull = 0, wait = 0;

	nevents++;
	other_threads(ev, t);
	if (t->dead) {
		/*
		 * What an exiting thread still does (wake its parent, its
		 * last switch-out) is its last vertex's doing.
		 */
		tag(ev, t->last_vertex);
		if (ev->type == E_SWITCH) {
			HASH_DEL(threads, t);
			free(t);
		}
		return;
	}
	for (i = 0; i < nh; i++) {
		if (h[i]->off)
			continue;
		switch ((v = h[i]->judge(t, ev))) {
		case KEEP:
			continue;
		case CULL:
			cull = 1;
			break;
		case CUT_BEFORE:
			if (cut == NULL)
				cut = h[i]->name;
			break;
		case CUT_AFTER:
		case WAIT_AFTER:
			if (end == NULL)
				end = h[i]->name;
			wait |= v == WAIT_AFTER;
			break;
		}
		h[i]->count++;
		if (cull)
			break;
	}
	if (cull) {
		nculled++;
		tag(ev, NO_VERTEX);
		return;
	}
	/* A thread first seen running: it is on a CPU now. */
	if (t->oncpu_since == NO_TIME && !t->waiting && ev->type != E_SWITCH)
		t->oncpu_since = ev->time;
	resume(t, ev->time);
	if (t->cut != NULL && cut == NULL)
		cut = t->cut;
	t->cut = NULL;
	if (cut != NULL && t->vertex != 0) {
		close_vertex(t, ev->time, cut);
		t->began_by = cut;
	}
	if (t->vertex == 0)
		open_vertex(t, ev->time);
	t->nevents++;
	tag(ev, t->vertex);
	if (ev->type == E_EXIT) {
		t->last_vertex = t->vertex;
		close_vertex(t, ev->time, "exit");
		t->dead = 1;
		return;
	}
	if (end == NULL)
		return;
	if (wait) {
		t->waiting = 1;
		snprintf(t->wait_state, sizeof(t->wait_state), "%s",
		    event_str(ev, 0));
		return;
	}
	close_vertex(t, ev->time, end);
	t->began_by = end;
}

/* Hints a user's filter put into the stream: obey, and pass them on. */
void
segment_hint(const struct record *rec)
{
	struct thread *t;
	uint64_t tid, pid = 0;

	if (!record_u64_opt(rec, COL_TID, &tid) || rec->time == NO_TIME)
		diex(EX_DATAERR, "%s:%lu: %s hint without a time and a thread",
		    rec->file, rec->line, rec->f[COL_KIND]);
	record_u64_opt(rec, COL_PID, &pid);
	t = thread_get(tid, pid);
	if (strcmp(rec->f[COL_KIND], "boundary") == 0)
		t->cut = "hint";
	else
		t->cull_until = record_u64(rec, COL_FIRST_OWN);
	writer_record(out, rec);
}

/* The thread snapshot capture writes first: names for the vertices. */
void
segment_task(const struct record *rec)
{
	uint64_t tid, pid = 0;

	if (record_u64_opt(rec, COL_TID, &tid)) {
		record_u64_opt(rec, COL_PID, &pid);
		set_comm(thread_get(tid, pid), record_str(rec, COL_FIRST_OWN));
	}
	writer_record(out, rec);
}

/* Vertices still open when the trace ends: the hang in progress. */
void
segment_finish(uint64_t end)
{
	struct thread *t, *tmp;

	HASH_ITER(hh, threads, t, tmp) {
		if (t->vertex != 0)
			close_vertex(t, end > t->begin ? end : t->begin, "open");
		HASH_DEL(threads, t);
		free(t);
	}
}

void
segment_summary(struct writer *w, uint64_t end, int to_stderr)
{
	struct heuristic *all[] = { &cull_interrupts, &cull_housekeeping,
	    &split_at_wait, &callout, &peer_set, &hints };
	size_t i;

	writer_begin(w, "summary");
	writer_time(w, end);
	writer_empty(w);
	writer_empty(w);
	writer_str(w, "argus-segment");
	writer_str(w, "events");
	writer_u64(w, nevents);
	writer_str(w, "vertices");
	writer_u64(w, nvertices);
	writer_str(w, "culled");
	writer_u64(w, nculled);
	for (i = 0; i < ARRAY_LEN(all); i++) {
		writer_str(w, all[i]->name);
		writer_u64(w, all[i]->count);
	}
	writer_end(w);
	if (!to_stderr)
		return;
	fprintf(stderr, "argus-segment: %llu events, %llu vertices, %llu "
	    "events culled; by heuristic:", (unsigned long long)nevents,
	    (unsigned long long)nvertices, (unsigned long long)nculled);
	for (i = 0; i < ARRAY_LEN(all); i++)
		fprintf(stderr, " %s %llu%s", all[i]->name,
		    (unsigned long long)all[i]->count, all[i]->off ? " (off)" : "");
	fputc('\n', stderr);
}
