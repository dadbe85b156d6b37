/*
 * Boundary and cull hints are how a user's own heuristic, a filter placed
 * before this one, shapes the vertices (argus-stream(5)).  A boundary hint
 * starts a new vertex at the thread's next event that is not culled; a
 * cull hint drops the thread's events up to its END.  The hints pass on
 * like every other record.
 */
#include <string.h>

#include "segment.h"

struct state {
	int		 cut;		/* a boundary is pending */
	int		 culling;
	uint64_t	 until;		/* of the cull in force */
};

static int
record(struct heuristic *h, const struct record *rec)
{
	struct state *s;
	uint64_t tid, pid = 0;
	int boundary = strcmp(rec->f[COL_KIND], KIND_BOUNDARY) == 0;

	if (!boundary && strcmp(rec->f[COL_KIND], KIND_CULL) != 0)
		return 0;
	if (!record_u64_opt(rec, COL_TID, &tid) || rec->time == NO_TIME)
		diex(EX_DATAERR, "%s:%lu: %s hint without a time and a thread",
		    rec->file, rec->line, rec->f[COL_KIND]);
	record_u64_opt(rec, COL_PID, &pid);
	s = segment_state(h, thread_get(tid, pid));
	if (boundary) {
		s->cut = 1;
	} else {
		s->culling = 1;
		s->until = record_u64(rec, CULL_END);
	}
	return 1;
}

static enum verdict
judge(struct heuristic *h, struct thread *t, const struct event *ev)
{
	struct state *s = segment_state(h, t);

	if (s->culling) {
		if (ev->time <= s->until)
			return CULL;
		s->culling = 0;
	}
	if (!s->cut)
		return KEEP;
	s->cut = 0;
	return CUT_BEFORE;
}

SEGMENT_HEURISTIC(hints) = {
	.name = "hints",
	.judge = judge,
	.record = record,
	.after_record = 1,
	.thread_size = sizeof(struct state),
};
