/*
 * The waiter's request: which thread its wait asked something of, and
 * whether that thread read it and answers such requests, or has let a
 * third party answer them before.
 */
#include <string.h>

#include "dctx.h"

/* Whether the vertex made a call of the class (CALL_*). */
static int
called(const struct vertex *v, unsigned class)
{
	int a;

	for (a = 0; a < VSYSCALLS && v->sys[a] != 0; a++)
		if (syscall_class(str_of(v->sys[a])) & class)
			return 1;
	return v->last_sys != 0 && (syscall_class(str_of(v->last_sys)) &
	    class);
}

/*
 * The waiter's request during this wait went to the thread: a message it
 * sent, out of the waiter's vertex into one of the thread's (over loopback
 * TCP, the receive softirq its send ran: a strong softirq link).  What it
 * waits for comes back from there: of the sources of a poll set or the
 * holders of an inherited end, the one the hung request depends on.  A
 * bare wake-up is not a request (room made in a pipe, a futex handed
 * on): it says what the other waited for, not the reverse; but one by a
 * connect, of another process's accept, is a new connection's.  Sent by w's
 * thread from since to the start of w: link k, into *into.
 */
static int
sent_link(struct graph *g, int32_t k, const struct vertex *w,
    uint64_t since, const struct vertex **into)
{
	uint32_t message = str_id(MESSAGE_RULE), softirq = str_id(SOFTIRQ_RULE),
	    wakeup = str_id(WAKEUP_RULE), rule = link_rule(&g->l[k]);
	const struct vertex *f, *t;

	if ((rule != message && rule != softirq && rule != wakeup) ||
	    link_weak(&g->l[k]) || link_from(&g->l[k]) == 0 ||
	    (f = vertex_get(g, link_from(&g->l[k]))) == NULL ||
	    f->tid != w->tid || f->begin < since || f->begin > w->begin ||
	    (t = vertex_get(g, link_to(&g->l[k]))) == NULL ||
	    (rule == wakeup && (t->pid == f->pid || !called(f, CALL_CONNECT))))
		return 0;
	*into = t;
	return 1;
}

/* The first such request into thread tid, or if 0 into process pid. */
static int
sent_into(struct graph *g, const struct vertex *w, uint64_t since,
    uint32_t tid, uint32_t pid, const struct vertex **into)
{
	const struct vertex *t;
	int32_t k;

	for (k = 0; k < g->nl; k++)
		if (sent_link(g, k, w, since, &t) &&
		    (tid != 0 ? t->tid == tid : t->pid == pid)) {
			if (into != NULL)
				*into = t;
			return 1;
		}
	return 0;
}

/* Vertex f took in a request of thread tid: a message of it woke f. */
static int
took_from(struct graph *g, const struct vertex *f, uint32_t tid)
{
	uint32_t message = str_id(MESSAGE_RULE), softirq = str_id(SOFTIRQ_RULE);
	const struct vertex *u;
	int32_t k;

	for (k = f->in; k >= 0; k = g->l[k].next_in)
		if (!link_weak(&g->l[k]) && (link_rule(&g->l[k]) == message ||
		    link_rule(&g->l[k]) == softirq) && link_from(&g->l[k]) != 0 &&
		    (u = vertex_get(g, link_from(&g->l[k]))) != NULL &&
		    u->tid == tid)
			return 1;
	return 0;
}

/*
 * Where the chain's thread at place at passed the request of the thread
 * before it on: since the hang began, the vertex that took the request
 * in sent one into another process (sent_link()).  A connection taken by
 * an accept that at once started a thread (a thread, or a process, per
 * connection) is that thread's: the request went to it, though it read
 * it without a wait, so that no wake-up says so.  Or before the hang
 * began, where that message began the vertex its receiver is stuck in
 * through the hang (a job queue hands a producer's job to a worker, which
 * works on it while the producer, a few requests later, waits for its
 * result): PASSED_BEFORE.
 */
