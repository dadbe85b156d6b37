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
ring_span(uint64_t head, uint64_t tail, uint32_t ncells, const char **why)
{
	if (head - tail > ncells) {
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
ring_read(const union ubuf_cell *c, uint32_t ncells, uint64_t tail,
    uint64_t n, const struct ring_bounds *b, union ubuf_cell *copy,
    struct ubuf_event *out, uint64_t *used, const char **why)
{
	const struct ubuf_head *e;
	struct ubuf_event *o;
	uint64_t i, k;
	int j;

	*used = 0;
	if (n > ncells || ncells == 0 || (ncells & (ncells - 1)) != 0) {
		*why = because("%llu cells of a ring of %u",
		    (unsigned long long)n, ncells);
		return -1;
	}
	for (i = 0; i < n; i++)
		copy[i] = c[(tail + i) & (ncells - 1)];
	for (i = k = 0; i < n; i += UBUF_NCELLS(e->nargs), k++) {
		e = &copy[i].head;
		if (e->nargs > UBUF_MAXARGS) {
			*why = because("an event of %u arguments, at most %d",
			    e->nargs, UBUF_MAXARGS);
			return -1;
		}
		if (i + UBUF_NCELLS(e->nargs) > n)
			break;
		o = &out[k];
		o->ts = b->clock != NULL ? ring_tsc_ns(b->clock, e->ts) :
		    e->ts;
		o->tid = e->tid;
		o->probe = e->probe;
		o->nargs = e->nargs;
		o->cpu = e->cpu;
		for (j = 0; j < UBUF_MAXARGS; j++)
			o->arg[j] = j >= e->nargs ? 0 : j < UBUF_HEADARGS ?
			    e->arg[j] : copy[i + 1].more[j - UBUF_HEADARGS];
		if ((*why = check(o, b)) != NULL)
			return -1;
	}
	*used = i;
	return k;
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
ring_ncells(uint64_t size, uint32_t ncells, const char **why)
{
	if (ncells < UBUF_CELLS_MIN || ncells > UBUF_CELLS_MAX ||
	    (ncells & (ncells - 1)) != 0) {
		*why = because("rings of %u cells", ncells);
		return 0;
	}
	if (size != ubuf_size(ncells)) {
		*why = because("a file of %llu bytes for rings of %u cells",
		    (unsigned long long)size, ncells);
		return 0;
	}
	return ncells;
}
