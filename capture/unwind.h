/*
 * The one libdwfl unwinder of the capture (unwind.c): a thread's user
 * stack from its registers and a copy of the memory above its stack
 * pointer, with each mapped file's CFI.  dwstack.c gives it perf's
 * samples; livestack.c a blocked thread's stack read now.
 */
#ifndef CAPTURE_UNWIND_H
#define CAPTURE_UNWIND_H

#include <stddef.h>
#include <stdint.h>

/* Where a thread was, and what of its memory is known. */
struct ustack {
	int			 tid;
	int			 pid;	/* read beyond the copy from it; 0: never */
	int			 has_bp;	/* bp is known: set it too */
	uint64_t		 bp, sp, pc;
	const unsigned char	*stack;	/* size bytes of memory from sp */
	size_t			 size;
};

struct unwinder;

/* The DWARF numbers of the registers an unwind starts from. */
#if defined(__x86_64__)
#define UNWIND_DWARF_BP	6
#define UNWIND_DWARF_SP	7
#elif defined(__aarch64__)
#define UNWIND_DWARF_SP	31
#endif

/* libdwfl's view of the mappings of tgid now; NULL if it has none. */
struct unwinder	*unwinder_open(int tgid);
/* Whether pc is in a file it knows (no: a library loaded since). */
int		 unwinder_knows(struct unwinder *, uint64_t pc);
/* Its frames' addresses, innermost first, into pcs; how many (0: none). */
int		 unwinder_frames(struct unwinder *, const struct ustack *,
		    uint64_t *pcs, int max);
void		 unwinder_close(struct unwinder *);

#endif
