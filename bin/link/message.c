/*
 * Messages.  Without a probe in every IPC library, the kernel shows a
 * message where it delivers one: a send that wakes its receiver.  Such a
 * wake-up is a message edge.  When the receiver later sends a message that
 * wakes the original sender, that is the reply: the vertex that received
 * the request is linked to the vertex that sends the reply, if they differ
 * (the request was handed to another vertex or thread to answer).
 */
#include "link.h"

/* Requests received and not yet answered, by (server pid, client pid). */
static struct pending *requests;
static struct link_rule rule_message;

static uint64_t
key(uint32_t server, uint32_t client)
{
	return (uint64_t)server << 32 | client;
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
	uint64_t k;

	if (!t->fresh || t->waker.rule != rule_message.row ||
	    t->waker.pid == t->pid)
		return;
	k = key(t->pid, t->waker.pid);
	cause_in(pending_at(&requests, &k, sizeof(k)), t, ev->time, self);
}

/* The answer goes back: the request's receiver -> the reply's sender. */
static void
see_reply(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	const struct cause *c;
	struct lthread *w;
	uint64_t k;

	(void)self;
	if (ev->ctx != '-' || rule_message.off || !(t->call & CALL_SEND))
		return;
	w = link_wakee(ev);
	k = key(t->pid, w->pid);
	if ((c = pending_taken(&requests, &k, sizeof(k))) != NULL)
		link_emit(ev->time, t->pid, t->tid, t->vertex, c);
}

LINK_RULE(reply) = {
	.name = REPLY_RULE,
	.types = EV(E_WAKING),
	.see = see_reply,
	.woken = woken,
};
