/*
 * A data flag (argus-watch's flag_write and flag_read events): the vertex
 * that wrote it is linked to the first read of each other thread after
 * the write.  A thread that polls a flag is woken by nobody; the write it
 * waits for is its cause.
 */
#include <stdlib.h>
#include <string.h>

#include "link.h"

struct write {
	uint64_t	 addr;
	uint64_t	 seq;		/* writes to this address so far */
	struct cause	 by;
	UT_hash_handle	 hh;
};

/* The last write each reader was linked from, by (address, thread). */
struct reader {
	uint64_t	 key[2];
	uint64_t	 seq;
	UT_hash_handle	 hh;
};

static struct write	*writes;
static struct reader	*readers;
_Static_assert(ECOL_SAME(E_FLAG_WRITE, E_FLAG_READ, ADDRESS),
    "a write and a read name the flag in one column");

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct write *w;
	struct reader *r;
	uint64_t addr, key[2];

	if (ev->vertex == NO_VERTEX)
		return;
	addr = event_u64(ev, ECOL(E_FLAG_WRITE, ADDRESS));
	HASH_FIND(hh, writes, &addr, sizeof(addr), w);
	if (ev->type == E_FLAG_WRITE) {
		if (w == NULL) {
			w = xcalloc(1, sizeof(*w));
			w->addr = addr;
			HASH_ADD(hh, writes, addr, sizeof(w->addr), w);
		}
		link_cause(ev, &w->by);		/* in a task: its vertex */
		cause_name(&w->by, self);
		cause_label(&w->by, event_str(ev, ECOL(E_FLAG_WRITE, SYMBOL)));
		w->seq++;
		return;
	}
	if (w == NULL || w->by.tid == t->tid)
		return;
	key[0] = addr;
	key[1] = t->tid;
	HASH_FIND(hh, readers, key, sizeof(key), r);
	if (r == NULL) {
		r = xcalloc(1, sizeof(*r));
		memcpy(r->key, key, sizeof(key));
		HASH_ADD(hh, readers, key, sizeof(r->key), r);
	}
	if (r->seq == w->seq)
		return;		/* this write is linked to this reader already */
	r->seq = w->seq;
	link_emit(ev->time, t->pid, t->tid, ev->vertex, &w->by);
}

LINK_RULE(flag) = {
	.name = FLAG_RULE,
	.types = EV(E_FLAG_WRITE) | EV(E_FLAG_READ),
	.see = see,
};