int
passed_to(struct dctx *x, int at, const struct vertex **into)
{
	struct graph *g = x->g;
	const struct vertex *w, *f, *t, *c;
	uint32_t fork = str_id(FORK_RULE);
	int32_t k, j;
	int before;

	if (at < 1 || (w = vertex_get(g, x->vx[at])) == NULL)
		return 0;
	for (k = 0; k < g->nl; k++) {
		if (!sent_link(g, k, w, 0, &t) || t->pid == w->pid ||
		    on_chain(x, t->tid) >= 0 ||
		    (f = vertex_get(g, link_from(&g->l[k]))) == NULL ||
		    !took_from(g, f, x->chain[at - 1]))
			continue;
		/* Before the hang, only one whose work lasts through it. */
		before = f->begin < x->hb;
		if (before && (t->end <= x->hb ||
		    stuck(x, t->tid) != vertex_id(t)))
			continue;
		*into = t;
		if (before)
			return PASSED_BEFORE;
		for (j = 0; j < g->nl; j++)
			if (link_from(&g->l[j]) == vertex_id(t) &&
			    link_rule(&g->l[j]) == fork &&
			    !link_weak(&g->l[j]) &&
			    (c = vertex_get(g, link_to(&g->l[j]))) != NULL) {
				*into = c;
				break;
			}
		return 1;
	}
	return 0;
}

/*
 * Where the chain's thread at handed the request of the thread before it
 * to another thread of its own process, stuck through the hang: a
 * runtime's I/O thread takes the request in and wakes the worker that
 * computes the answer (libzmq's mailbox, a selector thread's queue).  The
 * last vertex of its thread that took such a request in, since the one
 * before the previous hop's wait (which sent it), then a message or a
 * wake-up out of it, or out of a later vertex of its thread up to the
 * chain's, into a sibling.  A hand-off is no request of its own: it may
 * come before the hang began, while the one who asked still ran.
 */
int
handed_to(struct dctx *x, int at, const struct vertex **into)
{
	struct graph *g = x->g;
	uint32_t message = str_id(MESSAGE_RULE), wakeup = str_id(WAKEUP_RULE),
	    cond = str_id(COND_RULE), rule;
	const struct vertex *w, *f = NULL, *p, *t;
	uint64_t id, since;
	int32_t k;

	if (at < 1 || (w = vertex_get(g, x->vx[at])) == NULL ||
	    (p = vertex_get(g, at == 1 ? x->spin : x->vx[at - 1])) == NULL)
		return 0;
	since = (id = vertex_prev(g, vertex_id(p))) != 0 ?
	    vertex_get(g, id)->begin : p->begin;
	for (id = vertex_id(w); id != 0; id = vertex_prev(g, id)) {
		f = vertex_get(g, id);
		if (f->end < since)
			return 0;
		if (took_from(g, f, x->chain[at - 1]))
			break;
	}
	if (id == 0)
		return 0;
	for (k = 0; k < g->nl; k++) {
		rule = link_rule(&g->l[k]);
		if (link_weak(&g->l[k]) || (rule != message && rule != wakeup &&
		    rule != cond) || link_from(&g->l[k]) == 0 ||
		    (p = vertex_get(g, link_from(&g->l[k]))) == NULL ||
		    p->tid != w->tid || p->begin < f->begin ||
		    p->begin > w->begin ||
		    (t = vertex_get(g, link_to(&g->l[k]))) == NULL ||
		    t->pid != w->pid || t->tid == w->tid ||
		    on_chain(x, t->tid) >= 0 || stuck(x, t->tid) == 0)
			continue;
		*into = t;
		return 1;
	}
	return 0;
}

/*
 * The processes w's thread sent such requests into at the start of w:
 * for each member of a poll set, at each place of the chain, in each
 * pass over the set, a look-up, not a pass over every link.
 */
