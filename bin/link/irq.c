/*
 * What a hard interrupt does that no other rule explains (a device, an
 * inter-processor interrupt, the tick) must not blame the thread it
 * happened to interrupt, and must not vanish either: it becomes a weak
 * edge from that thread's vertex, labelled with the interrupt, for the
 * user to follow or not.
 */
#include <stdio.h>

#include "link.h"

static void
see(const struct event *ev, struct lthread *t)
{
	(void)t;
	if (ev->type == E_IRQ_ENTRY)
		snprintf(cpu_get(ev->cpu)->irq, sizeof(cpu_get(ev->cpu)->irq),
		    "%s", event_str(ev, 1));
	else if (ev->type == E_IRQ_EXIT)
		cpu_get(ev->cpu)->irq[0] = '\0';
}

void
irq_cause(const struct event *ev, struct cause *c)
{
	struct cpu *cpu = cpu_get(ev->cpu);

	c->by = &irq;
	c->rule = ev->ctx == 's' ? "softirq" : "irq";
	c->weak = 1;
	c->vertex = ev->tid == 0 ? NO_VERTEX : lthread_get(ev->tid, 0)->vertex;
	snprintf(c->label, sizeof(c->label), "%s",
	    ev->ctx == 's' ? "softirq" : cpu->irq[0] ? cpu->irq : "hardirq");
}

struct rule irq = {
	"irq", "what an interrupt wakes: weak, from the interrupted vertex",
	see, 0, 0, 0,
};
