/*
 * LongWait: most of the vertex in blocking waits: blocked for most of the
 * time it was off a CPU (on a CPU for less than half of it), or blocked
 * from before the trace saw it (no switch-out traced, but it ended
 * waiting).
 */
#include "spin.h"

static int
claim(const struct tracked *t, size_t i, const struct spin_opts *o,
    size_t *first, size_t *last)
{
	const struct vsum *v = VSUM(t, i);
	uint64_t dur = v->end - v->begin, off;

	(void)o;
	*first = *last = i;
	if (dur == 0 || 2 * v->oncpu >= dur)
		return 0;
	off = dur - v->oncpu;
	return 2 * v->blocked >= off || (v->blocked == 0 && v->wait[0] != '\0');
}

SPIN_CLASS(wait) = {
	.name = "LongWait",
	.claim = claim,
};