static const struct sentpids *
sent_pids(struct dctx *x, const struct vertex *w)
{
	const struct vertex *t;
	struct sentpids *s;
	uint64_t id = vertex_id(w);
	int32_t k;
	int i;

	for (i = 0; i < x->nsent; i++)
		if (x->sent[i].vertex == id)
			return &x->sent[i];
	x->sent = xrealloc(x->sent, (x->nsent + 1) * sizeof(*x->sent));
	s = &x->sent[x->nsent++];
	memset(s, 0, sizeof(*s));
	s->vertex = id;
	for (k = 0; k < x->g->nl; k++) {
		if (!sent_link(x->g, k, w, w->begin, &t))
			continue;
		for (i = 0; i < s->n && s->pids[i] != t->pid; i++)
			;
		if (i < s->n)
			continue;
		s->pids = xrealloc(s->pids, (s->n + 1) * sizeof(*s->pids));
		s->pids[s->n++] = t->pid;
	}
	return s;
}

static int
asked_into(struct dctx *x, int at, uint32_t tid, uint32_t pid,
    const struct vertex **into)
{
	const struct vertex *w = vertex_get(x->g, x->vx[at]), *f;
	uint64_t since;

	/*
	 * A reply comes back over a channel: a thread blocked on a lock or
	 * a futex waits for that, whatever it sent before (a server's
	 * thread that holds its client's socket).
	 */
	if (w == NULL || w->lock ||
	    strncmp(str_of(w->last_sys), "futex", 5) == 0)
		return 0;
	/*
	 * The hung thread's wait is its whole span, from its first vertex;
	 * a thread further on may have passed the request on before it went
	 * back to wait (a proxy back in its event loop): since the hang began.
	 */
	since = at == 0 && (f = vertex_get(x->g, x->spin)) != NULL &&
	    f->begin < w->begin ? f->begin : w->begin;
	if (at > 0 && x->hb < since)
		since = x->hb;
	return sent_into(x->g, w, since, tid, pid, into);
}

int
asked_by(struct dctx *x, int at, uint32_t tid, uint32_t pid)
{
	return asked_into(x, at, tid, pid, NULL);
}

/*
 * A member of the poller's set that the process its answer came from in
 * the baseline holds: the history names where the reply comes back.
 */
int
replied_from(struct dctx *x, uint32_t pid)
{
	return x->nchain > 0 && x->replied[x->nchain - 1] == pid;
}

/*
 * The thread at place at on the chain, of the poller v's own process,
 * sent the hung request into process pid just before its wait, and waits
 * on a futex for the reply: a synchronous call over an I/O thread (an
 * RPC client's condition wait, a browser's sync IPC).  The reply comes
 * back through the poller, on the member pid holds.
 */
int
sent_for_poller(struct dctx *x, const struct vertex *v, int at, uint32_t pid)
{
	const struct vertex *w = vertex_get(x->g, x->vx[at]);

	const struct sentpids *s;
	int i;

	if (w == NULL || w->pid != v->pid || w->tid == v->tid)
		return 0;
	s = sent_pids(x, w);
	for (i = 0; i < s->n; i++)
		if (s->pids[i] == pid)
			return 1;
	return 0;
}

/*
 * The hung request went out to process pid, by what says so (how): a
 * thread's request for the poller v, at its place on the chain
 * (sent_for_poller()); where the answer came from in the baseline
 * (BY_BASELINE); else the poller's own messages (BY_POLLER), which may
 * be anyone's.
 */
int
request_went(struct dctx *x, const struct vertex *v, uint32_t pid, int how)
{
	if (how >= 0)
		return sent_for_poller(x, v, how, pid);
	if (how == BY_BASELINE)
		return replied_from(x, pid);
	return asked_by(x, x->nchain - 1, 0, pid);
}


/*
 * The chain's thread at sent its request to vertex w's thread, into w or
 * before it: a message that woke the thread out of w ended w's wait, an
 * answer to it (a permission request's verdict), not a request w serves.
 */
