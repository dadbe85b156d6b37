/*
 * The tracked threads' vertices as the stream goes by: their records,
 * the links into them, and from their events what the records do not
 * say: sched_yield calls, blocking waits and how long they lasted.
 * Nothing is kept for a thread that is not tracked but, while the target
 * is looked for by name, nothing at all: names come with the events.
 * At the end, which of the tracked threads is the target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "spin.h"

static struct tracked	*tracked;
static uint64_t		 ntracked;

/*
 * A round's calls, hashed as they come (FNV-1a): each call's name and
 * its first argument, the descriptor or buffer it acts on.  A loop that
 * repeats itself makes the same hash each round.
 */
static uint64_t
call_hash(uint64_t h, const char *name, const char *arg)
{
	const char *p;

	if (h == 0)
		h = 14695981039346656037ULL;
	for (p = name; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	h = (h ^ ',') * 1099511628211ULL;
	for (p = arg; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return (h ^ ';') * 1099511628211ULL;
}
uint64_t		 nvertex_records;

/*
 * The processes a tracked thread forked, and how much of each one's life
 * went in sleeps: a shell that polls (`while [ ! -e F ]; do sleep 1;
 * done`) waits for a child that only napped, and that wait is its nap.
 */
struct kid {
	uint32_t	 pid;
	uint64_t	 born, slept;
	uint64_t	 sleep_at;	/* in a sleep since, NO_TIME if not */
	int		 napped;	/* it exited, asleep for most of its life */
	UT_hash_handle	 hh;
};
static struct kid	*kids;

static struct tracked *
tracked_find(uint32_t tid)
{
	struct tracked *t;

	HASH_FIND(hh, tracked, &tid, sizeof(tid), t);
	return t;
}

static struct tracked *
tracked_add(uint32_t tid, uint32_t pid)
{
	struct tracked *t;

	if ((t = tracked_find(tid)) == NULL) {
		t = xcalloc(1, sizeof(*t));
		t->tid = tid;
		t->order = ntracked++;
		t->blocked_since = NO_TIME;
		t->vv.size = sizeof(struct vsum);
		HASH_ADD(hh, tracked, tid, sizeof(t->tid), t);
	}
	if (pid != 0)
		t->pid = pid;
	return t;
}

/*
 * How long the thread has been blocked when the input ends, in its last
 * vertex: 0 if it is not (it runs, it has exited: a zombie's last vertex
 * is open too).  One waiting for its own child (a shell, a lock's holder
 * that runs a command) counts as blocked for a moment only: its child is
 * where it hangs.
 */
static uint64_t
blocked_at_end(const struct target *tg, const struct tracked *t)
{
	const struct vsum *v;

	/* By name: a child that exec'd another program is that one now. */
	if (t->vv.n == 0 || (tg->comm != NULL && strcmp(t->comm,
	    tg->comm) != 0))
		return 0;
	v = VSUM(t, t->vv.n - 1);
	if (!v->recorded || strcmp(v->ended_by, VE_OPEN) != 0 ||
	    (v->wait[0] != 'S' && v->wait[0] != 'D') || v->end <= v->begin)
		return 0;
	if (strcmp(v->last_sys, "wait4") == 0 ||
	    strcmp(v->last_sys, "waitid") == 0)
		return 1;
	return v->end - v->begin;
}

/*
 * Only threads target_wants() accepted are tracked: with --tid or --pid
 * there is one; by name, the one blocked longest when the input ends (a
 * client that hangs now, not an earlier one of the same name that has
 * exited), else the main thread of a process, then the thread seen
 * first.
 */
struct tracked *
target_pick(const struct target *tg)
{
	struct tracked *t, *best = NULL;
	int main_t, main_b;
	uint64_t bt, bb = 0;

	for (t = tracked; t != NULL; t = t->hh.next) {
		if (t->vv.n == 0)
			continue;
		bt = tg->comm != NULL ? blocked_at_end(tg, t) : 0;
		main_t = t->tid == t->pid;
		main_b = best != NULL && best->tid == best->pid;
		if (best == NULL || bt > bb || (bt == bb && (main_t > main_b ||
		    (main_t == main_b && t->order < best->order)))) {
			best = t;
			bb = bt;
		}
	}
	return best;
}

/* "8.7 s in recvfrom", the last vertex's wait at the end. */
static void
wait_words(const struct target *tg, const struct tracked *t, char *buf,
    size_t size)
{
	const struct vsum *v = VSUM(t, t->vv.n - 1);

	snprintf(buf, size, "%.1f s%s%s%s", (v->end - v->begin) / 1e9,
	    v->last_sys[0] ? " in " : "", show(v->last_sys),
	    blocked_at_end(tg, t) == 1 ? " (its own child)" : "");
}

void
target_said(const struct target *tg, const struct tracked *best)
{
	const struct tracked *t;
	char w[96];
	int blocked = 0, rest = 0, n = 0;

	if (tg->comm == NULL)
		return;
	for (t = tracked; t != NULL; t = t->hh.next)
		if (t != best && t->vv.n > 0) {
			blocked += blocked_at_end(tg, t) != 0;
			rest += blocked_at_end(tg, t) == 0 &&
			    strcmp(t->comm, tg->comm) == 0;
		}
	if (blocked + rest == 0)
		return;
	if (blocked_at_end(tg, best) == 0) {
		warnx_("--comm %s: %s %u/%u, none of the %d others of that name "
		    "blocked at the end either", show(tg->comm),
		    show(best->comm), best->pid, best->tid, blocked + rest);
		return;
	}
	wait_words(tg, best, w, sizeof(w));
	fprintf(stderr, "argus-spin: --comm %s: %s %u/%u, blocked %s at the "
	    "end, the longest of %d blocked%s", show(tg->comm),
	    show(best->comm), best->pid, best->tid, w, blocked + 1,
	    blocked > 0 ? "; the others:" : "");
	for (t = tracked; t != NULL; t = t->hh.next)
		if (t != best && t->vv.n > 0 && blocked_at_end(tg, t) != 0) {
			wait_words(tg, t, w, sizeof(w));
			fprintf(stderr, "%s %s %u/%u %s", n++ ? "," : "",
			    show(t->comm), t->pid, t->tid, w);
		}
	if (rest > 0)
		fprintf(stderr, "; %d more of that name ran or exited", rest);
	fputc('\n', stderr);
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

/* The blocked vertex's wait is over: its length counts in it. */
static void
unblock(struct tracked *t, uint64_t now)
{
	size_t i = vvec_find(&t->vv, t->blocked_in);

	if (i < t->vv.n && now > t->blocked_since)
		VSUM(t, i)->blocked += now - t->blocked_since;
	t->blocked_since = NO_TIME;
}

static void
kid_event(const struct event *ev)
{
	struct kid *k;
	uint32_t pid;

	if (ev->type == E_FORK && tracked_find(ev->tid) != NULL &&
	    (pid = event_pid(ev, ECOL(E_FORK, TPID))) ==
	    event_u64(ev, ECOL(E_FORK, TTID))) {
		HASH_FIND(hh, kids, &pid, sizeof(pid), k);
		if (k == NULL) {
			k = xcalloc(1, sizeof(*k));
			k->pid = pid;
			HASH_ADD(hh, kids, pid, sizeof(k->pid), k);
		}
		k->born = ev->time;
		k->slept = 0;
		k->sleep_at = NO_TIME;
		k->napped = 0;
		return;
	}
	/* Only calls and exits count: no lookup at every event. */
	if (kids == NULL || ev->ctx != '-' || ev->tid != ev->pid ||
	    (ev->type != E_SYS_ENTER && ev->type != E_SYS_EXIT &&
	    ev->type != E_EXIT))
		return;
	HASH_FIND(hh, kids, &ev->pid, sizeof(ev->pid), k);
	if (k == NULL)
		return;
	/* A sleep lasts until the sleeper's next call, or its exit. */
	if (k->sleep_at != NO_TIME) {
		k->slept += ev->time - k->sleep_at;
		k->sleep_at = NO_TIME;
	}
	if (ev->type == E_SYS_ENTER && (event_call(ev) & CALL_SLEEP))
		k->sleep_at = ev->time;
	else if (ev->type == E_EXIT)
		k->napped = 2 * k->slept >= ev->time - k->born;
}

/*
 * The receive t is in took nothing in: uncounted where it was made, the
 * vertex before the one it failed in if it blocked.
 */
static void
took_nothing(struct tracked *t)
{
	struct vsum *v = vvec_get(&t->vv, t->recv_in);

	v->reads--;
	v->io--;
	t->recv_in = 0;
}

void
history_event(const struct target *tg, const struct event *ev)
{
	struct tracked *t, *o;
	struct vsum *v;
	int recv;

	switch (ev->type) {
	case E_SWITCH:
		/* The next thread runs: a wait of it is over. */
		o = want(tg, event_pid(ev, ECOL(E_SWITCH, TPID)),
		    event_u64(ev, ECOL(E_SWITCH, TTID)),
		    event_str(ev, ECOL(E_SWITCH, TCOMM)));
		if (o != NULL) {
			if (o->comm[0] == '\0')
				snprintf(o->comm, sizeof(o->comm), "%s",
				    event_str(ev, ECOL(E_SWITCH, TCOMM)));
			if (o->blocked_since != NO_TIME)
				unblock(o, ev->time);
		}
		break;
	case E_WAKING:
		/*
		 * Woken: its blocking wait is over, and until it runs it
		 * waits for a CPU, as a preempted thread does.  A starved
		 * thread's wake-up waits long; counted as blocked, it would
		 * look like a long wait or a nap (running.c).
		 */
		if ((o = tracked_find(event_u64(ev, WAKE_COL(TTID)))) != NULL &&
		    o->blocked_since != NO_TIME)
			unblock(o, ev->time);
		break;
	case E_FORK:
		history_name(tg, event_pid(ev, ECOL(E_FORK, TPID)),
		    event_u64(ev, ECOL(E_FORK, TTID)),
		    event_str(ev, ECOL(E_FORK, TCOMM)));
		break;
	case E_COMM:
		history_name(tg, event_pid(ev, ECOL(E_COMM, TPID)),
		    event_u64(ev, ECOL(E_COMM, TTID)),
		    event_str(ev, ECOL(E_COMM, NEWCOMM)));
		break;
	default:
		break;
	}
	kid_event(ev);
	if (ev->ctx != '-' || ev->vertex == NO_VERTEX ||
	    ev->vertex == UNSEGMENTED)
		return;
	if ((t = want(tg, ev->pid, ev->tid, NULL)) == NULL)
		return;
	v = vvec_get(&t->vv, ev->vertex);
	if (ev->type == E_SYS_ENTER) {
		snprintf(v->last_sys, sizeof(v->last_sys), "%s",
		    event_str(ev, SYSCALL_NAME));
		v->sys_at = ev->time;
		v->sleeps = syscall_sleeps(v->last_sys,
		    event_u64_loose(ev, SYSCALL_ARG(0)));
		v->yields += syscall_is_yield(v->last_sys);
		v->vforked = 0;
		v->calls = call_hash(v->calls, v->last_sys,
		    event_str(ev, SYSCALL_ARG(0)));
		recv = syscall_is_recv(v->last_sys);
		v->reads += recv;
		v->io += recv || syscall_is_send(v->last_sys);
		t->recv_in = recv ? v->id : 0;
	} else if (t->recv_in != 0 && ((ev->type == E_SOCK_RECV &&
	    event_i64(ev, ECOL(E_SOCK_RECV, LENGTH)) < 0) ||
	    (ev->type == E_SYS_EXIT &&
	    event_i64(ev, ECOL(E_SYS_EXIT, RET)) < 0))) {
		/*
		 * A receive that failed (refused, timed out, nothing there
		 * yet: EAGAIN) took nothing in: a try of a loop that polls.
		 */
		took_nothing(t);
	} else if (ev->type == E_SYS_EXIT)
		t->recv_in = 0;		/* it took something in */
	else if (ev->type == E_FORK)
		v->vforked = event_is_vfork(ev);
	else if (ev->type == E_SWITCH &&
	    state_is_wait(event_str(ev, ECOL(E_SWITCH, STATE)))) {
		v->waits++;
		t->blocked_since = ev->time;
		t->blocked_in = v->id;
	}
}

/* The first link into a vertex that ended a wait says what woke it. */
void
history_link(const struct link_rec *l)
{
	struct tracked *t;
	struct vsum *v;
	struct kid *k;
	size_t i;

	if ((t = tracked_find(l->tid)) == NULL)
		return;
	v = vvec_get(&t->vv, l->to);
	if (v->woke || !(l->props & LR_WAKES))
		return;
	v->woke = 1;
	v->waker = l->from;
	v->wake_props = l->props;
	snprintf(v->wake_rule, sizeof(v->wake_rule), "%s", l->rule);
	HASH_FIND(hh, kids, &l->from_pid, sizeof(l->from_pid), k);
	if (k != NULL && k->napped && (i = vvec_find(&t->vv, l->to)) > 0 &&
	    i < t->vv.n)
		VSUM(t, i - 1)->napped_child = 1;
}

void
history_vertex(const struct target *tg, const struct vertex_rec *r)
{
	struct tracked *t;
	struct vsum *v;

	nvertex_records++;
	history_name(tg, r->pid, r->tid, r->comm);
	if ((t = want(tg, r->pid, r->tid, r->comm)) == NULL)
		return;
	v = vvec_get(&t->vv, r->id);
	v->begin = r->begin;
	v->end = r->end;
	v->oncpu = r->oncpu;
	v->events = r->events;
	snprintf(v->began_by, sizeof(v->began_by), "%s", r->began_by);
	snprintf(v->ended_by, sizeof(v->ended_by), "%s", r->ended_by);
	snprintf(v->wait, sizeof(v->wait), "%s", r->wait);
	v->recorded = 1;
}

/* A wait still going on when the trace ended lasts until its end. */
void
history_finish(uint64_t end)
{
	struct tracked *t;

	for (t = tracked; t != NULL; t = t->hh.next) {
		/* A receive still blocked as the trace ends took nothing in. */
		if (t->recv_in != 0 && t->blocked_since != NO_TIME &&
		    t->blocked_in == t->recv_in)
			took_nothing(t);
		if (t->blocked_since != NO_TIME && end != NO_TIME)
			unblock(t, end);
		t->blocked_since = NO_TIME;
	}
}
