/*
 * Diagnose (Algorithm 1), by the kind of hang its spin class is.  Work:
 * slice back to the input that started it.  Poll: only a data flag can
 * say who should have ended the loop.  Wait: slice the baseline's wake-up
 * path (the path that ended a normal wait of the same kind), then look at
 * what each thread on it was doing when the hang began; a thread stuck
 * through the hang is a culprit, diagnosed in turn (the culprit of the
 * culprit), until a thread that is normal, or one already on the chain: a
 * circular wait.
 *
 * Evidence comes in ranks, and the best there is decides: what the kernel
 * says a thread waits on and who holds it (LR_HOLDS links: the wait-for
 * snapshot, file locks), then the wake-up that did end the wait, then a
 * normal wait's wake-up path.  The chain stops at a thread that chose to
 * wait (a sleep on its own timer), one busy on a CPU, one idle in its
 * service loop, and never blames Argus itself, a kernel thread but by a
 * strong link, or a thread twice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostnames.h"
#include "slice.h"

#define MAX_DEPTH	8		/* culprits of culprits */
#define MAX_CHAIN	(MAX_DEPTH + 2)
#define KERNEL_SAYS	2		/* blame()'s strongest evidence */
#define HELD_BY_LINE	(-2)		/* holders(): an ancestor holds it */
#define MAX_EPISODES	3		/* ranked baselines a wait is tried on */
#define MAX_ROUNDS	8		/* a periodic wait's rounds looked back */

/* One diagnosis: the hang, what is known so far, the chain of threads. */
struct dctx {
	struct graph	*g;
	struct diagnosis *d;
	uint64_t	 threshold;	/* a normal wait is shorter */
	int		 interactive;
	uint64_t	 hb, he;	/* the hang */
	uint32_t	 chain[MAX_CHAIN];	/* threads blamed so far, victim first */
	uint8_t		 waits[MAX_CHAIN];	/* each one blocked on the next */
	uint8_t		 ev[MAX_CHAIN];		/* how sure it is the one before */
	uint8_t		 multi[MAX_CHAIN];	/* waits on it, among others */
	uint64_t	 vx[MAX_CHAIN];		/* each one's stuck vertex */
	uint32_t	 replied[MAX_CHAIN];	/* whose message woke it in the
						   baseline: the process its
						   answer came from; 0 none */
	uint32_t	 next_replied;	/* blame_ev(): replied[] of the next */
	uint8_t		*woke;		/* by place in g->v: it woke another */
	uint32_t	 killers[4];	/* threads that ended a wait by a kill */
	int		 nkillers;
	uint64_t	 spin;		/* the spin record's VERTEX */
	int		 nchain;
	const char	*says;		/* blame_ev() of EV_RUNTIME: who */
	int		 held;		/* blame_ev(): named as a lock's holder */
};

static int	 diagnose_vertex(struct dctx *, uint64_t, const struct sclass *,
		    int depth);
static int	 killed_in_wait(struct graph *, const struct vertex *);
static int	 request_in_flight(struct dctx *, uint64_t, int);
static int	 busy_threads(struct dctx *, uint64_t, int);

const char *
evidence_name(enum evidence ev)
{
	return evidence_phrase(ev);
}

const char *
culprit_evidence(const struct culprit *c, char *buf, size_t size)
{
	if (c->ev != EV_RUNTIME || c->says[0] == '\0')
		return evidence_name(c->ev);
	snprintf(buf, size, "%s says", c->says);
	return buf;
}

/*
 * A runtime's link: its LABEL is "RUNTIME: WHAT" (lib/waits.h); the
 * runtime's name into says, and WHAT returned.
 */
static const char *
runtime_label(const struct link *l, char *says, size_t size)
{
	const char *label = str_of(l->label), *sep;

	if (strcmp(str_of(link_rule(l)), RUNTIME_RULE) != 0 ||
	    (sep = strstr(label, RUNTIME_SEP)) == NULL)
		return NULL;
	snprintf(says, size, "%.*s", (int)(sep - label), label);
	return sep + strlen(RUNTIME_SEP);
}

static struct culprit *
add(struct diagnosis *d, uint64_t vertex, int depth, enum root_kind kind,
    const struct sclass *class)
{
	struct culprit *c;

	if (d->nc == d->capc) {
		d->capc = d->capc ? 2 * d->capc : 8;
		d->c = xrealloc(d->c, d->capc * sizeof(*d->c));
	}
	c = &d->c[d->nc++];
	memset(c, 0, sizeof(*c));
	c->vertex = vertex;
	c->depth = depth;
	c->kind = kind;
	c->class = class;
	return c;
}

/* A new path of the diagnosis, by index: the recursion moves the array. */
static int
new_path(struct diagnosis *d, int depth)
{
	d->paths = xrealloc(d->paths, (d->npaths + 1) * sizeof(*d->paths));
	memset(&d->paths[d->npaths], 0, sizeof(d->paths[0]));
	d->paths[d->npaths].id = d->npaths + 1;
	d->paths[d->npaths].depth = depth;
	return d->npaths++;
}

/* Busy: on a CPU, or runnable (preempted), for half of it at least. */
static int
busy(const struct vertex *v)
{
	uint64_t dur = v->end - v->begin;

	return dur > 0 && (v->oncpu + v->runnable) * 2 >= dur;
}

/* A culprit's class: busy, or waiting. */
static const struct sclass *
classify(const struct vertex *v)
{
	return sclass_of_kind(busy(v) ? HK_WORK : HK_WAIT);
}

static uint64_t
overlap(const struct vertex *w, uint64_t hb, uint64_t he)
{
	uint64_t a = w->begin > hb ? w->begin : hb;
	uint64_t b = w->end < he ? w->end : he;

	return b > a ? b - a : 0;
}

/*
 * What the thread was doing while the hang lasted: its vertex that
 * overlaps the hang most, if that covers at least half of it (stuck,
 * waiting or running, not doing rounds).  Not only the vertex at the
 * hang's first moment: on a loaded machine a thread woken then may wait
 * a long time for a CPU before it starts what stalls.
 */
static int	 same_wait(const struct vertex *, const struct vertex *, int);

/*
 * Whether vertex w woke another thread: progress, the thread's own work
 * done.  One pass over the links, the first time it is asked.
 */
static int
woke_another(struct dctx *x, const struct vertex *w)
{
	struct graph *g = x->g;
	struct vertex *f, *t;
	int32_t k;

	if (x->woke == NULL) {
		x->woke = xcalloc(g->nv + 1, 1);
		for (k = 0; k < g->nl; k++)
			if ((g->l[k].props & LR_WAKES) &&
			    !(g->l[k].props & (LR_ORDER | LR_TIMEOUT)) &&
			    link_from(&g->l[k]) != 0 &&
			    (f = vertex_get(g, link_from(&g->l[k]))) != NULL &&
			    (t = vertex_get(g, link_to(&g->l[k]))) != NULL &&
			    f->tid != t->tid)
				x->woke[f - g->v] = 1;
	}
	return x->woke[w - g->v];
}

/*
 * The earlier round of a periodic wait that vertex w goes on with: the
 * same wait (call and object), which its own timer ended, and nothing
 * between but waiting again, waking nobody (a lock manager's deadlock
 * check, a timed wait in a loop).  0 if w starts a wait of its own, or
 * did its work first (a timer's action: what the timer was for).
 */
static uint64_t
round_before(struct dctx *x, const struct vertex *w)
{
	struct graph *g = x->g;
	struct vertex *p;
	int32_t k;

	if (woke_another(x, w))
		return 0;
	for (k = w->in; k >= 0; k = g->l[k].next_in)
		if ((g->l[k].props & LR_TIMEOUT) && link_from(&g->l[k]) != 0 &&
		    (p = vertex_get(g, link_from(&g->l[k]))) != NULL &&
		    p->tid == w->tid && same_wait(p, w, 1))
			return p->id;
	return 0;
}

/*
 * A round of a periodic wait that checks on a long wait: the round
 * before lasted a good part of the hang (a deadlock check after a second
 * of a lock wait), not a tick of a loop that wakes every so often to find
 * nothing to do (an event loop's housekeeping timer, idle between
 * requests), which is idle, not stuck.
 */
static uint64_t
check_round(struct dctx *x, const struct vertex *w)
{
	uint64_t p = round_before(x, w);
	struct vertex *pv;

	if (p == 0 || (pv = vertex_get(x->g, p)) == NULL)
		return 0;
	return (pv->end - pv->begin) * 4 >= x->he - x->hb ? p : 0;
}

/*
 * Rounds of a periodic wait with no progress between are one wait: what
 * stalls is what it waits for, not the timer that checks on it.  Each
 * round counts for the episode; its last round is the thread now.
 */
