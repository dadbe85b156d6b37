/*
 * What a thread was doing while the hang lasted (Diagnose's look at each
 * thread on a wake-up path): its vertex stuck through the hang, counting
 * the rounds of a periodic wait as one, and whether it worked, slept on
 * its own timer, idled in its service loop, waited on someone, did not
 * run, or had its wait ended by a kill.
 */
#include <string.h>

#include "dctx.h"

/* Busy: on a CPU, or runnable (preempted), for half of it at least. */
static int
busy(const struct vertex *v)
{
	uint64_t dur = v->end - v->begin;

	return dur > 0 && (vertex_oncpu(v) + vertex_runnable(v)) * 2 >= dur;
}

/*
 * A thread's vertex at the hang's end, u: unless the thread is at work
 * there, in a vertex begun inside the hang, after waits that took most
 * of it: the cut fell on a round of its loop (a server's housekeeping on
 * its timer, ten times a second), and the wait before says what it did
 * while the hang lasted.  Busy or not is the thread's over the hang, as
 * stuck() counts work cut in slices, not the sliver the cut caught.
 */
uint64_t
at_cut(struct dctx *x, uint64_t u)
{
	const struct vertex *w = vertex_get(x->g, u), *p;
	uint64_t id, ran = 0, prev = vertex_prev(x->g, u);

	if (!busy(w) || w->begin <= x->hb || prev == 0 ||
	    (p = vertex_get(x->g, prev))->end <= x->hb)
		return u;
	for (id = vertex_at(x->g, w->tid, x->hb); id != 0 &&
	    (p = vertex_get(x->g, id))->begin < x->he;
	    id = vertex_next(x->g, id)) {
		ran += ran_within(p, x->hb, x->he);
	}
	return 2 * ran >= x->he - x->hb ? u : prev;
}

/* A culprit's class: busy, or waiting. */
const struct sclass *
classify(const struct vertex *v)
{
	return sclass_of_kind(busy(v) ? HK_WORK : HK_WAIT);
}

uint64_t
overlap(const struct vertex *w, uint64_t hb, uint64_t he)
{
	uint64_t a = w->begin > hb ? w->begin : hb;
	uint64_t b = w->end < he ? w->end : he;

	return b > a ? b - a : 0;
}

/*
 * What vertex w ran (on a CPU, or wanting one) within [hb, he): its
 * times there are not placed in it, so at most its overlap.
 */
uint64_t
ran_within(const struct vertex *w, uint64_t hb, uint64_t he)
{
	uint64_t ran = vertex_oncpu(w) + vertex_runnable(w);
	uint64_t o = overlap(w, hb, he);

	return ran < o ? ran : o;
}

/*
 * An interrupt's doing that ran on the vertex's CPU, not the thread's
 * (RCU's softirq waking rcu_preempt): a weak softirq or irq link.
 */
static int
interrupts(const struct link *l, uint32_t softirq, uint32_t irq)
{
	return link_weak(l) && (link_rule(l) == softirq || link_rule(l) == irq);
}

/*
 * Whether vertex w woke another thread: progress, the thread's own work
 * done, not an interrupt's, nor a mutex handed over on the way (a lock
 * manager's round takes its own contended lock).  One pass over the
 * links, the first time it is asked.
 */
static int
woke_another(struct dctx *x, const struct vertex *w)
{
	struct graph *g = x->g;
	uint32_t softirq = str_id(SOFTIRQ_RULE), irq = str_id(IRQ_RULE);
	uint32_t lock = str_id(LOCK_RULE);
	struct vertex *f, *t;
	int32_t k;

	if (x->woke == NULL) {
		x->woke = xcalloc(g->nv + 1, 1);
		for (k = 0; k < g->nl; k++)
			if ((link_props(&g->l[k]) & LR_WAKES) &&
			    !(link_props(&g->l[k]) & (LR_ORDER | LR_TIMEOUT)) &&
			    !interrupts(&g->l[k], softirq, irq) &&
			    link_rule(&g->l[k]) != lock &&
			    link_from(&g->l[k]) != 0 &&
			    (f = vertex_get(g, link_from(&g->l[k]))) != NULL &&
			    (t = vertex_get(g, link_to(&g->l[k]))) != NULL &&
			    f->tid != t->tid)
				x->woke[f - g->v] = 1;
	}
	return x->woke[w - g->v];
}