int
asked(struct dctx *x, int at, const struct vertex *w)
{
	const struct vertex *t;

	return asked_into(x, at, w->tid, 0, &t) && t->begin < w->end;
}

/*
 * Process t->pid read after t began, where a request came into it: its
 * loop took the request in, not only had it queued on a socket.  Any of
 * its threads (a runtime's poller hands the connection on).
 */
static int
read_since(struct graph *g, const struct vertex *t)
{
	const struct vertex *u;
	uint64_t i;
	int a;

	for (i = 0; i < g->nby; i++) {
		u = &g->v[g->by_thread[i]];
		if (u->pid != t->pid || u->end < t->begin)
			continue;
		for (a = 0; a < VSYSCALLS && u->sys[a] != 0; a++)
			if (syscall_is_recv(str_of(u->sys[a])))
				return 1;
		if (u->last_sys != 0 && syscall_is_recv(str_of(u->last_sys)))
			return 1;
	}
	return 0;
}

/*
 * The chain's thread at waited like this before and process pid answered
 * it only after a third process's request came into pid (a queue's
 * consumer, answered when a producer pushes): the history says pid holds
 * such a request until someone else asks, so idle with it now, pid waits
 * for that third party, not for something inside its own program.
 */
static int
answered_after_another(struct dctx *x, int at, uint32_t pid)
{
	struct graph *g = x->g;
	const struct vertex *b, *w, *u;
	const struct link *l;
	uint64_t base, waker = 0;
	uint32_t message = str_id(MESSAGE_RULE), softirq = str_id(SOFTIRQ_RULE);
	int rank;
	int32_t k;

	for (rank = 0; rank <= MAX_EPISODES; rank++) {
		if (rank == 0)
			base = own_baseline(x, x->vx[at], &waker);
		else if (at == 0)
			base = ranked_baseline(g, x->spin, rank, &waker);
		else
			break;
		if (base == 0 || (b = vertex_get(g, base)) == NULL ||
		    (w = vertex_get(g, waker)) == NULL || w->pid != pid)
			continue;
		for (k = w->in; k >= 0; k = g->l[k].next_in) {
			l = &g->l[k];
			if (link_weak(l) || (link_rule(l) != message &&
			    link_rule(l) != softirq) || link_from(l) == 0 ||
			    (u = vertex_get(g, link_from(l))) == NULL)
				continue;
			if (u->pid != pid && u->pid != b->pid)
				return 1;
		}
	}
	return 0;
}

/*
 * Vertex w, as the snapshot saw it, is a server's loop over its
 * connections (a poll set with sockets in it), and its process has the
 * hung request of the chain's thread at: it went into one of its threads
 * (the one that reads it need not be the one its sender woke: a
 * runtime's poller hands it on), its process read since, and its
 * history does not say a third party answers such requests.  Not a
 * database backend's latch wait in epoll_wait, which waits for its own
 * program, with no connection among its objects.
 */
int
serves_request(struct dctx *x, const struct vertex *w, int at)
{
	struct snapwait sw;
	const struct vertex *t = NULL;

	return snapshot_wait(x->g, w, &sw) && sw.sockets && at >= 0 &&
	    x->chain[at] != 0 && vertex_get(x->g, x->vx[at])->pid != w->pid &&
	    asked_into(x, at, 0, w->pid, &t) && read_since(x->g, t) &&
	    !answered_after_another(x, at, w->pid);
}

/*
 * A thread of process w->pid has the request of the chain's thread at at:
 * it came in, and the process read it, and has not let a third party
 * answer such requests before.
 */
int
holds_request(struct dctx *x, const struct vertex *w, int at)
{
	const struct vertex *t = NULL;

	return at >= 0 && x->chain[at] != 0 &&
	    vertex_get(x->g, x->vx[at])->pid != w->pid &&
	    asked_into(x, at, 0, w->pid, &t) && read_since(x->g, t) &&
	    !answered_after_another(x, at, w->pid);
}

