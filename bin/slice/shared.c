/*
 * A loop that polls memory waits for a write the kernel does not see: no
 * wake-up, no holder.  Where the snapshot was taken while it looped, it
 * names the memory the poller's process shares writable with others
 * (argus-waitfor's flag waits) and those others (their mappers): the flag
 * may be there, and one of them the one that should write it.  The one
 * stuck through the hang is blamed, as a guess: nothing says the flag is
 * in that mapping, only that it could be.
 */
#include <stdio.h>
#include <string.h>

#include "dctx.h"

/* The mapping as a person knows it: a fork's anonymous memory, a file. */
static const char *
shm_name(const char *path, char *buf, size_t size)
{
	const char *del = strstr(path, " (deleted)");

	if (strncmp(path, "/dev/zero", 9) == 0)
		return "anonymous shared memory";
	snprintf(buf, size, "%.*s", del != NULL ? (int)(del - path) :
	    (int)strlen(path), path);
	return buf;
}

/* The first thread of process pid stuck through the hang, off the chain. */
static uint64_t
stuck_in(struct dctx *x, uint32_t pid)
{
	uint64_t i = 0, u;

	while ((u = stuck_thread_of(x, pid, 0, &i)) != 0)
		if (on_chain(x, vertex_get(x->g, u)->tid) < 0)
			return u;
	return 0;
}

int
shared_mappers(struct dctx *x, const struct spin_rec *s)
{
	struct graph *g = x->g;
	const struct vertex *v = vertex_get(g, s->last);
	const struct flagwait *f, *m;
	uint32_t pids[8];
	uint64_t u = 0;
	char why[320], buf[64];
	const char *path = NULL;
	int i, j, k, n = 0, found;

	/* The snapshot must be of this loop: taken while it went on. */
	if (v == NULL || g->snap_time == NO_TIME ||
	    s->begin > g->snap_time ||
	    (v->end < g->snap_time && v->end < g->last_time))
		return 0;
	for (i = 0; i < g->nflagw; i++) {
		f = &g->flagw[i];
		if (f->time != g->snap_time || f->tid != s->tid)
			continue;
		for (j = 0; j < g->nmappers; j++) {
			m = &g->mappers[j];
			if (m->time != f->time || m->object != f->object ||
			    m->pid == f->pid)
				continue;
			for (k = 0; k < n && pids[k] != m->pid; k++)
				;
			if (k < n || n == (int)ARRAY_LEN(pids))
				continue;
			pids[n++] = m->pid;
			if (u == 0 && (u = stuck_in(x, m->pid)) != 0)
				path = str_of(m->path);
		}
	}
	if (u == 0)
		return 0;
	snprintf(why, sizeof(why), "maps the memory %s %u polls (%s), and "
	    "was stuck through the hang: the flag the loop waits for may be "
	    "there, for it to write (no flag was traced)",
	    str_of(vertex_comm(v)), v->tid, shm_name(path, buf, sizeof(buf)));
	x->says = "shared memory";
	found = blame_ev(x, u, why, 0, 0, EV_GUESS, n > 1);
	x->says = NULL;
	return found;
}