/* A twentieth of the hang at most. */
static int
brief(const struct dctx *x, const struct vertex *u)
{
	return 20 * (u->end - u->begin) <= x->he - x->hb;
}

/* The vertex of u's thread whose own timer ended its wait into u, or NULL. */
static struct vertex *
timed_out_of(struct graph *g, const struct vertex *u)
{
	struct vertex *p;
	int32_t k;

	for (k = u->in; k >= 0; k = g->l[k].next_in)
		if ((link_props(&g->l[k]) & LR_TIMEOUT) &&
		    link_from(&g->l[k]) != 0 &&
		    (p = vertex_get(g, link_from(&g->l[k]))) != NULL &&
		    p->tid == u->tid)
			return p;
	return NULL;
}

/* Whether vertex u began with a lock handed over by another thread. */
static int
lock_handed(struct dctx *x, const struct vertex *u)
{
	struct graph *g = x->g;
	uint32_t lock = str_id(LOCK_RULE);
	int32_t k;

	for (k = u->in; k >= 0; k = g->l[k].next_in)
		if (link_rule(&g->l[k]) == lock && link_from(&g->l[k]) != 0 &&
		    vertex_get(g, link_from(&g->l[k]))->tid != u->tid)
			return 1;
	return 0;
}

/*
 * The earlier round of a periodic wait that vertex w goes on with: the
 * same wait (call and object), which its own timer ended, and nothing
 * between but waiting again, waking nobody (a lock manager's deadlock
 * check, a timed wait in a loop); nor waiting briefly for a lock on the
 * way (the deadlock check's own, another process holding it a moment:
 * a machine under load), up to ROUND_LOCKS of them.  0 if w starts a
 * wait of its own, or did its work first (a timer's action: what the
 * timer was for).
 */
#define ROUND_LOCKS	4
uint64_t
round_before(struct dctx *x, const struct vertex *w)
{
	struct graph *g = x->g;
	const struct vertex *u = w;
	struct vertex *p;
	uint64_t prev;
	int n;

	for (n = 0; n <= ROUND_LOCKS; n++) {
		if (woke_another(x, u))
			return 0;
		if ((p = timed_out_of(g, u)) != NULL && same_wait(p, w, 1))
			return vertex_id(p);
		if (!lock_handed(x, u) || (prev = vertex_prev(g,
		    vertex_id(u))) == 0 ||
		    !brief(x, vertex_get(g, prev)))
			return 0;
		u = vertex_get(g, prev);
	}
	return 0;
}

/*
 * When the wait w's last round goes on with began: its first round's
 * begin (a sleep cut in two, Perl's sleep of a whole second and then its
 * fraction, is one sleep).
 */
