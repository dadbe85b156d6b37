/*
 * The threads' vertices as the stream goes by, attribution of causes, and
 * the link records.  A link is written when its destination vertex begins,
 * so the stream stays in time order: TIME, PID and TID are the
 * destination's, the source's time and thread are columns of their own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"

static struct lthread	*threads;
static struct cpu	*cpus;
static uint32_t		 ncpus;
static struct writer	*out;
static uint64_t		 nstrong, nweak;

void
link_init(struct writer *w)
{
	out = w;
}

struct lthread *
lthread_get(uint32_t tid, uint32_t pid)
{
	struct lthread *t;

	HASH_FIND(hh, threads, &tid, sizeof(tid), t);
	if (t == NULL) {
		t = xcalloc(1, sizeof(*t));
		t->tid = tid;
		HASH_ADD(hh, threads, tid, sizeof(t->tid), t);
	}
	if (pid != 0)
		t->pid = pid;
	return t;
}

struct cpu *
cpu_get(uint32_t cpu)
{
	uint32_t i;

	if (cpu >= ncpus) {
		cpus = xrealloc(cpus, (cpu + 1) * sizeof(*cpus));
		for (i = ncpus; i <= cpu; i++) {
			memset(&cpus[i], 0, sizeof(cpus[i]));
			cpus[i].softirq = -1;
		}
		ncpus = cpu + 1;
	}
	return &cpus[cpu];
}

void
link_emit(uint64_t time, uint32_t pid, uint32_t tid, uint64_t to,
    const struct cause *c)
{
	struct rule *r = c->by != NULL ? c->by : &wakeup;

	if (to == NO_VERTEX || to == UNSEGMENTED)
		return;
	if (c->vertex == to)
		return;		/* a vertex does not cause itself */
	writer_begin(out, "link");
	writer_u64(out, time);
	writer_u64(out, pid);
	writer_u64(out, tid);
	writer_u64(out, c->vertex);
	writer_u64(out, to);
	writer_str(out, c->weak ? "weak" : "strong");
	writer_str(out, c->rule);
	writer_time(out, c->time);
	writer_u64(out, c->pid);
	writer_u64(out, c->tid);
	writer_str(out, c->label);
	writer_end(out);
	if (c->weak) {
		r->weak++;
		nweak++;
	} else {
		r->strong++;
		nstrong++;
	}
}

/*
 * Who caused what an event does.  In a task, the task's own vertex.  In an
 * interrupt, whoever the interrupt was working for, if a rule knows; if
 * none does, the thread it interrupted, by a weak edge named after the
 * interrupt, so that nothing is dropped silently.
 */
void
cause_of(const struct event *ev, struct cause *c)
{
	memset(c, 0, sizeof(*c));
	c->time = ev->time;
	c->pid = ev->pid;
	c->tid = ev->tid;
	c->rule = "wakeup";
	c->by = &wakeup;
	if (ev->ctx == '-') {
		c->vertex = ev->vertex;
		return;
	}
	if (timer_cause(ev, c) || block_cause(ev, c) || softirq_cause(ev, c))
		return;
	irq_cause(ev, c);
}

void
link_event(const struct event *ev, struct rule **rules, int nrules)
{
	struct lthread *t = lthread_get(ev->tid, ev->pid);
	int i;

	/* Interrupt-context events (vertex 0) leave the thread's vertex be. */
	t->fresh = 0;
	if (ev->vertex != NO_VERTEX && ev->vertex != UNSEGMENTED &&
	    ev->vertex != t->vertex) {
		t->prev = t->vertex;
		t->vertex = ev->vertex;
		t->fresh = 1;
	}
	for (i = 0; i < nrules; i++)
		if (!rules[i]->off)
			rules[i]->see(ev, t);
}

void
link_summary(struct writer *w, uint64_t end, int to_stderr,
    struct rule **rules, int nrules)
{
	int i;

	writer_begin(w, "summary");
	writer_time(w, end);
	writer_empty(w);
	writer_empty(w);
	writer_str(w, "argus-link");
	writer_str(w, "strong");
	writer_u64(w, nstrong);
	writer_str(w, "weak");
	writer_u64(w, nweak);
	for (i = 0; i < nrules; i++) {
		writer_str(w, rules[i]->name);
		writer_u64(w, rules[i]->strong + rules[i]->weak);
	}
	writer_end(w);
	if (!to_stderr)
		return;
	fprintf(stderr, "argus-link: %llu strong and %llu weak links; by rule:",
	    (unsigned long long)nstrong, (unsigned long long)nweak);
	for (i = 0; i < nrules; i++)
		fprintf(stderr, " %s %llu/%llu%s", rules[i]->name,
		    (unsigned long long)rules[i]->strong,
		    (unsigned long long)rules[i]->weak,
		    rules[i]->off ? " (off)" : "");
	fputc('\n', stderr);
}

/*
 * A return probe's event ends the call whatever it returned; an entry
 * without its return (a capture begun or ended mid-call) is harmless.
 */
void
inside_see(struct inside *in, const struct event *ev, enum etype entry,
    enum etype ret)
{
	if (ev->type == entry) {
		in->in = 1;
		in->object = event_nargs(ev) > 0 && *event_str(ev, 0) != '\0' ?
		    event_u64(ev, 0) : 0;
	} else if (ev->type == ret)
		memset(in, 0, sizeof(*in));
}

void
inside_label(const struct inside *in, struct cause *c)
{
	if (in->object != 0)
		snprintf(c->label, sizeof(c->label), "0x%llx",
		    (unsigned long long)in->object);
}
