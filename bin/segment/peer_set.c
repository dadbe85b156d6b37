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
 * A receive's descriptor where it is few hex digits after 0x, as the
 * capture puts a system call's arguments: 1 and *fd.  0 for anything
 * else, event_u64()'s (fd_of()).
 */
static inline int
fd_hex(const struct event *ev, uint32_t *fd)
{
	const struct record *rec = ev->rec;
	size_t col = EC_ARG + SYSCALL_ARG(0), n;
	const char *s;
	uint32_t v = 0;
	unsigned d;

	if (col >= rec->nf)
		return 0;
	s = rec->f[col];
	if (s[0] != '0' || s[1] != 'x')
		return 0;
	for (n = 2; n < 10 && (d = hex_digit(s[n])) < 16; n++)
		v = v << 4 | d;
	*fd = v;
	return n > 2 && s[n] == '\0';
}

static uint32_t
fd_of(const struct event *ev)
{
	uint32_t fd;

	return fd_hex(ev, &fd) ? fd : event_u64(ev, SYSCALL_ARG(0));
}

/*
 * Whether a system call's event is a receive, by its name's text: a
 * trace has a few names, each met again and again, where finding a
 * name's classes (event_call()) cost more than the rest of the judging.
 * A name of 7 bytes or fewer (read, write, futex) is its one word with
 * its NUL (field_word()); one of 8 to 16 its two words (padded_words()),
 * the first with no NUL, as a shorter one's has.  And its length.
 */
#define NAMES	16
static struct name {
	uint64_t	 w0, w1;
	size_t		 n;		/* 0: none */
	int		 recv;
} names[NAMES];

/* The slot of the event's name and its key; NULL for a name of no memo. */
static inline struct name *
name_slot(const struct record *rec, uint64_t *w0, uint64_t *w1, size_t *n)
{
	size_t col = EC_ARG + SYSCALL_NAME;

	if (!rec->padded || col + 1 >= rec->nf)
		return NULL;
	*w1 = 0;
	if (field_word(rec, col, w0))
		*n = rec->f[col + 1] - rec->f[col];
	else if ((*n = rec->f[col + 1] - rec->f[col] - 1) <= 16)
		padded_words(rec->f[col], *n, w0, w1);
	else
		return NULL;
	_Static_assert(NAMES == 16, "the hash's 4 bits");
	return &names[((*w0 ^ *w1 * GOLDEN64 ^ *n) * GOLDEN64) >> 60];
}

static int
is_recv(const struct event *ev)
{
	struct name *m;
	uint64_t w0, w1;
	size_t n;

	if ((m = name_slot(ev->rec, &w0, &w1, &n)) == NULL)
		return (event_call(ev) & CALL_RECV) != 0;
	if (m->n != n || m->w0 != w0 || m->w1 != w1) {
		m->n = n;
		m->w0 = w0;
		m->w1 = w1;
		m->recv = (event_call(ev) & CALL_RECV) != 0;
	}
	return m->recv;
}

static enum verdict
peer(struct state *s, uint32_t fd)
{
	if (s->has)
		return s->fd == fd ? KEEP : CUT_BEFORE;
	s->has = 1;
	s->fd = fd;
	return KEEP;
}

/* What the memo does not know yet, or a descriptor of no short hex. */
static enum verdict __attribute__((noinline))
judge_any(struct heuristic *h, struct thread *t, const struct event *ev)
{
	if (!is_recv(ev))
		return KEEP;
	return peer(segment_state(h, t), fd_of(ev));
}

/*
 * Most calls' names are known and most receives' descriptors short hex:
 * judged with no call but the tail one for the rest, so with no register
 * saved for it.
 */
static enum verdict
judge(struct heuristic *h, struct thread *t, const struct event *ev)
{
	struct name *m;
	uint64_t w0, w1;
	uint32_t fd;
	size_t n;

	if ((m = name_slot(ev->rec, &w0, &w1, &n)) == NULL ||
	    m->n != n || m->w0 != w0 || m->w1 != w1)
		return judge_any(h, t, ev);
	if (!m->recv)
		return KEEP;
	if (!fd_hex(ev, &fd))
		return judge_any(h, t, ev);
	return peer(segment_state(h, t), fd);
}

SEGMENT_HEURISTIC(peer_set) = {
	.name = "peer-set",
	.types = EV(E_SYS_ENTER),
	.judge = judge,
	.opened = opened,
	.thread_size = sizeof(struct state),
};
