/*
 * Who holds what a waiting thread waits on, as the kernel or a runtime
 * names them (LR_HOLDS links): a lock's holders, the other end of a
 * channel, the other threads of a process that holds it.
 */
#include <stdio.h>
#include <string.h>

#include "dctx.h"
#include "hostnames.h"

/*
 * A thread blocked on a mutex that nobody has handed over yet: taking a
 * free mutex makes no system call, so the trace cannot say who holds it.
 * The suspects are its siblings that were stuck through the hang without
 * waiting for that mutex themselves: one of them holds it.
 */
static int
not_for_that_lock(struct dctx *x, const struct vertex *v,
    const struct vertex *w)
{
	(void)x;
	return !w->lock || w->arg != v->arg;
}

int
lock_holders(struct dctx *x, uint64_t id, int depth)
{
	return blame_siblings(x, vertex_get(x->g, id), not_for_that_lock,
	    "waits on a lock in its own process whose holder the kernel "
	    "cannot name (not a PI futex); probably held by this thread: "
	    "stuck through the hang, not waiting for that lock", depth);
}

/*
 * Blocked uninterruptibly in a call that looks a path up, on nothing the
 * kernel names (no holder of a directory's lock is kept: it is a
 * read-write semaphore): whoever has been in such a call since before,
 * still blocked when the snapshot was taken, went first on the path and
 * may hold the lock this one waits for (a slow lookup on a FUSE or
 * network file system holds its directory's while it waits for an
 * answer).  The earliest of them; a guess.
 */
int
path_lock_holder(struct dctx *x, uint64_t id, int depth)
{
	const struct graph *g = x->g;
	const struct vertex *v = vertex_get(x->g, id);
	const struct snapwait *s, *first = NULL;
	struct snapwait sw;
	uint64_t u;
	char why[200];
	int i;

	if (!snapshot_wait(g, v, &sw) || sw.state != 'D' || sw.objects > 0 ||
	    !(syscall_class(str_of(sw.call)) & CALL_PATH))
		return 0;
	for (i = 0; i < g->nsnapw; i++) {
		s = &g->snapw[i];
		if (s->pid != v->pid && s->since < sw.since &&
		    (s->state == 'D' || s->state == 'S') && s->objects == 0 &&
		    (syscall_class(str_of(s->call)) & CALL_PATH) &&
		    (first == NULL || s->since < first->since))
			first = s;
	}
	if (first == NULL || (u = now_of(x, first->tid, 0)) == 0)
		return 0;
	snprintf(why, sizeof(why), "in %s, waiting in %s since %.1f s before "
	    "%s %u: probably holding the file system's lock it waits for "
	    "(the kernel names no holder)", str_of(first->call),
	    str_of(first->wchan), (sw.since - first->since) / 1e9,
	    str_of(vertex_comm(v)), v->tid);
	return blame(x, u, why, depth, 0);
}

/*
 * What the thread does now, for a holder the kernel named: stuck through
 * the hang, else its last vertex before the hang's end (at_cut()), else
 * where the link says.
 */
uint64_t
now_of(struct dctx *x, uint32_t tid, uint64_t fallback)
{
	uint64_t u;

	if ((u = stuck(x, tid)) != 0)
		return u;
	if (x->he > 0 && (u = vertex_at(x->g, tid, x->he - 1)) != 0)
		return at_cut(x, u);
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
	return (link_props(l) & LR_HOLDS) && link_from(l) != 0 &&
	    (!link_weak(l) ||
	    vertex_get(g, link_from(l))->pid != vertex_get(g, id)->pid);
}

static int	other_thread(struct graph *, uint32_t pid, uint32_t tid);

/* Whether anyone is named as holding what the vertex waits on. */
int
named(struct graph *g, uint64_t id)
{
	int32_t k;

	for (k = vertex_get(g, id)->in; k >= 0; k = g->l[k].next_in)
		if (usable(g, id, &g->l[k]))
			return 1;
	return 0;
}

