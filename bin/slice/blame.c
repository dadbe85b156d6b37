/*
 * The chain of a diagnosis: a culprit added to it, or the chain closed
 * where a thread is met again (a circular wait); the culprit diagnosed in
 * turn, and the wake-up paths walked back to find one.
 */
#include <stdio.h>
#include <string.h>

#include "dctx.h"

const char *
evidence_name(enum evidence ev)
{
	return evidence_phrase(ev);
}

const char *
culprit_evidence(const struct culprit *c, char *buf, size_t size)
{
	if ((c->ev != EV_RUNTIME && c->ev != EV_GUESS) || c->says[0] == '\0')
		return evidence_name(c->ev);
	snprintf(buf, size, c->ev == EV_GUESS ? "a guess from %s" : "%s says",
	    c->says);
	return buf;
}

/*
 * A runtime's link: its LABEL is "RUNTIME: WHAT" (lib/waits.h); the
 * runtime's name into says, and WHAT returned.
 */
const char *
runtime_label(const struct link *l, char *says, size_t size)
{
	const char *label = str_of(link_label(l)), *sep;

	if (strcmp(str_of(link_rule(l)), RUNTIME_RULE) != 0 ||
	    (sep = strstr(label, RUNTIME_SEP)) == NULL)
		return NULL;
	snprintf(says, size, "%.*s", (int)(sep - label), label);
	return sep + strlen(RUNTIME_SEP);
}

struct culprit *
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
int
new_path(struct diagnosis *d, int depth)
{
	d->paths = xrealloc(d->paths, (d->npaths + 1) * sizeof(*d->paths));
	memset(&d->paths[d->npaths], 0, sizeof(d->paths[0]));
	d->paths[d->npaths].id = d->npaths + 1;
	d->paths[d->npaths].depth = depth;
	return d->npaths++;
}

/*
 * An ancestor of the hung process that waits waits for the hung one's
 * line (a shell, a build tool, a test harness), not the reverse: only a
 * strong link or the kernel makes it a culprit.
 */
int
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

/*
 * Vertex u added to the diagnosis as kind, with its evidence; NULL where
 * its thread is a culprit already, found by another path.
 */
static struct culprit *
culprit(struct dctx *x, uint64_t u, int depth, enum root_kind kind,
    const struct sclass *class, enum evidence ev, const char *why)
{
	struct culprit *c;

	if (blamed(x, vertex_get(x->g, u)->tid) != NULL)
		return NULL;
	c = add(x->d, u, depth + 1, kind, class);
	c->ev = ev;
	/* Its own: a culprit diagnosed in turn has a word of its own. */
	if ((ev == EV_RUNTIME || ev == EV_GUESS) && x->says != NULL)
		snprintf(c->says, sizeof(c->says), "%s", x->says);
	x->says = NULL;
	snprintf(c->why, sizeof(c->why), "%s", why);
	return c;
}

/* The why of a culprit the waiter woke during its wait. */
static __attribute__((noinline)) const char *
woke_it(const struct vertex *waiter, const char *why)
{
	static char buf[320];

	snprintf(buf, sizeof(buf), "%s %u woke it during this wait; %s",
	    str_of(vertex_comm(waiter)), waiter->tid, why);
	return buf;
}

/*
 * The culprit at ci a root, closed, and what was found beyond it dropped;
 * its why copied into buf, for a why of its own to end with.
 */
static struct culprit *
root_here(struct dctx *x, int ci, char *buf, size_t size)
{
	struct culprit *c;

	x->d->nc = ci + 1;
	c = &x->d->c[ci];
	c->kind = RK_ROOT;
	c->open = 0;
	snprintf(buf, size, "%s", c->why);
	return c;
}

/* A thread on the chain, by its place, or -1. */
int
on_chain(const struct dctx *x, uint32_t tid)
{
	int j;

	for (j = 0; j < x->nchain; j++)
		if (x->chain[j] == tid)
			return j;
	return -1;
}

#define CIRCLE_WHY	"waits for a thread already on the chain: a circular wait"

/*
 * The kernel says w waits on processes of the chain alone: every strong
 * link that holds (the wait-for snapshot, a file lock) into w comes from
 * one of their threads, and there is one.  Found by timing alone, w is
 * then another waiter on the chain (a second client of the server the
 * hung one waits on), not what holds it up.  Not where w waits on others
 * too (a poll set of which one member's peer is on the chain), and its
 * own process's holds say nothing: a worker thread of the hung process
 * holds what it waits on itself as much as the hung thread does.
 */