static uint64_t
stuck(struct dctx *x, uint32_t tid)
{
	uint64_t id, best = 0, most = 0, o, run = 0;
	struct vertex *w;

	for (id = vertex_at(x->g, tid, x->hb); id != 0;
	    id = vertex_next(x->g, id)) {
		w = vertex_get(x->g, id);
		if (w->begin >= x->he)
			break;
		/* Exited (a zombie not yet reaped) is not stuck: it is gone. */
		if (w->wait == 'Z' || w->wait == 'X')
			continue;
		o = overlap(w, x->hb, x->he);
		run = run > 0 && check_round(x, w) != 0 ? run + o : o;
		if (run > most) {
			most = run;
			best = id;
		}
	}
	return x->he > x->hb && most * 2 >= x->he - x->hb ? best : 0;
}

/*
 * A normal wait of the same thread: the most recent earlier vertex that
 * was short, was ended by someone else, and waited the same way: in the
 * same system call on the same object (a futex's address, a descriptor)
 * if there is one, else sharing a system call.  Its waker starts the
 * baseline's wake-up path.
 */
static int
same_wait(const struct vertex *v, const struct vertex *u, int exact)
{
	int a, b;

	if (exact)
		return v->last_sys != 0 && v->last_sys == u->last_sys &&
		    v->last_arg == u->last_arg;
	if (v->sys[0] == 0)
		return 1;
	for (a = 0; a < VSYSCALLS && v->sys[a] != 0; a++)
		for (b = 0; b < VSYSCALLS && u->sys[b] != 0; b++)
			if (v->sys[a] == u->sys[b])
				return 1;
	return 0;
}

static uint64_t
own_baseline(struct dctx *x, uint64_t id, uint64_t *waker)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *u;
	struct link *l;
	uint64_t i;
	int exact;

	for (exact = 1; exact >= 0; exact--)
		for (i = g->nby; i-- > 0; ) {
			u = &g->v[g->by_thread[i]];
			if (u->tid != v->tid || u->begin >= v->begin ||
			    u->end - u->begin >= x->threshold ||
			    !same_wait(v, u, exact))
				continue;
			if (!link_into_next(g, u->id, &l) ||
			    link_from(l) == 0 || (l->props & LR_TIMEOUT))
				continue;
			*waker = link_from(l);
			return u->id;
		}
	return 0;
}

/* The baseline argus-similar ranked RANK for this spin. */
static uint64_t
ranked_baseline(struct graph *g, uint64_t spin_vertex, uint64_t rank,
    uint64_t *waker)
{
	int i;

	for (i = 0; i < g->nbases; i++)
		if (g->bases[i].spin == spin_vertex &&
		    g->bases[i].rank == rank) {
			*waker = g->bases[i].waker;
			return g->bases[i].vertex;
		}
	return 0;
}

/* What a thread was doing, which decides whether the chain goes on. */
enum tstate {
	TS_WORK,	/* on a CPU, or wanting one: the work is the cause */
	TS_SLEEP,	/* asleep on its own timer: it chose to wait */
	TS_DISPATCH,	/* in its service loop, waiting for what comes next */
	TS_WAIT,	/* blocked on someone: the chain goes on */
	TS_STOPPED	/* does not run: stopped or frozen (stopped.c) */
};

/*
 * Whether a runtime says another thread holds what the vertex waits for:
 * then it waits on that thread, whatever its call and timeout look like
 * (InnoDB's row-lock wait is a timed condition wait).
 */
static int
runtime_holds(const struct graph *g, const struct vertex *w)
{
	const struct link *l;
	const struct vertex *f;
	int32_t k;

	for (k = w->in; k >= 0; k = g->l[k].next_in) {
		l = &g->l[k];
		if ((l->props & LR_HOLDS) && link_from(l) != 0 &&
		    strcmp(str_of(link_rule(l)), RUNTIME_RULE) == 0 &&
		    (f = vertex_get((struct graph *)g, link_from(l))) != NULL &&
		    f->tid != w->tid)
			return 1;
	}
	return 0;
}

/*
 * Whether another process that holds an end of what the vertex waits on,
 * by the kernel's word, is itself in the middle of something, not idle in
 * a loop of its own (epoll, poll, select: a parent that holds the other
 * end of a pipe it never writes): a poll set with someone to wait for is
 * no sleep, however long its timeout (a poll on a child's output).
 */
static int
awaits_busy_holder(struct graph *g, const struct vertex *w)
{
	struct vertex *u;
	int32_t k;

	for (k = w->in; k >= 0; k = g->l[k].next_in)
		if ((g->l[k].props & LR_HOLDS) && link_from(&g->l[k]) != 0 &&
		    (u = vertex_get(g, link_from(&g->l[k]))) != NULL &&
		    u->pid != w->pid && (busy(u) || (u->wait != 0 &&
		    u->last_sys != 0 &&
		    !syscall_is_dispatch(str_of(u->last_sys)) &&
		    !syscall_is_poll(str_of(u->last_sys)))))
			return 1;
	return 0;
}

static enum tstate
state_of(struct dctx *x, const struct vertex *w)
{
	const struct graph *g = x->g;
	const char *sys = str_of(w->last_sys);
	struct snapwait sw;
	int snap = snapshot_wait(g, w, &sw);

	if (w->wait == 'T' || w->wait == 't' || (snap && sw.stop != 0))
		return TS_STOPPED;
	if (busy(w))
		return TS_WORK;
	/* TASK_IDLE: a kernel thread with no work queued for it. */
	if (w->wait == 'I')
		return TS_DISPATCH;
	if (runtime_holds(g, w))
		return TS_WAIT;
	if (w->last_sys != 0 && syscall_is_sleep(sys))
		return TS_SLEEP;
	/* Ready when a connection comes: it serves whoever will ask. */
	if (snap && sw.clients)
		return TS_DISPATCH;
	/*
	 * A poll, select or epoll set with nothing to wait for (no socket,
	 * no client), on a timer of its own (pg_sleep's timed nap on a
	 * latch in epoll_wait): stuck through the hang, its timeout is as
	 * long as the hang, which the thread chose.  Not a timed futex or
	 * condition wait (pthread_cond_timedwait, a lock taken with a
	 * timeout, semtimedop): that one waits for whoever should wake it,
	 * its timeout only bounds how long.  Not a round of a periodic wait
	 * either: that one waits for its object, and its timer only checks
	 * on it.  Nor a loop's poll begun after the hang did, on objects of
	 * its own (an eventfd, a pipe) and a short timer: a message loop
	 * between rounds, not a nap through the hang.
	 */
	if (w->last_sys != 0 && syscall_is_poll(sys) && snap && !sw.sockets &&
	    !sw.clients && sw.timed && check_round(x, w) == 0 &&
	    !awaits_busy_holder(x->g, w) && (sw.objects == 0 ||
	    w->begin <= x->hb))
		return TS_SLEEP;
	if (w->last_sys != 0 && syscall_is_dispatch(sys))
		return TS_DISPATCH;
	return TS_WAIT;
}

/*
 * An ancestor of the hung process that waits waits for the hung one's
 * line (a shell, a build tool, a test harness), not the reverse: only a
 * strong link or the kernel makes it a culprit.
 */
static int
ancestor(struct dctx *x, const struct vertex *w)
{
	uint32_t p = vertex_get(x->g, x->d->c[0].vertex)->pid;
	int k;

	for (k = 0; k < 32 && (p = process_parent(x->g, p)) != 0; k++)
		if (p == w->pid)
			return 1;
	return 0;
}

/* The culprit already found for a thread, or NULL. */
static struct culprit *
blamed(struct dctx *x, uint32_t tid)
{
	int i;

	for (i = 1; i < x->d->nc; i++)
		if (vertex_get(x->g, x->d->c[i].vertex)->tid == tid)
			return &x->d->c[i];
	return NULL;
}

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
 * thread from since to the start of w.
 */
