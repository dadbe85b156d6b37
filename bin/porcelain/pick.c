/*
 * argus debug --comm NAME: which thread of that name hangs.  A name is
 * shared: clients run one after another (the earlier ones have exited),
 * a lock's holder and its waiter are both flock.  The one a person means
 * is blocked now: of the threads of that name the wait-for snapshot just
 * taken finds blocked (alive, then), the one blocked longest.  One that
 * waits for its own child waits for what the child does, as a shell for
 * its command: it is taken only when no other is blocked.  Which one was
 * taken is said, and the others with their waits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porcelain.h"
#include "show.h"
#include "stream.h"
#include "waits.h"

struct cand {
	uint32_t	 pid, tid;
	uint64_t	 since;		/* NO_TIME: unknown */
	char		 call[32], type[16], object[96], comm[64];
	int		 child;		/* waits for a child of its own */
};

static int
longer(const struct cand *a, const struct cand *b)
{
	if (a->child != b->child)
		return b->child;
	if (a->since == NO_TIME || b->since == NO_TIME)
		return b->since == NO_TIME && a->since != NO_TIME;
	return a->since < b->since;
}

/* "6.4 s in flock on file:254:0:10953108", or as much as is known. */
static void
say_wait(const struct cand *c, uint64_t at, char *buf, size_t size)
{
	size_t n = 0;

	if (c->since != NO_TIME && at > c->since)
		n = snprintf(buf, size, "%.1f s ", (at - c->since) / 1e9);
	snprintf(buf + (n < size ? n : size), n < size ? size - n : 0,
	    "in %s%s%s", *c->call ? show(c->call) : "?", *c->object ?
	    " on " : "", show(c->object));
}

int
comm_pick(const char *snap, const char *when, const char *name, char *tid,
    size_t size)
{
	struct cand *c = NULL, *best = NULL;
	struct record rec;
	struct wait_rec w;
	struct reader *r;
	uint64_t at = 0;
	size_t n = 0, i, shown;
	char a[192];

	if (*snap == '\0')
		return 0;
	r = reader_open(snap);
	while (reader_next(r, &rec)) {
		if (!wait_parse(&rec, &w) || strcmp(w.comm, name) != 0 ||
		    (w.state[0] != 'S' && w.state[0] != 'D'))
			continue;
		at = w.time;
		/* A thread's first wait record says its call: one a thread. */
		for (i = 0; i < n && c[i].tid != w.tid; i++)
			;
		if (i < n)
			continue;
		c = xrealloc(c, (n + 1) * sizeof(*c));
		memset(&c[n], 0, sizeof(*c));
		c[n].pid = w.pid;
		c[n].tid = w.tid;
		c[n].since = w.since;
		c[n].child = strcmp(w.type, "child") == 0;
		snprintf(c[n].call, sizeof(c[n].call), "%s", w.call);
		snprintf(c[n].type, sizeof(c[n].type), "%s", w.type);
		snprintf(c[n].object, sizeof(c[n].object), "%s", w.object);
		snprintf(c[n].comm, sizeof(c[n].comm), "%s", w.comm);
		n++;
	}
	reader_close(r);
	for (i = 0; i < n; i++)
		if (best == NULL || longer(&c[i], best))
			best = &c[i];
	if (best == NULL) {
		free(c);
		return 0;
	}
	snprintf(tid, size, "%u", best->tid);
	say_wait(best, at, a, sizeof(a));
	fprintf(stderr, "argus: --comm %s: %s %u/%u, blocked %s %s%s\n",
	    show(name), show(best->comm), best->pid, best->tid, when, a,
	    n == 1 ? "" : best->child ? "; only waiters for their own "
	    "children are blocked" : n == 2 ? ", the longer of two blocked "
	    "by that name" : ", the longest of those blocked by that name");
	for (i = 0, shown = 0; i < n; i++) {
		if (&c[i] == best)
			continue;
		say_wait(&c[i], at, a, sizeof(a));
		fprintf(stderr, "%s %s %u/%u %s%s", shown++ == 0 ?
		    "argus:   the others:" : ";", show(c[i].comm), c[i].pid,
		    c[i].tid, a, c[i].child ? " (its own child)" : "");
	}
	if (shown > 0)
		fputc('\n', stderr);
	free(c);
	return 1;
}
