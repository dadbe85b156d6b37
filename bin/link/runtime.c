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

struct rwait {
	uint32_t	 pid, tid;
	char		*object;
};

struct rholder {
	uint32_t	 pid, tid;
	char		*object;
	char		 label[64];
};

static struct rwait	*waits;
static struct rholder	*holders;
static size_t		 nwaits, nholders;
static uint64_t		 snap_time = NO_TIME;

static void
join(struct link_rule *self)
{
	struct lthread *waiter, *ht;
	struct cause c;
	size_t i, j;

	for (i = 0; i < nwaits; i++) {
		waiter = lthread_get(waits[i].tid, waits[i].pid);
		if (waiter->vertex == 0)
			continue;
		for (j = 0; j < nholders; j++) {
			if (strcmp(holders[j].object, waits[i].object) != 0)
				continue;
			ht = lthread_get(holders[j].tid, holders[j].pid);
			if (ht->vertex == 0 || ht->tid == waiter->tid)
				continue;
			memset(&c, 0, sizeof(c));
			c.vertex = ht->vertex;
			c.pid = ht->pid;
			c.tid = ht->tid;
			c.time = snap_time;
			cause_name(&c, self);
			cause_label(&c, holders[j].label);
			link_emit(snap_time, waiter->pid, waiter->tid,
			    waiter->vertex, &c);
		}
	}
	for (i = 0; i < nwaits; i++)
		free(waits[i].object);
	for (i = 0; i < nholders; i++)
		free(holders[i].object);
	nwaits = nholders = 0;
	snap_time = NO_TIME;
}

static void
next(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	(void)ev;
	(void)t;
	if (snap_time != NO_TIME)
		join(self);
}

static void
record(struct link_rule *self, const struct record *rec)
{
	struct wait_rec w;
	struct holder_rec h;
	struct rholder *r;

	if (wait_parse(rec, &w)) {
		if (snap_time != NO_TIME && w.time != snap_time)
			join(self);
		if (*w.object == '\0')
			return;
		snap_time = w.time;
		link_next(self);
		waits = xrealloc(waits, (nwaits + 1) * sizeof(*waits));
		waits[nwaits++] = (struct rwait){ w.pid, w.tid,
		    xstrdup(w.object) };
	} else if (holder_parse(rec, &h) && h.rel == WR_RUNTIME) {
		if (snap_time != NO_TIME && h.time != snap_time)
			join(self);
		/* A runtime names a thread, or it said nothing usable. */
		if (h.tid == 0 || observer_comm(h.comm))
			return;
		snap_time = h.time;
		link_next(self);
		holders = xrealloc(holders, (nholders + 1) * sizeof(*holders));
		r = &holders[nholders++];
		r->pid = h.pid;
		r->tid = h.tid;
		r->object = xstrdup(h.object);
		snprintf(r->label, sizeof(r->label), "%.*s" RUNTIME_SEP "%s",
		    RUNTIME_NAMELEN - 1, h.detail, h.through);
	}
}

static void
finish(struct link_rule *self, uint64_t end)
{
	(void)end;
	if (snap_time != NO_TIME)
		join(self);
}

LINK_RULE(runtime) = {
	.name = RUNTIME_RULE,
	.next = next,
	.record = record,
	.finish = finish,
};
