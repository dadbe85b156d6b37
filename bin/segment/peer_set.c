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
#include <string.h>

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

/*
 * Whether a system call's event is a receive, by its name's text: a
 * trace has a few names, each met again and again, where finding a
 * name's classes (event_call()) cost more than the rest of the judging.
 * A name of 16 bytes or fewer is its length and two words, as
 * padded_words() (lib/util.h) makes them.
 */
#define NAMES	16
static struct {
	uint64_t	 w0, w1;
	size_t		 n;		/* 0: none */
	int		 recv;
} names[NAMES];

static inline int
is_recv(const struct event *ev)
{
	const struct record *rec = ev->rec;
	size_t col = EC_ARG + SYSCALL_NAME, n, i;
	uint64_t w0, w1;
	const char *s;

	if (!rec->padded || col + 1 >= rec->nf)
		return (event_call(ev) & CALL_RECV) != 0;
	s = rec->f[col];
	n = rec->f[col + 1] - s - 1;
	if (n == 0 || n > 16)
		return (event_call(ev) & CALL_RECV) != 0;
	i = padded_words(s, n, &w0, &w1) >> 60;
	_Static_assert(NAMES == 16, "the hash's 4 bits");
	if (names[i].n != n || names[i].w0 != w0 || names[i].w1 != w1) {
		names[i].n = n;
		names[i].w0 = w0;
		names[i].w1 = w1;
		names[i].recv = (event_call(ev) & CALL_RECV) != 0;
	}
	return names[i].recv;
}

static enum verdict
judge(struct heuristic *h, struct thread *t, const struct event *ev)
{
	struct state *s = segment_state(h, t);
	uint32_t fd;

	if (!is_recv(ev))
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
