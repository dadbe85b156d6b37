/*
 * Interrupt and softirq sequences run on whatever thread they interrupted:
 * they are not that thread's work, and must neither split its vertex nor
 * count in its semantics.  The link stage still sees them (tagged 0) to
 * attribute the wake-ups they perform.  The idle loop is culled too.
 */
#include "segment.h"

static enum verdict
judge(struct heuristic *h, struct thread *t, const struct event *ev)
{
	(void)h;
	(void)t;
	/* Thread 0 is a CPU's idle loop: no one's work. */
	if (ev->ctx != '-' || ev->tid == 0)
		return CULL;
	switch (ev->type) {
	case E_IRQ_ENTRY:
	case E_IRQ_EXIT:
	case E_SOFTIRQ_ENTRY:
	case E_SOFTIRQ_EXIT:
		return CULL;	/* softirqs run from ksoftirqd in task context */
	default:
		return KEEP;
	}
}

SEGMENT_HEURISTIC(cull_interrupts) = {
	.name = "cull-interrupts",
	.judge = judge,
};
