/*
 * argus-waits' report: what a wait is (a vertex ended in one, woken by
 * the cause of the next), which are idle, and the longest first.  Apart
 * from the reading so that the choice of waits reads on its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "util.h"
#include "waits.h"

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

	snprintf(who, sizeof(who), "%s %u/%u", show(w->v->comm[0] ?
	    w->v->comm : w->t->comm), w->t->pid, w->t->tid);
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
 * A wait nobody was kept waiting by: a kernel thread idle (state I), or
 * a loop's idling: its own timer ended it, and the vertex it woke into
 * woke no other thread before it waited again.  A hang is neither: the
 * thread that hangs is woken by another, or never; the one that sleeps
 * while others wait on it wakes them when it is done.
 */
static int
idle(const struct wv *v, const struct wv *next, uint32_t tid)
{
	if (v->idle_state)
		return 1;
	return next != NULL && next->cause && next->from_tid == tid &&
	    (next->props & LR_TIMEOUT) && !next->woke && !v->woke;
}

/*
 * The thread's waits: each vertex that ended in one, woken by the cause
 * of the next; the last, open and asleep, still waiting.
 */
int		 all;
static size_t	 nidle;

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
		ws[n].len = v->end - v->last;
		if (!all && idle(v, ws[n].next, t->tid)) {
			nidle++;
			continue;
		}
		n++;
	}
	return n;
}

/* Named NAME, or of a process whose main thread is. */
static int
named(const struct thread *t, const char *comm)
{
	const struct thread *main_thread;

	if (strcmp(t->comm, comm) == 0)
		return 1;
	return (main_thread = thread_find(t->pid)) != NULL &&
	    strcmp(main_thread->comm, comm) == 0;
}
/* The waits of the threads wanted, the longest first, count of them. */
void
waits_report(uint64_t count, uint64_t min, uint64_t pid, uint64_t tid,
    const char *comm, size_t nv)
{
	struct thread *t;
	struct wait *ws = NULL;
	size_t i, nw = 0;

	ws = xcalloc(nv, sizeof(*ws));
	for (t = threads; t != NULL; t = t->hh.next)
		if ((!pid || t->pid == pid) && (!tid || t->tid == tid) &&
		    (comm == NULL || named(t, comm)))
			nw += waits_of(t, min, ws + nw);
	qsort(ws, nw, sizeof(*ws), longest);
	printf("%12s  %-32s %-16s %s\n", "WAITED", "THREAD", "CALL",
	    "ENDED BY");
	for (i = 0; i < nw && (count == 0 || i < count); i++)
		print(&ws[i]);
	if (count != 0 && nw > count)
		printf("(%zu more: -n 0 for all)\n", nw - count);
	if (nidle > 0)
		printf("(%zu idle wait%s left out: a loop's own timer, or a "
		    "kernel thread idle; -a shows them)\n", nidle,
		    nidle == 1 ? "" : "s");
}
