/*
 * Relatives of a thread: its busy siblings, and a process that stands to
 * this wait as another stood to a normal wait of the same kind (parent,
 * child, sibling).
 */
#include <stdio.h>
#include <string.h>

#include "dctx.h"

/*
 * A thread that waits on a futex of its own program, for whom nothing
 * names, while another thread of its process runs through the hang: what
 * it waits for (a lock its runtime hands over between steps, CPython's
 * GIL) probably waits for that work.  Where the baselines fail to say so
 * (none like this wait, a machine too busy for the usual hand-over).
 */
static int
working(struct dctx *x, const struct vertex *v, const struct vertex *w)
{
	(void)v;
	return state_of(x, w) == TS_WORK;
}

/*
 * Else one in a sleep through the hang, since before the wait began: a
 * lock or a semaphore of the program held across a sleep (time.sleep()
 * under Python's `with lock:`) is the commonest futex that nothing
 * names.  A sleep, not a loop's poll on a timer: that one holds nothing.
 */
static int
asleep_before(struct dctx *x, const struct vertex *v, const struct vertex *w)
{
	return state_of(x, w) == TS_SLEEP && w->begin <= v->begin &&
	    vertex_sleeps(w);
}

/*
 * Else one asleep through the hang since its wait began: what it waits
 * for is no lock (the lock's holder took it first), but a condition, a
 * semaphore that thread will post when it wakes.
 */
static int
asleep_since(struct dctx *x, const struct vertex *v, const struct vertex *w)
{
	return state_of(x, w) == TS_SLEEP && w->begin > v->begin &&
	    vertex_sleeps(w);
}

/* Asleep through the hang, whenever it fell asleep. */
static int
asleep(struct dctx *x, const struct vertex *v, const struct vertex *w)
{
	(void)v;
	return state_of(x, w) == TS_SLEEP && vertex_sleeps(w);
}

/*
 * Else the other end of what another thread of its process waits on, by
 * the kernel's word, held by a thread of another process busy through
 * the hang (at work, asleep or stopped; not idle in its loop, nor waiting
 * in turn, as a client waits on its server): a runtime's I/O thread (Go's
 * netpoller, a JVM's selector) waits on the socket for the answer its
 * parked threads wait for.
 */
static int
sibling_waits_on(struct dctx *x, const struct vertex *v, int depth)
{
	struct graph *g = x->g;
	const struct vertex *w, *f;
	const struct link *l;
	uint64_t i = 0, u, s;
	enum tstate st;
	char why[200];
	int32_t k;
	int found = 0;

	while ((u = stuck_sibling(x, v, &i)) != 0) {
		w = vertex_get(g, u);
		for (k = w->in; k >= 0; k = g->l[k].next_in) {
			l = &g->l[k];
			if (!(link_props(l) & LR_HOLDS) || link_weak(l) ||
			    link_from(l) == 0 ||
			    (f = vertex_get(g, link_from(l))) == NULL ||
			    f->pid == v->pid || on_chain(x, f->tid) >= 0 ||
			    (s = stuck(x, f->tid)) == 0 ||
			    (st = state_of(x, vertex_get(g, s))) == TS_DISPATCH ||
			    st == TS_WAIT)
				continue;
			snprintf(why, sizeof(why), "%s %u waits on a futex "
			    "of its own process that nothing names, and the "
			    "kernel says this holds what %s %u of it waits "
			    "on: probably for what it waits for",
			    str_of(vertex_comm(v)), v->tid,
			    str_of(vertex_comm(w)), w->tid);
			found |= blame(x, s, why, depth, 0);
			break;
		}
	}
	return found;
}

