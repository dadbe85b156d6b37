/*
 * Relations between processes, from the fork links: who forked whom, and
 * in which order.  A one-process-per-request program (a client, a job of
 * a script) has its baseline in another process of the same program, and
 * the processes that took part in that normal episode are gone.  The one
 * to look at now is the process in the same relation to the hung one:
 * the sibling forked as many forks before it (a shell's producer and
 * consumer), its parent, its child of the same rank.  Between two
 * siblings a script may fork helpers (a command substitution, a poll of
 * /proc) a different number of times; counted among the forks of the same
 * program, they are as far apart.
 */
#include <stdlib.h>

#include "slice.h"

/*
 * Its parent's vertex that forked pid, by the link into its first vertex,
 * and when it forked (its first vertex may start later: a child waits for
 * a CPU); or 0.
 */
uint64_t
fork_vertex(struct graph *g, uint32_t pid, uint64_t *when)
{
	uint64_t id = vertex_at(g, pid, 0), first = UINT64_MAX, from = 0;
	struct vertex *v = vertex_get(g, id), *u;
	int32_t k;

	if (v == NULL || vertex_began(v) != str_id(VB_FORK))
		return 0;
	/*
	 * The fork came before anything else another process did to wake
	 * it (a lock it waits for may have been taken long before).  Not a
	 * flag's write or a listen a poller waited for: made before its
	 * birth, it may be.
	 */
	for (k = v->in; k >= 0; k = g->l[k].next_in)
		if ((link_props(&g->l[k]) & (LR_WAKES | LR_FLAG)) == LR_WAKES &&
		    (u = vertex_get(g, link_from(&g->l[k]))) != NULL &&
		    u->pid != pid && link_time(&g->l[k]) < first) {
			first = link_time(&g->l[k]);
			from = link_from(&g->l[k]);
		}
	*when = first;
	return from;
}

/* The process that forked pid, and when; or 0. */
static uint32_t
forked_by(struct graph *g, uint32_t pid, uint64_t *when)
{
	uint64_t from = fork_vertex(g, pid, when);

	return from != 0 ? vertex_get(g, from)->pid : 0;
}

uint32_t
process_parent(struct graph *g, uint32_t pid)
{
	uint64_t when;

	return forked_by(g, pid, &when);
}

int
forked_since(struct graph *g, uint32_t pid, uint32_t parent, uint64_t since)
{
	uint64_t when;
	int depth;

	for (depth = 0; depth < 8 && pid != 0; depth++) {
		if ((pid = forked_by(g, pid, &when)) == 0 || when < since)
			return 0;
		if (pid == parent)
			return 1;
	}
	return 0;
}

struct child {
	uint64_t	 born;
	uint32_t	 pid;
	uint32_t	 comm;	/* what it ran first: its first exec's */
};

static int
by_birth(const void *a, const void *b)
{
	const struct child *x = a, *y = b;

	if (x->born != y->born)
		return x->born < y->born ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The processes parent forked, in the order it forked them. */
static size_t
children(struct graph *g, uint32_t parent, struct child **c)
{
	struct vertex *v = vertex_get(g, vertex_at(g, parent, 0));
	/* pc: till an exec */
	uint32_t last = 0, pc = v != NULL ? vertex_comm(v) : 0;
	size_t n = 0, cap = 0;
	uint64_t i, born;

	*c = NULL;
	for (i = 0; i < g->nby; i++) {
		v = &g->v[g->by_thread[i]];
		if (v->tid == last) {
			/*
			 * by_thread is by (tid, begin).  Not what it ran
			 * last: a job that ends in an exec of its last
			 * command is the same job before it.
			 */
			if (n > 0 && (*c)[n - 1].pid == v->tid &&
			    (*c)[n - 1].comm == pc)
				(*c)[n - 1].comm = vertex_comm(v);
			continue;
		}
		last = v->tid;	/* its first */
		if (v->pid != v->tid || forked_by(g, v->pid, &born) != parent)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			*c = xrealloc(*c, cap * sizeof(**c));
		}
		(*c)[n].born = born;
		(*c)[n].comm = vertex_comm(v);
		(*c)[n++].pid = v->pid;
	}
	if (n > 1)	/* none: *c is NULL, which qsort may not be given */
		qsort(*c, n, sizeof(**c), by_birth);
	return n;
}

