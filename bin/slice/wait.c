/*
 * LongWait's diagnosis: the wake-up path that ended a normal wait of the
 * same kind, and what each thread on it was doing when the hang began;
 * else who holds what it waits on, its relatives, a death.
 */
#include <stdio.h>
#include <string.h>

#include "dctx.h"

/*
 * A request in flight (request_in_flight()) that woke nobody (its reader
 * was busy, and read it later): the descriptor it went out on, which a thread of its process
 * polls (request_object()'s), and the holder of that object's other end,
 * as the snapshot names it.
 */
static int
request_on_fd(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	const struct vertex *v = vertex_get(g, id), *p, *u;
	const struct link *l;
	const char *o;
	char why[200];
	uint64_t now;
	int32_t k;
	int fd, i, found = 0;

	if ((fd = vertex_sent_fd(g, id)) < 0)
		return 0;
	for (i = 0; i < g->nsnapfd && !found; i++) {
		if (g->snapfd[i].fd != fd || (now = vertex_at(g,
		    g->snapfd[i].tid, x->he > 0 ? x->he - 1 : 0)) == 0 ||
		    (p = vertex_get(g, now))->pid != v->pid)
			continue;
		for (k = p->in; k >= 0 && !found; k = g->l[k].next_in) {
			l = &g->l[k];
			if (!(link_props(l) & LR_HOLDS) || link_from(l) == 0 ||
			    (o = strchr(str_of(link_label(l)), ' ')) == NULL ||
			    str_id(o + 1) != g->snapfd[i].object ||
			    (u = vertex_get(g, link_from(l))) == NULL ||
			    u->pid == v->pid || on_chain(x, u->tid) >= 0)
				continue;
			snprintf(why, sizeof(why), "has the request %s %u sent "
			    "on descriptor %d just before its wait in %s, "
			    "which nothing names", str_of(vertex_comm(v)),
			    v->tid, fd,
			    str_of(v->last_sys));
			found = blame_ev(x, now_of(x, u->tid, link_from(l)),
			    why, depth, 1, EV_GUESS, 0);
		}
	}
	return found;
}

/*
 * The path call v waits in, where the snapshot saw it blocked in one; or
 * v's last call seen, if one; NULL if neither.
 */
static const char *
path_call(struct dctx *x, const struct vertex *v)
{
	struct snapwait sw;

	if (snapshot_wait(x->g, v, &sw) && sw.call != 0 &&
	    (syscall_class(str_of(sw.call)) & CALL_PATH))
		return str_of(sw.call);
	if (v->last_sys != 0 && (syscall_class(str_of(v->last_sys)) &
	    CALL_PATH))
		return str_of(v->last_sys);
	return NULL;
}

/*
 * The vertices the request went out of: v's, and those of its thread
 * just before it that ended in no wait (split where the thread turned to
 * another peer, or preempted), SENT_MAX in all.  How many, into out.
 */
#define SENT_MAX	8

static int
sent_from(struct graph *g, uint64_t id, uint64_t *out)
{
	const struct vertex *u;
	int n = 0;

	out[n++] = id;
	while (n < SENT_MAX && (id = vertex_prev(g, id)) != 0 &&
	    ((u = vertex_get(g, id))->wait == '\0' || u->wait == 'R'))
		out[n++] = id;
	return n;
}

static int
among(const uint64_t *ids, int n, uint64_t id)
{
	while (n-- > 0)
		if (ids[n] == id)
			return 1;
	return 0;
}

/*
 * A receive whose socket the kernel names no other end of: a datagram
 * socket not connected, whose answer comes from whoever it asked.
 */
static int
unnamed_receive(struct graph *g, const struct vertex *v)
{
	return syscall_is_recv(str_of(v->last_sys)) && !named(g, vertex_id(v));
}

/*
 * A thread that sent a request to another process and then waits on a
 * futex of its own program, for whom nothing names (a synchronous call
 * whose answer an I/O thread receives and hands it: an RPC client, a
 * browser's sync IPC): the request is in flight with the process that
 * read it, and what holds the answer up is there.  So for a thread whose
 * last call seen was the send itself, that waits in a call the trace
 * does not follow (an open that an on-access scanner must allow first:
 * fanotify) or in the send, or in a receive on nothing the kernel names
 * (unnamed_receive()).  The message's strong link says it went there;
 * that the wait is for its answer is timing.
 */
