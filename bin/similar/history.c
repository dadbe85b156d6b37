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

struct sthread *
sthread_all(void)
{
	return threads;
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
		t->vv.size = sizeof(struct vsem);
		HASH_ADD(hh, threads, tid, sizeof(t->tid), t);
	}
	if (pid != 0)
		t->pid = pid;
	return t;
}

/* Vertex ids grow with time within a thread: mostly the last one. */
static struct vsem *
vsem_get(struct sthread *t, uint64_t id)
{
	size_t n = t->vv.n;
	struct vsem *v = vvec_get(&t->vv, id);

	nkept += t->vv.n - n;
	return v;
}

/*
 * A wait's call is the traced one it blocked in; a thread that vforked
 * (a fork event of its own with CLONE_VFORK) blocks next in CALL_VFORK,
 * until its child execs or exits, whatever call it made last.
 */
void
history_event(const struct event *ev)
{
	struct sthread *t;
	struct vsem *v;
	char nr[24];
	const char *name;

	if ((ev->type != E_SYS_ENTER && ev->type != E_SWITCH &&
	    ev->type != E_FORK && ev->type != E_SIGNAL_GENERATE &&
	    ev->type != E_EXEC) ||
	    ev->ctx != '-' ||
	    ev->vertex == NO_VERTEX || ev->vertex == UNSEGMENTED)
		return;
	if ((t = sthread_get(ev->tid, ev->pid)) == NULL)
		return;
	if (ev->type == E_EXEC) {
		t->exec_time = ev->time;
		return;
	}
	if (ev->type == E_SIGNAL_GENERATE) {
		if (event_exits_itself(ev))
			vsem_get(t, ev->vertex)->exit_own = 1;
		return;
	}
	t->cur = ev->vertex;
	if (ev->type == E_FORK) {
		if (event_is_vfork(ev))
			t->vfork = 1;
		return;
	}
	if (ev->type == E_SWITCH) {
		/* A blocking wait: the work before it is done. */
		name = event_str(ev, ECOL(E_SWITCH, STATE));
		if (name[0] == '\0' || name[0] == 'R')
			return;
		v = vsem_get(t, ev->vertex);
		v->blocked_at = ev->time;
		if (t->vfork)
			sem_add_syscall(v, CALL_VFORK, "");
		t->vfork = 0;
		return;
	}
	t->vfork = 0;
	name = event_str(ev, SYSCALL_NAME);
	if (name[0] == '\0') {
		snprintf(nr, sizeof(nr), "#%s",
		    event_str(ev, ECOL(E_SYS_ENTER, NR)));
		name = nr;
	}
	sem_add_syscall(vsem_get(t, ev->vertex), name,
	    event_str(ev, SYSCALL_ARG(0)));
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

/*
 * A link counts among the kinds of links into its TO vertex and out of its
 * FROM vertex, but for program order and a wait's back edge, which every
 * vertex has; a timeout is no link out of anyone.  The first link into a
 * vertex that ended a wait says what woke its thread.
 */
void
history_link(const struct link_rec *l)
{
	struct sthread *t;
	struct vsem *v;
	int r = rule_id(l->rule);

	if (l->tid != 0 && (t = sthread_get(l->tid, l->pid)) != NULL) {
		v = vsem_get(t, l->to);
		if (!(l->props & (LR_ORDER | LR_BACK)))
			v->in_kinds |= 1ULL << r;
		if ((l->props & LR_WAKES) && !v->woke) {
			v->woke = 1;
			v->wake_rule = r;
			v->waker = l->from;
			v->wake_time = l->from_time;
			v->waker_pid = l->from_pid;
			v->waker_tid = l->from_tid;
		}
	}
	/* Links out: to other threads; to its own is the outcome. */
	if (l->from == NO_VERTEX || (l->props & (LR_ORDER | LR_BACK |
	    LR_TIMEOUT)) || l->from_tid == 0 || l->from_tid == l->tid)
		return;
	if ((t = sthread_get(l->from_tid, l->from_pid)) != NULL)
		vsem_get(t, l->from)->out_kinds |= 1ULL << r;
}

void
history_vertex(const struct vertex_rec *r)
{
	struct sthread *t;
	struct vsem *v;

	nvertex_records++;
	if ((t = sthread_get(r->tid, r->pid)) == NULL)
		return;
	snprintf(t->comm, sizeof(t->comm), "%s", r->comm);
	v = vsem_get(t, r->id);
	v->begin = r->begin;
	v->end = r->end;
	v->waited = strcmp(r->ended_by, VE_WAIT) == 0;
	v->exited = strcmp(r->ended_by, VE_EXIT) == 0;
	v->sleep = r->wait[0] != '\0' && r->wait[1] == '\0' ? r->wait[0] : 0;
	v->recorded = 1;
}