static int
waits_on_chain(struct dctx *x, const struct vertex *w)
{
	const struct vertex *h;
	const struct link *l;
	int32_t k;
	int j, n = 0;

	for (k = w->in; k >= 0; k = x->g->l[k].next_in) {
		l = &x->g->l[k];
		if (!(link_props(l) & LR_HOLDS) || link_weak(l) ||
		    link_from(l) == 0 ||
		    (h = vertex_get(x->g, link_from(l))) == NULL ||
		    h->pid == w->pid)
			continue;
		for (j = 0; j < x->nchain; j++)
			if (vertex_get(x->g, x->vx[j])->pid == h->pid)
				break;
		if (j == x->nchain)
			return 0;
		n++;
	}
	return n > 0;
}

/*
 * The culprit u on the chain while what it waits for is diagnosed in
 * turn (waits: it waits, a hop a circle may go through); what that
 * found.
 */
static int
in_turn(struct dctx *x, uint64_t u, const struct sclass *class, int waits,
    enum evidence ev, int multi, uint32_t replied, int depth)
{
	uint64_t sb;
	int found;

	x->waits[x->nchain] = waits;
	x->ev[x->nchain] = ev;
	x->multi[x->nchain] = multi;
	x->vx[x->nchain] = u;
	x->replied[x->nchain] = replied;
	x->chain[x->nchain++] = vertex_get(x->g, u)->tid;
	/*
	 * A holder named for sure that began its wait after the hang began
	 * (a launcher thread joins the program's main thread from its
	 * start, and the main thread waits only since the hang's own
	 * start): the hang was its work until then, and what it waits on
	 * need be stuck (stuck()) only since.  A wake-up's path says by
	 * itself who was on it.
	 */
	sb = x->sb;
	if (waits && ev >= EV_RUNTIME && vertex_get(x->g, u)->begin > x->sb &&
	    vertex_get(x->g, u)->begin < x->he)
		x->sb = vertex_get(x->g, u)->begin;
	found = x->diagnose_in_turn(x, u, class, depth + 1);
	x->sb = sb;
	x->nchain--;
	return found;
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
int
blame_ev(struct dctx *x, uint64_t u, const char *why, int depth, int strong,
    enum evidence ev, int multi)
{
	struct vertex *w = vertex_get(x->g, u);
	const char *comm = str_of(vertex_comm(w));
	const struct sclass *class = classify(w);
	enum tstate st = state_of(x, w);
	int held = x->held, several = multi;
	uint32_t replied = x->next_replied;

	x->held = 0;
	x->next_replied = 0;

	/*
	 * Blocked at its end until a kill (its CPU time, or the CPU it
	 * waited for on a loaded machine, came before): a wait.  Not one
	 * killed after the hang ended: its work held the chain, and the
	 * wait came after (a program's end, its processes killed).
	 */
	if (st == TS_WORK && w->end <= x->he && killed_in_wait(x->g, w)) {
		st = TS_WAIT;
		class = sclass_of_kind(HK_WAIT);
	}
	struct culprit *c;
	struct snapwait sw;
	struct link *l;
	char buf[320], what[120];
	const char *dev;
	uint64_t waited;
	int j, k, n, ci, found;

