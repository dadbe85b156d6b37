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

/*
 * A receive's descriptor: few hex digits after 0x, as the capture puts a
 * system call's arguments, read here, as event_u64() leaves short hex to
 * its general way; anything else is event_u64()'s.
 */
static inline uint32_t
fd_of(const struct event *ev)
{
	const struct record *rec = ev->rec;
	size_t col = EC_ARG + SYSCALL_ARG(0), n;
	const char *s;
	uint32_t v = 0;
	unsigned d;

	if (col < rec->nf) {
		s = rec->f[col];
		if (s[0] == '0' && s[1] == 'x') {
			for (n = 2; n < 10 && (d = hex_digit(s[n])) < 16; n++)
				v = v << 4 | d;
			if (n > 2 && s[n] == '\0')
				return v;
		}
	}
	return event_u64(ev, SYSCALL_ARG(0));
}

static enum verdict
judge(struct heuristic *h, struct thread *t, const struct event *ev)
{
	struct state *s = segment_state(h, t);
	uint32_t fd;

	if (!(event_call(ev) & CALL_RECV))
		return KEEP;
	fd = fd_of(ev);
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
