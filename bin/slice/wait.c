/*
 * LongWait's diagnosis: the wake-up path that ended a normal wait of the
 * same kind, and what each thread on it was doing when the hang began;
 * else who holds what it waits on, its relatives, a death.
 */
#include <stdio.h>
#include <string.h>

#include "dctx.h"

/* Waiting: whose wake-up is missing, and why. */
int
long_wait(struct dctx *x, uint64_t id, int depth)
{
	struct vertex *v = vertex_get(x->g, id);
	const char *sys = str_of(v->last_sys);
	uint64_t waker = 0, base = 0, rank = 1;
	struct link *l = NULL, *ended_by = NULL;
	int pi;

	/*
	 * A culprit asleep on a timer of its own (a sleep, not a wait with a
	 * timeout) waits for nobody: it is where the chain ends.
	 */
	if (depth > 0 && syscall_is_sleep(sys))
		return 0;
	switch (holders(x, id, depth)) {
	case HELD_BY_LINE:
		return 0;
	case 0:
	case -1:
		break;
	default:
		return 1;
	}
	/*
	 * A thread idle in its service loop that has the chain's request,
	 * whose own waits named nobody it went on to: what holds the request
	 * up is inside its program (blame_ev says so), not on a normal
	 * wait's path, which would only name another client.
	 */
	if (depth > 0 && state_of(x, v) == TS_DISPATCH &&
	    serves_request(x, v, x->nchain - 2))
		return 0;

	/*
	 * A wait that ended by a peer shows its own wake-up path, but a kill
	 * that ended it (the thread dies next) says nothing of what it
	 * waited on: that is for the other evidence.
	 */
	if (link_into_next(x->g, id, &l) && link_from(l) != 0 && a_kill(l) &&
	    dies(x->g, vertex_get(x->g, vertex_next(x->g, id)))) {
		if (depth == 0)
			snprintf(x->d->ended, sizeof(x->d->ended), "ended by a "
			    "kill from %s %u/%u", str_of(vertex_get(x->g,
			    link_from(l))->comm), vertex_get(x->g,
			    link_from(l))->pid, vertex_get(x->g,
			    link_from(l))->tid);
		add_killer(x, vertex_get(x->g, link_from(l))->tid);
		l = NULL;
		if (depth > 0 && last_reader(x, id, depth))
			return 1;
	}
	if (l != NULL && link_from(l) != 0 && !(l->props & LR_TIMEOUT) &&
	    peer_died(x, id, l, depth))
		return 1;
	if (l != NULL && link_from(l) != 0 && !(l->props & LR_TIMEOUT)) {
		waker = link_from(l);
		ended_by = l;
	} else if (v->lock) {
		/*
		 * Blocked on a mutex: a normal wait on it was ended by
		 * whoever held it then, not by whoever holds it now.
		 */
		return lock_holders(x, id, depth);
	} else {
		base = depth == 0 ? ranked_baseline(x->g, x->spin, rank,
		    &waker) : 0;
		if (base == 0)
			base = own_baseline(x, id, &waker);
	}
	for (;;) {
		if (waker == 0)
			break;
		pi = new_path(x->d, depth);
		walk(x->g, waker, base, x->interactive, &x->d->paths[pi]);
		if (blame_path(x, pi, v->tid, base != 0 ? "on the baseline's "
		    "wake-up path, and stuck through the hang" : "on the path "
		    "of the wake-up that ended the wait, and stuck through "
		    "the hang", depth, base == 0 && ended_by != NULL &&
		    !ended_by->weak ? EV_WAKEUP : EV_GUESS))
			return 1;
		if (base != 0 && counterparts(x, id, base, waker, depth))
			return 1;
		/*
		 * An episode whose answer came while its thread still ran
		 * has no wake-up to follow back to who gave it: the next
		 * episodes argus-similar ranked may have.
		 */
		if (depth > 0 || base == 0 || ++rank > MAX_EPISODES ||
		    (base = ranked_baseline(x->g, x->spin, rank, &waker)) == 0)
			break;
	}
	return busy_siblings(x, id, depth);
}
