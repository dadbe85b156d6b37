/*
 * RepeatedYield: a thread polling a data flag (while (!flag) { yield or
 * nap; }) makes a chain of short vertices, each begun when its own timer
 * ended the nap (a `timeout' link into it), or holding sched_yield calls,
 * and no peer's wake-up anywhere in it.  Each vertex is short (under
 * poll_max); the chain, taken as one episode, is long.
 */
#include <string.h>

#include "spin.h"

static int
is_short(const struct vsum *v, uint64_t poll_max)
{
	return v->recorded && v->end - v->begin < poll_max;
}

/* Whether vertex i and the next belong to one polling chain. */
int
chain_joined(const struct tracked *t, size_t i, uint64_t poll_max)
{
	const struct vsum *a = &t->v[i], *b;

	if (i + 1 >= t->nv)
		return 0;
	b = &t->v[i + 1];
	if (!is_short(a, poll_max) || !is_short(b, poll_max))
		return 0;
	if (b->woke && strcmp(b->wake_rule, "timeout") == 0)
		return 1;
	/* A yield, and nobody woke the thread into the next vertex. */
	return a->yields > 0 && !b->woke;
}

void
chain_extend(const struct tracked *t, size_t i, uint64_t poll_max,
    size_t *first, size_t *last)
{
	*first = *last = i;
	while (*first > 0 && chain_joined(t, *first - 1, poll_max))
		(*first)--;
	while (chain_joined(t, *last, poll_max))
		(*last)++;
}