/* Whether vertex u waits on a thread of process pid, by the kernel's word. */
static int
waits_on(struct graph *g, const struct vertex *u, uint32_t pid)
{
	int32_t k;

	for (k = u->in; k >= 0; k = g->l[k].next_in)
		if (usable(g, vertex_id(u), &g->l[k]) &&
		    vertex_get(g, link_from(&g->l[k]))->pid == pid)
			return 1;
	return 0;
}

/*
 * Another party than holder f the vertex waits on as well, by the
 * kernel's word, that is not on the chain: a poll set's other source,
 * another holder; not one that waits on f (see one_party()).  A circular
 * wait needs every source to lead back into it.
 */
static int
other_party(struct dctx *x, uint64_t id, const struct vertex *f)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *u;
	int32_t k;

	for (k = v->in; k >= 0; k = g->l[k].next_in)
		if (usable(g, id, &g->l[k]) &&
		    (u = vertex_get(g, link_from(&g->l[k]))) != NULL &&
		    u->tid != f->tid && on_chain(x, u->tid) < 0 &&
		    !waits_on(g, u, f->pid))
			return 1;
	return 0;
}

/*
 * Every party the kernel named for the wait of vertex id is on the chain
 * now, each the one thread of its process that may act: a wait that any
 * of several could end (an end they inherited, a lock of an open file
 * they share) can then end only by the chain, whose every thread waits.
 */
int
parties_on_chain(struct dctx *x, uint64_t id)
{
	struct graph *g = x->g;
	struct vertex *u;
	int32_t k;
	int n = 0;

	for (k = vertex_get(g, id)->in; k >= 0; k = g->l[k].next_in) {
		if (!usable(g, id, &g->l[k]))
			continue;
		if ((u = vertex_get(g, link_from(&g->l[k]))) == NULL ||
		    on_chain(x, u->tid) < 0 || (link_weak(&g->l[k]) &&
		    other_thread(g, u->pid, u->tid)))
			return 0;
		n++;
	}
	return n > 0;
}

/*
 * The next link from k on into vertex id from another process that holds
 * what link l's holder does (the same label): its index, or -1.
 */
static int32_t
co_holder(struct graph *g, uint64_t id, const struct link *l, int32_t k)
{
	uint32_t pid = vertex_get(g, link_from(l))->pid;

	for (; k >= 0; k = g->l[k].next_in)
		if (usable(g, id, &g->l[k]) &&
		    link_label(&g->l[k]) == link_label(l) &&
		    vertex_get(g, link_from(&g->l[k]))->pid != pid)
			return k;
	return -1;
}

/*
 * Whether the holder of link l is the one process that holds that object
 * for the vertex: weak only because which of its threads will act is a
 * guess (a child waited for, a peer whose descriptor no thread was seen
 * to use), which the kernel's word on the process does not weaken.
 * Another holder that waits on this one is no other party: it acts only
 * after it (a shell that waits for its command, both holding the end of
 * the pipe the command writes).
 */
static int
one_party(struct graph *g, uint64_t id, const struct link *l)
{
	struct vertex *f = vertex_get(g, link_from(l));
	int32_t k;

	for (k = co_holder(g, id, l, vertex_get(g, id)->in); k >= 0;
	    k = co_holder(g, id, l, g->l[k].next_in))
		if (!waits_on(g, vertex_get(g, link_from(&g->l[k])), f->pid))
			return 0;
	return 1;
}

/*
 * Whether the holder of link l waits on another holder of that object,
 * one that does not wait on it: it acts only after that one, which is
 * the suspect in its place.
 */
static int
behind(struct graph *g, uint64_t id, const struct link *l)
{
	struct vertex *f = vertex_get(g, link_from(l)), *u;
	int32_t k;

	for (k = co_holder(g, id, l, vertex_get(g, id)->in); k >= 0;
	    k = co_holder(g, id, l, g->l[k].next_in)) {
		u = vertex_get(g, link_from(&g->l[k]));
		if (waits_on(g, f, u->pid) && !waits_on(g, u, f->pid))
			return 1;
	}
	return 0;
}

/* The object of a holder link's label, "writer pipe:12": "pipe:12". */
static const char *
label_object(const struct link *l)
{
	const char *o = strchr(str_of(link_label(l)), ' ');

	return o != NULL ? o + 1 : str_of(link_label(l));
}

