/*
 * Reading the spill's blocks back (spillblk.h).  A block found corrupt
 * (a disk's error, a file someone wrote to) is refused, and the reader
 * goes on without its pages: the recorder never trusts a length from
 * disk with a buffer of its own.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <libdeflate.h>
#include <traceevent/kbuffer.h>

#include "util.h"
#include "spillblk.h"
#include "spool.h"

size_t
spill_zmax(void)
{
	static size_t zmax;

	/* NULL: the bound of any compressor this libdeflate makes. */
	if (zmax == 0)
		zmax = libdeflate_deflate_compress_bound(NULL, SPILL_BATCH);
	return zmax;
}

int
spill_block_check(const struct spill_block *b, uint64_t size, uint64_t off,
    size_t pgsize, const char **why)
{
	if (off == size)
		return 0;
	if (off > size || size - off < sizeof(*b))
		*why = "a block header cut short";
	else if (b->len == 0 || b->len > SPILL_BATCH || pgsize == 0 ||
	    b->len % pgsize != 0)
		*why = "a block whose length is no whole pages of a batch";
	else if (b->zlen == 0 || b->zlen > spill_zmax())
		*why = "a block longer than a batch deflates to";
	else if (b->zlen > size - off - sizeof(*b))
		*why = "a block cut short";
	else
		return 1;
	return -1;
}

int
spill_block_at(int fd, uint64_t size, uint64_t off, size_t pgsize,
    struct spill_block *b, const char **why)
{
	ssize_t n;

	if (off >= size || size - off < sizeof(*b))
		return spill_block_check(b, size, off, pgsize, why);
	if ((n = pread(fd, b, sizeof(*b), off)) != (ssize_t)sizeof(*b)) {
		*why = n < 0 ? strerror(errno) : "the file shrank";
		return -1;
	}
	return spill_block_check(b, size, off, pgsize, why);
}

size_t
spill_block_inflate(const void *z, const struct spill_block *b, char *out,
    const char **why)
{
	static struct libdeflate_decompressor *zd;
	size_t got;

	if (b->zlen > spill_zmax() || b->len > SPILL_BATCH) {
		*why = "a block longer than a batch";
		return 0;
	}
	if (zd == NULL && (zd = libdeflate_alloc_decompressor()) == NULL)
		die(EX_OSERR, "libdeflate_alloc_decompressor");
	if (libdeflate_deflate_decompress(zd, z, b->zlen, out, SPILL_BATCH,
	    &got) != LIBDEFLATE_SUCCESS || got != b->len) {
		*why = "a block that does not inflate to its length";
		return 0;
	}
	return got;
}

int
spill_page_check(const void *page, size_t pgsize, const char **why)
{
	uint64_t commit, need;

	if (pgsize < PAGE_HEADER) {
		*why = "a page shorter than its header";
		return 0;
	}
	memcpy(&commit, (const char *)page + 8, sizeof(commit));
	need = PAGE_HEADER + (commit & PAGE_COMMIT);
	if ((commit & PAGE_MISSED_EVENTS) && (commit & PAGE_MISSED_STORED))
		need += sizeof(uint64_t);
	if (need > pgsize) {
		*why = "a page whose events run past its end";
		return 0;
	}
	return 1;
}

void *
spill_page_event(void *ev, struct kbuffer *kb, const char *page,
    size_t pgsize)
{
	if (ev != NULL && ((char *)ev < page + PAGE_HEADER ||
	    (char *)ev + kbuffer_event_size(kb) > page + pgsize))
		return NULL;
	return ev;
}

size_t
spill_block_read(int fd, uint64_t off, const struct spill_block *b,
    char *out, const char **why)
{
	static char *in;
	ssize_t n;

	if (b->zlen > spill_zmax()) {
		*why = "a block longer than a batch deflates to";
		return 0;
	}
	if (in == NULL)
		in = xmalloc(spill_zmax());
	if ((n = pread(fd, in, b->zlen, off + sizeof(*b))) !=
	    (ssize_t)b->zlen) {
		*why = n < 0 ? strerror(errno) : "the file shrank";
		return 0;
	}
	return spill_block_inflate(in, b, out, why);
}
