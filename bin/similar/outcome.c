/*
 * A normal outcome: the vertex was short (under half the hang, and under
 * the threshold; rank.c prefers those under a tenth), ended in a wait,
 * and a peer ended that wait: the link that woke its thread into the next
 * vertex is a wake-up, a message, a lock hand-off, a completion...
 * anything but the thread's own timeout.
 * That link is where the baseline's wake-up path starts.  A signal that
 * woke the thread only to exit killed it: the wait was cut short (a
 * watchdog's kill of a client that hung too), never answered; unless
 * its exit told its parent it exited (CLD_EXITED), not that a signal
 * killed it: the signal was what it waited for (sigwait, a signalfd).
 *
 * For a LongRunning hang, "short" is about the work, not the wait that
 * follows it: a vertex that handled one input lasts until the next input
 * comes, and what is compared with the hang is the time until it blocked.
 */
#include <string.h>

#include "similar.h"

uint64_t
work_ns(const struct vsem *v, int running)
{
	if (running && v->blocked_at >= v->begin && v->blocked_at <= v->end &&
	    v->blocked_at != 0)
		return v->blocked_at - v->begin;
	return v->end - v->begin;
}

const struct vsem *
normal_outcome(const struct sthread *t, size_t i, uint64_t spin_begin,
    uint64_t spin_dur, uint64_t threshold, int running)
{
	const struct vsem *v = VSEM(t, i), *next;
	uint64_t dur;

	if (!v->recorded || !v->waited || v->end > spin_begin ||
	    i + 1 >= t->vv.n)
		return NULL;
	dur = work_ns(v, running);
	if (dur >= threshold || dur * 2 >= spin_dur)
		return NULL;
	next = VSEM(t, i + 1);
	if (!next->woke || (rule_props(next->wake_rule) & LR_TIMEOUT))
		return NULL;
	if (next->exited && !next->exit_own &&
	    strcmp(rule_name(next->wake_rule), SIGNAL_RULE) == 0)
		return NULL;
	return next;
}