int
busy_threads(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	const struct vertex *v = vertex_get(g, id);

	if (v->lock || strncmp(str_of(v->last_sys), "futex", 5) != 0 ||
	    named(g, id))
		return 0;
	return blame_siblings(x, v, working, "waits on a futex of its own "
	    "process that nothing names, and this thread of it ran through "
	    "the hang: probably what it waits for waits for this work",
	    depth) || blame_siblings(x, v, asleep_before, "waits on a futex "
	    "of its own process that nothing names, and this thread of it "
	    "slept since before: probably holding what it waits for", depth) ||
	    sibling_waits_on(x, v, depth) ||
	    blame_siblings(x, v, asleep_since, "waits on a futex of its own "
	    "process that nothing names, and this thread of it fell asleep "
	    "after: probably to post what it waits for when it wakes", depth);
}

/*
 * A wait on descriptors whose other ends, the kernel says, its own
 * process alone holds (a pipe or an eventfd between its threads, a
 * socket pair): another of its threads is to write them.  The suspects
 * are those stuck through the hang at work, else asleep; not one idle in
 * its loop nor waiting in turn, which owes nothing now.
 */
int
own_ends(struct dctx *x, uint64_t id, int depth)
{
	const struct vertex *v = vertex_get(x->g, id);
	struct snapwait sw;

	if (!snapshot_wait(x->g, v, &sw) || !sw.ownends)
		return 0;
	return blame_siblings(x, v, working, "waits on what only its own "
	    "process holds the other end of, by the kernel's word, and this "
	    "thread of it ran through the hang: probably the one to write it",
	    depth) || blame_siblings(x, v, asleep, "waits on what only its "
	    "own process holds the other end of, by the kernel's word, and "
	    "this thread of it slept through the hang: probably the one to "
	    "write it when it wakes", depth);
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
int
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
		if (!(link_props(l) & LR_HOLDS) || link_weak(l) ||
		    link_from(l) == 0 ||
		    (f = vertex_get(g, link_from(l))) == NULL ||
		    vertex_comm(f) != vertex_comm(v) || f->pid == v->pid ||
		    (t = vertex_get(g, link_to(l))) == NULL ||
		    t->pid == f->pid || t->pid == v->pid ||
		    stuck(x, t->tid) != link_to(l) ||
		    (s = stuck(x, f->tid)) == 0)
			continue;
		snprintf(why, sizeof(why), "of %s's processes, stuck through "
		    "the hang with %s %u waiting for it: %s %u waits for what "
		    "only its program sends", str_of(vertex_comm(v)),
		    str_of(vertex_comm(t)), t->pid, str_of(vertex_comm(v)),
		    v->pid);
		found |= blame(x, s, why, depth, 0);
	}
	return found;
}

/*
 * The thread of v's process that stands to it as thread then stood to
 * b's: made by the thread of it that stands as then's maker did (its
 * main thread, or the waiting one), the same in the order that thread
 * made threads and processes.  0 if none.
 */
static uint32_t
same_rank(struct graph *g, uint32_t then, const struct vertex *b,
    const struct vertex *v)
{
	uint32_t made[64], maker = made_by(g, then), now;
	size_t n, i;

	if (maker == b->pid)
		now = v->pid;
	else if (maker == b->tid)
		now = v->tid;
	else
		return 0;
	n = made_since(g, maker, 0, UINT64_MAX, made, ARRAY_LEN(made));
	for (i = 0; i < n && made[i] != then; i++)
		;
	if (i == n || made_since(g, now, 0, UINT64_MAX, made,
	    ARRAY_LEN(made)) <= i)
		return 0;
	return made[i];
}

/*
 * The baseline was another process of the same program, and whoever
 * ended its wait is gone: the waker's process, or whoever woke the waker
 * (a server is only the messenger of the client that fed it).  Each of
 * them stood in some relation to the baseline's process; the process in
 * the same relation to the hung one is the one that should act now.
 */
