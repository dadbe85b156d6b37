/*
 * A thread that does not run at all is neither idle nor waiting for
 * input: stopped (SIGSTOP, job control's SIGTSTP, SIGTTOU or SIGTTIN, a
 * debugger's ptrace stop) it runs again only when continued; frozen by a
 * cgroup freezer (docker pause, systemd's freeze) only when its cgroup is
 * thawed.
 * Whoever waits on it waits for that, and the report says so, by what
 * and since when: the stop signal and its sender where the trace saw
 * them (the signal or stop link into the vertex that ended stopped, or
 * into its process), the freezer's cgroup where the wait-for snapshot
 * read it.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "slice.h"

/* A link that says who stopped its TO: a stop signal's, of either rule. */
static int
stop_link(const struct link *l)
{
	const char *rule = str_of(link_rule(l));

	return (strcmp(rule, SIGNAL_RULE) == 0 ||
	    strcmp(rule, STOP_RULE) == 0) &&
	    label_stops(str_of(link_label(l)));
}

/*
 * "SIGSTOP from sh 1234", or "" where the trace has no sender.  A process
 * stops as a whole: the thread that took the signal has the link, and it
 * stops its siblings (a wake-up of its own for those asleep, none for
 * those at work).  A thread with no link of its own was stopped by the
 * latest stop signal into its process; unless it is traced: a tracer's
 * stop (a breakpoint, a system call's) needs no signal of anyone's, and
 * the SIGSTOP of its attach, long before, is not it.
 */
static void
sender(struct graph *g, const struct vertex *v, int traced, char *buf,
    size_t size)
{
	const struct link *by = NULL;
	struct vertex *f;
	int32_t k;

	*buf = '\0';
	for (k = v->in; k >= 0 && by == NULL; k = g->l[k].next_in)
		if (stop_link(&g->l[k]))
			by = &g->l[k];
	if (by == NULL && !traced)
		for (k = 0; k < g->nl; k++)
			if (g->l[k].to_at != 0 &&
			    g->v[g->l[k].to_at].pid == v->pid &&
			    stop_link(&g->l[k]) && (by == NULL ||
			    link_time(&g->l[k]) > link_time(by)))
				by = &g->l[k];
	if (by == NULL || (f = vertex_get(g, link_from(by))) == NULL)
		return;
	snprintf(buf, size, "%s from %s %u", str_of(link_label(by)),
	    str_of(vertex_comm(f)), f->pid);
}

/*
 * The job-control stop the kernel made of v's own use of its terminal
 * from a background process group, in v: SIGTTOU or SIGTTIN; 0 if none.
 */
static int
ttystop(const struct graph *g, const struct vertex *v)
{
	int i, sig = 0;

	for (i = 0; i < g->nttystops; i++)
		if (g->ttystops[i].tid == v->tid &&
		    g->ttystops[i].time >= v->begin &&
		    g->ttystops[i].time <= v->end)
			sig = g->ttystops[i].sig;
	return sig;
}

/*
 * How v does not run: 'T' stopped, 't' stopped by its tracer, 'F' frozen,
 * or 0; the snapshot's word over the trace's.
 */
static char
stop_of(struct graph *g, const struct vertex *v, struct snapwait *sw,
    uint64_t *since)
{
	char stop = v->wait == 'T' || v->wait == 't' ? v->wait : 0;

	*since = v->begin;
	if (snapshot_wait(g, v, sw) && sw->stop != 0) {
		stop = sw->stop;
		if (sw->since != NO_TIME && sw->since > *since &&
		    sw->since < g->last_time)
			*since = sw->since;
	}
	return stop;
}

int
traced_stop(struct graph *g, const struct vertex *v)
{
	struct snapwait sw;
	uint64_t since;

	return stop_of(g, v, &sw, &since) == 't';
}

int
not_running(struct graph *g, const struct vertex *v, char *buf, size_t size)
{
	struct snapwait sw;
	char by[96], what[112];
	uint64_t since;
	int sig;
	char stop = stop_of(g, v, &sw, &since);

	if (stop == 0)
		return 0;
	if (stop == 'F') {
		snprintf(buf, size, "frozen by the cgroup freezer (%s) for "
		    "%.1f s so far: it does not run until its cgroup is thawed",
		    str_of(sw.freezer), (g->last_time - since) / 1e9);
		return 1;
	}
	sender(g, v, stop == 't', by, sizeof(by));
	/*
	 * Stopped by the kernel for its own use of its terminal: its shell
	 * (or whoever runs the job) brings it to the foreground.
	 */
	if (stop == 'T' && *by == '\0' && (sig = ttystop(g, v)) != 0) {
		snprintf(buf, size, "stopped by %s for %.1f s%s: it %s its "
		    "terminal from the background%s; it runs when brought to "
		    "the foreground", sig == SIGTTOU ? "SIGTTOU" : "SIGTTIN",
		    ((v->end < g->last_time ? v->end : g->last_time) - since) /
		    1e9, v->end >= g->last_time ? " so far" : "",
		    sig == SIGTTOU ? "wrote to" : "read from",
		    sig == SIGTTOU ? " (tostop)" : "");
		return 1;
	}
	/* A tracer's stop (gdb's attach) ends when the tracer lets it go. */
	if (stop == 't')
		snprintf(what, sizeof(what), "stopped by a tracer%s%s%s",
		    *by ? " (" : "", by, *by ? ")" : "");
	else
		snprintf(what, sizeof(what), "stopped%s%s", *by ? " by " : "",
		    by);
	snprintf(buf, size, "%s for %.1f s%s: it does not run until %s", what,
	    ((v->end < g->last_time ? v->end : g->last_time) - since) / 1e9,
	    v->end >= g->last_time ? " so far" : "",
	    stop == 't' ? "its tracer lets it go" : "continued (SIGCONT)");
	return 1;
}
