/*
 * Scheduler housekeeping (the paper's Sharetime_maintenance): a busy
 * thread, at a tick or on its way back to user space, wakes the per-CPU
 * kernel threads that balance load, run deferred softirqs and advance RCU.
 * Those wake-ups are the kernel's bookkeeping, not the thread's work, and
 * would make a long-running vertex look like the cause of a hundred
 * kernel threads.  They are culled; the wakees' own vertices stay.
 */
#include <string.h>

#include "segment.h"

static const char *const housekeepers[] = {
	"migration/", "ksoftirqd/", "rcu_", "rcuc/", "rcuog/", "rcuop/",
	"cpuhp/", "idle_inject/", "watchdog/",
};

static enum verdict
judge(struct heuristic *h, struct thread *t, const struct event *ev)
{
	const char *comm;
	size_t i;

	(void)h;
	(void)t;
	comm = event_str(ev, WAKE_COL(TCOMM));
	/* Most woken threads share no first letter with any: no call. */
	for (i = 0; i < ARRAY_LEN(housekeepers); i++)
		if (comm[0] == housekeepers[i][0] && strncmp(comm,
		    housekeepers[i], strlen(housekeepers[i])) == 0)
			return CULL;
	return KEEP;
}

SEGMENT_HEURISTIC(cull_housekeeping) = {
	.name = "cull-housekeeping",
	.types = EV(E_WAKING),
	.judge = judge,
};