int
counterparts(struct dctx *x, uint64_t id, uint64_t base, uint64_t waker,
    int depth)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *b = vertex_get(g, base);
	struct vertex *w = vertex_get(g, waker), *u;
	struct link *l;
	const char *relation;
	uint32_t then[16], comm[16], now;
	char why[200];
	int32_t k;
	int i, n = 0, found = 0;
	uint64_t s;

	if (b == NULL || w == NULL)
		return 0;
	/*
	 * The same thread waited then, and a thread it made for that round,
	 * gone or idle now, woke it (a worker per task: Python's
	 * threading.Thread, joined): the one it made last before this wait.
	 */
	if (b->tid == v->tid && w->pid == v->pid && w->tid != v->tid &&
	    made_by(g, w->tid) == v->tid && stuck(x, w->tid) == 0) {
		n = (int)made_since(g, v->tid, b->end, v->end, then,
		    ARRAY_LEN(then));
		while (n > 0 && (then[n - 1] == w->tid || (u = vertex_get(g,
		    vertex_at(g, then[n - 1], 0))) == NULL || u->pid != v->pid))
			n--;
		if (n == 0 || (s = stuck(x, then[n - 1])) == 0)
			return 0;
		snprintf(why, sizeof(why), "is to this wait what %s %u, which "
		    "ended its wait then, was to that one: the thread it made "
		    "last before it", str_of(vertex_comm(w)), w->tid);
		return blame(x, s, why, depth, 0);
	}
	/*
	 * The same process waited then, and a child of it, gone now, woke
	 * it: the child it forked as long before this wait.  By each wait's
	 * end: a fork just before the wait is in the wait's vertex.
	 */
	if (b->pid == v->pid) {
		if (process_parent(g, w->pid) != v->pid || stuck(x, w->pid) ||
		    (now = child_before(g, v->pid, w->pid, b->end,
		    v->end)) == 0)
			return 0;
		/*
		 * The baseline was the wait just before, in the same round:
		 * the child that ended it was to end this one, and is gone.
		 * Not where its death ended it (a wait for the child's end).
		 */
		if (now == w->pid)
			return link_into_next(g, base, &l) &&
			    !woke_by_death(g, l) && counterpart_gone(x, id,
			    now, w->pid, vertex_comm(w), NULL, depth);
		/* Gone without ending it (it died holding what it gives). */
		if ((s = stuck(x, now)) == 0)
			return counterpart_gone(x, id, now, w->pid,
			    vertex_comm(w), "the child it forked last as long "
			    "before it", depth);
		snprintf(why, sizeof(why), "is to this wait what %s %u, which "
		    "ended its wait then, was to that one: the child it forked "
		    "last as long before it", str_of(vertex_comm(w)), w->pid);
		return blame(x, s, why, depth, 0);
	}
	/*
	 * Another thread of the baseline's process woke it (a barrier's
	 * last to come, a worker that posts a semaphore): the thread of the
	 * hung process made as it was, by the same maker, in the same rank.
	 * If none is stuck, whoever woke that thread is looked for below.
	 */
	if (w->pid == b->pid && w->tid != b->tid &&
	    (now = same_rank(g, w->tid, b, v)) != 0 && now != v->tid &&
	    (s = stuck(x, now)) != 0) {
		snprintf(why, sizeof(why), "is to the hung process what %s "
		    "%u/%u, which woke %s %u then, was to the baseline's: its "
		    "thread, the same in creation order", str_of(vertex_comm(w)),
		    w->pid, w->tid, str_of(vertex_comm(b)), b->tid);
		return blame(x, s, why, depth, 0);
	}
	comm[n] = vertex_comm(w);
	then[n++] = w->pid;
	for (k = w->in; k >= 0 && n < 16; k = g->l[k].next_in)
		if (!(link_props(&g->l[k]) & (LR_ORDER | LR_TIMEOUT)) &&
		    (u = vertex_get(g, link_from(&g->l[k]))) != NULL &&
		    u->pid != b->pid && u->pid != w->pid) {
			comm[n] = vertex_comm(u);
			then[n++] = u->pid;
		}
	for (i = 0; i < n; i++) {
		if ((now = counterpart(g, then[i], b->pid, v->pid,
		    &relation)) == 0 || now == v->pid || now == then[i])
			continue;
		if ((s = stuck(x, now)) == 0) {
			if (!found)
				found |= counterpart_gone(x, id, now, then[i],
				    comm[i], relation, depth);
			continue;
		}
		snprintf(why, sizeof(why), "is to the hung process what %s "
		    "%u, which woke %s %u then, was to the baseline's: %s",
		    str_of(comm[i]), then[i], i == 0 ? str_of(vertex_comm(b)) :
		    str_of(vertex_comm(w)), i == 0 ? b->pid : w->pid, relation);
		found |= blame(x, s, why, depth, 0);
	}
	return found;
}

