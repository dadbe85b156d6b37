/*
 * LongRunning: what no other class claims.  Busy on a CPU for most of
 * the vertex, or wanting one: preempted, runnable, never blocked for
 * most of it.  Asked last.
 */
#include "spin.h"

/*
 * Vertices a and a + 1 of a thread starved of a CPU, split only by its
 * own short waits (a poll's nap whose wake-up then waited for the CPU),
 * with nothing taken in after: one hang, as long as the starving lasts.
 */
static int
starved_on(const struct tracked *t, size_t a, const struct spin_opts *o)
{
	const struct vsum *x = VSUM(t, a), *y = VSUM(t, a + 1);

	return starved(x, o) && starved(y, o) && x->blocked < o->poll_max &&
	    y->reads == 0;
}

static int
claim(const struct tracked *t, size_t i, const struct spin_opts *o,
    size_t *first, size_t *last)
{
	*first = *last = i;
	while (*first > 0 && starved_on(t, *first - 1, o))
		(*first)--;
	while (*last + 1 < t->vv.n && starved_on(t, *last, o))
		(*last)++;
	return 1;
}

SPIN_CLASS(running) = {
	.name = "LongRunning",
	.claim = claim,
};
