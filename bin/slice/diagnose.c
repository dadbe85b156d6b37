/*
 * Diagnose (Algorithm 1).  LongRunning: slice back to the input that
 * started the work.  RepeatedYield: only a data flag can say who should
 * have ended the loop.  LongWait: slice the baseline's wake-up path (the
 * path that ended a normal wait of the same kind), then look at what each
 * thread on it was doing when the hang began; a thread stuck through the
 * hang is a culprit, diagnosed in turn (the culprit of the culprit),
 * until a thread that is normal, or one already on the chain: a circular
 * wait.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slice.h"

#define MAX_DEPTH	8
#define MAX_CHAIN	(MAX_DEPTH + 2)

static uint64_t threshold;
static int interactive = 1;

static int diagnose_vertex(struct graph *, uint64_t, const char *, uint64_t,
    uint64_t, int, uint32_t *, int, struct diagnosis *);
static int blame(struct graph *, uint64_t, const char *, uint64_t, uint64_t,
    int, uint32_t *, int, struct diagnosis *);

static struct culprit *
add(struct diagnosis *d, uint64_t vertex, int depth, const char *kind,
    const char *class)
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
	snprintf(c->class, sizeof(c->class), "%s", class);
	return c;
}

static struct path *
new_path(struct diagnosis *d)
{
	struct path *p;

	d->paths = xrealloc(d->paths, (d->npaths + 1) * sizeof(*d->paths));
	p = &d->paths[d->npaths];
	memset(p, 0, sizeof(*p));
	p->id = ++d->npaths;
	return p;
}

static const char *
classify(const struct vertex *v)
{
	uint64_t dur = v->end - v->begin;

	return dur > 0 && v->oncpu * 2 >= dur ? "LongRunning" : "LongWait";
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
static uint64_t
stuck(struct graph *g, uint32_t tid, uint64_t hb, uint64_t he)
{
	uint64_t id, best = 0, most = 0, o;
	struct vertex *w;

	for (id = vertex_at(g, tid, hb); id != 0; id = vertex_next(g, id)) {
		w = vertex_get(g, id);
		if (w->begin >= he)
			break;
		if ((o = overlap(w, hb, he)) > most) {
			most = o;
			best = id;
		}
	}
	return he > hb && most * 2 >= he - hb ? best : 0;
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
own_baseline(struct graph *g, uint64_t id, uint64_t *waker)
{
	struct vertex *v = vertex_get(g, id), *u;
	struct link *l;
	uint64_t i;
	int exact;

	for (exact = 1; exact >= 0; exact--)
		for (i = g->nby; i-- > 0; ) {
			u = &g->v[g->by_thread[i]];
			if (u->tid != v->tid || u->begin >= v->begin ||
			    u->end - u->begin >= threshold ||
			    !same_wait(v, u, exact))
				continue;
			if (!link_into_next(g, g->by_thread[i], &l) ||
			    l->from == 0 ||
			    strcmp(str_of(l->rule), "timeout") == 0)
				continue;
			*waker = l->from;
			return g->by_thread[i];
		}
	return 0;
}

/*
 * A thread blocked on a mutex that nobody has handed over yet: taking a
 * free mutex makes no system call, so the trace cannot say who holds it.
 * The suspects are its siblings that were stuck through the hang without
 * waiting for that mutex themselves: one of them holds it.
 */
static int
lock_holders(struct graph *g, uint64_t id, uint64_t hb, uint64_t he,
    int depth, uint32_t *chain, int nchain, struct diagnosis *d)
{
	struct vertex *v = vertex_get(g, id), *w;
	uint64_t i, u;
	uint32_t last = 0;
	int found = 0;

	for (i = 0; i < g->nby; i++) {
		w = &g->v[g->by_thread[i]];
		if (w->pid != v->pid || w->tid == v->tid || w->tid == last)
			continue;
		last = w->tid;
		if ((u = stuck(g, w->tid, hb, he)) == 0)
			continue;
		w = vertex_get(g, u);
		if (w->lock && w->last_arg == v->last_arg)
			continue;	/* waits for the same mutex */
		found |= blame(g, u, "stuck through the hang, not waiting for "
		    "the mutex its sibling waits for: it may hold it", hb, he,
		    depth, chain, nchain, d);
	}
	return found;
}