/*
 * What was found beyond culprit ci is no more than timing: nobody is
 * named as what it waits for.
 */
int
guesses_beyond(struct dctx *x, int ci)
{
	int i;

	/* What it waits on is its hops one deeper; theirs are their own. */
	for (i = ci + 1; i < x->d->nc &&
	    x->d->c[i].depth > x->d->c[ci].depth; i++)
		if (x->d->c[i].depth == x->d->c[ci].depth + 1 &&
		    (x->d->c[i].ev != EV_GUESS ||
		    x->d->c[i].kind == RK_CYCLE))
			return 0;
	return 1;
}

/* A hop one deeper than culprit ci is a thread of process pid. */
int
beyond_in(struct dctx *x, int ci, uint32_t pid)
{
	int i;

	for (i = ci + 1; i < x->d->nc &&
	    x->d->c[i].depth > x->d->c[ci].depth; i++)
		if (x->d->c[i].depth == x->d->c[ci].depth + 1 &&
		    vertex_get(x->g, x->d->c[i].vertex)->pid == pid)
			return 1;
	return 0;
}

/*
 * Vertex w, diagnosed as culprit ci, waits with a timeout of its own (a
 * timed futex or condition wait, not a poll set's members) and what was
 * found beyond it is no more than timing.
 */
int
held_across_timed_wait(struct dctx *x, const struct vertex *w, int ci)
{
	struct snapwait sw;

	return w->last_sys != 0 && !syscall_is_poll(str_of(w->last_sys)) &&
	    snapshot_wait(x->g, w, &sw) && sw.timed && guesses_beyond(x, ci);
}

/*
 * Requests nobody took in: the thread sent one (a datagram, a message on
 * a socket) and waits for its answer, and no message link leaves its
 * vertex: the receiver has not read it.  Its requests before went to a
 * thread of another process (the strong message links out of its
 * earlier vertices: a send that woke its reader; a loopback softirq's
 * link says the kernel took it, not the thread), the last to t, which
 * has taken nothing of this thread's since (message_since(), by the
 * same links) and was stuck through the hang in something other than
 * its wait for input (there it would have read it): the request waits in
 * t's queue, for whatever holds t.  That the request went where the last
 * one did is timing's word: a guess.
 */
int
request_unread(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	const struct vertex *v = vertex_get(g, id), *f, *t = NULL;
	uint32_t message = str_id(MESSAGE_RULE);
	uint64_t when = 0, u;
	const struct link *l;
	char why[200];
	int32_t k;

	if (!called(v, CALL_SEND))
		return 0;
	for (k = 0; k < g->nl; k++) {
		l = &g->l[k];
		if (link_weak(l) || link_rule(l) != message ||
		    link_from(l) == 0 ||
		    (f = vertex_get(g, link_from(l)))->tid != v->tid)
			continue;
		if (f == v)
			return 0;	/* taken: request_in_flight()'s */
		if (f->begin < v->begin && link_time(l) > when &&
		    vertex_get(g, link_to(l))->pid != v->pid) {
			when = link_time(l);
			t = vertex_get(g, link_to(l));
		}
	}
	if (t == NULL || on_chain(x, t->tid) >= 0 ||
	    message_since(g, t->tid, v->tid, when) ||
	    (u = stuck(x, t->tid)) == 0 ||
	    state_of(x, vertex_get(g, u)) == TS_DISPATCH)
		return 0;
	snprintf(why, sizeof(why), "took %s %u's requests in, the last at "
	    "+%.3f s, and none since: its request sent before its wait in "
	    "%s is unread", str_of(vertex_comm(v)), v->tid,
	    (when - g->first_time) / 1e9, str_of(v->last_sys));
	return blame_ev(x, u, why, depth, 1, EV_GUESS, 0);
}
