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

/* Their first letters: most woken threads have none of them. */
static unsigned char	first[256];
static int		first_made;

static enum verdict
judge(struct heuristic *h, struct thread *t, const struct event *ev)
{
	const char *comm;
	size_t i;

	(void)h;
	(void)t;
	if (!first_made) {
		for (i = 0; i < ARRAY_LEN(housekeepers); i++)
			first[(unsigned char)housekeepers[i][0]] = 1;
		first_made = 1;
	}
	comm = event_str(ev, WAKE_COL(TCOMM));
	if (!first[(unsigned char)comm[0]])
		return KEEP;
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