/*
 * The poller's set holds one peer's connection, and no listener: a
 * process that serves that one client (sshd's session, a relay forked per
 * connection), whose children's pipes are that client's work however
 * long before the hang it started them.
 */
static int
one_client(struct graph *g, uint64_t id)
{
	const struct vertex *v = vertex_get(g, id), *u;
	struct snapwait sw;
	uint32_t peer = 0;
	int32_t k;

	if (!snapshot_wait(g, v, &sw) || sw.clients)
		return 0;
	for (k = v->in; k >= 0; k = g->l[k].next_in) {
		if (!usable(g, id, &g->l[k]) ||
		    wrel_of_label(str_of(link_label(&g->l[k]))) != WR_PEER ||
		    (u = vertex_get(g, link_from(&g->l[k]))) == NULL ||
		    u->pid == v->pid)
			continue;
		if (peer != 0 && peer != u->pid)
			return 0;
		peer = u->pid;
	}
	return peer != 0;
}

/*
 * The object of the poller v's set that the hung request went out on: the
 * descriptor a thread of its process, the nearest on the chain, sent on
 * last before its wait, which the poller polls too (its process's one
 * table of descriptors).  The member, by the kernel's word on both.  0 if
 * none.
 */
static uint32_t
request_object(struct dctx *x, const struct vertex *v)
{
	struct graph *g = x->g;
	const struct vertex *w;
	int i, j, fd;

	for (j = x->nchain - 2; j >= 0; j--) {
		if ((w = vertex_get(g, x->vx[j])) == NULL ||
		    w->pid != v->pid || w->tid == v->tid ||
		    (fd = vertex_sent_fd(g, x->vx[j])) < 0)
			continue;
		for (i = 0; i < g->nsnapfd; i++)
			if (g->snapfd[i].tid == v->tid && g->snapfd[i].fd == fd)
				return g->snapfd[i].object;
	}
	return 0;
}

/*
 * A wait on a set of objects (poll, select, epoll) whose other ends
 * different processes hold, other than its own: each is one of many
 * possible wakers, and that the kernel names the holder of one member
 * says nothing of whether this wait is on it.
 */
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
		    str_of(vertex_comm(u)), u->pid, str_of(vertex_comm(v)),
		    v->tid, str_of(link_label(l)), u->tid);
		found |= blame_ev(x, now, why, depth, 0, EV_GUESS, 1);
	}
	return found;
}

/*
 * A holder the trace named that was gone before the hang (a flock(1)
 * whose command left a child in the background): what it held, a lock or
 * a channel's end, is its open file's, which the processes it forked
 * since inherited with their descriptors; those of them stuck through the
 * hang hold it now.  One, as surely as the kernel named the first; of
 * several, any.
 */
static int
heirs(struct dctx *x, uint64_t id, const struct link *l,
    const struct vertex *u, int depth)
{
	struct vertex *v = vertex_get(x->g, id);
	uint32_t d[16];
	uint64_t s[16];
	size_t n, i, m = 0;
	char why[200];
	int found = 0;

	n = descendants(x->g, u->pid, link_time(l), d, ARRAY_LEN(d));
	for (i = 0; i < n; i++)
		if ((s[m] = stuck(x, d[i])) != 0)
			m++;
	for (i = 0; i < m; i++) {
		snprintf(why, sizeof(why), "inherited the descriptor of %s %u, "
		    "gone, which the kernel says held what %s %u waits on (%s)",
		    str_of(vertex_comm(u)), u->pid, str_of(vertex_comm(v)),
		    v->tid, str_of(link_label(l)));
		found |= blame_ev(x, s[i], why, depth, m == 1 ? KERNEL_SAYS :
		    0, m == 1 ? EV_KERNEL : EV_GUESS, m > 1);
	}
	return found;
}

/*
 * A semaphore's last operator gone (last-op: System V keeps no holder),
 * or a mutex's owner (the thread its word names, exited): it took what
 * the vertex waits on and exited without giving it back, which the
 * kernel does for it only with SEM_UNDO or a robust mutex.  Nobody is
 * left who will: it is the root, as surely as the kernel named it.
 */
