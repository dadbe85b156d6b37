/*
 * What a long vertex was doing.  LongRunning: mostly on a CPU, or wanting
 * one (preempted, runnable, never blocked for most of it).  LongWait: most
 * of it in blocking waits.  RepeatedYield: a loop of sched_yield calls,
 * on CPU or not, that a single vertex holds when nothing made it wait
 * (yield_chain.c finds the loops that sleep).
 */
#include <string.h>

#include "spin.h"

static const char *const names[NCLASSES] = {
	[LONG_RUNNING] = "LongRunning",
	[LONG_WAIT] = "LongWait",
	[REPEATED_YIELD] = "RepeatedYield",
};

const char *
class_name(enum sclass c)
{
	return c < NCLASSES ? names[c] : "";
}

enum sclass
classify_vertex(const struct vsum *v)
{
	uint64_t dur = v->end - v->begin, off;

	if (v->yields >= YIELD_MIN)
		return REPEATED_YIELD;
	if (dur == 0 || 2 * v->oncpu >= dur)
		return LONG_RUNNING;
	off = dur - (v->oncpu < dur ? v->oncpu : dur);
	/* Blocked for most of the time off CPU, or blocked from before we
	 * saw it (no switch-out traced): a wait. */
	if (2 * v->blocked >= off || (v->blocked == 0 && v->wait[0] != '\0'))
		return LONG_WAIT;
	return LONG_RUNNING;
}

/*
 * How the episode ended: still going on (open), the thread exited, or
 * what woke it from its last wait: the rule of the link into the next
 * vertex and where it came from.  A vertex cut by a heuristic (no wait)
 * ended by that heuristic's name, with no waker.
 */
void
episode_close(const struct tracked *t, struct episode *e)
{
	const struct vsum *last = &t->v[e->last], *next;
	size_t i;

	e->begin = t->v[e->first].begin;
	e->end = last->end;
	e->oncpu = 0;
	e->waits = 0;
	for (i = e->first; i <= e->last; i++) {
		e->oncpu += t->v[i].oncpu;
		e->waits += t->v[i].waits;
	}
	e->waker = 0;
	if (strcmp(last->ended_by, "open") == 0 ||
	    strcmp(last->ended_by, "exit") == 0) {
		e->ended = last->ended_by;
		return;
	}
	next = e->last + 1 < t->nv ? &t->v[e->last + 1] : NULL;
	if (next != NULL && next->woke) {
		e->ended = next->wake_rule;
		e->waker = next->waker;
		return;
	}
	e->ended = last->ended_by[0] != '\0' ? last->ended_by : "unknown";
}