/*
 * Process now stands to the hung vertex id as then stood to an earlier
 * one (relation): stuck, it is blamed, why; gone, it is the root, a lost
 * wake-up.
 */
static int
stands_in(struct dctx *x, uint64_t id, uint32_t now, const struct vertex *then,
    const char *relation, const char *why, int depth)
{
	uint64_t s;

	if ((s = stuck(x, now)) == 0)
		return counterpart_gone(x, id, now, then->pid,
		    vertex_comm(then), relation, depth);
	return blame(x, s, why, depth, 0);
}

/*
 * A loop whose connects an address refuses waits for someone to listen
 * there; the last who did is gone (by, the refused rule's weak link).
 * It had let another connector in (its strong link): the process that
 * stands to the hung one as it stood to that connector is the one that
 * should listen now (a service restarted beside its client).  A guess.
 */
int
listener_counterpart(struct dctx *x, uint64_t id, const struct link *by,
    int depth)
{
	struct graph *g = x->g;
	const struct vertex *v = vertex_get(g, id), *from, *to, *w;
	const char *relation;
	uint32_t now = 0;
	char why[200];
	int32_t k;

	if ((from = vertex_get(g, link_from(by))) == NULL)
		return 0;
	for (k = g->nl - 1; k >= 0 && now == 0; k--) {
		if (link_rule(&g->l[k]) != link_rule(by) ||
		    link_weak(&g->l[k]) ||
		    (w = vertex_get(g, link_from(&g->l[k]))) == NULL ||
		    w->pid != from->pid ||
		    (to = vertex_get(g, link_to(&g->l[k]))) == NULL ||
		    to->pid == v->pid)
			continue;
		if ((now = counterpart(g, from->pid, to->pid, v->pid,
		    &relation)) == 0 || now == v->pid || now == from->pid)
			return 0;
	}
	if (now == 0)
		return 0;
	snprintf(why, sizeof(why), "is to the hung process what %s %u, which "
	    "listened on %s then, was to the connector it let in: %s; nobody "
	    "listens there now", str_of(vertex_comm(from)), from->pid,
	    str_of(link_label(by)), relation);
	return stands_in(x, id, now, from, relation, why, depth);
}

/*
 * The first wake-up another process gave thread tid's vertices that ran
 * program comm (not the shell that forked it, before its exec), a
 * timeout's and program order's aside, its parent's and its children's
 * too (a fork, a command substitution's end): for a client that retries
 * until its service answers, the answer.  The link, or NULL.
 */
static const struct link *
first_answer(struct graph *g, uint32_t tid, uint32_t comm)
{
	const struct vertex *v, *w;
	uint32_t parent = process_parent(g, tid);
	const struct link *l;
	uint64_t u;
	int32_t k;

	for (u = vertex_at(g, tid, 0); u != 0; u = vertex_next(g, u)) {
		if (vertex_comm(v = vertex_get(g, u)) != comm)
			continue;
		for (k = v->in; k >= 0; k = g->l[k].next_in) {
			l = &g->l[k];
			if ((link_props(l) & (LR_WAKES | LR_TIMEOUT |
			    LR_ORDER)) == LR_WAKES && !link_weak(l) &&
			    (w = vertex_get(g, link_from(l))) != NULL &&
			    w->pid != v->pid && w->pid != parent &&
			    process_parent(g, w->pid) != v->pid)
				return l;
		}
	}
	return NULL;
}

