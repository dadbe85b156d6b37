/*
 * A callout (a work item a kernel worker executes; a run loop's
 * dispatched callback, seen through the probes of patchers/glib.probes)
 * is one piece of work on someone else's behalf: it gets a vertex of its
 * own, and while it runs, no wait ends it.  A worker parked in the middle
 * of one work item (a low-priority queue drained slowly) is still doing
 * that item, and splitting it would lose the item's edges.
 */
#include "segment.h"

struct state {
	int		 depth;		/* callouts running, nested */
};

static enum verdict
judge(struct heuristic *h, struct thread *t, const struct event *ev)
{
	struct state *s = segment_state(h, t);

	switch (ev->type) {
	case E_WQ_START:
	case E_RUNLOOP_BEGIN:
		s->depth++;
		return CUT_BEFORE;
	case E_WQ_END:
	case E_RUNLOOP_END:
		if (s->depth > 0)
			s->depth--;
		return CUT_AFTER;
	case E_SWITCH:
		return s->depth > 0 ? HOLD : KEEP;
	default:
		return KEEP;
	}
}

SEGMENT_HEURISTIC(callout) = {
	.name = "callout",
	.types = EV(E_WQ_START) | EV(E_RUNLOOP_BEGIN) | EV(E_WQ_END) |
	    EV(E_RUNLOOP_END) | EV(E_SWITCH),
	.judge = judge,
	.thread_size = sizeof(struct state),
};
