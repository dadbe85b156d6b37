/*
 * A fixed-size summary of every vertex of the threads that may hang, kept
 * while the stream goes by: the spin records that say which thread hung
 * come at its end.  --pid or --tid narrows that to one thread; without
 * them every thread is kept, a summary per vertex (never per event).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "similar.h"

static struct sthread	*threads;
static uint64_t		 only_pid, only_tid;
uint64_t		 nvertex_records, nkept;

void
history_select(uint64_t pid, uint64_t tid)
{
	only_pid = pid;
	only_tid = tid;
}

static int
selected(uint64_t tid)
{
	if (only_tid)
		return tid == only_tid;
	if (only_pid)
		return tid == only_pid;
	return 1;
}

struct sthread *
sthread_find(uint32_t tid)
{
	struct sthread *t;

	HASH_FIND(hh, threads, &tid, sizeof(tid), t);
	return t;
}

static struct sthread *
sthread_get(uint64_t tid, uint64_t pid)
{
	struct sthread *t;
	uint32_t k = tid;

	if (!selected(tid))
		return NULL;
	if ((t = sthread_find(k)) == NULL) {
		t = xcalloc(1, sizeof(*t));
		t->tid = k;
		HASH_ADD(hh, threads, tid, sizeof(t->tid), t);
	}
	if (pid != 0)
		t->pid = pid;
	return t;
}

size_t
vsem_find(const struct sthread *t, uint64_t id)
{
	size_t lo = 0, hi = t->nv, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nv && t->v[lo].id == id ? lo : t->nv;
}

/* Vertex ids grow with time within a thread: mostly the last one. */
static struct vsem *
vsem_get(struct sthread *t, uint64_t id)
{
	size_t i = t->nv;

	while (i > 0 && t->v[i - 1].id > id)
		i--;
	if (i > 0 && t->v[i - 1].id == id)
		return &t->v[i - 1];
	if (t->nv == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	memmove(&t->v[i + 1], &t->v[i], (t->nv - i) * sizeof(*t->v));
	memset(&t->v[i], 0, sizeof(*t->v));
	t->v[i].id = id;
	t->nv++;
	nkept++;
	return &t->v[i];
}

void
history_event(const struct event *ev)
{
	struct sthread *t;
	char nr[24];
	const char *name;

	if ((ev->type != E_SYS_ENTER && ev->type != E_SWITCH) ||
	    ev->ctx != '-' || ev->vertex == NO_VERTEX ||
	    ev->vertex == UNSEGMENTED)
		return;
	if ((t = sthread_get(ev->tid, ev->pid)) == NULL)
		return;
	t->cur = ev->vertex;
	if (ev->type == E_SWITCH) {
		/* A blocking wait: the work before it is done. */
		name = event_str(ev, 0);
		if (name[0] != '\0' && name[0] != 'R')
			vsem_get(t, ev->vertex)->blocked_at = ev->time;
		return;
	}
	name = event_str(ev, 1);
	if (name[0] == '\0') {
		snprintf(nr, sizeof(nr), "#%s", event_str(ev, 0));
		name = nr;
	}
	sem_add_syscall(vsem_get(t, ev->vertex), name, event_str(ev, 2));
}

/* stack,TIME,PID,TID,FRAMES...: after a blocking switch or a sys_enter. */
void
history_stack(const struct record *rec)
{
	struct sthread *t;
	uint64_t tid;
	char fn[128];

	if (!record_u64_opt(rec, COL_TID, &tid) ||
	    (t = sthread_find(tid)) == NULL || t->cur == 0 ||
	    !stack_function(rec, fn, sizeof(fn)))
		return;
	vsem_get(t, t->cur)->where = sys_intern(fn);
}

/* link,TIME,PID,TID,FROM,TO,STRENGTH,RULE,FROM_TIME,FROM_PID,FROM_TID,LABEL */
void
history_link(const struct record *rec)
{
	const size_t c = COL_FIRST_OWN;
	struct sthread *t;
	struct vsem *v;
	uint64_t pid = 0, tid, from_pid = 0, from_tid, from;
	int r = rule_id(record_str(rec, c + 3));

	if (record_u64_opt(rec, COL_TID, &tid)) {
		record_u64_opt(rec, COL_PID, &pid);
		if ((t = sthread_get(tid, pid)) != NULL) {
			v = vsem_get(t, record_u64(rec, c + 1));
			if (rule_in_kind(r))
				v->in_kinds |= 1u << r;
			if (rule_wakes(r) && !v->woke) {
				v->woke = 1;
				v->wake_rule = r;
				v->waker = record_u64(rec, c);
				record_u64_opt(rec, c + 4, &v->wake_time);
				record_u64_opt(rec, c + 5, &from_pid);
				v->waker_pid = from_pid;
				from_tid = 0;
				record_u64_opt(rec, c + 6, &from_tid);
				v->waker_tid = from_tid;
			}
		}
	} else
		tid = 0;
	/* Links out: to other threads; to its own is the outcome. */
	from = record_u64(rec, c);
	if (from == NO_VERTEX || !rule_out_kind(r) ||
	    !record_u64_opt(rec, c + 6, &from_tid) || from_tid == tid)
		return;
	record_u64_opt(rec, c + 5, &from_pid);
	if ((t = sthread_get(from_tid, from_pid)) != NULL)
		vsem_get(t, from)->out_kinds |= 1u << r;
}

/* vertex,TIME,PID,TID,ID,BEGIN,END,ONCPU,EVENTS,BEGAN_BY,ENDED_BY,WAIT,COMM */
void
history_vertex(const struct record *rec)
{
	const size_t c = COL_FIRST_OWN;
	struct sthread *t;
	struct vsem *v;
	uint64_t pid = 0, tid;

	nvertex_records++;
	if (!record_u64_opt(rec, COL_TID, &tid))
		diex(EX_DATAERR, "%s:%lu: vertex without a thread", rec->file,
		    rec->line);
	record_u64_opt(rec, COL_PID, &pid);
	if ((t = sthread_get(tid, pid)) == NULL)
		return;
	snprintf(t->comm, sizeof(t->comm), "%s", record_str(rec, c + 8));
	v = vsem_get(t, record_u64(rec, c));
	v->begin = record_u64(rec, c + 1);
	v->end = record_u64(rec, c + 2);
	if (v->end < v->begin)
		diex(EX_DATAERR, "%s:%lu: vertex %llu ends before it begins",
		    rec->file, rec->line, (unsigned long long)v->id);
	v->waited = strcmp(record_str(rec, c + 6), "wait") == 0;
	v->recorded = 1;
}
