/*
 * Messages.  Without a probe in every IPC library, the kernel shows a
 * message where it delivers one: a send that wakes its receiver.  Such a
 * wake-up is a message edge.  When the receiver later sends a message that
 * wakes the original sender, that is the reply: the vertex that received
 * the request is linked to the vertex that sends the reply, if they differ
 * (the request was handed to another vertex or thread to answer).
 */
#include <stdlib.h>
#include <string.h>

#include "link.h"

/* Requests received and not yet answered, by (server pid, client pid). */
struct request {
	uint64_t	 key;
	struct cause	 received;
	UT_hash_handle	 hh;
};

static struct request *requests;

static uint64_t
key(uint32_t server, uint32_t client)
{
	return (uint64_t)server << 32 | client;
}

static void
see(const struct event *ev, struct lthread *t)
{
	struct request *r;
	struct lthread *w;
	uint64_t k;

	if (ev->type == E_SYS_ENTER)
		t->in_send = syscall_is_send(event_str(ev, 1));
	else if (ev->type == E_SYS_EXIT)
		t->in_send = 0;

	/* A request arrives: its receiver runs after a message wake-up. */
	if (t->fresh && t->woken && t->waker.by == &message &&
	    t->waker.pid != t->pid) {
		k = key(t->pid, t->waker.pid);
		HASH_FIND(hh, requests, &k, sizeof(k), r);
		if (r == NULL) {
			r = xcalloc(1, sizeof(*r));
			r->key = k;
			HASH_ADD(hh, requests, key, sizeof(r->key), r);
		}
		memset(&r->received, 0, sizeof(r->received));
		r->received.by = &message;
		r->received.vertex = t->vertex;
		r->received.pid = t->pid;
		r->received.tid = t->tid;
		r->received.time = ev->time;
		r->received.rule = "reply";
		return;
	}
	/* The answer goes back: link the request's receiver to the sender. */
	if (ev->type != E_WAKING || ev->ctx != '-' || !t->in_send)
		return;
	w = lthread_get(event_u64(ev, 1), event_pid(ev, 0));
	k = key(t->pid, w->pid);
	HASH_FIND(hh, requests, &k, sizeof(k), r);
	if (r == NULL)
		return;
	link_emit(ev->time, t->pid, t->tid, t->vertex, &r->received);
	HASH_DEL(requests, r);
	free(r);
}

struct rule message = {
	"message", "send -> receive it wakes; request's receiver -> reply's sender",
	see, 0, 0, 0,
};