uint64_t
rounds_begin(struct dctx *x, const struct vertex *w)
{
	uint64_t p;
	int r;

	for (r = 0; r < MAX_ROUNDS && (p = round_before(x, w)) != 0; r++)
		w = vertex_get(x->g, p);
	return w->begin;
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
 * The start of a round of a periodic wait (check_round()'s) that waits
 * for a lock on the way: w began at the timer that ended a long wait,
 * is brief, woke nobody, and a lock another thread handed over ended it.
 */
static int
lock_step(struct dctx *x, const struct vertex *w)
{
	struct graph *g = x->g;
	const struct vertex *p, *n;

	return brief(x, w) && !woke_another(x, w) &&
	    (n = vertex_get(g, vertex_next(g, vertex_id(w)))) != NULL &&
	    lock_handed(x, n) && (p = timed_out_of(g, w)) != NULL &&
	    (p->end - p->begin) * 4 >= x->he - x->hb;
}

/*
 * A round of a loop that polls for a child's end (wait4 with WNOHANG,
 * then a nap: Python's Popen.wait(timeout)): no progress, however short
 * its naps, until the child ends.
 */
int
reap_round(const struct vertex *w)
{
	return vertex_far(w, VF_REAP) != 0 && vertex_sleeps(w);
}

/*
 * A round of I/O: w began where an uninterruptible wait of its thread
 * ended, at the completion of a block request it waited for, or after a
 * vertex that did (a request cut in two, a page's lock on the way).  Such
 * waits in a row, however brief each, are the thread at the device's
 * pace (a slow disk, a cgroup's throttle whose kernel worker issues the
 * requests when the budget allows): one wait on it, not progress between.
 * The block link, or NULL.
 */
static const struct link *
block_in(struct graph *g, const struct vertex *w)
{
	uint32_t block = str_id(BLOCK_RULE);
	int32_t k;

	for (k = w->in; k >= 0; k = g->l[k].next_in)
		if (link_rule(&g->l[k]) == block && !link_weak(&g->l[k]))
			return &g->l[k];
	return NULL;
}

static const struct link *
io_round(struct dctx *x, const struct vertex *w)
{
	struct graph *g = x->g;
	const struct vertex *p = vertex_get(g, vertex_prev(g, vertex_id(w)));
	const struct link *l;

	if (p == NULL || p->wait != 'D')
		return NULL;
	if ((l = block_in(g, w)) != NULL)
		return l;
	return block_in(g, p);
}

/*
 * The I/O waits of vertex u's thread in the hang, if u is a round of them
 * or waits for one: how many, how long they took in all, to which device
 * (the block link's label).  0 if u is in none.
 */
int
io_rounds(struct dctx *x, uint64_t u, uint64_t *waited, const char **dev)
{
	struct graph *g = x->g;
	const struct vertex *w = vertex_get(g, u), *p;
	const struct link *l;
	uint64_t id, ran;
	int rounds = 0;

	if (io_round(x, w) == NULL && (w->wait != 'D' || (p = vertex_get(g,
	    vertex_next(g, u))) == NULL || io_round(x, p) == NULL))
		return 0;
	*waited = 0;
	for (id = vertex_at(g, w->tid, x->hb); id != 0 &&
	    (w = vertex_get(g, id))->begin < x->he; id = vertex_next(g, id)) {
		if (w->begin <= x->hb || (l = io_round(x, w)) == NULL)
			continue;
		p = vertex_get(g, vertex_prev(g, id));
		ran = p->begin + vertex_oncpu(p);
		*waited += w->begin - (ran > x->hb ? ran : x->hb);
		if (rounds++ == 0)
			*dev = str_of(link_label(l));
	}
	return rounds;
}

/*
 * What the thread was doing while the hang lasted: its vertex that
 * overlaps the hang most, if that covers at least half of it (stuck,
 * waiting or running, not doing rounds).  Not only the vertex at the
 * hang's first moment: on a loaded machine a thread woken then may wait
 * a long time for a CPU before it starts what stalls.
 *
 * Rounds of a periodic wait with no progress between are one wait: what
 * stalls is what it waits for, not the timer that checks on it (nor a
 * poll for a child's end).  Each round counts for the episode; its last
 * round is the thread now.  So are naps in a row where the work between
 * lets the waiter on (a reader that sleeps after each page it takes from
 * a writer blocked in one call: a throttle of its own).
 *
 * So are waits for I/O in a row (io_round()), each ended by the device.
 *
 * So is work cut in slices by brief waits (a GIL or a lock handed back
 * and forth with another thread, each a twentieth of the hang at most):
 * on a CPU, or wanting one, for half of the hang (on a busy machine the
 * scheduler gives it a share), it was at work through it.  Its longest
 * slice in the hang is the thread then.
 */
/*
 * Whether vertex id woke thread tid while the hang lasted: a reader that
 * let a writer blocked in one call go on a page, before its next nap.
 */
static int
woke_thread(struct dctx *x, uint64_t id, uint32_t tid)
{
	struct graph *g = x->g;
	const struct vertex *v;
	uint64_t u;
	int32_t k;

	for (u = vertex_at(g, tid, x->sb); u != 0 && (v = vertex_get(g,
	    u))->begin < x->he; u = vertex_next(g, u))
		for (k = v->in; k >= 0; k = g->l[k].next_in)
			if (link_from(&g->l[k]) == id &&
			    (link_props(&g->l[k]) & LR_WAKES))
				return 1;
	return 0;
}

uint64_t
stuck(struct dctx *x, uint32_t tid)
{
	uint64_t id, best = 0, most = 0, o, run = 0, hang = x->he - x->sb;
	uint64_t work = 0, cpu = 0, slice = 0, most_o = 0, nap = 0, nap_o = 0;
	struct vertex *w;
	int napped = 0, round;

	for (id = vertex_at(x->g, tid, x->sb); id != 0;
	    id = vertex_next(x->g, id)) {
		w = vertex_get(x->g, id);
		if (w->begin >= x->he)
			break;
		/* Exited (a zombie not yet reaped) is not stuck: it is gone. */
		if (w->wait == 'Z' || w->wait == 'X')
			continue;
		o = overlap(w, x->sb, x->he);
		round = run > 0 && (check_round(x, w) != 0 || reap_round(w) ||
		    lock_step(x, w) || (io_round(x, w) != NULL &&
		    w->wait == 'D'));
		/* Of naps in a row, the longest in the hang is the thread. */
		if (!round && run > 0 && napped && vertex_sleeps(w) &&
		    woke_thread(x, id, x->chain[x->nchain - 1])) {
			run += o;
			if (o > nap_o) {
				nap_o = o;
				nap = id;
			}
		} else {
			run = round ? run + o : o;
			nap = id;
			nap_o = o;
		}
		napped = vertex_sleeps(w);
		if (run > most) {
			most = run;
			best = round ? id : nap;
		}
		if (busy(w) || (work > 0 && 20 * (w->end - w->begin) <= hang)) {
			work += o;
			cpu += ran_within(w, x->sb, x->he);
			if (busy(w) && o > most_o) {
				most_o = o;
				slice = id;
			}
		} else
			work = cpu = most_o = 0;
		if (work > most && 2 * cpu >= work) {
			most = work;
			best = slice;
		}
	}
	return x->he > x->sb && most * 2 >= hang ? best : 0;
}

/*
 * The next thread of process pid but thread but, from place *i in
 * by_thread on, that was stuck through the hang: its stuck vertex; 0 when
 * none is left.
 */
uint64_t
stuck_thread_of(struct dctx *x, uint32_t pid, uint32_t but, uint64_t *i)
{
	const struct graph *g = x->g;
	const struct vertex *w;
	uint64_t u;

	for (; *i < g->nby; (*i)++) {
		w = &g->v[g->by_thread[*i]];
		if (w->pid != pid || w->tid == but || (*i > 0 &&
		    g->v[g->by_thread[*i - 1]].tid == w->tid))
			continue;
		if ((u = stuck(x, w->tid)) != 0) {
			(*i)++;
			return u;
		}
	}
	return 0;
}

/* The same, of another thread of v's process. */
uint64_t
stuck_sibling(struct dctx *x, const struct vertex *v, uint64_t *i)
{
	return stuck_thread_of(x, v->pid, v->tid, i);
}

/*
 * A normal wait of the same thread: the most recent earlier vertex that
 * was short, was ended by someone else, and waited the same way: in the
 * same system call on the same object (a futex's address, a descriptor)
 * if there is one, else sharing a system call.  Its waker starts the
 * baseline's wake-up path.
 */
int
same_wait(const struct vertex *v, const struct vertex *u, int exact)
{
	int a, b;

	if (exact)
		return v->last_sys != 0 && v->last_sys == u->last_sys &&
		    v->arg == u->arg;
	if (v->sys[0] == 0)
		return 1;
	for (a = 0; a < VSYSCALLS && v->sys[a] != 0; a++)
		for (b = 0; b < VSYSCALLS && u->sys[b] != 0; b++)
			if (v->sys[a] == u->sys[b])
				return 1;
	return 0;
}

/*
 * u ran the program v runs: a thread's vertices from before its exec
 * (a shell's, that became the program) are another program's waits, no
 * measure of this one's.  By name, as the vertex records have it.
 */
int
same_program(const struct vertex *v, const struct vertex *u)
{
	return vertex_comm(u) == vertex_comm(v);
}

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
		if ((link_props(l) & LR_HOLDS) && link_from(l) != 0 &&
		    strcmp(str_of(link_rule(l)), RUNTIME_RULE) == 0 &&
		    (f = vertex_get((struct graph *)g, link_from(l))) != NULL &&
		    f->tid != w->tid)
			return 1;
	}
	return 0;
}

