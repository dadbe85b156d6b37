/*
 * The spill's files (capture/spill.c): a run of blocks, each a header
 * (its first page's time, which the kernel's page header begins with, so
 * that a file's first 8 bytes are its first page's time) and the raw
 * deflate of whole pages.  Read back from disk, a file is data to check:
 * every length it gives is held to the buffer it fills.
 */
#ifndef CAPTURE_SPILLBLK_H
#define CAPTURE_SPILLBLK_H

#include <stddef.h>
#include <stdint.h>

#define SPILL_BATCH	(1 << 20)	/* pages a block holds, at most */

struct spill_block {
	uint64_t	 ts;		/* its first page's, as the page says */
	uint32_t	 zlen;		/* deflated bytes that follow */
	uint32_t	 len;		/* whole pages, at most SPILL_BATCH */
	/*
	 * Events lost before its marked pages that had no room for the
	 * count (spool_page_lost()): said at the first of them when the
	 * block is read back; a page with the count says its own.
	 */
	uint64_t	 lost;
};

/* The most deflated bytes a block of SPILL_BATCH may take. */
size_t	 spill_zmax(void);

/*
 * The block whose header is at off of a file of size bytes, whose pages
 * are pgsize long: 1 and *b if it is one, whole; 0 at the file's end;
 * -1 and *why if what is there is no block.
 */
int	 spill_block_check(const struct spill_block *b, uint64_t size,
	    uint64_t off, size_t pgsize, const char **why);
int	 spill_block_at(int fd, uint64_t size, uint64_t off, size_t pgsize,
	    struct spill_block *b, const char **why);

/*
 * Its pages into out (SPILL_BATCH bytes): their length, or 0 and *why.
 * spill_block_inflate() is the same from the deflated bytes in memory.
 */
size_t	 spill_block_read(int fd, uint64_t off, const struct spill_block *b,
	    char *out, const char **why);
size_t	 spill_block_inflate(const void *z, const struct spill_block *b,
	    char *out, const char **why);

/*
 * A page read back, before the kernel's page reader (libtraceevent's
 * kbuffer, which believes it) gets it: 1 if its header's length of
 * events (and of the lost count after them) ends within its pgsize
 * bytes, 0 and why if not.
 */
int	 spill_page_check(const void *page, size_t pgsize, const char **why);

/*
 * ev, an event kbuffer kb found in a page read back, if it lies whole
 * within the page's pgsize bytes: one from disk may claim any length.
 * NULL: the page's end.
 */
struct kbuffer;
void	*spill_page_event(void *ev, struct kbuffer *kb, const char *page,
	    size_t pgsize);

#endif
