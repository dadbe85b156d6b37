/*
 * Episodes: the vertices of a hang.  At a moment (--at, argus mark), the
 * episode that holds it, however long; else every episode at least the
 * threshold long.  The spin classes say which vertices make an episode
 * and of what class; this file says how it began, ended and what it cost.
 */
#include <stdio.h>
#include <string.h>

#include "spin.h"

static struct spin_class **classes;	/* in table order */
static struct episode *list;
static size_t nlist;

void
episodes_init(void)
{
	size_t i;

	classes = xcalloc(nsclasses, sizeof(*classes));
	set_bind(SET_BEGIN(spin_classes), SET_END(spin_classes), sclasses,
	    nsclasses, sizeof(sclasses[0]), (void **)classes, "spin class");
	for (i = 0; i < nsclasses; i++)
		classes[i]->row = &sclasses[i];
}

struct episode *
episodes(size_t *n)
{
	*n = nlist;
	return list;
}

/*
 * How the episode ended: still going on (open), the thread exited, or
 * what woke it from its last wait: the rule of the link into the next
 * vertex and where it came from.  A vertex cut by a heuristic (no wait)
 * ended by that heuristic's name, with no waker.
 */
static void
close_episode(const struct tracked *t, struct episode *e)
{
	const struct vsum *last = VSUM(t, e->last), *next;
	size_t i;

	e->begin = VSUM(t, e->first)->begin;
	e->end = last->end;
	for (i = e->first; i <= e->last; i++) {
		e->oncpu += VSUM(t, i)->oncpu;
		e->waits += VSUM(t, i)->waits;
	}
	if (strcmp(last->ended_by, VE_OPEN) == 0 ||
	    strcmp(last->ended_by, VE_EXIT) == 0) {
		e->ended = last->ended_by;
		return;
	}
	next = e->last + 1 < t->vv.n ? VSUM(t, e->last + 1) : NULL;
	if (next != NULL && next->woke) {
		e->ended = next->wake_rule;
		e->waker = next->waker;
		return;
	}
	e->ended = last->ended_by[0] != '\0' ? last->ended_by : "unknown";
}

static void
add(const struct tracked *t, size_t first, size_t last,
    const struct sclass *c)
{
	struct episode *e;

	list = xrealloc(list, (nlist + 1) * sizeof(*list));
	e = &list[nlist++];
	memset(e, 0, sizeof(*e));
	e->first = first;
	e->last = last;
	e->class = c;
	close_episode(t, e);
}

/* The first class that claims vertex i, and its episode. */
static const struct sclass *
claim(const struct tracked *t, size_t i, const struct spin_opts *o,
    size_t *first, size_t *last)
{
	size_t k;

	for (k = 0; k < nsclasses; k++)
		if (classes[k]->claim(t, i, o, first, last))
			return classes[k]->row;
	diex(EX_SOFTWARE, "no spin class claims vertex %llu",
	    (unsigned long long)VSUM(t, i)->id);
}

/* The last vertex of t whose record was read that holds when; n if none. */
static size_t
holding(const struct tracked *t, uint64_t when)
{
	size_t i, found = t->vv.n;

	for (i = 0; i < t->vv.n; i++)
		if (VSUM(t, i)->recorded && VSUM(t, i)->begin <= when &&
		    when <= VSUM(t, i)->end)
			found = i;
	return found;
}

int
episodes_at(const struct tracked *t, uint64_t when, const struct spin_opts *o)
{
	const struct sclass *c;
	size_t found = holding(t, when), first, last;

	if (found == t->vv.n)
		return 0;
	c = claim(t, found, o, &first, &last);
	add(t, first, last, c);
	return 1;
}

/*
 * The hang going on at `when' (the end of the input: now, when the input
 * is the recent recording): the episode holding it, if it is at least
 * the threshold long.
 */
int
episodes_hung_at(const struct tracked *t, uint64_t when,
    const struct spin_opts *o)
{
	size_t found = holding(t, when), first, last;
	const struct sclass *c;

	if (found == t->vv.n)
		return 0;
	c = claim(t, found, o, &first, &last);
	if (VSUM(t, last)->end - VSUM(t, first)->begin < o->threshold)
		return 0;
	add(t, first, last, c);
	return 1;
}