/*
 * Its runtime's word that the vertex sleeps, into buf ("the JVM says:
 * sleeping in Thread.sleep"): 1; else 0 and buf "".
 */
int
runtime_sleep(const struct graph *g, const struct vertex *w, char *buf,
    size_t size)
{
	struct snapwait sw;
	const char *l, *sep;

	*buf = '\0';
	if (!snapshot_wait(g, w, &sw) || sw.sleeps == 0 ||
	    (sep = strstr((l = str_of(sw.sleeps)), RUNTIME_SEP)) == NULL)
		return 0;
	snprintf(buf, size, "%.*s says: %s", (int)(sep - l), l,
	    sep + strlen(RUNTIME_SEP));
	return 1;
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
		if ((link_props(&g->l[k]) & LR_HOLDS) &&
		    link_from(&g->l[k]) != 0 &&
		    (u = vertex_get(g, link_from(&g->l[k]))) != NULL &&
		    u->pid != w->pid && (busy(u) || (u->wait != 0 &&
		    u->last_sys != 0 &&
		    !syscall_is_dispatch(str_of(u->last_sys)) &&
		    !syscall_is_poll(str_of(u->last_sys)))))
			return 1;
	return 0;
}

/*
 * A poll or select after a call that waits for whoever comes, an accept
 * most often, in the same vertex: a listener back in its loop (socat's,
 * inetd's, a forking server's) between connections, which the snapshot,
 * where there is one, names as clients.
 */