static int
request_in_flight(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	const struct vertex *v = vertex_get(g, id), *t;
	uint32_t message = str_id(MESSAGE_RULE), softirq = str_id(SOFTIRQ_RULE),
	    wakeup = str_id(WAKEUP_RULE);
	const struct link *l;
	const char *path;
	uint64_t now, sent[SENT_MAX];
	char why[200];
	int32_t k;
	struct link *next;
	int found = 0, timed_out, nsent;

	/*
	 * Or one in a path's lookup that woke a process and waits since:
	 * the kernel made the call a request to a program (a FUSE daemon,
	 * an on-access scanner), which the wake-up went to.
	 */
	path = path_call(x, v);
	/*
	 * Or one that sent a request and waited for the answer in a
	 * receive or a poll its own timeout ended: the answer did not come
	 * in time from the process the request went to.
	 */
	timed_out = v->last_sys != 0 &&
	    (syscall_is_recv(str_of(v->last_sys)) ||
	    syscall_is_poll(str_of(v->last_sys))) &&
	    link_into_next(g, id, &next) && (link_props(next) & LR_TIMEOUT);
	if (v->lock || (v->last_sys == 0 && path == NULL) ||
	    (state_of(x, v) != TS_WAIT && !timed_out) || (path == NULL &&
	    strncmp(str_of(v->last_sys), "futex", 5) != 0 &&
	    !syscall_is_send(str_of(v->last_sys)) && !timed_out &&
	    !unnamed_receive(g, v)))
		return 0;
	nsent = sent_from(g, id, sent);
	for (k = 0; k < g->nl && !found; k++) {
		l = &g->l[k];
		if (!among(sent, nsent, link_from(l)) || link_weak(l) ||
		    (link_rule(l) != message && link_rule(l) != softirq &&
		    (path == NULL || link_rule(l) != wakeup)) ||
		    (t = vertex_get(g, link_to(l))) == NULL ||
		    t->pid == v->pid || on_chain(x, t->tid) >= 0)
			continue;
		if (path != NULL)
			snprintf(why, sizeof(why), "has the request %s %u's "
			    "%s made of it (a file system's, a scanner's), "
			    "which it waits for", str_of(vertex_comm(v)),
			    v->tid, path);
		else if (timed_out)
			snprintf(why, sizeof(why), "has the request %s %u sent "
			    "it before waiting in %s for the answer, which did "
			    "not come before its timeout",
			    str_of(vertex_comm(v)), v->tid, str_of(v->last_sys));
		else if (syscall_is_send(str_of(v->last_sys)))
			snprintf(why, sizeof(why), "has the request %s %u "
			    "sent it by %s, the last call seen before its "
			    "wait, which nothing names", str_of(vertex_comm(v)),
			    v->tid, str_of(v->last_sys));
		else
			snprintf(why, sizeof(why), "has the request %s %u sent "
			    "it just before its wait in %s, which nothing "
			    "names", str_of(vertex_comm(v)), v->tid,
			    str_of(v->last_sys));
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
	return found || request_on_fd(x, id, depth) ||
	    request_unread(x, id, depth);
}

/*
 * A relay idle in its loop that took the chain's request in and sent it
 * on to another process (passed_to()): the request is there, whether or
 * not the snapshot caught the relay in its wait, with the members of its
 * poll set named (a relay at work on another message at the cut is not).
 * Or an I/O thread that handed it to a sibling stuck through the hang
 * (handed_to()).
 */
static int
passed_on(struct dctx *x, uint64_t id, int depth)
{
	const struct vertex *v = vertex_get(x->g, id), *t;
	char why[200];
	int how;

	if ((how = passed_to(x, x->nchain - 1, &t)) != 0 &&
	    on_chain(x, t->tid) < 0) {
		snprintf(why, sizeof(why), "has the request %s %u passed on "
		    "to it %s", str_of(vertex_comm(v)), v->tid,
		    how == PASSED_BEFORE ? "before the hang began, and has "
		    "worked on it since" : "since the hang began");
		return blame_ev(x, now_of(x, t->tid, vertex_id(t)), why, depth,
		    1, EV_GUESS, 0);
	}
	/* Or to a thread of its own process, which works on it now. */
	if (!handed_to(x, x->nchain - 1, &t))
		return 0;
	snprintf(why, sizeof(why), "has the request %s %u took in and handed "
	    "to it, a thread of its own process", str_of(vertex_comm(v)),
	    v->tid);
	return blame_ev(x, stuck(x, t->tid), why, depth, 1, EV_GUESS, 0);
}

/*
 * A wait for one child by its pid (waitpid(3)): the kernel's word on
 * whom it waits for, however the wait ended (a timer's signal, the
 * child's exit after), where that child was stuck through the hang.
 */
static int
awaited_child(struct dctx *x, uint64_t id, int depth)
{
	struct vertex *v = vertex_get(x->g, id);
	char why[200];
	uint64_t u;

	if (v->last_sys == 0 || !syscall_is_reap(str_of(v->last_sys)) ||
	    v->arg == 0 || v->arg >= VX_BIG_ARG ||
	    process_parent(x->g, v->arg) != v->pid ||
	    (u = stuck(x, v->arg)) == 0)
		return 0;
	snprintf(why, sizeof(why), "the kernel says %s %u waits for it to "
	    "end: %s of its pid", str_of(vertex_comm(v)), v->tid,
	    str_of(v->last_sys));
	return blame_ev(x, u, why, depth, KERNEL_SAYS, EV_KERNEL, 0);
}

/*
 * A wake-up is evidence of who ended a wait when it is strong, or when it
 * hands over a mutex: weak as intent (the holder did not work for the
 * waiter), but the kernel's word that the wait lasted as long as the
 * waker held what it waited for.
 */
static int
ended_for_sure(const struct link *l)
{
	return !link_weak(l) || link_rule(l) == str_id(LOCK_RULE);
}

/*
 * A nap after a lock it tried and was refused (F_SETLK, LOCK_NB: a lock's
 * timeout loop, apt's): it waits for the lock's holder, which the kernel
 * named at the try, in the nap's vertex or the one before it.
 */
static int
nap_after_refusal(struct dctx *x, uint64_t id, int depth)
{
	uint32_t filelock = str_id(FILELOCK_RULE);
	uint64_t u[2] = { id, vertex_prev(x->g, id) };
	const struct vertex *w;
	int32_t k;
	int i;

	for (i = 0; i < 2; i++) {
		if (u[i] == 0 || (w = vertex_get(x->g, u[i])) == NULL)
			continue;
		for (k = w->in; k >= 0; k = x->g->l[k].next_in)
			if (link_rule(&x->g->l[k]) == filelock &&
			    link_from(&x->g->l[k]) != 0)
				return holders(x, u[i], depth) > 0;
	}
	return 0;
}

/* Waiting: whose wake-up is missing, and why. */
int
long_wait(struct dctx *x, uint64_t id, int depth)
{
	struct vertex *v = vertex_get(x->g, id);
	uint64_t waker = 0, base = 0, rank = 1, waker0 = 0, b, w0;
	struct link *l = NULL, *ended_by = NULL;
	int pi;

	/*
	 * A culprit asleep on a timer of its own (a sleep, not a wait with a
	 * timeout) waits for nobody: it is where the chain ends.  Unless it
	 * polls for a child's end between its naps.
	 */
	if (vertex_sleeps(v) && nap_after_refusal(x, id, depth))
		return 1;
	if (depth > 0 && vertex_sleeps(v))
		return reap_round(v) && polls_child(x, v,
		    vertex_far(v, VF_REAP), depth);
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
	 * Or back in a poll of its input between rounds of its own timer
	 * (mosquitto_sub's select with a 1 s timeout): a relay's loop as
	 * much, its vertex now begun by the timer, after the hand-off.
	 */
	if (depth > 0 && (state_of(x, v) == TS_DISPATCH ||
	    (state_of(x, v) == TS_WAIT && v->last_sys != 0 &&
	    syscall_is_poll(str_of(v->last_sys)))) && passed_on(x, id, depth))
		return 1;
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
	if (link_into_next(x->g, id, &l) && killed_by(x->g, v, l)) {
		if (depth == 0)
			snprintf(x->d->ended, sizeof(x->d->ended), "ended by a "
			    "kill from %s %u/%u",
			    str_of(vertex_comm(vertex_get(x->g,
			    link_from(l)))), vertex_get(x->g,
			    link_from(l))->pid, vertex_get(x->g,
			    link_from(l))->tid);
		add_killer(x, vertex_get(x->g, link_from(l))->tid);
		l = NULL;
		if (depth > 0 && last_reader(x, id, depth))
			return 1;
	}
	if (l != NULL && link_from(l) != 0 && !(link_props(l) & LR_TIMEOUT) &&
	    peer_died(x, id, l, depth))
		return 1;
	if (awaited_child(x, id, depth) || orphan_wait(x, id, depth) ||
	    request_lost(x, id, depth))
		return 1;
	if (l != NULL && link_from(l) != 0 && !(link_props(l) & LR_TIMEOUT)) {
		waker = link_from(l);
		ended_by = l;
	} else if (v->lock) {
		/*
		 * Blocked on a mutex: a normal wait on it was ended by
		 * whoever held it then, not by whoever holds it now.  But
		 * where that was another process (a mutex in shared memory),
		 * the process that stands to this waiter as that one stood to
		 * the baseline's holds it now, or is gone with it.
		 */
		if (lock_holders(x, id, depth))
			return 1;
		return depth == 0 && (base = ranked_baseline(x->g, x->spin, 1,
		    &waker)) != 0 && vertex_get(x->g, waker)->pid != v->pid &&
		    counterparts(x, id, base, waker, depth);
	} else {
		base = depth == 0 ? ranked_baseline(x->g, x->spin, rank,
		    &waker) : 0;
		if (base == 0)
			base = own_baseline(x, id, &waker);
		/*
		 * A thread with no wait of its own to compare (one made for
		 * this request, a handler thread per connection), that
		 * nothing names a waker of: the hung thread's baseline,
		 * whose path runs through the threads that stood where this
		 * one and its waker stand (stand_in() maps them).
		 */
		if (base == 0 && depth > 0 && !named(x->g, id))
			base = ranked_baseline(x->g, x->spin, 1, &waker);
	}
	if (base != 0)
		waker0 = waker;
	for (;;) {
		if (waker == 0)
			break;
		pi = new_path(x->d, depth);
		walk(x->g, waker, base, x->interactive, &x->d->paths[pi]);
		if (blame_path(x, pi, v->tid, base != 0 ? "on the baseline's "
		    "wake-up path, and stuck through the hang" : "on the path "
		    "of the wake-up that ended the wait, and stuck through "
		    "the hang", depth, base == 0 && ended_by != NULL &&
		    ended_for_sure(ended_by) ? EV_WAKEUP : EV_GUESS))
			return 1;
		if (base != 0 && counterparts(x, id, base, waker, depth))
			return 1;
		/*
		 * Ended by someone other than the one that ended the normal
		 * waits (an operator's reset, a watchdog), whose path held
		 * nothing: the one that should have ended it, by the
		 * baseline, is stuck or gone.
		 */
		if (base == 0 && depth == 0 && ended_by != NULL &&
		    (b = ranked_baseline(x->g, x->spin, 1, &w0)) != 0 &&
		    vertex_get(x->g, w0)->pid != v->pid &&
		    vertex_get(x->g, w0)->pid != vertex_get(x->g, waker)->pid &&
		    counterparts(x, id, b, w0, depth))
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
	if (request_in_flight(x, id, depth) || busy_threads(x, id, depth) ||
	    busy_siblings(x, id, depth) || awaits_child_signal(x, id, depth) ||
	    own_ends(x, id, depth) || path_lock_holder(x, id, depth) ||
	    unnamed_kin(x, id, depth))
		return 1;
	return waker0 != 0 && waker_gone(x, id, waker0, depth);
}
