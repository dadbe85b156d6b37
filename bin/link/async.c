/*
 * A work item queued to a kernel worker links the queuing vertex to the
 * callout that executes it (argus-segment gives each callout its own
 * vertex).
 */
#include "link.h"

static struct pending *works;	/* by the work_struct's address */
_Static_assert(ECOL_SAME(E_WQ_QUEUE, E_WQ_START, WORK),
    "queue and start name the work item in one column");

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	uint64_t work = event_u64(ev, ECOL(E_WQ_QUEUE, WORK));
	struct cause c;

	if (ev->type == E_WQ_START) {
		if (pending_take(&works, &work, sizeof(work), &c))
			link_emit(ev->time, t->pid, t->tid, ev->vertex, &c);
		return;
	}
	if (!link_cause(ev, &c)) {
		pending_take(&works, &work, sizeof(work), NULL);
		return;
	}
	cause_name(&c, self);
	cause_func(&c, ev);
	pending_put(&works, &work, sizeof(work), &c);
}

LINK_RULE(async) = {
	.name = ASYNC_RULE,
	.types = EV(E_WQ_QUEUE) | EV(E_WQ_START),
	.see = see,
};