static int
listens(const struct vertex *w)
{
	int i;

	for (i = 0; i < VSYSCALLS && w->sys[i] != 0; i++)
		if (w->sys[i] != w->last_sys &&
		    syscall_is_dispatch(str_of(w->sys[i])) &&
		    !syscall_is_poll(str_of(w->sys[i])))
			return 1;
	return 0;
}

/*
 * Whom a thread's vertices from first to last reaped last (wait4's pid,
 * plus 1: VF_REAP); 0 if none did.
 */
uint64_t
reaped_in(struct graph *g, uint64_t first, uint64_t last)
{
	const struct vertex *w;
	uint64_t id, asked = 0;

	for (id = first; id != 0; id = vertex_next(g, id)) {
		if ((w = vertex_get(g, id)) != NULL &&
		    vertex_far(w, VF_REAP) != 0)
			asked = vertex_far(w, VF_REAP);
		if (id == last)
			break;
	}
	return asked;
}

/*
 * One of a pool's idle workers: in a futex wait that is no lock's, on the
 * address another thread of its process waits on too, through the hang
 * (libuv's pool, a JVM's compiler or GC threads, consumers of one empty
 * queue).  They wait for work to come, whoever brings it: not for one
 * party, and not a culprit of anyone's wait.
 */
static int
idle_worker(struct dctx *x, const struct vertex *w)
{
	const struct vertex *s;
	uint64_t i = 0, u;

	if (w->lock || w->last_sys == 0 || w->arg == 0 ||
	    strncmp(str_of(w->last_sys), "futex", 5) != 0 ||
	    stuck(x, w->tid) != vertex_id(w))
		return 0;
	while ((u = stuck_sibling(x, w, &i)) != 0) {
		s = vertex_get(x->g, u);
		if (!s->lock && s->last_sys == w->last_sys && s->arg == w->arg)
			return 1;
	}
	return 0;
}

enum tstate
state_of(struct dctx *x, const struct vertex *w)
{
	const struct graph *g = x->g;
	const char *sys = str_of(w->last_sys);
	struct snapwait sw;
	int snap = snapshot_wait(g, w, &sw);

	if (w->wait == 'T' || w->wait == 't' || (snap && sw.stop != 0))
		return TS_STOPPED;
	/*
	 * A brief round of a poll for a child's end that the cut caught
	 * just as it went to its nap is the poll's wait, not work.
	 */
	if (busy(w) && !(reap_round(w) && brief(x, w)))
		return TS_WORK;
	/* TASK_IDLE: a kernel thread with no work queued for it. */
	if (w->wait == 'I')
		return TS_DISPATCH;
	if (runtime_holds(g, w))
		return TS_WAIT;
	/* Its runtime says it sleeps (Thread.sleep parks on a timed futex). */
	if (snap && sw.sleeps != 0)
		return TS_SLEEP;
	/* A nap between polls for a child's end waits for the child. */
	if (vertex_sleeps(w))
		return reap_round(w) ? TS_WAIT : TS_SLEEP;
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
	if (w->last_sys != 0 && (syscall_is_dispatch(sys) ||
	    (syscall_is_poll(sys) && listens(w))))
		return TS_DISPATCH;
	if (idle_worker(x, w))
		return TS_DISPATCH;
	return TS_WAIT;
}