void
episodes_long(const struct tracked *t, const struct spin_opts *o)
{
	const struct sclass *c;
	size_t i, first, last;

	for (i = 0; i < t->vv.n; i++) {
		if (!VSUM(t, i)->recorded)
			continue;
		c = claim(t, i, o, &first, &last);
		if (VSUM(t, last)->end - VSUM(t, first)->begin >= o->threshold)
			add(t, first, last, c);
		i = last;
	}
}

/*
 * A wait for a child that only slept (a shell's `sleep 1` between two
 * tries), shorter than a hang: a nap too.  One as long as a hang is a
 * wait for that child, whose sleep is the cause.
 */
static int
child_nap(const struct vsum *v, const struct spin_opts *o)
{
	return v->napped_child && v->end - v->begin < o->threshold;
}

/*
 * A vfork's wait for the child to exec (dash starts each command so): a
 * shell's round starting its next try, no wait of its own, but for one as
 * long as a hang, a child stuck before its exec.
 */
static int
vfork_nap(const struct vsum *v, const struct spin_opts *o)
{
	return v->vforked && v->end - v->begin < o->threshold;
}

/*
 * Off a CPU for long, and not blocked for most of it: woken or preempted,
 * it waited for a CPU (history.c ends a blocking wait at its wake-up) for
 * a quarter of a hang or more, which a loaded machine's scheduling does
 * not make of a wake-up; a hog on its CPU does.  Not a vertex whose wait
 * began before the trace (no switch-out seen): its time off a CPU is
 * unknown; nor one that yields, whose time off a CPU it gave away itself.
 */
#define STARVED_SHARE	4

int
starved(const struct vsum *v, const struct spin_opts *o)
{
	uint64_t dur = v->end - v->begin, runnable;

	if (!v->recorded || (v->blocked == 0 && v->wait[0] != '\0') ||
	    v->yields > 0 || dur <= v->oncpu + v->blocked)
		return 0;
	runnable = dur - v->oncpu - v->blocked;
	return runnable >= o->threshold / STARVED_SHARE &&
	    runnable > v->blocked;
}

/*
 * A stream without system calls (written by hand, or imported from a
 * trace that has none) still shows a nap: short, and begun by its own
 * timer.  A nap whose wake-up then waited long for a CPU is none: the
 * CPU went to others (running.c).
 */
int
is_nap(const struct vsum *v, const struct spin_opts *o)
{
	if (starved(v, o))
		return 0;
	if (child_nap(v, o) || vfork_nap(v, o))
		return 1;
	if (v->last_sys[0] == '\0')
		return v->end - v->begin < o->poll_max &&
		    (v->yields > 0 || (v->woke && (v->wake_props & LR_TIMEOUT)));
	return v->yields > 0 || v->sleeps;
}

/*
 * Its own time on a CPU.  Between entering a nap and being switched out
 * the thread does nothing of its own; when the trace shows that span
 * long, the CPU went elsewhere unrecorded (an interrupt's work, a
 * hypervisor's steal) and the poller was no busier for it.
 */
static uint64_t
busy(const struct vsum *v)
{
	uint64_t in_nap;

	if (v->last_sys[0] == '\0' || !v->sleeps ||
	    v->waits == 0 || v->sys_at < v->begin || v->sys_at > v->end)
		return v->oncpu;
	in_nap = v->end - v->sys_at;
	return v->oncpu > in_nap ? v->oncpu - in_nap : 0;
}

/* Off a CPU for most of it, and not long on one: waiting, not working. */
static int
idle(const struct vsum *v, const struct spin_opts *o)
{
	uint64_t own = busy(v);

	return v->recorded && own < o->poll_max &&
	    2 * own < v->end - v->begin + 1;
}

/*
 * Vertex k idle, or a lone busy round between idle ones, short of
 * poll_max: a poller's round does the same little each time, so one that
 * took a CPU for longer lost it to what the trace does not show (a
 * hypervisor's steal, an interrupt's work) more likely than it worked.
 * The round the input ends in is cut short wherever it was: on a CPU
 * since its wake-up, it has done no more than a round yet.
 */
