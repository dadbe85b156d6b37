/*
 * The checks of a patched process's ring (capture/ringread.c), on what a
 * hostile writer may put in one: a header's names, a slot's indices and
 * counts, its events.  Input: a byte of names n (at most 8) and one of
 * the probe sets' rule (odd: only "hit" and "runloop_begin"), n names of
 * UBUF_NAMELEN bytes; then the ring: a byte for its size (2 << (b & 6)
 * cells), one for the CPUs, the head, the tail, the lost count before
 * and after (8 bytes each, little-endian), the time window (16), then
 * the cells, 32 bytes each, as many as there are.
 */
#include "fuzz.h"
#include "ringread.h"

static int
tid_ok(void *arg, uint32_t tid)
{
	(void)arg;
	return tid % 7 != 3;	/* another process's: any rule will do */
}

static uint64_t
u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const sets[] = { "hit", "runloop_begin" };
	static char names[8][UBUF_NAMELEN], out[8][UBUF_NAMELEN];
	static union ubuf_cell cell[128], copy[128];
	static struct ubuf_event got[128];
	struct ring_bounds b = { .tid_ok = tid_ok, .pid = 1 };
	struct ring_clock c;
	const char *why;
	uint32_t n, ncell, nr, i;
	uint64_t used;
	int64_t span, k;
	int j;
	size_t at = 2;

	if (size < 2)
		return 0;
	n = data[0] % 9;
	if (size < at + n * UBUF_NAMELEN + 2 + 6 * 8)
		return 0;
	memcpy(names, data + at, n * UBUF_NAMELEN);
	at += n * UBUF_NAMELEN;
	why = ring_names((const char (*)[UBUF_NAMELEN])names, n,
	    (data[1] & 1) ? sets : NULL, (data[1] & 1) ? 2 : 0, out);
	/* A name taken is a probe's word, and one of the sets' if asked. */
	for (i = 0; why == NULL && i < n; i++)
		if (!etype_user(out[i]) || ((data[1] & 1) &&
		    strcmp(out[i], sets[0]) != 0 &&
		    strcmp(out[i], sets[1]) != 0))
			abort();
	b.nprobes = why == NULL ? n : 0;
	ncell = 2u << (data[at] & 6);
	b.ncpu = data[at + 1];
	at += 2;
	/* A file's size (the head's bytes) and a header's count (the
	 * tail's): taken only when they agree, and within bounds. */
	nr = ring_ncells(u64(data + at), (uint32_t)u64(data + at + 8), &why);
	if (nr != 0 && (ubuf_size(nr) != u64(data + at) ||
	    (nr & (nr - 1)) != 0 || nr < UBUF_CELLS_MIN ||
	    nr > UBUF_CELLS_MAX))
		abort();
	span = ring_span(u64(data + at), u64(data + at + 8), ncell, &why);
	if (span > (int64_t)ncell || (span < 0 && why == NULL))
		abort();
	k = ring_grown(u64(data + at + 24), u64(data + at + 16), 1000000,
	    &why);
	if (k > 1000000 || (k < 0 && why == NULL))
		abort();
	b.lo = u64(data + at + 32);
	b.hi = u64(data + at + 40);
	at += 48;
	/* Stamps of a TSC, and the readings they are converted by, last. */
	if ((data[1] & 2) && size - at >= 4 * 8) {
		size -= 4 * 8;
		c = (struct ring_clock){ u64(data + size), u64(data + size + 8),
		    u64(data + size + 16), u64(data + size + 24) };
		b.clock = &c;
	}
	memset(cell, 0, sizeof(cell));
	memcpy(cell, data + at, size - at < ncell * sizeof(*cell) ?
	    size - at : ncell * sizeof(*cell));
	if (span < 0)
		span = ncell;
	if ((k = ring_read(cell, ncell, u64(data + 2 + n * UBUF_NAMELEN + 2 +
	    8), span, &b, copy, got, &used, &why)) < 0) {
		if (why == NULL)
			abort();
		return 0;
	}
	/* Whole events of the span only: at most one cell short of it. */
	if (used > (uint64_t)span || used + 1 < (uint64_t)span ||
	    k > (int64_t)used || (used > 0 && k == 0))
		abort();
	/* What the recorder would queue: every field within its bounds,
	 * no argument past an event's count. */
	for (i = 0; i < k; i++) {
		if (got[i].probe >= b.nprobes || got[i].nargs > UBUF_MAXARGS ||
		    got[i].cpu >= b.ncpu || got[i].ts < b.lo ||
		    got[i].ts > b.hi || got[i].tid == 0 ||
		    got[i].tid >= RING_TID_MAX || !tid_ok(NULL, got[i].tid))
			abort();
		for (j = got[i].nargs; j < UBUF_MAXARGS; j++)
			if (got[i].arg[j] != 0)
				abort();
	}
	return 0;
}
