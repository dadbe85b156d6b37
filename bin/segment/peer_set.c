/*
 * A server loop that answers several clients without waiting in between
 * would make one vertex of all of them.  Each vertex keeps the set of
 * channels it received messages from; a receive from a channel outside
 * that set starts a new vertex.  On Linux the channel is the descriptor a
 * receive reads (one connection or pipe per client is the common server
 * shape); sends do not count, so a log line written in between does not
 * split anything.
 */
#include "segment.h"

static enum verdict
judge(struct thread *t, const struct event *ev)
{
	uint32_t fd;
	int i;

	if (ev->type != E_SYS_ENTER || !syscall_is_recv(event_str(ev, 1)))
		return KEEP;
	fd = event_u64(ev, 2);
	for (i = 0; i < t->npeers; i++)
		if (t->peers[i] == fd)
			return KEEP;
	if (t->npeers == MAX_PEERS || t->npeers > 0) {
		t->npeers = 0;	/* the new vertex starts with this channel */
		t->peers[t->npeers++] = fd;
		return CUT_BEFORE;
	}
	t->peers[t->npeers++] = fd;
	return KEEP;
}

struct heuristic peer_set = {
	"peer-set",
	"split a vertex at a receive from a channel it had not received from",
	judge, 0, 0,
};
