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

#include "dctx.h"

static int
by_taker(const void *a, const void *b)
{
	const struct steal *x = a, *y = b;

	return x->taker < y->taker ? -1 : x->taker > y->taker;
}

/*
 * Runnable more than on a CPU from from to to: it waited for a CPU,
 * which the scheduler gave to others (steal records), most of that time
 * to one thread busy through the hang (a real-time or heavier-weighted
 * hog on its CPU): the kernel's word, its switches.  Or to no one, its
 * CPU idle while it was runnable: the kernel held it back (a CPU quota of
 * its cgroup), said in a note.
 */
static int
cpu_taken(struct dctx *x, uint64_t id, uint64_t from, uint64_t to, int depth)
{
	struct graph *g = x->g;
	const struct vertex *v = vertex_get(g, id), *w;
	uint64_t on = 0, ready = 0, waited = 0, idle = 0, most = 0, sum, u;
	struct steal *t = NULL;
	uint32_t top = 0;
	size_t j, k, m = 0;
	char why[200];

	for (u = vertex_at(g, v->tid, from); u != 0 && (w = vertex_get(g,
	    u))->begin < to; u = vertex_next(g, u)) {
		on += vertex_oncpu(w);
		ready += vertex_runnable(w);
	}
	if (ready <= on)
		return 0;
	for (j = 0; j < g->nsteals; j++) {
		if (g->steals[j].tid != v->tid || g->steals[j].time < from ||
		    g->steals[j].time >= to)
			continue;
		waited += g->steals[j].ns;
		if (g->steals[j].taker == 0)
			idle += g->steals[j].ns;
		else if (g->steals[j].taker != STEAL_MANY) {
			t = xrealloc(t, (m + 1) * sizeof(*t));
			t[m++] = g->steals[j];
		}
	}
	if (m > 1)
		qsort(t, m, sizeof(*t), by_taker);
	for (j = 0; j < m; j = k) {
		for (sum = 0, k = j; k < m && t[k].taker == t[j].taker; k++)
			sum += t[k].ns;
		if (sum > most) {
			most = sum;
			top = t[j].taker;
		}
	}
	free(t);
	if (waited == 0)
		return 0;
	/*
	 * A CPU never idles while a thread waits to run on it: idle
	 * there, it was kept off on purpose.
	 */
	if (10 * idle >= waited) {
		snprintf(x->d->note, sizeof(x->d->note), "%s %u was runnable "
		    "%.1f s and on a CPU %.1f s, and its CPU was idle %.1f s "
		    "of that wait: the kernel held it back (a CPU quota of its "
		    "cgroup, a throttle)", str_of(vertex_comm(v)), v->tid,
		    ready / 1e9, on / 1e9, idle / 1e9);
		return 0;
	}
	/*
	 * The one that ran most must have had the CPU for most of the time
	 * the thread was runnable: a fair share among busy threads of equal
	 * weight (a loaded machine's) comes in turns of a few milliseconds,
	 * too short to be kept, and the few long ones kept say little.
	 */
	if (2 * most < waited || 2 * most < ready ||
	    (u = stuck(x, top)) == 0) {
		snprintf(x->d->note, sizeof(x->d->note), "%s %u was runnable "
		    "%.1f s and on a CPU %.1f s: its CPU went to %s (a loaded "
		    "machine)", str_of(vertex_comm(v)), v->tid, ready / 1e9,
		    on / 1e9, 2 * most < waited ? "many threads" :
		    2 * most < ready ? "other threads by turns, none long" :
		    "threads not busy through the hang");
		return 0;
	}
	snprintf(why, sizeof(why), "ran %.1f s on the CPU %s %u waited for, "
	    "runnable %.1f s and on a CPU %.1f s: the scheduler preferred it "
	    "(a higher priority or weight)", (most < waited ? most : waited) /
	    1e9, str_of(vertex_comm(v)), v->tid, ready / 1e9, on / 1e9);
	return blame_ev(x, u, why, depth, KERNEL_SAYS, EV_KERNEL, 0);
}

/*
 * Working: the work itself is the cause, and the slice shows its input;
 * unless it mostly waited for a CPU, which another thread had.
 */
static int
long_work(struct dctx *x, uint64_t id, int depth)
{
	const struct vertex *v = vertex_get(x->g, id);
	int pi;

	if (retried(x, id, depth))
		return 1;
	if (depth == 0 ? cpu_taken(x, id, x->hb, x->he, depth) :
	    cpu_taken(x, id, v->begin, v->end, depth))
		return 1;
	pi = new_path(x->d, depth);
	walk(x->g, id, 0, x->interactive, &x->d->paths[pi]);
	return 0;
}

