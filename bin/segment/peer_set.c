/*
 * A server loop that answers several clients without waiting in between
 * would make one vertex of all of them.  Each vertex keeps the set of
 * channels it received messages from; a receive from a channel outside
 * that set starts a new vertex.  On Linux the channel is the descriptor a
 * receive reads (one connection or pipe per client is the common server
 * shape); sends do not count, so a log line written in between does not
 * split anything.
 *
 * The set holds one channel: the first a vertex receives from.  The
 * receive that splits a vertex does not join the new vertex's set, whose
 * first member is the channel of the receive after it.
 */
#include "segment.h"

struct state {
	int		 has;
	uint32_t	 fd;
};

static void
opened(struct heuristic *h, struct thread *t)
{
	((struct state *)segment_state(h, t))->has = 0;
}

static enum verdict
judge(struct heuristic *h, struct thread *t, const struct event *ev)
{
	struct state *s = segment_state(h, t);
	uint32_t fd;

	if (!(event_call(ev) & CALL_RECV))
		return KEEP;
	fd = event_u64(ev, SYSCALL_ARG(0));
	if (s->has)
		return s->fd == fd ? KEEP : CUT_BEFORE;
	s->has = 1;
	s->fd = fd;
	return KEEP;
}

SEGMENT_HEURISTIC(peer_set) = {
	.name = "peer-set",
	.types = EV(E_SYS_ENTER),
	.judge = judge,
	.opened = opened,
	.thread_size = sizeof(struct state),
};