/*
 * The processes pid forked after time since, and those they forked, at
 * most max into out: what pid had open then, they inherited.  How many.
 */
size_t
descendants(struct graph *g, uint32_t pid, uint64_t since, uint32_t *out,
    size_t max)
{
	struct child *c;
	size_t n = 0, i, j, k;

	/* out[0, n) is the queue, each parent's children put after it. */
	for (i = 0; i <= n && n < max; i++) {
		k = children(g, i == 0 ? pid : out[i - 1], &c);
		for (j = 0; j < k && n < max; j++)
			if (c[j].born >= since)
				out[n++] = c[j].pid;
		free(c);
	}
	return n;
}

/*
 * The fork link into v, a thread's first vertex (a thread or a process):
 * from the vertex of the thread that made it.  -1 if none.
 */
static int32_t
fork_link(struct graph *g, const struct vertex *v)
{
	uint32_t fork = str_id(FORK_RULE);
	int32_t k;

	if (v == NULL || vertex_began(v) != str_id(VB_FORK))
		return -1;
	for (k = v->in; k >= 0; k = g->l[k].next_in)
		if (link_rule(&g->l[k]) == fork &&
		    vertex_get(g, link_from(&g->l[k])) != NULL)
			return k;
	return -1;
}

/* The thread that made thread tid (a thread or a process), or 0. */
uint32_t
made_by(struct graph *g, uint32_t tid)
{
	int32_t k = fork_link(g, vertex_get(g, vertex_at(g, tid, 0)));

	return k < 0 ? 0 : vertex_get(g, link_from(&g->l[k]))->tid;
}

/*
 * The threads and processes thread maker made from time since to until,
 * in the order it made them, at most max into out: a server that makes
 * one per request made the one at work on this request since it came.
 * How many.
 */
size_t
made_since(struct graph *g, uint32_t maker, uint64_t since, uint64_t until,
    uint32_t *out, size_t max)
{
	uint32_t last = 0;
	const struct vertex *v;
	struct child *c = NULL;
	size_t n = 0, cap = 0, i;
	int32_t k;

	for (i = 0; i < g->nby; i++) {
		v = &g->v[g->by_thread[i]];
		if (v->tid == last)
			continue;
		last = v->tid;	/* its first */
		if ((k = fork_link(g, v)) < 0 ||
		    link_time(&g->l[k]) < since ||
		    link_time(&g->l[k]) >= until ||
		    vertex_get(g, link_from(&g->l[k]))->tid != maker)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			c = xrealloc(c, cap * sizeof(*c));
		}
		c[n].born = link_time(&g->l[k]);
		c[n].comm = 0;
		c[n++].pid = v->tid;
	}
	if (n > 1)
		qsort(c, n, sizeof(*c), by_birth);
	for (i = 0; i < n && i < max; i++)
		out[i] = c[i].pid;
	free(c);
	return i;
}

static long	rank_of(const struct child *, size_t, uint32_t);

/*
 * The last max processes parent forked, in the order it forked them: a
 * shell that ran a thousand has the ones alive now among its last.
 */
size_t
process_children(struct graph *g, uint32_t parent, uint32_t *out, size_t max)
{
	return children_before(g, parent, 0, out, max);
}

size_t
children_before(struct graph *g, uint32_t parent, uint32_t pid,
    uint32_t *out, size_t max)
{
	struct child *c;
	size_t n = children(g, parent, &c), from, i;
	long r;

	if (pid != 0 && (r = rank_of(c, n, pid)) >= 0)
		n = (size_t)r;
	from = n > max ? n - max : 0;
	for (i = from; i < n; i++)
		out[i - from] = c[i].pid;
	free(c);
	return n - from;
}

static long
rank_of(const struct child *c, size_t n, uint32_t pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i].pid == pid)
			return (long)i;
	return -1;
}

/*
 * How many forks of program comm from rank a to rank b (b's own counted),
 * signed as b - a is.
 */
static long
forks_of(const struct child *c, long a, long b, uint32_t comm)
{
	long i, d = b > a ? 1 : -1, k = 0;

	for (i = a; i != b; ) {
		i += d;
		if (c[i].comm == comm)
			k += d;
	}
	return k;
}