/* Whether the kernel names a child as what vertex id waits for. */
static int
waits_for_child(struct graph *g, uint64_t id)
{
	const struct link *l;
	int32_t k;

	for (k = vertex_get(g, id)->in; k >= 0; k = g->l[k].next_in) {
		l = &g->l[k];
		if ((link_props(l) & LR_HOLDS) &&
		    wrel_of_label(str_of(link_label(l))) == WR_CHILD)
			return 1;
	}
	return 0;
}

/* Its rounds block for a child (a shell's, on the sleep it runs). */
static int
naps_on_children(struct graph *g, const struct spin_rec *s)
{
	const struct vertex *w;
	uint64_t id;

	for (id = s->vertex; id != 0; id = vertex_next(g, id)) {
		if ((w = vertex_get(g, id)) != NULL && w->last_sys != 0 &&
		    syscall_is_reap(str_of(w->last_sys)))
			return 1;
		if (id == s->last)
			break;
	}
	return 0;
}


/*
 * Polling: nobody wakes a poller.  The flag's write that ended the loop
 * (argus-watch, the flag rule of argus-link) or the listen its refused
 * connects waited for (the refused rule), or, while it still loops, the
 * one that ended an earlier, normal loop: the slice back from it is the
 * path that should have ended this one, and its threads are checked as
 * for a wait.
 */