static int
dead_taker(struct dctx *x, uint64_t id, const struct link *l,
    const struct vertex *u, int depth)
{
	struct graph *g = x->g;
	const struct vertex *v = vertex_get(g, id), *e;
	struct culprit *c;
	uint64_t last;

	if ((last = last_vertex(g, u->tid)) == 0 ||
	    (e = vertex_get(g, last)) == NULL)
		return 0;
	c = add(x->d, last, depth + 1, RK_ROOT, classify(e));
	c->ev = EV_KERNEL;
	snprintf(c->why, sizeof(c->why), "was the last to take %s, the kernel "
	    "says (%s), and exited at +%.3f s without giving it back: %s %u "
	    "waits for it, and nobody is left who will",
	    label_object(l), str_of(link_rule(l)),
	    (e->end - g->first_time) / 1e9,
	    str_of(vertex_comm(v)), v->tid);
	return 1;
}

/*
 * The kernel's word on what the vertex waits on and who holds it: its
 * LR_HOLDS links, the strong ones first (one named party), then, if they
 * lead nowhere (back to the chain, to an idle loop), every weak holder:
 * any of them may be the one.  -1 if the kernel said nothing; HELD_BY_LINE
 * if an ancestor of the hung process holds it (the chain ends there).
 */
int
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
	int set, how, j, known = 0, multi, ok, r, rel;
	uint32_t obj;
	enum tstate st;
	struct snapwait sw;
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
	/*
	 * A file lock its own process holds by another descriptor, and no
	 * other thread of it to let go: it waits for itself, whoever else
	 * holds it (a tool that inherited the descriptor of the lock its
	 * script took, and the script).  Said, whatever the chain finds.
	 */
	if (x->d->note[0] == '\0' && snapshot_wait(g, v, &sw) &&
	    sw.selffd != NO_FD && !other_thread(g, v->pid, v->tid))
		snprintf(x->d->note, sizeof(x->d->note), "%s %u waits for a "
		    "lock that it holds itself, by fd %d (a descriptor it "
		    "inherited, or opened before): it waits for itself",
		    str_of(vertex_comm(v)), v->tid, sw.selffd);
	set = many_wakers(x, id);
	/*
	 * Where the hung request went out is known: the other members of
	 * the set are other requests, whatever holds them.  By what says so
	 * best: the descriptor a thread of the poller's process sent it on
	 * (request_object()); the request of the nearest such thread on the
	 * chain, by the process it went to; where the answer came from in
	 * the baseline; else the poller's own messages.
	 */
	obj = set ? request_object(x, v) : 0;
	for (k = v->in; obj != 0 && k >= 0 && !known; k = g->l[k].next_in)
		known = usable(g, id, &g->l[k]) &&
		    str_id(label_object(&g->l[k])) == obj;
	if (!known)
		obj = 0;
	how = BY_POLLER;
	for (j = x->nchain - 2; set && j >= 0 && how == BY_POLLER; j--)
		for (k = v->in; k >= 0 && how == BY_POLLER;
		    k = g->l[k].next_in)
			if (usable(g, id, &g->l[k]) && sent_for_poller(x, v, j,
			    vertex_get(g, link_from(&g->l[k]))->pid))
				how = j;
	for (k = v->in; set && how == BY_POLLER && k >= 0; k = g->l[k].next_in)
		if (usable(g, id, &g->l[k]) && replied_from(x,
		    vertex_get(g, link_from(&g->l[k]))->pid))
			how = BY_BASELINE;
	for (k = v->in; set && k >= 0 && !known; k = g->l[k].next_in)
		known = usable(g, id, &g->l[k]) && request_went(x, v,
		    vertex_get(g, link_from(&g->l[k]))->pid, how);
	/* A reader of its terminal waits for a person, whoever holds it. */
	if (reads_terminal(g, v->tid))
		return -1;
	/*
	 * Among several holders (a script's pipe, which its children
	 * inherit), an ancestor of the hung process: the thread waits for
	 * the line that started the hang, a script standing in for a person.
	 * Not of a lock: an ancestor that holds one (`flock L cmd`) holds
	 * it while it waits for its line, whoever inherited it too.  Nor of
	 * a role, which no fork hands down: the ancestor that answers the
	 * thread's calls (its seccomp supervisor, its tracer) acts.
	 */
	for (k = v->in; k >= 0; k = g->l[k].next_in) {
		l = &g->l[k];
		if (usable(g, id, l) && link_weak(l) &&
		    !(link_props(l) & LR_LOCK) &&
		    !wrel_label_is_lock(str_of(link_label(l))) &&
		    !wrel_label_is_role(str_of(link_label(l))) &&
		    ancestor(x, (u = vertex_get(g, link_from(l))))) {
			snprintf(x->d->note, sizeof(x->d->note), "%s %u waits "
			    "for %s %u, an ancestor of the hung process, "
			    "which holds %s", str_of(vertex_comm(v)), v->tid,
			    str_of(vertex_comm(u)), u->pid,
			    str_of(link_label(l)));
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
			if (!usable(g, id, l) || link_weak(l) != (pass > 1))
				continue;
			u = vertex_get(g, link_from(l));
			if (behind(g, id, l))
				continue;
			rel = wrel_of_label(str_of(link_label(l)));
			if ((rel == WR_LAST_OP || rel == WR_OWNER) &&
			    died_by(g, u->tid, x->he)) {
				any = 1;
				found |= dead_taker(x, id, l, u, depth);
				continue;
			}
			/* Named by the trace, and gone: its heirs hold it. */
			if (died_by(g, u->tid, x->hb)) {
				any = 1;
				found |= heirs(x, id, l, u, depth);
				continue;
			}
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
			guess = set && (obj != 0 ? str_id(label_object(l)) !=
			    obj : !request_went(x, v, u->pid, how));
			/*
			 * But a child it forked since the hang began, or a
			 * child of that one's, holds no other request: it is
			 * the work of the one in hand (a CGI, a command a
			 * handler runs, sshd's session's command, its output
			 * read in the same loop).  For a process that serves
			 * one client, any child it forked.
			 */
			if (guess && forked_since(g, u->pid, v->pid,
			    one_client(g, id) ? 0 : x->hb))
				guess = 0;
			if (guess && (known || serves_request(x, v,
			    x->nchain - 2)))
				continue;
			any = 1;
			if ((what = runtime_label(l, says, sizeof(says))) !=
			    NULL) {
				/* The runtime's word: its lock, not a futex. */
				snprintf(why, sizeof(why), "%s says it holds "
				    "what %s %u waits on: %s", says,
				    str_of(vertex_comm(v)), v->tid, what);
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
				    str_of(vertex_comm(v)), v->tid,
				    str_of(link_label(l)),
				    str_of(link_rule(l)));
			else
				snprintf(why, sizeof(why), "%s it holds what %s "
				    "%u waits on: %s (%s)", across ? "the "
				    "connection, in both hosts' recordings, says" :
				    "the kernel says", str_of(vertex_comm(v)),
				    v->tid, str_of(link_label(l)),
				    str_of(link_rule(l)));
			sole = !guess && (!link_weak(l) || one_party(g, id, l));
			/*
			 * The one process that holds it, by a thread that is
			 * a guess (no thread was seen to use it): the process
			 * is the kernel's word, the thread is not, and a
			 * circle through it is no circle.
			 */
			multi = !sole || other_party(x, id, u) ||
			    (link_weak(l) && other_thread(g, u->pid, u->tid));
			x->held = (link_props(l) & LR_LOCK) ||
			    wrel_label_is_lock(str_of(link_label(l)));
			ok = blame_ev(x, now, why, depth,
			    link_weak(l) || guess ? 0 :
			    KERNEL_SAYS, !sole ? EV_GUESS : across ?
			    EV_CONNECTION : EV_KERNEL, multi);
			if (!ok && sole && link_weak(l) &&
			    on_chain(x, u->tid) >= 0)
				ok = other_threads(x, id, l, u, depth);
			found |= ok;
		}
	return any ? found : -1;
}