	/*
	 * A kernel thread idle through the hang (TASK_IDLE) had no work
	 * queued: whoever should have queued it is the cause, if anyone;
	 * the wake-ups it gave before name only whom it served then.
	 */
	if (observer_comm(comm) || (!strong && (kthread_comm(comm) ||
	    st == TS_DISPATCH)) || (strong < KERNEL_SAYS && st == TS_WAIT &&
	    ancestor(x, w)) || w->wait == 'I')
		return 0;
	for (j = 0; j < x->nkillers; j++)
		if (x->killers[j] == w->tid && strong < KERNEL_SAYS)
			return 0;
	/* The request it sent went there: that is the one it waits on. */
	if (x->nchain > 0 && asked(x, x->nchain - 1, w)) {
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
		 * suspect (unless all of them are on the chain now), and the
		 * victim is never the writer its own helper waits for.  The
		 * victim's hop is its hang.
		 */
		if (st == TS_WORK || (j > 0 && st != TS_WAIT))
			return 0;
		for (k = j + 1; k < x->nchain; k++)
			if (!x->waits[k])
				return 0;
		/*
		 * Nor is a poll set's member the request went to, where the
		 * set's other sources may end the wait (a relay between a
		 * connection and its child's pipes: sshd), however the hop
		 * was found: the kernel's word on the waiter's other parties
		 * stands.
		 */
		if (ev < EV_WAKEUP || ((multi || several ||
		    named(x->g, x->vx[x->nchain - 1])) &&
		    !parties_on_chain(x, x->vx[x->nchain - 1]))) {
			if (x->d->note[0] == '\0')
				snprintf(x->d->note, sizeof(x->d->note), "%s %u "
				    "may wait for %s %u, already on the chain, "
				    "but %s: no circular wait",
				    str_of(vertex_comm(vertex_get(x->g,
				    x->vx[x->nchain - 1]))),
				    x->chain[x->nchain - 1], comm, w->tid,
				    multi || several ? "only one of several "
				    "holders says so" : ev < EV_WAKEUP ? "only "
				    "a guess from timing says so" : "the kernel "
				    "names other parties of its wait too");
			return 0;
		}
		for (k = j + 1; k < x->nchain; k++)
			if (x->ev[k] < EV_WAKEUP || (x->multi[k] &&
			    !parties_on_chain(x, x->vx[k - 1])))
				return 0;
		/*
		 * Found again by another path: one circle.  Closed on a
		 * culprit, not the victim (the victim waits on a circle of
		 * others), the circle is a record of its own all the same.
		 */
		if (j > 0 && blamed(x, w->tid) != NULL) {
			c = add(x->d, u, depth + 1, RK_CYCLE, class);
			c->ev = ev;
			snprintf(c->why, sizeof(c->why), "%s", CIRCLE_WHY);
		} else
			culprit(x, u, depth, RK_CYCLE, class, ev, CIRCLE_WHY);
		return 1;
	}
	if (ev == EV_GUESS && strong < KERNEL_SAYS && waits_on_chain(x, w)) {
		if (x->d->note[0] == '\0')
			snprintf(x->d->note, sizeof(x->d->note), "%s %u was on "
			    "a path timing suggests, but the kernel says it "
			    "waits on the chain's processes alone: another "
			    "waiter, not a cause", comm, w->tid);
		return 0;
	}
	if ((c = culprit(x, u, depth, RK_CULPRIT, class, ev, why)) == NULL)
		return 1;
	c->multi = multi;
	ci = x->d->nc - 1;
	if (st == TS_STOPPED) {
		c->kind = RK_ROOT;
		not_running(x->g, w, buf, sizeof(buf));
		snprintf(c->why, sizeof(c->why), "%.130s; %.60s", buf, why);
		/*
		 * Its tracer resumes it when it chooses (gdb, once the
		 * commands of a breakpoint have run): what the tracer waits
		 * for in turn holds the chain up, as a lock's holder's does.
		 */
		if (!traced_stop(x->g, w) || depth + 1 >= MAX_DEPTH ||
		    x->nchain >= MAX_CHAIN)
			return 1;
		if (in_turn(x, u, sclass_of_kind(HK_WAIT), 0, ev, multi,
		    replied, depth))
			x->d->c[ci].kind = RK_CULPRIT;
		return 1;
	}
	if (st == TS_SLEEP) {
		c->kind = RK_ROOT;
		n = runtime_sleep(x->g, w, what, sizeof(what));
		snprintf(c->why, sizeof(c->why), "asleep on its own timer in %s "
		    "for %.1f s%s%s%s%s; %s",
		    str_of(w->last_sys), (w->end - rounds_begin(x, w)) / 1e9,
		    w->end >= x->g->last_time ? " so far" : "", n ? " (" : "",
		    what, n ? ")" : "", why);
		return 1;
	}
	/*
	 * Request after request to a block device, each waited for, for
	 * half of the hang or more: the device's pace is what the chain
	 * waits on (a slow disk, a cgroup's I/O throttle), the kernel's, not
	 * another thread's.
	 */
	if (st != TS_WORK && (n = io_rounds(x, u, &waited, &dev)) > 1 &&
	    2 * waited >= x->he - x->hb) {
		c->kind = RK_ROOT;
		snprintf(c->why, sizeof(c->why), "waited on device %s for %d "
		    "requests, %.1f s in all: the device's pace (a slow disk, "
		    "an I/O throttle); %s", dev, n, waited / 1e9, why);
		return 1;
	}
	/*
	 * A wait its own timeout ended, not a round of a periodic wait (that
	 * one is followed to what it waits for): it lasted as long as the
	 * thread chose (a timed condition wait, a server's timed sleep in
	 * its event loop, pg_sleep), whatever the call, so it ends the chain
	 * as a sleep does.  Not a brief one, a quarter of the hang at most,
	 * that the thread went on from: a round of its loop on a timer (a
	 * server's housekeeping), no account of the hang.
	 */
	if (st != TS_WORK && link_into_next(x->g, u, &l) &&
	    (link_props(l) & LR_TIMEOUT) && !reap_round(w) &&
	    (4 * (w->end - w->begin) > x->he - x->hb || w->end >= x->he)) {
		c->kind = RK_ROOT;
		if (vertex_sleeps(w) ||
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
	found = in_turn(x, u, class, st == TS_WAIT, ev, multi, replied, depth);
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
		c = root_here(x, ci, buf, sizeof(buf));
		snprintf(c->why, sizeof(c->why), "holds it across a wait with "
		    "a timeout in %s, for %.1f s%s, for no one named: asleep "
		    "with it held; %.90s", str_of(w->last_sys),
		    (w->end - w->begin) / 1e9, w->end >= x->g->last_time ?
		    " so far" : "", buf);
		return 1;
	}
	if (st == TS_WAIT && ev >= EV_RUNTIME && !multi &&
	    strncmp(str_of(w->last_sys), "futex", 5) == 0 &&
	    !(snapshot_wait(x->g, w, &sw) && sw.timed) &&
	    (!found || (guesses_beyond(x, ci) &&
	    !beyond_in(x, ci, w->pid))) && holds_request(x, w,
	    x->nchain - 1)) {
		/*
		 * The kernel names it as the other end of the hung request,
		 * which its process read, and it is parked on a futex of its
		 * own program with no timeout (a timed one waits for someone
		 * in particular), for whom nothing names: a runtime's worker
		 * (a Go M, a pool thread) with the request in hand.  What
		 * holds the answer up is inside its program; a guess beyond
		 * it into another process is no better (one into its own,
		 * a sibling that holds its lock, says more).
		 */
		c = root_here(x, ci, buf, sizeof(buf));
		snprintf(c->why, sizeof(c->why), "has the request of %s %u and "
		    "has not answered, parked in futex: what holds it up is "
		    "inside its own program (a lock, a queue, a green thread); "
		    "%.40s", str_of(vertex_comm(vertex_get(x->g,
		    x->vx[x->nchain - 1]))),
		    x->chain[x->nchain - 1], buf);
		return 1;
	}
	if (!found && st == TS_DISPATCH && (serves_request(x, w,
	    x->nchain - 1) || (!snapshot_wait(x->g, w, &sw) &&
	    holds_request(x, w, x->nchain - 1)))) {
		/*
		 * The request of the thread that waits on it came in, and
		 * its answer did not go out: it holds it, idle in its loop
		 * with nothing the kernel can name pending (a poll set's
		 * other members are other requests).  What holds the request
		 * up is inside its own program, where the kernel does not
		 * see: a lock, a queue, a goroutine, a callback.  After the
		 * hang, with no snapshot of its poll set, that the request
		 * went into it and it read is the word.
		 */
		x->d->c[ci].kind = RK_ROOT;
		snprintf(x->d->c[ci].why, sizeof(x->d->c[ci].why), "has the "
		    "request of %s %u and has not answered, idle in %s: what "
		    "holds it up is inside its own program (a lock, a queue, "
		    "a green thread); %s", str_of(vertex_comm(vertex_get(x->g,
		    x->vx[x->nchain - 1]))), x->chain[x->nchain - 1],
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
		what[0] = '\0';
		/*
		 * Blocked on someone nothing names, in a timed futex or
		 * condition wait whose timeout only bounds the wait: the chain
		 * ends here because what is known does, not because this
		 * thread is the cause.  So for a write blocked until a kill,
		 * to a reader that read none of it (last_reader() found
		 * none): who holds the other end, the trace does not say.
		 */
		if (st == TS_WAIT && w->last_sys != 0 &&
		    !syscall_is_poll(str_of(w->last_sys)) &&
		    snapshot_wait(x->g, w, &sw) && sw.timed)
			snprintf(what, sizeof(what), "waits in %s with a "
			    "timeout, for %.1f s so far, for a wake-up from "
			    "someone the kernel does not name",
			    str_of(w->last_sys), (w->end - w->begin) / 1e9);
		else if (st == TS_WAIT && w->last_sys != 0 &&
		    syscall_is_send(str_of(w->last_sys)) &&
		    killed_in_wait(x->g, w))
			snprintf(what, sizeof(what), "blocked in %s for room "
			    "%.1f s until killed, its reader unnamed",
			    str_of(w->last_sys), (w->end - w->begin) / 1e9);
		/*
		 * Or caught by the snapshot in a call whose wait the kernel
		 * names nothing of (an open of a FIFO waiting for its other
		 * end, an io_uring wait, an ioctl): someone should end it.
		 */
		else if (st == TS_WAIT && snapshot_wait(x->g, w, &sw) &&
		    sw.call != 0 && *str_of(sw.call) != '\0' &&
		    sw.objects == 0 && !sw.timed && sw.stop == 0)
			snprintf(what, sizeof(what), "blocked in %s (%s) for "
			    "%.1f s%s, on nothing the kernel names",
			    str_of(sw.call), str_of(sw.wchan),
			    (w->end - w->begin) / 1e9,
			    w->end >= x->g->last_time ? " so far" : "");
		if (what[0] != '\0') {
			x->d->c[ci].open = 1;
			snprintf(buf, sizeof(buf), "%s", x->d->c[ci].why);
			n = snprintf(x->d->c[ci].why, sizeof(x->d->c[ci].why),
			    "%s; ", what);
			snprintf(x->d->c[ci].why + n, sizeof(x->d->c[ci].why) - n,
			    "%s", buf);
		}
	}
	return 1;
}

/* A guess, unless a strong link of this very wait says more. */
int
blame(struct dctx *x, uint64_t u, const char *why, int depth, int strong)
{
	return blame_ev(x, u, why, depth, strong, EV_GUESS, 0);
}

/*
 * Each other thread of v's process stuck through the hang that suspect()
 * takes, blamed as a guess: because v's thread "waits on ..." (what).
 */
int
blame_siblings(struct dctx *x, const struct vertex *v,
    int (*suspect)(struct dctx *, const struct vertex *v,
    const struct vertex *w), const char *what, int depth)
{
	uint64_t i = 0, u;
	int found = 0;
	char why[200];

	snprintf(why, sizeof(why), "%s %u %s", str_of(vertex_comm(v)), v->tid,
	    what);
	while ((u = stuck_sibling(x, v, &i)) != 0)
		if (suspect(x, v, vertex_get(x->g, u)))
			found |= blame(x, u, why, depth, 0);
	return found;
}

/*
 * The process whose message woke the step's thread on a baseline's path:
 * where its answer came from when the wait went well.  0 if it was no
 * message, or from its own process.
 */
static uint32_t
baseline_reply(struct graph *g, const struct step *st)
{
	uint32_t message = str_id(MESSAGE_RULE), softirq = str_id(SOFTIRQ_RULE);
	const struct vertex *f, *t;

	if (st->via == NULL || link_weak(st->via) ||
	    (link_rule(st->via) != message && link_rule(st->via) != softirq) ||
	    (f = vertex_get(g, link_from(st->via))) == NULL ||
	    (t = vertex_get(g, st->vertex)) == NULL || f->pid == t->pid)
		return 0;
	return f->pid;
}

/*
 * Step st is the first vertex of hung's process, which w forked: the
 * path reaches back past its birth.
 */
static int
born_here(struct graph *g, const struct step *st, const struct vertex *w,
    uint32_t hung)
{
	const struct vertex *t = vertex_get(g, st->vertex);

	return st->via != NULL && link_rule(st->via) == str_id(FORK_RULE) &&
	    t != NULL && t->tid == hung && t->pid != w->pid;
}

/*
 * Thread tid waits on the chain itself: its last request (a strong
 * message, or a softirq its send ran) went into a process the chain
 * passes through, and no message or wake-up of that process came back to
 * it since (a snapshot's word that the process holds what this one waits
 * on is no answer, but the same wait said again).  Another client of the
 * server the chain is stuck in, waiting for its own answer: a victim
 * beside the hung one, not what the chain waits on.  It reads every link
 * (none names what went out of a vertex): asked of a stuck one alone.
 */
static int
asks_chain(struct dctx *x, uint32_t tid)
{
	struct graph *g = x->g;
	uint32_t message = str_id(MESSAGE_RULE), softirq = str_id(SOFTIRQ_RULE),
	    wakeup = str_id(WAKEUP_RULE), rule, pid = 0;
	const struct vertex *f, *t, *c;
	uint64_t i, asked = 0;
	int32_t k;
	int j;

	for (k = 0; k < g->nl; k++) {
		rule = link_rule(&g->l[k]);
		if (link_weak(&g->l[k]) || (rule != message &&
		    rule != softirq) || link_from(&g->l[k]) == 0 ||
		    link_time(&g->l[k]) <= asked ||
		    (f = vertex_get(g, link_from(&g->l[k]))) == NULL ||
		    f->tid != tid ||
		    (t = vertex_get(g, link_to(&g->l[k]))) == NULL ||
		    t->pid == f->pid)
			continue;
		for (j = 0; j < x->nchain; j++)
			if ((c = vertex_get(g, x->vx[j])) != NULL &&
			    c->pid == t->pid)
				break;
		if (j < x->nchain) {
			asked = link_time(&g->l[k]);
			pid = t->pid;
		}
	}
	if (asked == 0)
		return 0;
	for (i = vertex_at(g, tid, asked); i != 0; i = vertex_next(g, i))
		for (k = vertex_get(g, i)->in; k >= 0; k = g->l[k].next_in) {
			rule = link_rule(&g->l[k]);
			if (!link_weak(&g->l[k]) && (rule == message ||
			    rule == softirq || rule == wakeup) &&
			    link_from(&g->l[k]) != 0 &&
			    link_time(&g->l[k]) > asked &&
			    (f = vertex_get(g, link_from(&g->l[k]))) != NULL &&
			    f->pid == pid)
				return 0;
		}
	return 1;
}

/*
 * Step i's thread, which the next step's thread made (a thread or a
 * process per request: the baseline's request had its own), is gone or
 * idle now: one its maker made since, stuck through the hang, stands in
 * its place.  Its stuck vertex, or 0.  (The hung thread's own children
 * are counterparts()': the one forked as long before the wait.)
 */
static uint64_t
stand_in(struct dctx *x, const struct path *p, int i, uint32_t hung,
    const struct vertex **maker)
{
	const struct vertex *w = vertex_get(x->g, p->s[i].vertex), *m, *h, *e;
	uint32_t made[64];
	uint64_t u;
	size_t n, k;
	int j, b;

	/* Its birth on the path: its earliest vertex there, and its maker. */
	for (b = i; b + 1 < p->n && vertex_get(x->g,
	    p->s[b + 1].vertex)->tid == w->tid; b++)
		;
	if (b + 1 >= p->n || p->s[b].via == NULL ||
	    link_rule(p->s[b].via) != str_id(FORK_RULE) ||
	    (m = vertex_get(x->g, p->s[b + 1].vertex)) == NULL ||
	    m->tid == hung ||
	    (h = vertex_get(x->g, vertex_at(x->g, hung, x->hb))) == NULL)
		return 0;
	/*
	 * Only where the answer came straight from the maker's process: a
	 * relay between (a third process on the path) passes the request
	 * on, which other evidence follows.
	 */
	for (j = 0; j < i; j++)
		if ((e = vertex_get(x->g, p->s[j].vertex)) != NULL &&
		    e->pid != h->pid && e->pid != m->pid)
			return 0;
	n = made_since(x->g, m->tid, w->end, UINT64_MAX, made,
	    ARRAY_LEN(made));
	*maker = m;
	for (k = 0; k < n; k++)
		if (made[k] != w->tid && made[k] != hung &&
		    on_chain(x, made[k]) < 0 &&
		    (u = stuck(x, made[k])) != 0 && !asks_chain(x, made[k]))
			return u;
	return 0;
}

/*
 * The ancestor on the path at w, which woke the next step then, now
 * waits for its children, the hung process among them: a wait the hung
 * one cannot end while it waits on w.  A child w's thread made since w
 * began, stuck through the hang, does the waking now in its place (a
 * script that sends its signal from a subshell that sleeps first); not
 * one that waits on its own request to the chain (asks_chain()): another
 * victim.  Its stuck vertex, or 0.
 */
static uint64_t
delegate(struct dctx *x, const struct vertex *w, uint32_t hung)
{
	const struct vertex *s;
	uint32_t made[64];
	uint64_t u;
	size_t n, k;

	if ((u = stuck(x, w->tid)) == 0 ||
	    (s = vertex_get(x->g, u))->last_sys == 0 ||
	    !syscall_is_reap(str_of(s->last_sys)))
		return 0;
	/* From its vertex's start: the wake-up and the fork may share it. */
	n = made_since(x->g, w->tid, w->begin, UINT64_MAX, made,
	    ARRAY_LEN(made));
	for (k = 0; k < n; k++)
		if (made[k] != hung && on_chain(x, made[k]) < 0 &&
		    (u = stuck(x, made[k])) != 0 && !asks_chain(x, made[k]))
			return u;
	return 0;
}

/* Whether vertex w made link l while it ran, before its wait. */
static int
asked_in(const struct vertex *w, const struct link *l)
{
	return w != NULL && l != NULL && link_time(l) <= w->begin +
	    vertex_oncpu(w) + vertex_runnable(w);
}

/* Whether vertex id is one the chain waits in now. */
static int
in_chain(const struct dctx *x, uint64_t id)
{
	int j;

	for (j = 0; j < x->nchain; j++)
		if (x->vx[j] == id)
			return 1;
	return 0;
}

/*
 * An ancestor's wait u is held by a process outside the hung one's line
 * (neither the hung process, nor an ancestor or a descendant of it): a
 * tracer blocked writing its log into a slow reader's pipe, which its
 * traced child waits for.  Not a wait for a child or a signal: that one
 * is the line's own business, whoever ended it; unless the wait is for
 * one child by its pid, and that child is off the line (a driver that
 * feeds its program a terminal's input, and runs a command first).  By
 * the kernel's word (a holder it names, the pid awaited) or the wake-up
 * that ended the wait.
 */
static int
held_outside_line(struct dctx *x, uint64_t u)
{
	struct graph *g = x->g;
	const struct vertex *w = vertex_get(g, u), *h = NULL;
	uint32_t pid = vertex_get(g, x->d->c[0].vertex)->pid;
	const char *sys;
	struct link *l;
	int32_t k;

	if (w->last_sys == 0)
		return 0;
	if (syscall_is_reap(sys = str_of(w->last_sys)))
		return w->arg != 0 && w->arg < VX_BIG_ARG && w->arg != pid &&
		    process_parent(g, w->arg) == w->pid &&
		    !forked_since(g, pid, w->arg, 0);
	if (syscall_awaits_signal(sys) || syscall_is_sigwait(sys))
		return 0;
	for (k = w->in; k >= 0 && h == NULL; k = g->l[k].next_in)
		if ((link_props(&g->l[k]) & LR_HOLDS) &&
		    !link_weak(&g->l[k]) && link_from(&g->l[k]) != 0)
			h = vertex_get(g, link_from(&g->l[k]));
	if (h == NULL && link_into_next(g, u, &l) && !link_weak(l) &&
	    link_from(l) != 0)
		h = vertex_get(g, link_from(l));
	return h != NULL && h->pid != pid && h->pid != w->pid &&
	    !ancestor(x, h) && !forked_since(g, h->pid, pid, 0);
}

/*
 * The threads on path pi, each once, but the hung one: those stuck
 * through the hang are blamed.
 */
int
blame_path(struct dctx *x, int pi, uint32_t hung, const char *why, int depth,
    enum evidence ev0)
{
	struct path *p = &x->d->paths[pi];
	const struct vertex *m;
	struct vertex *w;
	uint64_t u;
	int i, j, n = p->n, found = 0, outside;
	enum evidence ev = ev0;
	char buf[200];

	for (i = 0; i < n; i++) {
		p = &x->d->paths[pi];	/* blame() may move it */
		/*
		 * A vertex the chain waits in now, which woke the path's
		 * next step while it ran, before its wait: its request (a
		 * client's call, a main thread's to its worker).  What the
		 * path holds beyond it is why it asked, not what it waits
		 * on.  (What it does at the end of its wait, a signal
		 * handler's close that breaks a circle, is no request.)
		 */
		if (i > 0 && in_chain(x, p->s[i].vertex) &&
		    asked_in(vertex_get(x->g, p->s[i].vertex), p->s[i - 1].via))
			break;
		if ((w = vertex_get(x->g, p->s[i].vertex)) == NULL ||
		    w->tid == hung)
			continue;
		for (j = 0; j < i; j++)
			if (vertex_get(x->g, p->s[j].vertex)->tid == w->tid)
				break;
		/*
		 * What an ancestor of the hung process waited for is the
		 * business of the line that started the hang: the path has
		 * nothing to blame beyond it.  But for an ancestor asleep on
		 * its own timer through the hang: a script that feeds its
		 * child (a terminal's input, a request) and sleeps first is
		 * what the child waits for, as any other thread would be.
		 * Nor for one stuck in a wait held outside the line (a tracer
		 * blocked on its log's slow reader).  And one that waits for
		 * its children now, the hung one among them, left the wake-up
		 * to a child it made then (delegate()).
		 */
		outside = j == i && ancestor(x, w) && (u = stuck(x,
		    w->tid)) != 0 && held_outside_line(x, u);
		if (j == i && ancestor(x, w) && !outside && !((u = stuck(x,
		    w->tid)) != 0 && state_of(x, vertex_get(x->g, u)) ==
		    TS_SLEEP)) {
			if ((u = delegate(x, w, hung)) != 0) {
				snprintf(buf, sizeof(buf), "made by %s %u "
				    "in or after its vertex on the path, "
				    "which waits for its children now, the "
				    "hung one among them: in its place, and "
				    "stuck through the hang",
				    str_of(vertex_comm(w)), w->tid);
				found = blame(x, u, buf, depth, 0);
				break;
			}
			if (x->d->note[0] == '\0')
				snprintf(x->d->note, sizeof(x->d->note), "the "
				    "wake-up path reaches %s %u, an ancestor of "
				    "the hung process: the line that started it",
				    str_of(vertex_comm(w)), w->pid);
			break;
		}
		/*
		 * Back through the fork that made the waiter's process lies
		 * what its parent did to start it (a listener that forks a
		 * relay per connection, idle in its accept loop since): not
		 * what the waiter waits on.
		 */
		if (i > 0 && born_here(x->g, &p->s[i - 1], w, hung))
			break;
		/*
		 * Back through an idle kernel thread's idle time lies work
		 * it did before, for whoever queued that: not this wait's.
		 */
		if (w->wait == 'I' && (p->s[i].via == NULL ||
		    link_weak(p->s[i].via)))
			break;
		/* A wake-up's path is as sure as its weakest link. */
		if (i > 0 && (p->s[i - 1].via == NULL ||
		    link_weak(p->s[i - 1].via)))
			ev = EV_GUESS;
		if (j < i)
			continue;
		if ((u = stuck(x, w->tid)) == 0) {
			if ((u = stand_in(x, p, i, hung, &m)) == 0)
				continue;
			snprintf(buf, sizeof(buf), "made by %s %u after %s %u, "
			    "the one it made for the baseline's request: "
			    "in its place, and stuck through the hang",
			    str_of(vertex_comm(m)), m->tid,
			    str_of(vertex_comm(w)), w->tid);
			if (blame(x, u, buf, depth, 0)) {
				found = 1;
				break;
			}
			continue;
		}
		/*
		 * The first step is the waker itself: as sure as the wake-up
		 * that ended the wait (a relay idle in its loop that did wake
		 * the hung thread is on the chain).
		 */
		x->next_replied = baseline_reply(x->g, &p->s[i]);
		found |= blame_ev(x, u, why, depth, outside ? KERNEL_SAYS :
		    i > 0 ? p->s[i - 1].via != NULL &&
		    !link_weak(p->s[i - 1].via) : ev0 >= EV_WAKEUP, ev, 0);
	}
	return found;
}
