/*
 * A wait that a death ended, or that one should have ended: who killed,
 * a peer that died, the last reader of a pipe gone.
 */
#include <stdio.h>
#include <string.h>

#include "dctx.h"

/*
 * Who ended a wait on the chain by a kill (a watchdog, a timeout's
 * handler) ended it from outside: it is no culprit of that wait, however
 * stuck it was before (asleep on the timer that told it to kill).
 */
void
add_killer(struct dctx *x, uint32_t tid)
{
	if (x->nkillers < (int)ARRAY_LEN(x->killers))
		x->killers[x->nkillers++] = tid;
}

/*
 * Who sent the kill that began vertex f (its thread's death), or NULL.
 * What the dying thread still does after its exit (closing its files on
 * the way out, which wakes their peers) is a vertex of its own, after
 * the one the kill began.
 */
static struct vertex *
killer(struct graph *g, const struct vertex *f)
{
	const struct vertex *p;
	int32_t k;

	for (k = f->in; k >= 0; k = g->l[k].next_in)
		if (a_kill(&g->l[k]) && link_from(&g->l[k]) != 0)
			return vertex_get(g, link_from(&g->l[k]));
	if ((p = vertex_get(g, vertex_prev(g, vertex_id(f)))) != NULL &&
	    strcmp(str_of(vertex_ended(p)), VE_EXIT) == 0 &&
	    strcmp(str_of(vertex_ended(f)), VE_EXIT) != 0)
		return killer(g, p);
	return NULL;
}

/*
 * A wait ended from outside: the death of the peer it waited on (the
 * pipe's reader gone, EPIPE; the socket's peer closed by its exit), which
 * says who it waited on and not who should have acted; the path back from
 * that death leads to whoever killed it, who ended the circle, not to
 * its cause.  1 if it blamed the peer; says how it ended, for the hang.
 */
int
peer_died(struct dctx *x, uint64_t id, const struct link *l, int depth)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *k;
	struct vertex *f = vertex_get(g, link_from(l));
	char why[200], by[120] = "";
	uint64_t u;

	/* A signal it sent ended the wait, not its death after. */
	if (a_kill(l) || !woke_by_death(g, l) || f->pid == v->pid ||
	    (u = stuck(x, f->tid)) == 0)
		return 0;
	if ((k = killer(g, f)) != NULL) {
		snprintf(by, sizeof(by), ", killed by %s %u/%u",
		    str_of(vertex_comm(k)),
		    k->pid, k->tid);
		add_killer(x, k->tid);
	}
	if (depth == 0) {
		snprintf(x->d->ended, sizeof(x->d->ended), "ended by the death "
		    "of %s %u%s", str_of(vertex_comm(f)), f->pid, by);
		if (k != NULL)
			snprintf(x->d->until, sizeof(x->d->until), "until %s %u "
			    "killed %s %u", str_of(vertex_comm(k)), k->pid,
			    str_of(vertex_comm(f)), f->pid);
	}
	snprintf(why, sizeof(why), "its death ended the wait of %s %u%s: "
	    "it was what that wait was on", str_of(vertex_comm(v)), v->tid,
	    by);
	return blame_ev(x, u, why, depth, 1, EV_WAKEUP, 0);
}

/*
 * A wait that a kill ended says nothing of what it waited on, but a write
 * that waits for room in a pipe or a socket waits for its reader: the
 * thread that read what this one wrote last (its last message went
 * there, a wake-up of this very channel's use).  If that thread is on the
 * chain, stuck, the kill broke a circular wait: that is the finding, and
 * the kill is how it ended.
 */
int
last_reader(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *f, *t, *r = NULL;
	uint32_t message = str_id(MESSAGE_RULE);
	uint64_t at = 0, u;
	char why[200];
	int32_t k;

	if (v == NULL || !syscall_is_send(str_of(v->last_sys)))
		return 0;
	for (k = 0; k < g->nl; k++)
		if (link_rule(&g->l[k]) == message && !link_weak(&g->l[k]) &&
		    link_time(&g->l[k]) <= v->end &&
		    link_time(&g->l[k]) >= at &&
		    (f = vertex_get(g, link_from(&g->l[k]))) != NULL &&
		    f->tid == v->tid &&
		    (t = vertex_get(g, link_to(&g->l[k]))) != NULL &&
		    t->tid != v->tid) {
			at = link_time(&g->l[k]);
			r = t;
		}
	if (r == NULL || on_chain(x, r->tid) < 0 ||
	    (u = stuck(x, r->tid)) == 0)
		return 0;
	snprintf(why, sizeof(why), "reads what %s %u writes, which waited in "
	    "%s for room: what it wrote last went to it (+%.3f s)",
	    str_of(vertex_comm(v)), v->tid, str_of(v->last_sys),
	    (at - g->first_time) / 1e9);
	return blame_ev(x, u, why, depth, 1, EV_WAKEUP, 0);
}

