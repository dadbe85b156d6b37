/*
 * A source attached to a user-space run loop links the attaching vertex to
 * the callout that dispatches it: runloop_submit (GLib's g_source_attach:
 * the GSource, the GMainContext) to the next runloop_begin of the same
 * GSource in the same process (GLib's per-type dispatch functions, whose
 * first argument is the GSource: see patchers/glib.probes).  Pointers are
 * per process, so the key is the pair.
 *
 * Only the first dispatch after an attach is linked: a source that stays
 * attached (a repeating timeout, an fd watch) runs again because time
 * passed or its fd became ready, which the timer and message rules see,
 * not because of the attach.  A GSource freed and its memory reused by a
 * later attach starts over: the newest attach wins.
 */
#include "link.h"

/* Pointers are per process: the key is the pair. */
struct key {
	uint32_t	 pid;
	uint32_t	 pad;
	uint64_t	 source;
};

static struct pending *attached;
_Static_assert(ECOL_SAME(E_RUNLOOP_SUBMIT, E_RUNLOOP_BEGIN, SOURCE),
    "submit and begin name the source in one column");
#define SOURCE_COL	ECOL(E_RUNLOOP_SUBMIT, SOURCE)

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct key k = { 0 };
	struct cause c;

	if (event_nargs(ev) < 1 || *event_str(ev, SOURCE_COL) == '\0')
		return;
	k.pid = ev->pid;
	k.source = event_u64(ev, SOURCE_COL);
	if (ev->type == E_RUNLOOP_BEGIN) {
		if (pending_take(&attached, &k, sizeof(k), &c))
			link_emit(ev->time, t->pid, t->tid, ev->vertex, &c);
		return;
	}
	if (!link_cause(ev, &c)) {
		pending_take(&attached, &k, sizeof(k), NULL);
		return;
	}
	cause_name(&c, self);
	cause_label(&c, event_str(ev, SOURCE_COL));
	pending_put(&attached, &k, sizeof(k), &c);
}

LINK_RULE(runloop) = {
	.name = RUNLOOP_RULE,
	.types = EV(E_RUNLOOP_SUBMIT) | EV(E_RUNLOOP_BEGIN),
	.see = see,
};
