/*
 * The checks of a patched process's ring (ringread.h): on copies, in
 * memory, each refusal with a reason that says what the ring claimed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "event.h"
#include "ringread.h"

static char	 reason[160];

static const char * __attribute__((format(printf, 1, 2)))
because(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return reason;
}

const char *
ring_names(const char (*name)[UBUF_NAMELEN], uint32_t n,
    const char *const *allowed, int nallowed, char (*out)[UBUF_NAMELEN])
{
	uint32_t i;
	int k;

	if (n > UBUF_PROBES)
		return because("%u event names, more than %d", n,
		    UBUF_PROBES);
	for (i = 0; i < n; i++) {
		if (memchr(name[i], '\0', UBUF_NAMELEN) == NULL)
			return because("event name %u not a string", i);
		memcpy(out[i], name[i], UBUF_NAMELEN);
		if (!etype_user(out[i]))
			return because("event name %u not one a probe may "
			    "give", i);
		for (k = 0; k < nallowed; k++)
			if (strcmp(out[i], allowed[k]) == 0)
				break;
		if (nallowed > 0 && k == nallowed)
			return because("event name %u in none of the probe "
			    "sets given", i);
	}
	return NULL;
}

int64_t
ring_span(uint64_t head, uint64_t tail, uint32_t nevents, const char **why)
{
	if (head - tail > nevents) {
		*why = because("head %llu beyond its ring (read to %llu)",
		    (unsigned long long)head, (unsigned long long)tail);
		return -1;
	}
	return head - tail;
}

int64_t
ring_grown(uint64_t n, uint64_t prev, uint64_t elapsed, const char **why)
{
	if (n < prev || n - prev > elapsed) {
		*why = because("a count of lost events from %llu to %llu",
		    (unsigned long long)prev, (unsigned long long)n);
		return -1;
	}
	return n - prev;
}

static const char *
check(const struct ubuf_event *e, const struct ring_bounds *b)
{
	if (e->probe >= b->nprobes)
		return because("an event of name %u, of %u", e->probe,
		    b->nprobes);
	if (e->nargs > UBUF_MAXARGS)
		return because("an event of %u arguments, at most %d",
		    e->nargs, UBUF_MAXARGS);
	if (e->cpu >= b->ncpu)
		return because("an event on cpu %u, of %u", e->cpu,
		    b->ncpu);
	if (e->ts < b->lo || e->ts > b->hi)
		return because("an event stamped %llu, outside the ring's "
		    "time (%llu to %llu)", (unsigned long long)e->ts,
		    (unsigned long long)b->lo, (unsigned long long)b->hi);
	if (e->tid == 0 || e->tid >= RING_TID_MAX)
		return because("an event of thread %u", e->tid);
	if (b->tid_ok != NULL && !b->tid_ok(b->arg, e->tid))
		return because("an event of thread %u, not of process %d",
		    e->tid, b->pid);
	return NULL;
}

int64_t
ring_read(const struct ubuf_event *ev, uint32_t nevents, uint64_t tail,
    uint64_t n, const struct ring_bounds *b, struct ubuf_event *out,
    const char **why)
{
	uint64_t i;

	if (n > nevents || nevents == 0 || (nevents & (nevents - 1)) != 0) {
		*why = because("%llu events of a ring of %u",
		    (unsigned long long)n, nevents);
		return -1;
	}
	for (i = 0; i < n; i++)
		out[i] = ev[(tail + i) & (nevents - 1)];
	for (i = 0; i < n; i++) {
		if (b->clock != NULL)
			out[i].ts = ring_tsc_ns(b->clock, out[i].ts);
		if ((*why = check(&out[i], b)) != NULL)
			return -1;
	}
	return n;
}

uint64_t
ring_tsc_ns(const struct ring_clock *c, uint64_t tsc)
{
	double ago;

	if (c->tsc <= c->tsc0 || c->ns <= c->ns0)
		return 0;
	/* The offset alone in floating point: ns since boot are more
	 * digits than a double holds after 104 days. */
	ago = (double)(int64_t)(c->tsc - tsc) * ((double)(c->ns - c->ns0) /
	    (double)(c->tsc - c->tsc0));
	/* A count no TSC of this line gives: out of any ring's time. */
	if (ago >= (double)c->ns || ago >= 0x1p62 || ago < -0x1p62)
		return 0;
	return c->ns - (int64_t)ago;
}

uint32_t
ring_nevents(uint64_t size, uint32_t nevents, const char **why)
{
	if (nevents < UBUF_EVENTS_MIN || nevents > UBUF_EVENTS_MAX ||
	    (nevents & (nevents - 1)) != 0) {
		*why = because("rings of %u events", nevents);
		return 0;
	}
	if (size != ubuf_size(nevents)) {
		*why = because("a file of %llu bytes for rings of %u events",
		    (unsigned long long)size, nevents);
		return 0;
	}
	return nevents;
}
