/*
 * A callout (a work item a kernel worker executes; a run loop's
 * dispatched callback, seen through the probes of patchers/glib.probes)
 * is one piece of work on someone else's behalf: it gets a vertex of its
 * own, and while it runs, waits do not split it.
 */
#include "segment.h"

static enum verdict
judge(struct thread *t, const struct event *ev)
{
	switch (ev->type) {
	case E_WQ_START:
	case E_RUNLOOP_BEGIN:
		t->callout_level++;
		return CUT_BEFORE;
	case E_WQ_END:
	case E_RUNLOOP_END:
		if (t->callout_level > 0)
			t->callout_level--;
		return CUT_AFTER;
	default:
		return KEEP;
	}
}

struct heuristic callout = {
	"callout",
	"give each work item its own vertex; no wait splits it",
	judge, 0, 0,
};
