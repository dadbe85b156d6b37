/*
 * RepeatedYield: a thread polling a data flag (while (!flag) { yield or
 * nap; }) makes a chain of vertices, each begun when its own timer ended
 * the nap (a timeout link into it), or holding sched_yield calls, and no
 * peer's wake-up anywhere in it: a span without progress (episode.c).
 * The naps may be of any length, growing as a backoff does; the chain,
 * taken as one episode, is long.  A loop of sched_yield calls that
 * nothing made wait is a single vertex with many.
 */
#include "spin.h"

#define YIELD_MIN	10	/* sched_yield calls that make a yield loop */

static int
claim(const struct tracked *t, size_t i, const struct spin_opts *o,
    size_t *first, size_t *last)
{
	if (!is_nap(VSUM(t, i), o)) {
		*first = *last = i;
		return 0;
	}
	chain(t, i, o, 1, first, last);
	return *first != *last || VSUM(t, i)->yields >= YIELD_MIN;
}

SPIN_CLASS(yield) = {
	.name = "RepeatedYield",
	.claim = claim,
};