static int
repeated_yield(struct dctx *x, const struct spin_rec *s)
{
	uint64_t ended = 0, before = 0, t_ended = 0, t_before = 0, id;
	struct graph *g = x->g;
	struct link *l, *by = NULL, *prior = NULL;
	struct vertex *to;
	char why[200];
	int32_t k;
	int pi, found = 0, refused, naps;

	/*
	 * A loop that polls what the kernel can name (a file lock it tries
	 * with F_SETLK between naps) points at the holder at each try.  Not
	 * a shell's loop at its children: its tries and its naps are the
	 * children it waits for, and the one a snapshot finds is no cause.
	 */
	naps = naps_on_children(g, s);
	for (id = s->vertex; id != 0; id = vertex_next(g, id)) {
		if (!naps || !waits_for_child(g, id))
			found |= holders(x, id, 0) > 0;
		/* Or tries a call that fails at once, between its naps. */
		if (!found)
			found = retried(x, id, 0);
		if (id == s->last)
			break;
	}
	if (found || polls_child(x, vertex_get(g, s->vertex),
	    reaped_in(g, s->vertex, s->last), 0))
		return 1;
	for (k = 0; k < g->nl; k++) {
		l = &g->l[k];
		if (!(link_props(l) & LR_FLAG) ||
		    (to = vertex_get(g, link_to(l))) == NULL ||
		    to->tid != s->tid)
			continue;
		if (link_time(l) >= s->begin &&
		    (ended == 0 || link_time(l) < t_ended)) {
			ended = link_from(l);
			t_ended = link_time(l);
			by = l;
		} else if (link_time(l) < s->begin &&
		    link_time(l) >= t_before) {
			before = link_from(l);
			t_before = link_time(l);
			prior = l;
		}
	}
	if (by == NULL)
		by = prior;
	if (ended == 0 && before == 0) {
		if (loop_counterpart(x, s->vertex, 0) || shared_mappers(x, s))
			return 1;
		/*
		 * A loop whose naps are children that sleep (a shell's)
		 * tests what no flag holds: a file, a command's success.
		 */
		snprintf(x->d->note, sizeof(x->d->note), "%s",
		    naps_on_children(g, s) ?
		    "the process polls, a child's sleep between its tries (a "
		    "shell's loop): what it tests (a file, a command's success) "
		    "is not traced, nor who should have made it so. Its script "
		    "says what it waits for." :
		    "the thread polls: only a data flag can tell who should "
		    "have ended the loop, and no flag was traced. Find the flag "
		    "the loop reads (a global in the stack's innermost frame) "
		    "and capture again with argus-watch on it.");
		return 0;
	}
	/* A listen the loop's connects waited for, or a flag's write. */
	refused = link_rule(by) == str_id(REFUSED_RULE);
	if (refused)
		snprintf(why, sizeof(why), ended ? "listens on %s, which "
		    "refused the loop's connects until it did at +%.3f s, and "
		    "was stuck through the hang" : "listened on %s at +%.3f s, "
		    "which refuses the loop's connects now, and was stuck "
		    "through the hang", str_of(link_label(by)),
		    (link_time(by) - g->first_time) / 1e9);
	else
		snprintf(why, sizeof(why), "writes the flag the loop polls, "
		    "and was stuck through the hang");
	pi = new_path(x->d, 0);
	walk(g, ended ? ended : before, 0, x->interactive, &x->d->paths[pi]);
	if (blame_path(x, pi, s->tid, why, 0, ended ? EV_WAKEUP : EV_GUESS))
		return 1;
	/*
	 * Nobody listens yet, or the one that did at last was not stuck (an
	 * operator's): the one that should have, by the last before.
	 */
	if (prior != NULL && link_weak(prior) &&
	    link_rule(prior) == str_id(REFUSED_RULE) &&
	    listener_counterpart(x, s->vertex, prior, 0))
		return 1;
	snprintf(x->d->note, sizeof(x->d->note), "the %s was not stuck "
	    "through the hang: the loop itself is the finding",
	    refused ? "listener" : "flag's writer");
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

/*
 * The hung thread asleep on a timer of its own and nothing else: a sleep
 * call, or a poll whose set the snapshot shows to be timers only.  Not a
 * poll of a pipe with a timeout: its writer is what it waits for, and its
 * timeout only bounds how long.
 */
static int
own_timer_only(struct dctx *x, const struct vertex *w, uint64_t *due)
{
	struct snapwait sw;
	int snap = snapshot_wait(x->g, w, &sw);

	*due = snap && sw.deadline != NO_TIME &&
	    sw.deadline > x->g->snap_time ? sw.deadline - x->g->snap_time : 0;
	if (state_of(x, w) != TS_SLEEP)
		return 0;
	return vertex_sleeps(w) ||
	    (snap && (sw.objects == sw.timers || sw.sleeps != 0));
}

/*
 * The wait ended when a timerfd the thread had armed itself fired (an
 * event loop's back-off, a deadline of its own): the wait was as long as
 * it chose, whatever else its set held.
 */
static int
own_timerfd_ended(struct graph *g, const struct vertex *w)
{
	const struct vertex *f;
	struct link *l;

	return link_into_next(g, vertex_id(w), &l) &&
	    (link_props(l) & LR_TIMEOUT) && link_from(l) != 0 &&
	    (f = vertex_get(g, link_from(l))) != NULL && f->tid == w->tid &&
	    strcmp(str_of(link_label(l)), TIMERFD_FIRES) == 0;
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
	    .interactive = interactive, .hb = s->begin, .sb = s->begin,
	    .he = s->end,
	    .chain = { s->tid }, .waits = { 1 }, .ev = { EV_KERNEL },
	    .vx = { s->last != 0 && vertex_get(g, s->last) != NULL ?
	    s->last : s->vertex }, .spin = s->vertex, .nchain = 1,
	    .diagnose_in_turn = diagnose_vertex };
	struct culprit *c;
	struct vertex *v, *w;
	uint64_t waker = 0, due;
	char due_in[32];
	int found, i;

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
		w = vertex_get(g, x.vx[0]);
		if (s->class->kind == HK_WAIT && own_timer_only(&x, w, &due)) {
			/*
			 * Asleep on its own timer (a sleep call, a poll set
			 * of nothing but a timer it armed): it waits as long
			 * as it chose to, and that is the answer.
			 */
			snprintf(due_in, sizeof(due_in), ", due in %.1f s",
			    due / 1e9);
			snprintf(d->note, sizeof(d->note), "%s %u is asleep on "
			    "its own timer in %s, %.1f s%s%s: nothing else "
			    "holds it up", str_of(vertex_comm(w)), w->tid,
			    str_of(w->last_sys), (w->end - s->begin) / 1e9,
			    w->end >= g->last_time ? " so far" : "",
			    due ? due_in : "");
			found = 1;
		} else if (s->class->kind == HK_WAIT &&
		    own_timerfd_ended(g, w)) {
			snprintf(d->note, sizeof(d->note), "%s %u waited %.1f s "
			    "in %s until a timerfd it had armed fired: a wait on "
			    "a timer of its own (a back-off, a deadline), and "
			    "nothing traced held it up beyond it",
			    str_of(vertex_comm(w)), w->tid,
			    (w->end - s->begin) / 1e9, str_of(w->last_sys));
			found = 1;
		} else if (s->class->kind == HK_WAIT &&
		    reads_terminal(g, v->tid))
			snprintf(d->note, sizeof(d->note), "no hang: %s %u "
			    "waits for input from its terminal, that is for "
			    "a person", str_of(vertex_comm(v)), v->tid);
		else if (s->class->kind == HK_WAIT && v->last_sys != 0 &&
		    syscall_is_dispatch(str_of(v->last_sys)))
			snprintf(d->note, sizeof(d->note), "no hang: %s %u is "
			    "idle in %s, waiting for work",
			    str_of(vertex_comm(v)), v->tid,
			    str_of(v->last_sys));
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
	for (i = 0; i < x.nsent; i++)
		free(x.sent[i].pids);
	free(x.sent);
}
