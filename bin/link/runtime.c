/*
 * What a runtime said when the snapshot asked it (argus-waitfor(1),
 * PROVIDERS): a thread waits on an object (a wait record), and the
 * runtime it runs in names the thread that holds what it waits for behind
 * that object, a monitor, a row lock (a holder record of relation
 * runtime): the holder's vertex -> the waiting vertex, strong, labelled
 * with the runtime's name and its word for the object.  The kernel sees
 * only the waiter's futex or latch; this is the edge it cannot draw.
 * The waitsfor rule leaves these holders to this one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"
#include "waits.h"

static void	join(struct link_rule *, struct snap_wait *, struct lthread *);

static struct snapshot	snap = { .join = join, .time = NO_TIME };

/* The holders the runtime named of what w waits on -> w's vertex. */
static void
join(struct link_rule *self, struct snap_wait *w, struct lthread *waiter)
{
	const struct snap_holder *h;
	struct lthread *ht;
	struct cause c;
	size_t j;

	for (j = 0; j < snap.nholders; j++) {
		h = &snap.holders[j];
		if (strcmp(h->object, w->object) != 0)
			continue;
		ht = lthread_get(h->tid, h->pid);
		if (ht->vertex == 0 || ht->tid == waiter->tid)
			continue;
		cause_in(&c, ht, snap.time, self);
		cause_label(&c, h->label);
		link_emit(snap.time, waiter->pid, waiter->tid, waiter->vertex,
		    &c);
	}
}

static void
next(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	(void)ev;
	(void)t;
	snap_past(&snap, self, NO_TIME);
}

static void
record(struct link_rule *self, const struct record *rec)
{
	struct wait_rec w;
	struct holder_rec h;
	struct snap_holder *r;

	if (wait_parse(rec, &w)) {
		snap_past(&snap, self, w.time);
		if (*w.object != '\0')
			snap_wait(&snap, self, &w);
	} else if (holder_parse(rec, &h) && h.rel == WR_RUNTIME) {
		snap_past(&snap, self, h.time);
		/* A runtime names a thread, or it said nothing usable. */
		if (h.tid == 0 || observer_comm(h.comm))
			return;
		r = snap_holder(&snap, self, &h);
		snprintf(r->label, sizeof(r->label), "%.*s" RUNTIME_SEP "%s",
		    RUNTIME_NAMELEN - 1, h.detail, h.through);
	}
}

static void
finish(struct link_rule *self, uint64_t end)
{
	(void)end;
	snap_past(&snap, self, NO_TIME);
}

LINK_RULE(runtime) = {
	.name = RUNTIME_RULE,
	.next = next,
	.record = record,
	.kinds = { KIND_WAIT, KIND_HOLDER },
	.finish = finish,
};
