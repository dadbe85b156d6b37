/*
 * The spill's reader (capture/spillblk.c): a CPU's spill file walked
 * block by block, as the recorder reads one back, each block inflated,
 * each page checked, then its events read as emit_spill() reads them.
 * Input: a byte for the page size (64 << (b & 7)), then the file.
 */
#include <fcntl.h>

#include <traceevent/kbuffer.h>

#include "fuzz.h"
#include "spillblk.h"

/* A page's events, each touched whole: ASan sees a read past the page. */
static unsigned
events(struct kbuffer *kb, char *page, size_t pg)
{
	unsigned long long ts;
	unsigned sum = 0;
	const char *ev;
	int i, n;

	if (kbuffer_load_subbuffer(kb, page) < 0)
		return 0;
	for (ev = spill_page_event(kbuffer_read_event(kb, &ts), kb, page, pg);
	    ev != NULL; ev = spill_page_event(kbuffer_next_event(kb, &ts), kb,
	    page, pg))
		for (i = 0, n = kbuffer_event_size(kb); i < n; i++)
			sum += (unsigned char)ev[i];
	return sum;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *out, *page;
	static struct kbuffer *kb;
	struct spill_block b;
	const char *why;
	uint64_t off = 0;
	size_t pg, n, p;
	unsigned sum = 0;
	int fd, r;

	if (size < 1)
		return 0;
	if (out == NULL) {
		out = xmalloc(SPILL_BATCH);
		kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	}
	pg = (size_t)64 << (data[0] & 7);
	/* As emit.c gives kbuffer a page: 8 bytes past it. */
	free(page);
	page = xmalloc(pg + 8);
	if ((fd = open(fuzz_file(data + 1, size - 1), O_RDONLY)) == -1)
		abort();
	/* Nothing here may die: a corrupt block is refused, not fatal. */
	if (!FUZZ_GUARD())
		abort();
	while ((r = spill_block_at(fd, size - 1, off, pg, &b, &why)) == 1) {
		if ((n = spill_block_read(fd, off, &b, out, &why)) != 0) {
			/* What the reader hands on: whole pages. */
			if (n != b.len || n % pg != 0 || n > SPILL_BATCH)
				abort();
			for (p = 0; p < n; p += pg)
				if (spill_page_check(out + p, pg, &why)) {
					memcpy(page, out + p, pg);
					sum += events(kb, page, pg);
				} else if (why == NULL)
					abort();
		} else if (why == NULL)
			abort();
		off += sizeof(b) + b.zlen;
		if (off > size - 1)
			abort();
	}
	if (r < 0 && why == NULL)
		abort();
	close(fd);
	return sum == 0xdeadbeef;
}
