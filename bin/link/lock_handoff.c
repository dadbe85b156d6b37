/*
 * A wake-up that hands a lock to its next waiter is weak: mutual exclusion
 * is not intent, whoever held the lock before did not work for the waiter.
 * glibc's plain mutexes show themselves in the futex protocol
 * (syscall_is_lock_wait).  With patchers/pthread.probes, so does any
 * mutex, priority-inheritance and robust ones included: the waker is
 * inside pthread_mutex_unlock, or the wakee inside pthread_mutex_lock.
 * wakeup.c asks when it classifies a wake-up.
 */
#include "link.h"

static void
see(const struct event *ev, struct lthread *t)
{
	if (ev->type == E_SYS_EXIT)
		t->lock_wait = 0;
	else if (ev->type == E_SYS_ENTER)
		t->lock_wait = syscall_is_lock_wait(ev);
	inside_see(&t->unlock, ev, E_MUTEX_UNLOCK, E_MUTEX_UNLOCK_END);
	inside_see(&t->lock, ev, E_MUTEX_LOCK, E_MUTEX_LOCK_END);
}

struct rule lock_handoff = {
	"lock", "a wake-up that hands over a mutex is weak",
	see, 0, 0, 0,
};