/*
 * A signal that may kill: not one whose default is to be ignored, which
 * a process gets in the normal course (SIGCHLD from a child that ended,
 * a shell's wait4 woken by it, then the shell's own exit).
 */
int
a_kill(const struct link *l)
{
	static const char *const benign[] = { "SIGCHLD", "SIGCONT",
	    "SIGWINCH", "SIGURG", NULL };
	const char *sig = str_of(link_label(l));
	int i;

	if (strcmp(str_of(link_rule(l)), SIGNAL_RULE) != 0 || link_weak(l))
		return 0;
	for (i = 0; benign[i] != NULL; i++)
		if (strcmp(sig, benign[i]) == 0)
			return 0;
	return 1;
}

/*
 * The thread of vertex f dies there: f is its exit, or, making no system
 * call, is followed only by its exit (a killed thread whose exit had to
 * wait for a CPU or a lock on the way out).
 */
int
dies(struct graph *g, const struct vertex *f)
{
	struct vertex *n;

	if (f == NULL)
		return 0;
	/*
	 * Its exit, or its last switch as a zombie: what it did on the way
	 * out after its exit (closing its files) is a vertex of its own.
	 */
	if (strcmp(str_of(vertex_ended(f)), VE_EXIT) == 0 || f->wait == 'Z' ||
	    f->wait == 'X')
		return 1;
	return f->sys[0] == 0 && (n = vertex_get(g, vertex_next(g,
	    vertex_id(f)))) != NULL && n->sys[0] == 0 &&
	    strcmp(str_of(vertex_ended(n)), VE_EXIT) == 0;
}

/*
 * Link l's wake-up came from its waker's death: its vertex dies, and not
 * by what it did before its exit (a write, opening a FIFO, a notify), which
 * comes before the exit event that ends that vertex; its files close, and
 * a join's or a parent's wait ends, after it, in every kernel.
 */
int
woke_by_death(struct graph *g, const struct link *l)
{
	const struct vertex *f = vertex_get(g, link_from(l));

	return dies(g, f) && (strcmp(str_of(vertex_ended(f)), VE_EXIT) != 0 ||
	    link_time(l) >= f->end);
}

/* The last vertex of thread tid, or 0. */
uint64_t
last_vertex(struct graph *g, uint32_t tid)
{
	uint64_t id, last = 0;

	for (id = vertex_at(g, tid, 0); id != 0; id = vertex_next(g, id))
		last = id;
	return last;
}

/* Thread tid had died by time t: its last vertex, over by then, its exit. */
int
died_by(struct graph *g, uint32_t tid, uint64_t t)
{
	uint64_t last;

	if (vertex_at(g, tid, t) != 0)
		return 0;
	return (last = last_vertex(g, tid)) != 0 &&
	    dies(g, vertex_get(g, last));
}

/*
 * The signal that ended vertex f's wait, l, killed its thread: it died
 * next, and the wait was not for that signal (a sigwait's, taken as
 * data, after which the thread may well end on its own), nor did its
 * process tell its parent, as it ended, that it exited by itself (a
 * signalfd's read: only the kernel's notice tells it from a kill).
 */
int
killed_by(struct graph *g, const struct vertex *f, const struct link *l)
{
	const struct vertex *n = vertex_get(g, vertex_next(g, vertex_id(f)));
	const struct vertex *m;

	if (link_from(l) == 0 || !a_kill(l) || (f->last_sys != 0 &&
	    syscall_is_sigwait(str_of(f->last_sys))) || !dies(g, n))
		return 0;
	/* dies(): its exit is n, or the vertex after it. */
	m = vertex_get(g, vertex_next(g, vertex_id(n)));
	return !n->exits_itself && (m == NULL || !m->exits_itself);
}

/* Vertex f ended blocked, and a kill ended that wait: its thread died. */
int
killed_in_wait(struct graph *g, const struct vertex *f)
{
	struct link *l;

	return f->wait != 0 && f->wait != 'Z' && f->wait != 'X' &&
	    link_into_next(g, vertex_id(f), &l) && killed_by(g, f, l);
}
