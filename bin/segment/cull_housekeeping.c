/*
 * Scheduler housekeeping (the paper's Sharetime_maintenance): a busy
 * thread, at a tick or on its way back to user space, wakes the per-CPU
 * kernel threads that balance load, run deferred softirqs and advance RCU.
 * Those wake-ups are the kernel's bookkeeping, not the thread's work, and
 * would make a long-running vertex look like the cause of a hundred
 * kernel threads.  They are culled; the wakees' own vertices stay.
 */
#include "segment.h"

static enum verdict
judge(struct heuristic *h, struct thread *t, const struct event *ev)
{
	(void)h;
	(void)t;
	return housekeeper_comm(event_str(ev, WAKE_COL(TCOMM))) ? CULL : KEEP;
}

SEGMENT_HEURISTIC(cull_housekeeping) = {
	.name = "cull-housekeeping",
	.types = EV(E_WAKING),
	.judge = judge,
};