/* The child k forks of program comm from rank r, or 0. */
static uint32_t
fork_of(const struct child *c, size_t n, long r, long k, uint32_t comm)
{
	long d = k > 0 ? 1 : -1;

	while (k != 0) {
		r += d;
		if (r < 0 || (size_t)r >= n)
			return 0;
		if (c[r].comm == comm)
			k -= d;
	}
	return c[r].pid;
}

/* The child of parent at rank r (from 0), or 0. */
static uint32_t
child_at(struct graph *g, uint32_t parent, long r)
{
	struct child *c;
	size_t n = children(g, parent, &c);
	uint32_t pid = r >= 0 && (size_t)r < n ? c[r].pid : 0;

	free(c);
	return pid;
}

/*
 * The sibling of now as many forks from it as then is from base, then and
 * base children of one parent (pb), now of pn: 0 if none.
 */
static uint32_t
sibling(struct graph *g, uint32_t then, uint32_t base, uint32_t pb,
    uint32_t now, uint32_t pn, int *before)
{
	struct child *c;
	size_t n;
	long rt, rb, rn, k;
	uint32_t pid = 0, comm;

	/* As many forks of their parent apart. */
	n = children(g, pb, &c);
	rt = rank_of(c, n, then);
	rb = rank_of(c, n, base);
	comm = rt >= 0 ? c[rt].comm : 0;
	k = rt >= 0 && rb >= 0 && rt != rb ? forks_of(c, rb, rt, comm) : 0;
	free(c);
	if (rt < 0 || rb < 0)
		return 0;
	n = children(g, pn, &c);
	if ((rn = rank_of(c, n, now)) >= 0) {
		if (rn + rt - rb >= 0 && (size_t)(rn + rt - rb) < n &&
		    c[rn + rt - rb].comm == comm)
			pid = c[rn + rt - rb].pid;
		else if (k != 0)
			pid = fork_of(c, n, rn, k, comm);
	}
	free(c);
	*before = rt < rb;
	return pid;
}

uint32_t
counterpart(struct graph *g, uint32_t then, uint32_t base, uint32_t now,
    const char **relation)
{
	uint32_t pb = process_parent(g, base), pn = process_parent(g, now);
	uint32_t pt = process_parent(g, then), pid;
	struct child *c;
	size_t n;
	long rt;
	int before;

	if (then == base) {
		*relation = "itself";
		return now;
	}
	if (pb != 0 && then == pb) {
		*relation = "its parent";
		return pn;
	}
	if (pt == base) {
		n = children(g, base, &c);
		rt = rank_of(c, n, then);
		free(c);
		*relation = "its child, the same in fork order";
		return child_at(g, now, rt);
	}
	if (pb == 0 || pn == 0 || pt == 0)
		return 0;
	if (pt == pb) {
		pid = sibling(g, then, base, pb, now, pn, &before);
		*relation = before ? "its sibling, as many forks before it" :
		    "its sibling, as many forks after it";
		return pid;
	}
	/*
	 * A wrapper between (`timeout 20 cmd`, nice, sh -c): then is a
	 * sibling of base's parent, and what stands to now's parent as it
	 * stood to base's is the one.
	 */
	if (pt != process_parent(g, pb) || process_parent(g, pn) == 0 ||
	    process_parent(g, pn) != pt)
		return 0;
	pid = sibling(g, then, pb, pt, pn, pt, &before);
	*relation = before ? "the sibling of its parent, as many forks "
	    "before it" : "the sibling of its parent, as many forks after it";
	return pid;
}

/*
 * The child of parent that stands to moment now as then stood to moment
 * before: then was the k-th last child parent forked by before, the k-th
 * last forked by now.  A process that forks a worker per task and waits
 * for it: the worker of the task waited on.
 */
uint32_t
child_before(struct graph *g, uint32_t parent, uint32_t then,
    uint64_t before, uint64_t now)
{
	struct child *c;
	size_t n = children(g, parent, &c), i;
	long rt = rank_of(c, n, then), last_b = -1, last_n = -1;
	uint32_t pid = 0;

	for (i = 0; i < n; i++) {
		if (c[i].born <= before)
			last_b = (long)i;
		if (c[i].born <= now)
			last_n = (long)i;
	}
	if (rt >= 0 && rt <= last_b && last_n - (last_b - rt) >= 0)
		pid = c[last_n - (last_b - rt)].pid;
	free(c);
	return pid;
}