static int
quiet(const struct tracked *t, size_t k, const struct spin_opts *o)
{
	const struct vsum *v = VSUM(t, k);

	if (idle(v, o))
		return 1;
	if (v->recorded && strcmp(v->ended_by, VE_OPEN) == 0)
		return busy(v) < o->poll_max;
	return v->recorded && busy(v) < o->poll_max && k > 0 &&
	    k + 1 < t->vv.n && idle(VSUM(t, k - 1), o) &&
	    idle(VSUM(t, k + 1), o);
}

static int
no_progress(const struct tracked *t, size_t i, const struct spin_opts *o)
{
	const struct vsum *a = VSUM(t, i), *b;
	int timed_out, again;

	if (i + 1 >= t->vv.n)
		return 0;
	b = VSUM(t, i + 1);
	/* A thread starved of a CPU is no loop idle in its waits. */
	if (starved(a, o) || starved(b, o))
		return 0;
	/*
	 * Input or output is progress; but between naps, only what it took
	 * in: a poller's line of "still waiting" each round, or GNU
	 * parallel's probe of a full disk, is not.  Nor, after a wait its
	 * own timeout ended, a round of the calls of the one before on the
	 * same descriptors that took nothing in: the request sent again as
	 * no answer came (a UDP client's retry).
	 */
	timed_out = b->woke && (b->wake_props & LR_TIMEOUT);
	again = timed_out && b->calls == a->calls && b->reads == 0;
	if (!quiet(t, i, o) || !quiet(t, i + 1, o) || (!again &&
	    (is_nap(a, o) && is_nap(b, o) ? b->reads : b->io) > 0))
		return 0;
	if (child_nap(a, o) || vfork_nap(a, o) || timed_out)
		return 1;
	/*
	 * Woken by what no rule explains (an interrupt's wake-up, a timer
	 * whose events a loaded machine lost) into a vertex that took
	 * nothing in and sent nothing, and waits again in the same call:
	 * the wake-up gave it nothing, as a timeout's gives nothing.
	 */
	if (b->woke && strcmp(b->wake_rule, IRQ_RULE) == 0 && b->io == 0 &&
	    a->last_sys[0] != '\0' && strcmp(a->last_sys, b->last_sys) == 0)
		return 1;
	/*
	 * Woken into a vertex that calls nothing and blocks again, to be
	 * woken the same way: the system call before goes on (a write into
	 * a pipe whose slow reader frees room a page at a time), one wait
	 * to its caller.  Not a call that returned, then a page fault's
	 * read from disk (a block's wake-up ends it), nor the thread's
	 * exit, which waits for nothing: the wait before is over.
	 */
	if (!is_nap(a, o) && b->last_sys[0] == '\0' && b->waits > 0 &&
	    strcmp(b->ended_by, VE_EXIT) != 0 &&
	    b->woke && strcmp(b->wake_rule, BLOCK_RULE) != 0 &&
	    (i + 2 >= t->vv.n || strcmp(VSUM(t, i + 2)->wake_rule,
	    b->wake_rule) == 0))
		return 1;
	/* A yield, and nobody woke the thread into the next vertex. */
	return a->yields > 0 && !b->woke;
}

/* The span without progress around vertex i, of naps or of waits. */
void
chain(const struct tracked *t, size_t i, const struct spin_opts *o, int naps,
    size_t *first, size_t *last)
{
	*first = *last = i;
	while (*first > 0 && no_progress(t, *first - 1, o) &&
	    is_nap(VSUM(t, *first - 1), o) == naps)
		(*first)--;
	while (no_progress(t, *last, o) &&
	    is_nap(VSUM(t, *last + 1), o) == naps)
		(*last)++;
}

void
longest_vertex(const struct tracked *t, char *buf, size_t len)
{
	size_t i, best = 0;

	for (i = 1; i < t->vv.n; i++)
		if (VSUM(t, i)->end - VSUM(t, i)->begin >
		    VSUM(t, best)->end - VSUM(t, best)->begin)
			best = i;
	snprintf(buf, len, "%zu vertices, the longest %.3f s (vertex %llu)",
	    t->vv.n, (VSUM(t, best)->end - VSUM(t, best)->begin) / 1e9,
	    (unsigned long long)VSUM(t, best)->id);
}