/* The baseline argus-similar ranked first for this spin. */
static uint64_t
ranked_baseline(struct graph *g, uint64_t spin_vertex, uint64_t *waker)
{
	int i;

	for (i = 0; i < g->nbases; i++)
		if (g->bases[i].spin == spin_vertex && g->bases[i].rank == 1) {
			*waker = g->bases[i].waker;
			return g->bases[i].vertex;
		}
	return 0;
}



/*
 * Vertex u was stuck through the hang: a culprit, or a thread already on
 * the chain (a circular wait).  A culprit is diagnosed in turn, if the
 * user agrees; one whose diagnosis finds nothing further is a root.
 */
static int
blame(struct graph *g, uint64_t u, const char *why, uint64_t hb, uint64_t he,
    int depth, uint32_t *chain, int nchain, struct diagnosis *d)
{
	struct vertex *w = vertex_get(g, u);
	struct culprit *c;
	const char *how;
	char q[160];
	int j, ci;

	for (j = 0; j < nchain; j++)
		if (chain[j] == w->tid)
			break;
	if (j < nchain) {
		c = add(d, u, depth + 1, "cycle", classify(w));
		snprintf(c->why, sizeof(c->why), "waits for a thread already "
		    "on the chain: a circular wait");
		return 1;
	}
	c = add(d, u, depth + 1, "culprit", classify(w));
	snprintf(c->why, sizeof(c->why), "%s", why);
	ci = d->nc - 1;
	snprintf(q, sizeof(q), "Thread %u was stuck when the hang began "
	    "(vertex %llu). Diagnose it further?", w->tid, (unsigned long long)u);
	if (depth + 1 >= MAX_DEPTH || nchain >= MAX_CHAIN || !ask_yes(q, 1, &how))
		return 1;
	chain[nchain] = w->tid;
	if (!diagnose_vertex(g, u, classify(w), hb, he, depth + 1, chain,
	    nchain + 1, d))
		d->c[ci].kind = "root";
	return 1;
}

/*
 * LongWait: whose wake-up is missing, and why.  Paths and culprits are
 * kept by index: the recursion grows (and moves) both arrays.
 */
static int
long_wait(struct graph *g, uint64_t id, uint64_t hb, uint64_t he, int depth,
    uint32_t *chain, int nchain, struct diagnosis *d)
{
	struct vertex *v = vertex_get(g, id), *w;
	struct link *l;
	uint64_t waker = 0, base = 0, u;
	int i, j, pi, found = 0;

	/*
	 * A culprit asleep on a timer of its own (a sleep, not a wait with a
	 * timeout) waits for nobody: it is where the chain ends.
	 */
	if (depth > 0 && (strcmp(str_of(v->last_sys), "nanosleep") == 0 ||
	    strcmp(str_of(v->last_sys), "clock_nanosleep") == 0))
		return 0;

	/* A wait that ended by a peer shows its own wake-up path. */
	if (link_into_next(g, id, &l) && l->from != 0 &&
	    strcmp(str_of(l->rule), "timeout") != 0 &&
	    strcmp(str_of(l->rule), "order") != 0) {
		waker = l->from;
	} else if (v->lock) {
		/*
		 * Blocked on a mutex: a normal wait on it was ended by
		 * whoever held it then, not by whoever holds it now.
		 */
		return lock_holders(g, id, hb, he, depth, chain, nchain, d);
	} else {
		base = depth == 0 ? ranked_baseline(g, id, &waker) : 0;
		if (base == 0)
			base = own_baseline(g, id, &waker);
	}
	if (waker == 0)
		return 0;
	pi = new_path(d)->id - 1;
	walk(g, waker, base, interactive, &d->paths[pi]);
	for (i = 0; i < d->paths[pi].n; i++) {
		u = d->paths[pi].s[i].vertex;
		if ((w = vertex_get(g, u)) == NULL || w->tid == v->tid)
			continue;
		for (j = 0; j < i; j++)		/* each thread once */
			if (vertex_get(g, d->paths[pi].s[j].vertex)->tid == w->tid)
				break;
		if (j < i)
			continue;
		if ((u = stuck(g, w->tid, hb, he)) == 0)
			continue;
		found |= blame(g, u, "on the baseline's wake-up path, and "
		    "stuck through the hang", hb, he, depth, chain, nchain, d);
	}
	return found;
}

