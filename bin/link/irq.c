/*
 * What an interrupt does that no other rule explains (a device, an
 * inter-processor interrupt, the tick) must not blame the thread it
 * happened to interrupt, and must not vanish either: it becomes a weak
 * edge from that thread's vertex, labelled with the interrupt, for the
 * user to follow or not.  Asked last.
 */
#include <stdio.h>

#include "link.h"

/* The hard interrupt handler running on a CPU, "" if none. */
struct cpu {
	char		 name[24];
};

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct cpu *cpu = link_cpu(self, ev->cpu);

	(void)t;
	if (ev->type == E_IRQ_ENTRY)
		snprintf(cpu->name, sizeof(cpu->name), "%s",
		    event_str(ev, ECOL(E_IRQ_ENTRY, NAME)));
	else
		cpu->name[0] = '\0';
}

static int
attribute(struct link_rule *self, const struct event *ev, struct cause *c)
{
	struct cpu *cpu = link_cpu(self, ev->cpu);

	cause_name(c, self);
	c->vertex = ev->tid == 0 ? NO_VERTEX : lthread_get(ev->tid, 0)->vertex;
	cause_label(c, ev->ctx == 's' ? "softirq" :
	    cpu->name[0] ? cpu->name : "hardirq");
	return 1;
}

LINK_RULE(irq) = {
	.name = IRQ_RULE,
	.types = EV(E_IRQ_ENTRY) | EV(E_IRQ_EXIT),
	.see = see,
	.attribute = attribute,
	.cpu_size = sizeof(struct cpu),
};