/*
 * A lost wake-up: the thread that ended the normal waits of this kind
 * (the baseline's waker, by a wake-up and not by its death, which a wait
 * for a child or a join is for; most of them, not one client of a
 * server's many) exited before the hang was over, and
 * nobody ended this one.  Nobody was left to act; the thread that should
 * have is the root, however it came to exit.  Only a baseline says it
 * was the one: a guess, backed by how often it was.
 */
int
waker_gone(struct dctx *x, uint64_t id, uint64_t waker, int depth)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *w = vertex_get(g, waker), *u, *e;
	struct culprit *c;
	struct link *l;
	uint64_t i, last = 0, at = 0;
	int n = 0, of = 0;

	if (v == NULL || w == NULL || w->tid == v->tid ||
	    on_chain(x, w->tid) >= 0 || observer_comm(str_of(vertex_comm(w))) ||
	    !died_by(g, w->tid, x->he) ||
	    (e = vertex_get(g, last = last_vertex(g, w->tid))) == NULL)
		return 0;
	for (i = vertex_at(g, v->tid, 0); i != 0 && i != id;
	    i = vertex_next(g, i)) {
		u = vertex_get(g, i);
		if (!same_program(v, u) || !same_wait(v, u, 0) ||
		    !link_into_next(g, i, &l) ||
		    link_from(l) == 0 || (link_props(l) & LR_TIMEOUT))
			continue;
		of++;
		if (vertex_get(g, link_from(l))->tid == w->tid &&
		    !woke_by_death(g, l)) {
			n++;
			at = link_time(l);
		}
	}
	/* The waker of the normal waits, not one of many that ended a few. */
	if (2 * n <= of || e->end < at)
		return 0;
	c = add(x->d, last, depth + 1, RK_ROOT, classify(e));
	c->ev = EV_GUESS;
	snprintf(c->why, sizeof(c->why), "ended %d of the %d earlier waits "
	    "of %s %u like this one, the last at +%.3f s, and exited at "
	    "+%.3f s%s: nobody was left to end it (a lost wake-up)", n, of,
	    str_of(vertex_comm(v)), v->tid, (at - g->first_time) / 1e9,
	    (e->end - g->first_time) / 1e9, e->end < v->begin ?
	    ", before it began" : ", while it lasted");
	return 1;
}

/*
 * The process that stands to the hung one as the baseline's waker stood
 * to the baseline's (counterparts(), kin.c) is gone: it exited before the
 * hang was over, and did not end this wait (a holder killed while it held
 * a lock in shared memory).  Nobody was left to act: it is the root, a
 * guess, as its relation is.  then (named comm) is the baseline's
 * waker's process; relation NULL: now itself, the baseline the wait
 * just before.
 */
int
counterpart_gone(struct dctx *x, uint64_t id, uint32_t now, uint32_t then,
    uint32_t comm, const char *relation, int depth)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *e, *k;
	struct culprit *c;
	struct link *l;
	uint64_t last;
	char by[120] = "";

	if (!died_by(g, now, x->he) || (last = last_vertex(g, now)) == 0 ||
	    (e = vertex_get(g, last)) == NULL || e->pid == v->pid ||
	    (link_into_next(g, id, &l) && link_from(l) != 0 &&
	    vertex_get(g, link_from(l))->pid == now))
		return 0;
	if ((k = killer(g, e)) != NULL)
		snprintf(by, sizeof(by), ", killed by %s %u/%u",
		    str_of(vertex_comm(k)), k->pid, k->tid);
	c = add(x->d, last, depth + 1, RK_ROOT, classify(e));
	c->ev = EV_GUESS;
	if (relation == NULL)
		snprintf(c->why, sizeof(c->why), "ended the baseline's wait, "
		    "the last like this one before it; gone at +%.3f s%s, %s: "
		    "a lost wake-up", (e->end - g->first_time) / 1e9, by,
		    e->end < v->begin ? "before the wait began" :
		    "while it lasted");
	else
		snprintf(c->why, sizeof(c->why), "stands to it as %s %u stood "
		    "to the baseline's (%s); gone at +%.3f s%s, %s: a lost "
		    "wake-up", str_of(comm), then, relation,
		    (e->end - g->first_time) / 1e9, by, e->end < v->begin ?
		    "before the wait began" : "while it lasted");
	return 1;
}

