/*
 * A work item queued to a kernel worker links the queuing vertex to the
 * callout that executes it (argus-segment gives each callout its own
 * vertex).
 */
#include <stdio.h>
#include <stdlib.h>

#include "link.h"

struct work {
	uint64_t	 work;		/* the work_struct's address */
	struct cause	 queued;
	UT_hash_handle	 hh;
};

static struct work *works;

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct work *w;
	uint64_t ptr = event_u64(ev, 0);

	HASH_FIND(hh, works, &ptr, sizeof(ptr), w);
	if (ev->type == E_WQ_START) {
		if (w == NULL)
			return;
		link_emit(ev->time, t->pid, t->tid, ev->vertex, &w->queued);
		HASH_DEL(works, w);
		free(w);
		return;
	}
	if (w == NULL) {
		w = xcalloc(1, sizeof(*w));
		w->work = ptr;
		HASH_ADD(hh, works, work, sizeof(w->work), w);
	}
	if (!link_cause(ev, &w->queued)) {
		HASH_DEL(works, w);
		free(w);
		return;
	}
	cause_name(&w->queued, self);
	snprintf(w->queued.label, sizeof(w->queued.label), "%s",
	    event_str(ev, 1));
}

LINK_RULE(async) = {
	.name = "async",
	.types = EV(E_WQ_QUEUE) | EV(E_WQ_START),
	.see = see,
};