static int
sent_into(struct graph *g, const struct vertex *w, uint64_t since,
    uint32_t tid, uint32_t pid, const struct vertex **into)
{
	uint32_t message = str_id("message"), softirq = str_id("softirq"),
	    wakeup = str_id("wakeup");
	const struct vertex *f, *t;
	int32_t k;

	for (k = 0; k < g->nl; k++)
		if ((link_rule(&g->l[k]) == message ||
		    link_rule(&g->l[k]) == softirq ||
		    link_rule(&g->l[k]) == wakeup) && !g->l[k].weak &&
		    link_from(&g->l[k]) != 0 &&
		    (f = vertex_get(g, link_from(&g->l[k]))) != NULL &&
		    f->tid == w->tid && f->begin >= since &&
		    f->begin <= w->begin &&
		    (t = vertex_get(g, link_to(&g->l[k]))) != NULL &&
		    (tid != 0 ? t->tid == tid : t->pid == pid) &&
		    (link_rule(&g->l[k]) != wakeup || (t->pid != f->pid &&
		    called(f, CALL_CONNECT)))) {
			if (into != NULL)
				*into = t;
			return 1;
		}
	return 0;
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

static int
asked_by(struct dctx *x, int at, uint32_t tid, uint32_t pid)
{
	return asked_into(x, at, tid, pid, NULL);
}

/*
 * A thread of the poller's own process, earlier on the chain, sent the
 * hung request into process pid and waits on a futex for the reply: a
 * synchronous call over an I/O thread (an RPC client's condition wait,
 * a browser's sync IPC).  The reply comes back through the poller, on
 * the member pid holds.
 */
static int
asked_for_poller(struct dctx *x, const struct vertex *v, uint32_t pid)
{
	const struct vertex *w;
	int j;

	/* The request its wait is for: the one it sent just before. */
	for (j = 0; j < x->nchain - 1; j++)
		if ((w = vertex_get(x->g, x->vx[j])) != NULL &&
		    w->pid == v->pid && w->tid != v->tid &&
		    sent_into(x->g, w, w->begin, 0, pid, NULL))
			return 1;
	return 0;
}

/*
 * The hung request went out to process pid: sent for the poller v by the
 * thread that waits on it (sib), else by the poller itself, whose other
 * messages may be anyone's.
 */
static int
request_went(struct dctx *x, const struct vertex *v, uint32_t pid, int sib)
{
	return sib ? asked_for_poller(x, v, pid) :
	    asked_by(x, x->nchain - 1, 0, pid);
}

/*
 * A member of the poller's set that the process its answer came from in
 * the baseline holds: the history names where the reply comes back.
 */
static int
replied_from(struct dctx *x, uint32_t pid)
{
	return x->nchain > 0 && x->replied[x->nchain - 1] == pid;
}

static int
asked(struct dctx *x, int at, uint32_t tid)
{
	return asked_by(x, at, tid, 0);
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
	uint32_t message = str_id("message"), softirq = str_id("softirq");
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
			if (l->weak || (link_rule(l) != message &&
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
static int
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
 * Vertex w, diagnosed as culprit ci, waits with a timeout of its own (a
 * timed futex or condition wait, not a poll set's members) and what was
 * found beyond it is no more than timing: nobody is named as what it
 * waits for.
 */
static int
held_across_timed_wait(struct dctx *x, const struct vertex *w, int ci)
{
	struct snapwait sw;
	int i;

	if (w->last_sys == 0 || syscall_is_poll(str_of(w->last_sys)) ||
	    !snapshot_wait(x->g, w, &sw) || !sw.timed)
		return 0;
	/* What it waits on is its hops one deeper; theirs are their own. */
	for (i = ci + 1; i < x->d->nc &&
	    x->d->c[i].depth > x->d->c[ci].depth; i++)
		if (x->d->c[i].depth == x->d->c[ci].depth + 1 &&
		    (x->d->c[i].ev != EV_GUESS ||
		    x->d->c[i].kind == RK_CYCLE))
			return 0;
	return 1;
}

/* The why of a culprit the waiter woke during its wait. */
static __attribute__((noinline)) const char *
woke_it(const struct vertex *waiter, const char *why)
{
	static char buf[200];

	snprintf(buf, sizeof(buf), "%s %u woke it during this wait; %s",
	    str_of(waiter->comm), waiter->tid, why);
	return buf;
}

/* A thread on the chain, by its place, or -1. */
static int
on_chain(const struct dctx *x, uint32_t tid)
{
	int j;

	for (j = 0; j < x->nchain; j++)
		if (x->chain[j] == tid)
			return j;
	return -1;
}

/*
 * Vertex u was stuck through the hang: a culprit, or a thread already on
 * the chain (a circular wait).  A culprit is diagnosed in turn, if the
 * user agrees; one whose diagnosis finds nothing further is a root.
 * strong: a strong link (1), or the kernel (KERNEL_SAYS), says u is in
 * the chain; a guess does not make a kernel thread or an idle server a
 * culprit, nor anything but the kernel an ancestor of the hung process.
 * ev: how sure it is that the last thread of the chain waits on u; multi:
 * u is one of several parties the wait may be on.
 */
static int
blame_ev(struct dctx *x, uint64_t u, const char *why, int depth, int strong,
    enum evidence ev, int multi)
{
	struct vertex *w = vertex_get(x->g, u);
	const char *comm = str_of(w->comm);
	const struct sclass *class = classify(w);
	enum tstate st = state_of(x, w);
	int held = x->held;
	uint32_t replied = x->next_replied;

	x->held = 0;
	x->next_replied = 0;

	/*
	 * Blocked at its end until a kill (its CPU time, or the CPU it
	 * waited for on a loaded machine, came before): a wait.
	 */
	if (st == TS_WORK && killed_in_wait(x->g, w)) {
		st = TS_WAIT;
		class = sclass_of_kind(HK_WAIT);
	}
	struct culprit *c;
	struct snapwait sw;
	struct link *l;
	char buf[200];
	int j, k, ci, found;

	if (observer_comm(comm) || (!strong && (kthread_comm(comm) ||
	    st == TS_DISPATCH)) || (strong < KERNEL_SAYS && st == TS_WAIT &&
	    ancestor(x, w)))
		return 0;
	for (j = 0; j < x->nkillers; j++)
		if (x->killers[j] == w->tid && strong < KERNEL_SAYS)
			return 0;
	/* The request it sent went there: that is the one it waits on. */
	if (x->nchain > 0 && asked(x, x->nchain - 1, w->tid)) {
		if (ev < EV_WAKEUP) {
			ev = EV_WAKEUP;
			why = woke_it(vertex_get(x->g, x->vx[x->nchain - 1]),
			    why);
		}
		multi = 0;
	}
	if ((j = on_chain(x, w->tid)) >= 0) {
		/*
		 * Each hop of a circle must be a wait on the next, and on
		 * that one alone, by the kernel's word or a wake-up of this
		 * very wait: a baseline's path, one of several holders of an
		 * inherited end or one source of a poll set is no more than a
		 * suspect, and the victim is never the writer its own helper
		 * waits for.  The victim's hop is its hang.
		 */
		if (st == TS_WORK || (j > 0 && st != TS_WAIT))
			return 0;
		for (k = j + 1; k < x->nchain; k++)
			if (!x->waits[k])
				return 0;
		if (ev < EV_WAKEUP || multi) {
			if (x->d->note[0] == '\0')
				snprintf(x->d->note, sizeof(x->d->note), "%s %u "
				    "may wait for %s %u, already on the chain, "
				    "but only %s says so: no circular wait",
				    str_of(vertex_get(x->g,
				    x->vx[x->nchain - 1])->comm),
				    x->chain[x->nchain - 1], comm, w->tid,
				    multi ? "one of several holders" :
				    evidence_name(ev));
			return 0;
		}
		for (k = j + 1; k < x->nchain; k++)
			if (x->ev[k] < EV_WAKEUP || x->multi[k])
				return 0;
		/* Found again by another path: one circle. */
		if (blamed(x, w->tid) != NULL)
			return 1;
		c = add(x->d, u, depth + 1, RK_CYCLE, class);
		c->ev = ev;
		if (ev == EV_RUNTIME && x->says != NULL)
			snprintf(c->says, sizeof(c->says), "%s", x->says);
		snprintf(c->why, sizeof(c->why), "waits for a thread "
		    "already on the chain: a circular wait");
		return 1;
	}
	if (blamed(x, w->tid) != NULL)
		return 1;
	c = add(x->d, u, depth + 1, RK_CULPRIT, class);
	c->ev = ev;
	if (ev == EV_RUNTIME && x->says != NULL)
		snprintf(c->says, sizeof(c->says), "%s", x->says);
	c->multi = multi;
	snprintf(c->why, sizeof(c->why), "%s", why);
	ci = x->d->nc - 1;
	if (st == TS_STOPPED) {
		c->kind = RK_ROOT;
		not_running(x->g, w, buf, sizeof(buf));
		snprintf(c->why, sizeof(c->why), "%.130s; %.60s", buf, why);
		return 1;
	}
	if (st == TS_SLEEP) {
		c->kind = RK_ROOT;
		snprintf(c->why, sizeof(c->why), "asleep on its own timer in %s "
		    "for %.1f s%s; %s",
		    str_of(w->last_sys), (w->end - w->begin) / 1e9,
		    w->end >= x->g->last_time ? " so far" : "", why);
		return 1;
	}
	/*
	 * A wait its own timeout ended, not a round of a periodic wait (that
	 * one is followed to what it waits for): it lasted as long as the
	 * thread chose (a timed condition wait, a server's timed sleep in
	 * its event loop, pg_sleep), whatever the call, so it ends the chain
	 * as a sleep does.
	 */
	if (st != TS_WORK && link_into_next(x->g, u, &l) &&
	    (l->props & LR_TIMEOUT)) {
		c->kind = RK_ROOT;
		if (syscall_is_sleep(str_of(w->last_sys)) ||
		    syscall_is_poll(str_of(w->last_sys)))
			snprintf(c->why, sizeof(c->why), "asleep on its own "
			    "timer in %s for %.1f s, which ended it; %s",
			    str_of(w->last_sys), (w->end - w->begin) / 1e9, why);
		else
			snprintf(c->why, sizeof(c->why), "in a wait with a "
			    "timeout in %s that nobody ended for %.1f s, until "
			    "its timeout did; %s", str_of(w->last_sys),
			    (w->end - w->begin) / 1e9, why);
		return 1;
	}
	/*
	 * Diagnosed in turn without a question: the user is asked only where
	 * the graph is ambiguous, and may stop at the first question of the
	 * culprit's own slice.
	 */
	if (depth + 1 >= MAX_DEPTH || x->nchain >= MAX_CHAIN)
		return 1;
	x->waits[x->nchain] = st == TS_WAIT;
	x->ev[x->nchain] = ev;
	x->multi[x->nchain] = multi;
	x->vx[x->nchain] = u;
	x->replied[x->nchain] = replied;
	x->chain[x->nchain++] = w->tid;
	found = diagnose_vertex(x, u, class, depth + 1);
	x->nchain--;
	if (st == TS_WAIT && held && ev >= EV_RUNTIME && !multi &&
	    held_across_timed_wait(x, w, ci)) {
		/*
		 * The kernel or a runtime names it as a lock's holder (not a
		 * channel's other end, which owes an answer), and no one
		 * is named as what it waits for in turn: it holds what the
		 * chain waits on across a wait on its own timer, whatever
		 * call that is (the JVM's Thread.sleep parks on a timed
		 * futex, InnoDB's SLEEP() is a timed condition wait).  A
		 * guess beyond it is no better than the holder itself.
		 */
		x->d->nc = ci + 1;
		c = &x->d->c[ci];
		c->kind = RK_ROOT;
		c->open = 0;
		snprintf(buf, sizeof(buf), "%s", c->why);
		snprintf(c->why, sizeof(c->why), "holds it across a wait with "
		    "a timeout in %s, for %.1f s%s, for no one named: asleep "
		    "with it held; %.90s", str_of(w->last_sys),
		    (w->end - w->begin) / 1e9, w->end >= x->g->last_time ?
		    " so far" : "", buf);
		return 1;
	}
	if (!found && st == TS_DISPATCH && serves_request(x, w,
	    x->nchain - 1)) {
		/*
		 * The request of the thread that waits on it came in, and
		 * its answer did not go out: it holds it, idle in its loop
		 * with nothing the kernel can name pending (a poll set's
		 * other members are other requests).  What holds the request
		 * up is inside its own program, where the kernel does not
		 * see: a lock, a queue, a goroutine, a callback.
		 */
		x->d->c[ci].kind = RK_ROOT;
		snprintf(x->d->c[ci].why, sizeof(x->d->c[ci].why), "has the "
		    "request of %s %u and has not answered, idle in %s: what "
		    "holds it up is inside its own program (a lock, a queue, "
		    "a green thread); %s", str_of(vertex_get(x->g,
		    x->vx[x->nchain - 1])->comm), x->chain[x->nchain - 1],
		    str_of(w->last_sys), why);
		return 1;
	}
	if (!found && st == TS_DISPATCH) {
		/*
		 * Idle in its service loop, with nothing of the chain's
		 * pending beyond it: it would answer if asked.  Not a
		 * culprit; the other evidence may say who should ask.
		 */
		snprintf(x->d->note, sizeof(x->d->note), "%s %u holds the "
		    "other end, idle in %s: what it waits for did not come",
		    comm, w->tid, str_of(w->last_sys));
		x->d->nc = ci;
		return 0;
	}
	if (!found) {
		x->d->c[ci].kind = RK_ROOT;
		/*
		 * Blocked on someone nothing names, in a timed futex or
		 * condition wait whose timeout only bounds the wait: the chain
		 * ends here because what is known does, not because this
		 * thread is the cause.
		 */
		if (st == TS_WAIT && w->last_sys != 0 &&
		    !syscall_is_poll(str_of(w->last_sys)) &&
		    snapshot_wait(x->g, w, &sw) && sw.timed) {
			x->d->c[ci].open = 1;
			snprintf(buf, sizeof(buf), "%s", x->d->c[ci].why);
			snprintf(x->d->c[ci].why, sizeof(x->d->c[ci].why), "waits "
			    "in %s with a timeout, for %.1f s so far, for a "
			    "wake-up from someone the kernel does not name; %.90s",
			    str_of(w->last_sys), (w->end - w->begin) / 1e9, buf);
		}
	}
	return 1;
}

/* A guess, unless a strong link of this very wait says more. */
static int
blame(struct dctx *x, uint64_t u, const char *why, int depth, int strong)
{
	return blame_ev(x, u, why, depth, strong, EV_GUESS, 0);
}

/*
 * The process whose message woke the step's thread on a baseline's path:
 * where its answer came from when the wait went well.  0 if it was no
 * message, or from its own process.
 */
static uint32_t
baseline_reply(struct graph *g, const struct step *st)
{
	uint32_t message = str_id("message"), softirq = str_id("softirq");
	const struct vertex *f, *t;

	if (st->via == NULL || st->via->weak ||
	    (link_rule(st->via) != message && link_rule(st->via) != softirq) ||
	    (f = vertex_get(g, link_from(st->via))) == NULL ||
	    (t = vertex_get(g, st->vertex)) == NULL || f->pid == t->pid)
		return 0;
	return f->pid;
}

/*
 * The threads on path pi, each once, but the hung one: those stuck
 * through the hang are blamed.
 */
static int
blame_path(struct dctx *x, int pi, uint32_t hung, const char *why, int depth,
    enum evidence ev0)
{
	struct path *p = &x->d->paths[pi];
	struct vertex *w;
	uint64_t u;
	int i, j, n = p->n, found = 0;
	enum evidence ev = ev0;

	for (i = 0; i < n; i++) {
		p = &x->d->paths[pi];	/* blame() may move it */
		if ((w = vertex_get(x->g, p->s[i].vertex)) == NULL ||
		    w->tid == hung)
			continue;
		for (j = 0; j < i; j++)
			if (vertex_get(x->g, p->s[j].vertex)->tid == w->tid)
				break;
		/*
		 * What an ancestor of the hung process waited for is the
		 * business of the line that started the hang: the path has
		 * nothing to blame beyond it.
		 */
		if (j == i && ancestor(x, w)) {
			if (x->d->note[0] == '\0')
				snprintf(x->d->note, sizeof(x->d->note), "the "
				    "wake-up path reaches %s %u, an ancestor of "
				    "the hung process: the line that started it",
				    str_of(w->comm), w->pid);
			break;
		}
		/* A wake-up's path is as sure as its weakest link. */
		if (i > 0 && (p->s[i - 1].via == NULL || p->s[i - 1].via->weak))
			ev = EV_GUESS;
		if (j < i || (u = stuck(x, w->tid)) == 0)
			continue;
		/*
		 * The first step is the waker itself: as sure as the wake-up
		 * that ended the wait (a relay idle in its loop that did wake
		 * the hung thread is on the chain).
		 */
		x->next_replied = baseline_reply(x->g, &p->s[i]);
		found |= blame_ev(x, u, why, depth, i > 0 ? p->s[i - 1].via !=
		    NULL && !p->s[i - 1].via->weak : ev0 >= EV_WAKEUP, ev, 0);
	}
	return found;
}

/*
 * A thread blocked on a mutex that nobody has handed over yet: taking a
 * free mutex makes no system call, so the trace cannot say who holds it.
 * The suspects are its siblings that were stuck through the hang without
 * waiting for that mutex themselves: one of them holds it.
 */
static int
lock_holders(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *w;
	uint64_t i, u;
	uint32_t last = 0;
	int found = 0;
	char why[200];

	for (i = 0; i < g->nby; i++) {
		w = &g->v[g->by_thread[i]];
		if (w->pid != v->pid || w->tid == v->tid || w->tid == last)
			continue;
		last = w->tid;
		if ((u = stuck(x, w->tid)) == 0)
			continue;
		w = vertex_get(g, u);
		if (w->lock && w->last_arg == v->last_arg)
			continue;	/* waits for the same mutex */
		snprintf(why, sizeof(why), "%s %u waits on a lock in its own "
		    "process whose holder the kernel cannot name (not a PI "
		    "futex); probably held by this thread: stuck through the "
		    "hang, not waiting for that lock", str_of(v->comm), v->tid);
		found |= blame(x, u, why, depth, 0);
	}
	return found;
}

/*
 * What the thread does now, for a holder the kernel named: stuck through
 * the hang, else its last vertex before the hang's end, else where the
 * link says.
 */
static uint64_t
now_of(struct dctx *x, uint32_t tid, uint64_t fallback)
{
	uint64_t u;

	if ((u = stuck(x, tid)) != 0)
		return u;
	if (x->he > 0 && (u = vertex_at(x->g, tid, x->he - 1)) != 0)
		return u;
	return fallback;
}

/*
 * A holder the kernel named.  A weak one in the waiter's own process says
 * only that some thread of it may: no more than the process's siblings
 * being suspects, which the other evidence weighs better.
 */
static int
usable(struct graph *g, uint64_t id, const struct link *l)
{
	return (l->props & LR_HOLDS) && link_from(l) != 0 && (!l->weak ||
	    vertex_get(g, link_from(l))->pid != vertex_get(g, id)->pid);
}

/* Whether anyone is named as holding what the vertex waits on. */
static int
named(struct graph *g, uint64_t id)
{
	int32_t k;

	for (k = vertex_get(g, id)->in; k >= 0; k = g->l[k].next_in)
		if (usable(g, id, &g->l[k]))
			return 1;
	return 0;
}

/*
 * Another party than tid the vertex waits on as well, by the kernel's
 * word, that is not on the chain: a poll set's other source, another
 * holder.  A circular wait needs every source to lead back into it.
 */
static int
other_party(struct dctx *x, uint64_t id, uint32_t tid)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *u;
	int32_t k;

	for (k = v->in; k >= 0; k = g->l[k].next_in)
		if (usable(g, id, &g->l[k]) &&
		    (u = vertex_get(g, link_from(&g->l[k]))) != NULL &&
		    u->tid != tid && on_chain(x, u->tid) < 0)
			return 1;
	return 0;
}

/*
 * Whether the holder of link l is the one process that holds that object
 * for the vertex: weak only because which of its threads will act is a
 * guess (a child waited for, a peer whose descriptor no thread was seen
 * to use), which the kernel's word on the process does not weaken.
 */
static int
one_party(struct graph *g, uint64_t id, const struct link *l)
{
	struct vertex *v = vertex_get(g, id), *u;
	struct vertex *f = vertex_get(g, link_from(l));
	int32_t k;

	for (k = v->in; k >= 0; k = g->l[k].next_in)
		if (usable(g, id, &g->l[k]) && g->l[k].label == l->label &&
		    (u = vertex_get(g, link_from(&g->l[k]))) != NULL &&
		    u->pid != f->pid)
			return 0;
	return 1;
}

/*
 * A wait on a set of objects (poll, select, epoll) whose other ends
 * different processes hold, other than its own: each is one of many
 * possible wakers, and that the kernel names the holder of one member
 * says nothing of whether this wait is on it.
 */
/* The object of a holder link's label, "writer pipe:12": "pipe:12". */
static const char *
label_object(const struct link *l)
{
	const char *o = strchr(str_of(l->label), ' ');

	return o != NULL ? o + 1 : str_of(l->label);
}

static int
many_wakers(struct dctx *x, uint64_t id)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *u, *w;
	struct snapwait sw;
	int32_t k, m, n;

	if (!snapshot_wait(g, v, &sw) || sw.objects < 2)
		return 0;
	/*
	 * Many, where a holder of one member does not hold another: the
	 * members held by the same processes (a child's stdout and stderr)
	 * are one party's.
	 */
	for (k = v->in; k >= 0; k = g->l[k].next_in) {
		if (!usable(g, id, &g->l[k]) ||
		    (u = vertex_get(g, link_from(&g->l[k]))) == NULL ||
		    u->pid == v->pid)
			continue;
		for (m = v->in; m >= 0; m = g->l[m].next_in) {
			if (!usable(g, id, &g->l[m]) || strcmp(label_object(
			    &g->l[m]), label_object(&g->l[k])) == 0 ||
			    (w = vertex_get(g, link_from(&g->l[m]))) == NULL ||
			    w->pid == v->pid)
				continue;
			for (n = v->in; n >= 0; n = g->l[n].next_in)
				if (usable(g, id, &g->l[n]) &&
				    strcmp(label_object(&g->l[n]),
				    label_object(&g->l[m])) == 0 &&
				    vertex_get(g, link_from(&g->l[n]))->pid ==
				    u->pid)
					break;
			if (n < 0)
				return 1;
		}
	}
	return 0;
}

/* Another thread of process pid than tid, in the graph. */
static int
other_thread(struct graph *g, uint32_t pid, uint32_t tid)
{
	uint64_t i;

	for (i = 0; i < g->nby; i++)
		if (g->v[g->by_thread[i]].pid == pid &&
		    g->v[g->by_thread[i]].tid != tid)
			return 1;
	return 0;
}

/*
 * The kernel named process pid, and the thread of it was a guess that
 * led back to the chain: the others that were stuck through the hang,
 * any of which may be the one that will act.
 */
static int
other_threads(struct dctx *x, uint64_t id, const struct link *l,
    const struct vertex *u, int depth)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *w;
	char why[200];
	uint32_t last = 0;
	uint64_t i, now;
	int found = 0;

	for (i = 0; i < g->nby; i++) {
		w = &g->v[g->by_thread[i]];
		if (w->pid != u->pid || w->tid == u->tid || w->tid == last ||
		    on_chain(x, w->tid) >= 0)
			continue;
		last = w->tid;
		if ((now = stuck(x, w->tid)) == 0)
			continue;
		snprintf(why, sizeof(why), "the kernel says %s %u holds what "
		    "%s %u waits on (%s), not which of its threads will act: "
		    "not %u, which waits on the chain; maybe this one",
		    str_of(u->comm), u->pid, str_of(v->comm), v->tid,
		    str_of(l->label), u->tid);
		found |= blame_ev(x, now, why, depth, 0, EV_GUESS, 1);
	}
	return found;
}

/*
 * The kernel's word on what the vertex waits on and who holds it: its
 * LR_HOLDS links, the strong ones first (one named party), then, if they
 * lead nowhere (back to the chain, to an idle loop), every weak holder:
 * any of them may be the one.  -1 if the kernel said nothing; HELD_BY_LINE
 * if an ancestor of the hung process holds it (the chain ends there).
 */
static int
holders(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *u;
	struct link *l;
	char why[200], says[RUNTIME_NAMELEN];
	const char *what;
	int32_t k;
	uint64_t now;
	int any = 0, found = 0, pass, sole, across, guess;
	int set, hist = 0, sib = 0, known = 0, multi, ok, r;
	enum tstate st;
	uint64_t p;

	/*
	 * A round of a periodic wait (a JVM's monitor waiter parks again
	 * each second, on the same futex) is the wait the snapshot saw in a
	 * round before it, when the snapshot came before this one began.
	 */
	for (r = 0; r < MAX_ROUNDS && !named(g, id) &&
	    (p = round_before(x, v)) != 0; r++) {
		id = p;
		v = vertex_get(g, id);
	}
	set = many_wakers(x, id);
	/*
	 * Where the hung request went out is known: the other members of
	 * the set are other requests, whatever holds them.
	 */
	for (k = v->in; set && k >= 0 && !hist; k = g->l[k].next_in)
		hist = usable(g, id, &g->l[k]) && replied_from(x,
		    vertex_get(g, link_from(&g->l[k]))->pid);
	for (k = v->in; set && !hist && k >= 0 && !sib; k = g->l[k].next_in)
		sib = usable(g, id, &g->l[k]) && asked_for_poller(x, v,
		    vertex_get(g, link_from(&g->l[k]))->pid);
	for (k = v->in; set && k >= 0 && !known; k = g->l[k].next_in)
		known = usable(g, id, &g->l[k]) && (hist ? replied_from(x,
		    vertex_get(g, link_from(&g->l[k]))->pid) : request_went(x,
		    v, vertex_get(g, link_from(&g->l[k]))->pid, sib));
	/* A reader of its terminal waits for a person, whoever holds it. */
	if (reads_terminal(g, v->tid))
		return -1;
	/*
	 * Among several holders (a script's pipe, which its children
	 * inherit), an ancestor of the hung process: the thread waits for
	 * the line that started the hang, a script standing in for a person.
	 */
	for (k = v->in; k >= 0; k = g->l[k].next_in) {
		l = &g->l[k];
		if (usable(g, id, l) && l->weak && ancestor(x, (u =
		    vertex_get(g, link_from(l))))) {
			snprintf(x->d->note, sizeof(x->d->note), "%s %u waits "
			    "for %s %u, an ancestor of the hung process, "
			    "which holds %s", str_of(v->comm), v->tid,
			    str_of(u->comm), u->pid, str_of(l->label));
			return HELD_BY_LINE;
		}
	}
	/*
	 * The strong ones; if they lead nowhere, the weak ones, those busy
	 * or asleep in the middle of something first (the one on the
	 * request's path, that will write), then those blocked waiting for
	 * input of their own (an idle worker that holds the same inherited
	 * end): the first root found is the headline.  Of a poll set's
	 * members the strong ones too, where the request's are known: where
	 * it went to several
	 * (a proxy's upstream and the peer it chats with), the one busy or
	 * asleep with it through the hang, in one go (not a peer's rounds of
	 * naps), is the one the reply waits for.
	 */
	for (pass = 0; pass <= 3 && !((pass == 1 || pass == 2) && found);
	    pass++)
		for (k = v->in; k >= 0 && (pass != 1 || known);
		    k = g->l[k].next_in) {
			l = &g->l[k];
			if (!usable(g, id, l) || l->weak != (pass > 1))
				continue;
			u = vertex_get(g, link_from(l));
			now = now_of(x, u->tid, link_from(l));
			st = state_of(x, vertex_get(g, now));
			if (pass > 1 && (st == TS_WAIT) != (pass == 3))
				continue;
			if (pass < 2 && known && ((st == TS_WORK ||
			    st == TS_SLEEP) && 2 * overlap(vertex_get(g, now),
			    x->hb, x->he) >= x->he - x->hb) != (pass == 0))
				continue;
			/*
			 * One member of a poll set: the kernel's word only if
			 * the hung request went out there.  A thread that has
			 * the chain's request in its own hands waits on its
			 * other members for other requests.
			 */
			guess = set && !(hist ? replied_from(x, u->pid) :
			    request_went(x, v, u->pid, sib));
			if (guess && (known || serves_request(x, v,
			    x->nchain - 2)))
				continue;
			any = 1;
			if ((what = runtime_label(l, says, sizeof(says))) !=
			    NULL) {
				/* The runtime's word: its lock, not a futex. */
				snprintf(why, sizeof(why), "%s says it holds "
				    "what %s %u waits on: %s", says,
				    str_of(v->comm), v->tid, what);
				x->says = says;
				x->held = 1;
				found |= blame_ev(x, now, why, depth,
				    KERNEL_SAYS, EV_RUNTIME, 0);
				x->says = NULL;
				continue;
			}
			/*
			 * Across hosts, the connection is in both hosts'
			 * recordings, by its addresses and ports: as sure as a
			 * socket's peer on one host, and said for what it is.
			 */
			across = HOST_OF(u->pid) != HOST_OF(v->pid);
			if (guess)
				snprintf(why, sizeof(why), "one of several possible "
				    "wakers of %s %u's poll set, where its request "
				    "did not go: the kernel says it holds %s (%s)",
				    str_of(v->comm), v->tid, str_of(l->label),
				    str_of(link_rule(l)));
			else
				snprintf(why, sizeof(why), "%s it holds what %s "
				    "%u waits on: %s (%s)", across ? "the "
				    "connection, in both hosts' recordings, says" :
				    "the kernel says", str_of(v->comm), v->tid,
				    str_of(l->label), str_of(link_rule(l)));
			sole = !guess && (!l->weak || one_party(g, id, l));
			/*
			 * The one process that holds it, by a thread that is
			 * a guess (no thread was seen to use it): the process
			 * is the kernel's word, the thread is not, and a
			 * circle through it is no circle.
			 */
			multi = !sole || other_party(x, id, u->tid) ||
			    (l->weak && other_thread(g, u->pid, u->tid));
			x->held = (l->props & LR_LOCK) ||
			    wrel_label_is_lock(str_of(l->label));
			ok = blame_ev(x, now, why, depth, l->weak || guess ? 0 :
			    KERNEL_SAYS, !sole ? EV_GUESS : across ?
			    EV_CONNECTION : EV_KERNEL, multi);
			if (!ok && sole && l->weak && on_chain(x, u->tid) >= 0)
				ok = other_threads(x, id, l, u, depth);
			found |= ok;
		}
	return any ? found : -1;
}

/*
 * A process that waits, as the snapshot saw it, on no socket and on no
 * timer of its own, with no holder the kernel could name that led
 * anywhere, waits for a wake-up only its own program sends (a latch, a
 * semaphore in shared memory: a database's row lock).  The suspects are
 * the other processes of the program stuck through the hang while a
 * thread of another process waits for them, by the kernel's word: each
 * is in the middle of a request of its own, and may hold what it needs.
 * A process merely idle, or serving nobody now, is no suspect.
 */
static int
busy_siblings(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *f, *t;
	struct snapwait sw;
	struct link *l;
	char why[200];
	uint64_t s;
	int32_t k;
	int found = 0;

	if (!snapshot_wait(g, v, &sw) || sw.sockets || sw.timed ||
	    sw.clients || stuck(x, v->tid) != id)
		return 0;
	for (k = 0; k < g->nl; k++) {
		l = &g->l[k];
		if (!(l->props & LR_HOLDS) || l->weak || link_from(l) == 0 ||
		    (f = vertex_get(g, link_from(l))) == NULL ||
		    f->comm != v->comm || f->pid == v->pid ||
		    (t = vertex_get(g, link_to(l))) == NULL ||
		    t->pid == f->pid || t->pid == v->pid ||
		    stuck(x, t->tid) != link_to(l) ||
		    (s = stuck(x, f->tid)) == 0)
			continue;
		snprintf(why, sizeof(why), "of %s's processes, stuck through "
		    "the hang with %s %u waiting for it: %s %u waits for what "
		    "only its program sends", str_of(v->comm), str_of(t->comm),
		    t->pid, str_of(v->comm), v->pid);
		found |= blame(x, s, why, depth, 0);
	}
	return found;
}

/*
 * The baseline was another process of the same program, and whoever
 * ended its wait is gone: the waker's process, or whoever woke the waker
 * (a server is only the messenger of the client that fed it).  Each of
 * them stood in some relation to the baseline's process; the process in
 * the same relation to the hung one is the one that should act now.
 */
static int
counterparts(struct dctx *x, uint64_t id, uint64_t base, uint64_t waker,
    int depth)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *b = vertex_get(g, base);
	struct vertex *w = vertex_get(g, waker), *u;
	const char *relation;
	uint32_t then[16], comm[16], now;
	char why[200];
	int32_t k;
	int i, n = 0, found = 0;
	uint64_t s;

	if (b == NULL || w == NULL)
		return 0;
	/*
	 * The same process waited then, and a child of it, gone now, woke
	 * it: the child it forked as long before this wait.
	 */
	if (b->pid == v->pid) {
		if (process_parent(g, w->pid) != v->pid || stuck(x, w->pid) ||
		    (now = child_before(g, v->pid, w->pid, b->begin,
		    v->begin)) == 0 || now == w->pid || (s = stuck(x, now)) == 0)
			return 0;
		snprintf(why, sizeof(why), "is to this wait what %s %u, which "
		    "ended its wait then, was to that one: the child it forked "
		    "last as long before it", str_of(w->comm), w->pid);
		return blame(x, s, why, depth, 0);
	}
	comm[n] = w->comm;
	then[n++] = w->pid;
	for (k = w->in; k >= 0 && n < 16; k = g->l[k].next_in)
		if (!(g->l[k].props & (LR_ORDER | LR_TIMEOUT)) &&
		    (u = vertex_get(g, link_from(&g->l[k]))) != NULL &&
		    u->pid != b->pid && u->pid != w->pid) {
			comm[n] = u->comm;
			then[n++] = u->pid;
		}
	for (i = 0; i < n; i++) {
		if ((now = counterpart(g, then[i], b->pid, v->pid,
		    &relation)) == 0 || now == v->pid || now == then[i] ||
		    (s = stuck(x, now)) == 0)
			continue;
		snprintf(why, sizeof(why), "is to the hung process what %s "
		    "%u, which woke %s %u then, was to the baseline's: %s",
		    str_of(comm[i]), then[i], i == 0 ? str_of(b->comm) :
		    str_of(w->comm), i == 0 ? b->pid : w->pid, relation);
		found |= blame(x, s, why, depth, 0);
	}
	return found;
}

/*
 * Who ended a wait on the chain by a kill (a watchdog, a timeout's
 * handler) ended it from outside: it is no culprit of that wait, however
 * stuck it was before (asleep on the timer that told it to kill).
 */
static void
add_killer(struct dctx *x, uint32_t tid)
{
	if (x->nkillers < (int)ARRAY_LEN(x->killers))
		x->killers[x->nkillers++] = tid;
}

/*
 * A signal that may kill: not one whose default is to be ignored, which
 * a process gets in the normal course (SIGCHLD from a child that ended,
 * a shell's wait4 woken by it, then the shell's own exit).
 */
static int
a_kill(const struct link *l)
{
	static const char *const benign[] = { "SIGCHLD", "SIGCONT",
	    "SIGWINCH", "SIGURG", NULL };
	const char *sig = str_of(l->label);
	int i;

	if (strcmp(str_of(link_rule(l)), "signal") != 0 || l->weak)
		return 0;
	for (i = 0; benign[i] != NULL; i++)
		if (strcmp(sig, benign[i]) == 0)
			return 0;
	return 1;
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
	if ((p = vertex_get(g, vertex_prev(g, f->id))) != NULL &&
	    strcmp(str_of(p->ended_by), VE_EXIT) == 0 &&
	    strcmp(str_of(f->ended_by), VE_EXIT) != 0)
		return killer(g, p);
	return NULL;
}

/*
 * The thread of vertex f dies there: f is its exit, or, making no system
 * call, is followed only by its exit (a killed thread whose exit had to
 * wait for a CPU or a lock on the way out).
 */
static int
dies(struct graph *g, const struct vertex *f)
{
	struct vertex *n;

	if (f == NULL)
		return 0;
	/*
	 * Its exit, or its last switch as a zombie: what it did on the way
	 * out after its exit (closing its files) is a vertex of its own.
	 */
	if (strcmp(str_of(f->ended_by), VE_EXIT) == 0 || f->wait == 'Z' ||
	    f->wait == 'X')
		return 1;
	return f->sys[0] == 0 && (n = vertex_get(g, vertex_next(g, f->id))) !=
	    NULL && n->sys[0] == 0 && strcmp(str_of(n->ended_by), VE_EXIT) == 0;
}

/*
 * A wait ended from outside: the death of the peer it waited on (the
 * pipe's reader gone, EPIPE; the socket's peer closed by its exit), which
 * says who it waited on and not who should have acted; the path back from
 * that death leads to whoever killed it, who ended the circle, not to
 * its cause.  1 if it blamed the peer; says how it ended, for the hang.
 */
static int
peer_died(struct dctx *x, uint64_t id, const struct link *l, int depth)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *k;
	struct vertex *f = vertex_get(g, link_from(l));
	char why[200], by[120] = "";
	uint64_t u;

	if (!dies(g, f) || f->pid == v->pid || (u = stuck(x, f->tid)) == 0)
		return 0;
	if ((k = killer(g, f)) != NULL) {
		snprintf(by, sizeof(by), ", killed by %s %u/%u", str_of(k->comm),
		    k->pid, k->tid);
		add_killer(x, k->tid);
	}
	if (depth == 0) {
		snprintf(x->d->ended, sizeof(x->d->ended), "ended by the death "
		    "of %s %u%s", str_of(f->comm), f->pid, by);
		if (k != NULL)
			snprintf(x->d->until, sizeof(x->d->until), "until %s %u "
			    "killed %s %u", str_of(k->comm), k->pid,
			    str_of(f->comm), f->pid);
	}
	snprintf(why, sizeof(why), "its death ended the wait of %s %u%s: "
	    "it was what that wait was on", str_of(v->comm), v->tid, by);
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
static int
last_reader(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *f, *t, *r = NULL;
	uint32_t message = str_id("message");
	uint64_t at = 0, u;
	char why[200];
	int32_t k;

	if (v == NULL || !syscall_is_send(str_of(v->last_sys)))
		return 0;
	for (k = 0; k < g->nl; k++)
		if (link_rule(&g->l[k]) == message && !g->l[k].weak &&
		    g->l[k].from_time <= v->end && g->l[k].from_time >= at &&
		    (f = vertex_get(g, link_from(&g->l[k]))) != NULL &&
		    f->tid == v->tid &&
		    (t = vertex_get(g, link_to(&g->l[k]))) != NULL &&
		    t->tid != v->tid) {
			at = g->l[k].from_time;
			r = t;
		}
	if (r == NULL || on_chain(x, r->tid) < 0 ||
	    (u = stuck(x, r->tid)) == 0)
		return 0;
	snprintf(why, sizeof(why), "reads what %s %u writes, which waited in "
	    "%s for room: what it wrote last went to it (+%.3f s)",
	    str_of(v->comm), v->tid, str_of(v->last_sys),
	    (at - g->first_time) / 1e9);
	return blame_ev(x, u, why, depth, 1, EV_WAKEUP, 0);
}

/* Vertex f ended blocked, and a kill ended that wait: its thread died. */
static int
killed_in_wait(struct graph *g, const struct vertex *f)
{
	struct link *l;

	return f->wait != 0 && f->wait != 'Z' && f->wait != 'X' &&
	    link_into_next(g, f->id, &l) && link_from(l) != 0 && a_kill(l) &&
	    dies(g, vertex_get(g, vertex_next(g, f->id)));
}

/* Waiting: whose wake-up is missing, and why. */
static int
long_wait(struct dctx *x, uint64_t id, int depth)
{
	struct vertex *v = vertex_get(x->g, id);
	const char *sys = str_of(v->last_sys);
	uint64_t waker = 0, base = 0, rank = 1;
	struct link *l = NULL, *ended_by = NULL;
	int pi;

	/*
	 * A culprit asleep on a timer of its own (a sleep, not a wait with a
	 * timeout) waits for nobody: it is where the chain ends.
	 */
	if (depth > 0 && syscall_is_sleep(sys))
		return 0;
	switch (holders(x, id, depth)) {
	case HELD_BY_LINE:
		return 0;
	case 0:
	case -1:
		break;
	default:
		return 1;
	}
	/*
	 * A thread idle in its service loop that has the chain's request,
	 * whose own waits named nobody it went on to: what holds the request
	 * up is inside its program (blame_ev says so), not on a normal
	 * wait's path, which would only name another client.
	 */
	if (depth > 0 && state_of(x, v) == TS_DISPATCH &&
	    serves_request(x, v, x->nchain - 2))
		return 0;

	/*
	 * A wait that ended by a peer shows its own wake-up path, but a kill
	 * that ended it (the thread dies next) says nothing of what it
	 * waited on: that is for the other evidence.
	 */
	if (link_into_next(x->g, id, &l) && link_from(l) != 0 && a_kill(l) &&
	    dies(x->g, vertex_get(x->g, vertex_next(x->g, id)))) {
		if (depth == 0)
			snprintf(x->d->ended, sizeof(x->d->ended), "ended by a "
			    "kill from %s %u/%u", str_of(vertex_get(x->g,
			    link_from(l))->comm), vertex_get(x->g,
			    link_from(l))->pid, vertex_get(x->g,
			    link_from(l))->tid);
		add_killer(x, vertex_get(x->g, link_from(l))->tid);
		l = NULL;
		if (depth > 0 && last_reader(x, id, depth))
			return 1;
	}
	if (l != NULL && link_from(l) != 0 && !(l->props & LR_TIMEOUT) &&
	    peer_died(x, id, l, depth))
		return 1;
	if (l != NULL && link_from(l) != 0 && !(l->props & LR_TIMEOUT)) {
		waker = link_from(l);
		ended_by = l;
	} else if (v->lock) {
		/*
		 * Blocked on a mutex: a normal wait on it was ended by
		 * whoever held it then, not by whoever holds it now.
		 */
		return lock_holders(x, id, depth);
	} else {
		base = depth == 0 ? ranked_baseline(x->g, x->spin, rank,
		    &waker) : 0;
		if (base == 0)
			base = own_baseline(x, id, &waker);
	}
	for (;;) {
		if (waker == 0)
			break;
		pi = new_path(x->d, depth);
		walk(x->g, waker, base, x->interactive, &x->d->paths[pi]);
		if (blame_path(x, pi, v->tid, base != 0 ? "on the baseline's "
		    "wake-up path, and stuck through the hang" : "on the path "
		    "of the wake-up that ended the wait, and stuck through "
		    "the hang", depth, base == 0 && ended_by != NULL &&
		    !ended_by->weak ? EV_WAKEUP : EV_GUESS))
			return 1;
		if (base != 0 && counterparts(x, id, base, waker, depth))
			return 1;
		/*
		 * An episode whose answer came while its thread still ran
		 * has no wake-up to follow back to who gave it: the next
		 * episodes argus-similar ranked may have.
		 */
		if (depth > 0 || base == 0 || ++rank > MAX_EPISODES ||
		    (base = ranked_baseline(x->g, x->spin, rank, &waker)) == 0)
			break;
	}
	if (request_in_flight(x, id, depth) || busy_threads(x, id, depth))
		return 1;
	return busy_siblings(x, id, depth);
}

/*
 * A thread that waits on a futex of its own program, for whom nothing
 * names, while another thread of its process runs through the hang: what
 * it waits for (a lock its runtime hands over between steps, CPython's
 * GIL) probably waits for that work.  Where the baselines fail to say so
 * (none like this wait, a machine too busy for the usual hand-over).
 */
static int
busy_threads(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	const struct vertex *v = vertex_get(g, id), *w;
	uint32_t last = 0;
	uint64_t i, u;
	char why[200];
	int found = 0;

	if (v->lock || strncmp(str_of(v->last_sys), "futex", 5) != 0 ||
	    named(g, id))
		return 0;
	for (i = 0; i < g->nby; i++) {
		w = &g->v[g->by_thread[i]];
		if (w->pid != v->pid || w->tid == v->tid || w->tid == last)
			continue;
		last = w->tid;
		if ((u = stuck(x, w->tid)) == 0 ||
		    state_of(x, vertex_get(g, u)) != TS_WORK)
			continue;
		snprintf(why, sizeof(why), "%s %u waits on a futex of its own "
		    "process that nothing names, and this thread of it ran "
		    "through the hang: probably what it waits for waits for "
		    "this work", str_of(v->comm), v->tid);
		found |= blame(x, u, why, depth, 0);
	}
	return found;
}

/*
 * A thread that sent a request to another process and then waits on a
 * futex of its own program, for whom nothing names (a synchronous call
 * whose answer an I/O thread receives and hands it: an RPC client, a
 * browser's sync IPC): the request is in flight with the process that
 * read it, and what holds the answer up is there.  The message's strong
 * link says it went there; that the wait is for its answer is timing.
 */
static int
request_in_flight(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	const struct vertex *v = vertex_get(g, id), *t;
	uint32_t message = str_id("message"), softirq = str_id("softirq");
	const struct link *l;
	uint64_t now;
	char why[200];
	int32_t k;
	int found = 0;

	if (v->lock || strncmp(str_of(v->last_sys), "futex", 5) != 0 ||
	    state_of(x, v) != TS_WAIT)
		return 0;
	for (k = 0; k < g->nl && !found; k++) {
		l = &g->l[k];
		if (link_from(l) != id || l->weak || (link_rule(l) != message &&
		    link_rule(l) != softirq) ||
		    (t = vertex_get(g, link_to(l))) == NULL ||
		    t->pid == v->pid || on_chain(x, t->tid) >= 0)
			continue;
		snprintf(why, sizeof(why), "has the request %s %u sent it "
		    "just before its wait in %s, which nothing names",
		    str_of(v->comm), v->tid, str_of(v->last_sys));
		/*
		 * Where the snapshot saw it waiting, if it did: a poller's
		 * rounds on its own timer are one wait, and the snapshot
		 * names the members of the last.
		 */
		if (x->he == 0 || (now = vertex_at(g, t->tid, x->he - 1)) == 0 ||
		    !named(g, now))
			now = now_of(x, t->tid, link_to(l));
		found = blame_ev(x, now, why, depth, 1, EV_GUESS, 0);
	}
	return found;
}

/* Working: the work itself is the cause; the slice shows its input. */
static int
long_work(struct dctx *x, uint64_t id, int depth)
{
	int pi = new_path(x->d, depth);

	walk(x->g, id, 0, x->interactive, &x->d->paths[pi]);
	return 0;
}

/*
 * Polling: nobody wakes a poller.  The flag's write that ended the loop
 * (argus-watch, the flag rule of argus-link), or, while it still loops,
 * the write that ended an earlier, normal loop: the slice back from that
 * write is the path that should have ended this one, and its threads are
 * checked as for a wait.
 */
static int
repeated_yield(struct dctx *x, const struct spin_rec *s)
{
	uint64_t ended = 0, before = 0, t_ended = 0, t_before = 0, id;
	struct graph *g = x->g;
	struct vertex *to;
	struct link *l;
	int32_t k;
	int pi, found = 0;

	/*
	 * A loop that polls what the kernel can name (a file lock it tries
	 * with F_SETLK between naps) points at the holder at each try.
	 */
	for (id = s->vertex; id != 0; id = vertex_next(g, id)) {
		found |= holders(x, id, 0) > 0;
		if (id == s->last)
			break;
	}
	if (found)
		return 1;
	for (k = 0; k < g->nl; k++) {
		l = &g->l[k];
		if (!(l->props & LR_FLAG) ||
		    (to = vertex_get(g, link_to(l))) == NULL ||
		    to->tid != s->tid)
			continue;
		if (l->from_time >= s->begin &&
		    (ended == 0 || l->from_time < t_ended)) {
			ended = link_from(l);
			t_ended = l->from_time;
		} else if (l->from_time < s->begin && l->from_time >= t_before) {
			before = link_from(l);
			t_before = l->from_time;
		}
	}
	if (ended == 0 && before == 0) {
		snprintf(x->d->note, sizeof(x->d->note), "the thread polls: "
		    "only a data flag can tell who should have ended the loop, "
		    "and no flag was traced. Find the flag the loop reads (a "
		    "global in the stack's innermost frame) and capture again "
		    "with argus-watch on it.");
		return 0;
	}
	pi = new_path(x->d, 0);
	walk(g, ended ? ended : before, 0, x->interactive, &x->d->paths[pi]);
	if (blame_path(x, pi, s->tid, "writes the flag the loop polls, and was "
	    "stuck through the hang", 0, ended ? EV_WAKEUP : EV_GUESS))
		return 1;
	snprintf(x->d->note, sizeof(x->d->note), "the flag's writer was not "
	    "stuck through the hang: the loop itself is the finding");
	return 0;
}

/* 1 if it found a culprit beyond this vertex. */
static int
diagnose_vertex(struct dctx *x, uint64_t id, const struct sclass *class,
    int depth)
{
	switch (class->kind) {
	case HK_WAIT:
		return long_wait(x, id, depth);
	case HK_WORK:
		return long_work(x, id, depth);
	case HK_POLL:
		break;
	}
	diex(EX_SOFTWARE, "a culprit of class %s", class->name);
}

static int
auto_length(struct graph *g, uint64_t from)
{
	struct path p = { 0 };
	int n;

	walk(g, from, 0, 0, &p);
	n = p.n;
	free(p.s);
	return n;
}

void
diagnose(struct graph *g, const struct spin_rec *s, uint64_t threshold,
    int interactive, struct diagnosis *d)
{
	struct dctx x = { .g = g, .d = d, .threshold = threshold,
	    .interactive = interactive, .hb = s->begin, .he = s->end,
	    .chain = { s->tid }, .waits = { 1 }, .ev = { EV_KERNEL },
	    .vx = { s->last != 0 && vertex_get(g, s->last) != NULL ?
	    s->last : s->vertex }, .spin = s->vertex, .nchain = 1 };
	struct culprit *c;
	struct vertex *v;
	uint64_t waker = 0;
	int found;

	memset(d, 0, sizeof(*d));
	if (vertex_get(g, s->vertex) == NULL)
		diex(EX_DATAERR, "spin record names vertex %llu, which the "
		    "stream never introduced", (unsigned long long)s->vertex);
	c = add(d, s->vertex, 0, RK_VICTIM, s->class);
	snprintf(c->why, sizeof(c->why), "%s", s->ended);
	if (s->class->kind == HK_POLL)
		found = repeated_yield(&x, s);
	else
		/*
		 * A span of waits is diagnosed from its last: where the
		 * thread waits now, or the wait its waker ended.
		 */
		found = diagnose_vertex(&x, s->last != 0 &&
		    vertex_get(g, s->last) != NULL ? s->last : s->vertex,
		    s->class, 0);
	if (!found) {
		d->c[0].kind = RK_ROOT;
		v = vertex_get(g, s->vertex);
		if (s->class->kind == HK_WAIT && reads_terminal(g, v->tid))
			snprintf(d->note, sizeof(d->note), "no hang: %s %u "
			    "waits for input from its terminal, that is for "
			    "a person", str_of(v->comm), v->tid);
		else if (s->class->kind == HK_WAIT && v->last_sys != 0 &&
		    syscall_is_dispatch(str_of(v->last_sys)))
			snprintf(d->note, sizeof(d->note), "no hang: %s %u is "
			    "idle in %s, waiting for work", str_of(v->comm),
			    v->tid, str_of(v->last_sys));
		else if (s->class->kind == HK_WAIT && d->note[0] == '\0')
			snprintf(d->note, sizeof(d->note), "no thread on the "
			    "baseline's wake-up path was stuck through the "
			    "hang: the wait itself is the finding");
	}
	/* Busy on a CPU, the work is the finding; else only a culprit is. */
	d->found = found || s->class->kind == HK_WORK;
	/* The automatic slice of the same start, for comparison. */
	ranked_baseline(g, s->vertex, 1, &waker);
	d->auto_steps = auto_length(g, waker ? waker : s->vertex);
	free(x.woke);
}
