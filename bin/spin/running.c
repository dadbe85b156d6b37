/*
 * LongRunning: what no other class claims.  Busy on a CPU for most of
 * the vertex, or wanting one: preempted, runnable, never blocked for
 * most of it.  Asked last.
 */
#include "spin.h"

static int
claim(const struct tracked *t, size_t i, const struct spin_opts *o,
    size_t *first, size_t *last)
{
	(void)t;
	(void)o;
	*first = *last = i;
	return 1;
}

SPIN_CLASS(running) = {
	.name = "LongRunning",
	.claim = claim,
};
