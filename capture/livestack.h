/*
 * A thread's user stack now, as eu-stack takes it: libdwfl attaches to
 * the live process (ptrace, a moment) and unwinds with each file's CFI.
 */
#ifndef CAPTURE_LIVESTACK_H
#define CAPTURE_LIVESTACK_H

#include <stdint.h>

/* Its frames' addresses, innermost first, into pcs; how many (0: none). */
int	 livestack_user(int tgid, int tid, uint64_t *pcs, int max);

#endif