/* 1 if it found a culprit beyond this vertex. */
static int
diagnose_vertex(struct graph *g, uint64_t id, const char *class, uint64_t hb,
    uint64_t he, int depth, uint32_t *chain, int nchain, struct diagnosis *d)
{
	struct path *p;

	if (strcmp(class, "LongWait") == 0)
		return long_wait(g, id, hb, he, depth, chain, nchain, d);
	if (strcmp(class, "LongRunning") == 0) {
		/* The work itself is the cause; the slice shows its input. */
		p = new_path(d);
		walk(g, id, 0, interactive, p);
		return 0;
	}
	return 0;
}

/*
 * RepeatedYield: the thread polls a data flag, and nobody wakes a poller.
 * The flag's write that ended the loop (argus-watch, the flag rule of
 * argus-link), or, while it still loops, the write that ended an earlier,
 * normal loop: the slice back from that write is the path that should
 * have ended this one, and its threads are checked as for a LongWait.
 */
static int
repeated_yield(struct graph *g, const struct spin *s, uint32_t *chain,
    struct diagnosis *d)
{
	uint64_t ended = 0, before = 0, t_ended = 0, t_before = 0, u;
	struct vertex *to, *w;
	struct link *l;
	int32_t k;
	int pi, i, j, found = 0;

	for (k = 0; k < g->nl; k++) {
		l = &g->l[k];
		if (strcmp(str_of(l->rule), "flag") != 0 ||
		    (to = vertex_get(g, l->to)) == NULL || to->tid != s->tid)
			continue;
		if (l->from_time >= s->begin &&
		    (ended == 0 || l->from_time < t_ended)) {
			ended = l->from;
			t_ended = l->from_time;
		} else if (l->from_time < s->begin && l->from_time >= t_before) {
			before = l->from;
			t_before = l->from_time;
		}
	}
	if (ended == 0 && before == 0) {
		snprintf(d->note, sizeof(d->note), "the thread polls: only a "
		    "data flag can tell who should have ended the loop, and no "
		    "flag was traced. Find the flag the loop reads (a global "
		    "in the stack's innermost frame) and capture again with "
		    "argus-watch on it.");
		return 0;
	}
	pi = new_path(d)->id - 1;
	walk(g, ended ? ended : before, 0, interactive, &d->paths[pi]);
	for (i = 0; i < d->paths[pi].n; i++) {
		w = vertex_get(g, d->paths[pi].s[i].vertex);
		if (w == NULL || w->tid == s->tid)
			continue;
		for (j = 0; j < i; j++)
			if (vertex_get(g, d->paths[pi].s[j].vertex)->tid == w->tid)
				break;
		if (j < i || (u = stuck(g, w->tid, s->begin, s->end)) == 0)
			continue;
		found |= blame(g, u, "writes the flag the loop polls, and was "
		    "stuck through the hang", s->begin, s->end, 0, chain, 1, d);
	}
	if (!found)
		snprintf(d->note, sizeof(d->note), "the flag's writer was not "
		    "stuck through the hang: the loop itself is the finding");
	return found;
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
diagnose(struct graph *g, const struct spin *s, uint64_t thresh,
    struct diagnosis *d)
{
	struct vertex *v = vertex_get(g, s->vertex);
	struct culprit *c;
	uint32_t chain[MAX_CHAIN];
	uint64_t waker = 0;

	threshold = thresh;
	memset(d, 0, sizeof(*d));
	if (v == NULL)
		diex(EX_DATAERR, "spin record names vertex %llu, which the "
		    "stream never introduced", (unsigned long long)s->vertex);
	chain[0] = s->tid;
	c = add(d, s->vertex, 0, "victim", s->class);
	snprintf(c->why, sizeof(c->why), "%s", s->ended);
	if (strcmp(s->class, "RepeatedYield") == 0) {
		if (!repeated_yield(g, s, chain, d))
			c->kind = "root";
	} else if (!diagnose_vertex(g, s->vertex, s->class, s->begin, s->end,
	    0, chain, 1, d)) {
		c->kind = "root";
		if (strcmp(s->class, "LongWait") == 0)
			snprintf(d->note, sizeof(d->note), "no thread on the "
			    "baseline's wake-up path was stuck through the "
			    "hang: the wait itself is the finding");
	}
	/* The automatic slice of the same start, for comparison. */
	ranked_baseline(g, s->vertex, &waker);
	d->auto_steps = auto_length(g, waker ? waker : s->vertex);
}

void
diagnose_interactive(int yes)
{
	interactive = yes;
}