#define ANSWERERS	8	/* the peers of a pool, followed at most */

/* A message of thread from reached thread tid after time t. */
int
message_since(struct graph *g, uint32_t tid, uint32_t from, uint64_t t)
{
	uint32_t message = str_id(MESSAGE_RULE);
	const struct link *l;
	uint64_t i;
	int32_t k;

	for (i = vertex_at(g, tid, t); i != 0; i = vertex_next(g, i))
		for (k = vertex_get(g, i)->in; k >= 0; k = g->l[k].next_in) {
			l = &g->l[k];
			if (!link_weak(l) && link_rule(l) == message &&
			    link_from(l) != 0 && link_time(l) > t &&
			    vertex_get(g, link_from(l))->tid == from)
				return 1;
		}
	return 0;
}

/*
 * A request lost with the worker that took it.  The waits like this one
 * before it were ended by answers from a few peers (a pool's workers,
 * answering on a channel they share, so that no one's death ends the
 * wait: the others hold the channel too).  One of them, since its last
 * answer, took a message from this thread's process (the request: a
 * strong message link into it) and died before the hang was over, having
 * answered nothing; the others, with no request, have nothing to answer.
 * The answer this wait is for went with it.  A guess, as the channel the
 * answer would come on is: the messages and the death are the kernel's.
 */
int
request_lost(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *u, *e, *k, *f;
	uint32_t message = str_id(MESSAGE_RULE), tids[ANSWERERS];
	uint64_t answered[ANSWERERS], i, last, took;
	struct culprit *c;
	struct link *l;
	char by[120] = "";
	int n = 0, a;
	int32_t m;

	if (v == NULL)
		return 0;
	/* The peers whose answers ended its earlier waits, and when last. */
	for (i = vertex_at(g, v->tid, 0); i != 0 && i != id;
	    i = vertex_next(g, i)) {
		u = vertex_get(g, i);
		if (!same_program(v, u) || !same_wait(v, u, 1) ||
		    !link_into_next(g, i, &l) || link_weak(l) ||
		    link_rule(l) != message || link_from(l) == 0 ||
		    (f = vertex_get(g, link_from(l))) == NULL ||
		    f->tid == v->tid)
			continue;
		for (a = 0; a < n && tids[a] != f->tid; a++)
			;
		if (a == n) {
			if (n == ANSWERERS)
				continue;
			tids[n++] = f->tid;
		}
		answered[a] = link_time(l);
	}
	for (a = 0; a < n; a++) {
		if (on_chain(x, tids[a]) >= 0 || !died_by(g, tids[a], x->he) ||
		    (e = vertex_get(g, last = last_vertex(g, tids[a]))) == NULL)
			continue;
		/* A request of this process since its last answer. */
		took = 0;
		for (i = vertex_at(g, tids[a], 0); i != 0 && took == 0;
		    i = vertex_next(g, i))
			for (m = vertex_get(g, i)->in; m >= 0;
			    m = g->l[m].next_in) {
				l = &g->l[m];
				if (link_weak(l) || link_rule(l) != message ||
				    link_time(l) <= answered[a] ||
				    link_from(l) == 0 ||
				    vertex_get(g, link_from(l))->pid != v->pid)
					continue;
				took = link_time(l);
				f = vertex_get(g, link_from(l));
				break;
			}
		if (took == 0 || e->end < v->begin ||
		    message_since(g, v->tid, tids[a], took))
			continue;
		if ((k = killer(g, e)) != NULL) {
			snprintf(by, sizeof(by), ", killed by %s %u/%u",
			    str_of(vertex_comm(k)), k->pid, k->tid);
			add_killer(x, k->tid);
		}
		c = add(x->d, last, depth + 1, RK_ROOT, classify(e));
		c->ev = EV_GUESS;
		snprintf(c->why, sizeof(c->why), "answered earlier waits of "
		    "%s %u like this one, the last at +%.3f s; took a request "
		    "from %s %u/%u at +%.3f s and died at +%.3f s%s, without "
		    "answering it: a request lost with its worker",
		    str_of(vertex_comm(v)), v->tid,
		    (answered[a] - g->first_time) / 1e9,
		    str_of(vertex_comm(f)), f->pid, f->tid,
		    (took - g->first_time) / 1e9,
		    (e->end - g->first_time) / 1e9, by);
		return 1;
	}
	return 0;
}
