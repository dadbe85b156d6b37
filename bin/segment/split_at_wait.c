/*
 * A blocking wait ends a vertex: the thread has finished a piece of work
 * and waits for the next.  A switch-out while runnable is preemption, not
 * a wait.
 */
#include "segment.h"

static enum verdict
judge(struct heuristic *h, struct thread *t, const struct event *ev)
{
	(void)h;
	(void)t;
	return state_is_wait(event_str(ev, ECOL(E_SWITCH, STATE))) ?
	    WAIT_AFTER : KEEP;
}

SEGMENT_HEURISTIC(split_at_wait) = {
	.name = "split-at-wait",
	.types = EV(E_SWITCH),
	.judge = judge,
};
