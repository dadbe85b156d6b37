/*
 * A blocked thread's user stack now, unwound by libdwfl with each file's
 * CFI from a copy of it, without stopping the thread (livestack.c).
 */
#ifndef CAPTURE_LIVESTACK_H
#define CAPTURE_LIVESTACK_H

#include <stdint.h>

/* Its frames' addresses, innermost first, into pcs; how many (0: none). */
int	 livestack_user(int tgid, int tid, uint64_t *pcs, int max);

#endif
