/*
 * InteractiveSlicing: from a vertex, backwards along incoming links.  One
 * strong cause: follow it; among several, the one that outranks the rest
 * (best_strong()).  Several of a rank, or only weak ones: ask.  None: stop.
 * A wait that its own timer ended has no cause to follow: the thread woke
 * itself.  The walk also stops where a baseline's wake-up path comes back
 * to the vertex it started from, at a cycle, and after MAX_STEPS.
 */
#include <stdlib.h>
#include <string.h>

#include "slice.h"

/*
 * A path a person reads, and answers questions along: the paper's slices
 * are a few steps, ten or so for the longest (Table 2).  One that goes on
 * past this is going round a loop of weak links, not toward a cause.
 */
#define MAX_STEPS	64

static void
push(struct path *p, uint64_t vertex, struct link *via, const char *how)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		p->s = xrealloc(p->s, p->cap * sizeof(*p->s));
	}
	p->s[p->n].vertex = vertex;
	p->s[p->n].via = via;
	p->s[p->n].how = how;
	p->n++;
}

static int
on_path(const struct path *p, uint64_t vertex)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (p->s[i].vertex == vertex)
			return 1;
	return 0;
}

/*
 * Among several strong causes, some outrank the rest: first what the
 * kernel says the thread waits on and who holds it (a fork that began
 * the vertex, a message that came before, rank below it); then a cause
 * in another thread, since a thread does not wake itself (its own earlier
 * request, whose reply came back some other way, ranks below).  The one
 * cause of the best rank that has exactly one, and how to say it; -1.
 */
static int
outranks(struct graph *g, const struct vertex *v, const struct link *l,
    int rank)
{
	struct vertex *u;

	if (rank == 0)
		return (link_props(l) & LR_HOLDS) != 0;
	return (u = vertex_get(g, link_from(l))) == NULL || u->tid != v->tid;
}

static int
best_strong(struct graph *g, const struct vertex *v, struct link **cand,
    int n, const char **how)
{
	static const char *const says[] = { "kernel", "strong" };
	int rank, i, pick;

	for (rank = 0; rank < (int)ARRAY_LEN(says); rank++) {
		for (i = 0, pick = -1; i < n && pick != -2; i++)
			if (!link_weak(cand[i]) &&
			    outranks(g, v, cand[i], rank))
				pick = pick == -1 ? i : -2;
		if (pick >= 0) {
			*how = says[rank];
			return pick;
		}
	}
	return -1;
}

static uint64_t walk_ns;

uint64_t
walk_time(void)
{
	return walk_ns;
}

static void walk1(struct graph *, uint64_t, uint64_t, int, struct path *);

/* Timed, for the report: a step must be quick whatever the graph's size. */
void
walk(struct graph *g, uint64_t from, uint64_t stop_at, int interactive,
    struct path *p)
{
	uint64_t t0 = now_ns();

	walk1(g, from, stop_at, interactive, p);
	walk_ns += now_ns() - t0;
}

static void
walk1(struct graph *g, uint64_t from, uint64_t stop_at, int interactive,
    struct path *p)
{
	static struct link **cand;
	static int cap;
	struct link *via;
	struct vertex *v;
	const char *how;
	uint64_t cur = from;
	int32_t k;
	int n, nstrong, strong, pick, j;

	p->n = 0;
	p->baseline = stop_at != 0;
	while ((v = vertex_get(g, cur)) != NULL) {
		if (p->n == MAX_STEPS) {
			push(p, cur, NULL, "limit");
			return;
		}
		if (cur == stop_at && p->n > 0) {
			push(p, cur, NULL, "baseline");
			return;
		}
		n = nstrong = 0;
		strong = -1;
		for (k = v->in; k >= 0; k = g->l[k].next_in) {
			if (link_from(&g->l[k]) == 0)
				continue;	/* from an idle CPU: nothing to follow */
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				cand = xrealloc(cand, cap * sizeof(*cand));
			}
			/*
			 * A cause once, by its strongest link: two rules that
			 * name the same vertex are no choice.
			 */
			for (j = 0; j < n &&
			    cand[j]->from_at != g->l[k].from_at; j++)
				;
			if (j < n) {
				if (link_weak(cand[j]) &&
				    !link_weak(&g->l[k])) {
					cand[j] = &g->l[k];
					nstrong++;
					strong = j;
				}
				continue;
			}
			if (!link_weak(&g->l[k])) {
				nstrong++;
				strong = n;
			}
			cand[n++] = &g->l[k];
		}
		if (n == 0) {
			push(p, cur, NULL, "end");
			return;
		}
		/* Ambiguous only where no cause outranks the others. */
		pick = -1;
		if (nstrong == 1) {
			pick = strong;
			how = "strong";
		} else if (nstrong > 1)
			pick = best_strong(g, v, cand, n, &how);
		if (pick < 0 && interactive)
			pick = ask_link(g, cur, cand, n, &how);
		else if (pick < 0) {
			pick = most_recent_link(g, cur, cand, n);
			how = pick < 0 ? "untouched" : "auto";
		}
		if (pick < 0) {
			push(p, cur, NULL, how);
			return;
		}
		via = cand[pick];
		if (link_props(via) & LR_TIMEOUT) {
			push(p, cur, NULL, "timeout");
			return;
		}
		push(p, cur, via, how);
		if (on_path(p, link_from(via))) {
			push(p, link_from(via), NULL, "cycle");
			return;
		}
		cur = link_from(via);
	}
}
