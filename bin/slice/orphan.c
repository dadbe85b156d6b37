/*
 * A wait nobody is left to end.  A futex wait marked private (a lock, a
 * semaphore, a condition in the process's own memory), with no timeout,
 * is woken only by a thread of the waiter's own process: where that
 * process has no other thread, nothing but a signal ends it.  A child
 * forked by a process of several threads is such a process: fork(2)
 * copies the memory and the calling thread alone, so a lock another
 * thread of the parent held at that moment is held in the child for
 * ever, by a thread that is not there.  The fork is where it went wrong,
 * and the parent, which forked then, the root: a cause the kernel's own
 * facts give (the futex's flag, the child's threads, the parent's), not
 * a wake-up.
 */
#include <stdio.h>
#include <string.h>

#include "dctx.h"

#define HOLDERS		4	/* of the parent's threads, named at most */

/*
 * Threads of pid, other than tid, whose vertices span a moment of [from,
 * to]: up to n of them into out; how many there were.  A thread's
 * vertices tile its life, so one that lived then has one there.
 */
static int
threads_between(struct graph *g, uint32_t pid, uint32_t tid, uint64_t from,
    uint64_t to, uint32_t *out, int n)
{
	const struct vertex *w;
	uint64_t i;
	int found = 0, k;

	for (i = 1; i < g->nv; i++) {
		w = &g->v[i];
		if (w->pid != pid || w->tid == tid || w->end < from ||
		    w->begin > to)
			continue;
		for (k = 0; k < found && k < n && out[k] != w->tid; k++)
			;
		if (k < found && k < n)
			continue;
		if (found < n)
			out[found] = w->tid;
		found++;
	}
	return found;
}

int
orphan_wait(struct dctx *x, uint64_t id, int depth)
{
	struct graph *g = x->g;
	struct vertex *v = vertex_get(g, id), *f;
	struct culprit *c;
	uint32_t held[HOLDERS], none[1];
	uint64_t fork, when, end;
	char names[HOLDERS * 24] = "";
	int n, k;
	size_t len = 0;

	if (v == NULL || !v->private_wait || v->tid != v->pid ||
	    (fork = fork_vertex(g, v->pid, &when)) == 0 ||
	    (f = vertex_get(g, fork)) == NULL)
		return 0;
	end = v->end > x->he ? v->end : x->he;
	/*
	 * Its memory the parent's copy still (no exec since), and no other
	 * thread of its own then or during the wait.
	 */
	if (execd_between(g, v->pid, when, end) ||
	    threads_between(g, v->pid, v->tid, when, end, none, 1) > 0)
		return 0;
	/* The parent's threads besides the forking one, at the fork. */
	if ((n = threads_between(g, f->pid, f->tid, when, when, held,
	    HOLDERS)) == 0)
		return 0;
	for (k = 0; k < n && k < HOLDERS; k++)
		len += snprintf(names + len, sizeof(names) - len, "%s%u",
		    k == 0 ? "" : ", ", held[k]);
	if (n > HOLDERS)
		snprintf(names + len, sizeof(names) - len, " and %d more",
		    n - HOLDERS);
	c = add(x->d, fork, depth + 1, RK_ROOT, classify(f));
	c->ev = EV_KERNEL;
	snprintf(c->why, sizeof(c->why), "forked %s %u at +%.3f s while its "
	    "thread%s %s ran: a lock %s held then stays held in the child, "
	    "whose only thread waits on it in a private futex that no other "
	    "thread is there to wake", str_of(vertex_comm(v)), v->pid,
	    (when - g->first_time) / 1e9, n > 1 ? "s" : "", names,
	    n > 1 ? "one of them" : "that thread");
	return 1;
}
