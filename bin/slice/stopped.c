/*
 * A thread that does not run at all is neither idle nor waiting for
 * input: stopped (SIGSTOP, job control's SIGTSTP, a debugger's ptrace
 * stop) it runs again only when continued; frozen by a cgroup freezer
 * (docker pause, systemd's freeze) only when its cgroup is thawed.
 * Whoever waits on it waits for that, and the report says so, by what
 * and since when: the stop signal and its sender where the trace saw
 * them (the signal or stop link into the vertex that ended stopped: the
 * one that woke it, or the one it took awake), the freezer's cgroup where
 * the wait-for snapshot read it.
 */
#include <stdio.h>
#include <string.h>

#include "slice.h"

static int
stop_signal(const char *sig)
{
	return strcmp(sig, "SIGSTOP") == 0 || strcmp(sig, "SIGTSTP") == 0 ||
	    strcmp(sig, "SIGTTIN") == 0 || strcmp(sig, "SIGTTOU") == 0;
}

/* " by SIGSTOP from sh 1234", or "" where the trace has no sender. */
static void
sender(struct graph *g, const struct vertex *v, char *buf, size_t size)
{
	struct vertex *f;
	int32_t k;

	*buf = '\0';
	for (k = v->in; k >= 0; k = g->l[k].next_in)
		if ((strcmp(str_of(link_rule(&g->l[k])), SIGNAL_RULE) == 0 ||
		    strcmp(str_of(link_rule(&g->l[k])), STOP_RULE) == 0) &&
		    stop_signal(str_of(link_label(&g->l[k]))) &&
		    (f = vertex_get(g, link_from(&g->l[k]))) != NULL) {
			snprintf(buf, size, " by %s from %s %u",
			    str_of(link_label(&g->l[k])),
			    str_of(vertex_comm(f)), f->pid);
			return;
		}
}

int
not_running(struct graph *g, const struct vertex *v, char *buf, size_t size)
{
	struct snapwait sw;
	char by[96];
	char stop = v->wait == 'T' || v->wait == 't' ? v->wait : 0;
	int snap = snapshot_wait(g, v, &sw);
	uint64_t since = v->begin;

	if (snap && sw.stop != 0) {
		stop = sw.stop;
		if (sw.since != NO_TIME && sw.since > since &&
		    sw.since < g->last_time)
			since = sw.since;
	}
	if (stop == 0)
		return 0;
	if (stop == 'F') {
		snprintf(buf, size, "frozen by the cgroup freezer (%s) for "
		    "%.1f s so far: it does not run until its cgroup is thawed",
		    str_of(sw.freezer), (g->last_time - since) / 1e9);
		return 1;
	}
	sender(g, v, by, sizeof(by));
	snprintf(buf, size, "stopped%s%s for %.1f s%s: it does not run until "
	    "continued (SIGCONT%s)", stop == 't' ? " by a tracer" : "", by,
	    ((v->end < g->last_time ? v->end : g->last_time) - since) / 1e9,
	    v->end >= g->last_time ? " so far" : "",
	    stop == 't' ? ", or its tracer lets it go" : "");
	return 1;
}
