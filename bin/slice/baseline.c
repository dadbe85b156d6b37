/*
 * The normal waits a hang is compared with: the thread's own earlier
 * wait of the same kind, or the baseline argus-similar ranked.
 */

#include "dctx.h"

uint64_t
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
			    !same_program(v, u) || !same_wait(v, u, exact))
				continue;
			if (!link_into_next(g, vertex_id(u), &l) ||
			    link_from(l) == 0 || (link_props(l) & LR_TIMEOUT))
				continue;
			*waker = link_from(l);
			return vertex_id(u);
		}
	return 0;
}

/* The baseline argus-similar ranked RANK for this spin. */
uint64_t
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
