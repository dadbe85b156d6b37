/*
 * Messages.  Without a probe in every IPC library, the kernel shows a
 * message where it delivers one: a send that wakes its receiver.  Such a
 * wake-up is a message edge.  When the receiver later sends a message that
 * wakes the original sender, that is the reply: the vertex that received
 * the request is linked to the vertex that sends the reply, if they differ
 * (the request was handed to another vertex or thread to answer).
 */
#include <stdlib.h>

#include "link.h"

/*
 * The last request a server process received from a client process, by
 * (server pid, client pid): where its receiver was, and whether it is
 * still unanswered.  Not a cause pending (links.c): two processes that
 * trade messages make and answer a request at each one, and a whole
 * cause made and put, taken and listed, cost more than all else the
 * rule did with them.  An answered one stays, for the pair's next;
 * pairs are few, none is deleted.
 */
struct request {
	uint64_t	 key;
	uint64_t	 vertex, time;
	uint32_t	 pid, tid;
	int		 open;
	UT_hash_handle	 hh;
};
static struct request	*requests;
/* Those found last, by the key's hash: a pair's next is soon. */
#define RECENT_REQUESTS	8	/* a power of 2 */
static struct request	*recent[RECENT_REQUESTS];
static struct link_rule rule_message;

static uint64_t
key(uint32_t server, uint32_t client)
{
	return (uint64_t)server << 32 | client;
}

/*
 * The pair's request, made if make and it had none; else NULL.  Out of
 * line: the table's code, its registers saved and restored, would cost
 * the recent ones more than their test.
 */
static struct request * __attribute__((noinline))
request_find(uint64_t k, int make, size_t i)
{
	struct request *r;

	HASH_FIND(hh, requests, &k, sizeof(k), r);
	if (r == NULL) {
		if (!make)
			return NULL;
		r = xcalloc(1, sizeof(*r));
		r->key = k;
		HASH_ADD(hh, requests, key, sizeof(r->key), r);
	}
	return recent[i] = r;
}

static inline struct request *
request(uint64_t k, int make)
{
	size_t i = (k * GOLDEN64) >> 61 & (RECENT_REQUESTS - 1);
	struct request *r = recent[i];

	return r != NULL && r->key == k ? r : request_find(k, make, i);
}

static int
classify(struct link_rule *self, const struct event *ev, struct lthread *waker,
    struct lthread *wakee, struct cause *c)
{
	(void)wakee;
	if (c->rule != NULL || ev->ctx != '-' || !(waker->call & CALL_SEND))
		return 0;
	cause_name(c, self);
	return 1;
}

LINK_RULE(message) = {
	.name = MESSAGE_RULE,
	.classify = classify,
};

/* A request arrives: its receiver runs after a message wake-up. */
static void
woken(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct request *r;

	(void)self;
	if (!t->fresh || t->waker.rule != rule_message.row ||
	    t->waker.pid == t->pid)
		return;
	r = request(key(t->pid, t->waker.pid), 1);
	r->vertex = t->vertex;
	r->time = ev->time;
	r->pid = t->pid;
	r->tid = t->tid;
	r->open = 1;
}

/* The answer goes back: the request's receiver -> the reply's sender. */
static void
see_reply(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct request *r;
	struct cause c;

	if (ev->ctx != '-' || rule_message.off || !(t->call & CALL_SEND))
		return;
	if ((r = request(key(t->pid, link_wakee(ev)->pid), 0)) == NULL ||
	    !r->open)
		return;
	r->open = 0;
	/* Most replies are sent from where their request arrived. */
	if (r->vertex == t->vertex)
		return;
	cause_clear(&c);
	c.vertex = r->vertex;
	c.pid = r->pid;
	c.tid = r->tid;
	c.time = r->time;
	cause_name(&c, self);
	link_emit(ev->time, t->pid, t->tid, t->vertex, &c);
}

LINK_RULE(reply) = {
	.name = REPLY_RULE,
	.types = EV(E_WAKING),
	.see = see_reply,
	.woken = woken,
};