/*
 * A loop that polls what no flag says (a connect to a Unix socket not
 * there yet, a UDP question a closed port refuses): the earlier runs of
 * the same program, started by the same parent, left theirs when a peer
 * answered.  The process that stands to the hung one as the last such
 * peer stood to its run is the one to answer now (a service restarted
 * beside its client), stuck or gone.  A guess.
 */
int
loop_counterpart(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	const struct vertex *v = vertex_get(g, id), *c, *p;
	uint32_t kids[64], parent = process_parent(g, v->pid), now;
	const struct link *a;
	const char *relation;
	char why[200];
	size_t n, i;

	if (parent == 0)
		return 0;
	n = children_before(g, parent, v->pid, kids, ARRAY_LEN(kids));
	for (i = n; i-- > 0; ) {
		if ((a = first_answer(g, kids[i],
		    vertex_comm(v))) == NULL ||
		    (c = vertex_get(g, link_to(a))) == NULL ||
		    c->begin >= v->begin)
			continue;
		p = vertex_get(g, link_from(a));
		if (p->pid == v->pid || (now = counterpart(g, p->pid, c->pid,
		    v->pid, &relation)) == 0 || now == v->pid || now == p->pid)
			continue;
		snprintf(why, sizeof(why), "is to the hung process what %s %u, "
		    "which answered the same loop of %s %u then, was to it: "
		    "%s", str_of(vertex_comm(p)), p->pid,
		    str_of(vertex_comm(c)), c->pid, relation);
		return stands_in(x, id, now, p, relation, why, depth);
	}
	return 0;
}

/*
 * A loop that reaps between its naps (wait4 with WNOHANG: Python's
 * Popen.poll() and Popen.wait(timeout), GNU parallel's, a supervisor's)
 * polls for the end of a child: the one whose pid it asks for (asked,
 * reaped_in()'s), by the kernel's word, or any of them: the one stuck
 * through the hang as surely, several each a suspect.  1 if it blamed
 * one.
 */
int
polls_child(struct dctx *x, const struct vertex *v, uint64_t asked, int depth)
{
	struct graph *g = x->g;
	uint64_t u, kids[8];
	uint32_t pids[64];
	size_t np, i;
	int n = 0, k, found = 0;
	char why[200];
	int32_t pid;

	if (asked == 0)
		return 0;
	if ((pid = (int32_t)(asked - 1)) > 0) {
		if (process_parent(g, pid) != v->pid || (u = stuck(x, pid)) == 0)
			return 0;
		snprintf(why, sizeof(why), "the kernel says %s %u polls for it "
		    "to end: wait4 of its pid between naps",
		    str_of(vertex_comm(v)), v->tid);
		return blame_ev(x, u, why, depth, KERNEL_SAYS, EV_KERNEL, 0);
	}
	np = process_children(g, v->pid, pids, ARRAY_LEN(pids));
	for (i = 0; i < np && n < (int)ARRAY_LEN(kids); i++)
		if ((u = stuck(x, pids[i])) != 0)
			kids[n++] = u;
	snprintf(why, sizeof(why), "a child of %s %u, which polls for any "
	    "of its children to end (wait4 between naps), stuck through the "
	    "hang", str_of(vertex_comm(v)), v->tid);
	for (k = 0; k < n; k++)
		found |= blame_ev(x, kids[k], why, depth, n == 1 ?
		    KERNEL_SAYS : 1, n == 1 ? EV_KERNEL : EV_GUESS, n > 1);
	return found;
}

/*
 * A process that waits for a signal (sigsuspend, pause: timeout(1)), or
 * on objects of its own that nothing names and no connection (a self-pipe
 * its SIGCHLD handler writes: cmake's), with one child stuck through the
 * hang: it waits for that child's end.  One: a supervisor among many
 * workers waits for none in particular.
 */
