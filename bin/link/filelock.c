/*
 * File locks as they happen (the kernel's filelock tracepoints): a request
 * that must sleep, or is refused because another owner holds a
 * conflicting lock, is linked from the vertex where that owner took its
 * lock.  A program polling a lock with F_SETLK and napping between tries
 * then points at the holder at every try, and one blocked in F_SETLKW or
 * flock(2) at the holder before it is woken: the kernel says who holds
 * what, so the link is strong.  Locks taken before the capture began are
 * not known here; the wait-for snapshot names their holders.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"

#define RET_SLEEPS	1	/* FILE_LOCK_DEFERRED: it waits for the blocker */
#define RET_REFUSED	(-11)	/* -EAGAIN: a conflict, and no waiting */

struct held {
	uint64_t	 owner, start, end;
	int		 write;
	struct cause	 taken;		/* where the owner took it */
	struct held	*next;
};

struct file {
	char		 key[40];	/* "DEV:INODE" */
	struct held	*held;
	UT_hash_handle	 hh;
};

/* What a thread was last linked from, so that a retry adds nothing. */
struct state {
	uint64_t	 to, from;
};

static struct file *files;

static struct file *
file_get(const struct event *ev)
{
	struct file *f;
	char key[40];

	snprintf(key, sizeof(key), "%s:%s", event_str(ev, FILELOCK_COL(DEV)),
	    event_str(ev, FILELOCK_COL(INODE)));
	HASH_FIND_STR(files, key, f);
	if (f == NULL) {
		f = xcalloc(1, sizeof(*f));
		memcpy(f->key, key, sizeof(key));
		HASH_ADD_STR(files, key, f);
	}
	return f;
}

static void
drop(struct file *f, uint64_t owner)
{
	struct held **h = &f->held, *x;

	while ((x = *h) != NULL) {
		if (x->owner == owner) {
			*h = x->next;
			free(x);
		} else
			h = &x->next;
	}
}

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct state *s = link_thread(self, t);
	const char *lock = event_str(ev, FILELOCK_COL(LOCK));
	uint64_t owner = event_u64(ev, FILELOCK_COL(OWNER));
	uint64_t start = event_u64(ev, FILELOCK_COL(START));
	uint64_t end = event_u64(ev, FILELOCK_COL(END));
	int64_t ret = event_i64(ev, FILELOCK_COL(RET));
	int write = strcmp(lock, "write") == 0;
	struct file *f = file_get(ev);
	struct held *h;

	if (ret == 0 && strcmp(lock, "unlock") == 0) {
		drop(f, owner);
		return;
	}
	if (ret == 0) {
		drop(f, owner);
		h = xcalloc(1, sizeof(*h));
		h->owner = owner;
		h->start = start;
		h->end = end;
		h->write = write;
		link_cause(ev, &h->taken);
		h->next = f->held;
		f->held = h;
		return;
	}
	if ((ret != RET_SLEEPS && ret != RET_REFUSED) || ev->ctx != '-')
		return;
	for (h = f->held; h != NULL; h = h->next) {
		if (h->owner == owner || (!h->write && !write) ||
		    h->end < start || end < h->start || h->taken.vertex == 0)
			continue;
		if (s->to == ev->vertex && s->from == h->taken.vertex)
			continue;
		s->to = ev->vertex;
		s->from = h->taken.vertex;
		h->taken.rule = NULL;
		cause_name(&h->taken, self);
		snprintf(h->taken.label, sizeof(h->taken.label), "%.31s", f->key);
		link_emit(ev->time, ev->pid, ev->tid, ev->vertex, &h->taken);
	}
}

LINK_RULE(filelock) = {
	.name = FILELOCK_RULE,
	.types = EV(E_FLOCK_LOCK) | EV(E_POSIX_LOCK) | EV(E_POSIX_REMOVE),
	.see = see,
	.thread_size = sizeof(struct state),
};
