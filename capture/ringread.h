/*
 * What a patched process's ring (patchers/ubuf.h) may say.  The traced
 * program writes all of it, its header and its events, and may be
 * hostile (a service that dropped its privileges, then was taken over):
 * the recorder (capture/patched.c) copies what it reads out of the
 * shared mapping first, then holds the copy to these checks, away from
 * the mapping and /proc, so that any bytes can be fed to them (the fuzz
 * target test/fuzz/ring).  A ring that fails one is refused whole.
 */
#ifndef CAPTURE_RINGREAD_H
#define CAPTURE_RINGREAD_H

#include <stdint.h>

#include "../patchers/ubuf.h"

#define RING_TID_MAX	(1 << 22)	/* PID_MAX_LIMIT: tids are below */

/*
 * A TSC's count as CLOCK_MONOTONIC ns, for a ring whose header's clock
 * is UBUF_CLOCK_TSC: the line through two readings of both clocks, the
 * recorder's last (tsc, ns) and one at least a while before it (tsc0,
 * ns0; the recorder keeps it from 1 to 2 s old, so that the slope holds
 * what NTP does to CLOCK_MONOTONIC's rate now).  An event is stamped
 * before the last reading: its error is the readings' own (the width of
 * the clock_gettime() between two TSC reads) times its age over the
 * line's span, a few ns.
 */
struct ring_clock {
	uint64_t	 tsc0, ns0;
	uint64_t	 tsc, ns;
};

/* tsc on the line, or 0 (before any ring's time) far off it. */
uint64_t ring_tsc_ns(const struct ring_clock *, uint64_t tsc);

struct ring_bounds {
	uint32_t	 nprobes;	/* the names its header gave */
	uint32_t	 ncpu;		/* the machine's CPUs */
	uint64_t	 lo, hi;	/* when its events can be stamped */
	const struct ring_clock *clock;	/* its stamps are a TSC's; NULL: ns */
	int		 pid;		/* the process whose ring it is */
	/* 0 if tid is a thread of another process than the ring's */
	int		(*tid_ok)(void *arg, uint32_t tid);
	void		*arg;
};

/*
 * A header's n event names, into out as strings: NULL, or why one is
 * refused.  Each must be a TYPE a user-space probe may write
 * (etype_user()), and one of allowed[] when nallowed > 0 (the probe sets
 * the recorder gave the program).
 */
const char *ring_names(const char (*name)[UBUF_NAMELEN], uint32_t n,
	    const char *const *allowed, int nallowed,
	    char (*out)[UBUF_NAMELEN]);

/*
 * The cells of each of a file's rings, as its header says (ncells) and
 * as its size (bytes) must then be: or 0 and why, for a count that is
 * not a power of two within UBUF_CELLS_MIN and UBUF_CELLS_MAX, or a
 * size that is not the count's.
 */
uint32_t ring_ncells(uint64_t size, uint32_t ncells, const char **why);

/*
 * How many cells a slot's head says were written since tail (ours,
 * never the ring's copy), in a ring of ncells (a power of two): or -1
 * and why, for a head behind tail or beyond the ring.
 */
int64_t	 ring_span(uint64_t head, uint64_t tail, uint32_t ncells,
	    const char **why);

/*
 * A count that only grows (events lost, threads without a slot): now n,
 * prev when read last, elapsed ns ago; no more than one a nanosecond,
 * as no probe is hit faster.  The growth, or -1 and why.
 */
int64_t	 ring_grown(uint64_t n, uint64_t prev, uint64_t elapsed,
	    const char **why);

/*
 * The events in n cells of the ring c[ncells] from tail: the cells
 * copied into copy[n] first (the writer may change them while they are
 * read), then each event out of the copy into out, its stamp made ns
 * (b->clock), and checked.  The events, *used the cells they took: all
 * n but for an event whose second cell is past them (n cut short), or
 * -1 and why at the first refused.
 */
int64_t	 ring_read(const union ubuf_cell *c, uint32_t ncells,
	    uint64_t tail, uint64_t n, const struct ring_bounds *b,
	    union ubuf_cell *copy, struct ubuf_event *out, uint64_t *used,
	    const char **why);

#endif