int
awaits_child_signal(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	const struct vertex *v = vertex_get(g, id);
	struct snapwait sw;
	uint32_t pids[64];
	uint64_t u, kid = 0;
	size_t np, i;
	char why[200];
	int signal;

	if (v->last_sys == 0 || v->lock || named(g, id))
		return 0;
	signal = syscall_awaits_signal(str_of(v->last_sys));
	if (!signal && (!snapshot_wait(g, v, &sw) || sw.sockets ||
	    sw.clients || sw.objects == 0 || sw.stop != 0))
		return 0;
	np = process_children(g, v->pid, pids, ARRAY_LEN(pids));
	for (i = 0; i < np; i++) {
		if ((u = stuck(x, pids[i])) == 0 || on_chain(x, pids[i]) >= 0)
			continue;
		if (kid != 0)
			return 0;
		kid = u;
	}
	if (kid == 0)
		return 0;
	snprintf(why, sizeof(why), "the one child of %s %u stuck through the "
	    "hang, while it waits in %s %s: for its end", str_of(vertex_comm(v)),
	    v->tid, str_of(v->last_sys), signal ? "for a signal" :
	    "on what nothing names (a self-pipe its SIGCHLD handler writes)");
	return blame_ev(x, kid, why, depth, 1, EV_GUESS, 0);
}

/*
 * A process blocked where the kernel names nothing it waits on, nor a
 * timeout (an open of a FIFO waiting for its other end, a receive on a
 * System V message queue): whoever ends it holds nothing the snapshot
 * sees.  Who most often does is of its family: a process it forked, or
 * one its parent forked beside it (`producer >fifo & consumer <fifo`),
 * or its parent.  Those stuck through the hang at work or asleep are the
 * suspects, a guess; none where more than MAX_KIN are.  Not a wait in D,
 * on a disk or a file system, which is for no process to end.
 */
#define MAX_KIN		3
#define MAX_FAMILY	64

static size_t
family(struct graph *g, uint32_t pid, uint32_t *out)
{
	uint32_t parent = process_parent(g, pid), more[MAX_FAMILY];
	size_t n = descendants(g, pid, 0, out, MAX_FAMILY), m, i, j;

	if (parent == 0)
		return n;
	m = descendants(g, parent, 0, more, MAX_FAMILY - 1);
	more[m++] = parent;
	for (i = 0; i < m && n < MAX_FAMILY; i++) {
		for (j = 0; j < n && out[j] != more[i]; j++)
			;
		if (j == n && more[i] != pid)
			out[n++] = more[i];
	}
	return n;
}

int
unnamed_kin(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	const struct vertex *v = vertex_get(g, id);
	uint32_t pids[MAX_FAMILY];
	uint64_t sus[MAX_KIN], u;
	struct snapwait sw;
	enum tstate st;
	size_t n, ns = 0, i;
	char why[200];
	int found = 0;

	if (v->lock || named(g, id) || !snapshot_wait(g, v, &sw) ||
	    sw.state != 'S' || sw.objects > 0 || sw.timed || sw.stop != 0 ||
	    sw.call == 0 || *str_of(sw.call) == '\0' ||
	    (syscall_class(str_of(sw.call)) & (CALL_SLEEP | CALL_YIELD |
	    CALL_POLL | CALL_FUTEX | CALL_SIGWAIT | CALL_SIGNAL | CALL_REAP |
	    CALL_DISPATCH)))
		return 0;
	n = family(g, v->pid, pids);
	for (i = 0; i < n; i++) {
		if ((u = stuck(x, pids[i])) == 0 || on_chain(x, pids[i]) >= 0)
			continue;
		st = state_of(x, vertex_get(g, u));
		if (st != TS_WORK && st != TS_SLEEP)
			continue;
		if (ns == MAX_KIN)
			return 0;
		sus[ns++] = u;
	}
	snprintf(why, sizeof(why), "%s %u is blocked in %s (%s) on nothing "
	    "the kernel names: probably for this process of its family, stuck "
	    "through the hang, to end it", str_of(vertex_comm(v)), v->tid,
	    str_of(sw.call), str_of(sw.wchan));
	for (i = 0; i < ns; i++) {
		x->says = "its family";
		found |= blame(x, sus[i], why, depth, 0);
	}
	return found;
}
