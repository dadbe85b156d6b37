/*
 * A busy wait on a descriptor.  A thread that tries a send again at once
 * each time it fails with EAGAIN (a non-blocking socket whose buffer the
 * reader does not empty), or a receive (nothing there yet), waits on the
 * other end as surely as one blocked in the call, but the kernel has no
 * wait to show: it runs, and no wake-up will ever end the loop, so the
 * hang looks like work.  argus-capture records a send's or a receive's
 * exit where it failed with EAGAIN, and graph.c counts the failures of
 * one call on one descriptor in a vertex (vertex_retry()).
 *
 * Whose end it is the kernel does not say: the process this thread last
 * traded messages with before its tries began (a send of its that woke
 * a reader there, or one from there that woke it), as request_unread()
 * takes the reader of a request nobody took in.  Timing's word: a guess.
 */
#include <stdio.h>

#include "dctx.h"

/* The thread of another process that traded a message with v's last by t. */
static const struct vertex *
last_partner(struct graph *g, const struct vertex *v, uint64_t t,
    uint64_t *when)
{
	uint32_t message = str_id(MESSAGE_RULE);
	const struct vertex *f, *to, *p, *best = NULL;
	const struct link *l;
	int32_t k;

	*when = 0;
	for (k = 0; k < g->nl; k++) {
		l = &g->l[k];
		if (link_weak(l) || link_rule(l) != message ||
		    link_from(l) == 0 || link_time(l) > t ||
		    link_time(l) < *when ||
		    (f = vertex_get(g, link_from(l))) == NULL ||
		    (to = vertex_get(g, link_to(l))) == NULL)
			continue;
		if (f->tid == v->tid && to->pid != v->pid)
			p = to;
		else if (to->tid == v->tid && f->pid != v->pid)
			p = f;
		else
			continue;
		*when = link_time(l);
		best = p;
	}
	return best;
}

int
retried(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	const struct retried *r = vertex_retry(g, id);
	const struct vertex *v = vertex_get(g, id), *t;
	uint64_t when, u;
	char why[320];

	if (r == NULL)
		return 0;
	if ((t = last_partner(g, v, r->first, &when)) == NULL ||
	    on_chain(x, t->tid) >= 0 || (u = stuck(x, t->tid)) == 0) {
		if (x->d->note[0] == '\0')
			snprintf(x->d->note, sizeof(x->d->note), "%s %u tried %s on "
			    "descriptor %u %llu times in %.1f s, each failing at "
			    "once (EAGAIN) and tried again at once: a busy wait "
			    "on that descriptor's other end, %s",
			    str_of(vertex_comm(v)), v->tid, str_of(r->sys),
			    r->arg, (unsigned long long)r->n,
			    (r->last - r->first) / 1e9, t == NULL ? "which no "
			    "message it traded names" : "which was not stuck "
			    "through the hang");
		return 0;
	}
	snprintf(why, sizeof(why), "traded messages with %s %u, the last at "
	    "+%.3f s; since, its %s on descriptor %u failed %llu times in "
	    "%.1f s (EAGAIN: %s), each tried again at once, a busy wait on "
	    "this end", str_of(vertex_comm(v)), v->tid,
	    (when - g->first_time) / 1e9, str_of(r->sys), r->arg,
	    (unsigned long long)r->n, (r->last - r->first) / 1e9,
	    syscall_is_send(str_of(r->sys)) ? "no room" : "nothing there");
	x->says = "the messages they traded";
	return blame_ev(x, u, why, depth, 1, EV_GUESS, 0);
}
