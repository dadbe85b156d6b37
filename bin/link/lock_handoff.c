/*
 * A wake-up that hands a lock to its next waiter is weak: mutual exclusion
 * is not intent, whoever held the lock before did not work for the waiter.
 * glibc's mutexes show themselves in the futex protocol: a waiter sleeps
 * in FUTEX_WAIT on the value 2 ("locked, with waiters").  wakeup.c asks
 * lock_wait when it classifies a wake-up.
 */
#include <string.h>

#include "link.h"

#define FUTEX_CMD_MASK		0x7f	/* without PRIVATE and CLOCK_REALTIME */
#define FUTEX_WAIT		0
#define FUTEX_WAIT_BITSET	9
#define FUTEX_LOCKED_CONTENDED	2

static void
see(const struct event *ev, struct lthread *t)
{
	uint64_t cmd;

	if (ev->type == E_SYS_EXIT) {
		t->lock_wait = 0;
		return;
	}
	if (ev->type != E_SYS_ENTER || strcmp(event_str(ev, 1), "futex") != 0)
		return;
	/* Arguments: nr, name, uaddr, op, val, ... */
	cmd = event_u64(ev, 3) & FUTEX_CMD_MASK;
	t->lock_wait = (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET) &&
	    event_u64(ev, 4) == FUTEX_LOCKED_CONTENDED;
}

struct rule lock_handoff = {
	"lock", "a wake-up that hands over a mutex is weak",
	see, 0, 0, 0,
};
